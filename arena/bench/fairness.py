"""`arena bench fairness`: can one bot take the machine from the others?

In one run, for each `move_timeout` (1.0 and 0.1 s by default): a league of calm bots
(the package's random bot, which thinks for microseconds) on two workers, then the same
league with a CPU hog among them (`arena.strategies.hog`: children in sessions of their
own and threads, spinning on every core). It prints the calm bots' timeouts in each,
and their matches' mean wall time against the calm run's, for the matches without the
hog (the other worker's table) and with it (the hog's own table). Before each bot had a
cgroup, such a hog made every match of a 2-core league 50 to 80 times slower and caused
267 timeouts of calm bots at move_timeout = 0.1. Nothing is asserted.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bench.referee import RANDOM_BOT

HOG_BOT = "python -m arena.strategies.hog --seconds 900"
CALM = 6  # calm entrants, and a seventh: the hog, or a calm twin of it
DEAL_KEY = "fa1f" * 8  # both leagues deal the same cards


@dataclass(frozen=True)
class FairnessRun:
    move_timeout: float
    hog: bool
    seconds: float  # the whole league
    calm_timeouts: int  # timeouts charged to calm bots
    overload_replays: int  # matches played again: the machine made a bot late
    without_hog: list[float]  # wall seconds of each match the hog did not play
    with_hog: list[float]  # and of each it played
    calm_ms: float = 0.0  # the calm bots' mean wall time per decision (their answers)


def bench_fairness(
    matches: int = 8, timeouts: tuple[float, ...] = (1.0, 0.1), workers: int = 2
) -> list[FairnessRun]:
    """For each timeout, the calm league and the hogged one, in that order."""
    runs = []
    for move_timeout in timeouts:
        for hog in (False, True):
            with tempfile.TemporaryDirectory(prefix="arena-bench-fairness-") as name:
                runs.append(
                    _league(
                        Path(name), matches, move_timeout=move_timeout, hog=hog, workers=workers
                    )
                )
    return runs


def _league(
    folder: Path, matches: int, *, move_timeout: float, hog: bool, workers: int
) -> FairnessRun:
    """One league: six calm entrants and a seventh named `hog`, which is the hog only
    when `hog` is true (calm otherwise), so that both leagues play the same tables on
    the same deals and each match can be set against its calm twin."""
    from arena.league.running.runner import run_league

    bots = [(f"calm-{i}", RANDOM_BOT) for i in range(CALM)]
    bots.append(("hog", HOG_BOT if hog else RANDOM_BOT))
    entrants = "".join(f'\n[[entrant]]\nname = "{n}"\nbot = "{b}"\n' for n, b in bots)
    path = folder / "fair.toml"
    path.write_text(
        f'[league]\nname = "fair"\ngame = "trix"\nseed = 1\ndeal_key = "{DEAL_KEY}"\n'
        f'schedule = "balanced"\nmatches = {matches}\n\n[rules]\nkingdoms = 1\n\n'
        f"[limits]\nmove_timeout = {move_timeout}\n" + entrants
    )
    started = time.perf_counter()
    run_league(path, folder / "fair.db", workers=workers, allow_broken=True)
    seconds = time.perf_counter() - started
    return _figures(folder / "fair.db", move_timeout, hog, seconds)


def _figures(db_path: Path, move_timeout: float, hog: bool, seconds: float) -> FairnessRun:
    from arena.league import store

    db = store.open_existing(db_path)
    try:
        league_id, _ = store.league_id_by_name(db, "fair")
        matches = store.match_records(db, league_id)
        faults = store.fault_records(db, league_id)
        stats = store.entrant_stats(db, league_id)
    finally:
        db.close()
    timeouts = sum(f["kind"] == "timeout" and f["entrant"] != "hog" for f in faults)
    without = [m["seconds"] for m in matches if "hog" not in m["entrants"]]
    with_hog = [m["seconds"] for m in matches if "hog" in m["entrants"]]
    replays = sum(m["overload_replays"] for m in matches)
    calm = [row for name, row in stats.items() if name != "hog" and row.get("asked")]
    asked = sum(row["asked"] for row in calm)
    calm_ms = sum(row["think_wall_ms"] for row in calm) / asked if asked else 0.0
    return FairnessRun(move_timeout, hog, seconds, timeouts, replays, without, with_hog, calm_ms)


def render_fairness(runs: list[FairnessRun], workers: int) -> str:
    """A line per league; the hogged one's matches against their calm twins (the same
    tables and deals), for those the hog did not play and those it did."""
    lines = []
    for run in runs:
        calm = next(r for r in runs if r.move_timeout == run.move_timeout and not r.hog)
        what = "with the hog" if run.hog else "calm"
        line = (
            f"move_timeout {run.move_timeout:g} s, {workers} workers, {what}: "
            f"{run.calm_timeouts} timeouts of calm bots, their answers {run.calm_ms:.2f} ms "
            f"a decision, league {run.seconds:.1f} s"
        )
        pairs = (
            ("without the hog", run.without_hog, calm.without_hog),
            ("at the hog's table", run.with_hog, calm.with_hog),
        )
        for label, times, twins in pairs:
            if times and twins:
                mean = statistics.mean(times)
                line += f"; matches {label} {mean:.2f} s"
                if run.hog:
                    line += f" ({mean / statistics.mean(twins):.2f}x calm)"
        if run.overload_replays:
            line += f"; {run.overload_replays} matches played again (overload)"
        lines.append(line)
    return "\n".join(lines)
