"""`arena run`: play a league's schedule in worker processes and store every match.

The main process schedules, stores and rates; each worker process plays one whole
match at a time (starting the match's bots, playing every rotation, ending the bots)
and sends back the replays. A match is stored in one transaction when it comes back,
so a run stopped at any moment (Ctrl-C, kill -9) loses at most the matches in flight,
and running the league again continues with the first match not stored.

This module opens the league (its lock, database, schedule and stored ratings), runs
the pre-flight check, and hands the run loop (`dispatch.run_matches`) the league's
schedule as its match source (`schedule_source.ScheduleSource`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import sqlite_utils

from arena.bots.confinement.sandbox import SandboxMode, fitted_notes
from arena.bots.confinement.sandbox import sandbox_notice as bot_sandbox_notice
from arena.bots.process import run_log_folder
from arena.bots.remote.settings import move_timeout_warning
from arena.bots.spec import slug
from arena.errors import ConfigError, StorageError
from arena.league.definition.config import LeagueConfig, load_league
from arena.league.definition.schedule import ScheduledMatch, Step, build_schedule
from arena.league.running.dispatch import NoWorkerLeft, WorkerDied, run_matches
from arena.league.running.lock import league_lock
from arena.league.running.preflight import (
    broken_notice,
    check_entrants,
    parallel_starts,
    refuse_broken,
)
from arena.league.running.schedule_source import (
    Progress,
    RunProgress,
    ScheduleSource,
    TaskTemplate,
)
from arena.league.running.summary import RunSummary
from arena.league.standings.ratings import Rater, rate_prefix
from arena.league.store import (
    clear_in_flight,
    ensure_league,
    history_of,
    league_record,
    load_outcomes,
    open_db,
    replace_ratings,
    stored_deal_key,
    stored_match_indexes,
)
from arena.league.workers.bot_archives import pack_bots
from arena.league.workers.executors import MatchExecutor, open_executor
from arena.league.workers.worker import Lifecycle

__all__ = [
    "NoWorkerLeft",
    "Progress",
    "RunProgress",
    "RunSummary",
    "WorkerDied",
    "default_db_path",
    "league_schedule",
    "run_league",
]

Notice = Callable[[str], None]


def league_schedule(config: LeagueConfig, history: Sequence[Step] = ()) -> list[ScheduledMatch]:
    """The league's schedule; `history`, the sizes a stored league had before it grew
    (`arena.league.store.history_of`), makes the stored matches a prefix of it."""
    game = config.engine
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


def sandbox_notice(config: LeagueConfig) -> str | None:
    """One plain sentence when this league's bots will not be fully sandboxed
    (SandboxError when the sandbox is wanted but this machine cannot give it)."""
    if all(e.bot.startswith(("builtin:", "grpc:")) for e in config.entrants):
        return None
    opt_out = f'put sandbox = "off" under [limits] in {config.path}'
    notice = bot_sandbox_notice(config.limits.sandbox == SandboxMode.ON, opt_out)
    return f"{config.path}: {notice}" if notice else None


def run_league(
    config_path: str | Path,
    db_path: str | Path | None = None,
    *,
    workers: int | None = None,
    until_separated: bool = False,
    progress: Progress | None = None,
    notice: Notice | None = None,
    allow_broken: bool = False,
    lifecycle: Lifecycle = Lifecycle.LEAGUE,
    cluster: str | None = None,
) -> RunSummary:
    """Run (or resume) a league; returns what was done. Ctrl-C stops cleanly. The
    matches are played by `workers` processes here or, when `cluster` (or the league
    file's `[cluster] address`) names a Dask scheduler, by that cluster's workers
    (docs/cluster.md). `notice` is told, once, when started bots will not be fully
    sandboxed, and the pre-flight check's progress, a line at a time; `progress` gets a
    `RunProgress` after each stored match. `lifecycle` says how workers keep their bots
    (`Lifecycle.MATCH` only for benchmarks).

    Before the first match, every started entrant of the matches left to play is
    launched once, greeted and ended (arena/league/running/preflight.py): when one
    cannot start, ConfigError lists them all and nothing is played, unless
    `allow_broken` (then their seats play fallback moves, recorded as start-failure
    faults)."""
    config = load_league(config_path)
    said = sandbox_notice(config)  # refuses here, before anything runs, if it cannot be had
    if said and notice:
        notice(said)
    started = any(not e.bot.startswith("builtin:") for e in config.entrants)
    said = started and move_timeout_warning(
        config.limits.move_timeout, f"{config.path}: [limits] move_timeout"
    )
    if said and notice:
        notice(said)
    for said in fitted_notes(config.limits.bot) if started and notice else ():
        notice(said)
    db_path = Path(db_path) if db_path else default_db_path(config)
    run = _RunOptions(
        workers=max(1, workers or os.cpu_count() or 1),
        until_separated=until_separated,
        progress=progress,
        notice=notice,
        allow_broken=allow_broken,
        lifecycle=lifecycle,
        cluster=cluster or config.cluster,
        cluster_source="--cluster" if cluster else f"{config.path}: [cluster] address",
    )
    with league_lock(db_path, config.name):
        return _run(config, db_path, run)


@dataclasses.dataclass(frozen=True)
class _RunOptions:
    """How `run_league` was asked to run."""

    workers: int
    until_separated: bool
    progress: Progress | None
    notice: Notice | None
    allow_broken: bool
    lifecycle: Lifecycle
    cluster: str
    cluster_source: str = "--cluster"  # where the address came from, for messages

    def say(self, text: str) -> None:
        """Tell `notice`, if there is one."""
        if self.notice:
            self.notice(text)


def _run(config: LeagueConfig, db_path: Path, run: _RunOptions) -> RunSummary:
    """`run_league` once the league's lock is held."""
    db = open_db(db_path)
    try:
        source = _open_source(config, db, db_path, run)
    except StorageError as err:
        db.close()
        raise StorageError(_kept(err, db_path, None)) from None
    except BaseException:
        db.close()
        raise
    summary = source.summary
    if run.until_separated and source.next_idx and source.settled():
        summary.stopped_early = "the ranking was already separated"
        db.close()
        return summary
    try:
        # a cluster not there: say so now
        executor = open_executor(run.cluster, run.workers, run.cluster_source)
        if source.pending:
            try:
                _preflight(source, run)
            except BaseException:  # a refusal or Ctrl-C: nothing was played
                executor.close()
                raise
    except BaseException:
        db.close()
        raise
    try:
        _play(source, executor, run)
    finally:
        with contextlib.suppress(StorageError):  # a full disk must not hide the first error
            clear_in_flight(db, source.league_id)
        db.close()
    return summary


def _open_source(
    config: LeagueConfig, db: sqlite_utils.Database, db_path: Path, run: _RunOptions
) -> ScheduleSource:
    """The league as stored in `db` (made there when new), its schedule, what is stored
    and rated, as the run loop's match source; StorageError when the database fails."""
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
    pending = [m for m in schedule if m.index not in stored]
    league_logs = f"{slug(db_path.stem, 'db')}-{slug(config.name, 'league', limit=200)}"
    log_dir = db_path.parent / "logs" / league_logs
    if pending:  # a folder per run that plays: no run writes over another's logs
        log_dir = run_log_folder(log_dir)
    return ScheduleSource(
        config=config,
        db=db,
        league_id=league_id,
        pending=pending,
        template=TaskTemplate(log_dir, db_path, run.lifecycle),
        summary=RunSummary(config.name, db_path, len(schedule), len(stored), 0),
        outcomes=outcomes,
        next_idx=next_idx,
        rater=rater,
        until_separated=run.until_separated,
        progress=run.progress,
    )


def _play(source: ScheduleSource, executor: MatchExecutor, run: _RunOptions) -> None:
    """Play the source's matches on `executor`: the bots shipped when the executor's
    workers may be elsewhere, then the run loop (arena/league/running/dispatch.py)."""
    config, summary = source.config, source.summary
    if executor.ships_bots:
        shipped, archives = pack_bots(config)
        must_start = frozenset(e.name for e in config.entrants if e.name not in summary.broken)
        source.template = dataclasses.replace(
            source.template, shipped=shipped, must_start=must_start, elsewhere=True
        )
    else:
        archives = {}
    shared = executor.share(archives)

    def lost(hint: str) -> str:
        return (
            f"of league {config.name!r}, the {source.stored_count()} matches stored so far "
            f"are kept: run the league again to resume it ({hint})"
        )

    try:
        run_matches(source, executor, shared=shared, say=run.say, lost=lost)
    except (KeyboardInterrupt, WorkerDied):
        summary.interrupted = True
        raise
    except StorageError as err:  # the matches in flight cannot be stored either: stop
        summary.interrupted = True
        raise StorageError(_kept(err, summary.db_path, source.stored_count())) from None


def _kept(err: StorageError, db_path: Path, stored: int | None) -> str:
    """What a storage failure means for the run: what was kept, and how to go on."""
    kept = (
        "every match stored before is kept"
        if stored is None
        else (f"the {stored} matches stored so far are kept")
    )
    return (
        f"{err} ({db_path}); the run stopped and {kept}: free some space, or make the "
        "database writable, and run the league again to resume it"
    )


def _preflight(source: ScheduleSource, run: _RunOptions) -> None:
    """The pre-flight check of the entrants of the matches left to play: raises
    ConfigError naming every one that cannot start, unless `allow_broken`."""
    config, summary = source.config, source.summary
    names = {name for match in source.pending for name in match.entrants}
    parallel = parallel_starts(run.workers, config.engine.seats)
    log_dir, db_path = source.template.log_dir, source.template.db_path
    checks = check_entrants(
        config, sorted(names), log_dir=log_dir, db_path=db_path, parallel=parallel, say=run.notice
    )
    summary.checked = len(checks)
    summary.broken = [c.name for c in checks if not c.ok]
    if not run.allow_broken:
        refuse_broken(config, checks)
    said = broken_notice(checks)
    if said and run.notice:
        run.notice(said)
