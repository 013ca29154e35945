"""`arena report --out DIR`: the site as static files, for any static host or file://.

Every page the server shows for the chosen leagues is written with relative links
(`ReportLinks`), each game that gets a page (`--games`) with its deals' frames packed
in one script the viewer loads (`game_pack`), and the style sheets and scripts copied
from the package: nothing is fetched from the network. A game without a page is still
listed (its match's and entrants' pages) and linked to the same game on `arena serve`.

The games' pages and frames are built by as many processes as the machine has cores
(the engine replays each game: most of the time).

A report into the folder of an earlier one writes only what changed: the marker file
(its manifest) lists each file with the hash of its content (pages hashed with their
"made" time left out) and, for a game's files, a key of what they are made from (the
game's stored record and this arena's templates and scripts), so an unchanged game is
neither built again nor written. The changed files are built beside DIR and then moved
into DIR, so a failed run leaves the last report whole. The report writes only its own
files: a later report removes only those of the marker's list it no longer writes;
anything else in the folder (a `.git/`, a `CNAME`, a user's notes) is kept. A folder
that holds other files but no marker is refused, as is one this user cannot write to."""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import sqlite_utils

from arena.errors import ConfigError
from arena.league import store
from arena.league.reports.snapshot import standings
from arena.league.store import site_reads
from arena.league.store.schema import check_integrity
from arena.play.replay_frames import game_frames_outline
from arena.web import pages
from arena.web.links import ReportLinks
from arena.web.render import render_page
from arena.web.viewer_data import PACK_FORMAT, pack_frames

MARKER = ".arena-report"  # a folder holding this file was written by `arena report`
STATIC = Path(__file__).parent / "static"
TEMPLATES = Path(__file__).parent / "templates"
SERVE_URL = "http://127.0.0.1:8000"  # `arena serve`'s address when run with no options
MADE = "\x00made\x00"  # a page's "made" time while it is hashed
GAME_CHOICES = "all|none|last:N|best:N"
# games an entrant's page lists in the report: pages of later games follow in files of
# their own, so a grown league rewrites only its entrants' last pages, and no page
# grows with a season (an entrant of 100,000 games once listed 80,000 in one page)
GAMES_PER_PAGE = 1000


@dataclass
class ReportResult:
    """What a report run did: its front page, the files and bytes the report holds, and
    those of them this run wrote (an unchanged file is left as it was)."""

    index: Path
    games: int = 0  # the games of the chosen leagues
    paged: int = 0  # of them, those with a page and frames in the report
    files: int = 0
    bytes: int = 0
    written_files: int = 0
    written_bytes: int = 0
    built_games: int = 0  # games whose page and frames this run built (not unchanged)


def write_report(
    db_path: Path,
    out: Path,
    league: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    games: str = "all",
    serve_url: str = SERVE_URL,
    jobs: int | None = None,
) -> Path:
    """Write the report of `league` (default: every league) from `db_path` to `out`;
    the path of its front page. `progress(done, total)` is told after each game."""
    return build_report(db_path, out, league, progress, games, serve_url, jobs).index


def build_report(
    db_path: Path,
    out: Path,
    league: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    games: str = "all",
    serve_url: str = SERVE_URL,
    jobs: int | None = None,
) -> ReportResult:
    """`write_report`, telling what it wrote. `games` chooses the games that get a page
    (`parse_games`); the others link to `serve_url`. `jobs`: processes building games'
    pages (default: the cores this process may use)."""
    out = Path(out)
    choice = parse_games(games)
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
            writer = _Writer(build, out, _manifest(out) if (out / MARKER).is_file() else {})
            result = _write_all(db, Path(db_path), writer, names, choice, serve_url, jobs, progress)
            _put_in_place(build, out, writer)
        except OSError as err:
            raise ConfigError(_unwritable(out, err)) from None
        finally:
            shutil.rmtree(build, ignore_errors=True)
    finally:
        db.close()
    result.index = out / "index.html"
    result.files, result.bytes = len(writer.entries), sum(e[1] for e in writer.entries.values())
    result.written_files, result.written_bytes = writer.written, writer.written_bytes
    return result


def parse_games(spec: str) -> tuple[str, int]:
    """`--games`: ("all", 0), ("none", 0), ("last", N) or ("best", N); ConfigError
    for anything else. last:N is the N games stored last; best:N the N closest finishes
    (the smallest gap between the highest total and the next, newest first on a tie)."""
    kind, _, count = spec.strip().partition(":")
    if kind in ("all", "none") and not count:
        return kind, 0
    if kind in ("last", "best") and count.isdigit() and int(count) >= 0:
        return kind, int(count)
    raise ConfigError(f"--games {spec!r}: give {GAME_CHOICES} (N a whole number, 0 or more)")


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


def _manifest(out: Path) -> dict[str, tuple[str, int, str]]:
    """The files an earlier report in `out` wrote (its marker's list), each with the
    hash and size of its content and the key it was built from (empty where an older
    report's marker did not say: such a file is written again)."""
    try:
        lines = (out / MARKER).read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    listed = {}
    for line in lines[1:]:
        name, _, rest = line.partition("\t")
        if not name or name.startswith(("/", "..")) or ".." in Path(name).parts:
            continue
        digest, _, rest = rest.partition("\t")
        size, _, key = rest.partition("\t")
        listed[name] = (digest, int(size) if size.isdigit() else -1, key)
    return listed


class _Writer:
    """The files of the report being made: each new or changed one written into the
    build folder, each unchanged one (same hash as the manifest says, and still there
    with its size) left where it is; all of them listed for the new manifest."""

    def __init__(self, build: Path, out: Path, before: dict[str, tuple[str, int, str]]):
        self.build, self.out, self.before = build, out, before
        self.entries: dict[str, tuple[str, int, str]] = {}  # name -> (hash, size, key)
        self.written = 0
        self.written_bytes = 0

    def unchanged(self, name: str, digest: str | None = None, key: str = "") -> bool:
        """Whether `name` is in `out` as the earlier report wrote it, with this content
        hash (or, when only `key` is given, built from the same key); listed if so."""
        old = self.before.get(name)
        if old is None or (digest is not None and old[0] != digest) or old[2] != key:
            return False
        if digest is None and not key:
            return False
        try:
            if (self.out / name).stat().st_size != old[1]:
                return False
        except OSError:
            return False
        self.entries[name] = old
        return True

    def put(self, name: str, data: bytes, key: str = "", hashed: bytes | None = None) -> None:
        """Add file `name` holding `data` (hashed as `hashed`, the page without its time,
        when given); written only when it changed."""
        digest = hashlib.sha256(data if hashed is None else hashed).hexdigest()[:24]
        if self.unchanged(name, digest, key):
            return
        path = self.build / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.entries[name] = (digest, len(data), key)
        self.written += 1
        self.written_bytes += len(data)

    def page(self, name: str, template: str, links: ReportLinks, context: dict[str, Any]) -> None:
        data, hashed = _page_bytes(template, links, context)
        self.put(name, data, hashed=hashed)


def _page_bytes(template: str, links: ReportLinks, context: dict[str, Any]) -> tuple[bytes, bytes]:
    """A page as written (with the time it was made) and as hashed (without)."""
    page = render_page(template, links, context, made=MADE)
    made = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return page.replace(MADE, made).encode(), page.encode()


def _put_in_place(build: Path, out: Path, writer: _Writer) -> None:
    """Move the new report's changed files from `build` into `out`, each over its old
    copy, and remove the files the earlier report listed that this one no longer writes
    (and the folders that leaves empty); nothing else in `out` is touched. The marker,
    listing the report's files, is written last."""
    files = sorted(p.relative_to(build).as_posix() for p in build.rglob("*") if p.is_file())
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
    for name in sorted(set(writer.before) - set(writer.entries) - {MARKER}, reverse=True):
        stale = out / name
        if stale.is_file() or stale.is_symlink():
            stale.unlink()
            for parent in stale.parents:
                if parent == out or any(parent.iterdir()):
                    break
                parent.rmdir()
    (out / MARKER).write_text(
        "written by arena report; its files (name, hash, size, made from):\n"
        + "".join(
            f"{name}\t{digest}\t{size}\t{key}\n"
            for name, (digest, size, key) in sorted(writer.entries.items())
        )
    )


def _code_key() -> str:
    """What a game's page and frames depend on besides the game: the templates, the
    static files and the frames' pack format (a new arena rebuilds them all)."""
    digest = hashlib.sha256(PACK_FORMAT.encode())
    for folder in (TEMPLATES, STATIC):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def chosen_games(
    db: sqlite_utils.Database, league_ids: list[int], choice: tuple[str, int]
) -> tuple[list[int], list[int]]:
    """(every game of the leagues, the games that get a page), each by id."""
    rows = [row for league_id in league_ids for row in site_reads.league_game_totals(db, league_id)]
    ids = [row["id"] for row in rows]
    kind, count = choice
    if kind == "all":
        return ids, ids
    if kind == "none" or count == 0:
        return ids, []
    if kind == "last":
        return ids, sorted(ids)[-count:]

    def gap(row: dict[str, Any]) -> tuple[float, int]:
        totals = sorted(row["totals"] or [0], reverse=True)
        return (totals[0] - totals[1] if len(totals) > 1 else 0, -row["id"])

    return ids, sorted(row["id"] for row in sorted(rows, key=gap)[:count])


def _write_all(
    db: sqlite_utils.Database,
    db_path: Path,
    writer: _Writer,
    names: list[str],
    choice: tuple[str, int],
    serve_url: str,
    jobs: int | None,
    progress: Callable[[int, int], None] | None,
) -> ReportResult:
    league_ids = [store.league_id_by_name(db, name)[0] for name in names]
    games, paged = chosen_games(db, league_ids, choice)
    links = ReportLinks(None if len(paged) == len(games) else frozenset(paged), serve_url)
    result = ReportResult(writer.out / "index.html", len(games), len(paged))
    code = _code_key()
    work = [(game_id, _game_key_before(writer, game_id)) for game_id in paged]
    building = _built_games(db_path, links, code, work, jobs)
    next(building)  # the games are being built while this process writes the other pages
    try:
        _write_pages(db, writer, links, names, league_ids)
        _write_games(db, writer, links, code, building, result, progress)
    finally:
        building.close()
    return result


def _write_pages(
    db: sqlite_utils.Database,
    writer: _Writer,
    links: ReportLinks,
    names: list[str],
    league_ids: list[int],
) -> None:
    """The static files and every page but the games'."""
    for path in sorted(STATIC.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            writer.put(f"static/{path.relative_to(STATIC).as_posix()}", path.read_bytes())

    index = pages.leagues_page(db)
    index["leagues"] = [row for row in index["leagues"] if row["name"] in names]
    writer.page(links.index(), "leagues.html", links, index)
    for name, league_id in zip(names, league_ids, strict=True):
        held = standings(db, league_id)  # once: the league's and its entrants' pages show them
        league = pages.league_page(db, name, held=held)
        writer.page(links.league(name), "league.html", links, league)
        writer.page(links.faults(name), "faults.html", links, pages.faults_page(db, name))
        _, settings = store.league_record(db, league_id)
        for entrant in settings["entrants"]:
            for context in pages.entrant_pages(db, name, entrant, GAMES_PER_PAGE, held):
                page = context["games_page"]["page"]
                writer.page(
                    links.entrant_games(name, entrant, page), "entrant.html", links, context
                )
        for match in store.match_records(db, league_id):
            context = pages.match_page(db, name, match["idx"])
            writer.page(links.match(name, match["idx"]), "match.html", links, context)


def _write_games(
    db: sqlite_utils.Database,
    writer: _Writer,
    links: ReportLinks,
    code: str,
    building: Iterator[Any],
    result: ReportResult,
    progress: Callable[[int, int], None] | None,
) -> None:
    """Each game's page and frames as they are built (or left as they are)."""
    for done, (game_id, built) in enumerate(building, 1):
        if built is None:  # unchanged: its page and frames stay as they are
            listed = all(writer.unchanged(n, key=writer.before[n][2]) for n in _game_files(game_id))
            if not listed:  # gone or edited since: build it after all
                built = _build_game(db, links, code, game_id, "")
        if built is not None:
            key, page, hashed, script = built
            result.built_games += 1
            writer.put(links.game(game_id), page, key=key, hashed=hashed)
            writer.put(links.deal_data(game_id, 1), script.encode(), key=key)
        if progress:
            progress(done, result.paged)


def _game_files(game_id: int) -> tuple[str, str]:
    links = ReportLinks()
    return links.game(game_id), links.deal_data(game_id, 1)


def _game_key_before(writer: _Writer, game_id: int) -> str:
    """The key the earlier report built game `game_id`'s files from ("" if none)."""
    keys = {writer.before.get(name, ("", 0, ""))[2] for name in _game_files(game_id)}
    return keys.pop() if len(keys) == 1 else ""


Built = tuple[str, bytes, bytes, str]  # key, page (with its time), page hashed, script


def _build_game(
    db: sqlite_utils.Database, links: ReportLinks, code: str, game_id: int, before: str
) -> Built | None:
    """Game `game_id`'s page and packed frames, or None when the key it is made from
    is `before` (the earlier report's files are still right)."""
    row = site_reads.game_row(db, game_id)
    if row is None:
        raise ConfigError(f"game {game_id} is no longer in the database")
    made_from = {k: row[k] for k in ("id", "league", "game", "match_idx", "rotation", "players")}
    digest = hashlib.sha256(code.encode())
    digest.update(orjson.dumps([made_from, row["replay"]], option=orjson.OPT_SORT_KEYS))
    key = digest.hexdigest()[:24]
    if key == before:
        return None
    enabled = gc.isenabled()
    gc.disable()  # the frames are many small containers and no cycles: collecting is waste
    try:
        frames, outline = game_frames_outline(row["replay"])
        script = pack_frames(frames, game_id)
        context = {**pages.game_page_of(row, outline, links), "live_page": False}
    finally:
        if enabled:
            gc.enable()
    page, hashed = _page_bytes("game.html", links, context)
    return key, page, hashed, script


_worker: dict[str, Any] = {}  # a building process's database, links and code key


def _start_worker(db_path: Path, links: ReportLinks, code: str) -> None:
    _worker.update(db=store.open_existing(db_path), links=links, code=code)


def _work(item: tuple[int, str]) -> tuple[int, Built | None]:
    game_id, before = item
    return game_id, _build_game(_worker["db"], _worker["links"], _worker["code"], game_id, before)


def _built_games(
    db_path: Path,
    links: ReportLinks,
    code: str,
    work: list[tuple[int, str]],
    jobs: int | None,
) -> Iterator[tuple[int, Built | None] | None]:
    """None once the games are asked for, then each game's (id, built files or None
    when unchanged), in order: in `jobs` processes when there are games enough to be
    worth starting them."""
    jobs = jobs or len(os.sched_getaffinity(0))
    if jobs <= 1 or len(work) < 8:
        yield None
        _start_worker(db_path, links, code)
        try:
            yield from map(_work, work)
        finally:
            _worker.pop("db").close()
        return
    # spawned, not forked: a fork of a process with threads (a server's, a test's) may
    # inherit a lock held by one of them and wait on it for ever
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        jobs, context, initializer=_start_worker, initargs=(db_path, links, code)
    ) as pool:
        results = pool.map(_work, work, chunksize=8)  # every game asked for now
        try:
            yield None  # started: the caller writes its other pages meanwhile
            yield from results
        except GeneratorExit:  # the report failed: the games not built yet are not
            pool.shutdown(cancel_futures=True)
            raise
