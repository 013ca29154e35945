"""Where a league's matches are played: worker processes on this machine, or the
workers of a Dask cluster, behind one interface.

`arena run` (arena/league/running/runner.py) has one loop: it submits `MatchTask`s, waits for
`concurrent.futures` futures, checks and stores what comes back. The two executors
differ only in what they are: `LocalExecutor` is a `ProcessPoolExecutor` whose
workers share this machine's files; `ClusterExecutor` is Dask's own
`concurrent.futures` executor (`Client.get_executor`) over a scheduler started with
`dask scheduler`, whose workers may be anywhere, so the bots travel as archives and a
match can be kept away from a worker that failed it. Dask is imported only for a
cluster: it is the optional extra `trix-arena[cluster]`.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Collection, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any, Protocol

from arena.errors import ConfigError
from arena.league.workers.match_task import MatchTask, play_task
from arena.league.workers.worker import worker_init

INSTALL_HINT = "pip install 'trix-arena[cluster]'"
CONNECT_SECONDS = 10.0


class MatchExecutor(Protocol):
    """What the run loop needs of the place matches are played."""

    where: str  # for messages: "this machine", "the cluster at tcp://..."
    ships_bots: bool  # whether bots travel as archives (workers have other files)

    def slots(self) -> int:
        """How many matches to keep in flight now."""

    def workers(self) -> list[str]:
        """The names of the workers there are now."""

    def share(self, archives: Mapping[str, bytes]) -> Mapping[str, Any]:
        """The archives as tasks may be given them (sent once, whatever the tasks)."""

    def submit(
        self, task: MatchTask, archives: Mapping[str, Any], avoid: Collection[str]
    ) -> Future | None:
        """The future of `task` played on a worker not in `avoid`; None when there is none."""

    def stranded(self, futures: list[Future]) -> list[Future]:
        """Those of `futures` that wait for workers that are all gone."""

    def lost_worker(self, error: Exception) -> tuple[str, str] | None:
        """When `error`, raised by a future, means its worker died playing the match:
        what happened ("... match N" follows it) and a hint; None for any other error."""

    def stop(self) -> None:
        """Stop the matches being played now, at once (Ctrl-C, a fatal error)."""

    def close(self) -> None:
        """Let go of the workers (after `stop`, or once every future is done)."""


class LocalExecutor:
    """Worker processes on this machine, started by `spawn` (a clean interpreter each),
    which leave Ctrl-C to the main process and die with it (`worker_init`)."""

    where = "this machine"
    ships_bots = False

    def __init__(self, workers: int) -> None:
        self._workers = workers
        self._name = socket.gethostname()
        self._pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=get_context("spawn"),
            initializer=worker_init,
            initargs=(os.getpid(),),
        )

    def slots(self) -> int:
        return self._workers

    def workers(self) -> list[str]:
        return [f"{self._name} ({self._workers} processes)"]

    def share(self, archives: Mapping[str, bytes]) -> Mapping[str, Any]:
        return {}  # the workers read the bots' own folders

    def submit(
        self, task: MatchTask, archives: Mapping[str, Any], avoid: Collection[str]
    ) -> Future | None:
        if avoid:  # every worker here is this machine: there is no elsewhere
            return None
        return self._pool.submit(play_task, task)

    def stranded(self, futures: list[Future]) -> list[Future]:
        return []  # any worker here plays any match

    def lost_worker(self, error: Exception) -> tuple[str, str] | None:
        if isinstance(error, BrokenProcessPool):
            return (
                "a worker process died while playing",
                "a worker killed by the kernel, e.g. out of memory, dies this way",
            )
        return None

    def stop(self) -> None:
        """SIGTERM every worker: each ends its bots on the way out."""
        processes = list(getattr(self._pool, "_processes", {}).values())
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(timeout=10)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class ClusterExecutor:
    """The workers of a Dask cluster, through Dask's `concurrent.futures` executor."""

    ships_bots = True

    def __init__(self, address: str, source: str = "--cluster") -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ConfigError(
                f"{source} {address}: Dask is not installed here; install it with "
                f"{INSTALL_HINT} (docs/cluster.md)"
            ) from None
        from arena.league.workers.cluster_probe import probe

        security = probe(address, source)  # answers as Dask in time, or a ConfigError
        self.where = f"the cluster at {address}"
        try:
            self.client = Client(
                address, timeout=CONNECT_SECONDS, set_as_default=False, security=security
            )
        except (OSError, TimeoutError) as err:
            raise ConfigError(
                f"{source} {address}: no Dask scheduler answers there ({err}); start one "
                "with `dask scheduler` and workers with `dask worker ADDRESS` "
                "(docs/cluster.md)"
            ) from None
        except Exception as err:  # noqa: BLE001 - a peer that is not Dask, said as such
            raise ConfigError(
                f"{source} {address}: the scheduler's answer is not Dask's "
                f"({type(err).__name__}: {err}); give the address `dask scheduler` printed"
            ) from None
        from arena.league.workers.cluster_plugin import ArenaWorkerPlugin

        self.client.register_plugin(ArenaWorkerPlugin())  # idempotent: one per name
        self._executor = self.client.get_executor(pure=False)
        self._allowed: dict[Future, list[str]] = {}  # futures kept to some workers

    def _info(self) -> dict[str, Any]:
        return self.client.scheduler_info(n_workers=-1)["workers"]

    def slots(self) -> int:
        return max(1, sum(int(w.get("nthreads", 1)) for w in self._info().values()))

    def workers(self) -> list[str]:
        return sorted(self._info())

    def share(self, archives: Mapping[str, bytes]) -> Mapping[str, Any]:
        if not archives:
            return {}
        names = list(archives)
        # on every worker there is (one that joins later fetches from them): a worker
        # that dies takes no archive with it
        sent = self.client.scatter([archives[n] for n in names], hash=False, broadcast=True)
        return dict(zip(names, sent, strict=True))

    def submit(
        self, task: MatchTask, archives: Mapping[str, Any], avoid: Collection[str]
    ) -> Future | None:
        restrict: dict[str, Any] = {}
        if avoid:
            allowed = [w for w in self.workers() if w not in avoid]
            if not allowed:
                return None
            restrict = {"workers": allowed, "allow_other_workers": False}
        needed = {d: archives[d] for d in task.archives_needed()}
        future = self._executor.submit(play_task, task, needed, **restrict)
        if restrict:
            self._allowed[future] = restrict["workers"]
        return future

    def stranded(self, futures: list[Future]) -> list[Future]:
        """A match kept to some workers waits, in Dask, until one of them is back: when
        they have all left (a worker that restarts comes back at a new address), it
        must be given out again."""
        for future in [f for f in self._allowed if f.done()]:
            del self._allowed[future]
        now = set(self.workers())
        return [f for f in futures if f in self._allowed and not now & set(self._allowed[f])]

    def lost_worker(self, error: Exception) -> tuple[str, str] | None:
        from distributed import KilledWorker
        from distributed.comm import CommClosedError

        if isinstance(error, KilledWorker | CommClosedError):
            return (
                f"{self.where} could not play",
                "Dask gives a match up after it took several workers down with it",
            )
        return None

    def stop(self) -> None:
        """Cancel every match not yet played (one a worker is playing runs to its end
        there, and its result is dropped)."""
        self._executor.shutdown(wait=False)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._executor.shutdown(wait=False)
        self.client.close()


def open_executor(cluster: str | None, workers: int, source: str = "--cluster") -> MatchExecutor:
    """The cluster's executor when `cluster` names a scheduler, else `workers` local
    worker processes."""
    return ClusterExecutor(cluster, source) if cluster else LocalExecutor(workers)
