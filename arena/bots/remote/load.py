"""Whether the machine, not the bot, made a decision late.

A bot that times out while other processes hold the cores was not slow: it was not let
to run. So around every decision the referee reads two of the kernel's counters, each
one `pread` of a file it keeps open:

- `/proc/pressure/cpu`, the `some` line's `total`: microseconds in which at least one
  runnable task of the machine waited for a core (pressure stall information);
- `/proc/thread-self/schedstat`, the referee thread's own time waiting for a core.

and the bot's CPU time (its cgroup's). A timeout is put down to overload when, over the
decision, runnable tasks waited for at least half its wall time and the bot got less
than half of the CPU time it could have used, or when the referee itself waited for a
core a quarter of the time (`judge`); never when the bot's own CPU quota held it back
(its cgroup's throttled time grew): then the bot, not the machine, used up its time.
Where the kernel has neither file, nothing is ever put down to overload.
"""

from __future__ import annotations

import os
import threading
from typing import NamedTuple

PRESSURE = "/proc/pressure/cpu"
STALL_SHARE = 0.5  # runnable tasks waited at least this share of the decision's time
BOT_SHARE = 0.5  # while the bot ran less than this share of the CPU it may use
REFEREE_SHARE = 0.25  # or the referee itself waited this share for a core

_local = threading.local()


def _read(path: str) -> bytes:
    """The file's text, from a descriptor kept open per thread (schedstat is per thread)."""
    fds: dict[str, int] = _local.__dict__.setdefault("fds", {})
    fd = fds.get(path)
    if fd is None:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        fds[path] = fd
    return os.pread(fd, 512, 0)


def stall_seconds() -> float | None:
    """The machine's CPU stall total (`some`), in seconds; None without PSI."""
    try:
        first = _read(PRESSURE).split(b"\n", 1)[0]
        return int(first.rsplit(b"total=", 1)[1]) / 1e6
    except (OSError, IndexError, ValueError):
        return None


def referee_wait_seconds() -> float | None:
    """How long this thread has waited for a core, in all; None where not kept."""
    try:
        return int(_read("/proc/thread-self/schedstat").split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


class Marks(NamedTuple):
    """The counters at a decision's start (a named tuple: made before every decision,
    and a frozen dataclass costs a microsecond more to make)."""

    stall: float | None
    referee_wait: float | None
    bot_cpu: float | None
    bot_throttled: float | None = None  # time its own quota held it back (cgroup)

    @staticmethod
    def now(bot_cpu: float | None, bot_throttled: float | None = None) -> Marks:
        return Marks(stall_seconds(), referee_wait_seconds(), bot_cpu, bot_throttled)


def judge(start: Marks, end: Marks, wall: float, cpus: float) -> str:
    """Why the decision that took `wall` seconds was late through no fault of the bot
    (words for its fault), or "" when it was the bot's own doing. `cpus`: the CPU
    time per second the bot may use (its quota)."""
    if wall <= 0:
        return ""
    if start.bot_throttled is not None and end.bot_throttled is not None:
        if end.bot_throttled - start.bot_throttled > 0:  # its own quota held it back
            return ""
    if start.referee_wait is not None and end.referee_wait is not None:
        waited = end.referee_wait - start.referee_wait
        if waited >= REFEREE_SHARE * wall:
            return f"the referee itself waited {waited:.3f} s of {wall:.3f} s for a core"
    if start.stall is None or end.stall is None:
        return ""
    stalled = end.stall - start.stall
    used = None
    if start.bot_cpu is not None and end.bot_cpu is not None:
        used = end.bot_cpu - start.bot_cpu
    if stalled >= STALL_SHARE * wall and (used is None or used < BOT_SHARE * cpus * wall):
        got = f", the bot ran {used:.3f} s" if used is not None else ""
        return f"runnable tasks waited for a core {stalled:.3f} s of {wall:.3f} s{got}"
    return ""
