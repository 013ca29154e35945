"""`arena bench web`: how long the site takes to render its heaviest pages.

A league of 50 entrants and 10,000 stored games (2,500 seat-rotated Trix matches of
four games, full games of four kingdoms) is built in a temporary database: a few
matches are really played by builtin bots and stored again under every scheduled
seating, so the database holds what a real league of that size holds (every replay,
deal score, result and rating row: rated per deal, the default, 200,000 rating rows)
in a minute rather than hours. Then, in one run:
`arena table`'s rows (the baseline: the same figures without a page around them), the
league page, the viewer's game page and its first deal's frames, each as the server
makes them (a read-only opening of the database, the page's data, its template),
timed cold once and then as the median of several repeats. Nothing is asserted.
"""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.league import store
from arena.league.definition.config import load_league
from arena.league.definition.records import PlayedGame, PlayedMatch
from arena.league.reports.table import league_rows
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
from arena.league.workers.worker import play_scheduled_match
from arena.web import pages
from arena.web.links import Links
from arena.web.render import render_page
from arena.web.viewer_data import deal_script

LEAGUE = """
[league]
name = "bench-web"
game = "trix"
seed = 1
deal_key = "00000000000000000000000000000001"
schedule = "balanced"
matches = {matches}
rate_by = "deal"  # the heaviest rating history (20 rows a match and entrant), as measured

{entrants}
"""


@dataclass
class Timing:
    what: str
    cold_ms: float
    median_ms: float


@dataclass
class WebBench:
    entrants: int
    games: int
    build_s: float
    timings: list[Timing] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [
            f"a league of {self.entrants} entrants and {self.games} stored games "
            f"(built in {self.build_s:.0f} s)",
            f"{'what':<44} {'cold ms':>8} {'median ms':>10} {'x table':>8}",
        ]
        base = self.timings[0].median_ms
        for t in self.timings:
            out.append(
                f"{t.what:<44} {t.cold_ms:>8.1f} {t.median_ms:>10.1f} {t.median_ms / base:>8.2f}"
            )
        return out


def build_league(folder: Path, entrants: int, matches: int, templates: int = 8) -> Path:
    """The benchmark's database in `folder`: `matches` stored matches of `entrants`
    builtin bots, the replays of `templates` matches really played, stored again
    under each scheduled table."""
    names = [f"bot-{i:02d}" for i in range(entrants)]
    text = "\n".join(f'[[entrant]]\nname = "{n}"\nbot = "builtin:first"\n' for n in names)
    path = folder / "bench-web.toml"
    path.write_text(LEAGUE.format(matches=matches, entrants=text))
    config = load_league(path)
    schedule = league_schedule(config)
    played = [
        play_scheduled_match(config, match, str(folder / "logs")) for match in schedule[:templates]
    ]
    db_path = folder / "bench-web.db"
    db = open_db(db_path)
    try:
        league_id = ensure_league(db, config)
        rater = Rater(config.ratings, names, config.rate_by, config.forfeit_faults)
        outcomes = {}
        for match in schedule:
            record = _restaged(
                played[match.index % templates], match.index, match.seed, tuple(match.entrants)
            )
            store_match(db, league_id, record)
            outcomes[match.index] = record.outcome()
        _, rows = rate_prefix(outcomes, rater)
        replace_ratings(db, league_id, rows)
    finally:
        db.close()
    return db_path


def _restaged(played: PlayedMatch, index: int, seed: str, entrants: tuple[str, ...]) -> PlayedMatch:
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


def _time(call: Callable[[], object], repeats: int) -> tuple[float, float]:
    started = time.perf_counter()
    call()
    cold = (time.perf_counter() - started) * 1000
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        runs.append((time.perf_counter() - started) * 1000)
    return cold, statistics.median(runs)


def bench_web(entrants: int = 50, games: int = 10_000, repeats: int = 7) -> WebBench:
    """Build the league, then time its pages (see the module's docstring)."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as folder:
        started = time.perf_counter()
        db_path = build_league(Path(folder), entrants, games // 4)
        result = WebBench(entrants, games, time.perf_counter() - started)
        links = Links()
        db = open_existing(db_path)
        league_id, name = league_id_by_name(db, "bench-web")
        game_id = site_reads.league_game_ids(db, league_id)[-1]
        entrant = store.entrant_names(db, league_id)[0]

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
                return deal_script(pages.stored_replay(conn, game_id), 1)
            finally:
                conn.close()

        cases = [
            ("arena table's rows (baseline)", lambda: league_rows(db, league_id)),
            ("league page", served("league.html", lambda c: pages.league_page(c, name))),
            ("leagues page", served("leagues.html", pages.leagues_page)),
            (
                "entrant page",
                served("entrant.html", lambda c: pages.entrant_page(c, name, entrant)),
            ),
            (
                f"viewer page of game {game_id}",
                served(
                    "game.html",
                    lambda c: {**pages.game_page(c, game_id, links), "live_page": False},
                ),
            ),
            ("viewer's first deal's frames", first_deal),
        ]
        for what, call in cases:
            cold, median = _time(call, repeats)
            result.timings.append(Timing(what, cold, median))
        page, deal = result.timings[4], result.timings[5]
        result.timings.append(
            Timing(
                "viewer opens a game (page + first deal)",
                page.cold_ms + deal.cold_ms,
                page.median_ms + deal.median_ms,
            )
        )
        db.close()
    return result
