"""`arena bench report`: how long `arena report` takes and how much it writes, for a
league of N games, and then for the same league grown by a tenth into the same folder.

The league (five builtin bots, seat-rotated Trix matches of four games, full games of
four kingdoms) is built in a temporary database by a fast path: a few matches are
really played, and their games stored again under every scheduled match, so the
database holds what a league of that size holds (each game its own stored replay;
the report builds and writes each game's page and frames, nothing is shared between
games) in seconds rather than the hours playing would take. The report is then
written into a new folder (timed), the league grows by a tenth of its matches, and
the report is written again into the same folder (timed: what it wrote, what it
left as it was). Nothing is asserted.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bench.web import restaged
from arena.league.definition.config import load_league
from arena.league.running.runner import league_schedule
from arena.league.standings.ratings import Rater, rate_prefix
from arena.league.store import ensure_league, open_db, replace_ratings, store_match
from arena.league.workers.worker import play_scheduled_match
from arena.web.report import ReportResult, build_report

LEAGUE = """
[league]
name = "bench-report"
game = "trix"
seed = 5
deal_key = "00000000000000000000000000000005"
schedule = "balanced"
matches = {matches}

[[entrant]]
name = "random-a"
bot = "builtin:random"
[[entrant]]
name = "random-b"
bot = "builtin:random"
[[entrant]]
name = "first"
bot = "builtin:first"
[[entrant]]
name = "greedy"
bot = "builtin:greedy"
[[entrant]]
name = "random-c"
bot = "builtin:random"
"""
TEMPLATES = 12  # matches really played; the others store their games again


@dataclass
class ReportRun:
    what: str
    games: int
    seconds: float
    result: ReportResult

    def line(self) -> str:
        r = self.result
        return (
            f"{self.what:<22} {self.games:>7} {self.seconds:>8.1f} "
            f"{self.seconds / max(self.games, 1) * 1000:>8.1f} {r.bytes / 1e6:>9.1f} "
            f"{r.bytes / max(self.games, 1) / 1e3:>7.1f} {r.files:>7} "
            f"{r.written_files:>8} {r.written_bytes / 1e6:>9.1f} {r.built_games:>6}"
        )


@dataclass
class ReportBench:
    games: int
    build_s: float
    runs: list[ReportRun]

    def lines(self) -> list[str]:
        return [
            f"a league of {self.games} stored Trix games (built in {self.build_s:.0f} s), "
            "its report written into a new folder, then again after the league grew",
            f"{'report':<22} {'games':>7} {'s':>8} {'ms/game':>8} {'MB':>9} {'KB/game':>7} "
            f"{'files':>7} {'written':>8} {'MB wrote':>9} {'built':>6}",
            *(run.line() for run in self.runs),
        ]


class _League:
    """The benchmark's league: its schedule, the played template matches, and the
    database they are stored in, match by match."""

    def __init__(self, folder: Path, matches: int) -> None:
        path = folder / "bench-report.toml"
        path.write_text(LEAGUE.format(matches=matches))
        self.config = load_league(path)
        self.schedule = league_schedule(self.config)
        self.played = [
            play_scheduled_match(self.config, match, str(folder / "logs"))
            for match in self.schedule[:TEMPLATES]
        ]
        self.db_path = folder / "bench-report.db"
        self.outcomes: dict[int, object] = {}

    def store(self, upto: int) -> None:
        """Store the scheduled matches before `upto` not stored yet, and rate them."""
        db = open_db(self.db_path)
        try:
            league_id = ensure_league(db, self.config)
            names = [entrant.name for entrant in self.config.entrants]
            for match in self.schedule[len(self.outcomes) : upto]:
                record = restaged(
                    self.played[match.index % TEMPLATES],
                    match.index,
                    match.seed,
                    tuple(match.entrants),
                )
                store_match(db, league_id, record)
                self.outcomes[match.index] = record.outcome()
            rater = Rater(
                self.config.ratings, names, self.config.rate_by, self.config.forfeit_faults
            )
            _, rows = rate_prefix(self.outcomes, rater)
            replace_ratings(db, league_id, rows)
        finally:
            db.close()


def bench_report(games: int = 10_000, jobs: int | None = None) -> ReportBench:
    """Build the league, write its report, grow the league by a tenth and write the
    report again into the same folder (see the module's docstring)."""
    matches = max(1, games // 4)
    grown = matches + max(1, matches // 10)
    with tempfile.TemporaryDirectory(prefix="arena-bench-report-") as name:
        folder = Path(name)
        started = time.perf_counter()
        league = _League(folder, grown)
        league.store(matches)
        bench = ReportBench(matches * 4, time.perf_counter() - started, [])
        out = folder / "report"
        for what, stored in (("first report", matches), ("after the league grew", grown)):
            league.store(stored)
            started = time.perf_counter()
            result = build_report(league.db_path, out, jobs=jobs)
            seconds = time.perf_counter() - started
            bench.runs.append(ReportRun(what, stored * 4, seconds, result))
    return bench
