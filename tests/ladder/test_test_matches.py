"""Unrated test matches (docs/ladder.md, "Test matches"): an author asks for one with
their token, at most `[tests] per_hour` an hour; another author's bot is refused as a
wrong token and nobody lists another's; a wrong count, an unknown or a non-playing
opponent is refused saying so; `arena ladder run` plays one in the tests league and the
ladder's table does not move; a test match given out by a run that was killed is played
again as the same match, and stored once.

The versions are written through the store with built-in commands (as
tests/support/site_ladder.py does), so no bot process starts and no gate runs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.ladder.book import (
    REFUSED_TOKEN,
    State,
    TokenRefused,
    author_add,
    freeze,
    init_ladder,
    my_test_matches,
    open_ladder,
    request_test,
    withdraw,
    writing,
)
from arena.ladder.config import load_ladder
from arena.ladder.reports import table_report
from arena.ladder.runner import run_ladder
from arena.ladder.source import LadderSource
from arena.league.reports.formats import TextOrJson
from arena.league.running.dispatch import LoopCounts
from arena.league.running.schedule_source import TaskTemplate
from arena.league.store import game_replay, open_db
from arena.league.store import ladder_reads as reads
from arena.league.store.ladder_reads import author_row
from arena.league.store.ladder_writes import add_version
from arena.league.workers.match_task import play_task
from arena.league.workers.worker import Lifecycle
from arena.play.replay_frames import deal_frames, expand, game_outline
from tests.ladder.ladder_support import arena, ladder_file, ok
from tests.support.walks import card_codes_in

FIRST = """
[[house]]
name = "first"
bot = "builtin:first"
"""


def _ladder(
    tmp_path: Path, extra: str = FIRST, checking: str = State.CHECKING
) -> tuple[Path, dict[str, str]]:
    """A Trix ladder (house bots greedy@1, random@1 and first@1) with two authors:
    ann (alpha@1 active, alpha@2 a candidate, alpha@3 retired, beta@1 `checking`) and
    bo (bravo@1 active, bravo@2 withdrawn). Their tokens. (A run's gate would check a
    version left checking: a ladder that runs gives it another state.)"""
    init_ladder(load_ladder(ladder_file(tmp_path, extra=extra)), tmp_path / "arena.db")
    db = tmp_path / "arena.db"
    tokens = {name: author_add(db, None, name) for name in ("ann", "bo")}
    with writing(db) as conn:
        ladder = open_ladder(conn, None)
        for author, bot, command, state in (
            ("ann", "alpha", "builtin:greedy", State.ACTIVE),
            ("ann", "alpha", "builtin:random", State.CANDIDATE),
            ("ann", "alpha", "builtin:first", State.RETIRED),
            ("ann", "beta", "builtin:first", checking),
            ("bo", "bravo", "builtin:random", State.ACTIVE),
            ("bo", "bravo", "builtin:greedy", State.WITHDRAWN),
        ):
            add_version(
                conn,
                ladder_id=ladder.id,
                league_id=ladder.league_id,
                bot=bot,
                author_id=author_row(conn, ladder.id, author)["id"],
                sha256=f"{bot}{command}{state}".encode().hex()[:64].ljust(64, "0"),
                command=command,
                folder=str(tmp_path),
                state=state,
                start_mu=ladder.config.ratings.mu,
                reason="for the tests",
            )
    return db, tokens


def _rows(db: Path, sql: str, args: tuple = ()) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql, args).fetchall()


def _ask(db: Path, token: str, spec: str = "alpha@1", opponents=None, now=None) -> str:
    opponents = ["greedy@1", "random@1", "bravo@1"] if opponents is None else opponents
    return request_test(db, None, token=token, spec=spec, opponents=opponents, now=now)


def test_a_request_is_queued_and_the_eleventh_in_an_hour_is_refused(tmp_path: Path) -> None:
    db, tokens = _ladder(tmp_path)
    said = _ask(db, tokens["ann"], now=1000.0)
    assert said == "test match 1 queued: alpha@1 against greedy@1, random@1, bravo@1"
    for i in range(1, 10):
        _ask(db, tokens["ann"], now=1000.0 + i)
    with pytest.raises(ConfigError, match="asked for 10 test matches in the last hour") as err:
        _ask(db, tokens["ann"], now=1100.0)
    assert "[tests] per_hour = 10" in str(err.value) and "ask again in 59 minutes" in str(err.value)
    assert _rows(db, "SELECT COUNT(*) FROM test_matches") == [(10,)]
    _ask(db, tokens["bo"], spec="bravo@1", opponents=["greedy@1", "random@1", "alpha@1"], now=1100)
    # an hour after the first, its place is free again (and only its)
    assert _ask(db, tokens["ann"], now=4600.5).startswith("test match 12 queued")
    with pytest.raises(ConfigError, match="ask again in 1 minute;|ask again in 1 minute$"):
        _ask(db, tokens["ann"], now=4600.6)
    rows = _rows(db, "SELECT id, entrant, opponents, state, seed, idx FROM test_matches")
    assert rows[0] == (1, "alpha@1", '["greedy@1", "random@1", "bravo@1"]', "queued",
                       "s1/test/1", None)  # fmt: skip
    # the tests league is made with the first request, apart from the ladder's own
    assert _rows(db, "SELECT name FROM leagues ORDER BY id") == [("spring",), ("spring tests",)]


def test_per_hour_is_read_from_the_ladder_file(tmp_path: Path) -> None:
    db, tokens = _ladder(tmp_path, extra=FIRST + "\n[tests]\nper_hour = 2\n")
    _ask(db, tokens["ann"], now=10.0)
    _ask(db, tokens["ann"], now=11.0)
    with pytest.raises(ConfigError, match=r"per_hour = 2\)"):
        _ask(db, tokens["ann"], now=12.0)
    closed = tmp_path / "closed"
    closed.mkdir()
    db, tokens = _ladder(closed, extra=FIRST + "\n[tests]\nper_hour = 0\n")
    with pytest.raises(ConfigError, match="takes no test matches"):
        _ask(db, tokens["ann"])
    assert _rows(db, "SELECT COUNT(*) FROM test_matches") == [(0,)]
    bad = tmp_path / "bad"
    bad.mkdir()
    path = ladder_file(bad, extra="[tests]\nper_hour = 1001\n")
    code, _, err = arena("ladder", "init", str(path))
    assert code == 2 and "[tests]" in err and "per_hour" in err and "1,000" in err


def test_another_authors_token_is_refused_and_lists_only_its_own(tmp_path: Path) -> None:
    db, tokens = _ladder(tmp_path)
    _ask(db, tokens["ann"])
    for spec in ("alpha@1", "greedy@1"):  # another author's bot, a house bot
        with pytest.raises(TokenRefused) as err:
            _ask(db, tokens["bo"], spec=spec)
        assert str(err.value) == REFUSED_TOKEN
    with pytest.raises(TokenRefused):
        _ask(db, "bo.not-the-token", spec="bravo@1")
    assert _rows(db, "SELECT COUNT(*) FROM test_matches") == [(1,)]
    assert my_test_matches(db, None, token=tokens["bo"]) == []
    (mine,) = my_test_matches(db, None, token=tokens["ann"])
    assert mine["author"] == "ann" and mine["entrant"] == "alpha@1"
    with pytest.raises(TokenRefused):
        my_test_matches(db, None, token="ann.forged")
    with writing(db) as conn:
        ladder = open_ladder(conn, None)
        row = reads.test_match_row(conn, ladder.id, mine["id"])
        ann = author_row(conn, ladder.id, "ann")["id"]
        assert row is not None and row["author_id"] == ann  # what the web checks ownership by
        assert reads.test_match_row(conn, ladder.id, 999) is None
        assert reads.test_match_rows(conn, ladder.id, author_row(conn, ladder.id, "bo")["id"]) == []


@pytest.mark.parametrize(
    ("spec", "opponents", "said"),
    [
        ("alpha@1", ["greedy@1", "random@1"], "name 3 opponents (BOT@N), not 2"),
        ("alpha@1", ["greedy@1", "random@1", "first@1", "bravo@1"], "not 4"),
        ("alpha@1", ["greedy@1", "random@1", "nobody@1"], "no version 'nobody@1'"),
        ("alpha@1", ["greedy", "random@1", "first@1"], "(its active version is greedy@1)"),
        ("alpha@1", ["greedy@1", "greedy@1", "first@1"], "greedy@1 is named twice"),
        ("alpha@1", ["greedy@1", "random@1", "alpha@1"], "cannot be its own opponent"),
        ("alpha@1", ["greedy@1", "random@1", "bravo@2"], "bravo@2 is withdrawn"),
        ("alpha@1", ["greedy@1", "random@1", "alpha@3"], "alpha@3 is retired"),
        ("alpha@1", ["greedy@1", "random@1", "beta@1"], "beta@1 is checking"),
        ("alpha", ["greedy@1", "random@1", "first@1"], "BOT@N"),
        ("beta@1", ["greedy@1", "random@1", "first@1"], "beta@1 is checking"),
        ("alpha@9", ["greedy@1", "random@1", "first@1"], "has no version 9"),
        ("nobody@1", ["greedy@1", "random@1", "first@1"], "no bot named 'nobody'"),
    ],
)
def test_a_bad_request_is_refused_saying_what_to_give(
    tmp_path: Path, spec: str, opponents: list[str], said: str
) -> None:
    db, tokens = _ladder(tmp_path)
    with pytest.raises(ConfigError) as err:
        _ask(db, tokens["ann"], spec=spec, opponents=opponents)
    assert said in str(err.value)
    assert _rows(db, "SELECT COUNT(*) FROM test_matches") == [(0,)]


def test_own_versions_retired_ones_and_a_frozen_ladder_are_allowed(tmp_path: Path) -> None:
    db, tokens = _ladder(tmp_path)
    # a candidate against its own active version; a retired version tried again
    _ask(db, tokens["ann"], spec="alpha@2", opponents=["alpha@1", "greedy@1", "bravo@1"])
    _ask(db, tokens["ann"], spec="alpha@3", opponents=["alpha@2", "alpha@1", "first@1"])
    freeze(db, None)
    assert _ask(db, tokens["ann"]).startswith("test match 3 queued")


def _table(db: Path) -> str:
    return table_report(db, None, TextOrJson.JSON)


def _versions(db: Path) -> list[dict]:
    return json.loads(ok("ladder", "versions", "--db", str(db), "--format", "json"))


def test_a_run_plays_a_test_match_unrated_in_the_tests_league(tmp_path: Path) -> None:
    db, tokens = _ladder(tmp_path, checking=State.REFUSED)
    run_ladder(db, workers=1, matches=2)
    table, versions = _table(db), _versions(db)
    ratings = _rows(db, "SELECT * FROM ratings ORDER BY step, entrant")
    rated = _rows(db, "SELECT idx FROM ladder_matches ORDER BY idx")
    assert len(rated) >= 2
    _ask(db, tokens["ann"], spec="alpha@2", opponents=["bravo@1", "first@1", "alpha@1"])
    said: list[str] = []
    run_ladder(db, workers=1, matches=0, notice=said.append)  # 0 rated: the test match alone
    assert any(line.startswith("test match 1 stored") for line in said), said
    assert _table(db) == table and _versions(db) == versions
    assert _rows(db, "SELECT * FROM ratings ORDER BY step, entrant") == ratings
    assert _rows(db, "SELECT idx FROM ladder_matches ORDER BY idx") == rated
    (test,) = my_test_matches(db, None, token=tokens["ann"])
    assert test["state"] == "stored" and test["idx"] == len(rated)  # the counter's next
    leagues = dict(_rows(db, "SELECT name, id FROM leagues"))
    assert test["league_id"] == leagues["spring tests"]
    stored = _rows(db, "SELECT league_id, idx, seed FROM matches WHERE idx = ?", (test["idx"],))
    assert stored == [(leagues["spring tests"], test["idx"], "s1/test/1")]
    assert _rows(db, "SELECT COUNT(*) FROM live_matches") == [(0,)]
    code, _, err = arena("table", "--db", str(db), "--league", "spring tests")
    assert code == 2 and "holds the unrated test matches of ladder 'spring'" in err
    assert "alpha@2" in ok("games", "--db", str(db), "--league", "spring tests")
    games = test["games"]
    assert [g["rotation"] for g in games] == [0, 1, 2, 3]
    assert [g["seat"] for g in games] == [0, 1, 2, 3]  # alpha@2 starts in seat 0 and rotates
    with writing(db) as conn:
        replay = game_replay(conn, games[1]["id"])
    assert replay["players"][games[1]["seat"]] == "alpha@2"
    frames = deal_frames(replay, 1, games[1]["seat"])  # the author's seat view
    assert frames["observers"] == [1] and game_outline(replay, 1)["seats_shown"] == 1
    others = set(card_codes_in(deal_frames(replay, 1)["frames"][0]["v"])) - set(
        card_codes_in(frames["frames"][0])
    )
    assert others and not card_codes_in(expand(frames)[0]) & others  # no other hand dealt
    # the ladder's public site and API show nothing of it
    from starlette.testclient import TestClient

    from arena.web.ladder.app import make_ladder_app

    site = TestClient(make_ladder_app(db), base_url="http://127.0.0.1")
    ((rated_game,),) = _rows(db, "SELECT MIN(id) FROM games WHERE league_id = ?",
                             (leagues["spring"],))  # fmt: skip
    assert site.get(f"/game/{rated_game}").status_code == 200  # a rated game is public
    for address in (f"/game/{games[0]['id']}", f"/api/v1/games/{games[0]['id']}",
                    f"/match/{test['idx']}", f"/game/{games[0]['id']}/deal/1.json"):  # fmt: skip
        assert site.get(address).status_code == 404, address
    listed = site.get("/api/v1/games", params={"limit": 500}).json()["items"]
    assert not {g["id"] for g in games} & {g["id"] for g in listed}
    # a rated run afterwards goes on above the test match's index
    run_ladder(db, workers=1, matches=1)
    indexes = [r[0] for r in _rows(db, "SELECT idx FROM ladder_matches ORDER BY idx")]
    assert test["idx"] not in indexes and max(indexes) > test["idx"]


def _open(db: Path, tmp_path: Path, say=None):
    conn = open_db(db)
    ladder = open_ladder(conn, None)
    template = TaskTemplate(tmp_path / "logs", db, Lifecycle.MATCH)
    return conn, LadderSource.open(ladder, conn, template, say)


def test_a_test_match_given_out_by_a_killed_run_is_played_again_and_stored_once(
    tmp_path: Path,
) -> None:
    db, tokens = _ladder(tmp_path)
    _ask(db, tokens["ann"])
    conn, source = _open(db, tmp_path)
    source.limit = 0  # no rated match: only the test match is given out
    given = source.next_match()
    assert given is not None and given.entrants == ("alpha@1", "greedy@1", "random@1", "bravo@1")
    assert given.seed == "s1/test/1" and source.next_match() is None
    source.started(given)
    tests_league = reads.tests_league_id(conn, source.ladder.id)
    assert _rows(db, "SELECT league_id, idx FROM live_matches") == [(tests_league, given.index)]
    assert _rows(db, "SELECT state, idx FROM test_matches") == [("playing", given.index)]
    conn.close()  # killed here: given out, never stored

    conn, source = _open(db, tmp_path)
    source.limit = 0
    again = source.next_match()
    assert again == given  # the same index, seats and seed
    played = play_task(source.task(again))
    assert source.store(played) and not source.store(played)  # stored once
    source.stored(played, LoopCounts())
    assert not any(v.busy for v in source.versions.values())
    conn.close()

    conn, source = _open(db, tmp_path)
    assert source.tests == [] and source.counter > given.index
    source.limit = 0
    assert source.next_match() is None
    source.limit = None
    rated = source.next_match()  # a rated table: never the test match's index
    assert rated is not None and rated.index > given.index
    conn.close()
    assert _rows(db, "SELECT state FROM test_matches") == [("stored",)]
    by_league = _rows(db, "SELECT league_id, idx, COUNT(*) FROM matches GROUP BY league_id, idx")
    assert by_league == [(tests_league, given.index, 1)]
    assert _rows(db, "SELECT COUNT(*) FROM games") == [(4,)]


def test_a_waiting_test_match_whose_opponent_left_is_dropped(tmp_path: Path) -> None:
    db, tokens = _ladder(tmp_path)
    _ask(db, tokens["ann"])
    withdraw(db, None, token=tokens["bo"], spec="bravo@1")
    said: list[str] = []
    conn, source = _open(db, tmp_path, said.append)
    conn.close()
    assert source.tests == [] and said == ["test match 1 is dropped: bravo@1 is withdrawn"]
    (row,) = my_test_matches(db, None, token=tokens["ann"])
    assert (row["state"], row["reason"]) == ("dropped", "bravo@1 is withdrawn")


def test_the_oldest_waiting_test_match_holds_its_versions_from_new_rated_tables(
    tmp_path: Path,
) -> None:
    db, tokens = _ladder(tmp_path)
    _ask(db, tokens["ann"])
    conn, source = _open(db, tmp_path)
    source.versions["greedy@1"].busy = True  # in a match: the test match waits for it
    source.limit = None
    match = source.next_match()
    conn.close()
    assert match is None or not {"alpha@1", "random@1", "bravo@1"} & set(match.entrants)
    assert [t.id for t in source.tests] == [1]


def test_the_commands(tmp_path: Path) -> None:
    db, tokens = _ladder(tmp_path)
    ann, bo = {"ARENA_TOKEN": tokens["ann"]}, {"ARENA_TOKEN": tokens["bo"]}
    said = ok("ladder", "test", "alpha@1", "greedy@1", "random@1", "first@1", "--db", str(db),
              env=ann)  # fmt: skip
    assert said.strip() == "test match 1 queued: alpha@1 against greedy@1, random@1, first@1"
    said = ok("ladder", "test", "bravo@1", "greedy@1", "random@1", "alpha@1", "--db", str(db),
              "--token", tokens["bo"])  # fmt: skip
    assert said.startswith("test match 2 queued")
    (mine,) = json.loads(ok("ladder", "tests", "--db", str(db), "--format", "json", env=ann))
    assert (mine["test"], mine["version"], mine["state"]) == (1, "alpha@1", "queued")
    assert mine["opponents"] == ["greedy@1", "random@1", "first@1"] and mine["games"] == []
    text = ok("ladder", "tests", "--db", str(db), env=bo)
    assert "bravo@1 against greedy@1, random@1, alpha@1" in text and "alpha@1 against" not in text
    code, _, err = arena("ladder", "test", "alpha@1", "greedy@1", "--db", str(db), env=ann)
    assert code == 2 and "name 3 opponents" in err
    code, _, err = arena("ladder", "test", "alpha@1", "a@1", "b@1", "c@1", "--db", str(db),
                         env={"ARENA_TOKEN": "nobody.x"})  # fmt: skip
    assert code == 2 and err.strip() == f"error: {REFUSED_TOKEN}"
    code, _, err = arena("ladder", "tests", "--db", str(db), env={"ARENA_TOKEN": "nobody.x"})
    assert code == 2 and err.strip() == f"error: {REFUSED_TOKEN}"
    for command in ("test", "tests"):
        shown = ok("ladder", command, "--help")
        assert all(option in shown for option in ("--db", "--ladder", "--token"))


@pytest.mark.slow
def test_kill_9_while_test_matches_are_played_then_resume(tmp_path: Path) -> None:
    """`arena ladder run` killed with SIGKILL three times while test matches are given
    out: no process is left, a test match given out before a kill is stored after the
    resume with the index and seed it was given, and every one is stored once, in the
    tests league, at an index no rated match has."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.ladder.ladder_support import RANDOM_BOT, bot_folder
    from tests.ladder.test_ladder_resume import HOUSE, _left
    from tests.support.bot_processes import marked_processes

    ok("ladder", "init", str(ladder_file(tmp_path, extra=HOUSE)))
    db = tmp_path / "arena.db"
    token = ok("ladder", "author", "add", "ann", "--db", str(db)).strip()
    env = {"ARENA_TOKEN": token}
    ok("ladder", "submit", "rnd", str(bot_folder(tmp_path, "rnd", RANDOM_BOT.format(name="r"))),
       "--command", "python bot.py", "--db", str(db), env=env)  # fmt: skip
    ok("ladder", "run", "--db", str(db), "--workers", "1", "--matches", "1")  # the gate
    houses = ["greedy@1", "random@1", "first@1", "mixed@1"]
    for i in range(4):
        opponents = [h for j, h in enumerate(houses) if j != i]
        ok("ladder", "test", "rnd@1", *opponents, "--db", str(db), env=env)
    (tmp_path / "tmp").mkdir()
    run_env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    command = [sys.executable, "-m", "arena.cli", "ladder", "run", "--db", str(db),
               "--workers", "2"]  # fmt: skip
    given: dict[int, tuple[int, str]] = {}  # test id -> (idx, seed), given out before a kill
    cut: set[int] = set()
    try:
        for delay in (0.0, 0.7, 0.3):
            process = subprocess.Popen(
                command, env=run_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            try:
                deadline = time.monotonic() + 90
                while time.monotonic() < deadline and process.poll() is None:
                    if _rows(db, "SELECT 1 FROM test_matches WHERE state = 'playing'"):
                        break
                    time.sleep(0.02)
                time.sleep(delay)
                process.send_signal(signal.SIGKILL)
                process.wait(timeout=10)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait(timeout=10)
            assert _left(str(tmp_path)) == [], "processes outlived the killed run"
            for test_id, state, idx, seed in _rows(
                db, "SELECT id, state, idx, seed FROM test_matches WHERE idx IS NOT NULL"
            ):
                assert given.setdefault(test_id, (idx, seed)) == (idx, seed), test_id
                if state == "playing":
                    cut.add(test_id)  # given out, not stored: the kill cut it short
        assert cut, "no kill came while a test match was being played"
        ok("ladder", "run", "--db", str(db), "--workers", "2", "--matches", "1")
        rows = _rows(db, "SELECT id, state, idx, seed FROM test_matches ORDER BY id")
        assert [r[1] for r in rows] == ["stored"] * 4
        assert all(given.get(i, (idx, seed)) == (idx, seed) for i, _, idx, seed in rows)
        tests_league = _rows(db, "SELECT tests_league_id FROM ladders")[0][0]
        stored = _rows(db, "SELECT idx, seed, games FROM matches WHERE league_id = ? ORDER BY idx",
                       (tests_league,))  # fmt: skip
        assert stored == sorted((idx, seed, 4) for _, _, idx, seed in rows)
        rated = {r[0] for r in _rows(db, "SELECT idx FROM ladder_matches")}
        assert not rated & {r[2] for r in rows}
        games = _rows(db, "SELECT COUNT(*) FROM games WHERE league_id = ?", (tests_league,))
        assert games == [(16,)]
    finally:
        for proc in marked_processes(str(tmp_path)):
            os.kill(proc.pid, signal.SIGKILL)
