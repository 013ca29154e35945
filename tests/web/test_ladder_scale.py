"""The ladder site over a ladder of many stored games (arena/bench/ladder_site/big_ladder.py, rows
written directly): every page and API route answers 200 with what the ladder holds,
and none reads the stored games whole. Nothing here is timed (`arena bench
ladder-pages` prints the times): the page-time goal is held by what SQLite is asked.

- Every statement a request runs is captured (`set_trace_callback` on each read-only
  connection the site opens) and its query plan read (EXPLAIN QUERY PLAN): no SCAN
  of a table that grows with the games (a covering index's scan reads every row too),
  and no temporary B-tree sorting the rows of one (it means every row was read to
  sort them before the page's LIMIT).
- The work SQLite does for a request (its virtual machine's steps, counted with
  `set_progress_handler`) is measured over a ladder and over one of four times its
  games and four times its versions, so that each version plays about as many games
  in both: a route that reads the whole ladder does about four times the work, one
  that reads what one version played about the same. A route's work may grow by no
  more than a tenth of what one pass over the ladder's results (by their smallest
  index) grows by: reading every bot's row grows a little with the versions, reading
  the games does not grow at all. The first request of a process reads every stored match once
  (arena/web/ladder/stored.py): that is not counted, as a server does it once.

SQLite's work is what is checked: the table and the bots' margins are then computed
in Python from the outcomes the process holds (over every stored match for the table,
once for each new state of the ladder), which `arena bench ladder-pages` times.

One statement scans a growing table and is allowed: `/api/version` (what an open page
polls to know when to reload, shared with the league site) counts the matches over
their smallest index, a few milliseconds at 100,000 games.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.bench.ladder_site.big_ladder import BOT, build_big_ladder
from arena.bench.ladder_site.routes import Route, site_routes
from arena.league.store import open_existing
from arena.league.store import schema as store_schema
from arena.web.ladder.app import make_ladder_app

GROWING = (
    "games", "results", "deal_scores", "game_deals", "matches", "ladder_matches", "ratings",
    "faults",
)  # fmt: skip
SCANNED = re.compile(rf"\bSCAN (?:\w+ AS )?(?:{'|'.join(GROWING)})\b")
ALLOWED = {"SELECT COUNT(*), MAX(id) FROM matches"}  # data_version: the module's docstring
STEP = 100  # SQLite VM instructions per progress tick
GROWTH = 0.1  # of a pass over the results' growth: what a route's work may grow by


class Captured:
    """Each statement run on the connections the site opens, with the VM ticks spent
    from its start to the next statement's (a request runs its statements one after
    another on one connection)."""

    def __init__(self) -> None:
        self.statements: list[list] = []  # [sql, ticks]

    def traced(self, sql: str) -> None:
        self.statements.append([sql, 0])

    def tick(self) -> int:
        if self.statements:
            self.statements[-1][1] += 1
        return 0  # go on

    def work(self) -> int:
        """The ticks of every statement but the allowed one (the module's docstring)."""
        return sum(ticks for sql, ticks in self.statements if sql not in ALLOWED)


@contextmanager
def capturing(monkeypatch: pytest.MonkeyPatch) -> Iterator[Captured]:
    captured = Captured()
    real = store_schema._open_read_only

    def opened(path: Path):  # type: ignore[no-untyped-def]
        db = real(path)
        db.conn.set_trace_callback(captured.traced)
        db.conn.set_progress_handler(captured.tick, STEP)
        return db

    monkeypatch.setattr(store_schema, "_open_read_only", opened)
    yield captured


def _pass_over_results(db_path: Path) -> int:
    """The ticks of one pass over the ladder's results by their smallest index: what
    reading the ladder whole costs at the least."""
    conn = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True)
    ticks = [0]

    def tick() -> int:
        ticks[0] += 1
        return 0

    conn.set_progress_handler(tick, STEP)
    try:
        conn.execute("SELECT COUNT(*) FROM results WHERE league_id = 1").fetchall()
    finally:
        conn.close()
    return ticks[0]


def _plans(db_path: Path, statements: list[str]) -> list[tuple[str, str]]:
    """(statement, plan line) of every plan line that reads a growing table whole."""
    conn = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True)
    bad = []
    try:
        for sql in dict.fromkeys(statements):
            if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
                continue
            for row in conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall():
                detail = row[-1]
                if SCANNED.search(detail) and sql not in ALLOWED:
                    bad.append((" ".join(sql.split())[:300], detail))
    finally:
        conn.close()
    return bad


def _client(db_path: Path) -> TestClient:
    return TestClient(
        make_ladder_app(db_path), base_url="http://127.0.0.1", raise_server_exceptions=True
    )


def _routes(db_path: Path) -> list[Route]:
    db = open_existing(db_path)
    try:
        return site_routes(db)
    finally:
        db.close()


def _check_content(route: Route, body: bytes, db_path: Path) -> None:
    """What each route must show of the ladder (not only that it answers)."""
    db = open_existing(db_path)
    try:
        games = db.execute("SELECT COUNT(*), MAX(id) FROM games").fetchone()
        matches = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        active = db.execute("SELECT COUNT(*) FROM versions WHERE state = 'active'").fetchone()[0]
    finally:
        db.close()
    text = body.decode()
    if route.route == "/api/v1/ladder":
        assert json.loads(text)["matches_stored"] == matches
    elif route.route == "/api/v1/table":
        page = json.loads(text)
        table = page["items"]
        assert len(table) == min(active, 50) and all(r["games"] > 0 for r in table)
        assert (page["next_cursor"] is not None) == (active > 50)
        assert [r["rating"] for r in table] == sorted((r["rating"] for r in table), reverse=True)
    elif route.route == "/api/v1/games":
        assert json.loads(text)["items"][0]["id"] == games[1]
    elif route.route == "/api/v1/bots/{bot}":
        bot = json.loads(text)
        assert bot["bot"] == BOT and bot["promotion_tests"][0]["pairs"] > 0
        assert bot["opponents"]
    elif route.route == "/api/v1/versions/{bot}/{n}":
        assert json.loads(text)["entrant"] == f"{BOT}@2"
    elif route.route == "/bot/{bot}":
        assert f"{BOT}@2" in text and "promotion" in text.lower()
    elif route.route == "/":
        assert f"{BOT}@1" in text or BOT in text
    elif route.route.startswith("/api/v1/") and route.route != "/api/v1/openapi.json":
        value = json.loads(text)
        if isinstance(value, dict) and "items" in value and "?" not in route.url:
            assert value["items"], route.url  # every list of this ladder holds something


def _work(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[int, list[str]]]:
    """Each route's VM ticks and statements on a second request (the first fills the
    process's copy of the stored matches), every answer checked."""
    client = _client(db_path)
    out = {}
    with capturing(monkeypatch) as captured:
        for route in _routes(db_path):
            first = client.get(route.url)
            assert first.status_code == 200, (route.url, first.text[:300])
            _check_content(route, first.content, db_path)
            captured.statements.clear()
            again = client.get(route.url)
            assert again.status_code == 200
            out[route.route] = (captured.work(), [sql for sql, _ in captured.statements])
    return out


def _holds(small: Path, large: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    few, many = _work(small, monkeypatch), _work(large, monkeypatch)
    assert few.keys() == many.keys()
    scans = _plans(large, [s for _, statements in many.values() for s in statements])
    whole = _pass_over_results(large) - _pass_over_results(small)
    assert whole > 100  # the larger ladder is larger
    grown = {
        route: (few[route][0], ticks)
        for route, (ticks, _) in many.items()
        if ticks - few[route][0] > GROWTH * whole
    }
    assert not scans and not grown, (
        "\n".join(f"{plan}: {sql}" for sql, plan in scans)
        + f"\nwork that grows with the ladder (ticks before, after; a pass over the "
        f"results grew by {whole}): {grown}"
    )


def test_every_route_answers_over_many_games_and_none_reads_them_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "small").mkdir()
    (tmp_path / "large").mkdir()
    small = build_big_ladder(tmp_path / "small", games=2_000, versions=10).db_path
    large = build_big_ladder(tmp_path / "large", games=8_000, versions=40).db_path
    _holds(small, large, monkeypatch)


@pytest.mark.slow
def test_the_same_over_a_ladder_of_100000_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "small").mkdir()
    (tmp_path / "large").mkdir()
    small = build_big_ladder(tmp_path / "small", games=25_000, versions=25).db_path
    large = build_big_ladder(tmp_path / "large", games=100_000, versions=100).db_path
    _holds(small, large, monkeypatch)
