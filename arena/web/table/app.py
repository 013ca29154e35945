"""The table's pages: one per person's seat, reached by the seat's secret link.

Why a secret in the link: the page of a seat shows its hand and plays for it, so
nobody may reach it by guessing an address. Each seat's link holds a token of 24
random bytes (`HumanSeat.secret`), compared with every seat's in constant time; a
wrong one answers 404 like any address that names nothing, and no token is ever
logged (the server runs without an access log).

Why long polling: the page asks for the frame after the one it has
(`/seat/TOKEN/state.json?after=N`) and the server answers as soon as there is one,
or after POLL_SECONDS with the same. A request is open almost all the time, so the
seat knows its page is there (`HumanSeat.arrive`/`depart`) and a closed tab shows
within `LEAVE_SECONDS`; a browser does not slow a request down in a background tab
as it slows timers. Answers are posted as JSON (`/seat/TOKEN/act`) and handed to the
referee, which checks them like any bot's.

It is hardened as the league site is (arena/web/hardening.py): the `Host` check, the
security headers (no inline script: the page's data is in attributes, its script a
static file), bounded values, and a limit on a request's body.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.bots.human import HumanSeat, HumanTable
from arena.web.hardening import SecurityHeaders, allowed_hosts
from arena.web.render import ENV

STATIC = Path(__file__).resolve().parent.parent / "static"
POLL_SECONDS = 20.0  # the longest a page's request for the next frame is held open
TICK = 0.25  # seconds between looks at whether a waiting request's page went away
BODY_LIMIT = 4096  # bytes of an answer: an action is a few dozen
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
ACTION_KEYS = {"type", "card", "contract", "cards", "bid"}
NO_STORE = {"cache-control": "no-store"}


def seat_path(seat: HumanSeat) -> str:
    """The path of a seat's page: its secret is the only way in."""
    return f"/seat/{seat.secret}"


class Seats(Protocol):
    """Where the pages find a seat by its secret: an `arena play` session's table, or
    the games a site's visitors play (arena/web/table/site_games.py)."""

    def seat_of(self, token: str) -> HumanSeat | None: ...


def make_table_app(table: HumanTable, hosts: Sequence[str] | None = None) -> Starlette:
    """The pages of `table`'s people's seats. `hosts`: the `Host` names answered
    (default: loopback's)."""
    routes = [
        *table_routes(table),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts or allowed_hosts(""))),
    ]
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={404: lambda request, exc: _missing()},
    )


def table_routes(table: Seats) -> list[Route]:
    """The routes of the seats' pages (`/seat/TOKEN`, its frames and its answers), for
    the table's own server or inside a site's (which serves /static/ as well)."""

    def seat_of(request: Request) -> HumanSeat | None:
        token = request.path_params["token"]
        return table.seat_of(token) if TOKEN.fullmatch(token) else None

    def page(request: Request) -> Response:
        seat = seat_of(request)
        if seat is None:
            return _missing()
        html = ENV.get_template("table.html").render(
            seat=seat.seat, name=seat.name, base=seat_path(seat)
        )
        return HTMLResponse(html, headers=NO_STORE)

    async def state(request: Request) -> Response:
        seat = seat_of(request)
        if seat is None:
            return _missing()
        after = _bounded_int(request.query_params.get("after", "0"))
        if after is None:
            return PlainTextResponse("after: a whole number", status_code=400)
        seat.arrive()
        try:
            loop = asyncio.get_running_loop()
            end = loop.time() + POLL_SECONDS
            while seat.version <= after and not seat.closed and loop.time() < end:
                if await request.is_disconnected():
                    return Response(status_code=204)
                await seat.newer(after, TICK)
            return JSONResponse(seat.snapshot(), headers=NO_STORE)
        finally:
            seat.depart()

    async def act(request: Request) -> Response:
        seat = seat_of(request)
        if seat is None:
            return _missing()
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return PlainTextResponse("send the answer as application/json", status_code=415)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > BODY_LIMIT:
                return PlainTextResponse("an answer is a few dozen bytes", status_code=413)
        answer = _answer(body)
        if answer is None:
            return PlainTextResponse(
                'send {"decision": N, "action": {...}}, one of the legal actions as the page '
                "shows it",
                status_code=400,
            )
        decision, action = answer
        if not seat.post(decision, action):
            return JSONResponse({"taken": False, "why": "not the decision waiting"}, 409)
        return JSONResponse({"taken": True}, headers=NO_STORE)

    return [
        Route("/seat/{token}", page),
        Route("/seat/{token}/state.json", state),
        Route("/seat/{token}/act", act, methods=["POST"]),
    ]


def _missing() -> Response:
    """A seat that is not there, or any address that names nothing: the same answer,
    so a wrong token tells nothing."""
    return PlainTextResponse("no seat at this address", status_code=404)


def _bounded_int(text: str) -> int | None:
    return int(text) if text.isdigit() and len(text) <= 12 else None


def _answer(body: bytes) -> tuple[int, dict[str, Any]] | None:
    """(decision, action) of a posted answer, or None when it is not of that shape:
    an action is a dict of the wire's Action fields, each a short text or list of
    texts. Whether it is legal is the referee's to say."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    decision, action = data.get("decision"), data.get("action")
    if not isinstance(decision, int) or isinstance(decision, bool) or not 0 < decision < 10**9:
        return None
    if not isinstance(action, dict) or not action or set(action) - ACTION_KEYS:
        return None
    for key, value in action.items():
        texts = value if key == "cards" else [value]
        if not isinstance(texts, list) or len(texts) > 52:
            return None
        if not all(isinstance(t, str) and len(t) <= 16 for t in texts):
            return None
    return decision, action
