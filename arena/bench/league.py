"""`arena bench league`: a league of four external random bots into a fresh database,
in games per minute, everything included (bot start-up for every match, storage,
ratings). Nothing is asserted."""

from __future__ import annotations

import time
from pathlib import Path

from arena.bench.referee import RANDOM_BOT


def bench_league(matches: int = 12, workers: int = 2) -> tuple[int, float]:
    """A league of four external random bots (RANDOM_BOT) into a fresh database;
    (games, seconds).

    Everything is included: bot start-up for every match, storage and ratings."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="arena-bench-league-") as name:
        return _bench_league(Path(name), matches, workers)


def _bench_league(folder: Path, matches: int, workers: int) -> tuple[int, float]:
    from arena.league.runner import run_league

    entrants = "".join(
        f'\n[[entrant]]\nname = "random-{i}"\nbot = "{RANDOM_BOT}"\n' for i in range(4)
    )
    league = folder / "bench.toml"
    league.write_text(
        '[league]\nname = "bench"\ngame = "trix"\nseed = 1\nschedule = "round-robin"\n'
        f"rounds = {matches}\n" + entrants
    )
    start = time.perf_counter()
    summary = run_league(league, folder / "bench.db", workers=workers)
    seconds = time.perf_counter() - start
    return summary.played * 4, seconds


def render_league(games: int, seconds: float, workers: int) -> str:
    return (
        f"{games} games in {seconds:.1f} s with {workers} workers: "
        f"{games / seconds * 60:.0f} games per minute"
    )
