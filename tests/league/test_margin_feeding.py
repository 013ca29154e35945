"""TrueSkill fed by duplicate margin (rate_by = "margin", the default) on constructed
leagues, and re-rating a database rated by an older feeding (`arena upgrade --rerate`)."""

from __future__ import annotations

import json
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from arena.cli import app
from arena.league.definition.config import RATE_BY, RATE_BY_DEFAULT, Ratings
from arena.league.running.runner import run_league
from arena.league.standings.ratings import GameOutcome, MatchOutcome, Rater, rate_prefix
from arena.league.standings.separation import place_order
from arena.league.standings.stats import match_margins

NAMES = ["a", "b", "c", "d"]


def _match(idx: int, totals: list[int], faults: list[int] = (0, 0, 0, 0)) -> MatchOutcome:
    return MatchOutcome(
        idx,
        list(NAMES),
        [GameOutcome(0, dict(zip(NAMES, totals, strict=True)),
                     dict(zip(NAMES, faults, strict=True)), [])],
    )  # fmt: skip


def test_margin_is_the_default_feeding() -> None:
    assert RATE_BY_DEFAULT == "margin" and "margin" in RATE_BY


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(-400, 400), min_size=4, max_size=4), min_size=1, max_size=30))
def test_one_table_order_is_the_order_of_the_mean_margins(scores) -> None:
    league = [_match(i, s) for i, s in enumerate(scores)]
    rater = Rater(Ratings(), NAMES, "margin", forfeit=1)
    rate_prefix(dict(enumerate(league)), rater)
    sums = dict.fromkeys(NAMES, 0.0)
    for match in league:
        for name, margin in match_margins(match).items():
            sums[name] += margin
    sigmas = {round(rater.ratings[n].sigma, 9) for n in NAMES}
    assert len(sigmas) == 1  # the same evidence on everyone: the same certainty
    mus = {n: rater.ratings[n].mu for n in NAMES}
    for x in NAMES:
        for y in NAMES:
            if sums[x] > sums[y] + 1e-6:
                assert mus[x] > mus[y]
    assert sum(mus.values()) / 4 == pytest.approx(Ratings().mu)


def test_margin_feeding_grows_certain_with_the_evidence() -> None:
    rater = Rater(Ratings(), NAMES, "margin", forfeit=1)
    sigmas = []
    for i in range(20):
        rater.apply(_match(i, [300 + 10 * (i % 3), 100, 0, -100 - 5 * (i % 2)]))
        sigmas.append(rater.ratings["a"].sigma)
    assert all(later < earlier for earlier, later in zip(sigmas, sigmas[1:], strict=False))
    assert place_order(rater) == ("a", "b", "c", "d")


def test_a_forfeiter_is_rated_no_better_than_the_lowest_at_its_table() -> None:
    rater = Rater(Ratings(), NAMES, "margin", forfeit=1)
    for i in range(6):  # a scores most but faulted every match: it counts as last
        rater.apply(_match(i, [500, 100 + i, 0, -50], faults=[1, 0, 0, 0]))
    order = place_order(rater)
    assert order[-1] == "a" or rater.ratings["a"].mu == pytest.approx(rater.ratings["d"].mu)
    assert rater.ratings["a"].mu <= min(rater.ratings[n].mu for n in "bcd") + 1e-9


def test_history_rows_hold_every_entrant_after_every_match() -> None:
    rater = Rater(Ratings(), [*NAMES, "e"], "margin", forfeit=1)
    rows = rater.apply(_match(0, [3, 2, 1, 0])) + rater.apply(_match(1, [3, 2, 1, 0]))
    assert len(rows) == 10 and {r["entrant"] for r in rows if r["match_idx"] == 1} == {
        *NAMES, "e"
    }
    again = Rater(Ratings(), [*NAMES, "e"], "margin", forfeit=1)
    rate_prefix({0: _match(0, [3, 2, 1, 0]), 1: _match(1, [3, 2, 1, 0])}, again)
    assert again.ratings == rater.ratings  # a pure function of the stored matches


OLD_LEAGUE = """
[league]
name = "old"
game = "trix"
seed = 5
rate_by = "deal"

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


@pytest.fixture
def old_db(tmp_path):
    (tmp_path / "old.toml").write_text(OLD_LEAGUE)
    run_league(tmp_path / "old.toml", tmp_path / "old.db", workers=1)
    return tmp_path / "old.db"


def test_tables_say_which_feeding_and_upgrade_rerates_an_older_one(old_db) -> None:
    runner = CliRunner()
    text = runner.invoke(app, ["table", "--db", str(old_db)])
    assert "TrueSkill fed per deal (rate_by = 'deal')" in text.stdout
    assert "arena upgrade --rerate" in text.stdout
    shown = runner.invoke(app, ["table", "--db", str(old_db), "--format", "json", "--with-league"])
    assert json.loads(shown.stdout)["league"]["rate_by"] == "deal"
    before = {r["name"]: r["mu"] for r in json.loads(shown.stdout)["rows"]}

    named = runner.invoke(app, ["upgrade", "--db", str(old_db)])
    assert named.exit_code == 0 and "came from rate_by = 'deal'" in named.stdout
    assert runner.invoke(app, ["table", "--db", str(old_db)]).stdout == text.stdout  # unchanged

    rerated = runner.invoke(app, ["upgrade", "--db", str(old_db), "--rerate"])
    assert rerated.exit_code == 0 and "rated again by rate_by = 'margin'" in rerated.stdout
    after = json.loads(
        runner.invoke(
            app, ["table", "--db", str(old_db), "--format", "json", "--with-league"]
        ).stdout
    )
    assert after["league"]["rate_by"] == "margin"
    assert {r["name"]: r["mu"] for r in after["rows"]} != before
    con = sqlite3.connect(old_db)
    settings_json = con.execute("SELECT settings FROM leagues").fetchone()[0]
    steps = con.execute("SELECT COUNT(DISTINCT step) FROM ratings").fetchone()[0]
    con.close()
    assert json.loads(settings_json)["rate_by"] == "margin"
    assert steps == 1  # one margin update per match (the league has one match)
    text = runner.invoke(app, ["table", "--db", str(old_db)]).stdout
    assert "TrueSkill fed by duplicate margin (rate_by = 'margin')" in text
    assert "--rerate" not in text
    again = runner.invoke(app, ["upgrade", "--db", str(old_db)])
    assert "came from" not in again.stdout
