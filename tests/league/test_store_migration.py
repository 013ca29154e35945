"""Migration 13, the compact store (arena/league/store/compaction.py), on a database
written as the arena before it wrote one: every replay's JSON text and every deal-score
row comes back exactly, an interrupted conversion carries on where it stopped, and a
real league's bytes a game are read from its database."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from arena.bots.builtin import FirstBot, RandomBot
from arena.games import get_game
from arena.league.definition.records import PlayedGame
from arena.league.reports.commands import replay_report
from arena.league.reports.formats import TextOrJson
from arena.league.store import MIGRATIONS, compaction, open_db, upgrade
from arena.league.store.replay_codec import COMPACT, PLAIN, unpack_text
from arena.league.store.writes import _deal_rows
from arena.play.referee import play_game

DEAL_ROWS = (
    "SELECT game_id, deal, seat, entrant, contract, score, declarer, made, typeof(score), "
    "typeof(declarer), typeof(made) FROM deal_scores ORDER BY game_id, deal, seat"
)
NAMES = ["plain", 'émile "q" \\ 😀', "<b>x</b>", "tab\there"]


def _played(game_name: str, seed: str, options: dict) -> dict:
    game = get_game(game_name)
    players = [FirstBot() if seat == 1 else RandomBot() for seat in range(game.seats)]
    names = NAMES[: game.seats]
    return play_game(game, players, seed, game.parse_options(options), names=names).replay


def old_database(path: Path, games: int = 6) -> sqlite_utils.Database:
    """A database as the arena of migration 12 wrote it, written here with that
    arena's statements: replays as JSON text, a deal-score row per deal and seat.
    Its games alternate 4-kingdom Trix and Trianon; one game's text has json.dumps's
    default spaces and one game's deal rows were edited by hand (an entrant that is
    not the game's player), and one deal row belongs to no stored game."""
    db = sqlite_utils.Database(path)
    db.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT, applied_at FLOAT)"
    )
    for version, name, apply in MIGRATIONS:
        if version <= 12:
            apply(db)
            db["schema_migrations"].insert({"version": version, "name": name, "applied_at": 0})
    db["leagues"].insert({"id": 1, "name": "old", "game": "trix", "settings": "{}"})
    db["matches"].insert({"id": 1, "league_id": 1, "idx": 0, "seed": "s", "entrants": "[]"})
    for game_id in range(1, games + 1):
        game_name = "trix" if game_id % 2 else "trianon"
        options = {"kingdoms": 4} if game_name == "trix" else {"target": 300}
        replay = _played(game_name, f"old-{game_id}", options)
        text = json.dumps(replay, separators=(",", ":"))
        if game_id == 2:
            text = json.dumps(replay)
        db["games"].insert(
            {
                "id": game_id,
                "league_id": 1,
                "match_id": 1,
                "rotation": game_id,
                "seed": replay["seed"],
                "players": json.dumps(replay["players"]),
                "totals": json.dumps(replay["totals"]),
                "ranks": json.dumps(replay["ranks"]),
                "decisions": 1,
                "replay": text,
            }
        )
        played = PlayedGame(game_id, tuple(replay["players"]), replay, 1)
        db["deal_scores"].insert_all(_deal_rows(played, game_id))
    db.execute("UPDATE deal_scores SET entrant = 'edited' WHERE game_id = 3 AND deal = 2")
    db.execute(
        "INSERT INTO deal_scores VALUES (99, 1, 0, 'gone', 'trix', 5, 0, NULL)"
    )  # a game since deleted
    db.conn.commit()
    return db


def _texts(path: Path) -> dict[int, str]:
    with sqlite3.connect(path) as con:
        return {i: unpack_text(r) for i, r in con.execute("SELECT id, replay FROM games")}


def _deal_rows_of(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as con:
        return con.execute(DEAL_ROWS).fetchall()


def test_the_migration_gives_back_every_replay_and_deal_row_exactly(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old_database(path).close()
    texts, rows = _texts(path), _deal_rows_of(path)
    assert all(isinstance(t, str) for t in texts.values()) and len(rows) > 6 * 40
    before, after = upgrade(path)
    assert (before, after) == (12, MIGRATIONS[-1][0])
    assert _texts(path) == texts  # every replay's JSON text, byte for byte
    assert _deal_rows_of(path) == rows  # every row, column and type the view gives
    with sqlite3.connect(path) as con:
        kinds = {i: r[0] for i, r in con.execute("SELECT id, replay FROM games")}
        kept = con.execute("SELECT DISTINCT game_id FROM deal_scores_kept").fetchall()
    assert kinds == {i: PLAIN if i == 2 else COMPACT for i in texts}
    assert sorted(kept) == [(3,), (99,)]  # the edited game and the orphan row, as they were
    for game_id, text in texts.items():
        shown = replay_report(str(game_id), path, fmt=TextOrJson.JSON)
        assert shown == json.dumps(json.loads(text), indent=1)


def test_an_interrupted_migration_carries_on_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    old_database(path, games=7).close()
    texts, rows = _texts(path), _deal_rows_of(path)
    real, calls = compaction._convert_games, []

    def stopped_after_two(db: sqlite_utils.Database, ids: list[int], *pack: object) -> int:
        calls.append(list(ids))
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C in the third batch
        return real(db, ids, *pack)

    monkeypatch.setattr(compaction, "_convert_games", stopped_after_two)
    monkeypatch.setattr(compaction, "BATCH", 2)
    with pytest.raises(KeyboardInterrupt):
        upgrade(path)
    assert calls == [[1, 2], [3, 4], [5, 6]]
    with sqlite3.connect(path) as con:
        kinds = dict(con.execute("SELECT id, typeof(replay) FROM games"))
        version = con.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0]
        left = [g for (g,) in con.execute("SELECT DISTINCT game_id FROM deal_scores")]
    assert version == 12  # not recorded: the next opening carries on
    assert kinds == {1: "blob", 2: "blob", 3: "blob", 4: "blob", 5: "text", 6: "text", 7: "text"}
    assert left == [5, 6, 7, 99]  # the rolled-back batch's rows are still where they were
    packed_first = sqlite3.connect(path).execute("SELECT replay FROM games WHERE id = 1").fetchone()
    monkeypatch.setattr(compaction, "_convert_games", real)
    calls.clear()
    lines: list[tuple[int, int]] = []
    monkeypatch.setattr(compaction, "_stderr_progress", lambda: lambda d, t: lines.append((d, t)))
    assert upgrade(path) == (12, MIGRATIONS[-1][0])
    assert lines[-1] == (3, 3)  # only the games left were converted, with progress
    assert _texts(path) == texts and _deal_rows_of(path) == rows
    again = sqlite3.connect(path).execute("SELECT replay FROM games WHERE id = 1").fetchone()
    assert again == packed_first  # a converted game is not converted twice


def test_the_progress_goes_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "old.db"
    old_database(path, games=2).close()
    upgrade(path)
    err = capsys.readouterr().err
    assert "migration 13 (compact store): 2 of 2 games converted" in err


def test_a_new_database_has_the_view(tmp_path: Path) -> None:
    db = open_db(tmp_path / "new.db")
    try:
        assert compaction.is_view(db)
        assert db.execute("SELECT COUNT(*) FROM deal_scores").fetchone()[0] == 0
    finally:
        db.close()


def test_vacuum_gives_the_freed_space_back(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old_database(path, games=4).close()
    upgrade(path)
    db = open_db(path)
    try:
        before, after = compaction.vacuum(db)
    finally:
        db.close()
    assert after < before and after == path.stat().st_size


@pytest.mark.slow
def test_a_real_league_takes_at_most_8_kb_a_game(tmp_path: Path) -> None:
    """80 full 4-kingdom Trix games between built-in bots, stored by `arena run`'s own
    path: the vacuumed file's bytes (every table and index, and the schema's pages)
    divided by its games. The figure comes from the file; the bench prints it."""
    from arena.bench.store import bench_store

    measured = bench_store(80, folder=tmp_path)
    assert measured.games == 80
    after = tmp_path / "after.db"
    with sqlite3.connect(after) as con:
        games = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        pages = con.execute("SELECT SUM(pgsize) FROM dbstat").fetchone()[0]
    assert measured.after_file == after.stat().st_size == pages  # read from the file
    assert sum(measured.after.values()) == pages
    assert measured.before_file == (tmp_path / "before.db").stat().st_size
    assert measured.lossless
    assert after.stat().st_size / games <= 8 * 1024
    assert measured.before_file / games > 40 * 1024  # the baseline is what it was: JSON


def test_a_big_conversion_packs_on_every_core_and_gives_back_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More games than two batches: replays are packed by a pool of processes."""
    path = tmp_path / "old.db"
    old_database(path, games=7).close()
    texts, rows = _texts(path), _deal_rows_of(path)
    monkeypatch.setattr(compaction, "BATCH", 2)
    monkeypatch.setattr(compaction.os, "cpu_count", lambda: 2)
    used = []
    real = compaction._pack_on
    monkeypatch.setattr(
        compaction, "_pack_on", lambda pool, t: used.append(len(t)) or real(pool, t)
    )
    upgrade(path)
    assert sum(used) == 7  # every replay went through the pool
    assert _texts(path) == texts and _deal_rows_of(path) == rows
