"""A series of games or matches from one seed, and the sums a match series prints.

`arena play --seed S` plays game (or match) i on the seed `S-i`; the sums add each
bot's score over every game it played, by the name it plays under.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


def game_seeds(seed: str, count: int) -> list[str]:
    """The seeds of `count` games (or matches) derived from one seed: `S-1`, `S-2`, ..."""
    return [f"{seed}-{i}" for i in range(1, count + 1)]


@dataclass
class SeriesTotals:
    """Each bot's score summed over a series of matches, and the games played."""

    sums: dict[str, int] = field(default_factory=dict)
    games: int = 0

    def add(self, names: Sequence[str], totals: Sequence[int], games: int) -> None:
        """One match: each bot's sum over its `games` rotations."""
        for name, total in zip(names, totals, strict=True):
            self.sums[name] = self.sums.get(name, 0) + total
        self.games += games

    def means(self) -> dict[str, float]:
        """Each bot's mean score per game (every bot sits in every game of a match)."""
        return {name: total / self.games for name, total in self.sums.items()}
