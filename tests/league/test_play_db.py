"""`arena play --db PATH`: a plain play session stored as a league, so that `arena
games`, `faults`, `replay` and `table` read it like any league."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app
from arena.league import store
from arena.league.running import play_db
from arena.league.running.play_db import PLAY_SCHEDULE
from arena.play.deal_keys import game_seed

runner = CliRunner()
SCRIPTED = Path(__file__).resolve().parents[1] / "bot_scripts" / "scripted_bot.py"
ILLEGAL = f"python {SCRIPTED} --fault illegal"


def _invoke(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _data(*args: str):
    """A command's --format json output: its stdout (the notes go to stderr)."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _game_seeds(db: Path, league: str, *public: str) -> list[str]:
    """The seeds the games of `public` seeds were dealt from: HMACs under the league's
    stored deal key (`arena league key`)."""
    key = _invoke("league", "key", "--db", str(db), "--league", league).split()[-1]
    return [game_seed(key, seed) for seed in public]


def test_games_faults_replay_and_table_read_a_stored_play_session(tmp_path) -> None:
    db = tmp_path / "play.db"
    out = _invoke(
        "play", ILLEGAL, "builtin:random", "builtin:random", "builtin:first",
        "--games", "2", "--rules", "kingdoms=1", "--seed", "7", "--sandbox", "off",
        "--logs", str(tmp_path / "logs"), "--db", str(db),
    )  # fmt: skip
    [summary] = [line for line in out.splitlines() if line.startswith("stored ")]
    name = summary.split("'")[1]
    assert name.startswith("play-") and "stored 2 games in league" in summary
    games = _data("games", "--db", str(db), "--format", "json")
    first, second = _game_seeds(db, name, "7-1", "7-2")
    assert [(g["league"], g["match"], g["rotation"], g["seed"]) for g in games] == [
        (name, 0, 0, first), (name, 1, 0, second),
    ]  # fmt: skip
    assert games[0]["players"] == ["scripted_bot", "random", "random#2", "first"]
    faults = _data("faults", "--db", str(db), "--format", "json")
    assert [(f["entrant"], f["kind"], f["game_id"], f["decision"]) for f in faults] == [
        ("scripted_bot", "illegal", games[0]["id"], 3),
        ("scripted_bot", "illegal", games[1]["id"], 3),
    ]
    assert all(Path(f["log"]).exists() for f in faults)
    shown = _invoke("replay", str(games[1]["id"]), "--db", str(db), "--seat", "0",
                    "--decision", "3")  # fmt: skip
    assert f"the trix game of seed '{second}'" in shown
    assert "fallback after a fault: illegal" in shown
    table = _data("table", "--db", str(db), "--format", "json")
    assert sorted(r["name"] for r in table) == ["first", "random", "random#2", "scripted_bot"]
    assert {r["games"] for r in table} == {2} and table[-1]["name"] == "scripted_bot"
    database = store.open_existing(db)
    try:
        league_id, _ = store.league_id_by_name(database, name)
        assert store.latest_ratings(database, league_id)  # rated as a league's matches are
        _, settings = store.league_record(database, league_id)
        assert settings["schedule"] == PLAY_SCHEDULE and settings["seed"] == "7"
    finally:
        database.close()


def test_matches_are_stored_one_match_each_and_a_named_league_grows(tmp_path) -> None:
    db = tmp_path / "play.db"
    args = ["play", "builtin:random", "builtin:first", "builtin:random", "--game", "trianon",
            "--rules", "target=300", "--db", str(db), "--league", "cup"]  # fmt: skip
    _invoke(*args, "--matches", "2")
    _invoke(*args, "--matches", "1")
    games = _data("games", "--db", str(db), "--league", "cup", "--format", "json")
    assert [(g["match"], g["rotation"]) for g in games] == [
        (m, r) for m in range(3) for r in range(3)
    ]
    one, two = _game_seeds(db, "cup", "1-1", "1-2")  # the second session: the league's key
    assert [g["seed"] for g in games] == [one] * 3 + [two] * 3 + [one] * 3


def test_a_named_league_refuses_other_settings_and_players(tmp_path) -> None:
    db = tmp_path / "play.db"
    base = ["play", "builtin:random", "builtin:first", "builtin:random", "--game", "trianon",
            "--rules", "target=300", "--db", str(db), "--league", "cup"]  # fmt: skip
    _invoke(*base)
    other_seed = runner.invoke(app, [*base, "--seed", "9"])
    assert other_seed.exit_code == 2
    assert "league 'cup' is already in the database with seed = '1'" in other_seed.output
    other_bots = runner.invoke(app, [*base[:3], "builtin:first", *base[4:]])
    assert other_bots.exit_code == 2
    assert "has the players random, first, random#2, but this session's are" in (
        other_bots.output
    )
    alone = runner.invoke(app, ["play", *base[1:4], "--game", "trianon", "--league", "cup"])
    assert alone.exit_code == 2 and "give --db PATH too" in alone.output


def test_two_sessions_in_one_second_get_two_leagues(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(play_db.time, "strftime", lambda fmt: "20250102-030405")
    db = tmp_path / "play.db"
    args = ["play", "builtin:first", "builtin:first", "builtin:first", "--game", "trianon",
            "--rules", "target=300", "--db", str(db)]  # fmt: skip
    names = []
    for _ in range(3):
        out = _invoke(*args)
        summary = next(line for line in out.splitlines() if line.startswith("stored "))
        names.append(summary.split("'")[1])
    assert names == ["play-20250102-030405", "play-20250102-030405-2", "play-20250102-030405-3"]
