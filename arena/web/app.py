"""`arena serve`: the league site as a Starlette application, read-only.

Every request opens the database read-only (`open_existing`), so the server never
holds a lock that `arena run` would wait for, and sees each match as soon as it is
committed. Live pages poll `/api/version` and swap in the page when it changes.
A page of something the database does not hold raises `pages.NotFound`, which one
exception handler answers with 404; what being published asks of the server (the
`Host` check, security headers, bounded ids) is in arena/web/hardening.py."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import sqlite_utils
from starlette.applications import Starlette
from starlette.convertors import register_url_convertor
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.errors import ConfigError
from arena.league.store import open_existing
from arena.league.store.site_reads import data_version
from arena.league.workers.live import live_stamp, read_live
from arena.web import pages
from arena.web.hardening import (
    CSP,
    FORMS_CSP,
    IdConvertor,
    NameConvertor,
    SecurityHeaders,
    SegmentedPath,
    allowed_hosts,
)
from arena.web.ladder.authors.sessions import Sessions, new_secret
from arena.web.links import Links
from arena.web.render import render_page
from arena.web.table.app import table_routes
from arena.web.table.offer import offer_context, start_game
from arena.web.table.opponents import entrant_opponent
from arena.web.table.site_games import Opponent, SiteGames
from arena.web.viewer_data import deal_json

STATIC = Path(__file__).parent / "static"
register_url_convertor("id", IdConvertor())
register_url_convertor("name", NameConvertor())


def make_app(
    db_path: Path,
    live_hands: bool = False,
    hosts: Sequence[str] | None = None,
    games: SiteGames | None = None,
) -> Starlette:
    """The site over the league database at `db_path` (checked now: a missing or
    unreadable database is refused before the server starts). `live_hands` shows the
    hands of games still being played (organisers only: docs/web.md says why not).
    `hosts`: the `Host` names answered (default: loopback's; `allowed_hosts`).
    `games`: the games visitors may play against an entrant ("play against this bot",
    docs/human.md); None offers none."""
    open_existing(db_path).close()
    links = Links()

    @contextmanager
    def database() -> Iterator[sqlite_utils.Database]:
        db = open_existing(db_path)
        try:
            yield db
        finally:
            db.close()

    def page(template: str, build: Callable[..., dict[str, Any]]) -> Callable[..., Response]:
        def endpoint(request: Request) -> Response:
            with database() as db:
                context = build(db, **request.path_params)
            return HTMLResponse(render_page(template, links, context))

        return endpoint

    def game(db: sqlite_utils.Database, game_id: int) -> dict[str, Any]:
        return {**pages.game_page(db, game_id, links), "live_page": False}

    def deal(request: Request) -> Response:
        game_id, number = request.path_params["game_id"], request.path_params["deal"]
        with database() as db:
            replay = pages.stored_replay(db, game_id)
        if not 1 <= number <= len(replay["deals"]):
            raise pages.NotFound(f"game {game_id} has no deal {number}")
        return Response(deal_json(replay, number), media_type="application/json")

    def version(request: Request) -> Response:
        with database() as db:
            stamp = [data_version(db), live_stamp(db_path)]
        return PlainTextResponse(json.dumps(stamp))

    def paged(template: str, build: Callable[..., dict[str, Any]]) -> Callable[..., Response]:
        """A page of a long list (a league's table, an entrant's games): `?page=N`, its
        N-th (digits only, at most six: anything else is no page)."""

        def endpoint(request: Request) -> Response:
            with database() as db:
                context = build(db, **request.path_params, page=page_number(request))
            return HTMLResponse(render_page(template, links, context))

        return endpoint

    def page_number(request: Request) -> int:
        """The `?page=N` asked for: digits only, at most six; anything else is no page."""
        raw = request.query_params.get("page", "1")
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 6):
            raise pages.NotFound(f"no page {raw[:20]!r}: pages are numbered from 1")
        return int(raw)

    def match(db: sqlite_utils.Database, league: str, idx: int) -> dict[str, Any]:
        live = read_live(db_path, league, idx)
        return pages.match_page(db, league, idx, live, live_hands)

    def live_game(db: sqlite_utils.Database, league: str, idx: int) -> dict[str, Any]:
        live = read_live(db_path, league, idx)
        return pages.live_game_page(db, league, idx, live, links, live_hands)

    def live_or_stored(request: Request) -> Response:
        """The live viewer, or once the match is stored its game (the watcher's page
        reloads into the stored game instead of a "not found")."""
        league, idx = request.path_params["league"], request.path_params["idx"]
        with database() as db:
            stored = pages.stored_live_game(db, league, idx)
            if stored is None:
                context = live_game(db, league, idx)
        if stored is not None:
            return RedirectResponse(links.game(stored), status_code=303)
        return HTMLResponse(render_page("game.html", links, context))

    def live_deal(request: Request) -> Response:
        league, idx = request.path_params["league"], request.path_params["idx"]
        number = request.path_params["deal"]
        live = read_live(db_path, league, idx)
        with database() as db:  # only whether it may be watched: the frames are all it needs
            body = pages.live_deal_body(db, league, idx, live, number, live_hands)
        return Response(body, media_type="application/json")

    def opponent(db: sqlite_utils.Database, league: str, entrant: str) -> Opponent | str:
        return entrant_opponent(db, db_path, league, entrant)

    def entrant_page(request: Request) -> Response:
        league, entrant = request.path_params["league"], request.path_params["entrant"]
        number = page_number(request)
        with database() as db:
            context = pages.entrant_page(db, league, entrant, page=number)
            found = opponent(db, league, entrant) if games is not None else ""
        action = links.entrant(league, entrant) + "/play"
        context["play"] = offer_context(request, games, found, action)
        return HTMLResponse(render_page("entrant.html", links, context))

    async def play_entrant(request: Request) -> Response:
        league, entrant = request.path_params["league"], request.path_params["entrant"]
        if games is None:
            raise pages.NotFound("this server offers no games against its bots")
        with database() as db:
            pages.entrant_page(db, league, entrant, page=1)  # NotFound for no such entrant
            found = opponent(db, league, entrant)
        return await start_game(request, games, found, say)

    def say(title: str, message: str, status: int, headers: dict[str, str]) -> Response:
        html = render_page(
            "missing.html", links, {"title": title, "heading": title, "message": message}
        )
        return HTMLResponse(html, status_code=status, headers=headers)

    routes = [
        Route("/", page("leagues.html", pages.leagues_page)),
        Route("/league/{name:name}", paged("league.html", pages.league_page)),
        Route("/league/{league:name}/entrant/{entrant:name}", entrant_page),
        Route("/league/{league:name}/entrant/{entrant:name}/play", play_entrant, methods=["POST"]),
        Route("/league/{league:name}/match/{idx:id}", page("match.html", match)),
        Route("/league/{league:name}/match/{idx:id}/live", live_or_stored),
        Route("/league/{league:name}/match/{idx:id}/live/deal/{deal:id}.json", live_deal),
        Route("/league/{league:name}/faults", page("faults.html", pages.faults_page)),
        Route("/game/{game_id:id}", page("game.html", game)),
        Route("/game/{game_id:id}/deal/{deal:id}.json", deal),
        Route("/api/version", version),
        *(table_routes(games) if games is not None else []),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    def not_found(request: Request, exc: Exception) -> Response:
        """The one answer to a page of something not held: `NotFound` saying what is
        there, or an address that names no page (an id too long, a path unknown)."""
        if isinstance(exc, HTTPException) and exc.status_code != 404:
            return PlainTextResponse(exc.detail, status_code=exc.status_code)
        message = str(exc) if isinstance(exc, pages.NotFound) else "no page at this address"
        html = render_page("missing.html", links, {"title": "not found", "message": message})
        return HTMLResponse(html, status_code=404)

    middleware = [
        Middleware(SecurityHeaders, csp=CSP if games is None else FORMS_CSP),
        Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts or allowed_hosts(""))),
        Middleware(SegmentedPath),
    ]
    if games is not None:  # the form's token lives in the visitor's session
        middleware.append(Middleware(Sessions, secret=new_secret()))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        if games is not None:  # the server stops: every game ended, its bots with it
            games.close()

    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={pages.NotFound: not_found, 404: not_found},
        lifespan=lifespan,
    )
    app.state.live_hands = live_hands
    return app


def check_address(host: str, port: int) -> None:
    """ConfigError saying what to do when the server could not listen at host:port (a
    port taken by another program, an address this machine does not have)."""
    try:
        with socket.create_server((host, port)):
            pass
    except (TypeError, UnicodeError, ValueError):  # a host that is no name at all
        raise ConfigError(
            f"--host {host[:80]!r} is not a host name or address: give an address this "
            "machine has (127.0.0.1 for this machine alone, 0.0.0.0 for every interface)"
        ) from None
    except OverflowError:
        raise ConfigError(f"--port {port} must be from 0 to 65535") from None
    except OSError as err:
        raise ConfigError(
            f"cannot listen on {host}:{port} ({err.strerror or err}): give another --port, "
            "or a --host this machine has (127.0.0.1 for this machine alone)"
        ) from None
