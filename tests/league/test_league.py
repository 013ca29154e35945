"""Leagues: league files, storage, resume, ratings in schedule order, tables."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.errors import ConfigError
from arena.league.definition.config import load_league
from arena.league.reports.table import league_rows, render
from arena.league.running.runner import league_schedule, run_league
from arena.league.standings.ratings import GameOutcome, MatchOutcome, Rater, ranking, rate_prefix
from arena.league.store import MIGRATIONS, open_db
from arena.league.store.replay_codec import unpack_replay
from tests.independent.trix_checker import check_replay
from tests.support.bot_processes import bot_processes, live_processes, marked_processes

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "random_bot.py"

# Tests that compare two databases deal from one key: each database would otherwise
# make its own (tests/test_deal_keys.py checks that it does).
TEST_DEAL_KEY = "00112233445566778899aabbccddeeff"
LEAGUE = """
[league]
name = "{name}"
game = "trix"
seed = {seed}
schedule = "round-robin"
rounds = {rounds}
deal_key = "{deal_key}"

[rules]
kingdoms = 1

[limits]
move_timeout = 2.0

[[entrant]]
name = "first"
bot = "builtin:first"

[[entrant]]
name = "random-a"
bot = "builtin:random"

[[entrant]]
name = "random-b"
bot = "builtin:random"

[[entrant]]
name = "random-py"
bot = "python {random_bot}"

[[entrant]]
name = "first-b"
bot = "builtin:first"
"""


def write_league(folder: Path, name="t", seed=7, rounds=1, **extra) -> Path:
    text = LEAGUE.format(
        name=name, seed=seed, rounds=rounds, random_bot=RANDOM_BOT, deal_key=TEST_DEAL_KEY
    )
    for old, new in extra.items():
        text = text.replace(old, new)
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


def test_league_file_errors_name_file_key_and_what_is_allowed(tmp_path) -> None:
    cases = {
        'schedule = "round-robin"': ('schedule = "swiss"', "schedule", "round-robin"),
        "seed = 7": ("seed = 1.5", "seed", "integer"),
        "rounds = 1": ("rounds = 0", "rounds", "at least 1"),
        "kingdoms = 1": ("kingdoms = 9", "kingdoms", "1, 2, 3 or 4"),
        "move_timeout = 2.0": ("move_timeout = -1", "move_timeout", "positive"),
        'game = "trix"': ('game = "chess"', "game", "trix"),
        "[limits]": ("[limits]\nspeed = 3", "speed", "known keys"),
    }
    for old, (new, key, allowed) in cases.items():
        path = write_league(tmp_path, **{old: new})
        with pytest.raises(ConfigError) as err:
            load_league(path)
        text = str(err.value)
        assert str(path) in text and key in text and allowed in text, text
    path = write_league(tmp_path, **{'name = "random-b"': 'name = "first"'})
    with pytest.raises(ConfigError, match="unique"):
        load_league(path)
    with pytest.raises(ConfigError, match="no such league file"):
        load_league(tmp_path / "missing.toml")


def test_relative_bot_paths_resolve_against_the_league_folder(tmp_path) -> None:
    from arena.bots.process import command_argv

    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "b.py").write_text("")
    argv = command_argv("python bots/b.py --x", tmp_path)
    assert argv[1] == str((tmp_path / "bots" / "b.py").resolve()) and argv[2] == "--x"


def test_a_relative_program_path_resolves_against_the_league_folder(tmp_path) -> None:
    """A compiled bot is its program (`../sample_bots/cpp_bot/build/cpp_bot`): the
    sandbox starts it in its own folder, where a relative path would not be found."""
    from arena.bots.process import command_argv

    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "b").write_text("")
    argv = command_argv("bots/b --x", tmp_path)
    assert argv == [str((tmp_path / "bots" / "b").resolve()), "--x"]
    assert command_argv("b --x", tmp_path / "bots")[0] == "b"  # a bare name: found on PATH


def test_a_python_module_name_stays_a_name_beside_a_folder_of_that_name(tmp_path) -> None:
    from arena.bots.process import command_argv

    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "b.py").write_text("")
    argv = command_argv("python -m bots --data bots/b.py", tmp_path)
    assert argv[1:4] == ["-m", "bots", "--data"]  # `-m bots` imports the package bots/
    assert argv[4] == str((tmp_path / "bots" / "b.py").resolve())
    assert command_argv("./bot -m bots", tmp_path)[2] == str((tmp_path / "bots").resolve())


def _games(db_path: Path) -> list[tuple]:
    """Every stored game, its replay without `think` (the think times of a run are its
    own: everything else is the same however the league was run)."""
    db = sqlite3.connect(db_path)
    try:
        rows = db.execute(
            "SELECT m.idx, g.rotation, g.players, g.totals, g.replay FROM games g "
            "JOIN matches m ON g.match_id = m.id ORDER BY m.idx, g.rotation"
        ).fetchall()
    finally:
        db.close()
    return [(*row[:4], json.dumps(_without_think(unpack_replay(row[4])))) for row in rows]


def _without_think(replay: dict) -> dict:
    replay.pop("think", None)
    return replay


def _final_ratings(db_path: Path) -> dict:
    db = open_db(db_path)
    try:
        return {r["name"]: (r["mu"], r["sigma"]) for r in league_rows(db, 1)}
    finally:
        db.close()


@pytest.mark.slow
def test_a_league_is_stored_whole_and_the_same_with_one_or_two_workers(tmp_path) -> None:
    path = write_league(tmp_path)
    one = run_league(path, tmp_path / "one.db", workers=1)
    two = run_league(path, tmp_path / "two.db", workers=2)
    assert one.played == two.played == 5 == len(league_schedule(load_league(path)))
    games_one, games_two = _games(tmp_path / "one.db"), _games(tmp_path / "two.db")
    assert len(games_one) == 5 * 4
    assert games_one == games_two
    assert _final_ratings(tmp_path / "one.db") == _final_ratings(tmp_path / "two.db")
    for *_, replay in games_one:
        assert check_replay(json.loads(replay)) == []
    db = sqlite3.connect(tmp_path / "one.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 20 * 4
    assert db.execute("SELECT COUNT(*) FROM deal_scores").fetchone()[0] == 20 * 5 * 4
    versions = db.execute("SELECT version FROM schema_migrations").fetchall()
    assert versions == [(version,) for version, *_ in MIGRATIONS]
    steps = db.execute("SELECT COUNT(DISTINCT step) FROM ratings").fetchone()[0]
    assert steps == 5  # rate_by = "margin" (the default): one update per match
    db.close()


@pytest.mark.slow
def test_each_seat_holds_each_bot_once_per_match(tmp_path) -> None:
    run_league(write_league(tmp_path), tmp_path / "a.db", workers=1)
    by_match: dict[int, list] = {}
    for idx, _rotation, players, _totals, replay in _games(tmp_path / "a.db"):
        by_match.setdefault(idx, []).append((json.loads(players), json.loads(replay)))
    assert sorted(by_match) == list(range(5)) and {len(g) for g in by_match.values()} == {4}
    for games in by_match.values():
        seatings = [players for players, _ in games]
        for seat in range(4):
            assert len({p[seat] for p in seatings}) == 4  # each bot once in each seat
        hands = {json.dumps(r["deals"][0]["hands"]) for _, r in games}
        assert len(hands) == 1  # the same deals in every rotation


@pytest.mark.slow
def test_resume_never_replays_a_stored_match(tmp_path) -> None:
    path = write_league(tmp_path)
    db_path = tmp_path / "r.db"
    run_league(path, db_path, workers=1)
    again = run_league(path, db_path, workers=1)
    assert again.played == 0 and again.already_stored == 5
    db = sqlite3.connect(db_path)
    db.execute("DELETE FROM deal_scores WHERE game_id IN (SELECT id FROM games WHERE match_id = "
               "(SELECT id FROM matches WHERE idx = 3))")  # fmt: skip
    for table in ("results", "faults"):
        db.execute(f"DELETE FROM {table} WHERE match_id = (SELECT id FROM matches WHERE idx = 3)")
    db.execute("DELETE FROM games WHERE match_id = (SELECT id FROM matches WHERE idx = 3)")
    db.execute("DELETE FROM matches WHERE idx = 3")
    db.commit()
    db.close()
    resumed = run_league(path, db_path, workers=1)
    assert resumed.played == 1 and resumed.already_stored == 4
    assert _games(db_path) == _games_of_fresh_run(path, tmp_path)


def _games_of_fresh_run(path: Path, tmp_path: Path) -> list[tuple]:
    fresh = tmp_path / "fresh.db"
    if not fresh.exists():
        run_league(path, fresh, workers=1)
    return _games(fresh)


@pytest.mark.slow
def test_a_changed_league_file_is_refused_naming_the_setting(tmp_path) -> None:
    path = write_league(tmp_path)
    run_league(path, tmp_path / "c.db", workers=1)
    write_league(tmp_path, seed=8)
    with pytest.raises(ConfigError, match="seed"):
        run_league(path, tmp_path / "c.db", workers=1)
    write_league(tmp_path, **{"kingdoms = 1": "kingdoms = 2"})
    with pytest.raises(ConfigError, match="rules"):
        run_league(path, tmp_path / "c.db", workers=1)
    write_league(tmp_path, **{"move_timeout = 2.0": "move_timeout = 3.0"})
    assert run_league(path, tmp_path / "c.db", workers=1).played == 0  # limits may change


def _bot_processes(marker: str) -> list[int]:
    """Live processes whose command line holds `marker` (a bot's unique path)."""
    return [p.pid for p in live_processes() if marker.encode() in p.cmdline]


def _end_processes_marked(marker: str) -> None:
    """SIGKILL the live processes whose command line or environment holds `marker`: the
    ones this test started, and their bots (their TMPDIR lies under the test's tmp_path)."""
    for proc in marked_processes(marker):
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _random_bot_copy(tmp_path: Path, name: str) -> Path:
    """The random bot under a unique path (to find its processes), in a folder that
    the sandboxed bot's own user may read (pytest's tmp_path is the owner's alone)."""
    folder = tmp_path / "bots"
    folder.mkdir(exist_ok=True)
    folder.chmod(0o755)
    bot = folder / name
    bot.write_text(RANDOM_BOT.read_text())
    return bot


def _assert_no_bots_and_intact(bot: Path, db_path: Path) -> None:
    """No process of `bot` is left (waiting a bounded while for the kills), the database
    passes its integrity check, and every stored match is whole."""
    for _ in range(150):
        if not _bot_processes(str(bot)):
            break
        time.sleep(0.1)
    assert _bot_processes(str(bot)) == []
    db = sqlite3.connect(db_path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for (games,) in db.execute("SELECT COUNT(*) FROM games GROUP BY match_id"):
            assert games == 4
    finally:
        db.close()


HOSTILE_LEAGUE = """
[league]
name = "hostile"
game = "trix"
seed = 3
schedule = "balanced"
matches = 4
deal_key = "00112233445566778899aabbccddeeff"

[rules]
kingdoms = 1

[limits]
move_timeout = 0.5
startup_timeout = 10.0

[[entrant]]
name = "random"
bot = "builtin:random"
"""
HOSTILE = {  # entrant -> scripted fault (tests/bot_scripts/scripted_bot.py), once per game
    "times-out": "timeout",  # answers 2 s late: a timeout, the stream cancelled
    "exits": "exit",  # the process exits: a crash, then a restart
    "garbage": "garbage",  # answers bytes that are not a DecisionReply
    "floods": "flood",  # writes 4 MiB to stdout
    "forks": "spawn",  # leaves a double-forked, setsid grandchild sleeping
}


def _hostile_league(folder: Path) -> tuple[Path, Path]:
    """The league file, and the copy of the scripted bot its hostile entrants run (a
    path unique to this test, to find their processes by)."""
    bots = folder / "bots"  # open to the sandboxed bots' own users
    bots.mkdir()
    bots.chmod(0o755)
    bot = bots / "hostile_scripted_bot.py"
    bot.write_text((ROOT / "tests" / "bot_scripts" / "scripted_bot.py").read_text())
    text = HOSTILE_LEAGUE
    for name, fault in HOSTILE.items():
        flags = f"--fault {fault} --pidfile /tmp/{name}.pid"  # the bot's private /tmp
        text += f'\n[[entrant]]\nname = "{name}"\nbot = "python {bot} {flags}"\n'
    path = folder / "hostile.toml"
    path.write_text(text)
    return path, bot


def _stored_matches(db_path: Path) -> int:
    if not db_path.exists():
        return 0
    try:
        with sqlite3.connect(db_path, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    except sqlite3.OperationalError:  # the schema is not made yet
        return 0


def _assert_whole(db_path: Path, scheduled: int | None = None) -> int:
    """The database passes its integrity check, every stored match is whole (all its
    games, each with all its rows), no match is stored twice; with `scheduled`, every
    scheduled match is there. Returns the number of stored matches."""
    db = sqlite3.connect(db_path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        idxs = [idx for (idx,) in db.execute("SELECT idx FROM matches ORDER BY idx")]
        assert len(idxs) == len(set(idxs)), "a match stored twice"
        for match_id, games in db.execute("SELECT id, games FROM matches"):
            rows = db.execute("SELECT id, replay FROM games WHERE match_id = ?", [match_id])
            stored = rows.fetchall()
            assert games == len(stored) == 4, "a partial match"
            for game_id, replay in stored:
                deals = len(unpack_replay(replay)["deals"])
                count = db.execute
                assert count("SELECT COUNT(*) FROM results WHERE game_id = ?",
                             [game_id]).fetchone()[0] == 4  # fmt: skip
                assert count("SELECT COUNT(*) FROM deal_scores WHERE game_id = ?",
                             [game_id]).fetchone()[0] == deals * 4  # fmt: skip
        if scheduled is not None:
            assert idxs == list(range(scheduled))
        return len(idxs)
    finally:
        db.close()


def _outcome(db_path: Path) -> tuple:
    """What must not depend on kills: the table (but its think times, which are each
    run's own, and its charged-fault counts), and every game's seating, events, totals
    and faults (kind and place; a fault's wording may quote a transport error). Whether
    a timeout is charged is the machine's verdict of the moment (one made late by an
    overloaded core is stored uncharged, docs/faults.md), so on a busy machine two runs
    may charge one timeout differently; every fault is still compared, game by game."""
    games = []
    for idx, rotation, players, totals, replay in _games(db_path):
        data = json.loads(replay)
        faults = [(f["seat"], f["deal"], f["kind"], f["decision"], f["event"])
                  for f in data["faults"]]  # fmt: skip
        games.append((idx, rotation, players, totals, data["deals"], faults))
    out = CliRunner().invoke(app, ["table", "--db", str(db_path), "--format", "json"])
    assert out.exit_code == 0, out.output
    rows = [{k: v for k, v in row.items() if k not in ("think_ms", "faults")}
            for row in json.loads(out.stdout)]  # fmt: skip
    return rows, games


def _first_difference(got: tuple, expected: tuple) -> str:
    """Where two `_outcome`s part: the first game that differs, with its faults (a
    difference there is a fault one run had and the other did not)."""
    for mine, theirs in zip(got[1], expected[1], strict=False):
        if mine != theirs:
            return (
                f"match {mine[0]} rotation {mine[1]} ({mine[2]}): totals {mine[3]} vs "
                f"{theirs[3]}; faults {mine[5]} vs {theirs[5]}"
            )
    return f"the tables differ: {got[0]} vs {expected[0]}"


@pytest.mark.slow
def test_kill_9_at_random_moments_among_hostile_bots_then_resume(tmp_path) -> None:
    """`arena run` is killed with SIGKILL three times, at seeded random moments while
    faulty bots play (timeouts, crashes, garbage, floods, forks); after each kill no
    process of the league is left and the database is whole; the resumed league holds
    every scheduled match once and ends exactly as an uninterrupted run does."""
    import random

    path, bot = _hostile_league(tmp_path)
    scheduled = len(league_schedule(load_league(path)))
    db_path = tmp_path / "k.db"
    marker = str(tmp_path)
    # TMPDIR inside tmp_path: the bots' socket folders, and so their environment, and
    # the workers' environment all carry the marker.
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    command = [sys.executable, "-m", "arena.cli", "run", str(path), "--db", str(db_path),
               "--workers", "2"]  # fmt: skip
    rng = random.Random(6)
    kills, stored = 0, 0
    try:
        for _ in range(3):
            process = subprocess.Popen(
                command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            try:
                # The moment: once hostile bots are playing and (at random) one more match
                # is stored, a random while later.
                need = stored + rng.randint(0, 1)
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and process.poll() is None:
                    if _bot_processes(str(bot)) and _stored_matches(db_path) >= need:
                        break
                    time.sleep(0.05)
                time.sleep(rng.uniform(0.0, 1.0))
                if process.poll() is None:
                    process.send_signal(signal.SIGKILL)
                    kills += 1
                process.wait(timeout=10)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait(timeout=10)
            for _ in range(150):  # bounded: workers notice within 0.2 s and kill their bots
                if not marked_processes(marker) + bot_processes():
                    break
                time.sleep(0.1)
            left = {p.pid: p.describe() for p in marked_processes(marker)}
            left |= {pid: str(pid) for pid in bot_processes()}
            assert left == {}, f"processes outlived the killed run: {list(left.values())}"
            now = _assert_whole(db_path)
            assert now >= stored  # nothing stored is ever lost
            stored = now
        assert kills == 3 and stored < scheduled, "the run was not interrupted"
        resumed = run_league(path, db_path, workers=2)
        assert resumed.already_stored == stored and resumed.played == scheduled - stored
        _assert_whole(db_path, scheduled)
        assert _bot_processes(str(bot)) == []
        uninterrupted = tmp_path / "u.db"
        run_league(path, uninterrupted, workers=2)
        _assert_whole(uninterrupted, scheduled)
        table, games = _outcome(db_path)
        expected = _outcome(uninterrupted)
        assert (table, games) == expected, _first_difference((table, games), expected)
    finally:  # a failed check above must not leave the killed runs' processes behind
        _end_processes_marked(marker)
    kinds = {kind for *_, faults in games for _, _, kind, _, _ in faults}
    assert kinds == {"timeout", "crash", "protocol"}  # the hostile bots did misbehave
    logs = (tmp_path / "logs").rglob("*.log")
    assert any("spawned a grandchild" in log.read_text() for log in logs), "no bot forked"


def test_ratings_follow_schedule_order_not_finish_order() -> None:
    def outcome(idx: int, winner: str) -> MatchOutcome:
        entrants = ["a", "b", "c", "d"]
        totals = {e: (100 if e == winner else 0) for e in entrants}
        return MatchOutcome(idx, entrants, [GameOutcome(-1, totals, dict.fromkeys(entrants, 0))])

    from arena.league.definition.config import Ratings

    outcomes = {0: outcome(0, "a"), 1: outcome(1, "b"), 2: outcome(2, "c")}
    first = Rater(Ratings(), "abcd", "match", 1)
    next_idx, _ = rate_prefix(outcomes, first)
    assert next_idx == 3
    # The same matches arriving 2, 0, 1 give the same ratings; 2 waits for 1.
    second = Rater(Ratings(), "abcd", "match", 1)
    partial = {2: outcomes[2], 0: outcomes[0]}
    idx, rows = rate_prefix(partial, second)
    assert idx == 1 and {r["match_idx"] for r in rows} == {0}
    partial[1] = outcomes[1]
    idx, _ = rate_prefix(partial, second, idx)
    assert idx == 3
    assert {k: (v.mu, v.sigma) for k, v in first.ratings.items()} == {
        k: (v.mu, v.sigma) for k, v in second.ratings.items()
    }


def test_ranking_ties_and_forfeits() -> None:
    entrants = ["a", "b", "c", "d"]
    totals = {"a": 10, "b": 5, "c": 5, "d": 0}
    assert ranking(entrants, totals, dict.fromkeys(entrants, 0), 1) == [0, 1, 1, 3]
    faults = {"a": 1, "b": 0, "c": 0, "d": 0}  # a reached forfeit_faults = 1: last
    assert ranking(entrants, totals, faults, 1) == [3, 0, 0, 2]
    assert ranking(entrants, totals, faults, 2) == [0, 1, 1, 3]


def test_a_forfeit_is_rated_as_last_place() -> None:
    from arena.league.definition.config import Ratings

    entrants = ["a", "b", "c", "d"]
    totals = {"a": 500, "b": 0, "c": 0, "d": 0}
    match = MatchOutcome(0, entrants, [GameOutcome(-1, totals, {"a": 1, "b": 0, "c": 0, "d": 0})])
    rater = Rater(Ratings(), entrants, "match", 1)
    rater.apply(match)
    assert rater.ratings["a"].mu < min(rater.ratings[e].mu for e in "bcd")


@pytest.mark.slow
def test_table_json_keys_and_formats(tmp_path) -> None:
    path = write_league(tmp_path)
    run_league(path, tmp_path / "t.db", workers=1)
    db = open_db(tmp_path / "t.db")
    rows = league_rows(db, 1)
    db.close()
    assert [r["place"] for r in rows] == [1, 2, 3, 4, 5]
    for row in rows:
        assert set(row) >= {"place", "name", "rating", "mu", "sigma", "matches", "games",
                            "mean_score", "duplicate_margin", "duplicate_margin_ci", "per_contract",
                            "faults"}  # fmt: skip
        assert row["rating"] == pytest.approx(row["mu"] - 3 * row["sigma"], abs=0.01)
        assert row["matches"] == 4 and row["games"] == 16
        assert set(row["per_contract"]) == {
            "king-of-hearts", "diamonds", "queens", "no-tricks", "trix"
        }  # fmt: skip
    assert sorted(r["rating"] for r in rows) == [r["rating"] for r in rows][::-1]
    # Duplicate margins: each match's margins sum to zero, and each entrant's is a mean
    # over its 4 matches, so the table's margins sum to zero but for their rounding to
    # 0.01 (at most 0.005 each).
    assert abs(sum(r["duplicate_margin"] for r in rows)) <= 5 * 0.005 + 1e-9
    runner = CliRunner()
    for fmt in ("text", "markdown", "csv", "json"):
        out = runner.invoke(app, ["table", "--db", str(tmp_path / "t.db"), "--format", fmt])
        assert out.exit_code == 0, out.output
        assert rows[0]["name"] in out.output
    assert (
        json.loads(
            runner.invoke(app, ["table", "--db", str(tmp_path / "t.db"), "--format", "json"]).stdout
        )
        == rows
    )
    assert render(rows, "markdown", "trix").startswith("| place |")
    games = json.loads(
        runner.invoke(app, ["games", "--db", str(tmp_path / "t.db"), "--format", "json"]).output
    )
    assert len(games) == 20 and set(games[0]) >= {"id", "match", "players", "totals", "ranks"}
    shown = runner.invoke(
        app, ["replay", str(games[5]["id"]), "--db", str(tmp_path / "t.db"), "--format", "json"]
    )
    replay = json.loads(shown.output)
    assert check_replay(replay) == [] and replay["totals"] == games[5]["totals"]
    text = runner.invoke(app, ["replay", str(games[5]["id"]), "--db", str(tmp_path / "t.db")])
    assert "Deal  5" in text.output


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_ends_every_bot(tmp_path) -> None:
    bot = _random_bot_copy(tmp_path, "ctrlc_random_bot.py")
    path = write_league(tmp_path, rounds=3, **{f"python {RANDOM_BOT}": f"python {bot}"})
    db_path = tmp_path / "i.db"
    command = [sys.executable, "-m", "arena.cli", "run", str(path), "--db", str(db_path),
               "--workers", "2"]  # fmt: skip
    # A child inherits an ignored SIGINT (pytest started in the background by a shell
    # without job control has one) but not a handler: with one set here, the run gets
    # Ctrl-C as a terminal's foreground job does.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _bot_processes(str(bot)):
            if process.poll() is not None:  # ended before any bot was seen: say why
                out, err = process.communicate(timeout=10)
                raise AssertionError(f"the run ended first ({process.returncode}): {out + err!r}")
            time.sleep(0.1)
        if not _bot_processes(str(bot)):
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate(timeout=10)
            seen = "\n".join(p.describe() for p in live_processes())
            raise AssertionError(f"no bot started in 60 s: {out + err!r}\nprocesses:\n{seen}")
        os.killpg(process.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    assert process.returncode == 130, (out + err).decode(errors="replace")
    assert b"interrupted" in err and b"Traceback" not in err
    _assert_no_bots_and_intact(bot, db_path)


@pytest.mark.slow
def test_until_separated_stops_scheduling_when_the_ranking_settles(tmp_path, monkeypatch):
    import arena.league.running.schedule_source as source

    calls = []

    def settled_after_two(matches, rater, rule):
        calls.append(1)
        return ("a",) if len(calls) >= 2 else None

    monkeypatch.setattr(source, "stop_check", settled_after_two)
    path = write_league(tmp_path, rounds=2)
    summary = run_league(path, tmp_path / "s.db", workers=1, until_separated=True)
    assert summary.stopped_early and summary.played == 2 < summary.scheduled == 10
    without = run_league(path, tmp_path / "w.db", workers=1)
    assert without.played == 10 and not without.stopped_early


@pytest.mark.slow
def test_a_bot_that_cannot_start_does_not_stop_a_league_allowed_to_play_broken(tmp_path):
    broken = {'name = "first-b"\nbot = "builtin:first"': 'name = "first-b"\nbot = "no-such-xyz"'}
    path = write_league(tmp_path, **broken)
    assert "no-such-xyz" in path.read_text()
    summary = run_league(path, tmp_path / "f.db", workers=1, allow_broken=True)
    assert summary.played == 5 and summary.broken == ["first-b"]
    assert summary.start_failed == ["first-b"] and summary.start_failures == 16 * 5
    db = sqlite3.connect(tmp_path / "f.db")
    kinds = db.execute("SELECT DISTINCT entrant, kind FROM faults").fetchall()
    db.close()
    assert kinds == [("first-b", "start-failure")]
    db = open_db(tmp_path / "f.db")
    rows = {r["name"]: r for r in league_rows(db, 1)}
    db.close()
    # Every one of its 16 games (4 matches, 4 rotations) charges it max_faults (5), then
    # only fallbacks; it forfeits and is last.
    assert rows["first-b"]["faults"] == 16 * 5 and rows["first-b"]["place"] == 5
    stored = _games(tmp_path / "f.db")
    assert len(stored) == 5 * 4
    for *_, replay in stored:
        assert check_replay(json.loads(replay)) == []


def test_migrations_bring_an_old_database_up_to_date(tmp_path, monkeypatch) -> None:
    import arena.league.store.schema as store

    monkeypatch.setattr(store, "MIGRATIONS", store.MIGRATIONS[:1])
    old = store.open_db(tmp_path / "old.db")
    assert "declarer" not in old["deal_scores"].columns_dict
    old.close()
    monkeypatch.undo()
    new = store.open_db(tmp_path / "old.db")
    try:
        assert {"declarer", "made"} <= set(new["deal_scores"].columns_dict)
        versions = [r["version"] for r in new["schema_migrations"].rows]
        assert versions == [version for version, *_ in MIGRATIONS] and versions[:3] == [1, 2, 3]
    finally:
        new.close()


def test_gauntlet_candidates_named_twice_are_a_league_file_error(tmp_path) -> None:
    path = write_league(
        tmp_path,
        **{
            'schedule = "round-robin"': 'schedule = "gauntlet"\nmatches = 2\n'
            'candidates = ["first", "random-a", "first"]',
            "rounds = 1": "",  # round-robin only: refused with a gauntlet
        },
    )
    with pytest.raises(ConfigError) as err:
        load_league(path)
    assert str(path) in str(err.value) and "candidates" in str(err.value)
    assert "'first' appears twice" in str(err.value)
    result = CliRunner().invoke(app, ["run", str(path), "--db", str(tmp_path / "g.db")])
    assert result.exit_code == 2 and result.output.startswith("error: "), result.output
    assert f"{path}: [league] candidates" in result.output


def test_league_file_errors_name_the_entrant_and_say_what_is_required(tmp_path) -> None:
    cases = {
        'bot = "builtin:first"': (
            'bot = "builtin:best"',
            "[entrant 1] bot of 'first': unknown built-in bot",
        ),
        'bot = "builtin:random"': (
            'bot = "grpc:nohost"',
            "[entrant 2] bot of 'random-a': bot spec 'grpc:nohost'",
        ),
        'game = "trix"': ("", "[league] game is required: one of trix, trianon"),
        "[[entrant]]": ("[[entrants]]", "entrants is not a known key"),
    }
    for old, (new, message) in cases.items():
        path = write_league(tmp_path, **{old: new})
        with pytest.raises(ConfigError) as err:
            load_league(path)
        assert str(err.value).startswith(f"{path}: {message}"), str(err.value)
    text = write_league(tmp_path).read_text()
    path = tmp_path / "few.toml"
    path.write_text(text[: text.index('[[entrant]]\nname = "random-b"')])
    with pytest.raises(ConfigError) as err:
        load_league(path)
    assert str(err.value) == f"{path}: [[entrant]] tables: trix needs at least 4 entrants, " + (
        "this file has 2"
    )
    result = CliRunner().invoke(
        app, ["run", str(write_league(tmp_path, **{'bot = "builtin:first"': 'bot = "builtin:x"'}))]
    )
    assert result.exit_code == 2 and "[entrant 1] bot of 'first'" in result.output, result.output
    assert not (tmp_path / "arena.db").exists()  # refused before the database is made
