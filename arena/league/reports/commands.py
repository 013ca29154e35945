"""What the read-only commands print, each from a database path in one call.

`arena table`, `compare`, `games`, `faults` and `replay` open a database that must
exist, find the league (by name, or the latest), render, and close: the CLI only
parses and prints. Every problem the user can fix is a ConfigError saying what to do.

With `--format json` or `csv` what is printed on stdout is the data alone, so a
program can parse it; anything said to a person beside it (what league a table is
of) is a `Report.note`, which the CLI prints on stderr. Names in text reports pass
through `text_safe`: a stored name cannot add a line or move the terminal's cursor.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils

from arena.errors import ConfigError
from arena.league import store
from arena.league.definition.names import nfc
from arena.league.reports.compare import compare, render_comparison
from arena.league.reports.faults import fault_rows, render_faults
from arena.league.reports.formats import TableFormat, TextOrJson, text_safe
from arena.league.reports.table import about_lines, league_about, league_rows, render
from arena.play.replay_text import replay_text
from arena.play.replays import check_replay, read_replay
from arena.play.seat_view import NotInGame, seat_decisions, seat_decisions_text

T = TypeVar("T")


@contextmanager
def _league(db_path: Path, league: str | None) -> Iterator[tuple[sqlite_utils.Database, int]]:
    db = store.open_existing(db_path)
    try:
        league_id, _ = store.league_id_by_name(db, league)
        yield db, league_id
    finally:
        db.close()


def _with_league(db_path: Path, league: str | None, build: Callable[..., T]) -> T:
    with _league(db_path, league) as (db, league_id):
        return build(db, league_id)


@dataclass(frozen=True)
class Report:
    """What a command prints: `out` on stdout, and `note` (when not empty) on stderr:
    what a JSON or CSV table is of, which its stdout cannot say without breaking the
    readers that parse it."""

    out: str
    note: str = ""


def check_table_options(fmt: TableFormat, with_league: bool) -> None:
    """ConfigError when `--with-league` is given with a format it does not apply to."""
    if with_league and fmt != TableFormat.JSON:
        raise ConfigError(
            f"--with-league is for --format json, not {fmt}: text and markdown tables "
            "always begin with the league's lines, and a CSV table holds its rows alone "
            "(the lines are printed on stderr)"
        )


def table_report(
    db_path: Path, league: str | None, fmt: TableFormat, with_league: bool = False
) -> Report:
    """The league table (`arena table`, and the end of `arena run`): text and markdown
    begin with the league's lines (`about_lines`); JSON is the list of rows, or with
    `with_league` an object holding the league's facts and the rows; JSON's and CSV's
    lines go to the note."""
    check_table_options(fmt, with_league)

    def build(db: Any, league_id: int) -> Report:
        about = league_about(db, league_id)
        game, settings = store.league_record(db, league_id)
        if settings.get("tests_of") is not None:  # a ladder's unrated test matches
            raise ConfigError(
                f"{about['name']!r} holds the unrated test matches of ladder "
                f"{settings['tests_of']!r}: they make no table (`arena games --db {db_path} "
                f"--league {shlex.quote(about['name'])}` lists their games; docs/ladder.md, "
                '"Test matches")'
            )
        if settings.get("schedule") == "ladder":  # its entrants are versions, chosen as it runs
            raise ConfigError(
                f"{about['name']!r} is a ladder: `arena ladder table --db {db_path} --ladder "
                f"{shlex.quote(about['name'])}` shows its table (docs/ladder.md)"
            )
        rows = league_rows(db, league_id)
        if fmt in (TableFormat.TEXT, TableFormat.MARKDOWN):
            return Report(render(rows, fmt, game, about, db=db_path))
        idle = [row["name"] for row in rows if row["matches"] == 0]
        note = "" if with_league else "\n".join(about_lines(about, db=db_path, idle=idle))
        return Report(render(rows, fmt, game, about, with_league), note)

    return _with_league(db_path, league, build)


def comparison_report(db_path: Path, league: str | None, *, a: str, b: str, fmt: TextOrJson) -> str:
    """A's duplicate margin over B (`arena compare`); names as stored, in NFC form."""
    a, b = nfc(a), nfc(b)
    result = _with_league(db_path, league, lambda db, lid: compare(db, lid, a, b))
    if fmt == TextOrJson.JSON:
        return json.dumps(result)
    return render_comparison(
        {**result, "a": text_safe(a), "b": text_safe(b), "verdict": text_safe(result["verdict"])}
    )


def faults_report(db_path: Path, league: str | None, bot: str | None, fmt: TextOrJson) -> str:
    """Every fault of a league, or of one entrant (`arena faults`)."""
    rows = _with_league(db_path, league, lambda db, lid: fault_rows(db, lid, bot))
    return render_faults(rows, fmt)


def games_report(db_path: Path, league: str | None, fmt: TextOrJson) -> str:
    """Stored games of one league, or of all (`arena games`)."""
    db = store.open_existing(db_path)
    try:
        league_id = store.league_id_by_name(db, league)[0] if league else None
        rows = store.game_records(db, league_id)
    finally:
        db.close()
    return render_games(rows, fmt)


def render_games(rows: Sequence[dict[str, Any]], fmt: TextOrJson) -> str:
    """Stored games as JSON (the list of `store.game_records`) or one line each."""
    if fmt == TextOrJson.JSON:
        return json.dumps(list(rows))
    return "\n".join(
        f"{row['id']:>6}  {text_safe(row['league'])}  match {row['match']} "
        f"rot {row['rotation']}  "
        + "  ".join(
            f"{text_safe(n)} {t:+d}" for n, t in zip(row["players"], row["totals"], strict=True)
        )
        for row in rows
    )


MAX_GAME_ID = 2**63 - 1  # SQLite's largest integer: no stored id is larger
MAX_TARGET_CHARS = 4096  # PATH_MAX: no longer path can be opened


def replay_report(
    target: str,
    db_path: Path,
    *,
    fmt: TextOrJson,
    seat: int | None = None,
    deal: int | None = None,
    decision: int | None = None,
) -> str:
    """A replay, from a stored game's id or a file, as text or its JSON (`arena
    replay`); with `seat`, what that seat was asked, decision by decision, optionally
    of one deal or one decision only."""
    if seat is None and (deal is not None or decision is not None):
        raise ConfigError(
            "--deal and --decision choose among one seat's decisions: give --seat too"
        )
    if len(target) > MAX_TARGET_CHARS:
        raise ConfigError(
            f"the replay to show is {len(target):,} characters long, more than "
            f"{MAX_TARGET_CHARS}: give a game id (`arena games` lists them) or a file's path"
        )
    if target.isdigit() and int(target) > MAX_GAME_ID:  # more than SQLite holds
        raise ConfigError(
            f"no game {target[:24]}{'...' if len(target) > 24 else ''} in {db_path}: "
            f"game ids are at most {MAX_GAME_ID}; `arena games --db {db_path}` lists them"
        )
    if target.isdigit() and not Path(target).exists():
        db = store.open_existing(db_path)
        try:
            data = store.game_replay(db, int(target))
        finally:
            db.close()
        if data is None:
            raise ConfigError(
                f"no game {target} in {db_path}; `arena games --db {db_path}` lists them"
            )
    else:
        data = read_replay(Path(target))
    try:
        check_replay(data)
        if seat is not None:
            return _seat_report(data, fmt, seat=seat, deal=deal, decision=decision)
        if fmt == TextOrJson.JSON:
            return json.dumps(data, indent=1)
        return replay_text({**data, "players": [text_safe(p) for p in data["players"]]})
    except NotInGame as err:
        raise ConfigError(f"{target}: {err}") from None
    except ConfigError as err:
        raise ConfigError(
            f"{target}: {err}; give a replay file that `arena play --replays` wrote"
        ) from None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as err:
        raise ConfigError(
            f"{target}: not a readable arena-replay/1 replay ({type(err).__name__}: {err}); "
            "give a replay file that `arena play --replays` wrote"
        ) from None


def _seat_report(
    data: dict, fmt: TextOrJson, *, seat: int, deal: int | None, decision: int | None
) -> str:
    decisions = seat_decisions(data, seat, deal, decision)
    if fmt == TextOrJson.JSON:
        return json.dumps([d.as_dict() for d in decisions], indent=1)
    return seat_decisions_text(data, seat, decisions)


def deal_key_report(db_path: Path, league: str | None) -> Report:
    """`arena league key`: the league's secret deal key on stdout, so that a script can
    read it and `deal_key = "..."` replays the league exactly; a note when the league is
    not over (whoever has the key can work out every hand still to be played) or was
    stored before deal keys existed (it has none: it deals from its public seeds)."""

    def build(db: sqlite_utils.Database, league_id: int) -> Report:
        facts = store.league_facts(db, league_id)
        key = store.stored_deal_key(db, league_id)
        name = text_safe(facts["name"])
        if not key:
            raise ConfigError(
                f"league {name!r} was stored before deal keys existed: its deals come from "
                "its public seeds (the league file's seed), which replay it exactly"
            )
        scheduled, stored = facts["scheduled"], facts["stored"]
        note = ""
        if scheduled is None or stored < scheduled:
            of = f"{stored} of {scheduled}" if scheduled is not None else f"{stored}"
            note = (
                f"league {name!r} is not over ({of} matches stored): whoever has this key "
                "can work out every hand still to be played, so keep it from the bots' "
                "authors until the league ends"
            )
        return Report(key, note)

    return _with_league(db_path, league, build)
