"""A league of four built-in bots, one match of one kingdom: stored in about a second,
for the tests that need a real league database to refuse, damage or report."""

from __future__ import annotations

import hashlib
from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app

TINY = """\
[league]
name = "{name}"
game = "trix"
seed = 3
schedule = "round-robin"
{rounds}
{extra}
[rules]
kingdoms = 1
[[entrant]]
name = "a"
bot = "builtin:random"
[[entrant]]
name = "b"
bot = "builtin:first"
[[entrant]]
name = "c"
bot = "builtin:random"
[[entrant]]
name = "d"
bot = "builtin:first"
"""


def tiny_file(folder: Path, name: str = "tiny", extra: str = "") -> Path:
    """Write the tiny league's file into `folder`; `extra` lines go into [league]."""
    path = folder / f"{name}.toml"
    rounds = "" if "rounds" in extra else "rounds = 1"
    path.write_text(TINY.format(name=name, extra=extra, rounds=rounds))
    return path


def tiny_db(folder: Path) -> Path:
    """A league database holding the tiny league, played and stored."""
    db = folder / "arena.db"
    result = CliRunner().invoke(app, ["run", str(tiny_file(folder)), "--db", str(db)])
    assert result.exit_code == 0, result.output
    return db


def digest(path: Path) -> str:
    """The SHA-256 of a file (and of its -wal file, when there is one)."""
    h = hashlib.sha256(path.read_bytes())
    wal = path.with_name(path.name + "-wal")
    if wal.exists():
        h.update(wal.read_bytes())
    return h.hexdigest()
