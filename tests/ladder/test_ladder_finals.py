"""`arena ladder finals`: the top K active versions in a league of their own, on fresh
deals with tau = 0, stored as a league whose table is the final result; it equals a
league of the same versions written by hand."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from tests.ladder.ladder_support import RANDOM_BOT, arena, bot_folder, ladder_file, ok

pytestmark = pytest.mark.slow

HOUSE = """
[[house]]
name = "first"
bot = "builtin:first"

[[house]]
name = "script"
bot = "python house/bot.py"
"""


def _games(db: Path, league: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT m.idx, m.entrants, g.rotation, g.players, g.totals FROM games g JOIN "
            "matches m ON g.match_id = m.id JOIN leagues l ON m.league_id = l.id "
            "WHERE l.name = ? ORDER BY m.idx, g.rotation",
            [league],
        ).fetchall()


def test_the_finals_are_a_league_of_the_top_versions(tmp_path: Path) -> None:
    bot_folder(tmp_path, "house", RANDOM_BOT.format(name="script"))
    ok("ladder", "init", str(ladder_file(tmp_path, extra=HOUSE)))
    db = tmp_path / "arena.db"
    ok("ladder", "run", "--db", str(db), "--workers", "1", "--matches", "3")
    ok("ladder", "freeze", "--db", str(db))
    code, out, err = arena("ladder", "finals", "--top", "4", "--matches", "5", "--db", str(db),
                           "--workers", "1")
    assert code == 0, out + err
    table = json.loads(ok("ladder", "table", "--db", str(db), "--format", "json"))
    top = [row["entrant"] for row in table[:4]]
    finals = tmp_path / "spring-finals.toml"
    text = finals.read_text()
    assert re.findall(r'^name = "(.*)"$', text, re.M)[1:] == top  # the top four, in order
    assert "tau = 0.0" in text and 'schedule = "round-robin"\nrounds = 5' in text
    final_table = json.loads(ok("table", "--db", str(db), "--league", "spring finals",
                                "--format", "json"))
    assert {row["name"] for row in final_table} == set(top)
    assert len(_games(db, "spring finals")) == 5 * 4
    seed = re.search(r'^seed = "(.*)"$', text, re.M).group(1)
    assert seed.startswith("s1/finals/")  # fresh deals: not the ladder's matches' seeds

    with sqlite3.connect(db) as conn:  # the same league by hand, from the same secret deals
        key = conn.execute("SELECT deal_key FROM leagues WHERE name = 'spring finals'").fetchone()
    by_hand = tmp_path / "by-hand.toml"
    by_hand.write_text(
        text.replace('name = "spring finals"', 'name = "by hand"').replace(
            "[league]", f'[league]\ndeal_key = "{key[0]}"'
        )
    )
    ok("run", str(by_hand), "--db", str(tmp_path / "other.db"), "--workers", "1")
    assert _games(tmp_path / "other.db", "by hand") == _games(db, "spring finals")
