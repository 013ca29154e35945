"""The store's write transaction, in a module of its own: the schema's migrations, the
compaction they run and every writer take it, so none of them imports another for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import sqlite_utils


@contextmanager
def immediate(db: sqlite_utils.Database) -> Iterator[None]:
    """A write transaction that takes SQLite's write lock as it begins (waiting up to the
    busy timeout for another run to let go of it). A deferred transaction that reads
    first and writes later fails at once, with "database is locked" and no wait, when
    another connection wrote in between: two leagues run into one database would then
    stop each other. Writes inside it may nest `db.atomic()` (savepoints)."""
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.conn.rollback()
        raise
    db.conn.commit()
