"""`arena bench store`: what a game costs in the league database, before the compact
store (migration 13) and after, measured in one run.

A league of full 4-kingdom Trix games between built-in bots (five entrants, named as a
real league names them) is played into a fresh database by `arena run`'s own path:
that is the store as it is now ("after"). A copy turned back into what migration 12
left (every replay as its JSON text, a deal-score row per deal and seat:
`arena.league.store.compaction.as_before`) is the baseline ("before"). Both are
vacuumed and each table's and index's pages summed (SQLite's dbstat), divided by the
games stored. Then a copy of the baseline is migrated as `arena upgrade` migrates it,
timed (games converted a second), and every replay's JSON text compared with the
baseline's. Nothing is asserted; the figures are printed.
"""

from __future__ import annotations

import resource
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.league.store import open_db, upgrade
from arena.league.store.compaction import (
    as_before,
    bytes_by_object,
    replay_texts,
    stored_games,
    vacuum,
)

BOTS = ("builtin:random", "builtin:first", "builtin:greedy", "builtin:mixed:0.5", "builtin:random")
LEAGUE = (
    '[league]\nname = "bench-store"\ngame = "trix"\nseed = 30\nschedule = "balanced"\n'
    'matches = {matches}\nrotations = "cyclic"\n\n[rules]\nkingdoms = 4\ndoubling = true\n'
)


@dataclass
class StoreBench:
    games: int
    play_s: float
    before: dict[str, int]  # bytes by table or index
    after: dict[str, int]
    before_file: int
    after_file: int
    migrate_s: float
    migrate_cpu_s: float  # this process's and its pool's
    lossless: bool

    def lines(self) -> list[str]:
        per = self.games
        out = [
            f"{self.games} full 4-kingdom Trix games between built-in bots "
            f"(played and stored in {self.play_s:.1f} s)",
            f"{'table or index':<40} {'before B/game':>14} {'after B/game':>13} {'ratio':>7}",
        ]
        names = sorted(
            set(self.before) | set(self.after),
            key=lambda n: -max(self.before.get(n, 0), self.after.get(n, 0)),
        )
        for name in names:
            b, a = self.before.get(name, 0) / per, self.after.get(name, 0) / per
            if max(b, a) * per <= 4096:  # one page: a table this league barely uses
                continue
            out.append(f"{name:<40} {b:>14,.0f} {a:>13,.0f} {_ratio(b, a):>7}")
        small_b = sum(v for n, v in self.before.items() if v <= 4096) / per
        small_a = sum(v for n, v in self.after.items() if v <= 4096) / per
        out.append(f"{'(tables of one page each)':<40} {small_b:>14,.0f} {small_a:>13,.0f}")
        b, a = self.before_file / per, self.after_file / per
        out.append(f"{'the whole file (vacuumed)':<40} {b:>14,.0f} {a:>13,.0f} {_ratio(b, a):>7}")
        out.append(
            f"migration 13 of the baseline: {self.games / self.migrate_s:,.0f} games/s "
            f"({self.migrate_s:.1f} s; {self.games / self.migrate_cpu_s:,.0f} games a "
            f"CPU-second, {self.migrate_cpu_s:.1f} CPU-s); every replay's JSON text the "
            f"same: {'yes' if self.lossless else 'NO'}"
        )
        return out


def _ratio(before: float, after: float) -> str:
    return f"{before / after:.1f}x" if after and before else "-"


def bench_store(games: int = 400, folder: Path | None = None) -> StoreBench:
    """Play `games` games (rounded up to whole matches of 4) and measure the store."""
    from arena.league.running.runner import run_league

    with tempfile.TemporaryDirectory(prefix="arena-bench-store-") as tmp:
        work = folder or Path(tmp)
        league = work / "bench-store.toml"
        entrants = "".join(
            f'\n[[entrant]]\nname = "{bot.replace("builtin:", "").replace(":", "-")}-{i}"\n'
            f'bot = "{bot}"\n'
            for i, bot in enumerate(BOTS)
        )
        league.write_text(LEAGUE.format(matches=-(-games // 4)) + entrants)
        after_db, before_db, migrated_db = (work / f"{n}.db" for n in ("after", "before", "up"))
        started = time.perf_counter()
        run_league(league, after_db, workers=1)
        play_s = time.perf_counter() - started
        db = open_db(after_db)
        try:
            after_file, after, stored = vacuum(db)[1], bytes_by_object(db), stored_games(db)
        finally:
            db.close()
        shutil.copy(after_db, before_db)
        db = open_db(before_db, migrated=False)
        try:
            as_before(db)
            before_file = vacuum(db)[1]
            before, baseline = bytes_by_object(db), replay_texts(db)
        finally:
            db.close()
        shutil.copy(before_db, migrated_db)
        started, cpu = time.perf_counter(), _cpu_seconds()
        upgrade(migrated_db)
        migrate_s, migrate_cpu_s = time.perf_counter() - started, _cpu_seconds() - cpu
        db = open_db(migrated_db)
        try:
            lossless = replay_texts(db) == baseline
        finally:
            db.close()
    return StoreBench(
        stored, play_s, before, after, before_file, after_file, migrate_s, migrate_cpu_s, lossless
    )


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended (the
    migration's packing pool, ended with it)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime
