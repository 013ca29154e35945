"""Dask clusters on loopback for the cluster tests: a scheduler and workers started with
Dask's own commands, each ended by the test that started it, and the comparison of two
league databases (what a cluster run stored against what a local run stored)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from arena.league.store.replay_codec import unpack_replay

DASK = str(Path(sys.executable).with_name("dask"))
START_SECONDS = 60.0  # a scheduler or worker not up by then has failed


def dask_missing() -> str | None:
    """How to install Dask when it is missing (the tests fail saying it, never skip)."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return "Dask is not installed: `make test` installs it (pip install -e '.[test]')"
    return None


@dataclass
class DaskProcesses:
    """The scheduler and workers one test started; `close` ends every one of them."""

    folder: Path
    address: str = ""
    processes: list[subprocess.Popen] = field(default_factory=list)

    def start_scheduler(self) -> str:
        scheduler_file = self.folder / "scheduler.json"
        self._start(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(scheduler_file)],
            "scheduler",
        )  # fmt: skip
        deadline = time.monotonic() + START_SECONDS
        while not scheduler_file.exists() or not scheduler_file.read_text().strip():
            if time.monotonic() > deadline or self.processes[0].poll() is not None:
                raise AssertionError(f"dask scheduler did not start: {self._log('scheduler')}")
            time.sleep(0.1)
        self.address = json.loads(scheduler_file.read_text())["address"]
        return self.address

    def start_worker(self, name: str, env: dict[str, str] | None = None,
                     preload: Path | None = None) -> None:  # fmt: skip
        """`dask worker` named `name`, one process of one thread, and wait until the
        scheduler has it."""
        argv = [DASK, "worker", self.address, "--name", name, "--nthreads", "1",
                "--nworkers", "1", "--host", "127.0.0.1", "--no-dashboard",
                "--local-directory", str(self.folder / f"dask-{name}")]  # fmt: skip
        if preload is not None:
            argv += ["--preload", str(preload)]
        self._start(argv, name, env)
        self.wait_for(name)

    def wait_for(self, name: str) -> None:
        deadline = time.monotonic() + START_SECONDS
        while name not in self.worker_addresses():
            if time.monotonic() > deadline:
                raise AssertionError(f"dask worker {name} did not join: {self._log(name)}")
            time.sleep(0.2)

    def worker_addresses(self) -> dict[str, str]:
        """Worker name -> address, as the scheduler knows them now."""
        from distributed import Client

        with Client(self.address, timeout=10, set_as_default=False) as client:
            info = client.scheduler_info(n_workers=-1)["workers"]
        return {w["name"]: address for address, w in info.items()}

    def _start(self, argv: list[str], name: str, env: dict[str, str] | None = None) -> None:
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 (kept by the process)
        self.processes.append(
            subprocess.Popen(
                argv,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env or dict(os.environ),
                start_new_session=True,
            )  # fmt: skip
        )
        log.close()

    def _log(self, name: str) -> str:
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else "(no log)"

    def close(self) -> None:
        """End every process started, workers first, and whatever they started."""
        for process in reversed(self.processes):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


@contextlib.contextmanager
def dask_processes(folder: Path) -> Iterator[DaskProcesses]:
    problem = dask_missing()
    if problem:
        raise AssertionError(problem)
    folder.mkdir(parents=True, exist_ok=True)
    started = DaskProcesses(folder)
    try:
        yield started
    finally:
        started.close()
        no_process_below(folder.parent)


def no_process_below(folder: Path) -> None:
    """Fail when a process started from `folder` (a bot of a worker, a worker) is left
    once its scheduler and workers were ended (waiting a little for sandboxes to end),
    saying what each one's parent is doing."""
    from tests.support.bot_processes import live_processes

    for _ in range(100):
        left = [p for p in live_processes() if str(folder).encode() in p.cmdline]
        if not left:
            return
        time.sleep(0.1)
    raise AssertionError(f"processes left: {[(p.describe()[:60], _state(p.ppid)) for p in left]}")


def _state(pid: int) -> str:
    """A process's state and what its threads wait in (a frozen bot: `__refrigerator`)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
        tasks = os.listdir(f"/proc/{pid}/task")
        wchans = [Path(f"/proc/{pid}/task/{t}/wchan").read_text() for t in tasks]
        return f"{status[0]} {status[2]} threads {len(tasks)} {wchans}"
    except OSError:
        return "gone"


def played_locally(league: Path, folder: Path) -> Path:
    """The database of `league` played by one worker process here, as `--workers 1`
    plays it: what a cluster run must store too."""
    from arena.league.running.runner import run_league

    db = folder / "local.db"
    run_league(league, db, workers=1)
    return db


def stored_games(db: Path) -> list[tuple]:
    """Every stored game as the table and ratings read it, and its replay without the
    think times (timings are the machine's, not the game's)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT m.idx, g.id, g.rotation, g.players, g.totals, g.ranks, g.decisions, g.replay"
            " FROM games g JOIN matches m ON g.match_id = m.id ORDER BY g.id"
        ).fetchall()
    out = []
    for *head, replay in rows:
        doc = unpack_replay(replay)
        doc.pop("think", None)
        for fault in doc["faults"]:
            fault.pop("log", None)  # where the bot's log is: a folder of the worker's
        out.append((*head, json.dumps(doc, sort_keys=True)))
    return out


def stored_ratings(db: Path) -> list[tuple]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return conn.execute(
            "SELECT match_idx, step, entrant, mu, sigma FROM ratings ORDER BY step, entrant"
        ).fetchall()


def match_workers(db: Path) -> dict[int, str]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return dict(conn.execute("SELECT idx, worker FROM matches ORDER BY idx").fetchall())
