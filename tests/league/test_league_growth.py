"""A league can grow: more rounds (round-robin) or matches (balanced, gauntlet) and new
entrants can be added to a stored league. The stored matches stay valid and keep their
seeds and ids, the schedule extends without replaying anything, and the ratings are
recomputed from all stored matches; changes that would invalidate stored matches are
still refused, with the reason."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.definition.config import RATE_BY_DEFAULT, Ratings
from arena.league.reports.table import league_rows
from arena.league.running.runner import run_league
from arena.league.standings.ratings import Rater, rate_prefix
from arena.league.store import load_outcomes, open_existing


def _league(folder: Path, entrants: list[str], league: str, name: str = "grow") -> Path:
    key = "9" * 32  # the same deals in every database
    text = f'[league]\nname = "{name}"\ngame = "trix"\nseed = "g"\ndeal_key = "{key}"\n{league}\n'
    text += "\n[rules]\nkingdoms = 1\n"
    for i, entrant in enumerate(entrants):
        spec = "builtin:first" if i % 3 == 2 else "builtin:random"
        text += f'\n[[entrant]]\nname = "{entrant}"\nbot = "{spec}"\n'
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


def _matches(db: Path) -> dict[int, tuple[str, list[str], list[int]]]:
    """Each stored match by index: its seed, its table, and its games' ids."""
    database = open_existing(db)
    try:
        out = {}
        for match in database["matches"].rows:
            ids = [g["id"] for g in database["games"].rows_where("match_id = ?", [match["id"]])]
            out[match["idx"]] = (match["seed"], json.loads(match["entrants"]), sorted(ids))
        return out
    finally:
        database.close()


def _table(db: Path) -> list[dict]:
    database = open_existing(db)
    try:
        return league_rows(database, 1)
    finally:
        database.close()


@pytest.mark.slow
def test_more_rounds_play_only_the_new_matches_and_end_as_a_fresh_league(tmp_path) -> None:
    names = ["a", "b", "c", "d", "e"]
    path = _league(tmp_path, names, 'schedule = "round-robin"\nrounds = 1')
    db = tmp_path / "g.db"
    assert run_league(path, db, workers=1).played == 5
    before = _matches(db)
    _league(tmp_path, names, 'schedule = "round-robin"\nrounds = 2')
    grown = run_league(path, db, workers=2)
    assert (grown.already_stored, grown.played, grown.scheduled) == (5, 5, 10)
    after = _matches(db)
    assert {i: after[i] for i in before} == before  # seeds, tables and ids kept
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    run_league(_league(fresh, names, 'schedule = "round-robin"\nrounds = 2'), fresh / "f.db")
    assert _table(db) == _table(fresh / "f.db")


@pytest.mark.slow
def test_a_new_entrant_meets_every_table_it_belongs_to_and_the_ratings_are_recomputed(
    tmp_path,
) -> None:
    old = ["a", "b", "c", "d", "e"]
    path = _league(tmp_path, old, 'schedule = "round-robin"\nrounds = 1')
    db = tmp_path / "g.db"
    run_league(path, db, workers=1)
    before = _matches(db)
    _league(tmp_path, [*old, "f"], 'schedule = "round-robin"\nrounds = 1')
    grown = run_league(path, db, workers=2)
    assert (grown.played, grown.scheduled) == (10, 15)  # C(6, 4) tables, 5 of them stored
    after = _matches(db)
    assert {i: after[i] for i in before} == before
    new = [after[i][1] for i in after if i not in before]
    assert all("f" in table for table in new)
    tables = sorted(tuple(sorted(t)) for _, t, _ in after.values())
    assert tables == sorted(itertools.combinations("abcdef", 4))  # each table once
    assert sorted(after) == list(range(15)) and all(
        after[i][0] == f"g/{i}" for i in after
    )  # every match's seed is its index's
    database = open_existing(db)
    try:
        rater = Rater(Ratings(), [*old, "f"], RATE_BY_DEFAULT, 1)
        rate_prefix(load_outcomes(database, 1), rater)
        rows = {r["name"]: (r["mu"], r["sigma"]) for r in league_rows(database, 1)}
    finally:
        database.close()
    recomputed = {e: (round(r.mu, 3), round(r.sigma, 3)) for e, r in rater.ratings.items()}
    assert rows == recomputed and set(rows) == set("abcdef")


@pytest.mark.slow
@pytest.mark.parametrize("schedule", ["balanced", "gauntlet"])
def test_more_matches_extend_the_schedule_the_league_had(tmp_path, schedule) -> None:
    names = ["a", "b", "c", "d", "e", "f"]
    extra = 'candidates = ["a"]\n' if schedule == "gauntlet" else ""
    path = _league(tmp_path, names, f'schedule = "{schedule}"\nmatches = 3\n{extra}')
    db = tmp_path / "g.db"
    run_league(path, db, workers=1)
    before = _matches(db)
    _league(tmp_path, names, f'schedule = "{schedule}"\nmatches = 6\n{extra}')
    assert run_league(path, db, workers=1).played == 3
    assert {i: _matches(db)[i] for i in before} == before
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    run_league(_league(fresh, names, f'schedule = "{schedule}"\nmatches = 6\n{extra}'),
               fresh / "f.db", workers=1)  # fmt: skip
    assert _table(db) == _table(fresh / "f.db")  # a longer schedule starts with the shorter


@pytest.mark.slow
def test_balanced_seats_a_new_entrant_first_until_it_has_caught_up(tmp_path) -> None:
    names = ["a", "b", "c", "d", "e"]
    path = _league(tmp_path, names, 'schedule = "balanced"\nmatches = 5')
    db = tmp_path / "g.db"
    run_league(path, db, workers=1)
    _league(tmp_path, [*names, "f"], 'schedule = "balanced"\nmatches = 8')
    run_league(path, db, workers=1)
    new = [_matches(db)[i][1] for i in (5, 6, 7)]
    assert all("f" in table for table in new)  # 0 plays against 4 each: seated first


@pytest.mark.slow
@pytest.mark.parametrize(
    "change, words",
    [
        (lambda n: n[1:], "drops 'a'"),
        (lambda n: [n[1], n[0], *n[2:]], "reorders them"),
        (lambda n: n, "rounds = 2; grow.toml says 1, fewer"),
    ],
)
def test_changes_that_would_invalidate_stored_matches_are_refused(tmp_path, change, words):
    names = ["a", "b", "c", "d", "e"]
    path = _league(tmp_path, names, 'schedule = "round-robin"\nrounds = 2')
    run_league(path, tmp_path / "g.db", workers=1)
    _league(tmp_path, change(names), 'schedule = "round-robin"\nrounds = 1')
    with pytest.raises(ConfigError, match=words):
        run_league(path, tmp_path / "g.db", workers=1)
