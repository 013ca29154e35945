"""A worker's match function that dies (SIGKILL, as the kernel kills a process out of
memory) on match 1: importable by name, so a spawned worker process can run it."""

from __future__ import annotations

import os
import signal
from typing import Any

from arena.league.worker import play_scheduled_match


def play_or_die(
    config: Any, match: Any, log_dir: str, db_path: str = "", lifecycle: str = "league"
) -> Any:
    if match.index == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return play_scheduled_match(config, match, log_dir, db_path, lifecycle)
