"""Seat-rotated matches: the same deals replayed with the bots moved round the table.

Every game of a match uses the match's seed, so every seat is dealt the same hands in
every game (docs/rules/trix.md T-2.2); with the bots rotated, each bot holds each seat's cards
once and card luck cancels out of the match's sums.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from arena.games.base import Game
from arena.play.referee import GameResult, Player, RefereeSettings, play_game


class Rotations(StrEnum):
    """Which seatings a match plays: each bot once in every seat (`cyclic`), or every
    permutation of the bots over the seats (`all`)."""

    CYCLIC = "cyclic"
    ALL = "all"


def seatings(seats: int, rotations: str = Rotations.CYCLIC) -> list[tuple[int, ...]]:
    """For each game of a match, which bot (by index) sits in each seat.

    `cyclic`: game r puts bot b in seat (b + r) mod n, n games; `all`: every seating, n!.
    """
    if rotations == Rotations.CYCLIC:
        return [tuple((s - r) % seats for s in range(seats)) for r in range(seats)]
    if rotations == Rotations.ALL:
        return list(itertools.permutations(range(seats)))
    raise ValueError(f"rotations must be 'cyclic' or 'all', not {rotations!r}")


@dataclass
class MatchResult:
    seed: str
    names: list[str]  # by bot index
    games: list[GameResult] = field(default_factory=list)
    seatings: list[tuple[int, ...]] = field(default_factory=list)

    def bot_totals(self) -> list[int]:
        """Each bot's score summed over the match's games."""
        sums = [0] * len(self.names)
        for seating, game in zip(self.seatings, self.games, strict=True):
            for seat, bot in enumerate(seating):
                sums[bot] += game.totals[seat]
        return sums

    def bot_faults(self) -> list[int]:
        counts = [0] * len(self.names)
        for seating, game in zip(self.seatings, self.games, strict=True):
            for fault in game.faults:
                counts[seating[fault.seat]] += 1
        return counts


def match_games(
    game: Game,
    players: Sequence[Player],
    names: Sequence[str],
    seed: str,
    *,
    options: Any,
    settings: RefereeSettings | None = None,
    rotations: str = "cyclic",
    rotation_players: Sequence[Sequence[Player]] | None = None,
    before_game: Callable[[Sequence[Player]], None] | None = None,
) -> Iterator[tuple[int, tuple[int, ...], GameResult]]:
    """The games of one seat-rotated match as each ends: (rotation, seating, result),
    one game per seating, all on `seed`.

    `rotation_players[r]` (by bot index) plays rotation r instead of `players`: a
    player per rotation, so that no bot process meets the match's deals twice
    (arena/bots/rotation_pool.py). `before_game` is told each game's players before it
    starts (the pool thaws them and freezes the others)."""
    for index, seating in enumerate(seatings(game.seats, rotations)):
        roster = rotation_players[index] if rotation_players is not None else players
        seated = [roster[b] for b in seating]
        if before_game is not None:
            before_game(seated)
        outcome = play_game(
            game, seated, seed, options, settings=settings, names=[names[b] for b in seating]
        )
        yield index, seating, outcome


def play_match(
    game: Game,
    players: Sequence[Player],
    names: Sequence[str],
    seed: str,
    *,
    options: Any,
    settings: RefereeSettings | None = None,
    rotations: str = "cyclic",
    on_game: Callable[[int, tuple[int, ...], GameResult], None] | None = None,
    rotation_players: Sequence[Sequence[Player]] | None = None,
    before_game: Callable[[Sequence[Player]], None] | None = None,
) -> MatchResult:
    """Play one seat-rotated match: one game per seating, all on `seed`."""
    result = MatchResult(seed, list(names))
    for index, seating, outcome in match_games(
        game,
        players,
        names,
        seed,
        options=options,
        settings=settings,
        rotations=rotations,
        rotation_players=rotation_players,
        before_game=before_game,
    ):
        result.games.append(outcome)
        result.seatings.append(seating)
        if on_game is not None:
            on_game(index, seating, outcome)
    return result
