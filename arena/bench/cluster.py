"""`arena bench cluster`: one league played on a Dask cluster of 1, 2 and 4 workers in
one run, in games per minute, with the speed-up over one worker; and the cost of the
main process's check of each returned game (arena/league/running/result_check.py) against the
time a game takes. Nothing is asserted.

The bots wait a fixed time per decision (2 ms by default) and compute next to nothing,
as bots that think do when the thinking is elsewhere: the cores are not the limit, so
the figures show what the cluster path itself costs (shipping the bots, Dask's
scheduling, the check, the single writer). Each worker is a process of one thread on a
`LocalCluster` here; the bots are shipped to them as an archive, as to other machines.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

WAITING_BOT = '''"""A bot that waits WAIT_MS milliseconds per decision, then plays a random move."""
import sys
import time

from arena.sdk import Bot, serve

WAIT = float(sys.argv[1]) / 1000


class Waiting(Bot):
    name = "waiting"
    games = ("trix", "trianon")

    def act(self, turn):
        time.sleep(WAIT)
        return turn.random_index(len(turn.request.legal))


serve(Waiting())
'''


@dataclass(frozen=True)
class ClusterRun:
    workers: int
    games: int
    seconds: float
    check_ms: list[float]  # the result check of each game, in milliseconds
    busy_cores: float  # the machine's cores busy on average during the run (all processes)
    steady: float  # games per minute once every worker had finished its first match

    @property
    def per_minute(self) -> float:
        return self.games / self.seconds * 60


def bench_cluster(
    matches: int = 16,
    workers: tuple[int, ...] = (1, 2, 4),
    wait_ms: float = 2.0,
    kingdoms: int = 1,
) -> list[ClusterRun]:
    """The league played once on each cluster size, in order, each into a fresh
    database and with the bots' archive unpacked afresh."""
    from distributed import LocalCluster

    runs = []
    for count in workers:
        with tempfile.TemporaryDirectory(prefix="arena-bench-cluster-") as name:
            folder = Path(name)
            league = _league(folder, matches, wait_ms, kingdoms)
            with (
                LocalCluster(
                    n_workers=count,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                ) as cluster,
                _bot_cache(folder),
            ):
                runs.append(_run(league, folder / "bench.db", cluster.scheduler_address, count))
    return runs


def _bot_cache(folder: Path) -> contextlib.AbstractContextManager:
    """Each run unpacks the bots into a cache folder of its own (as a new cluster would):
    the workers, started after it, inherit the variable."""
    from unittest import mock

    from arena.league.workers.bot_archives import CACHE_VARIABLE

    return mock.patch.dict(os.environ, {CACHE_VARIABLE: str(folder / "bot-cache")})


def _league(folder: Path, matches: int, wait_ms: float, kingdoms: int) -> Path:
    bots = folder / "bots"
    bots.mkdir(mode=0o755)
    (bots / "waiting_bot.py").write_text(WAITING_BOT)
    entrants = "".join(
        f'\n[[entrant]]\nname = "bot-{i}"\nbot = "python bots/waiting_bot.py {wait_ms:g}"\n'
        for i in range(4)
    )
    league = folder / "bench.toml"
    league.write_text(
        '[league]\nname = "bench"\ngame = "trix"\nseed = 1\nschedule = "balanced"\n'
        f"matches = {matches}\n\n[rules]\nkingdoms = {kingdoms}\n\n"
        "[limits]\nmove_timeout = 5.0\n" + entrants
    )
    folder.chmod(0o755)
    return league


def _run(league: Path, db: Path, address: str, workers: int) -> ClusterRun:
    from arena.league.running.runner import run_league

    busy_before = _busy_seconds()
    started = time.perf_counter()
    summary = run_league(league, db, cluster=address)
    seconds = time.perf_counter() - started
    busy = (_busy_seconds() - busy_before) / seconds
    return ClusterRun(
        workers, summary.played * 4, seconds, _check_times(league, db), busy, _steady(db)
    )


def _steady(db: Path) -> float:
    """Games per minute from the moment every worker had stored its first match (its
    bots started: a process per entrant and rotation) to the last match: the rate of
    a long league, whose start-up is a small part of it; 0 when too few matches."""
    from arena.league.store import match_records, open_existing

    with contextlib.closing(open_existing(db)) as store:
        rows = match_records(store, 1)
    first: dict[str, float] = {}
    for row in rows:
        first[row["worker"]] = min(first.get(row["worker"], row["finished_at"]), row["finished_at"])
    start = max(first.values(), default=0.0)
    after = [(r["finished_at"], r["games"]) for r in rows if r["finished_at"] > start]
    if len(after) < 2:
        return 0.0
    minutes = (max(f for f, _ in after) - start) / 60
    return sum(g for _, g in after) / minutes


def _busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy (not idle nor waiting for I/O)
    since it booted, from /proc/stat: what every process of the run used, bots and
    workers included. 0 where there is no /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _check_times(league: Path, db: Path) -> list[float]:
    """The result check of every stored match again, in ms per game."""
    import dataclasses

    from arena.league.definition.config import load_league
    from arena.league.definition.records import PlayedMatch
    from arena.league.running.result_check import check_played_match
    from arena.league.running.runner import league_schedule
    from arena.league.store import open_existing, played_games, stored_deal_key

    config = load_league(league)
    with contextlib.closing(open_existing(db)) as store:
        config = dataclasses.replace(config, deal_key=stored_deal_key(store, 1))
        games = played_games(store, 1)
    schedule = {m.index: m for m in league_schedule(config)}
    times = []
    for idx, played in games.items():
        match = schedule[idx]
        record = PlayedMatch(idx, match.seed, match.entrants, tuple(played), 0.0)
        started = time.perf_counter()
        check_played_match(config, match, record)
        times.append((time.perf_counter() - started) * 1000 / len(played))
    return times


def lines(runs: list[ClusterRun], wait_ms: float) -> list[str]:
    """The figures: per cluster size, games per minute and the speed-up over the first
    size (one worker); then the result check per game against a game's time there."""
    base = runs[0]
    out = [
        f"one league of 4 bots waiting {wait_ms:g} ms a decision, on a LocalCluster of "
        "process workers (one thread each), bots shipped as an archive, on a machine "
        f"of {os.cpu_count()} cores:"
    ]
    for run in runs:
        out.append(
            f"  {run.workers} worker{'s' if run.workers > 1 else ' '}: {run.games} games in "
            f"{run.seconds:.1f} s, {run.per_minute:.1f} games/min, "
            f"{run.per_minute / base.per_minute:.2f}x one worker; once every worker's bots "
            f"had started: {run.steady:.1f} games/min, "
            f"{run.steady / base.steady if base.steady else 0:.2f}x; "
            f"{run.busy_cores:.2f} cores busy on average"
        )
    check = statistics.median(ms for run in runs for ms in run.check_ms)
    game_ms = base.seconds / base.games * 1000
    out.append(
        f"result check: {check:.1f} ms per game (median), {check / game_ms:.1%} of a game's "
        f"{game_ms:.0f} ms on one worker"
    )
    return out
