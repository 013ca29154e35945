"""`arena bench league`: a league of four external random bots into a fresh database,
in games per minute, everything included (bot start-up, storage, ratings), with the
bots kept for the whole league (a process per entrant and rotation, the rule) and, in
the same run, started for every match (the lifecycle before it). Nothing is asserted."""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bench.referee import RANDOM_BOT

LIFECYCLE_WORDS = {
    "league": "bots kept for the league (a process per entrant and rotation)",
    "match": "bots started for every match (one process per entrant, all rotations)",
}


@dataclass(frozen=True)
class LeagueRun:
    lifecycle: str
    games: int
    seconds: float

    @property
    def per_minute(self) -> float:
        return self.games / self.seconds * 60


def bench_league(
    matches: int = 24,
    *,
    workers: int = 2,
    lifecycles: tuple[str, ...] = ("match", "league"),
    repeats: int = 2,
    kingdoms: int = 4,
    bot: str = RANDOM_BOT,
) -> list[LeagueRun]:
    """The league (`repeats` times each lifecycle, taking turns, so that a drift of the
    machine's speed is shared): one `LeagueRun` per league played, in order. Fewer
    `kingdoms` make shorter games, in which a bot's start-up weighs more."""
    runs = []
    for _ in range(repeats):
        for lifecycle in lifecycles:
            with tempfile.TemporaryDirectory(prefix="arena-bench-league-") as name:
                runs.append(
                    _bench_league(
                        Path(name),
                        matches,
                        workers=workers,
                        lifecycle=lifecycle,
                        kingdoms=kingdoms,
                        bot=bot,
                    )
                )
    return runs


def _bench_league(
    folder: Path,
    matches: int,
    *,
    workers: int,
    lifecycle: str,
    kingdoms: int = 4,
    bot: str = RANDOM_BOT,
) -> LeagueRun:
    from arena.league.running.runner import run_league
    from arena.league.workers.worker import Lifecycle

    entrants = "".join(f'\n[[entrant]]\nname = "bot-{i}"\nbot = "{bot}"\n' for i in range(4))
    league = folder / "bench.toml"
    league.write_text(
        '[league]\nname = "bench"\ngame = "trix"\nseed = 1\nschedule = "round-robin"\n'
        f"rounds = {matches}\n\n[rules]\nkingdoms = {kingdoms}\n" + entrants
    )
    start = time.perf_counter()
    summary = run_league(
        league, folder / "bench.db", workers=workers, lifecycle=Lifecycle(lifecycle)
    )
    seconds = time.perf_counter() - start
    return LeagueRun(lifecycle, summary.played * 4, seconds)


def render_league(runs: list[LeagueRun], workers: int) -> str:
    lines = [
        f"{run.games} games in {run.seconds:.1f} s with {workers} workers, "
        f"{LIFECYCLE_WORDS[run.lifecycle]}: {run.per_minute:.0f} games per minute"
        for run in runs
    ]
    means = {}
    for lifecycle in dict.fromkeys(run.lifecycle for run in runs):
        rates = [run.per_minute for run in runs if run.lifecycle == lifecycle]
        means[lifecycle] = sum(rates) / len(rates)
        lines.append(f"mean, {LIFECYCLE_WORDS[lifecycle]}: {means[lifecycle]:.0f} games per minute")
    if "league" in means and "match" in means:
        ratio = means["league"] / means["match"]
        lines.append(f"kept for the league / started every match: {ratio:.2f}x")
    return "\n".join(lines)
