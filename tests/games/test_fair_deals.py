"""Deals nobody can guess, and no bot process that sees a deal twice (the fair-play
rules of docs/sandbox.md, "What a bot can learn across games").

Hostile bots: tests/bot_scripts/hostile/seed_guess_bot.py knows the league file and the documented
deal function and tries to find each game's seed; tests/bot_scripts/hostile/deal_memory_bot.py logs
every hand it sees, so a test can check that none reached one process in two games.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots.builtin import make_builtin
from arena.bots.rotation_pool import RotationPool, Seat
from arena.cli import app
from arena.errors import ConfigError
from arena.league.running.runner import run_league
from arena.league.store.replay_codec import unpack_replay
from arena.play.deal_keys import deal_key_problem, game_seed, new_deal_key

pytestmark = [pytest.mark.sandbox]

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "bot_scripts" / "hostile"
KEY = "0f" * 16
runner = CliRunner()

LEAGUE = """
[league]
name = "fair"
game = "trix"
seed = 7
{key}
schedule = "round-robin"

[rules]
kingdoms = 1

[limits]
move_timeout = 2.0

{entrants}
"""


def _league(folder: Path, bots: list[str], key: str | None = None, name: str = "fair") -> Path:
    entrants = "\n".join(
        f'[[entrant]]\nname = "e{i}"\nbot = "{bot}"\n' for i, bot in enumerate(bots)
    )
    text = LEAGUE.format(key=f'deal_key = "{key}"' if key else "", entrants=entrants)
    path = folder / f"{name}.toml"
    path.write_text(text.replace('name = "fair"', f'name = "{name}"', 1))
    return path


def _hands(db_path: Path) -> list[str]:
    """Every stored game's first deal, as dealt, in schedule order."""
    db = sqlite3.connect(db_path)
    try:
        rows = db.execute(
            "SELECT g.replay FROM games g JOIN matches m ON g.match_id = m.id "
            "ORDER BY m.idx, g.rotation"
        ).fetchall()
    finally:
        db.close()
    return [json.dumps(unpack_replay(replay)["deals"][0]["hands"]) for (replay,) in rows]


def _log_lines(folder: Path, prefix: str) -> list[str]:
    return [
        line.split(prefix, 1)[1].strip()
        for log in folder.rglob("*.log")
        for line in log.read_text(errors="replace").splitlines()
        if prefix in line
    ]


def test_game_seeds_are_hmacs_of_the_public_seed_under_the_key() -> None:
    assert game_seed(KEY, "7/0") == game_seed(KEY.upper(), "7/0")  # one key, however written
    assert game_seed(KEY, "7/0") != game_seed(KEY, "7/1")
    assert game_seed(KEY, "7/0") != game_seed("f0" * 16, "7/0")
    assert re.fullmatch(r"[0-9a-f]{32}", game_seed(KEY, "7/0"))
    assert game_seed("", "7/0") == "7/0"  # a league stored before keys: its public seeds
    fresh = {new_deal_key() for _ in range(50)}
    assert len(fresh) == 50 and all(len(key) == 32 for key in fresh)  # 128 bits each
    assert "32 to 128 hex digits" in (deal_key_problem("abc") or "")
    assert "hex digits only" in (deal_key_problem("z" * 32) or "")
    assert deal_key_problem(KEY) is None


@pytest.mark.slow
def test_the_same_league_in_two_databases_deals_differently_unless_keyed(tmp_path) -> None:
    bots = ["builtin:first", "builtin:random", "builtin:random", "builtin:first"]
    unkeyed = _league(tmp_path, bots)
    run_league(unkeyed, tmp_path / "a.db", workers=1)
    run_league(unkeyed, tmp_path / "b.db", workers=1)
    assert _hands(tmp_path / "a.db") != _hands(tmp_path / "b.db")
    keyed = _league(tmp_path, bots, KEY, name="keyed")
    run_league(keyed, tmp_path / "c.db", workers=1)
    run_league(keyed, tmp_path / "d.db", workers=1)
    assert _hands(tmp_path / "c.db") == _hands(tmp_path / "d.db")
    # The key a database made replays its league exactly elsewhere.
    shown = runner.invoke(app, ["league", "key", "--db", str(tmp_path / "a.db")])
    assert shown.exit_code == 0, shown.output
    stored = shown.stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{32}", stored)
    again = _league(tmp_path, bots, stored, name="fair")
    run_league(again, tmp_path / "e.db", workers=1)
    assert _hands(tmp_path / "e.db") == _hands(tmp_path / "a.db")


def test_a_stored_league_refuses_another_deal_key(tmp_path) -> None:
    bots = ["builtin:first", "builtin:random", "builtin:random", "builtin:first"]
    run_league(_league(tmp_path, bots, KEY), tmp_path / "a.db", workers=1)
    with pytest.raises(ConfigError, match="stored with another deal key"):
        run_league(_league(tmp_path, bots, "f0" * 16), tmp_path / "a.db", workers=1)
    run_league(_league(tmp_path, bots), tmp_path / "a.db", workers=1)  # none: the stored one


def test_a_league_key_is_said_to_be_secret_while_the_league_runs(tmp_path) -> None:
    bots = ["builtin:first", "builtin:random", "builtin:random", "builtin:first"]
    db = tmp_path / "a.db"
    run_league(_league(tmp_path, bots, KEY), db, workers=1)
    over = runner.invoke(app, ["league", "key", "--db", str(db)])
    assert over.exit_code == 0 and over.stdout.strip() == KEY and "warning" not in over.output
    connection = sqlite3.connect(db)
    connection.execute("UPDATE leagues SET scheduled_matches = 9")
    connection.commit()
    connection.close()
    running = runner.invoke(app, ["league", "key", "--db", str(db)])
    assert running.stdout.strip() == KEY and "is not over (1 of 9 matches stored)" in running.output


@pytest.mark.slow
def test_a_bot_told_everything_public_cannot_recover_the_hands(tmp_path) -> None:
    guesser = f"python {HOSTILE / 'seed_guess_bot.py'} 7"
    bots = [guesser, "builtin:random", "builtin:first", "builtin:random", "builtin:first"]
    run_league(_league(tmp_path, bots), tmp_path / "g.db", workers=1)
    verdicts = _log_lines(tmp_path, "HOSTILE seed:")
    assert len(verdicts) == 4 * 4  # its first decision of each of its games (4 matches of 4)
    assert set(verdicts) == {"not recovered"}, verdicts


@pytest.mark.slow
def test_no_hand_reaches_a_bot_process_twice(tmp_path) -> None:
    memory = f"python {HOSTILE / 'deal_memory_bot.py'}"
    bots = [memory, "builtin:random", memory, "builtin:first", "builtin:random"]
    run_league(_league(tmp_path, bots), tmp_path / "m.db", workers=1)
    _check_no_hand_seen_twice(tmp_path, games_per_process=3)


@pytest.mark.slow
def test_no_hand_reaches_a_bot_process_twice_in_arena_play(tmp_path) -> None:
    memory = f"python {HOSTILE / 'deal_memory_bot.py'}"
    result = runner.invoke(
        app,
        ["play", memory, "builtin:random", memory, "builtin:first", "--matches", "3",
         "--rules", "kingdoms=1", "--logs", str(tmp_path / "logs")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    _check_no_hand_seen_twice(tmp_path, games_per_process=3)


def _check_no_hand_seen_twice(folder: Path, games_per_process: int) -> None:
    """Every process logged what it saw; none saw one hand in two games, and each
    played several matches (so processes are kept across matches, in one slot)."""
    assert _log_lines(folder, "HOSTILE memory:") == []
    games: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for line in _log_lines(folder, "HOSTILE hand "):
        process, game, hand = line.split(" ", 2)
        games[process][hand].add(game)
    assert games, "the deal-memory bot logged nothing"
    for process, hands in games.items():
        assert all(len(seen) == 1 for seen in hands.values()), process
        played = {game for seen in hands.values() for game in seen}
        assert len(played) >= games_per_process, (process, played)


def test_the_pool_keeps_a_player_per_entrant_and_rotation_and_ends_the_oldest() -> None:
    made: list[Seat] = []

    def make(seat: Seat):
        made.append(seat)
        return make_builtin("first")

    pool = RotationPool(make, "trix", {}, capacity=9)
    seats = [[Seat(n, "builtin:first", r) for n in "abcd"] for r in range(4)]
    first = pool.match_players(seats)
    assert len(made) == 16 and len(pool) == 16  # a match needs them all, whatever the bound
    again = pool.match_players(seats)
    assert len(made) == 16 and again == first  # the same players, nothing started again
    other = [[Seat(n, "builtin:first", r) for n in "abce"] for r in range(4)]
    pool.match_players(other)
    assert len(made) == 20 and len(pool) == 16  # e joined; d's four (least recent) ended
    assert all(seat.entrant != "d" for seat in pool._players)
    with pytest.raises(ValueError, match="only one place"):
        pool.match_players([[Seat("a", "builtin:first", 0)] * 2])
    pool.close()
    assert len(pool) == 0
