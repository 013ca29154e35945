"""A small real league database for the site's tests: a Trix league (one entrant
that faults at every decision, so there are faults to show) and a Trianon league,
played by `arena run` into one database."""

from __future__ import annotations

from pathlib import Path

from arena.league.runner import run_league

HOSTILE = Path(__file__).resolve().parent / "hostile"

TRIX = """
[league]
name = "trix-site"
game = "trix"
seed = 5
deal_key = "0123456789abcdef0123456789abcdef"
schedule = "round-robin"
rounds = 1

[rules]
kingdoms = 1

[limits]
move_timeout = 2.0
max_faults = 3

[[entrant]]
name = "greedy"
bot = "builtin:greedy"

[[entrant]]
name = "random"
bot = "builtin:random"

[[entrant]]
name = "first"
bot = "builtin:first"

[[entrant]]
name = "random-2"
bot = "builtin:random"

[[entrant]]
name = "illegal"
bot = "python {hostile}/illegal_bot.py"
"""

TRIANON = """
[league]
name = "trianon-site"
game = "trianon"
seed = 6
deal_key = "fedcba9876543210fedcba9876543210"
schedule = "round-robin"
rounds = 1
rate_by = "match"

[rules]
target = 150

[[entrant]]
name = "greedy"
bot = "builtin:greedy"

[[entrant]]
name = "random"
bot = "builtin:random"

[[entrant]]
name = "first"
bot = "builtin:first"
"""


def build_site_db(folder: Path) -> Path:
    """`folder/site.db` with both leagues played whole."""
    db = folder / "site.db"
    for name, text in (("trix", TRIX.format(hostile=HOSTILE)), ("trianon", TRIANON)):
        path = folder / f"{name}.toml"
        path.write_text(text)
        run_league(path, db, workers=1)
    return db
