"""`arena report --out DIR`: the site as static files, for any static host or file://.

Every page the server shows for the chosen leagues is written with relative links
(`ReportLinks`), every game's deals as scripts the viewer loads (each distinct deal
once, named by its content), and the style sheets
and scripts copied from the package: nothing is fetched from the network. The folder
is built beside DIR and then its files are moved into DIR, so a failed run leaves the
last report whole. The report writes only its own files: the marker file lists them,
and a later report removes only those of that list it no longer writes; anything else
in the folder (a `.git/`, a `CNAME`, a user's notes) is kept. A folder that holds
other files but no marker is refused, as is one this user cannot write to."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from arena.errors import ConfigError
from arena.league import store
from arena.league.store import site_reads
from arena.league.store.schema import check_integrity
from arena.web import pages
from arena.web.links import ReportLinks
from arena.web.render import render_page
from arena.web.viewer_data import game_scripts

MARKER = ".arena-report"  # a folder holding this file was written by `arena report`
STATIC = Path(__file__).parent / "static"


def write_report(
    db_path: Path,
    out: Path,
    league: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Write the report of `league` (default: every league) from `db_path` to `out`;
    the path of its front page. `progress(done, total)` is told after each game."""
    out = Path(out)
    _check_out(out)
    db = store.open_existing(db_path)
    check_integrity(db, Path(db_path))  # a damaged database: refused before a page is written
    try:
        names = [league] if league else [r["name"] for r in site_reads.league_summaries(db)]
        for name in names:
            store.league_id_by_name(db, name)  # ConfigError naming the leagues there
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            build = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
        except OSError as err:
            raise ConfigError(_unwritable(out, err)) from None
        try:
            _write_all(db, build, names, progress)
            _put_in_place(build, out)
        except OSError as err:
            raise ConfigError(_unwritable(out, err)) from None
        finally:
            shutil.rmtree(build, ignore_errors=True)
    finally:
        db.close()
    return out / "index.html"


MAX_OUT_CHARS = 4096  # PATH_MAX: a longer --out is no path this system can open


def _check_out(out: Path) -> None:
    """ConfigError unless `out` is a folder the report may own: new, empty, or holding
    the marker of an earlier report (whose listed files are the only ones it replaces)."""
    if len(str(out)) > MAX_OUT_CHARS:
        raise ConfigError(
            f"--out is {len(str(out)):,} characters long, more than "
            f"{MAX_OUT_CHARS}: give a shorter path"
        )
    try:
        if out.exists() and not out.is_dir():
            raise ConfigError(f"--out {out} is a file, not a folder: give a folder")
        if out.exists() and any(out.iterdir()) and not (out / MARKER).is_file():
            raise ConfigError(
                f"--out {out} holds files and is not a report that `arena report` wrote "
                f"(no {MARKER} file): give a new or empty folder (or an earlier report's), "
                "so nothing else is written over"
            )
    except OSError as err:
        raise ConfigError(_unwritable(out, err)) from None
    probe = out if out.exists() else next((p for p in out.parents if p.exists()), Path("."))
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ConfigError(_unwritable(out, PermissionError(f"{probe} is not writable")))


def _unwritable(out: Path, err: OSError) -> str:
    return (
        f"cannot write the report to --out {out} ({err.strerror or err}): give a folder "
        "this user may create and write to; nothing of an earlier report there was changed"
    )


def _listed(out: Path) -> set[str]:
    """The files an earlier report in `out` wrote (its marker's list; an older report's
    marker lists none, so nothing of it is removed, only written over)."""
    try:
        lines = (out / MARKER).read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return set()
    return {
        line
        for line in lines[1:]
        if line and not line.startswith(("/", "..")) and ".." not in Path(line).parts
    }


def deal_file(script: str) -> str:
    """Where a deal's script goes in the report: named by its content, so a deal two
    games replay alike (seat-rotated games of bots that play the same cards the same
    way) is one file that both game pages load, never written twice."""
    return f"data/deal-{hashlib.sha256(script.encode()).hexdigest()[:20]}.js"


def _put_in_place(build: Path, out: Path) -> None:
    """Move the new report's files from `build` into `out`, each over its old copy, and
    remove the files the earlier report listed that this one no longer writes (and the
    folders that leaves empty); nothing else in `out` is touched. The marker, listing
    the new files, is written last."""
    files = sorted(p.relative_to(build).as_posix() for p in build.rglob("*") if p.is_file())
    before = _listed(out) if out.exists() else set()
    out.mkdir(parents=True, exist_ok=True)
    for name in files:
        target = out / name
        if target.is_dir() and not target.is_symlink():
            raise ConfigError(
                f"--out {out}: {name} is a folder there, where the report writes a file: "
                "move it away, or give another folder"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(build / name, target)
    for name in sorted(before - set(files) - {MARKER}, reverse=True):
        stale = out / name
        if stale.is_file() or stale.is_symlink():
            stale.unlink()
            for parent in stale.parents:
                if parent == out or any(parent.iterdir()):
                    break
                parent.rmdir()
    (out / MARKER).write_text(
        "written by arena report; its files:\n" + "".join(f"{name}\n" for name in files)
    )


def _write_all(
    db: sqlite_utils.Database,
    folder: Path,
    names: list[str],
    progress: Callable[[int, int], None] | None,
) -> None:
    links = ReportLinks()
    shutil.copytree(STATIC, folder / "static", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "data").mkdir()

    def write(name: str, template: str, context: dict) -> None:
        (folder / name).write_text(render_page(template, links, context))

    index = pages.leagues_page(db)
    index["leagues"] = [row for row in index["leagues"] if row["name"] in names]
    write(links.index(), "leagues.html", index)
    games: list[int] = []
    for name in names:
        league_id, _ = store.league_id_by_name(db, name)
        write(links.league(name), "league.html", pages.league_page(db, name))
        write(links.faults(name), "faults.html", pages.faults_page(db, name))
        _, settings = store.league_record(db, league_id)
        for entrant in settings["entrants"]:
            context = pages.entrant_page(db, name, entrant)
            write(links.entrant(name, entrant), "entrant.html", context)
        for match in store.match_records(db, league_id):
            context = pages.match_page(db, name, match["idx"])
            write(links.match(name, match["idx"]), "match.html", context)
        games += site_reads.league_game_ids(db, league_id)
    written: set[str] = set()  # deal files by content: the same deal is written once
    for done, game_id in enumerate(games, start=1):
        scripts = game_scripts(pages.stored_replay(db, game_id))
        urls = []
        for script in scripts:
            urls.append(deal_file(script))
            if urls[-1] not in written:
                written.add(urls[-1])
                (folder / urls[-1]).write_text(script)
        context = {**pages.game_page(db, game_id, links), "live_page": False, "deal_urls": urls}
        write(links.game(game_id), "game.html", context)
        if progress:
            progress(done, len(games))
