"""`arena ladder serve`: the ladder's public site and the read side of its JSON API, a
Starlette application built as the league site is (arena/web/app.py): every request
opens the database read-only, a page of something not held is `NotFound` (404), a
query parameter refused is `BadRequest` (400), and the league site's hardening wraps
it all (the `Host` check, security headers on every response, names in the path,
bounded ids: arena/web/hardening.py).

The replay viewer, a match's page (with the game in flight shown only as the league
site's rule allows: arena/web/live_view.py) and the faults page are the league site's
own, over the league row that holds the ladder's games."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import sqlite_utils
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.ladder.book import open_ladder, reading
from arena.league.store.ladder_site_reads import game_league, ladder_data_version
from arena.league.store.site_reads import data_version
from arena.league.workers.live import live_stamp, read_live
from arena.web import pages
from arena.web.app import STATIC  # also registers the `id` and `name` convertors
from arena.web.hardening import FORMS_CSP, SecurityHeaders, SegmentedPath, allowed_hosts
from arena.web.ladder import api, data
from arena.web.ladder import pages as ladder_pages
from arena.web.ladder.authors.actions import Actions
from arena.web.ladder.authors.api import ApiWrites, json_response
from arena.web.ladder.authors.pages import AUTHOR_HOME, AuthorPages
from arena.web.ladder.authors.sessions import Sessions, SignedOut, new_secret
from arena.web.ladder.authors.throttle import SignInLimits
from arena.web.ladder.links import LadderLinks
from arena.web.ladder.openapi import document
from arena.web.ladder.params import BadRequest, Query
from arena.web.render import render_page
from arena.web.table.app import table_routes
from arena.web.table.offer import offer_context, start_game
from arena.web.table.opponents import version_opponent
from arena.web.table.site_games import Opponent, SiteGames
from arena.web.viewer_data import deal_json


def make_ladder_app(
    db_path: Path,
    ladder_name: str | None = None,
    hosts: Sequence[str] | None = None,
    limits: SignInLimits | None = None,
    games: SiteGames | None = None,
) -> Starlette:
    """The site of the ladder `ladder_name` (or the database's only one) in `db_path`,
    checked now: a missing database or ladder is refused before the server starts.
    `hosts`: the `Host` names answered (default: loopback's; `allowed_hosts`);
    `limits`: the sign-in attempts allowed (default: arena/web/ladder/authors/throttle.py's).
    `games`: the games visitors may play against a version ("play against this bot",
    docs/human.md); None offers none."""
    with reading(db_path) as db:
        name = open_ladder(db, ladder_name).config.name
    links = LadderLinks()
    actions = Actions(Path(db_path), name, limits or SignInLimits())
    authors = AuthorPages(Path(db_path), name, links, actions, SignedOut())
    writes = ApiWrites(actions)

    @contextmanager
    def database() -> Iterator[sqlite_utils.Database]:
        with reading(db_path) as db:
            yield db

    def page(
        template: str, build: Callable[..., dict[str, Any]], params: Sequence[str] = ()
    ) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            query = Query.of(request.query_params.multi_items(), params)
            with database() as db:
                ladder = data.ladder_of(db, name)
                values = dict(request.path_params)
                if params:
                    values["query"] = query
                context = build(db, ladder, **values)
            context["account"] = authors.account(request)
            return HTMLResponse(render_page(template, links, context))

        return endpoint

    def version_view(request: Request) -> Response:
        """A version's page, with "play against this bot" when the server offers games."""
        query = Query.of(request.query_params.multi_items(), ladder_pages.VERSION_PARAMS)
        bot, number = request.path_params["bot"], request.path_params["number"]
        with database() as db:
            ladder = data.ladder_of(db, name)
            context = ladder_pages.version_page(db, ladder, bot, number, query)
            found = opponent(db, bot, number) if games is not None else ""
        context["account"] = authors.account(request)
        action = links.version_page(bot, number) + "/play"
        context["play"] = offer_context(request, games, found, action)
        return HTMLResponse(render_page("ladder_version.html", links, context))

    def opponent(db: sqlite_utils.Database, bot: str, number: int) -> Opponent | str:
        ladder = open_ladder(db, name)
        return version_opponent(Path(db_path), ladder, data.version_row(db, ladder, bot, number))

    async def play_version(request: Request) -> Response:
        bot, number = request.path_params["bot"], request.path_params["number"]
        if games is None:
            raise pages.NotFound("this server offers no games against its bots")
        with database() as db:
            found = opponent(db, bot, number)  # NotFound for no such version
        return await start_game(request, games, found, say)

    def say(title: str, message: str, status: int, headers: dict[str, str]) -> Response:
        context = {"title": title, "heading": title, "message": message,
                   "home": "the ladder's table"}  # fmt: skip
        html = render_page("missing.html", links, context)
        return HTMLResponse(html, status_code=status, headers=headers)

    def league_page(template: str, build: Callable[..., dict[str, Any]]) -> Callable[..., Any]:
        """A page of the league site over the ladder's league row."""

        def endpoint(request: Request) -> Response:
            Query.of(request.query_params.multi_items(), ())
            with database() as db:
                context = build(db, **request.path_params)
            context["account"] = authors.account(request)
            return HTMLResponse(render_page(template, links, context))

        return endpoint

    def own_game(db: sqlite_utils.Database, game_id: int) -> None:
        ladder = data.ladder_of(db, name)
        if game_league(db, game_id) != ladder.league_id:
            raise pages.NotFound(f"no stored game {game_id} on this ladder")

    def game(db: sqlite_utils.Database, game_id: int) -> dict[str, Any]:
        own_game(db, game_id)
        return {**pages.game_page(db, game_id, links), "live_page": False}

    def deal(request: Request) -> Response:
        game_id, number = request.path_params["game_id"], request.path_params["deal"]
        with database() as db:
            own_game(db, game_id)
            replay = pages.stored_replay(db, game_id)
        if not 1 <= number <= len(replay["deals"]):
            raise pages.NotFound(f"game {game_id} has no deal {number}")
        return Response(deal_json(replay, number), media_type="application/json")

    def match(db: sqlite_utils.Database, idx: int) -> dict[str, Any]:
        return pages.match_page(db, name, idx, read_live(db_path, name, idx), False)

    def faults(db: sqlite_utils.Database) -> dict[str, Any]:
        return pages.faults_page(db, name)

    def live_or_stored(request: Request) -> Response:
        """The game being played in a match, as a spectator sees it and only in its last
        rotation (arena/web/live_view.py), or once stored its game."""
        idx = request.path_params["idx"]
        with database() as db:
            stored = pages.stored_live_game(db, name, idx)
            if stored is None:
                live = read_live(db_path, name, idx)
                context = pages.live_game_page(db, name, idx, live, links, False)
        if stored is not None:
            return RedirectResponse(links.game(stored), status_code=303)
        return HTMLResponse(render_page("game.html", links, context))

    def live_deal(request: Request) -> Response:
        idx, number = request.path_params["idx"], request.path_params["deal"]
        live = read_live(db_path, name, idx)
        with database() as db:
            body = pages.live_deal_body(db, name, idx, live, number, False)
        return Response(body, media_type="application/json")

    def version(request: Request) -> Response:
        with database() as db:
            stamp = [data_version(db), ladder_data_version(db), live_stamp(db_path)]
        return PlainTextResponse(json.dumps(stamp))

    def api_endpoint(route: api.ApiRoute) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            query = Query.of(request.query_params.multi_items(), route.params)
            with database() as db:
                ladder = data.ladder_of(db, name)
                return json_response(route.handler(db, ladder, query, **request.path_params))

        return endpoint

    spec = document(api.ROUTES, api.PREFIX)

    def openapi(request: Request) -> Response:
        Query.of(request.query_params.multi_items(), ())
        return json_response(spec)

    routes = [
        Route("/", page("ladder.html", ladder_pages.table_page)),
        Route("/bot/{bot:name}", page("ladder_bot.html", ladder_pages.bot_page)),
        Route("/bot/{bot:name}/version/{number:id}", version_view),
        Route("/bot/{bot:name}/version/{number:id}/play", play_version, methods=["POST"]),
        Route(
            "/matches", page("ladder_matches.html", ladder_pages.matches_page, data.MATCH_PARAMS)
        ),
        Route("/queue", page("ladder_queue.html", ladder_pages.queue_page)),
        Route("/faults", league_page("faults.html", faults)),
        Route("/match/{idx:id}", league_page("match.html", match)),
        Route("/match/{idx:id}/live", live_or_stored),
        Route("/match/{idx:id}/live/deal/{deal:id}.json", live_deal),
        Route("/game/{game_id:id}", league_page("game.html", game)),
        Route("/game/{game_id:id}/deal/{deal:id}.json", deal),
        Route("/api/version", version),
        Route("/login", authors.login_page, methods=["GET"]),
        Route("/login", authors.login, methods=["POST"]),
        Route("/logout", authors.logout, methods=["POST"]),
        Route(AUTHOR_HOME, authors.home, methods=["GET"]),
        Route(f"{AUTHOR_HOME}/submissions", authors.submit, methods=["POST"]),
        Route(f"{AUTHOR_HOME}/promote", authors.promote, methods=["POST"]),
        Route(f"{AUTHOR_HOME}/withdraw", authors.withdraw, methods=["POST"]),
        Route(f"{AUTHOR_HOME}/logs/{{bot:name}}/{{number:id}}", authors.logs, methods=["GET"]),
        Route(f"{AUTHOR_HOME}/tests", authors.request_test, methods=["POST"]),
        Route(f"{AUTHOR_HOME}/tests/{{test:id}}", authors.test_page, methods=["GET"]),
        Route(f"{AUTHOR_HOME}/tests/{{test:id}}/live", authors.test_live, methods=["GET"]),
        Route(
            f"{AUTHOR_HOME}/tests/{{test:id}}/live/deal/{{deal:id}}.json",
            authors.test_live_deal,
            methods=["GET"],
        ),
        Route(
            f"{AUTHOR_HOME}/tests/{{test:id}}/game/{{game_id:id}}",
            authors.test_game,
            methods=["GET"],
        ),
        Route(
            f"{AUTHOR_HOME}/tests/{{test:id}}/game/{{game_id:id}}/deal/{{deal:id}}.json",
            authors.test_deal,
            methods=["GET"],
        ),
        Route(f"{api.PREFIX}/submissions", writes.submission, methods=["POST"]),
        Route(f"{api.PREFIX}/test-matches", writes.request_test, methods=["POST"]),
        Route(f"{api.PREFIX}/test-matches", writes.tests, methods=["GET"]),
        Route(
            f"{api.PREFIX}/versions/{{name:name}}/{{number:id}}/promote",
            writes.promote,
            methods=["POST"],
        ),
        Route(
            f"{api.PREFIX}/versions/{{name:name}}/{{number:id}}/withdraw",
            writes.withdraw,
            methods=["POST"],
        ),
        Route(f"{api.PREFIX}/openapi.json", openapi),
        *(Route(api.PREFIX + r.path, api_endpoint(r)) for r in api.ROUTES),
        *(table_routes(games) if games is not None else []),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    def refused(request: Request, exc: Exception) -> Response:
        """The one answer to what is not held (404) and to a parameter refused (400):
        JSON under /api/, the site's page elsewhere, each saying why."""
        if isinstance(exc, HTTPException) and exc.status_code not in (400, 404):
            return PlainTextResponse(exc.detail, status_code=exc.status_code)
        status = 400 if isinstance(exc, BadRequest) else 404
        if isinstance(exc, (BadRequest, pages.NotFound)):
            message = str(exc)
        else:
            message = "no page at this address"
        if request.url.path.startswith("/api/"):
            return json_response({"error": message}, status)
        title = "bad request" if status == 400 else "not found"
        context = {"title": title, "message": message, "heading": title[0].upper() + title[1:],
                   "home": "the ladder's table"}  # fmt: skip
        return HTMLResponse(render_page("missing.html", links, context), status_code=status)

    middleware = [
        Middleware(SecurityHeaders, csp=FORMS_CSP),
        Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts or allowed_hosts(""))),
        Middleware(SegmentedPath),
        Middleware(Sessions, secret=new_secret()),
    ]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        if games is not None:  # the server stops: every game ended, its bots with it
            games.close()

    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={pages.NotFound: refused, BadRequest: refused, 404: refused},
        lifespan=lifespan,
    )
