"""`arena serve`: the league site as a Starlette application, read-only.

Every request opens the database read-only (`open_existing`), so the server never
holds a lock that `arena run` would wait for, and sees each match as soon as it is
committed. Live pages poll `/api/version` and swap in the page when it changes."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlite_utils
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.errors import ConfigError
from arena.league.store import open_existing
from arena.league.store.site_reads import data_version
from arena.league.workers.live import live_stamp, read_live
from arena.web import live_view, pages
from arena.web.links import Links
from arena.web.render import render_page
from arena.web.viewer_data import deal_script

STATIC = Path(__file__).parent / "static"


def make_app(db_path: Path, live_hands: bool = False) -> Starlette:
    """The site over the league database at `db_path` (checked now: a missing or
    unreadable database is refused before the server starts). `live_hands` shows the
    hands of games still being played (organisers only: docs/web.md says why not)."""
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
                try:
                    context = build(db, **request.path_params)
                except pages.NotFound as err:
                    return _not_found(links, str(err))
            return HTMLResponse(render_page(template, links, context))

        return endpoint

    def game(db: sqlite_utils.Database, game_id: int) -> dict[str, Any]:
        return {**pages.game_page(db, game_id, links), "live_page": False}

    def deal(request: Request) -> Response:
        game_id, number = request.path_params["game_id"], request.path_params["deal"]
        with database() as db:
            try:
                replay = pages.stored_replay(db, game_id)
            except pages.NotFound as err:
                return PlainTextResponse(str(err), status_code=404)
        if not 1 <= number <= len(replay["deals"]):
            return PlainTextResponse(f"game {game_id} has no deal {number}", status_code=404)
        return Response(deal_script(replay, number), media_type="text/javascript")

    def version(request: Request) -> Response:
        with database() as db:
            stamp = [data_version(db), live_stamp(db_path)]
        return PlainTextResponse(json.dumps(stamp))

    def match(db: sqlite_utils.Database, league: str, idx: int) -> dict[str, Any]:
        live = read_live(db_path, league, idx)
        return pages.match_page(db, league, idx, live, live_hands)

    def live_game(db: sqlite_utils.Database, league: str, idx: int) -> dict[str, Any]:
        live = read_live(db_path, league, idx)
        return pages.live_game_page(db, league, idx, live, links, live_hands)

    def live_deal(request: Request) -> Response:
        league, idx = request.path_params["league"], request.path_params["idx"]
        number = request.path_params["deal"]
        live = read_live(db_path, league, idx)
        with database() as db:
            try:  # only whether it may be watched: the deal's frames are all it needs
                pages.watchable(db, league, idx, live, live_hands)
            except pages.NotFound as err:
                return PlainTextResponse(str(err), status_code=404)
        assert live is not None  # watchable refused a match without one
        if not 1 <= number <= len(live["deals"]):
            return PlainTextResponse(f"no deal {number} yet", status_code=404)
        return Response(
            live_view.live_deal_script(live, number, live_hands), media_type="text/javascript"
        )

    routes = [
        Route("/", page("leagues.html", pages.leagues_page)),
        Route("/league/{name}", page("league.html", pages.league_page)),
        Route("/league/{league}/entrant/{entrant}", page("entrant.html", pages.entrant_page)),
        Route("/league/{league}/match/{idx:int}", page("match.html", match)),
        Route("/league/{league}/match/{idx:int}/live", page("game.html", live_game)),
        Route("/league/{league}/match/{idx:int}/live/deal/{deal:int}.js", live_deal),
        Route("/league/{league}/faults", page("faults.html", pages.faults_page)),
        Route("/game/{game_id:int}", page("game.html", game)),
        Route("/game/{game_id:int}/deal/{deal:int}.js", deal),
        Route("/api/version", version),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.live_hands = live_hands
    return app


def _not_found(links: Links, message: str) -> Response:
    html = render_page("missing.html", links, {"title": "not found", "message": message})
    return HTMLResponse(html, status_code=404)


def check_address(host: str, port: int) -> None:
    """ConfigError saying what to do when the server could not listen at host:port (a
    port taken by another program, an address this machine does not have)."""
    try:
        with socket.create_server((host, port)):
            pass
    except OSError as err:
        raise ConfigError(
            f"cannot listen on {host}:{port} ({err.strerror or err}): give another --port, "
            "or a --host this machine has (127.0.0.1 for this machine alone)"
        ) from None
