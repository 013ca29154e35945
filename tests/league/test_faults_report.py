"""`arena faults`: every fault of a league with its game, deal, decision, what was
expected, what came back and the bot's log; stored by schema migration 3."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.league.running.runner import run_league

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED = ROOT / "tests" / "bot_scripts" / "scripted_bot.py"
runner = CliRunner()

LEAGUE = f"""
[league]
name = "faulty"
game = "trix"
seed = 5
schedule = "round-robin"

[rules]
kingdoms = 1

[limits]
move_timeout = 0.5
startup_timeout = 10.0

[[entrant]]
name = "illegal"
bot = "python {SCRIPTED} --fault illegal --at 3"

[[entrant]]
name = "exits"
bot = "python {SCRIPTED} --fault exit --at 2"

[[entrant]]
name = "first"
bot = "builtin:first"

[[entrant]]
name = "broken"
bot = "no-such-command-xyz"
"""


@pytest.fixture(scope="module")
def league_db(tmp_path_factory) -> Path:
    """One match (four rotated games) of faulty bots, stored."""
    folder = tmp_path_factory.mktemp("faults")
    (folder / "faulty.toml").write_text(LEAGUE)
    summary = run_league(folder / "faulty.toml", folder / "f.db", workers=1, allow_broken=True)
    assert summary.played == 1
    return folder / "f.db"


def _faults(db: Path, *flags: str) -> list[dict]:
    out = runner.invoke(app, ["faults", "--db", str(db), "--format", "json", *flags])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def _replay(db: Path, game_id: int) -> dict:
    out = runner.invoke(app, ["replay", str(game_id), "--db", str(db), "--format", "json"])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


@pytest.mark.slow
def test_each_fault_points_at_its_game_deal_decision_and_replay_event(league_db) -> None:
    faults = _faults(league_db)
    by_bot: dict[str, list[dict]] = {}
    for fault in faults:
        by_bot.setdefault(fault["entrant"], []).append(fault)
    assert set(by_bot) == {"illegal", "exits", "broken"}  # builtin:first never faults
    assert {f["kind"] for f in by_bot["illegal"]} == {"illegal"}
    assert {f["kind"] for f in by_bot["exits"]} == {"crash"}
    assert {f["kind"] for f in by_bot["broken"]} == {"start-failure"}
    assert len(by_bot["illegal"]) == len(by_bot["exits"]) == 4  # one in each rotated game
    # The scripted bots fault at the request whose decision_id is --at: the report's
    # decision number is that id, counted by the referee on its own.
    assert {f["decision"] for f in by_bot["illegal"]} == {3}
    assert {f["decision"] for f in by_bot["exits"]} == {2}
    for fault in faults:
        replay = _replay(league_db, fault["game_id"])
        event = replay["deals"][fault["deal"] - 1]["events"][fault["event"]]
        assert event["seat"] == fault["seat"] and event["auto"] == fault["kind"]
        assert replay["players"][fault["seat"]] in (fault["entrant"], "scripted")
        assert fault["expected"].startswith("one of the ") and "legal" in fault["expected"]


def test_expected_and_got_say_what_went_wrong(league_db) -> None:
    illegal = _faults(league_db, "--bot", "illegal")[0]
    assert "ZZ" in illegal["got"]  # the card the bot answered
    assert "ZZ" not in illegal["expected"]
    crash = _faults(league_db, "--bot", "exits")[0]
    assert "exited with code 3" in crash["got"] and "running bot" in crash["expected"]
    broken = _faults(league_db, "--bot", "broken")[0]
    assert "no-such-command-xyz" in broken["got"] and "handshake" in broken["expected"]
    assert all(len(f["got"]) <= 200 for f in _faults(league_db))


def test_the_log_named_is_the_bots_own(league_db) -> None:
    exits = _faults(league_db, "--bot", "exits")
    assert len(exits) == 4  # one in each rotated game: the loop below checks each
    for fault in exits:
        log = Path(fault["log"])
        assert log.is_absolute() and log.exists()
        assert "exiting on purpose" in log.read_text()
        assert "exits" in log.name and f"rotation{fault['rotation']}" in log.name
    assert len({f["log"] for f in exits}) == 4  # a process per rotation (docs/sandbox.md)
    illegal = _faults(league_db, "--bot", "illegal")
    assert len(illegal) == 4 and all(Path(f["log"]).exists() for f in illegal)
    # A command that could not be started wrote no log: none is named.
    assert {f["log"] for f in _faults(league_db, "--bot", "broken")} == {None}


def test_bot_filter_text_output_and_unknown_names(league_db) -> None:
    only = _faults(league_db, "--bot", "illegal")
    assert only and {f["entrant"] for f in only} == {"illegal"}
    assert _faults(league_db, "--bot", "first") == []
    text = runner.invoke(app, ["faults", "--db", str(league_db), "--bot", "illegal"]).output
    assert text.count("illegal: illegal in game") == len(only)
    for label in ("expected:", "got:", "log:", "decision 3", "deal "):
        assert label in text
    wrong = runner.invoke(app, ["faults", "--db", str(league_db), "--bot", "nobody"])
    assert wrong.exit_code == 2 and "illegal, exits, first, broken" in wrong.output
    missing = runner.invoke(app, ["faults", "--db", str(league_db.parent / "none.db")])
    assert missing.exit_code == 2
    other = runner.invoke(app, ["faults", "--db", str(league_db), "--league", "nope"])
    assert other.exit_code == 2 and "faulty" in other.output


def test_migration_3_upgrades_a_database_holding_old_faults(tmp_path, monkeypatch) -> None:
    """A database made before migration 3, with faults stored then, upgrades in place;
    its old faults are listed with "-" for what was not recorded."""
    import arena.league.store.schema as store

    (tmp_path / "faulty.toml").write_text(LEAGUE)
    monkeypatch.setattr(store, "MIGRATIONS", store.MIGRATIONS[:2])
    old = store.open_db(tmp_path / "old.db")
    assert "expected" not in old["faults"].columns_dict
    old.close()
    db = sqlite3.connect(tmp_path / "old.db")
    db.executescript(
        """INSERT INTO leagues (id, name, game, settings, file, created_at)
             VALUES (1, 'old', 'trix', '{}', 'old.toml', 0);
           INSERT INTO entrants (league_id, name, bot, position) VALUES (1, 'a', 'x', 0);
           INSERT INTO matches (id, league_id, idx, seed, entrants, games, seconds, finished_at)
             VALUES (1, 1, 0, 's', '[]', 1, 0, 0);
           INSERT INTO games (id, league_id, match_id, rotation, seed, players, totals, ranks,
                              decisions, replay)
             VALUES (1, 1, 1, 0, 's', '[]', '[]', '[]', 0, '{}');
           INSERT INTO faults (game_id, match_id, league_id, entrant, seat, deal, kind, detail)
             VALUES (1, 1, 1, 'a', 0, 2, 'timeout', 'no answer within 1.000 s');"""
    )
    db.commit()
    db.close()
    monkeypatch.undo()
    new = store.open_db(tmp_path / "old.db")
    try:
        assert {"decision", "event", "expected", "got", "log"} <= set(new["faults"].columns_dict)
        assert [r["version"] for r in new["schema_migrations"].rows][:3] == [1, 2, 3]
    finally:
        new.close()
    rows = _faults(tmp_path / "old.db")
    assert len(rows) == 1 and rows[0]["deal"] == 2 and rows[0]["expected"] is None
    text = runner.invoke(app, ["faults", "--db", str(tmp_path / "old.db")]).output
    assert "decision -" in text and "expected: -" in text and "no answer within" in text


@pytest.mark.slow
def test_a_rerun_never_writes_over_a_log_a_stored_fault_points_to(tmp_path) -> None:
    """Two runs of one league (the second in another database, in the same folder):
    every stored fault's log is a file of its own run, unchanged by the other run."""
    (tmp_path / "faulty.toml").write_text(LEAGUE)
    first = tmp_path / "a.db"
    run_league(tmp_path / "faulty.toml", first, workers=1, allow_broken=True)
    logs = {row["log"] for row in _faults(first) if row["log"]}
    assert logs, "the league's faults name their logs"
    before = {log: Path(log).read_bytes() for log in logs}
    run_league(tmp_path / "faulty.toml", tmp_path / "b.db", workers=1, allow_broken=True)
    again = {row["log"] for row in _faults(tmp_path / "b.db") if row["log"]}
    assert again and not again & logs  # the second run's logs are other files
    assert {log: Path(log).read_bytes() for log in logs} == before
