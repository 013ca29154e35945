"""What an author signed in on the ladder site may read that nobody else may: their
own versions with the gate's whole report, the gate's logs, the files they uploaded,
their test matches and those matches' games.

Every function takes the author's row and answers only about their bots: another
author's version is `NotFound`, said as for a version that does not exist, so that
nobody learns through the author pages what others keep there."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import sqlite_utils

from arena.ladder.book import PLAYING, Ladder
from arena.league.store import game_replay
from arena.league.store.ladder_reads import (
    test_match_row,
    test_match_rows,
    version_fault_counts,
    version_rows,
)
from arena.league.store.ladder_site_reads import game_league
from arena.web.ladder import data
from arena.web.pages import NotFound

LOG_TAIL_BYTES = 64 * 1024  # of each log file shown: its end, where the trouble is
MAX_LOGS = 40
MAX_FILES = 500


def own_versions(
    db: sqlite_utils.Database, ladder: Ladder, author: dict[str, Any]
) -> list[dict[str, Any]]:
    """The author's versions, newest first, as the public site shows them, each with
    its gate's verdict (the public one; the logs are on their own page)."""
    faults = version_fault_counts(db, ladder.league_id)
    out = []
    for row in version_rows(db, ladder.id):
        if row["house"] or row["author"] != author["name"]:
            continue
        item = data.published_version(row, faults)
        item["gate"] = data.published_gate(row["gate_report"])
        out.append(item)
    return out[::-1]


def own_version_row(
    db: sqlite_utils.Database, ladder: Ladder, author: dict[str, Any], bot: str, number: int
) -> dict[str, Any]:
    """The stored row of the author's `bot@number`; NotFound for anyone else's."""
    for row in version_rows(db, ladder.id, bot=bot):
        if row["number"] == number and not row["house"] and row["author"] == author["name"]:
            return row
    raise NotFound(f"you have no version {number} of a bot named {bot!r}")


def _tail(path: Path) -> tuple[str, int, bool]:
    """The end of a log file (not following a link), as text."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        cut = size > LOG_TAIL_BYTES
        if cut:
            handle.seek(size - LOG_TAIL_BYTES)
        text = handle.read(LOG_TAIL_BYTES).decode("utf-8", "replace")
    return text, size, cut


def gate_logs(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The gate's log files of a version (each try's folder), the end of each; names
    relative to the gate's folder, no link followed out of it. Only a folder of the
    version's own (`ID-ENTRANT`, arena/ladder/runner.py) is read: a folder the gate
    shared between versions (as it did before) may hold another author's logs."""
    report = json.loads(row["gate_report"]) if row["gate_report"] else {}
    folder = Path(report.get("log_dir") or "")
    if not report.get("log_dir") or not folder.is_dir():
        return []
    if not folder.name.startswith(f"{row['id']}-"):
        return []
    root = folder.resolve()
    logs = []
    for path in sorted(root.rglob("*")):
        if len(logs) >= MAX_LOGS:
            break
        if path.is_symlink() or not path.is_file() or not path.resolve().is_relative_to(root):
            continue
        text, size, cut = _tail(path)
        logs.append({"name": str(path.relative_to(root)), "size": size, "cut": cut,
                     "shown": min(size, LOG_TAIL_BYTES), "text": text})  # fmt: skip
    return logs


def version_files(row: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """The files of a stored version (names and sizes; the first MAX_FILES), and
    whether there were more."""
    folder = Path(row["folder"] or "")
    if not row["folder"] or not folder.is_dir():
        return [], False
    files = []
    for path in sorted(folder.rglob("*")):
        if len(files) >= MAX_FILES:
            return files, True
        if path.is_file() and not path.is_symlink():
            files.append({"name": str(path.relative_to(folder)), "size": path.stat().st_size})
    return files, False


def gate_text(row: dict[str, Any]) -> str:
    """The gate's whole report, its paths cut to their last part as on the public
    page (where the organiser keeps things is not the author's business either)."""
    report = data.published_gate(row["gate_report"])
    return report["text"] if report else ""


OPPONENT_STATES = PLAYING  # what a test match may be played against (book.request_test)


def test_item(row: dict[str, Any]) -> dict[str, Any]:
    """An author's test match as their page and the API show it (times in UTC)."""
    return {
        "id": row["id"],
        "version": row["entrant"],
        "opponents": list(row["opponents"]),
        "state": row["state"],
        "reason": row["reason"] or "",
        "requested_at": data.iso(row["requested_at"]),
        "finished_at": data.iso(row["finished_at"]),
        "games": [
            {"id": g["id"], "rotation": g["rotation"], "seat": g["seat"]}
            for g in row.get("games") or []
        ],  # fmt: skip
    }


def own_tests(
    db: sqlite_utils.Database, ladder: Ladder, author: dict[str, Any]
) -> list[dict[str, Any]]:
    return [test_item(r) for r in test_match_rows(db, ladder.id, author["id"])]


def own_test(
    db: sqlite_utils.Database, ladder: Ladder, author: dict[str, Any], test_id: int
) -> dict[str, Any]:
    """The author's test match `test_id` as stored; NotFound for anyone else's."""
    row = test_match_row(db, ladder.id, test_id)
    if row is None or row["author_id"] != author["id"]:
        raise NotFound(f"you have no test match {test_id}")
    return row


def test_game(
    db: sqlite_utils.Database, row: dict[str, Any], game_id: int
) -> tuple[dict[str, Any], int]:
    """A stored game of the test match `row` and the author's version's seat in it;
    NotFound for a game that is not one of its games."""
    for game in row.get("games") or []:
        if game["id"] == game_id and game_league(db, game_id) == row["league_id"]:
            replay = game_replay(db, game_id)
            if replay is not None:
                return replay, game["seat"]
    raise NotFound(f"test match {row['id']} has no game {game_id}")


def opponent_choices(db: sqlite_utils.Database, ladder: Ladder) -> list[str]:
    """Every version a test match may be played against (house bots among them)."""
    return [r["entrant"] for r in version_rows(db, ladder.id, states=OPPONENT_STATES)]
