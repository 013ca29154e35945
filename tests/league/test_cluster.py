"""Leagues on a Dask cluster (docs/cluster.md): on loopback, with a `LocalCluster` of
process workers and with a scheduler and workers started by Dask's own commands.

What a cluster run stores is what `--workers 1` stores (the games, their replays but
for think times, the ratings); a worker killed mid-league loses and duplicates nothing;
a forged result is refused and played again elsewhere; a bot whose runtime a worker
lacks is played on another worker, and that worker is not given it again."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import sys
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.running.runner import NoWorkerLeft, RunProgress, run_league
from tests.support.bot_processes import live_processes
from tests.support.cluster_support import (
    dask_missing,
    dask_processes,
    match_workers,
    no_process_below,
    played_locally,
    stored_games,
    stored_ratings,
)

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
DEAL_KEY = "00112233445566778899aabbccddeeff"


def _league(folder: Path, entrants: list[tuple[str, str]], rounds: int = 1,
            sandbox: str = "on", name: str = "cluster") -> Path:  # fmt: skip
    """A league file in `folder`, Trix with one kingdom (short games)."""
    text = (
        f'[league]\nname = "{name}"\ngame = "trix"\nseed = 11\nrounds = {rounds}\n'
        f'deal_key = "{DEAL_KEY}"\n\n[rules]\nkingdoms = 1\n\n'
        f'[limits]\nmove_timeout = 5.0\nsandbox = "{sandbox}"\n'
    )
    for entrant, bot in entrants:
        text += f'\n[[entrant]]\nname = "{entrant}"\nbot = "{bot}"\n'
    path = folder / "league.toml"
    path.write_text(text)
    return path


def _bots(folder: Path) -> Path:
    """A folder of the league's own bots, copied from the samples: shipped as an archive."""
    bots = folder / "bots"
    bots.mkdir()
    for name in ("random_bot.py", "greedy_bot.py"):
        shutil.copy(ROOT / "sample_bots" / name, bots / name)
    shutil.copy(ROOT / "tests" / "bot_scripts" / "thinker_bot.py", bots / "thinker_bot.py")
    return bots


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The workers' folders of unpacked bots and of logs, in this test's folder (the
    workers inherit the environment)."""
    monkeypatch.setenv("ARENA_BOT_CACHE", str(tmp_path / "bot-cache"))
    monkeypatch.setenv("ARENA_WORKER_LOGS", str(tmp_path / "worker-logs"))
    return tmp_path / "bot-cache"


@pytest.fixture()
def local_cluster(tmp_path: Path):
    """A LocalCluster of two worker processes of one thread each, on loopback; once it
    is closed, no bot it started (from this test's folder) is left."""
    problem = dask_missing()
    if problem:
        raise AssertionError(problem)
    from distributed import LocalCluster

    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None,
    )  # fmt: skip
    try:
        yield cluster
    finally:
        cluster.close()
    no_process_below(tmp_path)


MIXED = [
    ("greedy", "python bots/greedy_bot.py"),
    ("random-py", "python bots/random_bot.py"),
    ("first", "builtin:first"),
    ("module", "python -m arena.strategies.uniform"),
    ("random", "builtin:random"),
]


def test_a_cluster_run_stores_what_a_local_run_stores(
    tmp_path: Path, cache: Path, local_cluster, js_bot_installed: Path
) -> None:
    _bots(tmp_path)  # and the JavaScript sample, which loads the protocol at run time
    league = _league(tmp_path, [*MIXED[:4], ("random-js", f"node {js_bot_installed}/bot.js")])
    interrupted = {"after": 2}

    def stop_early(info: RunProgress) -> None:  # Ctrl-C once two matches are stored
        if info.done == interrupted["after"]:
            raise KeyboardInterrupt

    cluster_db = tmp_path / "cluster.db"
    with pytest.raises(KeyboardInterrupt):
        run_league(league, cluster_db, cluster=local_cluster.scheduler_address,
                   progress=stop_early)  # fmt: skip
    assert len(match_workers(cluster_db)) >= 2
    summary = run_league(league, cluster_db, cluster=local_cluster.scheduler_address)
    assert summary.already_stored >= 2 and summary.already_stored + summary.played == 5
    local_db = played_locally(league, tmp_path)

    assert stored_games(cluster_db) == stored_games(local_db)
    assert stored_ratings(cluster_db) == stored_ratings(local_db)
    workers = set(local_cluster.scheduler_info["workers"])
    played_by = match_workers(cluster_db)
    assert sorted(played_by) == [0, 1, 2, 3, 4]
    assert set(played_by.values()) <= workers, played_by
    assert all(" pid " in w for w in match_workers(local_db).values())
    # each bot folder went as one archive, named by its hash, unpacked read-only
    folders = {p.name: p for p in cache.iterdir() if not p.name.startswith(".")}
    assert len(folders) == 2 and all(len(name) == 64 for name in folders)
    (unpacked,) = [p for p in folders.values() if (p / "greedy_bot.py").exists()]
    assert sorted(p.name for p in unpacked.iterdir()) == [
        "greedy_bot.py", "random_bot.py", "thinker_bot.py"
    ]  # fmt: skip
    for path in [unpacked, *unpacked.iterdir()]:
        assert not path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH), path


def test_a_worker_killed_mid_league_loses_and_duplicates_nothing(
    tmp_path: Path, cache: Path, local_cluster
) -> None:
    _bots(tmp_path)
    thinker = "python bots/thinker_bot.py 0.002"
    league = _league(
        tmp_path,
        [("think-a", thinker), ("think-b", thinker), ("first", "builtin:first"),
         ("random", "builtin:random"), ("greedy", "python bots/greedy_bot.py")],
    )  # fmt: skip
    from distributed import Client

    client = Client(local_cluster.scheduler_address, set_as_default=False)
    killed: list[str] = []

    def kill_a_busy_worker(info: RunProgress) -> None:
        if killed:
            return
        busy = [w for w, tasks in client.processing().items() if tasks]
        if busy:  # SIGKILL, mid-match: the nanny starts a new worker process
            pids = client.run(os.getpid, workers=busy[:1])
            os.kill(pids[busy[0]], signal.SIGKILL)
            killed.append(busy[0])

    try:
        db = tmp_path / "cluster.db"
        summary = run_league(league, db, cluster=local_cluster.scheduler_address,
                             progress=kill_a_busy_worker)  # fmt: skip
        workers = set(client.run(os.getpid).values())  # those alive now, and their bots
        # the killed worker's bots died with it (bubblewrap's --die-with-parent)
        orphans = _orphans(str(cache).encode(), workers)
    finally:
        client.close()
    assert not orphans, [p.describe() for p in orphans]
    assert killed, "no worker was busy when the first match was stored"
    assert summary.played == 5 and sorted(match_workers(db)) == [0, 1, 2, 3, 4]
    local_db = played_locally(league, tmp_path)
    assert stored_games(db) == stored_games(local_db)
    assert stored_ratings(db) == stored_ratings(local_db)


def _orphans(marker: bytes, parents: set[int]) -> list:
    """Processes whose command line holds `marker` and that descend from none of
    `parents` (a bot's sandbox is two bubblewrap processes above the bot)."""
    processes = {p.pid: p for p in live_processes()}
    out = []
    for proc in processes.values():
        if marker not in proc.cmdline:
            continue
        chain, pid = set(), proc.ppid
        while pid in processes and pid not in chain:
            chain.add(pid)
            pid = processes[pid].ppid
        if not chain & parents and pid not in parents:
            out.append(proc)
    return out


def _runtime(folder: Path) -> Path:
    """A folder holding `arena-test-runtime`, a bot runtime (this Python, renamed): a
    worker whose PATH lacks it cannot start the bots that need it."""
    bin_dir = folder / "runtime-bin"
    bin_dir.mkdir()
    runtime = bin_dir / "arena-test-runtime"
    runtime.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    runtime.chmod(0o755)
    return bin_dir


def test_a_bot_missing_on_one_worker_is_played_elsewhere(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bots(tmp_path)
    bin_dir = _runtime(tmp_path)
    without = dict(os.environ)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    entrants = [("needs-runtime", "arena-test-runtime bots/random_bot.py"),
                ("first", "builtin:first"), ("random", "builtin:random"),
                ("greedy", "python bots/greedy_bot.py")]  # fmt: skip
    league = _league(tmp_path, entrants, rounds=2, sandbox="off")
    notices: list[str] = []
    with dask_processes(tmp_path / "dask") as dask:
        address = dask.start_scheduler()
        dask.start_worker("no-runtime", env=without)  # its PATH has no arena-test-runtime

        def notice(text: str) -> None:
            notices.append(text)
            if "cannot start" in text and "with-runtime" not in dask.worker_addresses():
                dask.start_worker("with-runtime", env=dict(os.environ))

        db = tmp_path / "cluster.db"
        run_league(league, db, cluster=address, notice=notice)
        names = {a: n for n, a in dask.worker_addresses().items()}
    said = [n for n in notices if "cannot start 'needs-runtime'" in n]
    assert said and "no such program" in said[0], notices
    assert all(names[w] == "with-runtime" for w in match_workers(db).values())
    local_db = played_locally(league, tmp_path)
    assert stored_games(db) == stored_games(local_db)
    assert stored_ratings(db) == stored_ratings(local_db)


def test_a_forged_result_is_refused_and_played_again_elsewhere(
    tmp_path: Path, cache: Path
) -> None:
    _bots(tmp_path)
    league = _league(tmp_path, MIXED[:4], rounds=2)
    notices: list[str] = []
    with dask_processes(tmp_path / "dask") as dask:
        address = dask.start_scheduler()
        dask.start_worker("forger", preload=ROOT / "tests" / "support" / "cluster_forger.py")
        forger = dask.worker_addresses()["forger"]

        def notice(text: str) -> None:
            notices.append(text)
            if "was refused" in text and "honest" not in dask.worker_addresses():
                dask.start_worker("honest")

        db = tmp_path / "cluster.db"
        run_league(league, db, cluster=address, notice=notice)
        honest = dask.worker_addresses()["honest"]
    refused = [n for n in notices if "was refused" in n]
    assert refused and f"from worker {forger}" in refused[0], notices
    assert "totals" in refused[0] and "not the engine's" in refused[0]
    assert set(match_workers(db).values()) == {honest}
    local_db = played_locally(league, tmp_path)
    assert stored_games(db) == stored_games(local_db)


def test_a_cluster_of_forgers_only_stores_nothing_and_says_why(
    tmp_path: Path, cache: Path
) -> None:
    _bots(tmp_path)
    league = _league(tmp_path, MIXED[:4], rounds=1)
    with dask_processes(tmp_path / "dask") as dask:
        address = dask.start_scheduler()
        dask.start_worker("forger", preload=ROOT / "tests" / "support" / "cluster_forger.py")
        forger = dask.worker_addresses()["forger"]
        with pytest.raises(NoWorkerLeft) as caught:
            run_league(league, tmp_path / "cluster.db", cluster=address)
    assert f"the results of {forger} were refused" in str(caught.value)
    assert match_workers(tmp_path / "cluster.db") == {}


def test_cluster_errors_say_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    league = _league(tmp_path, [(f"b{i}", "builtin:random") for i in range(4)])
    import arena.league.workers.executors as executors

    monkeypatch.setattr(executors, "CONNECT_SECONDS", 1.0)
    with pytest.raises(ConfigError, match=r"no Dask scheduler answers there.*dask scheduler"):
        run_league(league, tmp_path / "a.db", cluster="tcp://127.0.0.1:9")
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if Dask were not installed
    with pytest.raises(ConfigError, match=r"pip install 'trix-arena\[cluster\]'"):
        run_league(league, tmp_path / "a.db", cluster="tcp://127.0.0.1:9")
