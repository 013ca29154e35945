"""The worker side of `arena run`: one process plays one whole match at a time.

It starts the match's bots, plays every rotation, ends the bots and sends the replays
back to the main process (arena/league/running/runner.py), which stores and rates. Kept apart
from the runner so that a worker imports only what playing needs: not the storage
(sqlite-utils) nor the ratings (trueskill), some 0.12 s of CPU per worker at start.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import multiprocessing.util
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from enum import StrEnum
from pathlib import Path

from arena.bots.confinement.cgroups import entrant_group
from arena.bots.confinement.sandbox import Sandbox
from arena.bots.human import HumanTable
from arena.bots.process import become_subreaper, descendants, kill_all_now
from arena.bots.remote.settings import remote_settings
from arena.bots.rotation_pool import RotationPool, Seat, seat_log
from arena.bots.spec import make_player, started_players
from arena.league.definition.config import LeagueConfig
from arena.league.definition.records import PlayedGame, PlayedMatch
from arena.league.definition.schedule import ScheduledMatch
from arena.league.workers.live import LiveMatch, live_folder
from arena.play.deal_keys import game_seed
from arena.play.matches import play_match, seatings
from arena.play.referee import Player, RefereeSettings


def worker_init(parent: int) -> None:
    """Workers leave Ctrl-C to the main process; on SIGTERM, or when the main process
    is gone (even by kill -9), they kill their bots and exit at once.

    `parent` is the main process's pid, passed in rather than read here: a worker still
    starting up when the main process dies would otherwise take its new parent (init
    or a subreaper) for the main process and play on, unwatched."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: kill_bots_and_exit())
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.2)
    kill_bots_and_exit()


def kill_bots_and_exit() -> None:
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


class Lifecycle(StrEnum):
    """How a worker keeps its bots: `league` (the rule) a process per (entrant,
    rotation), kept for the whole league (arena/bots/rotation_pool.py); `match` the
    lifecycle before it, one process per entrant started for every match and playing
    all its rotations, kept only so that `arena bench league` can measure the two in one
    run: a bot so kept meets every deal of a match again in each rotation."""

    LEAGUE = "league"
    MATCH = "match"


LIFECYCLES = tuple(Lifecycle)

OVERLOAD_REPLAYS = 3  # times a match is played again when the machine made a bot late;
# after them the last play is stored, its faults saying the machine was overloaded

_pool: RotationPool | None = None
_pool_for: tuple[str, str, str] | None = None  # (league, log folder, database) it serves


def play_scheduled_match(
    config: LeagueConfig,
    match: ScheduledMatch,
    log_dir: str,
    *,
    db_path: str = "",
    lifecycle: Lifecycle = Lifecycle.LEAGUE,
    live_file: bool = True,
) -> PlayedMatch:
    """Play one scheduled match in this process and return it for storage (and, when
    `live_file` and the league has a database here, in its live file as it is played).

    `config` is the league as the main process parsed it when the run began (its deal
    key included): the worker never reads the league file or the database, so editing
    the file during a run changes no match already scheduled, and a worker elsewhere
    needs nothing but this call's arguments. The match's game seed is an HMAC of its
    public seed under the deal key (arena/play/deal_keys.py)."""
    game = config.engine
    bots = {e.name: e.bot for e in config.entrants}
    seed = game_seed(config.deal_key, match.seed)
    settings = RefereeSettings(max_faults=config.limits.max_faults)
    started = time.monotonic()
    replays = 0
    if lifecycle == Lifecycle.MATCH:
        specs = [bots[name] for name in match.entrants]
        with league_players(
            config,
            specs,
            Path(log_dir),
            db_path=db_path,
            log_prefix=f"match{match.index:05d}-",
            tolerate_start_failures=True,
        ) as players:
            result = play_match(
                game,
                players,
                list(match.entrants),
                seed,
                options=config.options,
                settings=settings,
                rotations=config.rotations,
            )
    else:
        pool = _worker_pool(config, log_dir, db_path)
        orders = seatings(game.seats, config.rotations)
        seats = [
            [Seat(name, bots[name], match.slots + r) for name in match.entrants]
            for r in range(len(orders))
        ]
        live = _live_match(config, match, db_path, orders=orders, seed=seed) if live_file else None
        if live is not None:
            settings.watch = live
        try:
            while True:
                if live is not None:
                    live.restart()
                rosters = pool.match_players(seats)
                result = play_match(
                    game,
                    rosters[0],
                    list(match.entrants),
                    seed,
                    options=config.options,
                    settings=settings,
                    rotations=config.rotations,
                    rotation_players=rosters,
                    before_game=_before_game(pool, live),
                )
                overloaded = any(f.overload for g in result.games for f in g.faults)
                if not overloaded or replays >= OVERLOAD_REPLAYS:
                    break
                replays += 1  # the machine made a bot late: play the match again, with
                pool.forget([seat for rotation in seats for seat in rotation])  # new bots
        finally:
            if live is not None:
                live.close()
    games = tuple(
        PlayedGame(
            rotation,
            tuple(match.entrants[b] for b in seating),
            outcome.replay,
            outcome.decisions,
        )
        for rotation, (seating, outcome) in enumerate(
            zip(result.seatings, result.games, strict=True)
        )
    )
    return PlayedMatch(
        match.index,
        match.seed,
        tuple(match.entrants),
        games,
        time.monotonic() - started,
        overload_replays=replays,
    )


def _live_match(
    config: LeagueConfig,
    match: ScheduledMatch,
    db_path: str,
    *,
    orders: Sequence[tuple[int, ...]],
    seed: str,
) -> LiveMatch | None:
    """The live file of the match (for `arena serve`), when the league has a database."""
    if not db_path:
        return None
    names = [[match.entrants[b] for b in order] for order in orders]
    return LiveMatch(
        db_path,
        config.engine,
        config.name,
        idx=match.index,
        rotation_names=names,
        seed=seed,
        options=config.rule_options(),
    )


def _before_game(pool: RotationPool, live: LiveMatch | None) -> Callable[[Sequence[Player]], None]:
    """Before each rotation's game: thaw its bots, and start its part of the live file."""

    def before(players: Sequence[Player]) -> None:
        pool.activate(players)
        if live is not None:
            live.next_game()

    return before


def _worker_pool(config: LeagueConfig, log_dir: str, db_path: str) -> RotationPool:
    """This worker's pool of bots for `config`'s league, made at its first match and
    ended when the worker exits (a multiprocessing finalizer: the pool's workers leave
    by `os._exit`, which runs no atexit handler) or when a match of another league
    comes (the pool of a run serves one league)."""
    global _pool, _pool_for
    wanted = (config.name, log_dir, db_path)
    if _pool is not None and _pool_for == wanted:
        return _pool
    close_worker_pool()
    _pool = league_pool(config, Path(log_dir), db_path)
    _pool_for = wanted
    multiprocessing.util.Finalize(_pool, close_worker_pool, exitpriority=10)
    return _pool


def close_worker_pool() -> None:
    """End every bot this worker keeps (the end of its league, or of the worker)."""
    global _pool, _pool_for
    pool, _pool, _pool_for = _pool, None, None
    if pool is not None:
        pool.close()


def league_pool(config: LeagueConfig, log_dir: Path, db_path: str | Path = "") -> RotationPool:
    """A `RotationPool` that starts bots as this league starts them (its limits, its
    sandbox hiding the database and the logs, its folder for relative paths), each
    with a log of its own (entrant, rotation) in `log_dir`."""
    settings = remote_settings(config.limits)
    sandbox = _league_sandbox(config, db_path, log_dir)
    place = {e.name: i for i, e in enumerate(config.entrants)}
    become_subreaper()

    parent = multiprocessing.parent_process()
    owner = parent.pid if parent is not None and parent.pid else os.getpid()  # the run's

    def make(seat: Seat) -> Player:
        log = seat_log(log_dir, seat, place.get(seat.entrant, 0))
        group = entrant_group(owner, f"{config.name}\0{seat.entrant}")  # in every worker
        grouped = dataclasses.replace(sandbox, group=group)
        return make_player(
            seat.spec, settings, log_path=log, base_dir=config.base_dir, sandbox=grouped
        )

    return RotationPool(make, config.game, config.rule_options())


def league_players(
    config: LeagueConfig,
    specs: Sequence[str],
    log_dir: Path,
    *,
    db_path: str | Path = "",
    log_prefix: str = "",
    tolerate_start_failures: bool = False,
    humans: HumanTable | None = None,
) -> AbstractContextManager[list[Player]]:
    """`started_players` for `specs` as this league starts its bots: its limits, its
    sandbox (hiding the database and the logs), its folder for relative paths, and
    `log_dir`. The one place that says so, for the matches and for the pre-flight
    check of `arena run` (arena/league/running/preflight.py), which must start a bot exactly
    as its matches will; and for a site's game against one of its bots, `humans` the
    visitor's seat (arena/web/table/site_games.py)."""
    return started_players(
        specs,
        config.game,
        config.rule_options(),
        settings=remote_settings(config.limits),
        log_dir=log_dir,
        base_dir=config.base_dir,
        log_prefix=log_prefix,
        tolerate_start_failures=tolerate_start_failures,
        sandbox=_league_sandbox(config, db_path, log_dir),
        humans=humans,
    )


def _league_sandbox(config: LeagueConfig, db_path: str | Path, log_dir: str | Path) -> Sandbox:
    """The league's sandbox, hiding its database and its logs from every bot."""
    return config.limits.sandbox_settings(_private_paths(str(db_path), str(log_dir)))


def _private_paths(db_path: str, log_dir: str) -> tuple[Path, ...]:
    """What no bot may see even when it lies inside a folder a bot is shown: the
    league's database (with its journal files), and the bots' logs (every run's: the
    logs folder beside the database holds a folder per league and run)."""
    if not db_path:
        return (Path(log_dir),)
    db = Path(db_path).resolve()
    journals = (db.with_name(db.name + suffix) for suffix in ("-wal", "-shm", "-journal"))
    logs = db.parent / "logs"
    folder = logs if Path(log_dir).resolve().is_relative_to(logs) else Path(log_dir)
    return (db, *journals, live_folder(db), folder)  # the live files hold every hand
