"""`arena report --out DIR`: the site as static files, for any static host or file://.

Every page the server shows for the chosen leagues is written with relative links
(`ReportLinks`), every game's deals as scripts the viewer loads (each distinct deal
once, named by its content), and the style sheets
and scripts copied from the package: nothing is fetched from the network. The folder
is built beside DIR and then put in its place, so a failed run leaves the last report
whole, and a folder that is not a report is never written over."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from arena.errors import ConfigError
from arena.league import store
from arena.league.store import site_reads
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
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).exists())):
        raise ConfigError(
            f"--out {out} exists and is not a report that `arena report` wrote: give a new "
            "folder (or an old report's), so nothing else is written over"
        )
    db = store.open_existing(db_path)
    try:
        names = [league] if league else [r["name"] for r in site_reads.league_summaries(db)]
        for name in names:
            store.league_id_by_name(db, name)  # ConfigError naming the leagues there
        out.parent.mkdir(parents=True, exist_ok=True)
        build = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
        try:
            _write_all(db, build, names, progress)
            (build / MARKER).write_text("written by arena report\n")
            _put_in_place(build, out)
        except BaseException:
            shutil.rmtree(build, ignore_errors=True)
            raise
    finally:
        db.close()
    return out / "index.html"


def deal_file(script: str) -> str:
    """Where a deal's script goes in the report: named by its content, so a deal two
    games replay alike (seat-rotated games of bots that play the same cards the same
    way) is one file that both game pages load, never written twice."""
    return f"data/deal-{hashlib.sha256(script.encode()).hexdigest()[:20]}.js"


def _put_in_place(build: Path, out: Path) -> None:
    """Swap the new report in for the old one (or for nothing)."""
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        out.rename(old)
    build.rename(out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


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
