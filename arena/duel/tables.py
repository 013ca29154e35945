"""One side's table of a duel: a seat-rotated match of one bot against the opponents,
read as that bot's duplicate margin.

A duel seats A at one table and B at another, with the same opponents in the same
seats and the same deals (`arena.duel.runner`); the two margins' difference is the
paired difference the sequential test reads (`arena.league.standings.sprt`). The same
table, dealt its own cards, is one step of a "separate run" (`arena bench duel`
compares the two).

Each side's bot gets a bot seed of its own (`OwnSeed`). The referee gives every seat
of a game the same bot seed, a hash of the game seed, so that a seeded bot plays the
same way in every rotation. At the two tables of a pair the game seeds are equal, so
A and B would draw the same random numbers: two copies of one random bot would play
identical games, and a bot against itself would show a difference of exactly 0 when
the question is how far apart noise alone puts them. The opponents keep the
referee's seed, so they are the same players at both tables.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.games.base import Game
from arena.league.definition.records import GameOutcome, MatchOutcome
from arena.league.standings.stats import match_margins
from arena.play.faults import Fault
from arena.play.matches import MatchResult, play_match
from arena.play.referee import Decision, GameStart, Player, RefereeSettings

SIDES = ("A", "B")


def side_seed(side: str, seed: str) -> str:
    """The bot seed of `side`'s bot for a game whose other seats get `seed`: a hash of
    both, as unguessable as the referee's own."""
    digest = hashlib.sha256(b"arena duel side\0" + side.encode() + b"\0" + seed.encode())
    return digest.hexdigest()[:32]


class OwnSeed:
    """A player told a bot seed of its own side (`side_seed`) and otherwise itself:
    every other call and attribute is the wrapped player's, so the referee treats it
    as it treats that player (awaiting a bot over gRPC, reading its think times)."""

    def __init__(self, player: Player, side: str) -> None:
        self.player = player
        self.side = side

    def __getattr__(self, name: str) -> Any:
        return getattr(self.player, name)

    def start_game(self, start: GameStart) -> None:
        self.player.start_game(dataclasses.replace(start, seed=side_seed(self.side, start.seed)))

    def act(self, decision: Decision) -> Any:
        return self.player.act(decision)

    def end_deal(self, seat: int, deal: Mapping[str, Any]) -> None:
        self.player.end_deal(seat, deal)

    def end_game(self, seat: int, replay: Mapping[str, Any]) -> None:
        self.player.end_game(seat, replay)


def unwrapped(player: Player) -> Player:
    """The player itself, not its side's wrapper (what a rotation pool knows)."""
    return player.player if isinstance(player, OwnSeed) else player


def opponent_entrants(count: int) -> list[str]:
    """The opponents' names in a table's outcome, the same at both tables of a pair."""
    return [f"opponent{k}" for k in range(1, count + 1)]


@dataclass(frozen=True)
class TablePlay:
    """One side's match: its margin (points a game), the match read as a pair's half,
    and every fault with its rotation and the index of the bot whose it was (0: the
    side's, then the opponents')."""

    side: str
    margin: float
    outcome: MatchOutcome
    faults: tuple[tuple[int, int, Fault], ...]

    @property
    def games(self) -> int:
        return len(self.outcome.games)


def table_outcome(result: MatchResult, entrants: Sequence[str], index: int = 0) -> MatchOutcome:
    """A played match as the standings read it: each game's totals by entrant (the
    entrants by bot index; the names shown to the bots may be others)."""
    outcome = MatchOutcome(index, list(entrants))
    for rotation, (seating, played) in enumerate(zip(result.seatings, result.games, strict=True)):
        by_seat = [entrants[b] for b in seating]
        totals = dict(zip(by_seat, played.totals, strict=True))
        outcome.games.append(GameOutcome(rotation, totals, dict.fromkeys(entrants, 0)))
    return outcome


def play_table(
    game: Game,
    side: str,
    rotation_players: Sequence[Sequence[Player]],
    names: Sequence[str],
    seed: str,
    *,
    options: Any,
    settings: RefereeSettings | None = None,
    before_game: Callable[[Sequence[Player]], None] | None = None,
) -> TablePlay:
    """Play `side`'s seat-rotated match on the game seed `seed`: `rotation_players[r]`
    holds rotation r's players by bot index, the side's bot first (a process per
    rotation: none meets the deals twice), `names` what the bots are told they are
    called. The side's bot plays under a seed of its own; `before_game` is told each
    game's players as the rotation pool knows them."""
    rosters = [[OwnSeed(roster[0], side), *roster[1:]] for roster in rotation_players]

    def told(seated: Sequence[Player]) -> None:
        if before_game is not None:
            before_game([unwrapped(p) for p in seated])

    result = play_match(
        game,
        rosters[0],
        names,
        seed,
        options=options,
        settings=settings,
        rotation_players=rosters,
        before_game=told,
    )
    entrants = [side, *opponent_entrants(len(names) - 1)]
    outcome = table_outcome(result, entrants)
    faults = tuple(
        (rotation, seating[fault.seat], fault)
        for rotation, (seating, played) in enumerate(
            zip(result.seatings, result.games, strict=True)
        )
        for fault in played.faults
    )
    return TablePlay(side, match_margins(outcome)[side], outcome, faults)
