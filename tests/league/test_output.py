"""What the arena prints: machine-readable output that holds only data, tables whose
columns are scalars, names that cannot break a table, and tables that say what they
are (docs/leagues.md, "Tables")."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.definition.config import ENTRANT_NAME_LIMIT, load_league
from arena.league.reports.formats import TableFormat
from arena.league.reports.table import render
from arena.league.running.runner import run_league
from arena.league.store import open_db
from arena.league.store.compaction import as_before
from arena.league.store.replay_codec import pack_text, unpack_replay, unpack_text

ROOT = Path(__file__).resolve().parents[2]

BUILTIN_LEAGUE = """
[league]
name = "{name}"
game = "{game}"
seed = 3
rounds = {rounds}

[rules]
{rules}

{entrants}
"""

HOSTILE_NAMES = {  # what: (name, what the refusal says)
    "a newline": ("two\nlines", "control character '\\n'"),
    "a carriage return": ("back\rover", "control character '\\r'"),
    "an ANSI escape": ("\x1b[31mred\x1b[0m", "control character '\\x1b'"),
    "a tab": ("tab\there", "control character '\\t'"),
    "a zero-width space": ("zero\u200bwidth", "control character '\\u200b'"),
    "a pipe": ("left|right", "must not hold '|'"),
    "a leading space": (" padded", "must not begin or end with spaces"),
    "a trailing space": ("padded ", "must not begin or end with spaces"),
    "nothing": ("", "must not be empty"),
    "only spaces": ("   ", "must not be empty"),
    "too many characters": ("x" * (ENTRANT_NAME_LIMIT + 1), f"at most {ENTRANT_NAME_LIMIT}"),
}


def entrants_toml(names: list[str], bot: str = "builtin:random") -> str:
    return "\n".join(f'[[entrant]]\nname = {_toml_string(n)}\nbot = "{bot}"\n' for n in names)


def _toml_string(text: str) -> str:
    """A TOML basic string holding `text` exactly (control characters escaped)."""
    out = "".join(
        ch if ch.isprintable() and ch not in '"\\' else f"\\u{ord(ch):04x}" for ch in text
    )
    return f'"{out}"'


def write_builtin_league(
    folder: Path,
    names: list[str],
    name: str = "out",
    game: str = "trix",
    rounds: int = 1,
    rules: str = "kingdoms = 1",
) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(
        BUILTIN_LEAGUE.format(
            name=name, game=game, rounds=rounds, rules=rules, entrants=entrants_toml(names)
        )
    )
    return path


@pytest.mark.parametrize("what", sorted(HOSTILE_NAMES))
def test_a_league_file_refuses_an_entrant_name_that_would_break_a_table(
    tmp_path: Path, what: str
) -> None:
    hostile, problem = HOSTILE_NAMES[what]
    path = write_builtin_league(tmp_path, ["a", hostile, "c", "d"])
    with pytest.raises(ConfigError) as err:
        load_league(path)
    assert str(err.value).startswith(f"{path}: [entrant 2] name "), str(err.value)
    assert problem in str(err.value), str(err.value)


def test_printable_names_of_every_script_are_accepted(tmp_path: Path) -> None:
    names = ["greedy v2", "bot, with comma", 'quote "q"', "خوارزمية", "x" * ENTRANT_NAME_LIMIT]
    config = load_league(write_builtin_league(tmp_path, names))
    assert [e.name for e in config.entrants] == names


# -- a league run once for the tests below ---------------------------------------------

ARENA = [sys.executable, "-m", "arena.cli"]
NAMES = ["first", "random-a", "random-b", "first-b", "broken"]


def arena(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real `arena` command, so stdout and stderr are the process's own (decoded
    as they are: no newline translation, a carriage return stays one)."""
    done = subprocess.run([*ARENA, *args], capture_output=True, timeout=300, env=env, check=False)
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def mixed_league(folder: Path, name: str = "mixed") -> Path:
    """Builtin bots and one command that cannot start (faults, and the sandbox notice
    `arena run` says on stderr: a command bot with the sandbox off)."""
    path = folder / f"{name}.toml"
    entrants = (
        entrants_toml(NAMES[:4], "builtin:random").replace(
            '"first"\nbot = "builtin:random"', '"first"\nbot = "builtin:first"'
        )
        + '\n[[entrant]]\nname = "broken"\nbot = "no-such-command-xyz"\n'
    )
    path.write_text(
        BUILTIN_LEAGUE.format(name=name, game="trix", rounds=1, rules="kingdoms = 1", entrants="")
        + '[limits]\nsandbox = "off"\nmove_timeout = 2.0\n\n'
        + entrants
    )
    return path


@pytest.fixture(scope="module")
def mixed(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """The league file, its database, and `arena run --format json` of it."""
    folder = tmp_path_factory.mktemp("mixed")
    path = mixed_league(folder)
    db = folder / "m.db"
    run = arena(
        "run", str(path), "--db", str(db), "--workers", "1", "--format", "json", "--allow-broken"
    )
    assert run.returncode == 3, run.stderr  # played, with the broken bot's start-failures
    return path, db, run


def _rows_of_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.slow
def test_run_with_json_or_csv_prints_only_the_table_on_stdout(mixed) -> None:
    path, db, run = mixed
    rows = json.loads(run.stdout)  # nothing else on stdout: this parses it whole
    assert sorted(r["name"] for r in rows) == sorted(NAMES)
    assert "league 'mixed': 5 matches played now" in run.stderr  # the summary: stderr
    assert "the sandbox is off" in run.stderr
    assert "5 of 5 matches stored: the league is finished" in run.stderr
    again = arena("run", str(path), "--db", str(db), "--workers", "1", "--format", "csv")
    assert again.returncode == 0, again.stderr
    assert [r["name"] for r in _rows_of_csv(again.stdout)] == [r["name"] for r in rows]
    assert "0 matches played now, 5 were stored before" in again.stderr
    text = arena("run", str(path), "--db", str(db), "--workers", "1")
    assert text.stdout.startswith("league 'mixed': 0 matches played now")  # text: as before


@pytest.mark.slow
def test_every_command_with_a_format_prints_only_data_on_stdout(mixed) -> None:
    _, db, _ = mixed
    where = ["--db", str(db)]
    table = arena("table", *where, "--format", "json")
    assert [r["name"] for r in json.loads(table.stdout)] == [
        r["name"] for r in json.loads(mixed[2].stdout)
    ]
    assert "league 'mixed': trix, seed 3" in table.stderr
    table_csv = arena("table", *where, "--format", "csv")
    assert len(_rows_of_csv(table_csv.stdout)) == len(NAMES)
    assert "5 of 5 matches stored" in table_csv.stderr
    compared = json.loads(arena("compare", "first", "random-a", *where, "--format", "json").stdout)
    assert compared["a"] == "first" and compared["matches"] == 3
    games = json.loads(arena("games", *where, "--format", "json").stdout)
    assert len(games) == 5 * 4
    faults = json.loads(arena("faults", *where, "--format", "json").stdout)
    assert faults and {f["entrant"] for f in faults} == {"broken"}
    replay = json.loads(arena("replay", str(games[0]["id"]), *where, "--format", "json").stdout)
    assert replay["totals"] == games[0]["totals"]


def test_play_json_prints_one_object_a_line_and_its_notice_on_stderr(tmp_path: Path) -> None:
    bot = f"python {ROOT / 'sample_bots' / 'random_bot.py'}"
    played = arena(
        "play", bot, "builtin:random", "builtin:first", "builtin:random", "--games", "2",
        "--json", "--sandbox", "off", "--rules", "kingdoms=1", "--logs", str(tmp_path),
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    games = [json.loads(line) for line in played.stdout.splitlines()]
    assert [g["game"] for g in games] == [1, 2]
    assert "the sandbox is off" in played.stderr and "the sandbox" not in played.stdout


# -- CSV: scalar columns ----------------------------------------------------------------

TRIX_CSV = [
    "place", "name", "rating", "mu", "sigma", "matches", "games", "mean_score",
    "duplicate_margin", "duplicate_margin_ci_low", "duplicate_margin_ci_high",
    "contract_king-of-hearts", "contract_diamonds", "contract_queens", "contract_no-tricks",
    "contract_trix", "faults", "think_wall_ms", "think_cpu_ms",
]  # fmt: skip


def _number(cell: str) -> float | None:
    return None if cell == "" else float(cell)


def test_the_trix_csv_has_one_scalar_column_per_figure(mixed) -> None:
    _, db, run = mixed
    out = arena("table", "--db", str(db), "--format", "csv").stdout
    assert out.splitlines()[0].split(",") == TRIX_CSV
    by_name = {r["name"]: r for r in json.loads(run.stdout)}
    for row in _rows_of_csv(out):
        want = by_name[row["name"]]
        low, high = want["duplicate_margin_ci"]
        assert (
            _number(row["duplicate_margin_ci_low"]),
            _number(row["duplicate_margin_ci_high"]),
        ) == (low, high)
        for contract, mean in want["per_contract"].items():
            assert _number(row[f"contract_{contract}"]) == mean
        assert not any(cell.startswith(("[", "{")) for cell in row.values())  # no JSON cells


@pytest.mark.slow
def test_the_trianon_csv_has_declared_made_and_failed_per_strain(tmp_path: Path) -> None:
    path = write_builtin_league(
        tmp_path, ["p", "q", "r"], game="trianon", rounds=2, rules="max_deals = 6"
    )
    db = tmp_path / "n.db"
    assert arena("run", str(path), "--db", str(db), "--workers", "1").returncode == 0
    out = arena("table", "--db", str(db), "--format", "csv").stdout
    strains = ("C", "S", "D", "H", "SS", "NT")
    assert out.splitlines()[0].split(",") == [
        *TRIX_CSV[:11],
        *(f"strain_{s}_{what}" for s in strains for what in ("declared", "made", "failed")),
        "faults", "think_wall_ms", "think_cpu_ms",
    ]
    rows = {
        r["name"]: r for r in json.loads(arena("table", "--db", str(db), "--format", "json").stdout)
    }
    declared = 0
    for row in _rows_of_csv(out):
        for strain in strains:
            want = rows[row["name"]]["per_contract"].get(
                strain, {"declared": 0, "made": 0, "failed": 0}
            )
            for what in ("declared", "made", "failed"):
                assert int(row[f"strain_{strain}_{what}"]) == want[what]
            declared += want["declared"]
    assert declared > 0  # the league declared contracts: the columns were filled from data


# -- names that would break a table -----------------------------------------------------

EVIL = {"random-a": "evil\nrow|cell\x1b[2J", "broken": "\x1b[31mbro\\|ken\r"}


def _rename_in_database(db: Path, renames: dict[str, str]) -> None:
    """What a database written before league files refused such names holds."""
    con = sqlite3.connect(db)
    with con:
        for old, new in renames.items():
            for table, column in (("entrants", "name"), ("results", "entrant"),
                                  ("faults", "entrant"), ("ratings", "entrant")):  # fmt: skip
                con.execute(f"UPDATE {table} SET {column} = ? WHERE {column} = ?", [new, old])
            for table, column in (("leagues", "settings"), ("matches", "entrants"),
                                  ("games", "players")):  # fmt: skip
                con.execute(
                    f"UPDATE {table} SET {column} = REPLACE({column}, ?, ?)",
                    [json.dumps(old), json.dumps(new)],
                )  # deal_scores.entrant (a view) is the game's player: renamed with it
        for game_id, replay in con.execute("SELECT id, replay FROM games").fetchall():
            text = unpack_text(replay)
            for old, new in renames.items():
                text = text.replace(json.dumps(old), json.dumps(new))
            con.execute("UPDATE games SET replay = ? WHERE id = ?", [pack_text(text), game_id])
    con.close()


def _printable_lines(text: str) -> list[str]:
    lines = text.split("\n")
    assert all(ch.isprintable() for line in lines for ch in line), repr(text)
    return lines


def _markdown_cells(line: str) -> int:
    """Cells in a markdown table row: `|`s not escaped by a backslash, less one."""
    bars, escaped = 0, False
    for ch in line:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "|":
            bars += 1
    return bars - 1


@pytest.fixture(scope="module")
def evil_db(mixed, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("evil") / "evil.db"
    shutil.copy(mixed[1], db)
    _rename_in_database(db, EVIL)
    return db


@pytest.mark.slow
def test_hostile_names_in_a_database_cannot_break_a_table(evil_db: Path) -> None:
    where = ["--db", str(evil_db)]
    rows = json.loads(arena("table", *where, "--format", "json").stdout)
    assert {r["name"] for r in rows} >= set(EVIL.values())  # JSON keeps them exactly
    text = arena("table", *where).stdout.rstrip("\n")
    lines = _printable_lines(text)
    assert len(lines) == 3 + 1 + 2 + len(NAMES)  # the league's lines, a blank, the table
    assert len({len(line.rstrip()) for line in lines[4:6]}) == 1
    markdown = arena("table", *where, "--format", "markdown").stdout.rstrip("\n")
    table = _printable_lines(markdown)[6:]
    assert len(table) == 2 + len(NAMES) and {_markdown_cells(line) for line in table} == {14}
    names = [r["name"] for r in _rows_of_csv(arena("table", *where, "--format", "csv").stdout)]
    assert names == [r["name"] for r in rows]  # CSV quotes them: read back exactly, as data


@pytest.mark.slow
def test_hostile_names_cannot_break_the_other_reports(evil_db: Path) -> None:
    where = ["--db", str(evil_db)]
    games = arena("games", *where).stdout.rstrip("\n")
    assert len(_printable_lines(games)) == 5 * 4
    faults = arena("faults", *where).stdout
    blocks = faults.rstrip("\n").split("\n\n")
    assert all(len(_printable_lines(b)) == 5 for b in blocks[:-1]), faults
    compared = arena("compare", "first", EVIL["random-a"], *where)
    assert compared.returncode == 0, compared.stderr
    assert len(_printable_lines(compared.stdout.rstrip("\n"))) == 3
    game = json.loads(arena("games", *where, "--format", "json").stdout)[0]["id"]
    replay = arena("replay", str(game), *where)
    assert replay.returncode == 0, replay.stderr
    _printable_lines(replay.stdout)


def test_a_hostile_league_name_cannot_break_the_lines_above_a_table(mixed) -> None:
    rows = json.loads(mixed[2].stdout)
    about = {
        "name": "cup\n|x|\x1b[0m", "game": "trix", "seed": "3\r", "file": "/tmp/a b.toml",
        "matches_stored": 2, "matches_scheduled": 5, "finished": False,
        "last_match_at": None, "arena_version": "0",
    }  # fmt: skip
    resume = "2 of 5 matches stored: the league is not finished; `arena run '/tmp/a b.toml'`"
    text = _printable_lines(render(rows, TableFormat.TEXT, "trix", about))
    assert text[0].startswith("league 'cup\\n|x|\\x1b[0m': trix, seed 3?, no match stored yet")
    assert text[1].startswith(resume) and text[2].startswith("ratings: TrueSkill, fed as")
    assert text[3] == "" and text[4].startswith("place")
    assert len(text) == 4 + 2 + len(rows)
    markdown = _printable_lines(render(rows, TableFormat.MARKDOWN, "trix", about))
    assert markdown[1] == markdown[3] == markdown[5] == "" and markdown[2].startswith(resume)
    assert markdown[6].startswith("| place |") and len(markdown) == 7 + 1 + len(rows)


# -- every table says what it is --------------------------------------------------------


def _stop_after(monkeypatch: pytest.MonkeyPatch, matches: int) -> None:
    """Make --until-separated stop the run once `matches` matches are rated."""
    import arena.league.running.schedule_source as runner

    monkeypatch.setattr(
        runner, "stop_check", lambda rated, rater, rule: ("x",) if len(rated) >= matches else None
    )


@pytest.mark.slow
def test_a_table_says_its_league_game_seed_matches_time_and_version(
    mixed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena import __version__

    path, db, _ = mixed
    text = arena("table", "--db", str(db)).stdout.splitlines()
    assert text[0].startswith("league 'mixed': trix, seed 3, last match stored 20")
    assert text[0].endswith(f" UTC; arena {__version__}")
    assert text[1] == "5 of 5 matches stored: the league is finished"
    about = json.loads(arena("table", "--db", str(db), "--format", "json", "--with-league").stdout)
    assert set(about) == {"league", "rows"} and len(about["rows"]) == len(NAMES)
    assert about["league"] | {"last_match_at": None} == {
        "name": "mixed", "game": "trix", "seed": "3", "file": str(path.resolve()),
        "matches_stored": 5, "matches_scheduled": 5, "finished": True,
        "last_match_at": None, "arena_version": __version__, "rate_by": "margin",
    }  # fmt: skip
    assert text[2].startswith("ratings: TrueSkill fed by duplicate margin (rate_by = 'margin')")
    assert about["league"]["last_match_at"][:19] in text[0].replace(" ", "T")

    _stop_after(monkeypatch, 2)
    part = tmp_path / "part.toml"
    part.write_text(path.read_text().replace('name = "mixed"', 'name = "part"'))
    summary = run_league(
        part, tmp_path / "p.db", workers=1, until_separated=True, allow_broken=True
    )
    assert summary.played == 2
    part.unlink()  # the table knows the schedule's size without the league file
    lines = arena("table", "--db", str(tmp_path / "p.db"), "--format", "markdown").stdout
    assert lines.splitlines()[2] == (
        f"2 of 5 matches stored: the league is not finished; `arena run {part} --db "
        f"{tmp_path / 'p.db'}` resumes it (with the --cluster it ran with, if any)"
    )  # issue 27 finding 14: the --db the resuming run needs
    shown = arena("table", "--db", str(tmp_path / "p.db"), "--format", "json")
    assert isinstance(json.loads(shown.stdout), list)  # the rows, as before
    assert "2 of 5 matches stored: the league is not finished" in shown.stderr


@pytest.mark.slow
def test_with_league_is_refused_with_a_format_it_does_not_apply_to(mixed) -> None:
    for args in (["table", "--db", str(mixed[1])], ["run", str(mixed[0]), "--db", str(mixed[1])]):
        refused = arena(*args, "--format", "csv", "--with-league")
        assert refused.returncode == 2 and refused.stdout == ""
        assert refused.stderr.startswith("error: --with-league is for --format json, not csv")


# -- game ids follow the schedule -------------------------------------------------------


def _game_ids(db: Path) -> dict[tuple[int, int], int]:
    """(match index, rotation) -> the stored game's id."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT m.idx, g.rotation, g.id FROM games g JOIN matches m ON g.match_id = m.id"
        ).fetchall()
    finally:
        con.close()
    return {(idx, rotation): game_id for idx, rotation, game_id in rows}


def _forget_matches(db: Path, indexes: tuple[int, ...]) -> None:
    """Remove stored matches (as if a run had stopped before storing them)."""
    con = sqlite3.connect(db)
    with con:
        for idx in indexes:
            (match_id,) = con.execute("SELECT id FROM matches WHERE idx = ?", [idx]).fetchone()
            games = [
                g for (g,) in con.execute("SELECT id FROM games WHERE match_id = ?", [match_id])
            ]
            for game in games:
                con.execute("DELETE FROM deal_scores WHERE game_id = ?", [game])
            for table in ("results", "faults", "games"):
                con.execute(f"DELETE FROM {table} WHERE match_id = ?", [match_id])
            con.execute("DELETE FROM matches WHERE id = ?", [match_id])
    con.close()


def slow_first_match_league(folder: Path, name: str = "ids") -> Path:
    """Five entrants, round robin: 'd' is a started bot, so match 0 (a, b, c, d) is slow
    and match 1 (a, b, c, e) fast; with two workers match 1 is usually stored first."""
    path = write_builtin_league(folder, ["a", "b", "c", "d", "e"], name=name)
    random_bot = ROOT / "sample_bots" / "random_bot.py"
    text = path.read_text().replace(
        'name = "d"\nbot = "builtin:random"', f'name = "d"\nbot = "python {random_bot}"'
    )
    path.write_text(text)
    return path


SCHEDULED_IDS = {(i, r): 1 + i * 4 + r for i in range(5) for r in range(4)}


@pytest.mark.slow
def test_game_ids_follow_the_schedule_with_any_workers_and_any_resume(tmp_path: Path) -> None:
    path = slow_first_match_league(tmp_path)
    run_league(path, tmp_path / "one.db", workers=1)
    run_league(path, tmp_path / "two.db", workers=2)
    assert _game_ids(tmp_path / "one.db") == _game_ids(tmp_path / "two.db") == SCHEDULED_IDS
    _forget_matches(tmp_path / "two.db", (0, 3))
    resumed = run_league(path, tmp_path / "two.db", workers=2)
    assert resumed.played == 2 and _game_ids(tmp_path / "two.db") == SCHEDULED_IDS
    games = json.loads(arena("games", "--db", str(tmp_path / "two.db"), "--format", "json").stdout)
    assert [g["number"] for g in games] == [g["id"] for g in games] == list(range(1, 21))


@pytest.mark.slow
def test_a_second_league_takes_the_ids_after_the_firsts_whole_schedule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = slow_first_match_league(tmp_path, "first")
    second = write_builtin_league(tmp_path, ["p", "q", "r", "s"], name="second")
    db = tmp_path / "both.db"
    _stop_after(monkeypatch, 2)
    assert run_league(first, db, workers=1, until_separated=True).played == 2
    monkeypatch.undo()
    run_league(second, db, workers=1)  # one match, four games: after the first's 20 ids
    run_league(first, db, workers=2)  # the first league's other matches: ids 9..20
    con = sqlite3.connect(db)
    ids = con.execute(
        "SELECT l.name, m.idx, g.rotation, g.id FROM games g JOIN matches m ON g.match_id = m.id "
        "JOIN leagues l ON g.league_id = l.id"
    ).fetchall()
    con.close()
    assert {(i, r): g for name, i, r, g in ids if name == "first"} == SCHEDULED_IDS
    assert sorted(g for name, _, _, g in ids if name == "second") == [21, 22, 23, 24]


def _as_before_migration_4(db: Path, shift: int) -> None:
    """Make `db` look written before migration 4 (and every later one): no schedule
    size, no reserved ids, and game ids of the old kind (here: shifted by `shift`)."""
    old = open_db(db)
    as_before(old)  # migration 13 undone: deal_scores a table again, replays as text
    old.close()
    con = sqlite3.connect(db)
    with con:
        for column in ("scheduled_matches", "games_per_match", "first_game_id", "deal_key"):
            con.execute(f"ALTER TABLE leagues DROP COLUMN {column}")
        for column in ("asked", "think_wall_ms", "think_cpu_ms"):
            con.execute(f"ALTER TABLE results DROP COLUMN {column}")
        con.execute("ALTER TABLE matches DROP COLUMN overload_replays")
        con.execute("ALTER TABLE matches DROP COLUMN worker")  # migration 9
        for table in ("live_matches", "entrant_contracts"):  # migration 8
            con.execute(f"DROP TABLE {table}")
        con.execute("DROP TABLE test_matches")  # migration 11 (its column goes with ladders)
        for table in ("version_events", "ladder_matches", "versions", "ladder_bots",
                      "authors", "ladders"):  # migration 10
            con.execute(f"DROP TABLE {table}")
        for index in ("ratings_league_id_match_idx_step", "ratings_league_id_entrant_step",
                      "games_league_id_match_id_rotation"):  # fmt: skip
            con.execute(f"DROP INDEX idx_{index}")
        con.execute("DELETE FROM schema_migrations WHERE version >= 4")
        con.execute("UPDATE games SET id = id + ?", [shift])
        for table in ("results", "deal_scores", "faults"):
            con.execute(f"UPDATE {table} SET game_id = game_id + ?", [shift])
    con.close()


@pytest.mark.slow
def test_an_older_database_learns_its_schedule_and_keeps_its_game_ids(tmp_path: Path) -> None:
    path = write_builtin_league(tmp_path, ["a", "b", "c", "d", "e"], name="old")
    db = tmp_path / "old.db"
    run_league(path, db, workers=1)
    _forget_matches(db, (4,))
    first_seed = unpack_replay(sqlite3.connect(db).execute(
        "SELECT replay FROM games ORDER BY id LIMIT 1").fetchone()[0])["seed"]  # fmt: skip
    _as_before_migration_4(db, 1000)
    path.rename(tmp_path / "moved.toml")  # the table must not need the league file
    assert arena("upgrade", "--db", str(db)).returncode == 0  # the reading commands never do
    lines = arena("table", "--db", str(db)).stdout.splitlines()
    assert lines[1].startswith("4 of 5 matches stored: the league is not finished")
    before = _game_ids(db)
    assert sorted(before.values()) == list(range(1001, 1017))
    shown = arena("replay", "1001", "--db", str(db), "--format", "json")
    assert json.loads(shown.stdout)["seed"] == first_seed  # an old id still names its game
    run_league(tmp_path / "moved.toml", db, workers=1)
    after = _game_ids(db)
    assert {k: v for k, v in after.items() if k in before} == before  # old ids unchanged
    assert sorted(v for k, v in after.items() if k not in before) == [1017, 1018, 1019, 1020]


@pytest.mark.parametrize("terminal", [True, False])
def test_the_progress_shows_a_leaders_name_as_text_not_markup(
    terminal: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    from rich.console import Console

    from arena.cli.progress import LeagueProgress

    screen = io.StringIO()
    console = Console(file=screen, force_terminal=terminal, width=200)
    from arena.league.running.runner import RunProgress

    info = RunProgress(
        done=1, played=1, total=2, games=4, elapsed=1.0, remaining=1, workers={},
        leader=("[/oops] [bold]x\x1b[2J", 21.5),
    )  # fmt: skip
    with LeagueProgress(console) as progress:
        progress.update(info)
    shown = screen.getvalue() if terminal else capsys.readouterr().err
    assert "leader [/oops] [bold]x?[2J (21.5)" in shown, shown
