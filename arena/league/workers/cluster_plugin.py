"""The arena's Dask worker plugin: a cluster worker ends its bots when it ends.

A worker keeps a league's bots between matches (arena/league/workers/worker.py), frozen while
other games are played. Dask ends a worker by closing it (then the plugin's `teardown`
ends the bots) or, when closing takes too long, by SIGTERM to its process (then the
handler installed in `setup` kills the bots and everything below the worker, as a
local worker does, arena/league/workers/worker.py `kill_bots_and_exit`). Registered by
`arena run --cluster` on every worker there is and every worker that joins later.
Imports Dask: only a cluster run loads this module.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from arena.league.workers.match_task import end_worker_bots
from arena.league.workers.worker import kill_bots_and_exit

PLUGIN_NAME = "trix-arena"


class ArenaWorkerPlugin(WorkerPlugin):
    """Ends the worker's bots with the worker."""

    name = PLUGIN_NAME

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():
            with contextlib.suppress(ValueError):
                signal.signal(signal.SIGTERM, lambda *_: kill_bots_and_exit())

    def teardown(self, worker: Any) -> None:
        end_worker_bots()
