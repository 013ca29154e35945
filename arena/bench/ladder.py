"""`arena bench ladder`: what a ladder's choices cost, and how many games its
promotion test needs.

1. The matchmaker. A ladder database of `versions` versions (one author each, so
   any four may meet) holding `games` stored games is built by a fast path: a pool
   of real matches between built-in bots is played once, then stored again and
   again under new indexes with other versions in the seats, through the same
   `store_match` a run uses (so the rows, indexes and sizes are a run's). Then the
   ladder's source is opened as `arena ladder run` opens it (every stored match
   rated; timed), and `next_match` is timed over many choices, each given back so
   the ladder stays the same: a choice reads the versions' rows and chooses, and
   reads no game. The pure `choose` is timed alone too (arena/ladder/matchmaking.py).
2. Promotion (arena/ladder/promotion.py): games to a decision for a candidate
   better by about 20 and 50 points a game, for the paired test against an
   unpaired one on the same ladder.

Nothing here is a test: it prints figures.
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.ladder.book import init_ladder, open_ladder
from arena.ladder.config import parse_ladder
from arena.ladder.matchmaking import bench_choice
from arena.ladder.source import LadderSource
from arena.league.definition.config import Entrant
from arena.league.definition.records import PlayedGame, PlayedMatch
from arena.league.definition.schedule import ScheduledMatch
from arena.league.running.schedule_source import TaskTemplate
from arena.league.store import open_db, store_match, stored_deal_key
from arena.league.workers.worker import Lifecycle, play_scheduled_match

POOL = 24  # real matches played once, then stored again with other seats


@dataclass
class LadderBench:
    versions: int
    games: int
    build_seconds: float = 0.0
    open_seconds: float = 0.0
    db_mb: float = 0.0
    choice_ms: list[float] = field(default_factory=list)
    pure: dict[str, float] = field(default_factory=dict)
    promotion: dict[str, Any] = field(default_factory=dict)

    def lines(self) -> list[str]:
        out = [
            f"ladder of {self.versions} versions, {self.games:,} stored games "
            f"(built in {self.build_seconds:.0f} s, database {self.db_mb:.0f} MB)",
            f"  opening it (every stored match rated, as `arena ladder run` starts): "
            f"{self.open_seconds:.2f} s",
        ]
        if self.choice_ms:
            ms = sorted(self.choice_ms)
            p95 = ms[int(0.95 * (len(ms) - 1))]
            out.append(
                f"  next match chosen by the run's source ({len(ms)} choices): mean "
                f"{statistics.fmean(ms):.2f} ms, median {statistics.median(ms):.2f} ms, "
                f"p95 {p95:.2f} ms, max {ms[-1]:.2f} ms"
            )
        if self.pure:
            out.append(
                f"  the matchmaker's choice alone ({self.pure['versions']:.0f} versions): mean "
                f"{self.pure['mean_ms']:.3f} ms, p95 {self.pure['p95_ms']:.3f} ms"
            )
        out += promotion_lines(self.promotion)
        return out


def promotion_lines(figures: dict[str, Any]) -> list[str]:
    """The promotion bench's figures (arena/ladder/promotion.py `bench_promotion`), a
    line per candidate and test."""
    if not figures:
        return []
    out = [
        f"promotion test on Trix: active p = {figures['active_p']}, opponents p in "
        f"{figures['opponents_p']}, {figures['bank_pairs']} real pairs per candidate, "
        f"{figures['seeds']} tests drawn from them per case; candidate's games:"
    ]
    for gain, entry in figures["candidates"].items():
        out.append(
            f"  +{gain} points a game (p = {entry['candidate_p']}, measured "
            f"{entry['measured_mean']:+.1f}; spread a pair {entry['paired_sd']:.0f} paired, "
            f"{entry['unpaired_sd']:.0f} unpaired):"
        )
        for kind in ("paired", "unpaired"):
            capped, lifted = entry[f"{kind}_default"], entry[f"{kind}_lifted"]
            null, at = entry[f"{kind}_null"], entry[f"{kind}_at_delta"]
            n = capped["seeds"]
            out.append(
                f"    {kind:>8}: at max_games {figures['settings']['max_games']}: "
                f"{capped['accepted'] / n:.0%} promoted, {capped['undecided'] / n:.0%} "
                f"undecided; no cap: {lifted['games_mean']:.0f} games (median "
                f"{lifted['games_median']:.0f}), {lifted['accepted'] / n:.0%} promoted; "
                f"not better: {null['accepted'] / n:.1%} promoted; better by delta: "
                f"{at['rejected'] / n:.1%} retired"
            )
    return out


LADDER = {
    "ladder": {"name": "bench", "game": "trix", "seed": "bench"},
    "rules": {"kingdoms": 1},
    "limits": {"sandbox": "off"},
}


def build_ladder(folder: Path, versions: int, games: int) -> tuple[Path, float]:
    """A ladder database of `versions` house versions and about `games` stored games,
    built by the fast path above; its path and the seconds it took."""
    started = time.monotonic()
    data = {
        **LADDER,
        "house": [{"name": f"v{i:03d}", "bot": "builtin:random"} for i in range(versions)],
    }
    config = parse_ladder(folder / "bench.toml", data)
    db_path = folder / "arena.db"
    ladder, _ = init_ladder(config, db_path)
    db = open_db(db_path)
    try:
        names = [f"v{i:03d}@1" for i in range(versions)]
        league = config.league([Entrant(n, "builtin:random") for n in names[:4]], "")
        league = dataclasses.replace(league, deal_key=stored_deal_key(db, ladder.league_id))
        pool = [
            play_scheduled_match(
                league,
                ScheduledMatch(i, tuple(names[:4]), f"bench/{i}"),
                str(folder / "logs"),
                lifecycle=Lifecycle.MATCH,
                live_file=False,
            )
            for i in range(POOL)
        ]
        rng = random.Random(26)
        per_match = len(pool[0].games)
        for idx in range(max(1, games // per_match)):
            seats = rng.sample(names, 4)
            store_match(db, ladder.league_id, _renamed(pool[idx % POOL], idx, seats))
    finally:
        db.close()
    return db_path, time.monotonic() - started


def _renamed(match: PlayedMatch, idx: int, seats: list[str]) -> PlayedMatch:
    """`match` stored again as match `idx`, with `seats` in the places of its entrants."""
    names = dict(zip(match.entrants, seats, strict=True))
    games = tuple(
        PlayedGame(
            g.rotation,
            tuple(names[p] for p in g.players),
            {**g.replay, "players": [names[p] for p in g.replay["players"]]},
            g.decisions,
        )
        for g in match.games
    )
    return dataclasses.replace(match, index=idx, entrants=tuple(seats), games=games)


def bench_ladder(
    versions: int = 100,
    games: int = 100_000,
    choices: int = 1000,
    promotion: bool = True,
    seeds: int = 40,
) -> LadderBench:
    """Build the ladder, open it, time the choices; then the promotion figures."""
    bench = LadderBench(versions, games)
    with tempfile.TemporaryDirectory(prefix="arena-bench-ladder-") as tmp:
        db_path, bench.build_seconds = build_ladder(Path(tmp), versions, games)
        bench.db_mb = db_path.stat().st_size / 1e6
        db = open_db(db_path)
        try:
            ladder = open_ladder(db, "bench")
            template = TaskTemplate(Path(tmp) / "logs", db_path, Lifecycle.LEAGUE)
            started = time.perf_counter()
            source = LadderSource.open(ladder, db, template)
            bench.open_seconds = time.perf_counter() - started
            for _ in range(choices):
                started = time.perf_counter()
                match = source.next_match()
                bench.choice_ms.append((time.perf_counter() - started) * 1000)
                if match is None:
                    break
                source.give_back(match)
                source.queue.clear()  # the same ladder for every choice
        finally:
            db.close()
    bench.pure = bench_choice(versions=versions, games=games, choices=choices)
    if promotion:
        from arena.ladder.promotion import bench_promotion

        bench.promotion = bench_promotion(seeds=seeds)
    return bench
