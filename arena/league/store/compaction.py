"""Migration 13, the compact store: every game's replay packed by the codec
(arena/league/store/replay_codec.py) and its deal scores folded into a row per deal
(`game_deals`), so a 4-kingdom Trix game takes about 4 KB of the database in place of
55 KB (`arena bench store`, docs/leagues.md "Storage").

Why a row per deal: `deal_scores` held a row per deal and seat, 80 a Trix game, each
repeating the entrant's name and the contract's, with an index of its own beside the
table: 3.9 KB a game, more than the packed replay. `game_deals` holds the deal's
contract, declaring seat, whether it was made and the seats' scores (a JSON list),
keyed by (game, deal) without a rowid; `deal_scores` is now a view that gives every
reader the very rows and columns it read before (the entrant is the game's player of
that seat). A game whose rows do not fold so (a name SQLite's JSON cannot give back,
scores of seats that disagree on the contract: only a database edited by hand) keeps
its rows as they were, in `deal_scores_kept`, which the view reads too.

A big database is converted a batch of games per transaction, with progress on
stderr: interrupted, the next opening carries on with the games not yet converted
(those whose replay is still TEXT or whose deal rows are still in `deal_scores`).
The file keeps its size until it is vacuumed (`arena upgrade --vacuum`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

import sqlite_utils

from arena.league.store.replay_codec import pack_text

BATCH = 500  # games a transaction: about a second of work (another run waits up to 10 s)
Progress = Callable[[int, int], None]  # (games converted, games in all)

DEAL_COLUMNS = "game_id, deal, seat, entrant, contract, score, declarer, made"
GAME_DEALS = """CREATE TABLE IF NOT EXISTS game_deals (
    game_id INTEGER NOT NULL REFERENCES games(id),
    deal INTEGER NOT NULL,
    contract TEXT,
    declarer INTEGER,
    made INTEGER,
    scores TEXT NOT NULL,
    PRIMARY KEY (game_id, deal)
) WITHOUT ROWID"""
KEPT = """CREATE TABLE IF NOT EXISTS deal_scores_kept (
    game_id INTEGER, deal INTEGER, seat INTEGER, entrant TEXT, contract TEXT,
    score INTEGER, declarer INTEGER, made INTEGER,
    PRIMARY KEY (game_id, deal, seat)
) WITHOUT ROWID"""
# the rows deal_scores held, from game_deals: one a seat of each deal
VIEW = f"""CREATE VIEW deal_scores AS
SELECT d.game_id AS game_id, d.deal AS deal, s.key AS seat,
       json_extract(g.players, '$[' || s.key || ']') AS entrant, d.contract AS contract,
       s.value AS score, CASE WHEN d.declarer = s.key THEN 1 ELSE 0 END AS declarer,
       CASE WHEN d.declarer = s.key THEN d.made END AS made
FROM game_deals d JOIN games g ON g.id = d.game_id, json_each(d.scores) s
UNION ALL SELECT {DEAL_COLUMNS} FROM deal_scores_kept"""
DEALS_INSERT = (
    "INSERT INTO game_deals (game_id, deal, contract, declarer, made, scores) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
KEPT_INSERT = f"INSERT INTO deal_scores_kept ({DEAL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
# what deleting deal_scores rows did (a league's stored match dropped by hand, tests)
VIEW_DELETE = """CREATE TRIGGER deal_scores_delete INSTEAD OF DELETE ON deal_scores BEGIN
    DELETE FROM game_deals WHERE game_id = OLD.game_id AND deal = OLD.deal;
    DELETE FROM deal_scores_kept
        WHERE game_id = OLD.game_id AND deal = OLD.deal AND seat = OLD.seat;
END"""


def folded(
    players: Sequence[str], rows: Iterable[Mapping[str, Any]]
) -> list[tuple[Any, ...]] | None:
    """A game's deal-score rows (one a deal and seat, in seat order within a deal) as
    `game_deals` rows (game_id, deal, contract, declarer, made, scores JSON), or None
    when the view would not give exactly these rows back."""
    deals: dict[int, list[Mapping[str, Any]]] = {}
    for row in rows:
        deals.setdefault(row["deal"], []).append(row)
    out = []
    for deal, seats in deals.items():
        seats = sorted(seats, key=lambda r: r["seat"])
        declarers = [r["seat"] for r in seats if r["declarer"] == 1]
        declarer = declarers[0] if len(declarers) == 1 else None
        made = seats[declarer]["made"] if declarer is not None else None
        if not (
            [r["seat"] for r in seats] == list(range(len(seats)))
            and len(seats) <= len(players)
            and all(
                r["entrant"] == players[r["seat"]] and "\x00" not in players[r["seat"]]
                for r in seats
            )  # fmt: skip
            and len({r["contract"] for r in seats}) == 1
            and all(type(r["score"]) is int for r in seats)
            and all(r["declarer"] == (r["seat"] == declarer) for r in seats)
            and all(r["made"] is None for r in seats if r["seat"] != declarer)
            and (declarer is None or made in (0, 1))
        ):
            return None
        scores = json.dumps([r["score"] for r in seats], separators=(",", ":"))
        out.append((seats[0]["game_id"], deal, seats[0]["contract"], declarer, made, scores))
    return out


def fold_tuples(
    rows: Sequence[Sequence[Any]], players: Mapping[int, Sequence[str]]
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Deal-score rows as tuples in DEAL_COLUMNS' order, of the games whose players
    `players` gives: (the `game_deals` rows, the rows kept as they are)."""
    names = [c.strip() for c in DEAL_COLUMNS.split(",")]
    by_game: dict[int, list[dict[str, Any]]] = {}
    for values in rows:
        row = dict(zip(names, values, strict=True))
        by_game.setdefault(row["game_id"], []).append(row)
    deals: list[tuple[Any, ...]] = []
    kept: list[tuple[Any, ...]] = []
    for game_id, game_rows in by_game.items():
        fold = folded(players[game_id], game_rows)
        if fold is None:
            kept.extend(tuple(r[n] for n in names) for r in game_rows)
        else:
            deals.extend(fold)
    return deals, kept


def write_deals(
    db: sqlite_utils.Database, players: Sequence[str], rows: Sequence[Mapping[str, Any]]
) -> None:
    """Store one game's deal-score rows (as `deal_scores` had them): folded into
    `game_deals`, or kept as they are when they do not fold."""
    fold = folded(players, rows)
    if fold is None:
        names = [c.strip() for c in DEAL_COLUMNS.split(",")]
        db.conn.executemany(KEPT_INSERT, [tuple(row[n] for n in names) for row in rows])
    else:
        db.conn.executemany(DEALS_INSERT, fold)


def deal_score_rows(
    db: sqlite_utils.Database, where: str, params: Sequence[Any]
) -> list[dict[str, Any]]:
    """The `deal_scores` rows of the games `where` (a condition on `games g`) chooses,
    with each game's rotation: game_id, deal, seat, entrant, contract, score, rotation.
    Read from `game_deals` through the games' index, not through the view (whose
    UNION ALL SQLite would read whole before joining), the entrants from the games'
    players here; in no particular order."""
    out = []
    names: dict[int, list[str]] = {}
    for game_id, deal, contract, scores, players, rotation in db.execute(
        "SELECT d.game_id, d.deal, d.contract, d.scores, g.players, g.rotation FROM games g "
        f"JOIN game_deals d ON d.game_id = g.id WHERE {where}",
        params,
    ):
        seats = names.get(game_id)
        if seats is None:
            seats = names[game_id] = json.loads(players)
        for seat, score in enumerate(json.loads(scores)):
            out.append(
                {"game_id": game_id, "deal": deal, "seat": seat, "entrant": seats[seat],
                 "contract": contract, "score": score, "rotation": rotation}
            )  # fmt: skip
    cursor = db.execute(
        "SELECT k.game_id, k.deal, k.seat, k.entrant, k.contract, k.score, g.rotation "
        f"FROM games g JOIN deal_scores_kept k ON k.game_id = g.id WHERE {where}",
        params,
    )
    columns = [c[0] for c in cursor.description]
    out.extend(dict(zip(columns, row, strict=True)) for row in cursor)
    return out


def is_view(db: sqlite_utils.Database) -> bool:
    """Whether `deal_scores` is the view of migration 13 (else the table of before)."""
    row = db.execute("SELECT type FROM sqlite_master WHERE name = 'deal_scores'").fetchone()
    return bool(row) and row[0] == "view"


def convert(
    db: sqlite_utils.Database, batch: int | None = None, progress: Progress | None = None
) -> int:
    """Convert the games not yet converted, `batch` games a transaction; the games
    converted. Run before migration 13's own transaction (which then swaps the table
    for the view): interrupted, it starts again from the games still to convert."""
    from arena.league.store.transactions import immediate

    if "games" not in db.table_names() or is_view(db):
        return 0
    with immediate(db):
        db.execute(GAME_DEALS)
        db.execute(KEPT)
    todo = db.execute(
        "SELECT COUNT(*) FROM games WHERE typeof(replay) = 'text' OR id IN "
        "(SELECT DISTINCT game_id FROM deal_scores)"
    ).fetchone()[0]
    report = progress or (_stderr_progress() if todo else None)
    done, last, batch = 0, -(2**63), batch or BATCH
    cores = os.cpu_count() or 1
    with contextlib.ExitStack() as stack:
        pack: Callable[[list[str]], list[bytes]] = _pack_here
        if todo > 2 * batch and cores > 1:  # a big database: packing on every core
            # spawned, as the league's workers are: no fork of a process holding threads
            pool = stack.enter_context(ProcessPoolExecutor(cores, mp_context=get_context("spawn")))
            pack = functools.partial(_pack_on, pool)
        while True:
            with immediate(db):
                ids = [
                    r[0]
                    for r in db.execute(
                        "SELECT id FROM games WHERE id > ? ORDER BY id LIMIT ?", [last, batch]
                    )
                ]
                if not ids:
                    break
                done += _convert_games(db, ids, pack)
            last = ids[-1]
            if report:
                report(done, todo)
    return done


def _pack_here(texts: list[str]) -> list[bytes]:
    return [pack_text(text) for text in texts]


def _pack_on(pool: ProcessPoolExecutor, texts: list[str]) -> list[bytes]:
    return list(pool.map(pack_text, texts, chunksize=max(1, len(texts) // 16)))


def _convert_games(
    db: sqlite_utils.Database,
    ids: list[int],
    pack: Callable[[list[str]], list[bytes]] = _pack_here,
) -> int:
    """Convert the games of `ids` still to convert (in the caller's transaction),
    their replays packed by `pack`."""
    conn, marks = db.conn, ", ".join("?" * len(ids))
    converted: set[int] = set()
    texts = conn.execute(
        f"SELECT id, replay FROM games WHERE id IN ({marks}) AND typeof(replay) = 'text'", ids
    ).fetchall()
    blobs = pack([text for _, text in texts])
    conn.executemany(
        "UPDATE games SET replay = ? WHERE id = ?",
        [(blob, i) for blob, (i, _) in zip(blobs, texts, strict=True)],
    )
    converted.update(i for i, _ in texts)
    cursor = conn.execute(
        f"SELECT {DEAL_COLUMNS} FROM deal_scores WHERE game_id IN ({marks}) "
        "ORDER BY game_id, deal, seat",
        ids,
    )
    names = [c[0] for c in cursor.description]
    rows: dict[int, list[dict[str, Any]]] = {}
    for values in cursor:
        row = dict(zip(names, values, strict=True))
        rows.setdefault(row["game_id"], []).append(row)
    players = dict(
        conn.execute(f"SELECT id, players FROM games WHERE id IN ({marks})", ids).fetchall()
    )
    for game_id, game_rows in rows.items():
        write_deals(db, json.loads(players[game_id]), game_rows)
    conn.execute(f"DELETE FROM deal_scores WHERE game_id IN ({marks})", ids)
    converted.update(rows)
    return len(converted)


def finish(db: sqlite_utils.Database) -> None:
    """Migration 13's own step, after `convert`: whatever `deal_scores` still holds (a
    row of no stored game) kept as it is, the table dropped and the view made."""
    db.execute(GAME_DEALS)
    db.execute(KEPT)
    if is_view(db):
        return
    db.execute(
        f"INSERT INTO deal_scores_kept ({DEAL_COLUMNS}) SELECT {DEAL_COLUMNS} FROM deal_scores"
    )
    db.execute("DROP TABLE deal_scores")
    db.execute(VIEW)
    db.execute(VIEW_DELETE)


def _stderr_progress() -> Progress:
    """Lines on stderr: games converted of all, and how fast, at most every 2 s."""
    started = time.monotonic()
    shown = [started]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if now - shown[0] < 2.0 and done < total:
            return
        shown[0] = now
        rate = done / max(now - started, 1e-9)
        print(
            f"migration 13 (compact store): {done:,} of {total:,} games converted "
            f"({rate:,.0f} games/s)",
            file=sys.stderr,
            flush=True,
        )

    return show


# the deal_scores table as migrations 1 and 2 made it (sqlite-utils' DDL, verbatim)
OLD_DEAL_SCORES = """CREATE TABLE "deal_scores" (
   "game_id" INTEGER REFERENCES "games"("id"),
   "deal" INTEGER,
   "seat" INTEGER,
   "entrant" TEXT,
   "contract" TEXT,
   "score" INTEGER, "declarer" INTEGER, "made" INTEGER,
   PRIMARY KEY ("game_id", "deal", "seat")
)"""


def as_before(db: sqlite_utils.Database) -> None:
    """Turn a database of this schema back into what migration 12 left (every
    replay as its JSON text, `deal_scores` a table of a row per deal and seat), for
    `arena bench store`'s baseline and the migration's tests: what an arena of before
    would have written for the same games. In one transaction."""
    from arena.league.store.replay_codec import unpack_text
    from arena.league.store.transactions import immediate

    with immediate(db):
        conn = db.conn
        conn.execute(f"CREATE TEMP TABLE old_deals AS SELECT {DEAL_COLUMNS} FROM deal_scores")
        conn.execute("DROP VIEW deal_scores")
        conn.execute(OLD_DEAL_SCORES)
        conn.execute(
            f"INSERT INTO deal_scores ({DEAL_COLUMNS}) SELECT {DEAL_COLUMNS} FROM old_deals "
            "ORDER BY game_id, deal, seat"
        )
        for table in ("old_deals", "game_deals", "deal_scores_kept"):
            conn.execute(f"DROP TABLE {table}")
        packed = conn.execute("SELECT id, replay FROM games").fetchall()
        conn.executemany(
            "UPDATE games SET replay = ? WHERE id = ?", [(unpack_text(r), i) for i, r in packed]
        )
        conn.execute("DELETE FROM schema_migrations WHERE version >= 13")


def vacuum(db: sqlite_utils.Database) -> tuple[int, int]:
    """VACUUM the database (the space a migration freed given back to the file
    system); its size in bytes before and after."""
    before = _size(db)
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.conn.execute("VACUUM")
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return before, _size(db)


def _size(db: sqlite_utils.Database) -> int:
    pages = db.conn.execute("PRAGMA page_count").fetchone()[0]
    return pages * db.conn.execute("PRAGMA page_size").fetchone()[0]


def bytes_by_object(db: sqlite_utils.Database) -> dict[str, int]:
    """Bytes of the file each table and index takes (SQLite's dbstat: whole pages,
    overflow pages included), largest first; the rest of the file is free pages."""
    rows = db.conn.execute(
        "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC, 1"
    ).fetchall()
    return dict(rows)


def stored_games(db: sqlite_utils.Database) -> int:
    """How many games the database holds."""
    return db.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]


def replay_texts(db: sqlite_utils.Database) -> dict[int, str]:
    """Every stored game's replay as its JSON text, by game id."""
    from arena.league.store.replay_codec import unpack_text

    return {i: unpack_text(r) for i, r in db.conn.execute("SELECT id, replay FROM games")}
