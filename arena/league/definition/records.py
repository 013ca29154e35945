"""The typed records that travel between a league's layers.

A worker plays a match and returns a `PlayedMatch`; the main process stores it and
turns it into a `MatchOutcome`, the rating input, which is also what the store reads
back. They are plain frozen data, so they cross process boundaries (and, later,
machines) as they are, and no layer reaches into another's dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class GameOutcome:
    """One game of a match as the ratings see it."""

    rotation: int
    totals: dict[str, int]  # entrant -> total in this game
    faults: dict[str, int]  # entrant -> faults in this game
    deals: list[dict[str, int]] = field(default_factory=list)  # entrant -> score, per deal


@dataclass
class MatchOutcome:
    """One match as the ratings see it: its schedule index and its games."""

    idx: int
    entrants: list[str]
    games: list[GameOutcome] = field(default_factory=list)


@dataclass(frozen=True)
class EntrantFault:
    """One fault of a replay, with the entrant whose seat made it. `charged` is False
    for a fault the machine caused (an overloaded core made the bot late: the replay's
    fault says `overload`): it is shown, but never counted against the bot."""

    entrant: str
    seat: int
    kind: str
    charged: bool
    record: Mapping[str, Any]  # the replay's fault as it is stored


def entrant_faults(players: Sequence[str], replay: Mapping[str, Any]) -> list[EntrantFault]:
    """Every fault of `replay`, each with the entrant `players` seats where it was made:
    the one place a fault's seat becomes an entrant and the overload rule is applied."""
    return [
        EntrantFault(players[f["seat"]], f["seat"], f["kind"], not f.get("overload"), f)
        for f in replay["faults"]
    ]


@dataclass(frozen=True)
class PlayedGame:
    """One game of a played match: which entrant sat where, and its replay."""

    rotation: int
    players: tuple[str, ...]  # entrant names by seat
    replay: Mapping[str, Any]  # the arena-replay/1 document
    decisions: int  # engine decisions, forced ones included

    def faults(self) -> list[EntrantFault]:
        """This game's faults, each with its entrant and whether it is charged."""
        return entrant_faults(self.players, self.replay)

    def outcome(self) -> GameOutcome:
        replay = self.replay
        players = self.players
        faults = dict.fromkeys(players, 0)
        for fault in self.faults():
            faults[fault.entrant] += fault.charged
        deals = [dict(zip(players, d["scores"], strict=True)) for d in replay["deals"]]
        totals = dict(zip(players, replay["totals"], strict=True))
        return GameOutcome(self.rotation, totals, faults, deals)


@dataclass(frozen=True)
class PlayedMatch:
    """What a worker sends back for one scheduled match: every rotation's game, and
    how long the match took (bot start-up included)."""

    index: int  # the match's place in the league's schedule
    seed: str
    entrants: tuple[str, ...]  # the table, by bot index
    games: tuple[PlayedGame, ...]
    seconds: float
    overload_replays: int = 0  # times it was played again: the machine made bots late
    worker: str = ""  # the worker that played it (arena/league/workers/match_task.py `worker_name`)

    def outcome(self) -> MatchOutcome:
        """The rating input of this match (the same as the store reads back)."""
        return MatchOutcome(self.index, list(self.entrants), [g.outcome() for g in self.games])
