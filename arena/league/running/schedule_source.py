"""A league's schedule as the run loop's match source: its matches not yet stored, in
order; each played match stored once, rated in schedule order, checked against the
stopping rule, and reported as progress.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.league.definition.config import LeagueConfig
from arena.league.definition.records import MatchOutcome, PlayedMatch
from arena.league.definition.schedule import ScheduledMatch
from arena.league.running.dispatch import LoopCounts
from arena.league.running.summary import RunSummary
from arena.league.standings.ratings import Rater, rate_prefix
from arena.league.standings.separation import StopRule, stop_check
from arena.league.store import append_ratings, mark_in_flight, store_match
from arena.league.workers.bot_archives import ShippedBot
from arena.league.workers.match_task import MatchTask
from arena.league.workers.worker import Lifecycle


@dataclass(frozen=True)
class RunProgress:
    """One progress report of a league run, sent after each match is stored."""

    done: int  # matches stored, before this run and now
    played: int  # matches stored by this run
    total: int  # matches scheduled
    games: int  # games stored by this run
    elapsed: float  # seconds since the run loop started
    leader: tuple[str, float]  # the entrant with the highest rating, and that rating
    remaining: int  # matches not stored yet: waiting, and in flight
    workers: Mapping[str, int]  # worker -> matches it played in this run


Progress = Callable[[RunProgress], None]


@dataclass(frozen=True)
class TaskTemplate:
    """What every task of a run shares: where logs go, the database bots must not see,
    how workers keep their bots, and the bots shipped to a cluster."""

    log_dir: Path
    db_path: Path
    lifecycle: Lifecycle
    shipped: Mapping[str, ShippedBot] = field(default_factory=dict)
    must_start: frozenset[str] = frozenset()
    elsewhere: bool = False


@dataclass
class ScheduleSource:
    """The matches of a league's schedule that are not stored yet (`pending`), given
    out in order; `summary` (the run's `RunSummary`) counts what is stored now."""

    config: LeagueConfig
    db: Any  # the league's open database (sqlite_utils.Database)
    league_id: int
    pending: list[ScheduledMatch]
    template: TaskTemplate
    summary: RunSummary  # scheduled, stored before and now, faults, why it stopped early
    outcomes: dict[int, MatchOutcome]
    next_idx: int  # matches 0..next_idx-1 are rated
    rater: Rater
    until_separated: bool = False
    progress: Progress | None = None
    rule: StopRule = field(default_factory=StopRule)

    def next_match(self) -> ScheduledMatch | None:
        if self.summary.stopped_early or not self.pending:
            return None
        return self.pending.pop(0)

    def give_back(self, match: ScheduledMatch) -> None:
        self.pending.insert(0, match)

    def task(self, match: ScheduledMatch) -> MatchTask:
        t = self.template
        return MatchTask(
            self.config,
            match,
            str(t.log_dir),
            str(t.db_path),
            t.lifecycle,
            shipped=t.shipped,
            must_start=t.must_start,
            elsewhere=t.elsewhere,
        )

    def started(self, match: ScheduledMatch) -> None:
        mark_in_flight(self.db, self.league_id, match.index, match.entrants, run_pid=os.getpid())

    def store(self, played: PlayedMatch) -> bool:
        return store_match(self.db, self.league_id, played)

    def stored(self, played: PlayedMatch, loop: LoopCounts) -> None:
        self.summary.played += 1
        self.summary.add_faults(played)
        rows = self._rate(played)
        if self.until_separated and rows and self.settled():
            self.summary.stopped_early = (
                "TrueSkill's order is the margins' order and every two neighbours' "
                f"head-to-head margin is above zero at {self.rule.level:.0%}"
            )
            self.pending.clear()
        if self.progress:
            self.progress(self._report(loop))

    def stored_count(self) -> int:
        return self.summary.already_stored + self.summary.played

    def settled(self) -> bool:
        """Whether the rated prefix (matches 0..next_idx-1) meets the stopping rule."""
        rated = [self.outcomes[i] for i in range(self.next_idx)]
        return stop_check(rated, self.rater, self.rule) is not None

    def _rate(self, played: PlayedMatch) -> list[dict[str, Any]]:
        """Rate the stored prefix in schedule order (so ratings do not depend on which
        worker finished first) and store the new rows; the rows."""
        self.outcomes[played.index] = played.outcome()
        self.next_idx, rows = rate_prefix(self.outcomes, self.rater, self.next_idx)
        if rows:
            append_ratings(self.db, self.league_id, rows)
        return rows

    def _report(self, loop: LoopCounts) -> RunProgress:
        return RunProgress(
            done=self.stored_count(),
            played=self.summary.played,
            total=self.summary.scheduled,
            games=loop.games,
            elapsed=loop.elapsed,
            leader=leader(self.rater),
            remaining=len(self.pending) + loop.in_flight,
            workers=dict(loop.by_worker),
        )


def leader(rater: Rater) -> tuple[str, float]:
    """The entrant with the highest rating (mu - 3 sigma), and that rating."""
    name, rating = max(rater.ratings.items(), key=lambda kv: kv[1].mu - 3 * kv[1].sigma)
    return name, rating.mu - 3 * rating.sigma
