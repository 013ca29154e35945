"""What one seat was asked in a game, decision by decision, rebuilt from its replay
(`arena replay GAME --seat S`).

A replay holds the events, not the views, so the game is played again through the
engine from its seed and options, event by event, and at each of the seat's decisions
the view is what `game.observe` builds (the one place a seat's view leaves the hidden
state), encoded as the referee encodes a DecisionRequest and decoded as the SDK decodes
one: the observation and the legal actions are exactly what the bot received as
`turn.view` and `turn.legal`. Nothing of the view is derived here.

A decision counts as asked as the referee counts it (`Fault.decision`, the request's
`decision_id`): every decision, except the fallbacks played unasked after `max_faults`;
in a game with no bot over gRPC (its replay has no `think`), forced moves (a single
legal action) were played without asking and are left out too.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from arena.errors import ConfigError, IllegalAction
from arena.games import get_game
from arena.games.base import Game
from arena.play.faults import MAX_FAULTS_MARK
from arena.wire.codec import WireCodec
from arena.wire.messages import action_dict, observation_dict
from arena.wire.v1 import bot_pb2 as pb

NOT_RECORDED = "not recorded (a bot inside the referee is not timed)"


class NotInGame(ConfigError):
    """A seat, deal or decision the game does not have: the option's fault, not the
    replay's."""


@dataclass(frozen=True)
class SeatDecision:
    """One decision put to the seat, as the bot received it and as it was answered."""

    number: int  # the seat's n-th decision asked in the game: the request's decision_id
    deal: int  # from 1
    event: int  # the index of the answer in the deal's replay events
    kind: str
    view: dict[str, Any]  # `turn.view`
    legal: list[dict[str, Any]]  # `turn.legal`
    answer: dict[str, Any]  # the action played, as a replay event without its seat
    fallback: str  # the fault kind when the referee played the fallback, else ""
    fault: Mapping[str, Any] | None  # the replay's fault record of this decision
    ms: float | None = None  # its wall time, from the replay's `think` (None: not kept)
    cpu_ms: float | None = None  # and the bot's own CPU time (None: not kept)

    def as_dict(self) -> dict[str, Any]:
        return {
            "decision": self.number,
            "deal": self.deal,
            "event": self.event,
            "kind": self.kind,
            "view": self.view,
            "legal": self.legal,
            "answer": self.answer,
            "fallback": self.fallback or None,
            "fault": dict(self.fault) if self.fault else None,
            "ms": self.ms,
            "cpu_ms": self.cpu_ms,
        }


def seat_decisions(
    replay: Mapping[str, Any],
    seat: int,
    deal: int | None = None,
    decision: int | None = None,
) -> list[SeatDecision]:
    """The decisions `seat` was asked in the game of `replay` (a checked arena-replay/1
    document), optionally only those of deal `deal` (from 1) or the one numbered
    `decision`. ConfigError when the seat, deal or decision is not in the game, or when
    the replay's events are not a game the engine plays."""
    game = get_game(replay["game"])
    if not 0 <= seat < game.seats:
        raise NotInGame(f"--seat {seat}: a {game.name} game has seats 0 to {game.seats - 1}")
    deals = replay["deals"]
    if deal is not None and not 1 <= deal <= len(deals):
        raise NotInGame(f"--deal {deal}: this game has deals 1 to {len(deals)}")
    options = replay_options(game, replay)
    faults = replay.get("faults", [])
    codec = WireCodec(game)
    out: list[SeatDecision] = []
    asked = 0
    forced_asked = "think" in replay  # a table with a bot over gRPC asks forced moves too
    for state, event, _action in replay_steps(game, replay, options):
        choice = forced_asked or len(state.legal) > 1
        if state.to_move == seat and choice and event.get("auto") != MAX_FAULTS_MARK:
            asked += 1
            if (deal is None or deal == state.deal_index + 1) and (
                decision is None or decision == asked
            ):
                out.append(
                    _decision(game, codec, state, seat, number=asked, event=event, faults=faults)
                )
    if decision is not None and not out:
        raise NotInGame(
            f"--decision {decision}: seat {seat} was asked decisions 1 to {asked} in this game"
            + (f", none of them numbered {decision} in deal {deal}" if deal is not None else "")
        )
    return _with_times(replay, seat, asked, out)


def replay_options(game: Game, replay: Mapping[str, Any]) -> Any:
    """The replay's rule options as the game parses them; ConfigError naming them as
    the replay's when they are not the game's."""
    try:
        return game.parse_options(replay.get("options") or {})
    except ConfigError as err:
        raise ConfigError(f"the replay's options: {err}") from None


def replay_steps(
    game: Game, replay: Mapping[str, Any], options: Any, partial: bool = False
) -> Iterator[tuple[Any, Mapping[str, Any] | None, int]]:
    """The replay's game played again through the engine, from its seed and options:
    at each decision, (state, event, action) before the event is applied. The state is
    the engine's own and moves on when the caller asks for the next step: read it
    there, copy it to keep it. ConfigError where the events stop being a game the
    engine plays.

    With `partial`, the replay may be of a game still being played: its last deal,
    without scores, may stop anywhere, and the state after its last event is yielded
    as (state, None, -1), the decision nobody has made yet."""
    deals = replay["deals"]
    state = game.new_game(str(replay["seed"]), options)
    while state.to_move >= 0:
        index, at = state.deal_index, len(state.events)
        if partial and _unplayed(deals, index, at):
            yield state, None, -1
            return
        event = _event(deals, index, at)
        action = _action(game, state, event, index, at)
        yield state, event, action
        game.apply_legal(state, action)


def _unplayed(deals: list[Any], index: int, at: int) -> bool:
    """Whether event `at` of deal `index` is the next one of a game in progress: the
    replay's last deal has no scores yet and no event there."""
    last = index == len(deals) - 1 and deals[index].get("scores") is None
    return last and at == len(deals[index].get("events", []))


def event_fault(
    faults: Iterable[Mapping[str, Any]], seat: int, deal: int, at: int, event: Mapping[str, Any]
) -> Mapping[str, Any] | None:
    """The replay's fault record of event `at` of deal `deal` (from 1), played by `seat`:
    None unless the event is a fallback (`auto`). A fault of an older replay, which has
    no event index, is the seat's first one in the deal."""
    if "auto" not in event:
        return None
    return next(
        (
            f
            for f in faults
            if f.get("seat") == seat and f.get("deal") == deal and f.get("event", at) == at
        ),
        None,
    )


def _event(deals: list[Any], index: int, at: int) -> Mapping[str, Any]:
    if index >= len(deals) or at >= len(deals[index].get("events", [])):
        raise ConfigError(
            f"the replay stops at deal {index + 1} event {at}, but the game goes on there: "
            "it is cut short or was not written by this arena"
        )
    event = deals[index]["events"][at]
    if not isinstance(event, Mapping):
        raise ConfigError(f"deal {index + 1} event {at} of the replay is not an object")
    return event


def _action(game: Game, state: Any, event: Mapping[str, Any], index: int, at: int) -> int:
    """The engine action of `event`, checked against the game as the engine plays it."""

    def where() -> str:  # made only for an error: every step of every replay comes here
        return f"deal {index + 1} event {at} of the replay ({json.dumps(dict(event))})"

    if event.get("seat") != state.to_move:
        raise ConfigError(f"{where()} is not seat {state.to_move}'s, whose turn the rules make it")
    try:
        action = game.parse_event(event)
    except IllegalAction as err:
        raise ConfigError(f"{where()}: {err}") from None
    if action not in state.legal:
        raise ConfigError(f"{where()} is not a legal {state.kind} action there")
    return action


def _decision(
    game: Game,
    codec: WireCodec,
    state: Any,
    seat: int,
    *,
    number: int,
    event: Mapping[str, Any],
    faults: list[Mapping[str, Any]],
) -> SeatDecision:
    """The request the seat was sent, decoded as the SDK decodes it."""
    view = game.observe(state, seat)
    request = pb.DecisionRequest.FromString(
        codec.decision_bytes(view, state.legal, number, b"", time_ms=0)
    )
    deal, at = state.deal_index + 1, len(state.events)
    fault = event_fault(faults, seat, deal, at, event)
    return SeatDecision(
        number,
        deal,
        at,
        request.kind,
        observation_dict(request.observation),
        [action_dict(a) for a in request.legal],
        {k: v for k, v in event.items() if k not in ("seat", "auto")},
        str(event.get("auto", "")),
        fault,
    )


def _time_text(d: SeatDecision) -> str:
    if d.ms is None:
        return NOT_RECORDED
    cpu = "" if d.cpu_ms is None else f", {d.cpu_ms:.2f} ms of the bot's CPU"
    return f"{d.ms:.2f} ms{cpu}"


def _with_times(
    replay: Mapping[str, Any], seat: int, asked: int, decisions: list[SeatDecision]
) -> list[SeatDecision]:
    """The decisions with their think times from the replay's `think`, when it holds
    one for each decision the seat was asked (a bot that was down for part of a game
    was not timed then, and its times cannot be matched to decisions)."""
    think = (replay.get("think") or [None] * (seat + 1))[seat]
    if not think or len(think.get("wall_ms", [])) != asked:
        return decisions
    wall, cpu = think["wall_ms"], think["cpu_ms"]
    return [
        dataclasses.replace(d, ms=wall[d.number - 1], cpu_ms=cpu[d.number - 1]) for d in decisions
    ]


def seat_decisions_text(replay: Mapping[str, Any], seat: int, decisions: list[SeatDecision]) -> str:
    """The decisions as text: per decision its number, deal and kind, the legal actions,
    the answer (and the fault, for a fallback), the time, and the view, each as the
    JSON the bot received."""
    players = replay["players"]
    head = (
        f"seat {seat} ({players[seat]}) in the {replay['game']} game of seed "
        f"{replay['seed']!r}: {len(decisions)} decision{'s' if len(decisions) != 1 else ''} "
        "shown, numbered as the requests' decision_id"
        + ("" if "think" in replay else " (forced moves, played without asking, are left out)")
    )
    blocks = [head]
    for d in decisions:
        answer = json.dumps(d.answer)
        if d.fallback:
            got = f"; the bot answered {d.fault['got']}" if d.fault and d.fault.get("got") else ""
            answer += f" (the referee's fallback after a fault: {d.fallback}{got})"
        lines = [
            f"decision {d.number}: deal {d.deal}, event {d.event}, {d.kind}",
            f"  legal:  {json.dumps(d.legal)}",
            f"  answer: {answer}",
        ]
        if d.fault:
            lines.append(f"  fault:  {d.fault.get('kind')}: {d.fault.get('detail')}")
        lines.append(f"  time:   {_time_text(d)}")
        lines.append("  view:   {")
        lines += [
            f"    {json.dumps(key)}: {json.dumps(value)}" + ("," if i < len(d.view) - 1 else "")
            for i, (key, value) in enumerate(d.view.items())
        ]
        lines.append("  }")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
