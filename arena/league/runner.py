"""`arena run`: play a league's schedule in worker processes and store every match.

The main process schedules, stores and rates; each worker process plays one whole
match at a time (starting the match's bots, playing every rotation, ending the bots)
and sends back the replays. A match is stored in one transaction when it comes back,
so a run stopped at any moment (Ctrl-C, kill -9) loses at most the matches in flight,
and running the league again continues with the first match not stored.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from arena.bots.process import descendants, kill_all_now
from arena.bots.remote import RemoteSettings
from arena.bots.sandbox import sandbox_notice as bot_sandbox_notice
from arena.bots.spec import slug, started_players
from arena.games import get_game
from arena.league.config import LeagueConfig, load_league
from arena.league.ratings import (
    GameOutcome,
    MatchOutcome,
    Rater,
    load_outcomes,
    rate_prefix,
)
from arena.league.schedule import ScheduledMatch, build_schedule
from arena.league.separation import StopRule, stop_check
from arena.league.store import (
    ensure_league,
    open_db,
    replace_ratings,
    store_match,
    stored_match_indexes,
)
from arena.matches import play_match
from arena.referee import RefereeSettings


def league_schedule(config: LeagueConfig) -> list[ScheduledMatch]:
    game = get_game(config.game)
    return build_schedule(
        [e.name for e in config.entrants],
        game.seats,
        config.schedule,
        config.seed,
        rounds=config.rounds,
        matches=config.matches,
        candidates=config.candidates,
    )


def default_db_path(config: LeagueConfig) -> Path:
    return config.base_dir / "arena.db"


# -- the worker side --------------------------------------------------------------------


def _worker_init(parent: int) -> None:
    """Workers leave Ctrl-C to the main process; on SIGTERM, or when the main process
    is gone (even by kill -9), they kill their bots and exit at once.

    `parent` is the main process's pid, passed in rather than read here: a worker still
    starting up when the main process dies would otherwise take its new parent (init
    or a subreaper) for the main process and play on, unwatched."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: _die())
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.2)
    _die()


def _die() -> None:
    """Kill this worker's bots and everything below it, then exit.

    The worker's main thread is still playing while this runs: a bot killed here looks
    to it like a crash, and it would restart that bot (a fresh process the kill never
    saw, orphaned by the exit). `kill_all_now` refuses every start after it; a start
    already under way is caught by the sweep: every descendant of the worker is a bot
    or a bot's child (a subreaper keeps double-forked ones below it), so the sweep
    kills them all, again until two sweeps in a row find nothing."""
    quiet = 0
    for _ in range(100):  # bounded: a sweep with nothing left to kill ends it
        kill_all_now()
        left = descendants(os.getpid())
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        quiet = quiet + 1 if not _alive(left) else 0
        if quiet >= 2:
            break
        time.sleep(0.01)
    os._exit(1)


def _alive(pids: set[int]) -> bool:
    """Whether any of `pids` is still a live process (not a zombie waiting for us)."""
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                if f.read().rsplit(b") ", 1)[1][:1] != b"Z":
                    return True
        except (OSError, IndexError):
            continue
    return False


def play_scheduled_match(
    config_path: str, match: ScheduledMatch, log_dir: str, db_path: str = ""
) -> dict[str, Any]:
    """Play one scheduled match in this process and return it for storage."""
    config = load_league(config_path)
    game = get_game(config.game)
    limits = config.limits
    settings = RemoteSettings(
        limits.move_timeout, limits.startup_timeout, limits.time_bank, limits.transport
    )
    bots = {e.name: e.bot for e in config.entrants}
    specs = [bots[name] for name in match.entrants]
    started = time.monotonic()
    with started_players(
        specs,
        config.game,
        game.options_dict(config.options),
        settings,
        Path(log_dir),
        base_dir=config.base_dir,
        log_prefix=f"match{match.index:05d}-",
        tolerate_start_failures=True,
        sandbox=limits.sandbox_settings(_private_paths(db_path, log_dir)),
    ) as players:
        result = play_match(
            game,
            players,
            list(match.entrants),
            match.seed,
            config.options,
            RefereeSettings(max_faults=limits.max_faults),
            rotations=config.rotations,
        )
    return {
        "idx": match.index,
        "seed": match.seed,
        "entrants": list(match.entrants),
        "seconds": time.monotonic() - started,
        "games": [
            {
                "rotation": rotation,
                "players": [match.entrants[b] for b in seating],
                "replay": outcome.replay,
                "decisions": outcome.decisions,
            }
            for rotation, (seating, outcome) in enumerate(
                zip(result.seatings, result.games, strict=True)
            )
        ],
    }


def outcome_of(match: dict[str, Any]) -> MatchOutcome:
    """The rating input of a played match (the same as load_outcomes reads back)."""
    outcome = MatchOutcome(match["idx"], list(match["entrants"]))
    for game in match["games"]:
        players = game["players"]
        replay = game["replay"]
        faults = dict.fromkeys(players, 0)
        for fault in replay["faults"]:
            faults[players[fault["seat"]]] += 1
        deals = [dict(zip(players, d["scores"], strict=True)) for d in replay["deals"]]
        outcome.games.append(
            GameOutcome(
                game["rotation"], dict(zip(players, replay["totals"], strict=True)), faults, deals
            )
        )
    return outcome


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


Progress = Callable[[dict[str, Any]], None]


def _private_paths(db_path: str, log_dir: str) -> tuple[Path, ...]:
    """What no bot may see even when it lies inside a folder a bot is shown: the
    league's database (with its journal files) and the bots' logs."""
    if not db_path:
        return (Path(log_dir),)
    db = Path(db_path).resolve()
    journals = (db.with_name(db.name + suffix) for suffix in ("-wal", "-shm", "-journal"))
    return (db, *journals, Path(log_dir).resolve())


def sandbox_notice(config: LeagueConfig) -> str | None:
    """One plain sentence when this league's bots will not be fully sandboxed
    (ConfigError when the sandbox is wanted but this machine cannot give it)."""
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
) -> RunSummary:
    """Run (or resume) a league; returns what was done. Ctrl-C stops cleanly. `notice`
    is told, once, when started bots will not be fully sandboxed."""
    config = load_league(config_path)
    said = sandbox_notice(config)  # refuses here, before anything runs, if it cannot be had
    if said and notice:
        notice(said)
    db_path = Path(db_path) if db_path else default_db_path(config)
    db = open_db(db_path)
    league_id = ensure_league(db, config)
    schedule = league_schedule(config)
    stored = stored_match_indexes(db, league_id)
    entrants = [e.name for e in config.entrants]
    rater = Rater(config.ratings, entrants, config.rate_by, config.forfeit_faults)
    outcomes = load_outcomes(db, league_id)
    next_idx, rows = rate_prefix(outcomes, rater)
    replace_ratings(db, league_id, rows)
    pending = [m for m in schedule if m.index not in stored]
    summary = RunSummary(config.name, db_path, len(schedule), len(stored), 0)
    rule = StopRule()
    if until_separated and next_idx and _settled(outcomes, next_idx, rater, rule):
        summary.stopped_early = "the ranking was already separated"
        return summary
    log_dir = db_path.parent / "logs" / slug(config.name, "league", limit=200)
    workers = max(1, workers or os.cpu_count() or 1)
    started = time.monotonic()
    games_done = 0
    executor = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=get_context("spawn"),
        initializer=_worker_init,
        initargs=(os.getpid(),),
    )
    in_flight: dict[Future, ScheduledMatch] = {}
    queue = list(pending)
    try:
        while queue or in_flight:
            while queue and len(in_flight) < workers and not summary.stopped_early:
                match = queue.pop(0)
                future = executor.submit(
                    play_scheduled_match, str(config.path), match, str(log_dir), str(db_path)
                )
                in_flight[future] = match
            if not in_flight:
                break
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                in_flight.pop(future)
                match_data = future.result()
                store_match(db, league_id, match_data)
                summary.played += 1
                games_done += len(match_data["games"])
                outcomes[match_data["idx"]] = outcome_of(match_data)
                next_idx, rows = rate_prefix(outcomes, rater, next_idx)
                if rows:
                    with db.atomic():
                        db["ratings"].insert_all({"league_id": league_id, **r} for r in rows)
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
                            "total": len(schedule),
                            "games": games_done,
                            "elapsed": time.monotonic() - started,
                            "leader": _leader(rater),
                            "remaining": len(queue) + len(in_flight),
                        }
                    )
    except KeyboardInterrupt:
        summary.interrupted = True
        _stop_workers(executor)
        raise
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        db.close()
    return summary


def _settled(outcomes: dict[int, MatchOutcome], rated: int, rater: Rater, rule: StopRule) -> bool:
    """Whether the rated prefix (matches 0..rated-1) meets the stopping rule."""
    return stop_check([outcomes[i] for i in range(rated)], rater, rule) is not None


def _stop_workers(executor: ProcessPoolExecutor) -> None:
    """SIGTERM every worker: each ends its bots on the way out."""
    for process in list(getattr(executor, "_processes", {}).values()):
        with contextlib.suppress(Exception):
            process.terminate()
    for process in list(getattr(executor, "_processes", {}).values()):
        with contextlib.suppress(Exception):
            process.join(timeout=10)


def _leader(rater: Rater) -> tuple[str, float]:
    name, rating = max(rater.ratings.items(), key=lambda kv: kv[1].mu - 3 * kv[1].sigma)
    return name, rating.mu - 3 * rating.sigma
