"""The main process's check of a match a worker sends back, before it is stored.

A worker on another machine plays the match, but it is not trusted to say what
happened: the referee is deterministic, so the main process, which holds the deal key,
plays every returned game again through the engine and refuses the match when
anything differs. What it checks: the match is the one scheduled (index, seed, table),
each game sits the table as the rotation says, the deals follow from the game seed
(an HMAC of the match's seed under the league's secret key, which a worker is given
but cannot change without the main process seeing it), every event is legal where it
stands and is the seat's whose turn it is, and the scores, totals and ranks are the
ones the engine computes. What it cannot check is what only the worker saw: how long
a bot thought, and therefore whether a timeout fault was real (docs/cluster.md says
what follows from that).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.errors import ConfigError, ForgedResult
from arena.games.base import Game
from arena.league.definition.config import LeagueConfig
from arena.league.definition.records import PlayedGame, PlayedMatch
from arena.league.definition.schedule import ScheduledMatch
from arena.play.deal_keys import game_seed
from arena.play.faults import FaultKind
from arena.play.matches import seatings
from arena.play.replays import REPLAY_FORMAT
from arena.play.seat_view import replay_steps


def check_played_match(config: LeagueConfig, match: ScheduledMatch, played: PlayedMatch) -> None:
    """ForgedResult saying the first thing that is wrong with `played` as the result
    of `match` in `config`'s league; None when every game is what the engine plays."""
    if (played.index, played.seed, tuple(played.entrants)) != (
        match.index,
        match.seed,
        tuple(match.entrants),
    ):
        raise ForgedResult(
            f"it is not match {match.index} as scheduled (index {played.index}, seed "
            f"{played.seed!r}, table {list(played.entrants)})"
        )
    game = config.engine
    orders = seatings(game.seats, config.rotations)
    if len(played.games) != len(orders):
        raise ForgedResult(f"it has {len(played.games)} games, the match has {len(orders)}")
    seed = game_seed(config.deal_key, match.seed)
    options = game.options_dict(config.options)
    for rotation, (order, record) in enumerate(zip(orders, played.games, strict=True)):
        seated = tuple(match.entrants[b] for b in order)
        try:
            _check_game(
                game,
                config.options,
                options,
                seed=seed,
                rotation=rotation,
                seated=seated,
                record=record,
            )
        except (ForgedResult, ConfigError, KeyError, TypeError, ValueError, IndexError) as err:
            raise ForgedResult(f"game {rotation + 1} of the match: {err}") from None


def _check_game(
    game: Game,
    parsed_options: Any,
    options: Mapping[str, Any],
    *,
    seed: str,
    rotation: int,
    seated: tuple[str, ...],
    record: PlayedGame,
) -> None:
    replay = record.replay
    if record.rotation != rotation or tuple(record.players) != seated:
        raise ForgedResult(f"it is not rotation {rotation} seated {list(seated)}")
    expected = {
        "format": REPLAY_FORMAT,
        "game": game.name,
        "options": dict(options),
        "seed": seed,
        "players": list(seated),
    }
    for key, value in expected.items():
        if replay.get(key) != value:
            raise ForgedResult(f"its replay's {key} is {replay.get(key)!r}, not {value!r}")
    state = None
    decisions = 0
    for step in replay_steps(game, replay, parsed_options):
        state = step[0]  # the engine's state, moving on: after the loop, the game's end
        decisions += 1  # replay_steps refuses an event that is not legal where it stands
    if state is None:
        raise ForgedResult("its replay holds no decision")
    if decisions != record.decisions:
        raise ForgedResult(f"it says {record.decisions} decisions, the replay holds {decisions}")
    deals = game.deal_records(state)
    given = replay["deals"]
    if len(given) != len(deals):
        raise ForgedResult(f"its replay has {len(given)} deals, the game has {len(deals)}")
    for number, (mine, theirs) in enumerate(zip(deals, given, strict=True), start=1):
        if _without_marks(theirs) != mine:
            differs = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
            raise ForgedResult(f"deal {number} differs from the engine's in {', '.join(differs)}")
    totals, ranks = game.result(state)
    if list(replay["totals"]) != list(totals) or list(replay["ranks"]) != list(ranks):
        raise ForgedResult(
            f"its totals {replay['totals']} and ranks {replay['ranks']} are not the "
            f"engine's {totals} and {ranks}"
        )
    _check_faults(replay, len(seated), len(deals))


def _without_marks(deal: Mapping[str, Any]) -> dict[str, Any]:
    """A replay's deal without the referee's `auto` marks on fallback events, which
    the engine's own records do not carry."""
    events = [{k: v for k, v in event.items() if k != "auto"} for event in deal.get("events", [])]
    return {**deal, "events": events}


def _check_faults(replay: Mapping[str, Any], seats: int, deals: int) -> None:
    """Every fault names a seat at the table, a deal of the game and a known kind, and
    one at an event marks that event as a fallback of that seat."""
    kinds = {str(kind) for kind in FaultKind}
    records: Sequence[Mapping[str, Any]] = replay["deals"]
    for fault in replay["faults"]:
        seat, deal, kind = fault["seat"], fault["deal"], fault["kind"]
        if kind not in kinds or not (0 <= seat < seats) or not (1 <= deal <= deals):
            raise ForgedResult(f"its fault {dict(fault)} is not one the referee records")
        event = fault.get("event")
        if isinstance(event, int) and event >= 0:
            events = records[deal - 1]["events"]
            if (
                event >= len(events)
                or "auto" not in events[event]
                or (events[event].get("seat") != seat)
            ):
                raise ForgedResult(f"its fault {dict(fault)} marks no fallback move of seat {seat}")
