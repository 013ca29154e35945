"""The league site at ladder scale (docs/benchmarks.md, "The web site"): what the pages
read instead of every result of the league gives what the full computation gives.

Stored standings (arena/league/reports/snapshot.py) make the same pages as standings
computed from every result, and are not used once the league changes; place ranges
from the separation matrix are those of the pairwise rule; the evidence's sums by pair
equal the dense matrices they replace; an entrant's pages of games are its games; the
bench's copied league holds each copy as `store_match` wrote it. Nothing is timed."""

from __future__ import annotations

import html
import itertools
import math
import random
from pathlib import Path

import numpy as np
import pytest
from starlette.testclient import TestClient

from arena.bench import web as bench_web
from arena.league import store
from arena.league.definition.records import GameOutcome, MatchOutcome
from arena.league.reports import snapshot
from arena.league.standings.places import evidence, place_ranges, separated_pairs
from arena.league.store import league_id_by_name, open_db, open_existing, site_reads
from arena.league.store.snapshots import league_stamp
from arena.web import pages
from arena.web.app import make_app
from arena.web.links import Links

ENTRANTS = 7
MATCHES = 24  # 6 matches stored by `store_match`, then 3 more copies of them


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("scale")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bench_web, "DISTINCT", 6)
        return bench_web.build_league(folder, ENTRANTS, MATCHES, templates=2)


def _league(path: Path):
    db = open_existing(path)
    return db, league_id_by_name(db, "bench-web")


def _old_place_ranges(order, proof):
    """The rule as it was written first: every pair asked, then each walk."""
    apart = separated_pairs(order, proof)
    ranges = []
    for p, name in enumerate(order):
        first = p
        while first > 0 and (order[first - 1], name) not in apart:
            first -= 1
        last = p
        while last < len(order) - 1 and (name, order[last + 1]) not in apart:
            last += 1
        ranges.append((first + 1, last + 1))
    return ranges


def _random_league(seed: int, entrants: int, matches: int) -> list[MatchOutcome]:
    rng = random.Random(seed)
    names = [f"e{i}" for i in range(entrants)]
    skill = {n: rng.gauss(0, 30) for n in names}
    out = []
    for idx in range(matches):
        table = rng.sample(names, 4)
        match = MatchOutcome(idx, table)
        for rotation in range(4):
            totals = {n: round(skill[n] + rng.gauss(0, 40)) for n in table}
            match.games.append(GameOutcome(rotation, totals, dict.fromkeys(table, 0)))
        out.append(match)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_place_ranges_and_the_separation_matrix_are_the_pairwise_rule(seed) -> None:
    outcomes = _random_league(seed, entrants=6 + seed * 3, matches=8 + seed * 25)
    proof = evidence(outcomes)
    order = sorted(proof.names, key=lambda n: -proof.strength[proof.index(n)])
    matrix = proof.better_matrix(order)
    for (i, a), (j, b) in itertools.product(enumerate(order), repeat=2):
        assert bool(matrix[i, j]) == proof.better(a, b), (a, b)
    assert place_ranges(order, proof) == _old_place_ranges(order, proof)
    assert matrix.any() or seed == 0  # the larger leagues separate some pairs


def test_the_evidence_sums_by_pair_are_the_dense_matrices_they_replace() -> None:
    outcomes = _random_league(3, entrants=9, matches=60)
    proof = evidence(outcomes)
    where = {name: i for i, name in enumerate(proof.names)}
    n, count = len(proof.names), len(outcomes)
    played, residuals = np.zeros((count, n)), np.zeros((count, n))
    for k, match in enumerate(outcomes):  # the residuals as the fit's first version held them
        at = [where[e] for e in match.entrants]
        totals = np.array([sum(g.totals[e] for g in match.games) for e in match.entrants])
        score = (totals - totals.mean()) / len(match.games)
        fitted = proof.strength[at] - proof.strength[at].mean()
        residuals[k, at], played[k, at] = score - fitted, 1
    normal = np.zeros((n, n))
    for match in outcomes:
        at = [where[e] for e in match.entrants]
        normal[np.ix_(at, at)] += np.eye(4) - 0.25
    pinv = np.linalg.pinv(normal, hermitian=True)
    dense = count / (count - 1) * (pinv @ (residuals.T @ residuals) @ pinv)
    assert np.allclose(proof.covariance, dense, rtol=1e-9, atol=1e-12)
    counts, together = proof.counts()
    assert np.array_equal(counts, played.sum(axis=0))
    assert np.array_equal(together, played.T @ played)


def test_stored_standings_make_the_pages_that_computed_ones_make(big, monkeypatch) -> None:
    db, (league_id, name) = _league(big)
    entrant = store.entrant_names(db, league_id)[3]
    stored = snapshot.standings(db, league_id)
    assert snapshot.read_standings(db, league_id)[0] == league_stamp(db, league_id)
    league, player = pages.league_page(db, name), pages.entrant_page(db, name, entrant, 1)
    monkeypatch.setattr(pages, "standings", snapshot.compute)  # every result read again
    assert pages.league_page(db, name) == league
    assert pages.entrant_page(db, name, entrant, 1) == player
    computed = snapshot.compute(db, league_id)
    assert stored.rows == computed.rows and stored.history == computed.history
    assert stored.proof.names == computed.proof.names
    for a, b in itertools.permutations(computed.proof.names, 2):
        assert stored.pairs.get((a, b)) == computed.pairs.get((a, b))
        assert stored.proof.difference(a, b) == computed.proof.difference(a, b)
    db.close()


def test_standings_of_a_league_that_changed_are_computed_again(big, tmp_path) -> None:
    copy = tmp_path / "copy.db"
    copy.write_bytes(big.read_bytes())
    db = open_db(copy)
    league_id, _ = league_id_by_name(db, "bench-web")
    stamp = league_stamp(db, league_id)
    rows = list(db.query("SELECT * FROM ratings WHERE league_id = ?", [league_id]))
    last = max(r["step"] for r in rows)
    changed = [{**r, "mu": r["mu"] + 5.0} if r["step"] == last else r for r in rows]
    store.replace_ratings(db, league_id, [{k: v for k, v in r.items() if k != "league_id"}
                                          for r in changed])  # fmt: skip
    assert league_stamp(db, league_id) != stamp  # a re-rating changes the league's state
    fresh = snapshot.standings(db, league_id)
    assert fresh.rows == snapshot.compute(db, league_id).rows
    assert fresh.rows != snapshot._loaded(*snapshot.read_standings(db, league_id)[1:]).rows
    db.close()


def test_the_copied_league_holds_every_copy_as_stored(big) -> None:
    db, (league_id, _) = _league(big)
    games = list(db.query("SELECT id, match_id, replay FROM games ORDER BY id"))
    assert len(games) == 4 * MATCHES
    indexes = sorted(store.stored_match_indexes(db, league_id))
    assert indexes == list(range(MATCHES))
    by_match = {m["id"]: m for m in db.query("SELECT * FROM matches")}
    firsts = {m["idx"]: m for m in by_match.values() if m["idx"] < 6}
    for game in games:
        match = by_match[game["match_id"]]
        original = firsts[match["idx"] % 6]
        assert match["entrants"] == original["entrants"]
    replays = [g["replay"] for g in games]
    assert replays[:24] * 4 == replays  # each copy's replays are the bytes stored
    sums = {(r["entrant"], r["contract"]): (r["deals"], r["score_sum"])
            for r in db.query("SELECT * FROM entrant_contracts")}  # fmt: skip
    summed = {(r["entrant"], r["contract"]): (r["n"], r["s"]) for r in db.query(
        "SELECT entrant, contract, COUNT(*) AS n, SUM(score) AS s FROM deal_scores "
        "GROUP BY entrant, contract")}  # fmt: skip
    assert sums == summed
    outcomes = store.load_outcomes(db, league_id, deals=False)
    assert [len(m.games) for m in outcomes.values()] == [4] * MATCHES
    db.close()


def test_an_entrants_pages_of_games_are_its_games(big, monkeypatch) -> None:
    monkeypatch.setattr(pages, "GAMES_PER_PAGE", 5)
    db, (league_id, name) = _league(big)
    entrant = store.entrant_names(db, league_id)[0]
    every = site_reads.entrant_games(db, league_id, entrant)  # in match and rotation order
    assert site_reads._ids_follow_schedule(db, league_id)  # a page: read in game id order
    count = math.ceil(len(every) / 5)
    assert count > 2
    shown = []
    for number in range(1, count + 1):
        context = pages.entrant_page(db, name, entrant, number)
        assert context["games_page"] == {"page": number, "pages": count}
        shown += context["games"]
    assert shown == every
    report = list(pages.entrant_pages(db, name, entrant, 7))  # the static report's pages
    assert [g for page in report for g in page["games"]] == every
    assert [page["games_page"] for page in report] == [
        {"page": n, "pages": len(report)} for n in range(1, math.ceil(len(every) / 7) + 1)
    ]
    first = pages.entrant_page(db, name, entrant)
    shared = {"games": [], "games_page": {}}
    assert {**report[0], **shared} == {**first, **shared}  # what the pages share: the server's
    assert report[1]["title"] == f"{first['title']}: games, page 2"
    asked = sum(g["asked"] or 0 for g in every)
    faults = sum(g["faults"] for g in every)
    assert context["fault_rate"] == {
        "per_game": faults / len(every),
        "per_1000": 1000 * faults / asked if asked else None,
    }
    with pytest.raises(pages.NotFound):
        pages.entrant_page(db, name, entrant, count + 1)
    latest = site_reads.latest_matches(db, league_id, 5)
    assert latest == store.match_records(db, league_id)[-5:][::-1]
    client = TestClient(make_app(big), base_url="http://127.0.0.1")
    url = Links().entrant(name, entrant)
    second = client.get(f"{url}?page=2")
    assert second.status_code == 200 and 'rel="prev"' in second.text
    assert second.headers["content-security-policy"]
    for bad in ("0", "x", "1" * 7, "-1", f"{count + 1}"):
        response = client.get(f"{url}?page={bad}")
        assert response.status_code == 404, bad
        assert "<script>" not in response.text
    db.close()


def test_the_crosstable_and_chart_show_the_first_of_a_long_table(big, monkeypatch) -> None:
    monkeypatch.setattr(pages, "CROSS_MAX", 3)
    monkeypatch.setattr(pages, "CHART_LINES", 2)
    db, (_, name) = _league(big)
    context = pages.league_page(db, name)
    order = [t["row"]["name"] for t in context["table"]]
    assert [r["name"] for r in context["cross"]] == order[:3]
    assert all(len(r["cells"]) == 3 for r in context["cross"])
    assert context["cross_of"] == ENTRANTS and context["chart_lines"] == 2
    page = html.unescape(TestClient(make_app(big), base_url="http://127.0.0.1")
                         .get(Links().league(name)).text)  # fmt: skip
    assert f"The first 3 of the table's {ENTRANTS}" in page
    db.close()


def test_the_league_pages_of_the_table_are_the_table(big, monkeypatch) -> None:
    monkeypatch.setattr(pages, "TABLE_ROWS", 3)
    db, (_, name) = _league(big)
    whole = pages.league_page(db, name)  # the static report: every row
    shown = []
    for number in (1, 2, 3):
        context = pages.league_page(db, name, number)
        last = min(3 * number, ENTRANTS)
        assert context["table_page"] == {"page": number, "pages": 3,
                                         "first": 3 * number - 2, "last": last}  # fmt: skip
        assert context["standing"] == whole["standing"] and context["legend"] == whole["legend"]
        assert context["cross"] == whole["cross"]
        shown += context["table"]
    assert shown == whole["table"] and whole["table_page"] is None
    with pytest.raises(pages.NotFound):
        pages.league_page(db, name, 4)
    client = TestClient(make_app(big), base_url="http://127.0.0.1")
    second = client.get(f"{Links().league(name)}?page=2")
    assert second.status_code == 200 and "rows 4-6 of 7" in second.text
    assert 'rel="prev"' in second.text and 'rel="next"' in second.text
    assert client.get(f"{Links().league(name)}?page=4").status_code == 404
    db.close()


def test_arena_run_stores_the_standings_its_pages_read(tmp_path) -> None:
    from typer.testing import CliRunner

    from arena.cli import app

    league = tmp_path / "small.toml"
    league.write_text(
        '[league]\nname = "small"\ngame = "trix"\nseed = 3\nschedule = "balanced"\nmatches = 3\n'
        "[rules]\nkingdoms = 1\n"
        + "".join(f'[[entrant]]\nname = "b{i}"\nbot = "builtin:random"\n' for i in range(5))
    )
    db_path = tmp_path / "small.db"
    result = CliRunner().invoke(app, ["run", str(league), "--db", str(db_path), "--workers", "1"])
    assert result.exit_code == 0, result.output
    db = open_existing(db_path)
    league_id, _ = league_id_by_name(db, "small")
    stamp, data, _ = snapshot.read_standings(db, league_id)
    assert stamp == league_stamp(db, league_id) and data["format"] == snapshot.FORMAT
    assert snapshot.standings(db, league_id).rows == snapshot.compute(db, league_id).rows
    db.close()
