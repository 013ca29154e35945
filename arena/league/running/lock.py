"""One run per league at a time: a lock that a killed run does not leave stuck.

`arena run` holds an exclusive `flock` on a small file beside the database, one per
league (`arena.db.LEAGUE.lock`), for as long as it runs. The kernel releases the lock
when the process ends, however it ends (kill -9 included), so there is nothing to
clean up; the file only says who holds the lock, for the refusal's message. Two
different leagues in one database have two locks and run side by side (SQLite's busy
timeout serialises their writes).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from arena.bots.spec import slug
from arena.errors import ConfigError, LeagueLocked


def lock_path(db_path: Path, league: str) -> Path:
    return db_path.with_name(f"{db_path.name}.{slug(league, 'league', limit=120)}.lock")


@contextlib.contextmanager
def league_lock(db_path: Path, league: str) -> Iterator[None]:
    """Hold the league's lock; LeagueLocked naming the process that holds it otherwise
    (ConfigError when the lock file cannot be made next to the database)."""
    path = lock_path(db_path, league)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as err:
        raise ConfigError(f"cannot make the lock file {path} of league {league!r}: {err}") from None
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(handle, 200, 0).decode(errors="replace").split()
            pid, since = (holder + ["?", "?"])[:2]
            raise LeagueLocked(
                f"league {league!r} is being run by process {pid} since {since} (lock "
                f"{path}); wait for it to end, or stop it, before running the league again"
            ) from None
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        os.ftruncate(handle, 0)
        os.pwrite(handle, f"{os.getpid()} {stamp}\n".encode(), 0)
        yield
    finally:
        os.close(handle)  # closing the file releases the lock
