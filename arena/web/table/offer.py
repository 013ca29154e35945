"""The "play against this bot" form of a league's entrant page (`arena serve`) and a
ladder's version page (`arena ladder serve`), and what its post does.

Why a form with a token: the post starts a game, bots' processes included, so a page
of another site must not make a visitor's browser start one. The form carries the
session's form token (arena/web/ladder/authors/sessions.py: Starlette's signed,
SameSite=Strict session cookie), compared in constant time before anything is done;
a post without it, or with another, is refused with 403.

Why the visitor picks from a list: each other seat is one of `OPPONENTS` (built-ins,
in the server's own process), checked again on the post; nothing a visitor sends
names a program, a file or an address. The post answers with a redirect to the seat's
page, whose path holds the seat's secret (never logged: the sites' servers keep no
access log), or with why no game was started: 503 and Retry-After when the server
plays its most games at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from arena.errors import ConfigError
from arena.games import get_game
from arena.web.ladder.authors.sessions import CSRF_FIELD, FormRefused, check_form, form_token
from arena.web.table.app import seat_path
from arena.web.table.site_games import OPPONENTS, RETRY_SECONDS, Busy, Opponent, SiteGames

DEFAULT_OPPONENT = "builtin:greedy"
FORM_FIELDS = 8  # a form has the token and an opponent per seat: a few fields
FORM_BYTES = 2048  # ... of a few dozen bytes each
FORM_TYPE = "application/x-www-form-urlencoded"
Say = Callable[[str, str, int, dict[str, str]], Response]
"""(title, message, status, headers) -> the site's page saying so."""


def offer_context(
    request: Request,
    games: SiteGames | None,
    found: Opponent | str,
    action: str,
) -> dict[str, Any] | None:
    """What a page's "play against this bot" section shows: None when the server
    offers no games; why not when the bot cannot be started here (`found` a reason);
    else the form (`action` its address) with a select per free seat."""
    if games is None:
        return None
    if isinstance(found, str):
        return {"why": found}
    game = get_game(found.game)
    default = DEFAULT_OPPONENT if DEFAULT_OPPONENT in OPPONENTS else OPPONENTS[0]
    defaults = game.options_dict(game.parse_options({}))
    rules = ", ".join(  # the rules this league plays by that are not the game's own
        f"{k}={_shown(v)}" for k, v in sorted(found.rules.items()) if defaults.get(k) != v
    )
    return {
        "why": None,
        "name": found.name,
        "game": game.name.capitalize(),  # the game's name as a sentence shows it
        "rules": rules,
        "action": action,
        "csrf": form_token(request),
        "seats": list(range(2, game.seats)),
        "choices": list(OPPONENTS),
        "default": default,
        "running": games.running(),
        "limit": games.limit,
    }


async def start_game(
    request: Request, games: SiteGames, found: Opponent | str, say: Say
) -> Response:
    """The form's post: token checked, opponents checked, the game started and the
    visitor sent to their seat's page (303); else the site's page saying why."""
    form = await _small_form(request)
    if form is None:
        return say("not played", "this form could not be read: send it again", 400, {})
    try:
        check_form(request, {CSRF_FIELD: (form.get(CSRF_FIELD) or [None])[0]})
    except FormRefused as refused:
        return say("not played", str(refused), 403, {})
    if isinstance(found, str):
        return say("not played", f"you cannot play against this bot from this site: {found}",
                   409, {})  # fmt: skip
    others = form.get("opponent", [])
    try:
        seat = games.start(found, others)
    except Busy as busy:
        return say("busy", str(busy), 503, {"retry-after": str(RETRY_SECONDS)})
    except ConfigError as err:
        return say("not played", str(err), 400, {})
    return RedirectResponse(seat_path(seat), status_code=303)


async def _small_form(request: Request) -> dict[str, list[str]] | None:
    """The posted form's fields, read up to FORM_BYTES and FORM_FIELDS (a stranger's
    body is never read whole: Starlette's own reader has no cap on a URL-encoded
    form); None when it is not such a form, or larger."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != FORM_TYPE:
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_BYTES:
            return None
    try:
        return parse_qs(body.decode(), max_num_fields=FORM_FIELDS, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        return None


def _shown(value: Any) -> str:
    """A rule option's value as a league file writes it (true, not True)."""
    return str(value).lower() if isinstance(value, bool) else str(value)
