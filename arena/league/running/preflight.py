"""The pre-flight check of `arena run`: every started entrant launched once, greeted, ended.

Without it, a bot that cannot start (a typo in its command, a missing file, a bot that
crashes on import or refuses the game) is found out only as `start-failure` faults in
every one of its matches, after the league has spent hours playing them. The check
starts each entrant exactly as a worker would (`arena.league.workers.worker.league_players`:
the same `[limits]`, sandbox, base folder and log folder), waits for its handshake
(Hello with the league's game and rules) and ends it, a few entrants at a time, so a
league of 50 bots costs about 50 start-ups divided by that number, not 50 ×
startup_timeout. `grpc:` entrants are reached and greeted too; `builtin:` entrants
need nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from arena.bots.remote.handshake import BotStartError
from arena.bots.spec import BUILTIN_PREFIX, seat_log_path, slug
from arena.errors import ConfigError, SandboxError
from arena.league.definition.config import Entrant, LeagueConfig
from arena.league.workers.worker import league_players
from arena.wire.loop import thread_loop

MAX_PARALLEL = 8  # entrants started at once, at most
LOG_LINES = 3  # lines of a failed bot's log excerpt shown in the list
ALLOW_BROKEN = "--allow-broken"


@dataclass(frozen=True)
class EntrantCheck:
    """How one entrant's start went: `problem` is empty when it shook hands."""

    name: str
    spec: str
    seconds: float
    problem: str = ""
    log: str = ""  # its log file, when the referee started it and it wrote one

    @property
    def ok(self) -> bool:
        return not self.problem

    def describe(self) -> str:
        """The entrant's entry in the list of those that cannot start: the error's first
        line, the log's last lines (where a crash says why), and its log's path."""
        lines = self.problem.splitlines() or ["?"]
        text = f"- {self.name} ({self.spec}): {lines[0]}"
        if self.log and self.log not in lines[0]:
            text += f"; its log: {self.log}"
        marker = next((i for i, line in enumerate(lines) if line.startswith("--- last")), None)
        if marker is not None:
            text += "".join(f"\n    | {line}" for line in lines[marker + 1 :][-LOG_LINES:])
        return text


def needs_check(entrant: Entrant) -> bool:
    """Whether starting `entrant` can fail: everything but the bots inside the referee."""
    return not entrant.bot.strip().startswith(BUILTIN_PREFIX)


def parallel_starts(workers: int, seats: int) -> int:
    """How many entrants to start at once: as many bots as the league's workers start
    together (one match each), at most `MAX_PARALLEL`: more would slow every bot's
    start-up on a small machine, and a slow bot could then miss its startup_timeout
    here though it would start in time in a match."""
    return max(1, min(MAX_PARALLEL, workers * seats))


def check_entrants(
    config: LeagueConfig,
    names: Sequence[str],
    *,
    log_dir: Path,
    db_path: Path,
    parallel: int = MAX_PARALLEL,
    say: Callable[[str], None] | None = None,
) -> list[EntrantCheck]:
    """Start every entrant named in `names` that needs it, `parallel` at a time, and
    end each once it has shaken hands; one `EntrantCheck` each, in the league file's
    order. `say` is told the progress, one line at a time, from this thread."""
    wanted = set(names)
    entrants = [e for e in config.entrants if e.name in wanted and needs_check(e)]
    if not entrants:
        return []
    tell = say or (lambda _text: None)
    count = len(entrants)
    started = time.monotonic()
    tell(
        f"checking {count} entrant{'s' if count != 1 else ''} before the first match "
        f"({min(parallel, count)} at a time, startup_timeout {config.limits.startup_timeout} s)"
    )
    results: dict[str, EntrantCheck] = {}
    pool = ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="preflight")
    try:
        place = {e.name: i for i, e in enumerate(config.entrants)}  # stable log names
        futures = {
            pool.submit(
                check_entrant,
                config,
                entrant,
                place[entrant.name],
                log_dir=log_dir,
                db_path=db_path,
            )
            for entrant in entrants
        }
        for future in as_completed(futures):
            check = future.result()
            results[check.name] = check
            verdict = "ok" if check.ok else "cannot start"
            tell(f"  {check.name}: {verdict} ({check.seconds:.1f} s)")
    finally:
        # Ctrl-C: entrants not started yet never are; those starting end on their own.
        pool.shutdown(wait=True, cancel_futures=True)
    checks = [results[e.name] for e in entrants]
    broken = sum(not c.ok for c in checks)
    tell(
        f"checking {count} entrant{'s' if count != 1 else ''}: "
        + (f"{broken} of {count} cannot start" if broken else "all ok")
        + f" ({time.monotonic() - started:.1f} s)"
    )
    return checks


def check_entrant(
    config: LeagueConfig, entrant: Entrant, index: int, *, log_dir: Path, db_path: Path
) -> EntrantCheck:
    """Start one entrant as a worker would, shake hands, end it, all on this thread: its
    event loop is closed afterwards (the pool's threads do not outlive the check), and a
    sandboxed bot dies with the thread that started it (bubblewrap's --die-with-parent
    follows the thread), so it must never be handed to another thread."""
    prefix = f"preflight-{index:03d}-{slug(entrant.name, 'entrant', 40)}-"
    log = seat_log_path(log_dir, prefix, 0, entrant.bot)
    started = time.monotonic()
    problem = ""
    try:
        with league_players(config, [entrant.bot], log_dir, db_path=db_path, log_prefix=prefix):
            pass
    except (BotStartError, ConfigError, SandboxError) as err:
        problem = str(err) or type(err).__name__
    finally:
        thread_loop().close()
    seconds = time.monotonic() - started
    shown = str(log) if problem and log.exists() else ""
    return EntrantCheck(entrant.name, entrant.bot, seconds, problem, shown)


def refuse_broken(config: LeagueConfig, checks: Sequence[EntrantCheck]) -> None:
    """ConfigError listing every entrant that cannot start, with why and its log."""
    broken = [c for c in checks if not c.ok]
    if not broken:
        return
    raise ConfigError(
        f"{config.path}: {len(broken)} of the {len(checks)} entrants checked before the "
        f"first match of league {config.name!r} cannot start, so no match was played:\n"
        + "\n".join(c.describe() for c in broken)
        + f"\nFix them and run again (the check runs on every run), or pass {ALLOW_BROKEN} "
        "to play anyway: a bot that cannot start in a match plays fallback moves there, "
        "each recorded as a start-failure fault"
    )


def broken_notice(checks: Sequence[EntrantCheck]) -> str | None:
    """With --allow-broken: the one line saying who will play fallback moves."""
    broken = [c for c in checks if not c.ok]
    if not broken:
        return None
    return (
        f"playing anyway ({ALLOW_BROKEN}): "
        + ", ".join(c.name for c in broken)
        + " cannot start; "
        + ("its seat plays" if len(broken) == 1 else "their seats play")
        + " fallback moves, recorded as start-failure faults:\n"
        + "\n".join(c.describe() for c in broken)
    )
