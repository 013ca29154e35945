"""`arena bench web`: how long the site takes to render its pages over a big league.

A league of `--entrants` builtin bots and `--games` stored games (seat-rotated Trix
matches of four full games of four kingdoms) is built in a temporary database (or kept
in `--db`), by a fast path: eight matches are really played; they are stored by
`store_match` (the store's own writer and codec) under the first `DISTINCT` tables of
the league's balanced schedule, rated (`rate_by = "match"`: a rating row a match and
entrant at its table); then, when the league is bigger, those stored rows are copied
in SQL as they are (arena/league/store/bulk_writes.py, `replicate_league`: every
replay as the codec wrote it, results, deal scores, faults, the rating history) under
new match indexes and ids until the league holds `--games`; and its standings are
computed and stored as `arena run` stores them at its end. A million games and 500
entrants take a few minutes. The default feeding, by margin, writes a rating row for
every entrant after every match (500 a match in such a league): the bench does not use
it, so its store is what the other feedings write.

Then, in one run: how long the build took to compute the standings from every result
(what a page does when the league changed since they were stored), and the league
page, an entrant page (its first page of games), a match page, the viewer's game page
and its first deal's data, and the leagues page, each as the server makes them (a
read-only opening of the database, the page's data, its template), timed cold once and
then as the median and 95th percentile of the repeats. Nothing is asserted. `--growth`
does it at each of a list of sizes and prints the rows of docs/benchmarks.md's growth
table.
"""

from __future__ import annotations

import dataclasses
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.league import store
from arena.league.definition.config import MAX_DRAWS, load_league
from arena.league.definition.records import PlayedGame, PlayedMatch
from arena.league.reports.snapshot import refresh
from arena.league.running.runner import league_schedule
from arena.league.standings.ratings import Rater, rate_prefix
from arena.league.store import (
    ensure_league,
    league_id_by_name,
    open_db,
    open_existing,
    replace_ratings,
    site_reads,
    store_match,
)
from arena.league.store.bulk_writes import replicate_league
from arena.league.workers.worker import play_scheduled_match
from arena.web import pages
from arena.web.links import Links
from arena.web.render import render_page
from arena.web.viewer_data import deal_json

LEAGUE = """
[league]
name = "bench-web"
game = "trix"
seed = 1
deal_key = "00000000000000000000000000000001"
schedule = "balanced"
matches = {matches}
rate_by = "match"  # a rating row a match and entrant at its table (see the docstring)

{entrants}
"""


@dataclass
class Timing:
    what: str
    cold_ms: float
    median_ms: float
    p95_ms: float


@dataclass
class WebBench:
    entrants: int
    games: int
    build_s: float
    db_bytes: int
    standings_s: float | None  # the build's standings computed from every result once
    timings: list[Timing] = field(default_factory=list)

    @property
    def bytes_per_game(self) -> float:
        return self.db_bytes / max(self.games, 1)

    def lines(self) -> list[str]:
        build = f"built in {self.build_s:.0f} s" if self.build_s else "reused"
        out = [
            f"a league of {self.entrants} entrants and {self.games:,} stored games ({build}; "
            f"{self.db_bytes / 1e6:,.1f} MB, {self.bytes_per_game:,.0f} bytes a game)",
            "standings computed from every result (once a league change): "
            + (
                "not measured (a league kept)"
                if self.standings_s is None
                else f"{self.standings_s:,.1f} s"
            ),  # fmt: skip
            f"{'what':<44} {'cold ms':>8} {'median ms':>10} {'p95 ms':>8}",
        ]
        for t in self.timings:
            out.append(f"{t.what:<44} {t.cold_ms:>8.1f} {t.median_ms:>10.1f} {t.p95_ms:>8.1f}")
        return out

    def growth_row(self) -> str:
        """This size's row of docs/benchmarks.md's growth table: games, store bytes in
        all and a game, and the four pages' medians (ms)."""
        pages = " | ".join(f"{t.median_ms:.0f}" for t in self.timings[:4])
        return (
            f"| {self.games:,} | {self.db_bytes / 1e6:,.1f} MB | {self.bytes_per_game:,.0f} | "
            f"{pages} | {self.timings[4].median_ms:.0f} | {self.build_s:.0f} s |"
        )


GROWTH_HEADER = (
    "| games | store | bytes a game | league page ms | entrant page ms | match page ms | "
    "viewer ms (page + deal) | deal data ms | build |"
)


STANDINGS_SECONDS: dict[Path, float] = {}  # how long each build's `refresh` took
DISTINCT = 2_000  # matches stored by `store_match`; a bigger league is copies of them


def build_league(
    folder: Path,
    entrants: int,
    matches: int,
    templates: int = 8,
    say: Callable[[str], None] = lambda text: None,
) -> Path:
    """The benchmark's database in `folder`: `matches` stored matches of `entrants`
    builtin bots (see the module's docstring): `templates` matches really played,
    stored by `store_match` under the first `DISTINCT` tables of the schedule, then
    copied as stored until there are `matches`; the standings computed and stored."""
    most = min(matches, DISTINCT, MAX_DRAWS // entrants)  # what a balanced schedule draws
    distinct = max(d for d in range(1, most + 1) if matches % d == 0)
    copies = matches // distinct  # whole copies: the league holds exactly `matches`
    names = [f"bot-{i:03d}" for i in range(entrants)]
    text = "\n".join(f'[[entrant]]\nname = "{n}"\nbot = "builtin:first"\n' for n in names)
    path = folder / "bench-web.toml"
    path.write_text(LEAGUE.format(matches=distinct, entrants=text))
    config = load_league(path)
    schedule = league_schedule(config)
    started = time.perf_counter()
    played = [
        play_scheduled_match(config, match, str(folder / "logs")) for match in schedule[:templates]
    ]
    say(f"  {templates} matches played ({time.perf_counter() - started:.0f} s)")
    db_path = folder / "bench-web.db"
    db = open_db(db_path)
    try:
        league_id = ensure_league(db, config)
        rater = Rater(config.ratings, names, config.rate_by, config.forfeit_faults)
        outcomes = {}
        for match in schedule:
            record = restaged(
                played[match.index % templates], match.index, match.seed, tuple(match.entrants)
            )
            store_match(db, league_id, record)
            outcomes[match.index] = record.outcome()
        _, rows = rate_prefix(outcomes, rater)
        replace_ratings(db, league_id, rows)
        say(f"  {distinct:,} matches stored ({time.perf_counter() - started:.0f} s)")
        if copies > 1:
            replicate_league(
                db,
                league_id,
                copies,
                lambda k: (
                    say(f"  copy {k} of {copies} ({time.perf_counter() - started:.0f} s)")
                    if k % 10 == 0 or k == copies
                    else None
                ),
            )
        computing = time.perf_counter()
        refresh(db, league_id)
        STANDINGS_SECONDS[db_path] = time.perf_counter() - computing
        say(f"  standings computed ({time.perf_counter() - started:.0f} s)")
    finally:
        db.close()
    return db_path


def restaged(played: PlayedMatch, index: int, seed: str, entrants: tuple[str, ...]) -> PlayedMatch:
    """A played match's games as if `entrants` had played them at match `index`."""
    renamed = dict(zip(played.entrants, entrants, strict=True))
    games = tuple(
        PlayedGame(
            game.rotation,
            tuple(renamed[p] for p in game.players),
            {**game.replay, "players": [renamed[p] for p in game.players]},
            game.decisions,
        )
        for game in played.games
    )
    return dataclasses.replace(played, index=index, seed=seed, entrants=entrants, games=games)


def _time(call: Callable[[], object], repeats: int) -> tuple[float, float, float]:
    """Cold, then the median and the 95th percentile of `repeats` runs (ms)."""
    started = time.perf_counter()
    call()
    cold = (time.perf_counter() - started) * 1000
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        runs.append((time.perf_counter() - started) * 1000)
    runs.sort()
    return cold, statistics.median(runs), runs[min(len(runs) - 1, int(0.95 * len(runs)))]


def bench_web(
    entrants: int = 50,
    games: int = 10_000,
    repeats: int = 7,
    db_path: Path | None = None,
    say: Callable[[str], None] = lambda text: None,
) -> WebBench:
    """Build the league (or reuse the one at `db_path`), then time its pages (see the
    module's docstring)."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as folder:
        started = time.perf_counter()
        if db_path is None or not db_path.exists():
            built = build_league(Path(folder), entrants, -(-games // 4), say=say)
            standings_s: float | None = STANDINGS_SECONDS.pop(built)
            if db_path is not None:
                shutil.move(built, db_path)
            db_path = built if db_path is None else db_path
            build_s = time.perf_counter() - started
        else:
            build_s, standings_s = 0.0, None
        return _measure(db_path, repeats, build_s, standings_s)


def _measure(db_path: Path, repeats: int, build_s: float, standings_s: float | None) -> WebBench:
    """Time the four pages over the league at `db_path` as the server makes them."""
    links = Links()
    db = open_existing(db_path)
    try:
        league_id, name = league_id_by_name(db, "bench-web")
        game_ids = site_reads.league_game_ids(db, league_id)
        stored = len(game_ids)
        names = store.entrant_names(db, league_id)
        match_idx = max(store.stored_match_indexes(db, league_id)) // 2
        game_id = game_ids[-1]
    finally:
        db.close()
    size = db_path.stat().st_size
    result = WebBench(len(names), stored, build_s, size, standings_s)
    entrant = names[0]

    def served(template: str, build: Callable[[Any], dict[str, Any]]) -> Callable[[], str]:
        def call() -> str:  # what the server does for a request: open, read, render
            conn = open_existing(db_path)
            try:
                return render_page(template, links, build(conn))
            finally:
                conn.close()

        return call

    def first_deal() -> str:
        conn = open_existing(db_path)
        try:
            return deal_json(pages.stored_replay(conn, game_id), 1)
        finally:
            conn.close()

    cases = [
        (
            "league page (its first 100 rows)",
            served("league.html", lambda c: pages.league_page(c, name, 1)),
        ),
        (
            "entrant page (its first 200 games)",
            served("entrant.html", lambda c: pages.entrant_page(c, name, entrant, 1)),
        ),
        (
            f"match page of match {match_idx + 1}",
            served("match.html", lambda c: pages.match_page(c, name, match_idx)),
        ),
        (
            f"viewer page of game {game_id}",
            served(
                "game.html", lambda c: {**pages.game_page(c, game_id, links), "live_page": False}
            ),
        ),
        ("viewer's first deal's data", first_deal),
        ("leagues page", served("leagues.html", pages.leagues_page)),
    ]
    for what, call in cases:
        result.timings.append(Timing(what, *_time(call, repeats)))
    page, deal = result.timings[3], result.timings[4]
    result.timings.insert(
        3,
        Timing(
            "viewer opens a game (page + first deal)",
            page.cold_ms + deal.cold_ms,
            page.median_ms + deal.median_ms,
            page.p95_ms + deal.p95_ms,
        ),
    )
    return result


def bench_growth(
    sizes: list[int], entrants: int, repeats: int, say: Callable[[str], None]
) -> list[WebBench]:
    """`bench_web` at each size of `sizes` (games), each league built afresh."""
    out = []
    for games in sizes:
        say(f"{games:,} games:")
        out.append(bench_web(entrants, games, repeats, say=say))
        say("\n".join(out[-1].lines()))
    return out
