"""Trianon through everything that is not the engine: the wire, external bots, leagues."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.league.reports.table import league_rows
from arena.league.running.runner import run_league
from arena.league.store import open_db
from arena.league.store.replay_codec import unpack_replay

ROOT = Path(__file__).resolve().parents[2]
RANDOM = f"python {ROOT / 'sample_bots' / 'random_bot.py'}"
JS = f"node {ROOT / 'sample_bots' / 'js_bot' / 'bot.js'}"


@pytest.mark.slow
def test_play_trianon_with_external_bots(tmp_path, js_bot_installed) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app,
        ["play", "--game", "trianon", RANDOM, JS, "builtin:random", "--matches", "1",
         "--replays", str(tmp_path / "r"), "--logs", str(tmp_path / "logs"), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    games = [json.loads(line) for line in result.output.splitlines()]
    assert len(games) == 3 and all(g["faults"] == 0 for g in games)
    for game in games:
        replay = json.loads(Path(game["replay"]).read_text())
        assert replay["game"] == "trianon" and replay["options"] == {
            "target": 500, "max_deals": 200
        }  # fmt: skip
        for deal in replay["deals"]:
            assert set(deal) == {"number", "dealer", "hands", "events", "scores"}
            kinds = [e["type"] for e in deal["events"]]
            assert set(kinds) <= {"bid", "pass", "raise", "keep", "play"}
            assert kinds.count("play") == 36
            if "bid" in kinds:
                assert kinds.count("raise") + kinds.count("keep") == 1


@pytest.mark.slow
def test_a_trianon_league_with_three_seat_tables(tmp_path) -> None:
    league = tmp_path / "tri.toml"
    league.write_text(
        '[league]\nname = "tri"\ngame = "trianon"\nseed = 5\nrotations = "all"\nrate_by = "match"\n'
        "[rules]\ntarget = 300\n"
        + "".join(
            f'[[entrant]]\nname = "{n}"\nbot = "{b}"\n'
            for n, b in [
                ("a", "builtin:random"),
                ("b", "builtin:first"),
                ("c", "builtin:random"),
                ("d", RANDOM),
            ]
        )  # fmt: skip
    )
    summary = run_league(league, tmp_path / "t.db", workers=2)
    assert summary.played == summary.scheduled == 4  # C(4, 3) tables
    db = open_db(tmp_path / "t.db")
    try:
        rows = league_rows(db, 1)
        games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        steps = db.execute("SELECT COUNT(DISTINCT step) FROM ratings").fetchone()[0]
    finally:
        db.close()
    assert games == 4 * 6  # every seating of three
    assert steps == 4
    assert {r["name"] for r in rows} == {"a", "b", "c", "d"}
    assert all(r["matches"] == 3 and r["games"] == 18 for r in rows)


def test_trianon_tables_count_contracts_declared_made_and_failed(tmp_path) -> None:
    from arena.games import trianon

    league = tmp_path / "tri.toml"
    league.write_text(
        '[league]\nname = "tri"\ngame = "trianon"\nseed = 9\n'
        + "".join(f'[[entrant]]\nname = "{n}"\nbot = "builtin:random"\n' for n in "abc")
    )
    run_league(league, tmp_path / "t.db", workers=1)
    db = open_db(tmp_path / "t.db")
    try:
        rows = {r["name"]: r for r in league_rows(db, 1)}
        replays = [unpack_replay(r["replay"]) for r in db["games"].rows]
        players = [json.loads(r["players"]) for r in db["games"].rows]
    finally:
        db.close()
    expected: dict[str, dict[str, list[int]]] = {}
    for replay, seats in zip(replays, players, strict=True):
        for deal in replay["deals"]:
            seat, made = trianon.deal_declarer(deal)
            if seat < 0:
                continue
            strain = trianon.deal_contract(deal).lstrip("0123456789")
            counts = expected.setdefault(seats[seat], {}).setdefault(strain, [0, 0])
            counts[0] += 1
            counts[1] += int(made)
    assert expected, "no contract was declared"
    for name, strains in expected.items():
        shown = rows[name]["per_contract"]
        assert {s: [v["declared"], v["made"]] for s, v in shown.items()} == strains
        assert all(v["declared"] == v["made"] + v["failed"] for v in shown.values())


def test_deal_declarer_reads_made_and_failed_from_n5() -> None:
    from arena.games.trianon import deal_declarer

    def record(events, scores):
        return {"events": events, "scores": scores}

    bids = [{"seat": 1, "type": "bid", "bid": "7H"}, {"seat": 2, "type": "pass"},
            {"seat": 0, "type": "bid", "bid": "8C"}, {"seat": 1, "type": "pass"},
            {"seat": 2, "type": "keep"}]  # fmt: skip
    bids[4]["seat"] = 0
    assert deal_declarer(record(bids, [120, 0, 0])) == (0, True)  # N-5.2
    assert deal_declarer(record(bids, [0, 80, 80])) == (0, False)  # N-5.3
    four = [{"seat": 1, "type": "bid", "bid": "4C"}, {"seat": 2, "type": "pass"},
            {"seat": 0, "type": "pass"}, {"seat": 1, "type": "keep"}]  # fmt: skip
    assert deal_declarer(record(four, [0, 0, 0])) == (1, True)  # a made 4 scores 0
    passes = [{"seat": s, "type": "pass"} for s in (1, 2, 0)]
    assert deal_declarer(record(passes, [150, 0, 35])) == (-1, None)  # N-6


@pytest.mark.slow
def test_trianon_replays_pass_the_independent_checker(tmp_path, js_bot_installed) -> None:
    """Done when: `arena play --game trianon` with three sample bots and the Trianon demo
    league complete, and an independent checker (written from docs/rules/trianon.md alone) accepts
    their replays."""
    from arena.league.running.runner import run_league
    from tests.independent.trianon_checker import check_replay

    runner = CliRunner()
    result = runner.invoke(
        app,
        ["play", "--game", "trianon", RANDOM, JS, f"python {ROOT / 'sample_bots/greedy_bot.py'}",
         "--matches", "2", "--replays", str(tmp_path / "r"), "--logs", str(tmp_path / "l")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    files = sorted((tmp_path / "r").glob("*.json"))
    assert len(files) == 6
    for path in files:
        assert check_replay(json.loads(path.read_text())) == [], path
    summary = run_league(ROOT / "leagues" / "trianon-demo.toml", tmp_path / "demo.db")
    assert summary.played == summary.scheduled == 20  # C(6, 3) tables, once each
    db = open_db(tmp_path / "demo.db")
    try:
        replays = [unpack_replay(r["replay"]) for r in db["games"].rows]
        order = [row["name"] for row in league_rows(db, 1)]
    finally:
        db.close()
    assert order[0] == "sampler", order  # issue 19: the search bot tops the Trianon demo
    assert len(replays) == 120  # every seating of each table: 6 games a match
    for replay in replays:
        assert check_replay(replay) == []
