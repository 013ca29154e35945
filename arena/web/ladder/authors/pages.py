"""The author's side of the ladder site, in the browser: `/login`, `/logout`, and
under `/author` the author's own versions with the upload form, promote and withdraw
buttons, and each version's gate report, logs and files.

Every form is a POST carrying its session's form token (arena/web/ladder/authors/sessions.py);
every action is arena/web/ladder/authors/actions.py's, so the forms accept and refuse what
`arena ladder submit`, `promote` and `withdraw` do, and say why in the same words. A
page that is an author's own answers only the author signed in: anyone else is sent
to sign in, and another author's version is "not found"."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from arena.ladder.book import TESTABLE, SignedIn, open_ladder, reading
from arena.league.store.ladder_reads import author_by_id
from arena.league.workers.live import read_live
from arena.play.replay_frames import deal_frames, game_outline
from arena.web import live_view
from arena.web.ladder.authors import reads as author_reads
from arena.web.ladder.authors.actions import ActionRefused, Actions, form_checked
from arena.web.ladder.authors.forms import FormProblem, UploadTooLarge, read_small_form
from arena.web.ladder.authors.sessions import (
    CSRF_FIELD,
    SESSION_SECONDS,
    SignedOut,
    form_token,
    session_author,
    sign_in,
    sign_out,
)
from arena.web.ladder.links import LadderLinks
from arena.web.ladder.params import NAME_MAX, Query
from arena.web.pages import NotFound
from arena.web.render import render_page
from arena.web.viewer_data import frames_json

AUTHOR_HOME = "/author"
SUBMIT_FIELDS = ("bot", "command", CSRF_FIELD)


def _refusal(error: Exception) -> ActionRefused:
    if isinstance(error, UploadTooLarge):
        return ActionRefused(413, "this form is larger than any of its kind: nothing was done")
    return ActionRefused(400, str(error))


def _seat_deal(replay: Any, seat: int, number: int, missing: str) -> Response:
    """Deal `number` of `replay` as the viewer's JSON, `seat`'s view alone; NotFound
    saying `missing` for a deal the game has not."""
    if not 1 <= number <= len(replay["deals"]):
        raise NotFound(missing)
    return Response(frames_json(deal_frames(replay, number, seat)), media_type="application/json")


@dataclass
class AuthorPages:
    db_path: Path
    ladder_name: str
    links: LadderLinks
    actions: Actions
    ended: SignedOut

    # -- who is here ----------------------------------------------------------------

    def author(self, request: Request) -> dict[str, Any] | None:
        """The author signed in on `request` (None for a visitor)."""
        if "author_id" not in request.session:
            return None

        def row(author_id: int) -> dict[str, Any] | None:
            with reading(self.db_path) as db:
                row = author_by_id(db, author_id)
                ladder = open_ladder(db, self.ladder_name)
            return row if row is not None and row["ladder_id"] == ladder.id else None

        return session_author(request, self.ended, row)

    def account(self, request: Request) -> dict[str, Any]:
        """The page header's sign-in link, or who is signed in with the sign-out form."""
        author = self.author(request)
        if author is None:
            return {"name": None, "csrf": ""}
        return {"name": author["name"], "csrf": form_token(request)}

    def _page(
        self, request: Request, template: str, context: dict[str, Any], status: int = 200
    ) -> Response:
        context = {"account": self.account(request), **context}
        body = render_page(template, self.links, context)
        return HTMLResponse(body, status_code=status)

    # -- signing in and out -----------------------------------------------------------

    def _login_form(self, request: Request, error: str = "", status: int = 200) -> Response:
        context = {"title": "sign in", "csrf": form_token(request), "error": error,
                   "hours": SESSION_SECONDS // 3600}  # fmt: skip
        response = self._page(request, "ladder_login.html", context, status)
        return response

    async def login_page(self, request: Request) -> Response:
        Query.of(request.query_params.multi_items(), ())  # a token in the address is refused
        if await run_in_threadpool(self.author, request) is not None:
            return RedirectResponse(AUTHOR_HOME, status_code=303)
        return self._login_form(request)

    async def login(self, request: Request) -> Response:
        Query.of(request.query_params.multi_items(), ())
        try:
            form = await read_small_form(request, ("token", CSRF_FIELD))
            form_checked(request, form)
            author = await self.actions.check_token(request, form.get("token"))
        except (FormProblem, UploadTooLarge) as error:
            return self._login_form(request, str(_refusal(error)), _refusal(error).status)
        except ActionRefused as refused:
            response = self._login_form(request, refused.message, refused.status)
            if refused.retry_after:
                response.headers["Retry-After"] = str(int(refused.retry_after) + 1)
            return response
        sign_in(request, author)
        return RedirectResponse(AUTHOR_HOME, status_code=303)

    async def logout(self, request: Request) -> Response:
        try:
            form_checked(request, await read_small_form(request, (CSRF_FIELD,)))
        except (FormProblem, UploadTooLarge) as error:
            return self._login_form(request, str(_refusal(error)), _refusal(error).status)
        except ActionRefused as refused:
            return self._login_form(request, refused.message, refused.status)
        sign_out(request, self.ended)
        return RedirectResponse("/", status_code=303)

    # -- the author's page ------------------------------------------------------------

    def _home_context(self, request: Request, author: dict[str, Any]) -> dict[str, Any]:
        with reading(self.db_path) as db:
            ladder = open_ladder(db, self.ladder_name)
            versions = author_reads.own_versions(db, ladder, author)
            tests = author_reads.own_tests(db, ladder, author)
            choices = author_reads.opponent_choices(db, ladder)
        return {
            "tests": tests,
            "testable": [v["entrant"] for v in versions if v["state"] in TESTABLE],
            "choices": choices,
            "opponent_seats": list(range(1, ladder.config.engine.seats)),
            "per_hour": ladder.config.tests.per_hour,
            "title": "your bots",
            "author": author["name"],
            "versions": versions,
            "bots": sorted({v["bot"] for v in versions}),
            "csrf": form_token(request),
            "said": request.session.pop("said", ""),
            "error": "",
            "form": {"bot": "", "command": ""},
            "max_mb": ladder.config.uploads.max_mb,
            "name_max": NAME_MAX,
            "frozen": ladder.frozen,
        }

    async def home(self, request: Request, error: str = "", status: int = 200,
                   form: dict[str, str] | None = None) -> Response:  # fmt: skip
        if status == 200:
            Query.of(request.query_params.multi_items(), ())
        author = await run_in_threadpool(self.author, request)
        if author is None:
            return RedirectResponse("/login", status_code=303)
        context = await run_in_threadpool(self._home_context, request, author)
        context["error"] = error
        if form:
            context["form"] = {k: form.get(k, "") for k in ("bot", "command")}
        return self._page(request, "ladder_author.html", context, status)

    async def _signed_in(self, request: Request) -> SignedIn | None:
        author = await run_in_threadpool(self.author, request)
        return None if author is None else SignedIn(author["id"])

    def _sign_in_first(self, request: Request) -> Response:
        return self._login_form(request, "sign in first: your session has ended", 401)

    async def submit(self, request: Request) -> Response:
        who = await self._signed_in(request)
        if who is None:
            return self._sign_in_first(request)
        try:
            done, _ = await self.actions.submit(request, who, SUBMIT_FIELDS, page_form=True)
        except ActionRefused as refused:
            page = await self.home(request, refused.message, refused.status)
            page.headers["Connection"] = "close"  # the upload's rest need not be read
            return page
        request.session["said"] = done.message
        return RedirectResponse(AUTHOR_HOME, status_code=303)

    async def _lever(self, request: Request, act: Any) -> Response:
        who = await self._signed_in(request)
        if who is None:
            return self._sign_in_first(request)
        try:
            form = await read_small_form(request, ("version", CSRF_FIELD))
            form_checked(request, form)
            done = await act(who, form.get("version", ""))
        except (FormProblem, UploadTooLarge) as error:
            return await self.home(request, str(_refusal(error)), _refusal(error).status)
        except ActionRefused as refused:
            return await self.home(request, refused.message, refused.status)
        request.session["said"] = done.message
        return RedirectResponse(AUTHOR_HOME, status_code=303)

    async def promote(self, request: Request) -> Response:
        return await self._lever(request, self.actions.promote)

    async def withdraw(self, request: Request) -> Response:
        return await self._lever(request, self.actions.withdraw)

    async def request_test(self, request: Request) -> Response:
        who = await self._signed_in(request)
        if who is None:
            return self._sign_in_first(request)
        seats = await run_in_threadpool(self._seats)
        fields = ("version", CSRF_FIELD, *(f"opponent-{n}" for n in range(1, seats)))
        try:
            form = await read_small_form(request, fields)
            form_checked(request, form)
            opponents = [form.get(f"opponent-{n}", "") for n in range(1, seats)]
            done = await self.actions.request_test(who, form.get("version", ""), opponents)
        except (FormProblem, UploadTooLarge) as error:
            return await self.home(request, str(_refusal(error)), _refusal(error).status)
        except ActionRefused as refused:
            return await self.home(request, refused.message, refused.status)
        request.session["said"] = done.message
        return RedirectResponse(AUTHOR_HOME, status_code=303)

    def _seats(self) -> int:
        with reading(self.db_path) as db:
            return open_ladder(db, self.ladder_name).config.engine.seats

    async def test_page(self, request: Request) -> Response:
        """One of the author's test matches: its state, its games (each in the viewer
        from the author's seat) and, while it is played, how far it is."""
        Query.of(request.query_params.multi_items(), ())
        author = await run_in_threadpool(self.author, request)
        if author is None:
            return RedirectResponse("/login", status_code=303)
        test_id = request.path_params["test"]

        def read() -> dict[str, Any]:
            with reading(self.db_path) as db:
                ladder = open_ladder(db, self.ladder_name)
                row = author_reads.own_test(db, ladder, author, test_id)
            live = (
                read_live(self.db_path, self.ladder_name, row["idx"])
                if row["idx"] is not None
                else None
            )
            playing = row["state"] == "playing" and live is not None
            return {"title": f"test match {test_id}", "test": author_reads.test_item(row),
                    "progress": live_view.progress(live) if playing else None,
                    "watchable": playing and live_view.cards_shown(live, False)}  # fmt: skip

        return self._page(request, "ladder_author_test.html", await run_in_threadpool(read))

    def _live(self, row: dict[str, Any]) -> dict[str, Any] | None:
        """The live file of a test match being played (None when it is not)."""
        if row["state"] != "playing" or row["idx"] is None:
            return None
        live = read_live(self.db_path, self.ladder_name, row["idx"])
        return live if live is not None and row["entrant"] in live["players"] else None

    def _live_seat(self, author: dict[str, Any], test_id: int) -> tuple[dict[str, Any], int]:
        """The game being played in the author's test match and their version's seat in
        it; NotFound unless it may be watched now: as on the public site, the cards of
        a match in flight are shown in its last rotation only (a later rotation replays
        the same deals, arena/web/live_view.py)."""
        with reading(self.db_path) as db:
            row = author_reads.own_test(db, open_ladder(db, self.ladder_name), author, test_id)
        live = self._live(row)
        if live is None or not live_view.cards_shown(live, False):
            raise NotFound(
                f"test match {test_id} has no game that may be watched now: it is not being "
                "played, or its cards are hidden until its last rotation"
            )
        return live, live["players"].index(row["entrant"])

    async def test_live(self, request: Request) -> Response:
        """The game being played in the author's test match, from their seat."""
        Query.of(request.query_params.multi_items(), ())
        author = await run_in_threadpool(self.author, request)
        if author is None:
            return RedirectResponse("/login", status_code=303)
        test_id = request.path_params["test"]
        live, seat = await run_in_threadpool(self._live_seat, author, test_id)
        heading = f"Test match {test_id}, live (rotation {live['rotation'] + 1})"
        replay = live_view.live_replay(live)
        return self._seat_viewer(request, replay, seat, f"{AUTHOR_HOME}/tests/{test_id}/live",
                                 {"title": f"test match {test_id}, live", "heading": heading,
                                  "live_game": True, "game_id": 0})  # fmt: skip

    async def test_live_deal(self, request: Request) -> Response:
        author = await run_in_threadpool(self.author, request)
        if author is None:
            return JSONResponse({"error": "sign in first"}, status_code=401)
        test_id, number = request.path_params["test"], request.path_params["deal"]
        live, seat = await run_in_threadpool(self._live_seat, author, test_id)
        return _seat_deal(live_view.live_replay(live), seat, number,
                          f"the game being played has no deal {number} yet")  # fmt: skip

    def _test_game(self, author: dict[str, Any], test_id: int, game_id: int) -> Any:
        with reading(self.db_path) as db:
            ladder = open_ladder(db, self.ladder_name)
            row = author_reads.own_test(db, ladder, author, test_id)
            return author_reads.test_game(db, row, game_id)

    async def test_game(self, request: Request) -> Response:
        """A stored game of the author's test match in the viewer, from their seat."""
        Query.of(request.query_params.multi_items(), ())
        author = await run_in_threadpool(self.author, request)
        if author is None:
            return RedirectResponse("/login", status_code=303)
        test_id, game_id = request.path_params["test"], request.path_params["game_id"]
        replay, seat = await run_in_threadpool(self._test_game, author, test_id, game_id)
        return self._seat_viewer(request, replay, seat,
                                 f"{AUTHOR_HOME}/tests/{test_id}/game/{game_id}",
                                 {"title": f"test match {test_id}, game {game_id}",
                                  "heading": f"Test match {test_id}, game {game_id}",
                                  "game_id": game_id, "live_page": False})  # fmt: skip

    def _seat_viewer(self, request: Request, replay: Any, seat: int, base: str,
                     context: dict[str, Any]) -> Response:  # fmt: skip
        """The replay viewer of `replay` from `seat` alone, its deals' frames under
        `base`/deal/N.json (a stored game of a test match, or the game in flight)."""
        context = {**context, "match_idx": None, "rotation": 0,
                   "outline": game_outline(replay, seat),
                   "deal_urls": [f"{base}/deal/{n}.json"
                                 for n in range(1, len(replay["deals"]) + 1)]}  # fmt: skip
        return self._page(request, "game.html", context)

    async def test_deal(self, request: Request) -> Response:
        """A deal of a test match's game as the viewer's JSON, the author's seat alone."""
        author = await run_in_threadpool(self.author, request)
        if author is None:
            return JSONResponse({"error": "sign in first"}, status_code=401)
        params = request.path_params
        replay, seat = await run_in_threadpool(
            self._test_game, author, params["test"], params["game_id"]
        )
        return _seat_deal(replay, seat, params["deal"],
                          f"game {params['game_id']} has no deal {params['deal']}")  # fmt: skip

    async def logs(self, request: Request) -> Response:
        Query.of(request.query_params.multi_items(), ())
        author = await run_in_threadpool(self.author, request)
        if author is None:
            return RedirectResponse("/login", status_code=303)
        bot, number = request.path_params["bot"], request.path_params["number"]

        def read() -> dict[str, Any]:
            with reading(self.db_path) as db:
                ladder = open_ladder(db, self.ladder_name)
                row = author_reads.own_version_row(db, ladder, author, bot, number)
            files, cut = author_reads.version_files(row)
            gate = author_reads.gate_text(row)
            return {"title": f"gate of {row['entrant']}",
                    "version": {"entrant": row["entrant"], "bot": row["bot"],
                                "version": row["number"]},
                    "gate": gate, "logs": author_reads.gate_logs(row),
                    "files": files, "files_cut": cut}  # fmt: skip

        return self._page(request, "ladder_author_logs.html", await run_in_threadpool(read))
