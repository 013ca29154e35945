"""A worker's task function that dies (SIGKILL, as the kernel kills a process out of
memory) on match 1: importable by name, so a spawned worker process can run it."""

from __future__ import annotations

import os
import signal
from typing import Any

from arena.league.workers.match_task import play_task


def play_or_die(task: Any, archives: Any = None) -> Any:
    if task.match.index == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return play_task(task, archives)


def play_or_die_once(task: Any, archives: Any = None) -> Any:
    """Dies on match 1 the first time only: the file named by ARENA_TEST_DIED is made
    as it dies, and a match played again finds it."""
    marker = os.environ.get("ARENA_TEST_DIED", "")
    if task.match.index == 1 and marker and not os.path.exists(marker):
        open(marker, "w").close()  # noqa: SIM115 (made, not written)
        os.kill(os.getpid(), signal.SIGKILL)
    return play_task(task, archives)
