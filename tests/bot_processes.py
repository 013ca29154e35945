"""Finding the processes of started bots from /proc, for tests that check none is left."""

from __future__ import annotations

import os
import time
from pathlib import Path

from arena.bots.process import MARKER_VARIABLE, descendants
from arena.bots.sandbox import MAX_SLOTS, SLOT_UID_BASE


def bot_processes(uids: set[int] | None = None, before: frozenset[int] = frozenset()) -> list[int]:
    """Live processes of started bots; zombies hold nothing.

    With `uids` (the slot users of the bots a test started in this process): the
    processes of those users and every descendant of this process but those in
    `before` (taken before the bots started: a multiprocessing helper, say), so that
    tests running elsewhere on the machine at the same time do not count. Without: every
    process of any slot user or carrying a started bot's marker, machine-wide (for
    tests that killed the arena that started the bots)."""
    mine = descendants(os.getpid()) - before if uids is not None else set()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            status = Path(f"/proc/{entry.name}/status").read_text()
            uid = int(next(x for x in status.splitlines() if x.startswith("Uid:")).split()[1])
            environ = Path(f"/proc/{entry.name}/environ").read_bytes()
        except (OSError, StopIteration, ValueError):
            continue
        if "State:\tZ" in status:
            continue
        if uids is not None:
            if (uid in uids and uid >= SLOT_UID_BASE) or int(entry.name) in mine:
                found.append(int(entry.name))
            continue
        slot_user = SLOT_UID_BASE <= uid < SLOT_UID_BASE + MAX_SLOTS
        if slot_user or MARKER_VARIABLE.encode() + b"=" in environ:
            found.append(int(entry.name))
    return found


def bot_processes_left(
    uids: set[int] | None = None, before: frozenset[int] = frozenset()
) -> list[int]:
    """`bot_processes` after a bounded wait for the kernel to finish the kills."""
    left = bot_processes(uids, before)
    for _ in range(200):
        if not left:
            break
        time.sleep(0.05)
        left = bot_processes(uids, before)
    return left
