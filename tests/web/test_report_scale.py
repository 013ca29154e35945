"""Issue 30 point 2: `arena report --games all|none|last:N|best:N` (the other games
listed and linked to `arena serve`), and a second report into the same folder writes
only what changed (checked by the files' modification times and the report's count of
what it wrote, never by timing)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bench.report import _League
from arena.cli import app
from arena.league import store
from arena.league.store import site_reads
from arena.web import report as report_module
from arena.web.links import ReportLinks
from arena.web.report import MARKER, build_report
from tests.support.tiny_league import tiny_db

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return tiny_db(tmp_path_factory.mktemp("report-scale"))


def _games(db: Path) -> list[dict]:
    conn = store.open_existing(db)
    try:
        league_id = store.league_id_by_name(conn, "tiny")[0]
        return site_reads.league_game_totals(conn, league_id)
    finally:
        conn.close()


def _mtimes(out: Path) -> dict[str, int]:
    return {
        p.relative_to(out).as_posix(): p.stat().st_mtime_ns
        for p in out.rglob("*")
        if p.is_file() and p.name != MARKER
    }


def test_games_last_and_best_choose_the_pages_and_link_the_rest_to_serve(db, tmp_path) -> None:
    games = _games(db)
    ids = [g["id"] for g in games]
    assert len(ids) == 4
    out = tmp_path / "last"
    result = runner.invoke(
        app, ["report", "--db", str(db), "--out", str(out), "--games", "last:2",
              "--serve-url", "http://arena.example:8000/"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "2 of 4 games with a page" in result.output
    assert sorted(p.name for p in out.glob("game-*.html")) == sorted(
        f"game-{i}.html" for i in ids[-2:]
    )
    assert sorted(p.name for p in (out / "data").iterdir()) == sorted(
        f"game-{i}.js" for i in ids[-2:]
    )
    match = next(out.glob("match-*.html")).read_text()
    for game_id in ids[:2]:  # listed, linked to the same game under arena serve
        assert f'href="http://arena.example:8000/game/{game_id}"' in match
    for game_id in ids[2:]:
        assert f'href="game-{game_id}.html"' in match

    def gap(g: dict) -> int:
        top = sorted(g["totals"], reverse=True)
        return top[0] - top[1]

    closest = min(games, key=lambda g: (gap(g), -g["id"]))["id"]
    best = build_report(db, tmp_path / "best", games="best:1")
    assert (best.games, best.paged) == (4, 1)
    assert [p.name for p in (tmp_path / "best").glob("game-*.html")] == [f"game-{closest}.html"]
    none = build_report(db, tmp_path / "none", games="none")
    assert none.paged == 0 and not list((tmp_path / "none").glob("game-*"))
    assert not (tmp_path / "none" / "data").exists()
    assert "http://127.0.0.1:8000/game/" in next((tmp_path / "none").glob("match-*")).read_text()


def test_a_games_choice_not_in_the_list_is_refused_saying_the_choices(db, tmp_path) -> None:
    for bad in ("top:3", "last", "last:-1", "best:x", "all:2"):
        result = runner.invoke(
            app, ["report", "--db", str(db), "--out", str(tmp_path / "x"), "--games", bad]
        )
        assert result.exit_code == 2, (bad, result.output)
        assert "all|none|last:N|best:N" in result.output
    assert not (tmp_path / "x").exists()


def test_a_report_again_writes_nothing_and_fewer_games_remove_only_their_own(db, tmp_path) -> None:
    out = tmp_path / "site"
    first = build_report(db, out)
    assert first.written_files == first.files > 10 and first.built_games == 4
    (out / "CNAME").write_text("arena.example.org\n")
    before = _mtimes(out)
    again = build_report(db, out)
    assert (again.written_files, again.written_bytes, again.built_games) == (0, 0, 0)
    assert _mtimes(out) == before  # not one file written again
    marker = (out / MARKER).read_text().splitlines()
    assert len(marker) == first.files + 1 and all(line.count("\t") == 3 for line in marker[1:])
    fewer = build_report(db, out, games="last:1")
    assert fewer.written_files > 0 and fewer.built_games == 0  # pages linking elsewhere
    assert len(list(out.glob("game-*.html"))) == 1 and len(list(out.glob("data/*"))) == 1
    assert (out / "CNAME").read_text() == "arena.example.org\n"
    kept = [name for name, t in _mtimes(out).items() if before.get(name) == t]
    assert "static/viewer.js" in kept and any(n.startswith("game-") for n in kept)


def test_a_changed_or_removed_file_of_the_report_is_written_again(db, tmp_path) -> None:
    out = tmp_path / "site"
    build_report(db, out)
    page = next(out.glob("game-*.html"))
    page.write_text("edited")
    (out / "static" / "site.css").unlink()
    again = build_report(db, out)
    assert again.written_files == 2 and again.built_games == 1
    assert page.read_text() != "edited" and 'id="game-outline"' in page.read_text()
    assert (out / "static" / "site.css").is_file()


@pytest.mark.slow
def test_the_report_of_a_grown_league_writes_only_the_new_and_changed_files(tmp_path) -> None:
    league = _League(tmp_path, matches=3)
    league.store(2)
    out = tmp_path / "site"
    first = build_report(league.db_path, out, jobs=2)
    assert first.built_games == first.paged == 8
    before = _mtimes(out)
    league.store(3)
    grown = build_report(league.db_path, out, jobs=2)
    assert (grown.games, grown.built_games) == (12, 4)
    after = _mtimes(out)
    new = sorted(set(after) - set(before))
    rewritten = sorted(n for n in before if after[n] != before[n])
    assert len(new) == 4 * 2 + 1  # four games' pages and frames, the new match's page
    assert grown.written_files == len(new) + len(rewritten)
    old_games = [n for n in before if re.fullmatch(r"(game-\d+\.html|data/game-\d+\.js)", n)]
    assert len(old_games) == 16 and not set(old_games) & set(rewritten)
    assert "static/viewer.js" not in rewritten
    assert "index.html" in rewritten  # the league's figures changed
    listed = dict(line.split("\t", 1) for line in (out / MARKER).read_text().splitlines()[1:])
    assert set(listed) == set(after) and os.path.getsize(out / "index.html") > 0
    assert json.loads(
        (out / "game-1.html").read_text().split('id="game-outline">')[1].split("<")[0]
    )


def test_an_entrants_games_are_paged_and_a_grown_league_rewrites_only_its_last_pages(
    tmp_path, monkeypatch
) -> None:
    """The report lists an entrant's games `GAMES_PER_PAGE` to a file, each page linked
    to the next and the one before; the later pages list the games alone, so a report
    of the grown league leaves an entrant's full pages of games as they were."""
    monkeypatch.setattr(report_module, "GAMES_PER_PAGE", 3)
    league = _League(tmp_path, matches=3)
    league.store(2)
    out = tmp_path / "site"
    build_report(league.db_path, out, jobs=1)
    before = _mtimes(out)
    conn = store.open_existing(league.db_path)
    try:
        (league_id, name) = store.league_id_by_name(conn, league.config.name)
        played = {
            entrant: [g["game_id"] for g in site_reads.entrant_games(conn, league_id, entrant)]
            for entrant in store.entrant_names(conn, league_id)
        }
    finally:
        conn.close()
    links = ReportLinks()
    full_pages = []
    for entrant, ids in played.items():
        count = -(-len(ids) // 3)
        assert count >= 2, (entrant, ids)
        files = [links.entrant_games(name, entrant, n) for n in range(1, count + 1)]
        assert files[0] == links.entrant(name, entrant)
        assert not (out / links.entrant_games(name, entrant, count + 1)).exists()
        listed = []
        for n, file in enumerate(files, 1):
            text = (out / file).read_text()
            listed += [int(i) for i in re.findall(r'<td><a href="game-(\d+)\.html">', text)]
            assert (n > 1) == (f'href="{files[n - 2]}" rel="prev"' in text)
            assert (n < count) == (n < count and f'href="{files[n]}" rel="next"' in text)
            assert (n < count) == ('rel="next"' in text)
            assert ('id="opponents"' in text) == (n == 1)  # the later pages: games alone
        assert listed == ids
        full_pages += files[1 : min(len(ids) // 3, count - 1)]  # full, and not the last
    assert full_pages
    league.store(3)
    build_report(league.db_path, out, jobs=1)
    after = _mtimes(out)
    for file in full_pages:
        assert after[file] == before[file], f"{file} was written again"
