"""A one-match Trix league whose league and entrant names hold everything a web address
treats specially (`/`, `..`, `%`, `?`, `#`) and right-to-left text, played by
`arena run` into a database for the site's tests (issue 28, item 7)."""

from __future__ import annotations

from pathlib import Path

from arena.league.running.runner import run_league

LEAGUE = "spring/cup ..%?#"
ENTRANTS = ("team/alpha", "a../..b", "50% ?#x", "بوت عربي")

TEXT = """
[league]
name = {league}
game = "trix"
seed = 11
schedule = "round-robin"
rounds = 1

[rules]
kingdoms = 1

[[entrant]]
name = {e0}
bot = "builtin:greedy"

[[entrant]]
name = {e1}
bot = "builtin:random"

[[entrant]]
name = {e2}
bot = "builtin:first"

[[entrant]]
name = {e3}
bot = "builtin:random"
"""


def _toml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def build_hostile_db(folder: Path) -> Path:
    """`folder/names.db` with the league played whole (one match of four rotations)."""
    db = folder / "names.db"
    path = folder / "names.toml"
    names = {f"e{i}": _toml(name) for i, name in enumerate(ENTRANTS)}
    path.write_text(TEXT.format(league=_toml(LEAGUE), **names))
    run_league(path, db, workers=1)
    return db
