"""The event loops on which the arena's gRPC calls run: the referee's and a bot's.

The referee talks to bots with grpc.aio: a game's round trips then run on one event
loop in the referee's own thread, where the thread-based gRPC client hands every
message to a helper thread and back (measured on this project's 2-core machine: about
75 us less CPU and 70 us less wall time per decision). A grpc.aio channel belongs to
the loop it was made on, so each thread keeps one loop for its whole life, and every
call into a bot goes through `run`.

Both the referee's loops and the SDK's (a Python bot's server) are uvloop's, when it is
installed (it is a dependency on Linux and macOS): a decision wakes each side's loop
twice, and uvloop's loop in C costs less per wake-up than asyncio's in Python. Measured
here with four random bots, alternating runs: 352-393 us a decision against 401-460,
with 30-35 us less CPU per decision on each side. `ARENA_EVENT_LOOP=asyncio` runs on
asyncio's own loop instead (bots the referee starts inherit the setting).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

VARIABLE = "ARENA_EVENT_LOOP"  # "uvloop" (the default, when installed) or "asyncio"

_local = threading.local()


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop]:
    """What makes a new event loop here: uvloop's, unless it is missing or
    ARENA_EVENT_LOOP says "asyncio"."""
    if os.environ.get(VARIABLE, "uvloop").strip().lower() != "asyncio":
        try:
            import uvloop
        except ImportError:
            pass
        else:
            return uvloop.new_event_loop
    return asyncio.new_event_loop


def run_main(work: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(work)` on a loop from `loop_factory` (a bot's or a server's main)."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(work)


def thread_loop() -> asyncio.AbstractEventLoop:
    """This thread's loop, made on first use and kept open (its channels outlive a call)."""
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
    if loop is None or loop.is_closed():
        loop = _local.loop = loop_factory()()
    return loop


def run(work: Coroutine[Any, Any, T]) -> T:
    """Run `work` to its end on this thread's loop (from plain, non-async code)."""
    return thread_loop().run_until_complete(work)


def loop_busy() -> bool:
    """Whether this thread's loop is running now: `run` cannot be entered again then."""
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
    return loop is not None and loop.is_running()
