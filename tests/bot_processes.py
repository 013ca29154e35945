"""Finding the processes of started bots from /proc, for tests that check none is left."""

from __future__ import annotations

import os
import time
from pathlib import Path

from arena.bots.process import MARKER_VARIABLE
from arena.bots.sandbox import MAX_SLOTS, SLOT_UID_BASE


def bot_processes() -> list[int]:
    """Every live process run by a sandbox slot's user or carrying a started bot's
    marker in its environment (the sandbox passes it on); zombies hold nothing."""
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
        slot_user = SLOT_UID_BASE <= uid < SLOT_UID_BASE + MAX_SLOTS
        if slot_user or MARKER_VARIABLE.encode() + b"=" in environ:
            found.append(int(entry.name))
    return found


def bot_processes_left() -> list[int]:
    """`bot_processes()` after a bounded wait for the kernel to finish the kills."""
    left = bot_processes()
    for _ in range(100):
        if not left:
            break
        time.sleep(0.05)
        left = bot_processes()
    return left
