"""Finding live processes from /proc, for tests that check no bot outlives its match;
and what a started bot sees of the environment."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.bots.confinement.sandbox import MAX_SLOTS, SLOT_UID_BASE, Sandbox
from arena.bots.process import MARKER_VARIABLE, BotProcess, descendants


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    uid: int
    cmdline: bytes
    environ: bytes

    def describe(self) -> str:
        command = self.cmdline.replace(b"\0", b" ").decode(errors="replace")[:200]
        return f"{self.pid} (parent {self.ppid}): {command}"


def live_processes() -> Iterator[Proc]:
    """Every live process but this one; zombies (dead, not yet reaped) are skipped."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        folder = Path("/proc", entry.name)
        try:
            stat = (folder / "stat").read_bytes().rsplit(b") ", 1)[1].split()
            status = (folder / "status").read_text()
            uid = int(next(x for x in status.splitlines() if x.startswith("Uid:")).split()[1])
            cmdline = (folder / "cmdline").read_bytes()
            environ = (folder / "environ").read_bytes()
        except (OSError, IndexError, StopIteration, ValueError):
            continue
        if stat[0] != b"Z":
            yield Proc(int(entry.name), int(stat[1]), uid, cmdline, environ)


def marked_processes(marker: str) -> list[Proc]:
    """Live processes whose command line or environment holds `marker`."""
    token = marker.encode()
    return [p for p in live_processes() if token in p.cmdline or token in p.environ]


def bot_processes(uids: set[int] | None = None, before: frozenset[int] = frozenset()) -> list[int]:
    """Live processes of started bots.

    With `uids` (the slot users of the bots a test started in this process): the
    processes of those users and every descendant of this process but those in
    `before` (taken before the bots started: a multiprocessing helper, say), so that
    tests running elsewhere on the machine at the same time do not count. Without: every
    process of any slot user or carrying a started bot's marker, machine-wide (for
    tests that killed the arena that started the bots)."""
    if uids is not None:
        mine = descendants(os.getpid()) - before
        return [
            p.pid
            for p in live_processes()
            if (p.uid in uids and p.uid >= SLOT_UID_BASE) or p.pid in mine
        ]
    marker = MARKER_VARIABLE.encode() + b"="
    return [
        p.pid
        for p in live_processes()
        if SLOT_UID_BASE <= p.uid < SLOT_UID_BASE + MAX_SLOTS or marker in p.environ
    ]


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


def variable_seen_by_a_started_bot(name: str, folder: Path, sandboxed: bool) -> list[str]:
    """What a bot the referee starts (in the sandbox, or not) finds in environment
    variable `name`: ["seen", value], or ["seen", "None"] when it is not set."""
    log = folder / "bot.log"
    script = f"import os; print('seen', os.environ.get({name!r}), flush=True)"
    bot = BotProcess(
        [sys.executable, "-c", script], log, cwd=folder, sandbox=Sandbox() if sandboxed else None
    )
    try:
        bot.start()
        bot.wait_exit(30)
    finally:
        bot.close()
    return log.read_text().split()
