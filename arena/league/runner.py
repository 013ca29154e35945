"""`arena run`: play a league's schedule in worker processes and store every match.

The main process schedules, stores and rates; each worker process plays one whole
match at a time (starting the match's bots, playing every rotation, ending the bots)
and sends back the replays. A match is stored in one transaction when it comes back,
so a run stopped at any moment (Ctrl-C, kill -9) loses at most the matches in flight,
and running the league again continues with the first match not stored.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shlex
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.process import run_log_folder
from arena.bots.sandbox import sandbox_notice as bot_sandbox_notice
from arena.bots.spec import slug
from arena.errors import ArenaError, ConfigError, StorageError
from arena.games import get_game
from arena.league.bot_archives import pack_bots
from arena.league.config import LeagueConfig, load_league
from arena.league.executors import MatchExecutor, open_executor
from arena.league.lock import league_lock
from arena.league.match_task import BotCannotStart, MatchTask
from arena.league.preflight import broken_notice, check_entrants, parallel_starts, refuse_broken
from arena.league.ratings import MatchOutcome, Rater, rate_prefix
from arena.league.records import PlayedMatch
from arena.league.result_check import ForgedResult, check_played_match
from arena.league.schedule import ScheduledMatch, Step, build_schedule
from arena.league.separation import StopRule, stop_check
from arena.league.store import (
    append_ratings,
    clear_in_flight,
    ensure_league,
    history_of,
    league_record,
    load_outcomes,
    mark_in_flight,
    open_db,
    replace_ratings,
    store_match,
    stored_deal_key,
    stored_match_indexes,
)
from arena.play.faults import FaultKind


def league_schedule(config: LeagueConfig, history: Sequence[Step] = ()) -> list[ScheduledMatch]:
    """The league's schedule; `history`, the sizes a stored league had before it grew
    (`arena.league.store.history_of`), makes the stored matches a prefix of it."""
    game = get_game(config.game)
    try:
        return build_schedule(
            [e.name for e in config.entrants],
            game.seats,
            config.schedule,
            config.seed,
            rounds=config.rounds,
            matches=config.matches,
            candidates=config.candidates,
            history=history,
        )
    except ValueError as err:  # load_league checks what it can; this names the file anyway
        raise ConfigError(f"{config.path}: [league] {err}") from None


def default_db_path(config: LeagueConfig) -> Path:
    return config.base_dir / "arena.db"


# -- the main side ----------------------------------------------------------------------


@dataclass
class RunSummary:
    league: str
    db_path: Path
    scheduled: int
    already_stored: int
    played: int
    stopped_early: str = ""
    interrupted: bool = False
    checked: int = 0  # entrants the pre-flight check started
    broken: list[str] = field(default_factory=list)  # of which could not (--allow-broken)
    faults: dict[str, int] = field(default_factory=dict)  # kind -> count, matches played now
    start_failed: list[str] = field(default_factory=list)  # entrants charged start-failures now

    def describe(self) -> str:
        """The line `arena run` prints before the table."""
        return (
            f"league {self.league!r}: {self.played} matches played now, "
            f"{self.already_stored} were stored before, {self.scheduled} scheduled"
            + (f"; stopped early: {self.stopped_early}" if self.stopped_early else "")
            + f" (database {self.db_path})"
        )

    @property
    def start_failures(self) -> int:
        """`start-failure` faults in the matches played now."""
        return self.faults.get(FaultKind.START_FAILURE, 0)

    def add_faults(self, played: PlayedMatch) -> None:
        """Count the faults of a match just played, by kind, and who failed to start."""
        for game in played.games:
            for fault in game.replay["faults"]:
                kind = fault["kind"]
                self.faults[kind] = self.faults.get(kind, 0) + 1
                entrant = game.players[fault["seat"]]
                if kind == FaultKind.START_FAILURE and entrant not in self.start_failed:
                    self.start_failed.append(entrant)

    def fault_problem(self, any_fault: bool = False) -> str:
        """Why `arena run` ends with a non-zero exit code though every match was played
        and stored: start-failures in the matches played now (always), or any fault
        there (`any_fault`, from --fail-on-fault); "" when there is none."""
        total = sum(self.faults.values())
        where = (
            f"in the {self.played} matches played now (`arena faults --db "
            f"{shlex.quote(str(self.db_path))} --league {shlex.quote(self.league)}` shows each"
        )
        if self.start_failures:
            return (
                f"{_count(self.start_failures, 'start-failure fault')} {where}, with its log): "
                f"{', '.join(self.start_failed)} could not start"
            )
        if any_fault and total:
            kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(self.faults.items()))
            return f"{_count(total, 'fault')} ({kinds}) {where})"
        return ""


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


Progress = Callable[[dict[str, Any]], None]


def sandbox_notice(config: LeagueConfig) -> str | None:
    """One plain sentence when this league's bots will not be fully sandboxed
    (SandboxError when the sandbox is wanted but this machine cannot give it)."""
    if all(e.bot.startswith(("builtin:", "grpc:")) for e in config.entrants):
        return None
    notice = bot_sandbox_notice(
        config.limits.sandbox == "on", f'put sandbox = "off" under [limits] in {config.path}'
    )
    return f"{config.path}: {notice}" if notice else None


def run_league(
    config_path: str | Path,
    db_path: str | Path | None = None,
    workers: int | None = None,
    until_separated: bool = False,
    progress: Progress | None = None,
    notice: Callable[[str], None] | None = None,
    allow_broken: bool = False,
    lifecycle: str = "league",
    cluster: str | None = None,
) -> RunSummary:
    """Run (or resume) a league; returns what was done. Ctrl-C stops cleanly. The
    matches are played by `workers` processes here or, when `cluster` (or the league
    file's `[cluster] address`) names a Dask scheduler, by that cluster's workers
    (docs/cluster.md). `notice`
    is told, once, when started bots will not be fully sandboxed, and the pre-flight
    check's progress, a line at a time.

    Before the first match, every started entrant of the matches left to play is
    launched once, greeted and ended (arena/league/preflight.py): when one cannot
    start, ConfigError lists them all and nothing is played, unless `allow_broken`
    (then their seats play fallback moves, recorded as start-failure faults)."""
    config = load_league(config_path)
    said = sandbox_notice(config)  # refuses here, before anything runs, if it cannot be had
    if said and notice:
        notice(said)
    db_path = Path(db_path) if db_path else default_db_path(config)
    with league_lock(db_path, config.name):
        return _run(
            config, db_path, workers, until_separated, progress, notice, allow_broken,
            lifecycle, cluster or config.cluster,
        )  # fmt: skip


def _run(
    config: LeagueConfig,
    db_path: Path,
    workers: int | None,
    until_separated: bool,
    progress: Progress | None,
    notice: Callable[[str], None] | None,
    allow_broken: bool,
    lifecycle: str = "league",
    cluster: str = "",
) -> RunSummary:
    """`run_league` once the league's lock is held. `lifecycle` says how workers keep
    their bots (arena/league/worker.py `LIFECYCLES`; "match" only for benchmarks)."""
    db = open_db(db_path)
    try:
        league_id = ensure_league(db, config)
        config = dataclasses.replace(config, deal_key=stored_deal_key(db, league_id))
        schedule = league_schedule(config, history_of(league_record(db, league_id)[1]))
        stored = stored_match_indexes(db, league_id)
        entrants = [e.name for e in config.entrants]
        rater = Rater(config.ratings, entrants, config.rate_by, config.forfeit_faults)
        outcomes = load_outcomes(db, league_id)
        next_idx, rows = rate_prefix(outcomes, rater)
        replace_ratings(db, league_id, rows)
        clear_in_flight(db, league_id)  # a killed run's matches are not in flight now
    except StorageError as err:
        db.close()
        raise StorageError(_kept(err, db_path, None)) from None
    pending = [m for m in schedule if m.index not in stored]
    summary = RunSummary(config.name, db_path, len(schedule), len(stored), 0)
    rule = StopRule()
    if until_separated and next_idx and _settled(outcomes, next_idx, rater, rule):
        summary.stopped_early = "the ranking was already separated"
        return summary
    league_logs = f"{slug(db_path.stem, 'db')}-{slug(config.name, 'league', limit=200)}"
    log_dir = db_path.parent / "logs" / league_logs
    if pending:  # a folder per run that plays: no run writes over another's logs
        log_dir = run_log_folder(log_dir)
    workers = max(1, workers or os.cpu_count() or 1)
    try:
        executor = open_executor(cluster, workers)  # a cluster that is not there: say so now
        if pending:
            try:
                _preflight(
                    config, pending, log_dir, db_path, workers, allow_broken, notice, summary
                )
            except BaseException:  # a refusal or Ctrl-C: nothing was played
                executor.close()
                raise
    except BaseException:
        db.close()
        raise
    run = _LeagueRun(
        config, db, league_id, db_path, log_dir, lifecycle, summary, stored, len(schedule),
        outcomes, next_idx, rater,
    )  # fmt: skip
    try:
        _play(run, pending, executor, until_separated, progress, notice)
    finally:
        with contextlib.suppress(StorageError):  # a full disk must not hide the first error
            clear_in_flight(db, league_id)
        db.close()
    return summary


@dataclass
class _Placement:
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


@dataclass
class _LeagueRun:
    """What the run loop starts from: the league, its database, what is stored, the
    summary it fills in, and the ratings of the stored prefix."""

    config: LeagueConfig
    db: Any  # the league's open database (sqlite_utils.Database)
    league_id: int
    db_path: Path
    log_dir: Path
    lifecycle: str
    summary: RunSummary
    stored: set[int]  # match indexes stored before this run
    scheduled: int
    outcomes: dict[int, MatchOutcome]
    next_idx: int  # matches 0..next_idx-1 are rated
    rater: Rater


def _play(
    run: _LeagueRun,
    pending: list[ScheduledMatch],
    executor: MatchExecutor,
    until_separated: bool,
    progress: Progress | None,
    notice: Callable[[str], None] | None,
) -> None:
    """The run loop: give matches to `executor`'s workers, check each that comes back
    (arena/league/result_check.py), store it once, and rate the stored prefix."""
    config, db, league_id, summary = run.config, run.db, run.league_id, run.summary
    stored, outcomes, rater = run.stored, run.outcomes, run.rater
    log_dir, db_path, lifecycle = run.log_dir, run.db_path, run.lifecycle
    started = time.monotonic()
    next_idx = run.next_idx
    shipped, archives = pack_bots(config) if executor.ships_bots else ({}, {})
    shared = executor.share(archives)
    must_start = frozenset(
        e.name for e in config.entrants if e.name not in summary.broken
    ) if executor.ships_bots else frozenset()  # fmt: skip
    place = _Placement()
    games_done = 0
    by_worker: dict[str, int] = {}
    in_flight: dict[Future, ScheduledMatch] = {}
    queue = list(pending)
    rule = StopRule()
    say = notice or (lambda _text: None)
    waiting: list[str] = []  # what was said while no match came back, said once
    try:
        while queue or in_flight:
            slots = executor.slots()  # a cluster's workers may come and go between rounds
            while queue and len(in_flight) < slots and not summary.stopped_early:
                match = queue.pop(0)
                task = MatchTask(
                    config, match, str(log_dir), str(db_path), lifecycle,
                    shipped=shipped, must_start=must_start, elsewhere=executor.ships_bots,
                )  # fmt: skip
                future = executor.submit(task, shared, place.avoid(match))
                if future is None:
                    place.unplaced.setdefault(_unplaced(match, place), []).append(match.index)
                    continue
                in_flight[future] = match
                mark_in_flight(db, league_id, match.index, match.entrants, os.getpid())
            if not in_flight:
                break
            done, _ = wait(in_flight, timeout=WAIT_SECONDS, return_when=FIRST_COMPLETED)
            if not done:
                _look_after(executor, in_flight, queue, say, waiting)
            for future in done:
                match = in_flight.pop(future)
                played = _returned(future, match, config, summary, stored, executor)
                if isinstance(played, BotCannotStart):
                    place.cannot_start.setdefault(played.entrant, set()).add(played.worker)
                    say(f"{played}; match {match.index} goes to another worker, and that "
                        f"worker gets no more matches of {played.entrant!r}")  # fmt: skip
                    queue.insert(0, match)
                    continue
                try:
                    check_played_match(config, match, played)
                except ForgedResult as err:
                    place.refused.add(played.worker)
                    say(
                        f"match {match.index} from worker {played.worker} was refused: {err}; "
                        "it is played again elsewhere, and that worker gets no more matches"
                    )
                    queue.insert(0, match)
                    continue
                if not store_match(db, league_id, played):
                    continue  # stored already: the store is the judge of what is stored once
                by_worker[played.worker] = by_worker.get(played.worker, 0) + 1
                if played.overload_replays:
                    times = "once" if played.overload_replays == 1 else (
                        f"{played.overload_replays} times"
                    )
                    say(
                        f"match {played.index} was played again {times}: a bot timed out "
                        "while the machine was overloaded, which is not charged to it "
                        "(run fewer workers, or clock = \"cpu\", docs/sandbox.md)"
                    )
                summary.played += 1
                summary.add_faults(played)
                games_done += len(played.games)
                outcomes[played.index] = played.outcome()
                next_idx, rows = rate_prefix(outcomes, rater, next_idx)
                if rows:
                    append_ratings(db, league_id, rows)
                if until_separated and rows and _settled(outcomes, next_idx, rater, rule):
                    summary.stopped_early = (
                        "TrueSkill's order is the margins' order and every two neighbours' "
                        f"head-to-head margin is above zero at {rule.level:.0%}"
                    )
                    queue.clear()
                if progress:
                    progress(
                        {
                            "done": len(stored) + summary.played,
                            "played": summary.played,
                            "total": run.scheduled,
                            "games": games_done,
                            "elapsed": time.monotonic() - started,
                            "leader": _leader(rater),
                            "remaining": len(queue) + len(in_flight),
                            "workers": dict(by_worker),
                        }
                    )
    except (KeyboardInterrupt, WorkerDied):
        summary.interrupted = True
        executor.stop()
        raise
    except StorageError as err:  # the matches in flight cannot be stored either: stop
        summary.interrupted = True
        executor.stop()
        raise StorageError(_kept(err, db_path, len(stored) + summary.played)) from None
    finally:
        executor.close()
    if place.unplaced:
        why = "; ".join(
            f"{len(indexes)} match{'' if len(indexes) == 1 else 'es'} "
            f"({', '.join(map(str, sorted(indexes)))}): {reason}"
            for reason, indexes in place.unplaced.items()
        )
        raise NoWorkerLeft(
            f"no worker of {executor.where} may play {why}; the "
            f"{len(stored) + summary.played} matches stored are kept: make the workers able "
            "to, and run the league again to play the rest (docs/cluster.md)"
        )


WAIT_SECONDS = 5.0  # how often a run with no match back looks after its cluster


def _look_after(
    executor: MatchExecutor,
    in_flight: dict[Future, ScheduledMatch],
    queue: list[ScheduledMatch],
    say: Callable[[str], None],
    waiting: list[str],
) -> None:
    """While no match comes back: a match kept for workers that have all left since is
    given out again, and a cluster with no worker at all is said, once, to be waiting."""
    for future in executor.stranded(list(in_flight)):
        future.cancel()
        match = in_flight.pop(future)
        queue.insert(0, match)
        say(f"match {match.index}: every worker it could go to has left; it is given out again")
    if not executor.workers() and "no worker" not in waiting:
        waiting.append("no worker")
        say(f"{executor.where} has no worker now: the run waits for one (`dask worker ADDRESS`)")


def _returned(
    future: Future,
    match: ScheduledMatch,
    config: LeagueConfig,
    summary: RunSummary,
    stored: set[int],
    executor: MatchExecutor,
) -> PlayedMatch | BotCannotStart:
    """What a worker sent back for `match`, or the bot it could not start; WorkerDied
    when the worker (or, on a cluster, every worker Dask tried) died playing it."""
    try:
        return future.result()
    except BotCannotStart as err:
        return err
    except Exception as err:  # noqa: BLE001 (each executor knows its own)
        lost = executor.lost_worker(err)
        if lost is None:
            raise
        what, hint = lost
        raise WorkerDied(
            f"{what} match {match.index} ({err}); of league {config.name!r}, the "
            f"{len(stored) + summary.played} matches stored so far are kept: run the league "
            f"again to resume it ({hint})"
        ) from None


def _unplaced(match: ScheduledMatch, place: _Placement) -> str:
    """Why no worker may be given `match`."""
    why = [
        f"{', '.join(sorted(workers))} cannot start {name!r}"
        for name, workers in sorted(place.cannot_start.items())
        if name in match.entrants
    ]
    if place.refused:
        why.append(f"the results of {', '.join(sorted(place.refused))} were refused")
    return "; ".join(why)


class NoWorkerLeft(ArenaError):
    """Matches that no worker could be given: each had failed them all."""


class WorkerDied(ArenaError):
    """A worker process ended without sending its match back (killed, or out of memory)."""


def _kept(err: StorageError, db_path: Path, stored: int | None) -> str:
    """What a storage failure means for the run: what was kept, and how to go on."""
    kept = "every match stored before is kept" if stored is None else (
        f"the {stored} matches stored so far are kept"
    )
    return (
        f"{err} ({db_path}); the run stopped and {kept}: free some space, or make the "
        "database writable, and run the league again to resume it"
    )


def _preflight(
    config: LeagueConfig,
    pending: list[ScheduledMatch],
    log_dir: Path,
    db_path: Path,
    workers: int,
    allow_broken: bool,
    notice: Callable[[str], None] | None,
    summary: RunSummary,
) -> None:
    """The pre-flight check of the entrants of the matches left to play: raises
    ConfigError naming every one that cannot start, unless `allow_broken`."""
    names = {name for match in pending for name in match.entrants}
    parallel = parallel_starts(workers, get_game(config.game).seats)
    checks = check_entrants(config, sorted(names), log_dir, db_path, parallel, notice)
    summary.checked = len(checks)
    summary.broken = [c.name for c in checks if not c.ok]
    if not allow_broken:
        refuse_broken(config, checks)
    said = broken_notice(checks)
    if said and notice:
        notice(said)


def _settled(outcomes: dict[int, MatchOutcome], rated: int, rater: Rater, rule: StopRule) -> bool:
    """Whether the rated prefix (matches 0..rated-1) meets the stopping rule."""
    return stop_check([outcomes[i] for i in range(rated)], rater, rule) is not None


def _leader(rater: Rater) -> tuple[str, float]:
    name, rating = max(rater.ratings.items(), key=lambda kv: kv[1].mu - 3 * kv[1].sigma)
    return name, rating.mu - 3 * rating.sigma
