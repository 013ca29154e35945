"""The run loop: give matches to an executor's workers, take back what they played,
check it, and hand it to whoever keeps it, until no match is left.

Where the matches come from and where a played match goes is a `MatchSource`: a
league's schedule (`arena/league/running/schedule_source.py`) today, a ladder's
matchmaking next. The loop itself knows workers, not competitions: each of its jobs is
a named function below (give out, wait, receive, check, keep, look after a cluster),
and it is the same for worker processes here and a Dask cluster.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena import interrupts
from arena.errors import ArenaError, StorageError
from arena.league.definition.records import PlayedMatch
from arena.league.definition.schedule import ScheduledMatch
from arena.league.running.result_check import ForgedResult, check_played_match
from arena.league.workers.executors import MatchExecutor
from arena.league.workers.match_task import BotCannotStart, MatchTask

WAIT_SECONDS = 5.0  # how often a run with no match back looks after its cluster

Say = Callable[[str], None]


class MatchSource(Protocol):
    """Where the run loop's matches come from, and where each played one goes."""

    def next_match(self) -> ScheduledMatch | None:
        """The next match to give out now, or None when there is none (for now)."""

    def give_back(self, match: ScheduledMatch) -> None:
        """`match` was not played where it went: it is the next to be given out again."""

    def task(self, match: ScheduledMatch) -> MatchTask:
        """The self-contained task that plays `match` on any worker."""

    def started(self, match: ScheduledMatch) -> None:
        """`match` was given to a worker (a source records it as in flight)."""

    def store(self, played: PlayedMatch) -> bool:
        """Store `played` once; False when it was stored already (the store judges)."""

    def stored(self, played: PlayedMatch, loop: LoopCounts) -> None:
        """`played` was stored now: rate it, apply a stopping rule, report progress."""

    def stored_count(self) -> int:
        """How many matches are stored (for the messages that say what is kept)."""


@dataclass
class LoopCounts:
    """What the loop has done so far, for a source's progress report."""

    started: float = field(default_factory=time.monotonic)  # time.monotonic() at the start
    games: int = 0  # games of the matches kept now
    by_worker: dict[str, int] = field(default_factory=dict)  # worker -> matches kept now
    in_flight: int = 0

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started


@dataclass
class Placement:
    """Which workers a match may not be given: those that could not start one of its
    bots, and those whose results were refused."""

    cannot_start: dict[str, set[str]] = field(default_factory=dict)  # entrant -> workers
    refused: set[str] = field(default_factory=set)  # workers whose results were refused
    unplaced: dict[str, list[int]] = field(default_factory=dict)  # why -> matches not given out

    def avoid(self, match: ScheduledMatch) -> set[str]:
        out = set(self.refused)
        for name in match.entrants:
            out |= self.cannot_start.get(name, set())
        return out

    def why_unplaced(self, match: ScheduledMatch) -> str:
        """Why no worker may be given `match`."""
        why = [
            f"{', '.join(sorted(workers))} cannot start {name!r}"
            for name, workers in sorted(self.cannot_start.items())
            if name in match.entrants
        ]
        if self.refused:
            why.append(f"the results of {', '.join(sorted(self.refused))} were refused")
        return "; ".join(why)


class NoWorkerLeft(ArenaError):
    """Matches that no worker could be given: each had failed them all."""


class WorkerDied(ArenaError):
    """A worker process ended without sending its match back (killed, or out of memory).
    `index` is the match it was playing."""

    index: int = -1


@dataclass
class _Loop:
    """One run of the loop: its source, executor, and what is in flight."""

    source: MatchSource
    executor: MatchExecutor
    shared: Mapping[str, Any]  # what the executor shared once (the bots' archives)
    say: Say
    lost: Callable[[str], str]  # what a lost worker's message ends with, given its hint
    place: Placement = field(default_factory=Placement)
    counts: LoopCounts = field(default_factory=LoopCounts)
    in_flight: dict[Future, MatchTask] = field(default_factory=dict)
    said_no_worker: bool = False  # said once, while no match came back


def run_matches(
    source: MatchSource,
    executor: MatchExecutor,
    *,
    shared: Mapping[str, Any],
    say: Say,
    lost: Callable[[str], str],
) -> LoopCounts:
    """Play every match `source` gives out on `executor`, each checked with the engine
    and kept by `source` once, until it gives out no more and none is in flight.

    Raises WorkerDied when a worker ended without its match (`lost(hint)` ends that
    message, saying what is kept), NoWorkerLeft when some matches could go to no
    worker, and lets KeyboardInterrupt and StorageError through after stopping the
    executor. The executor is closed on the way out, whatever happens."""
    loop = _Loop(source, executor, shared, say, lost)
    try:
        while True:
            interrupts.check()  # a Ctrl-C Python dropped on the way ends the run here
            _give_out(loop)
            if not loop.in_flight:
                break
            for future in _wait_for_one(loop):
                _receive(loop, future)
    except (KeyboardInterrupt, WorkerDied, StorageError):
        executor.stop()
        raise
    finally:
        executor.close()
    if loop.place.unplaced:
        raise NoWorkerLeft(_no_worker_left(loop))
    return loop.counts


def _give_out(loop: _Loop) -> None:
    """Give matches to free worker slots, as many as the executor has now (a cluster's
    workers may come and go between rounds)."""
    slots = loop.executor.slots()
    while len(loop.in_flight) < slots:
        match = loop.source.next_match()
        if match is None:
            return
        task = loop.source.task(match)
        future = loop.executor.submit(task, loop.shared, loop.place.avoid(match))
        if future is None:  # every worker it could go to is ruled out for it
            loop.place.unplaced.setdefault(loop.place.why_unplaced(match), []).append(match.index)
            continue
        loop.in_flight[future] = task
        loop.source.started(match)


def _wait_for_one(loop: _Loop) -> set[Future]:
    """The futures done when at least one is, looking after the cluster every
    WAIT_SECONDS while none is."""
    done, _ = wait(loop.in_flight, timeout=WAIT_SECONDS, return_when=FIRST_COMPLETED)
    if not done:
        _look_after(loop)
    return done


def _look_after(loop: _Loop) -> None:
    """While no match comes back: a match kept for workers that have all left since is
    given out again, and a cluster with no worker at all is said, once, to be waiting."""
    for future in loop.executor.stranded(list(loop.in_flight)):
        future.cancel()
        match = loop.in_flight.pop(future).match
        loop.source.give_back(match)
        loop.say(
            f"match {match.index}: every worker it could go to has left; it is given out again"
        )
    if not loop.executor.workers() and not loop.said_no_worker:
        loop.said_no_worker = True
        where = loop.executor.where
        loop.say(f"{where} has no worker now: the run waits for one (`dask worker ADDRESS`)")


def _receive(loop: _Loop, future: Future) -> None:
    """Take one finished match back: played again elsewhere when its worker could not
    start a bot or sent a result the engine refuses, else kept by the source."""
    task = loop.in_flight.pop(future)
    match = task.match
    played = _returned(loop, future, match)
    if isinstance(played, BotCannotStart):
        loop.place.cannot_start.setdefault(played.entrant, set()).add(played.worker)
        loop.say(
            f"{played}; match {match.index} goes to another worker, and that "
            f"worker gets no more matches of {played.entrant!r}"
        )
        loop.source.give_back(match)
        return
    if not _checked(loop, task, played):
        return
    if not loop.source.store(played):
        return  # stored already: the store is the judge of what is stored once
    counts = loop.counts
    counts.by_worker[played.worker] = counts.by_worker.get(played.worker, 0) + 1
    counts.games += len(played.games)
    counts.in_flight = len(loop.in_flight)
    if played.overload_replays:
        times = "once" if played.overload_replays == 1 else f"{played.overload_replays} times"
        loop.say(
            f"match {played.index} was played again {times}: a bot timed out "
            "while the machine was overloaded, which is not charged to it "
            '(run fewer workers, or clock = "cpu", docs/sandbox.md)'
        )
    loop.source.stored(played, counts)


def _returned(loop: _Loop, future: Future, match: ScheduledMatch) -> PlayedMatch | BotCannotStart:
    """What a worker sent back for `match`, or the bot it could not start; WorkerDied
    when the worker (or, on a cluster, every worker Dask tried) died playing it."""
    try:
        return future.result()
    except BotCannotStart as err:
        return err
    except Exception as err:  # noqa: BLE001 (each executor knows its own)
        lost = loop.executor.lost_worker(err)
        if lost is None:
            raise
        what, hint = lost
        died = WorkerDied(f"{what} match {match.index} ({err}); {loop.lost(hint)}")
        died.index = match.index
        raise died from None


def _checked(loop: _Loop, task: MatchTask, played: PlayedMatch) -> bool:
    """Whether `played` is what the engine plays from its task's seed
    (arena/league/running/result_check.py); a refused result is played again
    elsewhere, and its worker gets no more matches."""
    match = task.match
    try:
        check_played_match(task.config, match, played)
    except ForgedResult as err:
        loop.place.refused.add(played.worker)
        loop.say(
            f"match {match.index} from worker {played.worker} was refused: {err}; "
            "it is played again elsewhere, and that worker gets no more matches"
        )
        loop.source.give_back(match)
        return False
    return True


def _no_worker_left(loop: _Loop) -> str:
    """What NoWorkerLeft says: which matches no worker may play, and why."""
    why = "; ".join(
        f"{len(indexes)} match{'' if len(indexes) == 1 else 'es'} "
        f"({', '.join(map(str, sorted(indexes)))}): {reason}"
        for reason, indexes in loop.place.unplaced.items()
    )
    return (
        f"no worker of {loop.executor.where} may play {why}; the "
        f"{loop.source.stored_count()} matches stored are kept: make the workers able "
        "to, and run the league again to play the rest (docs/cluster.md)"
    )

