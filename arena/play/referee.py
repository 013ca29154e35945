"""The referee: drives one game between players and writes down everything that happened.

It is the only code that holds the full state of a game. Players (in-process bots now,
gRPC bots from `arena.bots`) see a `Decision` and answer with an action; the referee
validates every answer against the engine's legal actions, turns any failure into a
recorded fault with a fallback move (the first legal action, in the game's documented
order), and builds the replay (`arena-replay/1`) from the engine's own record.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena import interrupts
from arena.errors import ArenaError
from arena.games.base import Action, Game, GameState
from arena.play.faults import MAX_FAULTS_MARK, BotFault, Fault, FaultKind, truncate
from arena.play.replays import build_replay


class Decision:
    """One decision put to one seat: its kind and legal actions, and its view on demand.

    The view is what `game.observe` builds for the seat (docs/rules/trix.md T-8). It
    is built the first time a player reads it, so players that need only the legal actions (the
    built-in random bot) do not pay for it. The referee closes the decision once the
    player has answered (its view can no longer be built) and re-opens the same object
    for the seat's next decision: a player must not keep it.
    """

    __slots__ = ("seat", "kind", "legal", "_game", "_state", "_view")

    def __init__(self, game: Game, seat: int) -> None:
        self.seat = seat
        self.kind = ""
        self.legal: tuple[Action, ...] = ()
        self._game = game
        self._state: GameState | None = None
        self._view: Any = None

    def open(self, state: GameState) -> Decision:
        """Re-use this object for the seat's next decision (one allocation per game)."""
        self.kind = state.kind
        self.legal = state.legal
        self._state = state
        self._view = None
        return self

    @property
    def view(self) -> Any:
        if self._view is None:
            if self._state is None:
                raise ArenaError("a decision's view is only available while it is open")
            self._view = self._game.observe(self._state, self.seat)
        return self._view

    def close(self) -> None:
        self._state = None


def bot_seed(game_seed: str) -> str:
    """The seed every player is given for its own randomness (GameInfo.seed).

    Not the game seed: the deals are a public function of that (docs/rules/trix.md T-2.2,
    docs/rules/trianon.md N-2.1), so a bot told it could work out every hand, against T-8 / N-8.
    A hash of it serves the same purpose (the same game, the same bot seed, so seeded
    bots replay identically, in every rotation of a match) and cannot be turned back
    into the game seed; a bot could only guess game seeds and compare, which is why a
    competition's seed should be unguessable (docs/replays.md, "Deals and seeds")."""
    digest = hashlib.sha256(b"arena bot seed\0" + game_seed.encode()).hexdigest()
    return digest[:32]


@dataclass(frozen=True)
class GameStart:
    """What every seat is told before a game (all of it public)."""

    game: str
    seat: int
    seed: str  # bot_seed(game seed): for a bot's own randomness; it hides the deals
    options: Mapping[str, Any]
    players: tuple[str, ...]


class Player(Protocol):
    """A seat at the table. In-process bots and gRPC bots both implement this."""

    name: str
    wants_notices: bool  # whether end_deal / end_game notices are worth building

    def start_game(self, start: GameStart) -> None: ...

    def act(self, decision: Decision) -> Action:
        """Return one of `decision.legal`; raise BotFault when the bot failed."""

    def end_deal(self, seat: int, deal: Mapping[str, Any]) -> None: ...

    def end_game(self, seat: int, replay: Mapping[str, Any]) -> None: ...


@dataclass
class RefereeSettings:
    """How the referee treats players.

    ask_forced: ask a bot even when it has exactly one legal action (a pass in Trix, a
    single card of the suit led; the last contract is never asked at all, T-2.5). None,
    the default, asks them at every table with a bot over gRPC and plays them for the
    players inside the referee: a forced move played at once would let a bot tell from
    the gap before its next request that a seat after it had a single legal card, which
    a threshold on that gap told with 99% accuracy (docs/sandbox.md, "Timing"). False
    plays them at once everywhere (the benchmarks of the engine); `arena check-bot`
    sets True so that every kind of decision reaches the bot under test.
    max_faults: after this many faults in one game, a bot's remaining decisions are all
    fallback moves (recorded with "auto": "max-faults").
    watch: told the state after every action (a league's live file of the match being
    played, arena/league/workers/live.py); it must be quick, and must not keep the state.
    """

    ask_forced: bool | None = None
    max_faults: int = 5
    watch: Callable[[GameState], None] | None = None


@dataclass
class GameResult:
    replay: dict[str, Any]
    faults: list[Fault] = field(default_factory=list)
    decisions: int = 0  # engine decisions, forced ones included (not the automatic contract)

    @property
    def totals(self) -> list[int]:
        return self.replay["totals"]

    @property
    def ranks(self) -> list[int]:
        return self.replay["ranks"]


def play_game(
    game: Game,
    players: Sequence[Player],
    seed: str,
    options: Any,
    *,
    settings: RefereeSettings | None = None,
    names: Sequence[str] | None = None,
) -> GameResult:
    """Play one full game and return its replay; no player behaviour can stop it.

    Players with an `act_async` coroutine (bots over gRPC) are awaited on this thread's
    event loop (`arena.wire.loop`), the whole game in one run of it; the others are called
    directly. Both go through the one referee loop, `_moves`.
    """
    settings = settings or RefereeSettings()
    if len(players) != game.seats:
        raise ArenaError(f"{game.name} needs {game.seats} players, got {len(players)}")
    interrupts.check()  # a Ctrl-C Python dropped during the last game ends play here
    names = tuple(names or (p.name for p in players))
    options_dict = game.options_dict(options)
    seeded = bot_seed(seed)
    for seat, player in enumerate(players):
        player.start_game(GameStart(game.name, seat, seeded, options_dict, names))
    waits = [hasattr(player, "act_async") for player in players]
    moves = _moves(game, players, game.new_game(seed, options), settings, waits)
    if any(waits):
        from arena.wire.loop import run  # only games with bots over gRPC need an event loop

        state, auto, faults = run(_answer_async(moves, players))
    else:
        try:
            next(moves)
            raise AssertionError("the referee waited on a player that cannot be awaited")
        except StopIteration as done:
            state, auto, faults = done.value
    replay = build_replay(game, state, seed, options, names=names, auto=auto, faults=faults)
    think = [getattr(player, "game_think", None) for player in players]
    if any(think):
        replay["think"] = [_think_record(times) for times in think]
    decisions = sum(len(d["events"]) for d in replay["deals"]) - state.automatic
    for seat, player in enumerate(players):
        if player.wants_notices:
            player.end_game(seat, replay)
    return GameResult(replay, faults, decisions)


async def _answer_async(moves: Any, players: Sequence[Player]) -> Any:
    """Drive `_moves`, awaiting each answer it yields a decision for; its result."""
    try:
        decision = next(moves)
        while True:
            try:
                answer = (await players[decision.seat].act_async(decision), None)  # type: ignore[attr-defined]
            except Exception as error:  # a bot can do anything; `_moves` records it
                answer = (None, error)
            decision = moves.send(answer)
    except StopIteration as done:
        return done.value


def _moves(
    game: Game,
    players: Sequence[Player],
    state: GameState,
    settings: RefereeSettings,
    waits: Sequence[bool],
) -> Any:
    """The referee's loop, as a generator: it yields the decision of a seat whose player
    must be awaited (`waits`) and is sent back (action, error); the other players are
    called in place. Returns (final state, auto-marked events, faults)."""
    notify = [p for p in players if p.wants_notices]
    auto: dict[tuple[int, int], str] = {}  # (deal index, event index) -> fault kind
    faults: list[Fault] = []
    fault_counts = [0] * game.seats
    ask_forced = settings.ask_forced if settings.ask_forced is not None else any(waits)
    max_faults = settings.max_faults
    apply = game.apply_legal  # every action below is checked against `legal` first
    decisions_by_seat = [Decision(game, seat) for seat in range(game.seats)]
    asked = [0] * game.seats  # decisions put to each seat so far (Fault.decision)
    acts = [player.act for player in players]
    watch = settings.watch
    while state.to_move >= 0:
        seat = state.to_move
        deal_index = state.deal_index
        legal = state.legal
        if len(legal) == 1 and not ask_forced:
            apply(state, legal[0])
        elif fault_counts[seat] >= max_faults:
            auto[deal_index, len(state.events)] = MAX_FAULTS_MARK
            apply(state, legal[0])
        else:
            decision = decisions_by_seat[seat]  # Decision.open, inlined: the hot loop
            decision.kind = state.kind
            decision.legal = legal
            decision._state = state
            decision._view = None
            asked[seat] += 1
            try:
                if waits[seat]:
                    action, error = yield decision
                    if error is not None:
                        raise error
                else:
                    action = acts[seat](decision)
                if action not in legal:
                    shown = _describe(game, action)
                    raise BotFault(
                        FaultKind.ILLEGAL,
                        f"answered {shown}, which is not legal for this {state.kind} decision; "
                        f"legal were: {', '.join(_describe(game, a) for a in legal)}",
                        got=shown,
                    )
            except Exception as error:  # a bot can do anything; the referee goes on
                fault = error if isinstance(error, BotFault) else _crash_fault(error)
                if not getattr(fault, "overload", ""):  # the machine's, not the bot's
                    fault_counts[seat] += 1
                event = len(state.events)
                faults.append(
                    Fault(
                        seat,
                        deal_index + 1,
                        fault.kind,
                        fault.detail,
                        decision=asked[seat],
                        event=event,
                        expected=_expected(game, state.kind, legal, fault.expected),
                        got=fault.got,
                        log=_log_of(players[seat]),
                        overload=getattr(fault, "overload", ""),
                    )
                )
                auto[deal_index, event] = str(fault.kind)
                action = legal[0]
            decision._state = None  # closed: the view can no longer be built
            apply(state, action)
        if notify and state.deal_index != deal_index:
            _notify_deal_end(game, state, notify, players, deal_index)
        if watch is not None:
            watch(state)
    return state, auto, faults


def _think_record(times: list[tuple[float, float | None]] | None) -> dict[str, Any] | None:
    """A seat's think times in the replay (`think`): for each decision it was asked in
    order, its wall time and its bot's CPU time (cgroup) in milliseconds (CPU null where
    the bot had no cgroup); None for a seat played inside the referee."""
    if times is None:
        return None
    return {
        "wall_ms": [round(wall * 1000, 3) for wall, _ in times],
        "cpu_ms": [None if cpu is None else round(cpu * 1000, 3) for _, cpu in times],
    }


def _crash_fault(error: Exception) -> BotFault:
    """An in-process bot that raised: its error becomes a `crash` fault."""
    raised = f"{type(error).__name__}: {error}"
    detail = f"the bot raised {raised}"[:500]
    return BotFault(FaultKind.CRASH, detail, expected="an answer", got=f"raised {raised}")


def _expected(game: Game, kind: str, legal: Sequence[Action], needs: str) -> str:
    """What the seat should have answered: one of the legal actions, plus whatever the
    player's transport needed besides (`BotFault.expected`, e.g. "within 1.000 s")."""
    shown = ", ".join(_describe(game, a) for a in legal)
    text = truncate(f"one of the {len(legal)} legal {kind} actions ({shown})", 300)
    return f"{text} {needs}" if needs else text


def _log_of(player: Player) -> str:
    """The absolute path of the player's log file, for a bot the referee started (a
    `RemotePlayer` with a process exposes `log_path`); "" for the others, and for a
    command that could not be started (it wrote no log)."""
    path = getattr(player, "log_path", None)
    return os.path.abspath(path) if path and os.path.exists(path) else ""


def _describe(game: Game, action: Any) -> str:
    try:
        return game.describe_action(action)
    except Exception:  # a bot's answer can be anything at all
        return repr(action)[:80]


def _notify_deal_end(
    game: Game,
    state: GameState,
    notify: list[Player],
    players: Sequence[Player],
    deal_index: int,
) -> None:
    """T-8.2: at the end of a deal the hands as dealt are revealed to all."""
    record = game.deal_record(state, deal_index)
    for seat, player in enumerate(players):
        if player in notify:
            player.end_deal(seat, record)
