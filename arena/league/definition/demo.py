"""The demo league the arena ships, and the throw-away database `arena demo` plays it
into (removed again when the run fails or is interrupted, kept when it succeeds)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DEMO_LEAGUE = Path(__file__).resolve().parent / "demos" / "demo.toml"
"""A Trix league of the package's own bots, so an installed arena plays it from any
folder (the repository's leagues/demo.toml adds the JavaScript sample bot)."""


@contextmanager
def demo_database(db: Path | None = None) -> Iterator[Path]:
    """`db`, or a fresh database in a new temporary folder, which a failed or
    interrupted run removes."""
    if db is not None:
        yield db
        return
    folder = Path(tempfile.mkdtemp(prefix="arena-demo-"))
    try:
        yield folder / "demo.db"
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
