"""Margins with confidence in the table, and `arena compare`, on a small stored league."""

from __future__ import annotations

import json
import sqlite3

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.league.running.runner import run_league
from arena.league.standings.stats import mean_interval

LEAGUE = """
[league]
name = "m"
game = "trix"
seed = 3
rounds = 3
deal_key = "5eed0123456789abcdef0123456789ab"

[rules]
kingdoms = 1

[[entrant]]
name = "first"
bot = "builtin:first"

[[entrant]]
name = "r1"
bot = "builtin:random"

[[entrant]]
name = "r2"
bot = "builtin:random"

[[entrant]]
name = "r3"
bot = "builtin:random"
"""


@pytest.fixture(scope="module")
def db_path(tmp_path_factory):
    folder = tmp_path_factory.mktemp("margins")
    (folder / "m.toml").write_text(LEAGUE)
    run_league(folder / "m.toml", folder / "m.db", workers=1)
    return folder / "m.db"


def _match_totals(db_path) -> dict[int, dict[str, int]]:
    """Each match's totals per entrant, straight from the results table."""
    con = sqlite3.connect(db_path)
    rows = con.execute("SELECT match_id, entrant, SUM(total) FROM results GROUP BY 1, 2")
    out: dict[int, dict[str, int]] = {}
    for match_id, entrant, total in rows:
        out.setdefault(match_id, {})[entrant] = total
    con.close()
    return out


def test_table_margin_interval_is_over_one_sample_per_match(db_path) -> None:
    result = CliRunner().invoke(app, ["table", "--db", str(db_path), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    matches = _match_totals(db_path)
    assert len(matches) == 3
    assert set(rows) == {"first", "r1", "r2", "r3"}
    for name, row in rows.items():
        samples = [(t[name] - (sum(t.values()) - t[name]) / 3) / 4 for t in matches.values()]
        expected = mean_interval(samples)
        assert row["duplicate_margin"] == pytest.approx(expected.mean, abs=0.01)
        assert row["duplicate_margin_ci"] == pytest.approx([expected.low, expected.high], abs=0.01)
        low, high = row["duplicate_margin_ci"]
        assert low <= row["duplicate_margin"] <= high
    text = CliRunner().invoke(app, ["table", "--db", str(db_path)])
    assert "95% CI" in text.output


def test_compare_gives_the_head_to_head_margin_and_its_interval(db_path) -> None:
    result = CliRunner().invoke(
        app, ["compare", "first", "r1", "--db", str(db_path), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    samples = [(t["first"] - t["r1"]) / 4 for t in _match_totals(db_path).values()]
    expected = mean_interval(samples)
    assert data["matches"] == 3
    assert data["margin"] == pytest.approx(expected.mean, abs=0.01)
    assert data["margin_ci"] == pytest.approx([expected.low, expected.high], abs=0.01)
    back = json.loads(
        CliRunner()
        .invoke(app, ["compare", "r1", "first", "--db", str(db_path), "--format", "json"])
        .output
    )
    assert back["margin"] == pytest.approx(-data["margin"], abs=0.01)
    text = CliRunner().invoke(app, ["compare", "first", "r1", "--db", str(db_path)])
    assert "3 matches" in text.output


def test_compare_names_the_entrants_when_one_is_unknown(db_path) -> None:
    result = CliRunner().invoke(app, ["compare", "first", "nobody", "--db", str(db_path)])
    assert result.exit_code != 0
    assert "nobody" in result.output and "r2" in result.output


def test_table_ratings_are_the_stored_ones_and_equal_a_recomputation(db_path, tmp_path) -> None:
    import shutil

    from arena.league.reports.table import league_rows
    from arena.league.store import open_db

    copy = tmp_path / "copy.db"
    shutil.copy(db_path, copy)
    db = open_db(copy)
    stored = {r["name"]: (r["mu"], r["sigma"]) for r in league_rows(db, 1)}
    db.execute("DELETE FROM ratings WHERE match_idx = (SELECT MAX(match_idx) FROM ratings)")
    db.conn.commit()  # the last match's updates are missing: the table recomputes
    recomputed = {r["name"]: (r["mu"], r["sigma"]) for r in league_rows(db, 1)}
    db.close()
    assert stored == recomputed
    # The league did move the ratings away from the prior (mu 25, sigma 25/3), and
    # apart: a table of untouched ratings would equal any recomputation. (Fed by
    # margin, one table's mus keep their sum, so an entrant whose margins sum to zero
    # keeps mu 25; every sigma still shrinks.)
    assert set(stored) == {"first", "r1", "r2", "r3"}
    assert all(sigma < 25 / 3 for _, sigma in stored.values())
    assert any(mu != 25 for mu, _ in stored.values())
    assert len(set(stored.values())) == 4
