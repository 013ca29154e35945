"""The event loop on which a thread's gRPC calls to bots run.

The referee talks to bots with grpc.aio: a game's round trips then run on one event
loop in the referee's own thread, where the thread-based gRPC client hands every
message to a helper thread and back (measured on this project's 2-core machine: about
75 us less CPU and 70 us less wall time per decision). A grpc.aio channel belongs to
the loop it was made on, so each thread keeps one loop for its whole life, and every
call into a bot goes through `run`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_local = threading.local()


def thread_loop() -> asyncio.AbstractEventLoop:
    """This thread's loop, made on first use and kept open (its channels outlive a call)."""
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
    if loop is None or loop.is_closed():
        loop = _local.loop = asyncio.new_event_loop()
    return loop


def run(work: Coroutine[Any, Any, T]) -> T:
    """Run `work` to its end on this thread's loop (from plain, non-async code)."""
    return thread_loop().run_until_complete(work)


def loop_busy() -> bool:
    """Whether this thread's loop is running now: `run` cannot be entered again then."""
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
    return loop is not None and loop.is_running()
