"""A person at the table: the `human` (or `human:NAME`) bot spec (docs/human.md).

A person's seat is a `Player` like any bot's, so the referee asks it through the one
interface it asks every seat through, checks its answer against the legal actions,
and turns a person who leaves (their page closed) or runs out of time into a fault
with the fallback played: a game with people in it is refereed, recorded and stored
as any other, and no person can stop it.

What the seat's page is sent is built by the code that encodes a bot's request: the
engine's `observe(state, seat)`, encoded by `WireCodec.decision_bytes` as a
DecisionRequest and decoded as the SDK decodes one (`Turn`). So the page can hold no
more than a bot in that seat would: there is no second way out of the hidden state.

This module holds what the referee's thread and the table's web server share, and
nothing of the web: a `HumanSeat` per seat (its secret, the latest frame of the
seat's page, the answer posted, whether a page is still there) in a `HumanTable`.
The server (arena/web/table/) reads frames and posts answers through it; it never
sees a game's state. Threads meet under one lock per seat; the referee waits on it,
with the seat's move timeout when there is one.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.errors import ConfigError, IllegalAction
from arena.games import get_game
from arena.games.base import Action, Game, GameState
from arena.play.faults import BotFault, FaultKind
from arena.play.referee import Decision, GameStart
from arena.sdk.turn import Turn
from arena.wire.codec import WireCodec, game_info, game_info_bytes
from arena.wire.messages import action_message, deal_end_dict
from arena.wire.v1 import bot_pb2 as pb

HUMAN = "human"
HUMAN_PREFIX = "human:"
NAME_LIMIT = 40  # characters of a person's name (`human:NAME`)
LEAVE_SECONDS = 5.0
"""How long a seat's page may be gone (no request open, none made) before the person
counts as having left: a reload comes back well within it, a closed tab does not."""
WAIT_STEP = 0.05  # seconds between looks at a seat while the referee waits on it


def is_human_spec(spec: str) -> bool:
    """Whether `spec` seats a person: `human` or `human:NAME`."""
    spec = spec.strip()
    return spec == HUMAN or spec.startswith(HUMAN_PREFIX)


def human_name(spec: str) -> str:
    """The name a person's seat plays under: NAME of `human:NAME`, else `human`;
    ConfigError for a name that is empty, too long or holds control characters."""
    spec = spec.strip()
    if spec == HUMAN:
        return HUMAN
    name = spec[len(HUMAN_PREFIX) :].strip()
    if not name or len(name) > NAME_LIMIT or not name.isprintable():
        raise ConfigError(
            f"bot spec {spec[:60]!r}: a person's name is 1 to {NAME_LIMIT} printable "
            "characters, e.g. human:ana"
        )
    return name


def no_people_here(spec: str, where: str) -> ConfigError:
    """The error for a person's seat where only bots play (`where`: "a league file")."""
    return ConfigError(
        f"bot spec {spec.strip()[:60]!r} seats a person, and {where} seats bots only: a "
        "person plays at a table of `arena play` (docs/human.md), never in a league, and "
        "is never rated"
    )


class HumanSeat:
    """One person's seat, as both the referee and the table's server see it.

    `secret` is the seat's part of its link: whoever holds it plays the seat, so it is
    made by `secrets` and compared in constant time (`holds`). `frame` is what the
    page shows now (JSON-able), `version` counts its changes (a page asks for a version
    after the one it has and waits for it). The referee asks by `ask` and waits by
    `answer`/`answer_async`; the server posts by `post`."""

    def __init__(
        self, seat: int, name: str, *, timeout: float | None, leave_seconds: float
    ) -> None:
        self.seat = seat
        self.name = name
        self.secret = secrets.token_urlsafe(24)
        self.timeout = timeout
        self.leave_seconds = leave_seconds
        self._lock = threading.Condition()
        self.version = 0
        self._frame: dict[str, Any] = {"seat": seat, "name": name, "state": "waiting"}
        self._pending = 0  # the decision id waiting for an answer, 0 when none
        self._deadline: float | None = None
        self._answer: tuple[int, dict[str, Any]] | None = None
        self._open = 0  # requests from a page in progress
        self._last_contact: float | None = None  # None until a page first came
        self._seen = 0  # the latest version a page was given
        self._wakers: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self.closed = False

    # ---- the server's side -------------------------------------------------------

    def holds(self, token: str) -> bool:
        """Whether `token` is this seat's secret, compared in constant time."""
        return secrets.compare_digest(self.secret.encode(), token.encode())

    def snapshot(self) -> dict[str, Any]:
        """The frame to send now, with its version and the time left to answer."""
        with self._lock:
            left = None
            if self._pending and self._deadline is not None:
                left = max(0, int((self._deadline - time.monotonic()) * 1000))
            self._seen = max(self._seen, self.version)
            return {
                **self._frame,
                "version": self.version,
                "time_left_ms": left,
                "closed": self.closed,
            }

    def arrive(self) -> None:
        """A request from the seat's page began: the person is there."""
        with self._lock:
            self._open += 1
            self._last_contact = time.monotonic()

    def depart(self) -> None:
        """A request from the seat's page ended (answered, or its tab closed)."""
        with self._lock:
            self._open = max(0, self._open - 1)
            self._last_contact = time.monotonic()

    def post(self, decision: int, action: Mapping[str, Any]) -> bool:
        """The page's answer to decision `decision`; False when that decision is not
        the one waiting (answered already, timed out, or another): the referee is
        never handed an answer to a question it did not ask."""
        with self._lock:
            if self.closed or not self._pending or decision != self._pending:
                return False
            self._answer = (decision, dict(action))
            self._pending = 0
            self._wake()
            return True

    async def newer(self, after: int, seconds: float) -> None:
        """Return once the frame is newer than version `after`, the seat is closed,
        or `seconds` have passed (a page's request waits here, on the server's loop)."""
        with self._lock:
            if self.version > after or self.closed:
                return
            woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._wakers.append((asyncio.get_running_loop(), woken))
        await self._sleep(woken, seconds)

    async def _sleep(self, woken: asyncio.Future[None], seconds: float) -> None:
        """Wait for `woken` (set by `_wake`) at most `seconds`, then forget it."""
        try:
            await asyncio.wait_for(woken, seconds)
        except TimeoutError:
            pass
        finally:
            with self._lock:
                self._wakers = [w for w in self._wakers if w[1] is not woken]

    # ---- the referee's side -------------------------------------------------------

    def publish(self, frame: dict[str, Any]) -> None:
        """Replace what the page shows (a new version)."""
        with self._lock:
            self._frame = {"seat": self.seat, "name": self.name, **frame}
            self.version += 1
            self._wake()

    def ask(self, decision: int, frame: dict[str, Any]) -> None:
        """Show decision `decision` (its legal actions are in `frame`) and wait for it."""
        with self._lock:
            self._answer = None
            self._pending = decision
            now = time.monotonic()
            self._deadline = None if self.timeout is None else now + self.timeout
        self.publish(frame)

    def visited(self) -> bool:
        """Whether a page of the seat has come at all (a game nobody came to can be
        ended: arena/web/table/site_games.py)."""
        with self._lock:
            return self._last_contact is not None

    def left(self) -> bool:
        """Whether the person has gone: a page came once, and none has been in touch
        for `leave_seconds` (a closed tab); a page not yet opened has not left."""
        with self._lock:
            return self._gone(time.monotonic())

    def _gone(self, now: float) -> bool:
        return (
            self._last_contact is not None
            and self._open == 0
            and now - self._last_contact > self.leave_seconds
        )

    def _outcome(self, decision: int) -> dict[str, Any] | BotFault | None:
        """The answer to `decision`, the fault that ends the wait, or None: keep
        waiting. Called under the lock."""
        if self._answer is not None and self._answer[0] == decision:
            return self._answer[1]
        now = time.monotonic()
        if self.closed:
            fault = BotFault(
                FaultKind.CRASH, "the table closed before the person answered", got="no answer"
            )
        elif self._gone(now):
            fault = BotFault(
                FaultKind.CRASH,
                f"the person left the table: their page was closed, or out of touch for "
                f"more than {self.leave_seconds:g} s",
                expected="an answer from the seat's page",
                got="no page",
            )
        elif self._deadline is not None and now >= self._deadline:
            fault = BotFault(
                FaultKind.TIMEOUT,
                f"the person did not answer within {self.timeout:g} s",
                expected=f"within {self.timeout:.3f} s",
                got="no answer in time",
            )
        else:
            return None
        self._pending = 0
        return fault

    def answer(self, decision: int) -> dict[str, Any]:
        """Block until decision `decision` is answered; BotFault when it cannot be."""
        with self._lock:
            while True:
                outcome = self._outcome(decision)
                if outcome is not None:
                    return _given(outcome)
                self._lock.wait(WAIT_STEP * 4)

    async def answer_async(self, decision: int) -> dict[str, Any]:
        """`answer` on the referee's event loop (the referee awaits every player that
        can be awaited): woken by the post at once, and every few WAIT_STEPs to look
        at the clock and the page, never blocking the loop."""
        loop = asyncio.get_running_loop()
        while True:
            with self._lock:
                outcome = self._outcome(decision)
                if outcome is None:
                    woken: asyncio.Future[None] = loop.create_future()
                    self._wakers.append((loop, woken))
            if outcome is not None:
                return _given(outcome)
            await self._sleep(woken, WAIT_STEP * 4)

    def _wake(self) -> None:
        """Wake the waits: the threads' (under the lock, which the caller holds) and
        the event loop's."""
        self._lock.notify_all()
        for loop, woken in self._wakers:
            with contextlib.suppress(RuntimeError):  # a loop closed meanwhile: none waits
                loop.call_soon_threadsafe(_settle, woken)

    def close(self) -> None:
        """No more decisions: a wait ends (as a fault), a post is refused."""
        with self._lock:
            self.closed = True
            self._pending = 0
            self._wake()

    def delivered(self) -> bool:
        """Whether a page has been given the latest frame, or none has ever come (or
        the person left): nothing is waiting to be seen."""
        with self._lock:
            return (
                self._last_contact is None
                or self._gone(time.monotonic())
                or self._seen >= self.version
            )


def _settle(woken: asyncio.Future[None]) -> None:
    if not woken.done():
        woken.set_result(None)


def _given(outcome: dict[str, Any] | BotFault) -> dict[str, Any]:
    if isinstance(outcome, BotFault):
        raise outcome
    return outcome


class HumanPlayer:
    """A seat played by a person through their page (`HumanSeat`).

    Every frame of the page is made from the seat's view as a bot's request carries
    it: at each decision the request itself (its legal actions included), after every
    other move the seat's view with no legal actions (`see`, the referee's `watch`).
    The end of each deal and of the game come from the notices every bot may get
    (T-8.2), without the hands as dealt."""

    wants_notices = True

    def __init__(self, seat: HumanSeat) -> None:
        self.seat = seat
        self.name = seat.name
        self._game: Game | None = None
        self._codec: WireCodec | None = None
        self._info = b""
        self._info_message = pb.GameInfo()
        self._decision_id = 0
        self._game_parts: dict[str, Any] = {}
        self._deal_end: dict[str, Any] | None = None
        self._notice = ""
        self._result: dict[str, Any] | None = None
        self._last_view: Any = None

    def start_game(self, start: GameStart) -> None:
        game = get_game(start.game)
        if self._codec is None or self._codec.game is not game:
            self._codec = WireCodec(game)
        self._game = game
        self._info_message = game_info(
            start.game,
            start.seed,
            start.seat,
            seed=start.seed,
            players=start.players,
            options=start.options,
        )
        self._info = game_info_bytes(self._info_message)
        self._decision_id = 0
        self._deal_end = None
        self._notice = ""
        self._result = None
        self._last_view = None
        timeout = self.seat.timeout
        self._game_parts = {
            "game": start.game,
            "players": list(start.players),
            "options": dict(self._info_message.options),
            "time_limit_ms": None if timeout is None else int(timeout * 1000),
        }

    def _request(self, view: Any, legal: Sequence[Action], decision: int) -> Turn:
        """The seat's view (and legal actions) as the DecisionRequest a bot would get,
        decoded as the SDK decodes it."""
        assert self._codec is not None
        timeout = self.seat.timeout
        data = self._codec.decision_bytes(
            view,
            legal,
            decision,
            self._info,
            time_ms=0 if timeout is None else int(timeout * 1000),
        )
        return Turn(pb.DecisionRequest.FromString(data))

    def _frame(self, view: Any, legal: Sequence[Action] = (), decision: int = 0) -> dict[str, Any]:
        turn = self._request(view, legal, decision)
        return {
            **self._game_parts,
            "state": "over" if self._result is not None else "playing",
            "decision": decision,
            "kind": turn.kind,
            "to_move": view.to_move,  # public: whose turn it is (the view's own field)
            "view": turn.view,
            "legal": turn.legal if decision else [],
            "deal_end": self._deal_end,
            "notice": self._notice,
            "result": self._result,
        }

    def see(self, state: GameState) -> None:
        """The referee's watch: the seat's view after a move, published."""
        if self._game is None:
            return
        view = self._last_view = self._game.observe(state, self.seat.seat)
        self.seat.publish(self._frame(view))

    def act(self, decision: Decision) -> Action:
        number = self._ask(decision)
        try:
            return self._action(self.seat.answer(number))
        except BotFault as fault:
            self._said(fault)
            raise

    async def act_async(self, decision: Decision) -> Action:
        number = self._ask(decision)
        try:
            return self._action(await self.seat.answer_async(number))
        except BotFault as fault:
            self._said(fault)
            raise

    def _ask(self, decision: Decision) -> int:
        self._decision_id += 1
        frame = self._frame(decision.view, decision.legal, self._decision_id)
        self._notice = ""  # said until this decision is answered
        self.seat.ask(self._decision_id, frame)
        return self._decision_id

    def _action(self, answer: dict[str, Any]) -> Action:
        """The engine action the page's answer names, read as a bot's answer is; the
        referee then checks it against the legal actions."""
        assert self._codec is not None
        try:
            return self._codec.parse_answer(action_message(answer))
        except (IllegalAction, TypeError, ValueError) as err:
            raise BotFault(
                FaultKind.ILLEGAL, f"answered {answer!r:.120}: {err}", got=repr(answer)
            ) from None

    def _said(self, fault: BotFault) -> None:
        """Say on the page, with the next frame, what the referee did about it."""
        self._notice = f"{fault.detail}; the referee played the fallback move for you"

    def end_deal(self, seat: int, deal: Mapping[str, Any]) -> None:
        """The deal that ended, for its summary on the page: its events and scores,
        as a DealEnd notice carries them, without the hands as dealt."""
        assert self._codec is not None
        data = self._codec.deal_end_bytes(self._info_message.SerializeToString(), deal)
        summary = deal_end_dict(pb.DealEnd.FromString(data))
        summary.pop("hands", None)
        self._deal_end = summary

    def end_game(self, seat: int, replay: Mapping[str, Any]) -> None:
        """The game's totals and ranks (public), shown until the next game starts."""
        self._result = {"totals": list(replay["totals"]), "ranks": list(replay["ranks"])}
        if self._last_view is not None:
            self.seat.publish(self._frame(self._last_view))


class HumanTable:
    """The people's seats of one `arena play` session, by seat.

    Made from the session's bot specs before anything starts (so the links can be
    printed first); `player(seat)` is the seat's player for the referee, and `watch`
    the referee's `RefereeSettings.watch`, which shows every move on every person's
    page."""

    def __init__(
        self,
        specs: Sequence[str],
        *,
        timeout: float | None = None,
        leave_seconds: float = LEAVE_SECONDS,
    ) -> None:
        if timeout is not None and not timeout > 0:
            raise ConfigError(f"--human-move-timeout {timeout} must be above 0 seconds")
        self.seats: dict[int, HumanSeat] = {}
        self._players: dict[int, HumanPlayer] = {}
        for index, spec in enumerate(specs):
            if is_human_spec(spec):
                seat = HumanSeat(
                    index, human_name(spec), timeout=timeout, leave_seconds=leave_seconds
                )
                self.seats[index] = seat
                self._players[index] = HumanPlayer(seat)

    def __bool__(self) -> bool:
        return bool(self.seats)

    def player(self, seat: int) -> HumanPlayer:
        return self._players[seat]

    def seat_of(self, token: str) -> HumanSeat | None:
        """The seat whose secret is `token`, comparing it with every seat's in constant
        time (no early exit: the time taken tells nothing of which came close)."""
        found = None
        for seat in self.seats.values():
            if seat.holds(token):
                found = seat
        return found

    def watch_with(self, other: Callable[[GameState], None] | None) -> Callable[[GameState], None]:
        """The referee's watch: every person's page told of the move, then `other`."""
        players = list(self._players.values())

        def watch(state: GameState) -> None:
            for player in players:
                player.see(state)
            if other is not None:
                other(state)

        return watch

    def close(self) -> None:
        """The session is over: no seat waits or takes an answer any more."""
        for seat in self.seats.values():
            seat.close()

    def wait_delivered(self, seconds: float) -> None:
        """Wait up to `seconds` for every page still there to have fetched its latest
        frame (the game's end), so the server is not stopped before it is seen."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and not all(s.delivered() for s in self.seats.values()):
            time.sleep(WAIT_STEP)
