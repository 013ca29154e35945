"""The league database's schema: numbered migrations, and opening a database.

One SQLite file, in WAL mode. The schema is made by numbered migrations recorded in
`schema_migrations` (docs/leagues.md, "Storage", documents every table), each applied
in its own transaction; a database that is not a league database is refused before it
is touched.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import sqlite_utils

from arena import __version__
from arena.errors import ArenaError, ConfigError, SchemaError, StorageError
from arena.games import get_game
from arena.league.definition.schedule import Step, build_schedule
from arena.league.store.transactions import immediate
from arena.play.matches import seatings


def _migration_1(db: sqlite_utils.Database) -> None:
    """The first schema: leagues, entrants, matches, games, results, deals, faults, ratings."""
    db["leagues"].create(
        {"id": int, "name": str, "game": str, "settings": str, "file": str, "created_at": float},
        pk="id",
        not_null={"name", "game", "settings"},
    )
    db["leagues"].create_index(["name"], unique=True)
    db["entrants"].create(
        {"id": int, "league_id": int, "name": str, "bot": str, "position": int},
        pk="id",
        foreign_keys=[("league_id", "leagues")],
    )
    db["entrants"].create_index(["league_id", "name"], unique=True)
    db["matches"].create(
        {
            "id": int,
            "league_id": int,
            "idx": int,
            "seed": str,
            "entrants": str,
            "games": int,
            "seconds": float,
            "finished_at": float,
        },
        pk="id",
        foreign_keys=[("league_id", "leagues")],
    )
    db["matches"].create_index(["league_id", "idx"], unique=True)
    db["games"].create(
        {
            "id": int,
            "league_id": int,
            "match_id": int,
            "rotation": int,
            "seed": str,
            "players": str,
            "totals": str,
            "ranks": str,
            "decisions": int,
            "replay": str,
        },
        pk="id",
        foreign_keys=[("league_id", "leagues"), ("match_id", "matches")],
    )
    db["games"].create_index(["match_id"])
    db["results"].create(
        {
            "game_id": int,
            "match_id": int,
            "league_id": int,
            "seat": int,
            "entrant": str,
            "total": int,
            "rank": int,
            "faults": int,
        },
        pk=("game_id", "seat"),
        foreign_keys=[("game_id", "games")],
    )
    db["results"].create_index(["league_id", "entrant"])
    db["results"].create_index(["match_id", "seat"])
    db["deal_scores"].create(
        {
            "game_id": int,
            "deal": int,
            "seat": int,
            "entrant": str,
            "contract": str,
            "score": int,
        },
        pk=("game_id", "deal", "seat"),
        foreign_keys=[("game_id", "games")],
    )
    db["faults"].create(
        {
            "id": int,
            "game_id": int,
            "match_id": int,
            "league_id": int,
            "entrant": str,
            "seat": int,
            "deal": int,
            "kind": str,
            "detail": str,
        },
        pk="id",
        foreign_keys=[("game_id", "games")],
    )
    db["faults"].create_index(["league_id", "entrant"])
    db["ratings"].create(
        {
            "league_id": int,
            "step": int,
            "match_idx": int,
            "rotation": int,
            "entrant": str,
            "mu": float,
            "sigma": float,
        },
        pk=("league_id", "step", "entrant"),
        foreign_keys=[("league_id", "leagues")],
    )


def _migration_2(db: sqlite_utils.Database) -> None:
    """Declarers: which seat declared a deal's contract and whether it was made (Trianon
    tables show contracts declared, made and failed per strain)."""
    db["deal_scores"].add_column("declarer", int)  # 1 for the declaring seat, else 0
    db["deal_scores"].add_column("made", int)  # on the declarer's row: 1 made, 0 failed


def _migration_3(db: sqlite_utils.Database) -> None:
    """Fault reports a bot author can act on (`arena faults`): the decision (the seat's
    n-th in its game), the replay event, what was expected, what came back, the log.

    Faults stored before this migration keep NULL in the new columns: their replays do
    not hold these facts, and guessing them would mislead."""
    for column, kind in (
        ("decision", int),
        ("event", int),
        ("expected", str),
        ("got", str),
        ("log", str),
    ):
        db["faults"].add_column(column, kind)


def history_of(settings: Mapping[str, Any]) -> list[Step]:
    """A stored league's earlier sizes (`settings["history"]`, written when it grew)."""
    return [
        Step(tuple(step["entrants"]), step.get("rounds", 1), step.get("matches", 0))
        for step in settings.get("history", [])
    ]


def schedule_shape(game: str, settings: Mapping[str, Any]) -> tuple[int, int] | None:
    """(matches scheduled, games per match) of a league, from the settings it was stored
    with (`LeagueConfig.locked_settings`: they fix the schedule); None when they cannot
    be scheduled (settings of an older arena that lack a key)."""
    try:
        matches = build_schedule(
            settings["entrants"],
            get_game(game).seats,
            settings["schedule"],
            settings["seed"],
            rounds=settings.get("rounds", 1),
            matches=settings.get("matches", 0),
            candidates=settings.get("candidates", ()),
            history=history_of(settings),
        )
        return len(matches), len(seatings(get_game(game).seats, settings["rotations"]))
    except (KeyError, TypeError, ValueError, ConfigError):
        return None


def _migration_4(db: sqlite_utils.Database) -> None:
    """The schedule's size with the league (`leagues.scheduled_matches`,
    `leagues.games_per_match`), so a table says "12 of 40 matches stored" without the
    league file. Leagues stored before are filled in from their stored settings, which
    fix the schedule; one whose settings cannot be scheduled keeps NULL until `arena
    run` records it."""
    db["leagues"].add_column("scheduled_matches", int)
    db["leagues"].add_column("games_per_match", int)
    for row in list(db["leagues"].rows):
        shape = schedule_shape(row["game"], json.loads(row["settings"]))
        if shape is not None:
            db["leagues"].update(
                row["id"], {"scheduled_matches": shape[0], "games_per_match": shape[1]}
            )


def _migration_5(db: sqlite_utils.Database) -> None:
    """Game ids that follow the schedule (`leagues.first_game_id`): a new league reserves
    one id per scheduled game, and the game of match i, rotation r is stored as
    first_game_id + i * games_per_match + r, whichever worker finished first and however
    often the league was resumed. Leagues stored before keep NULL: their games keep the
    ids they have (`arena replay ID` still finds them), and their new games take the
    next id free."""
    db["leagues"].add_column("first_game_id", int)


def _migration_6(db: sqlite_utils.Database) -> None:
    """The league's secret deal key (`leagues.deal_key`, arena/play/deal_keys.py): a new
    league's deals are HMACs of its public match seeds under it. Leagues stored before
    keep NULL and go on dealing from their public seeds, so a resumed league plays the
    rest of its schedule as it began it."""
    db["leagues"].add_column("deal_key", str)


def _migration_7(db: sqlite_utils.Database) -> None:
    """Think time beside the scores: per game and seat, the decisions the bot was asked
    and their wall and CPU milliseconds in all (`results.asked`, `think_wall_ms`,
    `think_cpu_ms`, from the replay's `think`; NULL for bots inside the referee and
    for games stored before), and per match how often it was played again because the
    machine was overloaded (`matches.overload_replays`)."""
    db["results"].add_column("asked", int)
    db["results"].add_column("think_wall_ms", float)
    db["results"].add_column("think_cpu_ms", float)
    db["matches"].add_column("overload_replays", int)


def _migration_8(db: sqlite_utils.Database) -> None:
    """What the web pages read while a league runs: the matches being played now
    (`live_matches`: written by `arena run` when it hands a match to a worker and
    removed when the match is stored, with the run's pid so that a killed run's rows
    are told apart), and an index that lets a rating chart read one row per match
    without scanning the league's whole rating history. And each entrant's deals per
    contract (Trix) or strain (Trianon) summed as matches are stored
    (`entrant_contracts`: deals, score sum, declared, made), so a table's per-contract
    column reads a row per entrant and contract instead of every deal of the league;
    leagues stored before are summed from their deal scores here."""
    db["live_matches"].create(
        {
            "league_id": int,
            "idx": int,
            "entrants": str,
            "started_at": float,
            "run_pid": int,
        },
        pk=("league_id", "idx"),
        foreign_keys=[("league_id", "leagues")],
    )
    db["ratings"].create_index(["league_id", "match_idx", "step"])
    db["ratings"].create_index(["league_id", "entrant", "step"])
    # covering (the id is the rowid): a league's games read without touching a replay
    db["games"].create_index(["league_id", "match_id", "rotation"], if_not_exists=True)
    db["entrant_contracts"].create(
        {
            "league_id": int,
            "entrant": str,
            "contract": str,
            "deals": int,
            "score_sum": int,
            "declared": int,
            "made": int,
        },
        pk=("league_id", "entrant", "contract"),
    )
    db.execute(
        """INSERT INTO entrant_contracts
           SELECT g.league_id, d.entrant, d.contract, COUNT(*), SUM(d.score),
                  SUM(d.declarer = 1), SUM(CASE WHEN d.declarer = 1 THEN d.made ELSE 0 END)
           FROM deal_scores d JOIN games g ON d.game_id = g.id
           GROUP BY g.league_id, d.entrant, d.contract"""
    )


def _migration_9(db: sqlite_utils.Database) -> None:
    """The worker that played each match (`matches.worker`: a Dask worker's address,
    or this machine's name and the worker process's pid; NULL for matches stored
    before), so a cluster's results can be traced to the machine that played them."""
    db["matches"].add_column("worker", str)


def _migration_10(db: sqlite_utils.Database) -> None:
    """Ladders (docs/ladder.md), beside leagues in the same file. A ladder's matches,
    games, results and faults are those of a league row of its own (schedule
    "ladder", `ladders.league_id`), so every reading command and the site read them
    as they read a league's; what only a ladder has is here: its authors (a salted
    hash of each token, never the token), its bots (each owned by the author who first
    named it; house bots by none), their immutable versions (state, the gate's
    report, the SHA-256 of the files, the rating it stands at), the matches it chose
    (queued before they are given out, so a killed run plays them again, and why each
    was chosen), and every change of a version's state with its reason."""
    db["ladders"].create(
        {
            "id": int,
            "name": str,
            "game": str,
            "settings": str,
            "file": str,
            "store": str,
            "league_id": int,
            "created_at": float,
            "frozen_at": float,
        },
        pk="id",
        not_null={"name", "game", "settings"},
        foreign_keys=[("league_id", "leagues")],
    )
    db["ladders"].create_index(["name"], unique=True)
    db["authors"].create(
        {
            "id": int,
            "ladder_id": int,
            "name": str,
            "token_hash": str,
            "created_at": float,
            "revoked_at": float,
        },
        pk="id",
        foreign_keys=[("ladder_id", "ladders")],
    )
    db["authors"].create_index(["ladder_id", "name"], unique=True)
    db["ladder_bots"].create(
        {"id": int, "ladder_id": int, "name": str, "author_id": int, "created_at": float},
        pk="id",
        foreign_keys=[("ladder_id", "ladders"), ("author_id", "authors")],
    )
    db["ladder_bots"].create_index(["ladder_id", "name"], unique=True)
    db["versions"].create(
        {
            "id": int,
            "ladder_id": int,
            "bot_id": int,
            "number": int,
            "entrant": str,
            "sha256": str,
            "command": str,
            "folder": str,
            "state": str,
            "reason": str,
            "created_at": float,
            "changed_at": float,
            "start_mu": float,
            "mu": float,
            "sigma": float,
            "games": int,
            "gate_report": str,
        },
        pk="id",
        not_null={"ladder_id", "bot_id", "number", "entrant", "state"},
        foreign_keys=[("ladder_id", "ladders"), ("bot_id", "ladder_bots")],
    )
    db["versions"].create_index(["bot_id", "number"], unique=True)
    db["versions"].create_index(["ladder_id", "entrant"], unique=True)
    db["versions"].create_index(["ladder_id", "state"])
    db["ladder_matches"].create(
        {
            "ladder_id": int,
            "idx": int,
            "seed": str,
            "entrants": str,
            "reason": str,
            "focus": str,
            "pair_idx": int,
            "rated": int,
            "state": str,
            "chosen_at": float,
        },
        pk=("ladder_id", "idx"),
        foreign_keys=[("ladder_id", "ladders")],
    )
    db["ladder_matches"].create_index(["ladder_id", "state"])
    db["version_events"].create(
        {"id": int, "version_id": int, "at": float, "state": str, "reason": str},
        pk="id",
        foreign_keys=[("version_id", "versions")],
    )
    db["version_events"].create_index(["version_id"])


def _migration_11(db: sqlite_utils.Database) -> None:
    """A ladder's unrated test matches (docs/ladder.md, "Test matches"): one row per
    match an author asked for (`test_matches`: their version, `BOT@N`, against the
    opponents they picked, JSON; when asked; its state, queued, playing, stored or
    dropped, and why; the match index the run gave it and its public seed), and the
    league row that holds their games (`ladders.tests_league_id`, made with the first
    request, named "<ladder> tests"): apart from the ladder's own league, so that
    nothing that reads the ladder's rated games (ratings, the table, margins, health,
    promotion tests, the site) can count them."""
    db["ladders"].add_column("tests_league_id", int)
    db["test_matches"].create(
        {
            "id": int,
            "ladder_id": int,
            "author_id": int,
            "entrant": str,
            "opponents": str,
            "requested_at": float,
            "state": str,
            "reason": str,
            "idx": int,
            "seed": str,
            "started_at": float,
            "finished_at": float,
        },
        pk="id",
        not_null={"ladder_id", "author_id", "entrant", "opponents", "state"},
        foreign_keys=[("ladder_id", "ladders"), ("author_id", "authors")],
    )
    db["test_matches"].create_index(["ladder_id", "author_id", "requested_at"])
    db["test_matches"].create_index(["ladder_id", "state"])
    db["test_matches"].create_index(["ladder_id", "idx"], unique=True)


def _migration_12(db: sqlite_utils.Database) -> None:
    """The ladder site's lists of games and faults, newest first and a page at a
    time, read by index: an index of each table by league alone holds its rows in id
    order (the row id is an index's last column), so a page is read from the newest
    game back and stops at its limit. Without it SQLite read every game of the league
    to sort them (the other indexes are by match and by entrant): a page of
    /api/v1/games took 100 ms at 100,000 games (`arena bench ladder-pages`). Only
    indexes: a database migrated before keeps every row as it was. And a ladder's
    chosen matches that are a table of a promotion test's pair (`ladder_matches_paired`,
    partial: only those rows), which the promotion tests' figures read."""
    db["games"].create_index(["league_id"], index_name="games_by_league", if_not_exists=True)
    db["faults"].create_index(["league_id"], index_name="faults_by_league", if_not_exists=True)
    db.execute(
        "CREATE INDEX IF NOT EXISTS ladder_matches_paired ON ladder_matches (ladder_id, idx) "
        "WHERE pair_idx IS NOT NULL"
    )


def _migration_13(db: sqlite_utils.Database) -> None:
    """The compact store (arena/league/store/compaction.py): every replay packed by
    arena/league/store/replay_codec.py, and the deal scores a row per deal
    (`game_deals`) read through a view of the old rows (`deal_scores`). The games are
    converted before this step, a batch per transaction with progress (BATCHED
    below), so that a big database is never converted in one transaction; this step
    swaps the table for the view."""
    from arena.league.store.compaction import finish

    finish(db)


def _migration_14(db: sqlite_utils.Database) -> None:
    """The league site at ladder scale (`arena bench web --games 1000000`): each
    league's standings as last computed (`standings`: the table's rows, the evidence's
    fitted strengths and covariance, the crosstable's pairs and the rating chart's
    points, arena/league/reports/snapshot.py), with the state of the league they
    were computed from, so that a page of a league of a million games reads them
    instead of every result; a page whose league changed since computes them again.
    And the matches by league and time stored (`matches_by_finish`): when a league's
    last match was stored is read from its end (every page's header says it), where
    it read every match row. And each entrant's results in game id order
    (`results_by_entrant_game`): a page of an entrant's games is read from it and
    stops at its limit, where a sort took all its games (8,000 in a league of a
    million games and 500 entrants). A new table and indexes: nothing else changes."""
    db["results"].create_index(
        ["league_id", "entrant", "game_id"],
        index_name="results_by_entrant_game",
        if_not_exists=True,
    )
    db["matches"].create_index(
        ["league_id", "finished_at"], index_name="matches_by_finish", if_not_exists=True
    )
    db["standings"].create(
        {"league_id": int, "stamp": str, "made_at": float, "data": str, "arrays": bytes},
        pk="league_id",
        foreign_keys=[("league_id", "leagues")],
        if_not_exists=True,
    )


MIGRATIONS: list[tuple[int, str, Callable[[sqlite_utils.Database], None]]] = [
    (1, "leagues, entrants, matches, games, results, deal scores, faults, ratings", _migration_1),
    (2, "deal_scores.declarer and deal_scores.made", _migration_2),
    (3, "faults.decision, event, expected, got and log", _migration_3),
    (4, "leagues.scheduled_matches and leagues.games_per_match (table provenance)", _migration_4),
    (5, "leagues.first_game_id (game ids that follow the schedule)", _migration_5),
    (6, "leagues.deal_key (the secret the deals come from)", _migration_6),
    (7, "results.asked, think_wall_ms, think_cpu_ms; matches.overload_replays", _migration_7),
    (
        8,
        "live_matches, entrant_contracts; ratings and games indexes for the web pages",
        _migration_8,
    ),
    (9, "matches.worker (who played each match)", _migration_9),
    (10, "ladders, authors, ladder_bots, versions, ladder_matches, version_events", _migration_10),
    (11, "test_matches, ladders.tests_league_id (a ladder's unrated test matches)", _migration_11),
    (12, "games, faults by league; paired ladder matches (site lists)", _migration_12),
    (13, "replays packed; deal scores a row per deal (game_deals, the deal_scores view)",
     _migration_13),
    (14, "standings (a league's table and evidence as last computed)", _migration_14),
]  # fmt: skip


def _convert_13(db: sqlite_utils.Database) -> None:
    from arena.league.store.compaction import convert

    convert(db)


# work a migration does before its own transaction, in transactions of its own that
# may be interrupted and carried on (each left undone until the migration is recorded)
BATCHED: dict[int, Callable[[sqlite_utils.Database], None]] = {13: _convert_13}


BUSY_SECONDS = 10.0  # how long a reader or writer waits for another's lock
BUSY_TIMEOUT = f"PRAGMA busy_timeout={int(BUSY_SECONDS * 1000)}"


def open_db(path: str | Path, migrated: bool = True) -> sqlite_utils.Database:
    """Open (creating if needed) a league database to write to, in WAL mode, migrated
    to the latest schema (unless `migrated` is False); a database of a newer schema than
    this arena knows, or a file that is not a league database, is refused (SchemaError)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite_utils.Database(path)
    except (OSError, sqlite3.Error) as err:
        raise ConfigError(
            f"cannot open the league database {path}: {err}; give --db the path of a file"
        ) from None
    try:
        db.conn.execute(BUSY_TIMEOUT)
        tables = db.table_names()
        if tables:
            _check_version(db, path, tables)
            check_integrity(db, path)
        _use_wal(db)
        db.conn.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at checkpoints, never torn
        if migrated:
            migrate(db)
    except sqlite3.DatabaseError as err:
        db.close()
        raise diagnosed(path, err, writing=True) from None
    except (ConfigError, SchemaError, StorageError):
        db.close()
        raise
    return db


def check_integrity(db: sqlite_utils.Database, path: Path) -> None:
    """SchemaError, before anything is written, when SQLite finds the file damaged
    (`PRAGMA integrity_check`): a run that went on would store more matches into a file
    that `replay`, `report` and `serve` then fail on. Says how to recover."""
    try:
        rows = db.conn.execute("PRAGMA integrity_check(5)").fetchall()
    except sqlite3.DatabaseError as err:
        if _locked(err):
            raise
        rows = [(str(err),)]
    problems = [str(row[0]) for row in rows if str(row[0]) != "ok"]
    if problems:
        db.close()
        raise SchemaError(corrupt_message(path, "; ".join(problems)[:300]))


def corrupt_message(path: Path, detail: str) -> str:
    """What to say of a damaged database: nothing is written, and the two ways back."""
    return (
        f"{path} is damaged (SQLite's integrity check: {detail}); nothing was written to "
        f"it. Restore a backup of it, or recover what is readable into a new file with "
        f"`sqlite3 {path} .recover | sqlite3 recovered.db` and give --db recovered.db "
        "(`arena upgrade --db recovered.db` checks it)"
    )


def _locked(err: sqlite3.Error) -> bool:
    text = str(err).lower()
    return "locked" in text or "busy" in text


def diagnosed(path: Path, err: sqlite3.Error, writing: bool) -> ArenaError:
    """The error to give for a database SQLite failed on, said as what it is: locked by
    another process, read-only, in a folder that cannot be opened, damaged, or not a
    league database at all (the advice differs for each)."""
    text = str(err).lower()
    if _locked(err):
        return StorageError(
            f"{path} is locked by another process ({err}) for longer than "
            f"{BUSY_SECONDS:.0f} s: wait for that process (another `arena run`, or a program "
            "holding it open) to finish, or stop it, and try again"
        )
    if "readonly" in text or "read-only" in text:
        return StorageError(
            f"{path} cannot be written ({err}): the file or its folder is read-only; "
            "make both writable for this user, or copy the database to a writable folder "
            "and give --db the copy"
        )
    if "unable to open" in text:
        where = "folder" if path.exists() else "path"
        return StorageError(
            f"cannot open the league database {path} ({err}): check that its {where} exists "
            "and that this user may read" + (" and write it" if writing else " it")
        )
    if "malformed" in text or "corrupt" in text:
        return SchemaError(corrupt_message(path, str(err)))
    return SchemaError(
        f"{path} is not a league database ({err}): give --db the arena.db that "
        "`arena run` wrote" + (", or a path where none exists yet" if writing else "")
    )


def _use_wal(db: sqlite_utils.Database) -> None:
    """Switch the database to WAL, waiting (up to the busy timeout) while another run
    holds it: SQLite fails a journal-mode change at once with "database is locked",
    without its busy handler, when a second run that opened the same new database is
    inside a transaction (measured: 21 of 80 openings by two runs at once failed)."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            db.conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def open_existing(path: str | Path) -> sqlite_utils.Database:
    """A league database that must exist already, opened read-only for the commands
    that only read one (`table`, `compare`, `games`, `faults`, `replay`): they never
    write to it or migrate it. ConfigError says where `arena run` keeps its database
    when there is none here; SchemaError what to do about a file that is not a league
    database or of a schema of another version."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(missing_db_message(path))
    try:
        db = _open_read_only(path)
        tables = db.table_names()
        _check_version(db, path, tables)
        version = _version(db)
    except sqlite3.DatabaseError as err:
        raise diagnosed(path, err, writing=False) from None
    latest = MIGRATIONS[-1][0]
    if version < latest:
        db.close()
        raise SchemaError(
            f"{path} is a league database of schema version {version}, older than this "
            f"arena's ({latest}); reading commands do not change a database: `arena upgrade "
            f"--db {path}` (or `arena run` of one of its leagues) upgrades it in place"
        )
    return db


def _open_read_only(path: Path) -> sqlite_utils.Database:
    """Open `path` for reading only. A WAL database in a folder this user cannot write
    to cannot be opened so (SQLite makes its `-shm` file beside it): when the folder is
    read-only and no `-wal` file holds writes not yet merged, it is opened as immutable,
    which reads the file as it is; with such a `-wal` file it is refused, saying so."""
    uri = path.resolve().as_uri()
    try:
        db = sqlite_utils.Database(sqlite3.connect(f"{uri}?mode=ro", uri=True))
        db.conn.execute(BUSY_TIMEOUT)
        db.table_names()
        return db
    except sqlite3.OperationalError:
        if os.access(path.parent, os.W_OK):
            raise
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise StorageError(
            f"{path} is in a read-only folder and its {wal.name} holds writes not yet "
            "merged into it, which SQLite can only read with write access to the folder: "
            "copy the database with its -wal file to a writable folder and give --db the "
            "copy, or make the folder writable"
        )
    db = sqlite_utils.Database(sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True))
    return db


def _version(db: sqlite_utils.Database) -> int:
    return max((row["version"] for row in db["schema_migrations"].rows), default=0)


def _check_version(db: sqlite_utils.Database, path: Path, tables: list[str]) -> None:
    """SchemaError unless `db` is a league database this arena can read: someone else's
    database (tables but no schema_migrations) or a newer schema is refused before it
    is touched."""
    if "schema_migrations" not in tables:
        db.close()
        raise SchemaError(
            f"{path} is a SQLite database but not a league database (it has tables "
            f"{', '.join(sorted(tables)[:5]) or 'none'} and no schema_migrations): give "
            "--db the arena.db that `arena run` wrote, or a path where none exists yet"
        )
    version, latest = _version(db), MIGRATIONS[-1][0]
    if version > latest:
        db.close()
        raise SchemaError(
            f"{path} is a league database of schema version {version}, newer than this "
            f"arena knows (version {latest}, arena {__version__}): use the newer arena that "
            "wrote it"
        )


def migrate(db: sqlite_utils.Database) -> list[int]:
    """Apply the migrations not yet recorded; each in its own transaction, which takes
    the write lock before it looks at what is applied, so two runs opening a new
    database at once do not both apply a migration."""
    with immediate(db):
        db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(version INTEGER PRIMARY KEY, name TEXT, applied_at FLOAT)"
        )
    applied = []
    for version, name, apply in MIGRATIONS:
        if version in BATCHED and not _applied(db, version):
            BATCHED[version](db)
        with immediate(db):
            done = db.execute("SELECT 1 FROM schema_migrations WHERE version = ?", [version])
            if done.fetchone():
                continue
            apply(db)
            db["schema_migrations"].insert(
                {"version": version, "name": name, "applied_at": time.time()}
            )
        applied.append(version)
    return applied


def _applied(db: sqlite_utils.Database, version: int) -> bool:
    return bool(
        db.execute("SELECT 1 FROM schema_migrations WHERE version = ?", [version]).fetchone()
    )


def upgrade(path: str | Path) -> tuple[int, int]:
    """Migrate an existing league database to this arena's schema (`arena upgrade`);
    the schema versions before and after."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(missing_db_message(path))
    db = open_db(path, migrated=False)
    try:
        before = _version(db)
        migrate(db)
        return before, _version(db)
    finally:
        db.close()


def missing_db_message(db: Path) -> str:
    """What to say when there is no database at `db`: where `arena run` put it."""
    message = (
        f"no database at {db}: `arena run LEAGUE.toml` keeps its database beside the league "
        "file (leagues/arena.db for leagues/demo.toml); give --db PATH, or run a league first"
    )
    nearby = _databases_nearby()
    if len(nearby) == 1 and nearby[0].resolve() != db.resolve():
        message += f"; did you mean --db {nearby[0]}?"
    return message


def _databases_nearby() -> list[Path]:
    """The league databases `arena run` may have left in the current folder's subfolders
    (it keeps one beside each league file: leagues/arena.db for leagues/demo.toml)."""
    found = {*Path().glob("*/arena.db"), *Path().glob("leagues/*/arena.db")}
    return sorted(p for p in found if p.is_file())
