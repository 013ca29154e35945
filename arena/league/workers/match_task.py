"""One match as a self-contained piece of work, for a worker here or on another machine.

A `MatchTask` holds everything playing the match needs: the parsed league (its deal
key included), the scheduled match, where the bots' logs go, and, for a cluster, the
bots shipped as archives (arena/league/workers/bot_archives.py). `play_task` runs in the
worker, wherever it is, and returns the `PlayedMatch` with the worker's name on it; the
main process checks it (arena/league/running/result_check.py) before storing it. Nothing here
imports Dask: a local worker process runs the same function.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import os
import socket
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arena.bots.confinement.cgroups import sweep_stale
from arena.errors import ArenaError
from arena.league.definition.config import LeagueConfig
from arena.league.definition.records import PlayedMatch
from arena.league.definition.schedule import ScheduledMatch
from arena.league.workers.bot_archives import ShippedBot, cache_root, unpacked, worker_folder
from arena.league.workers.worker import Lifecycle, close_worker_pool, play_scheduled_match
from arena.play.faults import FaultKind

LOG_VARIABLE = "ARENA_WORKER_LOGS"  # where a cluster worker keeps its bots' logs


@dataclass(frozen=True)
class MatchTask:
    """One match to play, and what the worker needs to play it."""

    config: LeagueConfig
    match: ScheduledMatch
    log_dir: str  # the run's log folder on the main machine
    db_path: str = ""  # the league's database, hidden from bots (and the live file's)
    lifecycle: Lifecycle = Lifecycle.LEAGUE
    shipped: Mapping[str, ShippedBot] = field(default_factory=dict)  # by entrant
    # Entrants that started in the main process's pre-flight check: one that cannot
    # start in this worker is the worker's fault (a runtime missing there), not the bot's.
    must_start: frozenset[str] = frozenset()
    # The worker may be on another machine (a cluster): the bots' logs go to a folder of
    # its own, bots start in its cache when the league's folder is not there, and no
    # live file is written (it belongs beside the database, on the main machine).
    elsewhere: bool = False

    def archives_needed(self) -> set[str]:
        """The hashes of the archives this match's bots come from."""
        return {
            self.shipped[name].digest for name in self.match.entrants if name in self.shipped
        }


class BotCannotStart(ArenaError):
    """A bot that started on the main machine could not start on this worker."""

    def __init__(self, worker: str, entrant: str, detail: str) -> None:
        super().__init__(worker, entrant, detail)
        self.worker, self.entrant, self.detail = worker, entrant, detail

    def __str__(self) -> str:
        return f"worker {self.worker} cannot start {self.entrant!r}: {self.detail}"


def worker_name() -> str:
    """The Dask worker's address when this runs in one, else this machine and process."""
    if sys.modules.get("distributed") is not None:
        from distributed import get_worker

        try:
            return get_worker().address
        except ValueError:  # not in a worker: the main process, or a local worker
            pass
    return f"{socket.gethostname()} pid {os.getpid()}"


def play_task(task: MatchTask, archives: Mapping[str, bytes] | None = None) -> PlayedMatch:
    """Play `task`'s match here and return it, named by this worker. `archives` holds
    the shipped bots' archives by hash (a cluster sends each to a worker once).
    BotCannotStart when a bot of `must_start` could not be started here."""
    name = worker_name()
    config = _here(task, archives or {})
    log_dir = str(_worker_logs(task.log_dir)) if task.elsewhere else task.log_dir
    played = _run_serially(
        functools.partial(
            play_scheduled_match,
            config,
            task.match,
            log_dir,
            db_path=task.db_path,
            lifecycle=task.lifecycle,
            live_file=not task.elsewhere,
        )
    )
    for game in played.games:
        for fault in game.faults():
            if fault.kind == FaultKind.START_FAILURE and fault.entrant in task.must_start:
                raise BotCannotStart(name, fault.entrant, fault.record["detail"])
    return dataclasses.replace(played, worker=name)


def _here(task: MatchTask, archives: Mapping[str, bytes]) -> LeagueConfig:
    """The league as this worker plays it: each shipped bot started from its archive
    unpacked here, and the league's folder this machine's cache when the main
    machine's is not here (bots start in it; a shipped bot names its files in full)."""
    config = task.config
    if not task.elsewhere:
        return config
    root = cache_root()
    folders = {
        digest: unpacked(digest, archives[digest], root) for digest in task.archives_needed()
    }
    entrants = []
    for entrant in config.entrants:
        bot = task.shipped.get(entrant.name)
        if bot is not None and bot.digest in folders:
            entrant = dataclasses.replace(entrant, bot=bot.spec_in(folders[bot.digest]))
        entrants.append(entrant)
    config = dataclasses.replace(config, entrants=tuple(entrants))
    if not config.base_dir.is_dir():
        config = dataclasses.replace(config, path=root / config.path.name)
    return config


def _worker_logs(main_log_dir: str) -> Path:
    """A cluster worker's folder for the run's bot logs: the run's folder name, below
    ARENA_WORKER_LOGS (or the temporary folder), since the main machine's is not here."""
    main = Path(main_log_dir)
    return worker_folder(LOG_VARIABLE, "logs") / main.parent.name / main.name


_match_thread: concurrent.futures.ThreadPoolExecutor | None = None
_match_thread_lock = threading.Lock()


def _run_serially(fn: Callable[[], PlayedMatch]) -> PlayedMatch:
    """`fn()` on this process's one match thread, when this is a Dask worker
    (whose tasks run on threads that come and go); in the thread itself otherwise.

    A worker keeps its bots for the league (arena/league/workers/worker.py), and a bot's
    sandbox ends with the thread that started it (bubblewrap's --die-with-parent is
    the kernel's parent-death signal, which follows the thread): one long-lived thread
    starts and plays them all, one match at a time per process."""
    global _match_thread
    if sys.modules.get("distributed") is None:
        return fn()
    sweep_stale()  # the frozen bots of a worker of this machine that was killed
    with _match_thread_lock:
        if _match_thread is None:
            _match_thread = concurrent.futures.ThreadPoolExecutor(1, "arena-match")
    return _match_thread.submit(fn).result()


def end_worker_bots() -> None:
    """End the bots this worker keeps, on the thread that started them (their gRPC
    channels belong to its event loop): a cluster worker's end (arena/league/
    cluster_plugin.py)."""
    with _match_thread_lock:
        thread = _match_thread
    if thread is None:
        close_worker_pool()
        return
    thread.submit(close_worker_pool).result()
