"""A version's health: suspended when its own faults say it cannot play.

aiarena and Halite both wrote "disable a bot after N crashes" and left it off; a
ladder that seats a crashing bot charges its opponents nothing (the referee plays its
fallbacks) but wastes every table it sits at. Two rules, each over the version's own
stored games, newest first (docs/ladder.md, "Health"):

- its charged faults over its last `window` games pass `max_fault_rate` of the
  decisions it was asked in them;
- it crashed (or failed to start) in each of its last `max_crash_games` games.

Only charged faults count: a fault the machine caused (an overloaded core made the
bot late) is never charged (arena/league/definition/records.py), and the worker plays
such a match again before it is stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class HealthSettings:
    """The ladder file's `[health]` table."""

    window: int = 20  # games looked at
    max_fault_rate: float = 0.10  # of the decisions asked in them
    max_crash_games: int = 5  # crashed games in a row


def health_problem(games: Sequence[tuple[int, int, int]], settings: HealthSettings) -> str | None:
    """Why a version must be suspended, or None. `games` is its stored games, newest
    first: (decisions asked, faults charged, 1 when it crashed in the game)."""
    crashes = 0
    for _, _, crashed in games[: settings.max_crash_games]:
        if not crashed:
            break
        crashes += 1
    if settings.max_crash_games and crashes >= settings.max_crash_games:
        return (
            f"it crashed in each of its last {crashes} games ([health] max_crash_games = "
            f"{settings.max_crash_games}): read its log (`arena faults`) and submit a new "
            "version"
        )
    recent = games[: settings.window]
    if len(recent) < settings.window:
        return None  # too few games to judge a rate by
    asked = sum(a for a, _, _ in recent)
    faults = sum(f for _, f, _ in recent)
    if asked and faults / asked > settings.max_fault_rate:
        return (
            f"{faults} faults in the {asked} decisions of its last {len(recent)} games "
            f"({faults / asked:.0%}, above [health] max_fault_rate = "
            f"{settings.max_fault_rate:.0%}): read them with `arena faults` and submit a "
            "new version"
        )
    return None
