"""The gate: what a submitted version must pass before it plays a rated game.

A version that cannot start, breaks the protocol or faults at a table would otherwise
be found out in rated matches, where every opponent pays for its fallback moves and the
matchmaker keeps seating it. So before it is rated the gate runs it, sandboxed as the
ladder's matches run it (the ladder's `[limits]`, its sandbox hiding the database and
the logs, the version's own folder as the command's folder), through three steps:

1. `start`: the pre-flight start of `arena run` (started once, greeted with the
   ladder's game and rules, ended: arena/league/running/preflight.py);
2. `check-bot`: `arena check-bot`'s conformance check, every kind of decision put to
   the bot (arena/bots/check.py), with its default seed, so the author can run the very
   same check at home;
3. `validation`: a seat-rotated match against copies of itself, every seat the same
   bot, on the ladder's rules (as Kaggle validates a submission).

The first step that fails refuses the version; the steps after it are not run (they
would fail for the same reason, and cost the time). The whole report is kept as text,
which the author reads (`arena ladder versions --bot NAME`).

Each try runs in a process of its own (multiprocessing's `spawn`, the league's worker
set-up: SIGTERM makes it kill its bots and exit, and it dies with the ladder), so a
gate that hangs cannot hang the ladder: at `timeout` seconds the try is ended with
every process it started, and tried again, at most `retries` more times. A try that
reaches a verdict is never retried: a refusal is the bot's, and the same bot would be
refused again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import multiprocessing
import os
import signal
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.check import check_bot
from arena.bots.process import descendants
from arena.bots.remote.handshake import BotStartError
from arena.bots.remote.settings import remote_settings
from arena.bots.spec import BUILTIN_PREFIX, unique_names
from arena.errors import ConfigError, SandboxError
from arena.league.definition.config import Entrant, LeagueConfig
from arena.league.running.preflight import check_entrant
from arena.league.workers.worker import _league_sandbox, league_players, worker_init
from arena.play.deal_keys import game_seed
from arena.play.matches import match_games, seatings
from arena.play.referee import RefereeSettings

STEPS = ("start", "check-bot", "validation")
END_GRACE = 5.0  # seconds a timed-out try has to kill its bots and exit on SIGTERM
FAULT_LINES = 10  # fault lines of the validation shown, at most
FOLDER_MARK = "ladder-version"  # the name in a version's config path: only its folder is read


@dataclass(frozen=True)
class GateSettings:
    """The ladder file's `[gate]` table, as far as the gate reads it (`max_mb` and
    `max_files` belong to the uploads)."""

    timeout: float = 300.0  # seconds for one try of the whole gate
    retries: int = 2  # tries after a first that hung: at most retries + 1 in all
    validation_games: int = 0  # 0: one seat-rotated match (one game per rotation)


@dataclass(frozen=True)
class GateStep:
    """One step's verdict and what the author should read of it."""

    name: str  # one of STEPS
    passed: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "detail": self.detail}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GateStep:
        return cls(str(data["name"]), bool(data["passed"]), str(data.get("detail", "")))


@dataclass(frozen=True)
class GateReport:
    """The gate's verdict on a version, with the whole report kept as `text`.

    `timed_out`: every try hung (refused, the bot never let the gate finish).
    `error`: the arena itself failed in every try (a crash of the gate's own process, not
    a verdict on the bot): `passed` is False, but a ladder should check the version again
    later rather than refuse it for good."""

    passed: bool
    tries: int
    steps: tuple[GateStep, ...]
    text: str
    timed_out: bool = False
    error: str = ""
    log_dir: str = ""

    @property
    def failed_step(self) -> str:
        """The step that refused the version ("" when none did)."""
        return next((s.name for s in self.steps if not s.passed), "")

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "tries": self.tries,
            "steps": [step.to_json() for step in self.steps],
            "text": self.text,
            "timed_out": self.timed_out,
            "error": self.error,
            "log_dir": self.log_dir,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GateReport:
        return cls(
            passed=bool(data["passed"]),
            tries=int(data["tries"]),
            steps=tuple(GateStep.from_json(s) for s in data.get("steps", [])),
            text=str(data.get("text", "")),
            timed_out=bool(data.get("timed_out", False)),
            error=str(data.get("error", "")),
            log_dir=str(data.get("log_dir", "")),
        )


def version_config(config: LeagueConfig, folder: Path) -> LeagueConfig:
    """`config` with the version's folder as its base folder: a command's relative paths
    resolve there and the bot starts there, as `league_players` and the worker's pool
    start every bot from `config.base_dir`. The path names no file; only its folder is
    read."""
    return dataclasses.replace(config, path=Path(folder).resolve() / FOLDER_MARK)


def run_gate(
    command: str,
    folder: Path,
    config: LeagueConfig,
    *,
    settings: GateSettings,
    log_dir: Path,
    name: str,
    db_path: str | Path = "",
) -> GateReport:
    """Run the gate on the version whose `command` runs from `folder`, with `config`'s
    game, rules and limits, its logs below `log_dir` (a folder per try), and `db_path`
    (the ladder's database, hidden from the bot by the sandbox) if there is one.

    Never raises for anything the bot does; ConfigError for a built-in bot (it runs
    inside the referee: there is nothing to check)."""
    if command.strip().startswith(BUILTIN_PREFIX):
        raise ConfigError(
            f"the gate checks bots the referee starts; {command.strip()!r} is a built-in bot, "
            "which runs inside the referee: give the version's command (e.g. 'python bot.py')"
        )
    folder = Path(folder).resolve()
    log_dir = Path(log_dir).resolve()
    database = str(Path(db_path).resolve()) if str(db_path) not in ("", ".") else ""
    log_dir.mkdir(parents=True, exist_ok=True)
    allowed = max(0, settings.retries) + 1
    notes: list[str] = []
    outcome: _Try | None = None
    endings: list[str] = []  # how each try ended
    tries = 0
    for attempt in range(1, allowed + 1):
        tries = attempt
        outcome = _one_try(
            command,
            folder,
            config,
            settings,
            log_dir / f"try-{attempt}",
            name,
            database,
            settings.timeout,
        )
        outcome.log_dir = log_dir / f"try-{attempt}"
        endings.append(outcome.ended)
        if outcome.finished:
            break
        notes.append(f"try {attempt}: {outcome.why_unfinished(settings.timeout)}")
    assert outcome is not None
    finished = outcome.finished
    steps = tuple(outcome.steps) if finished else _unfinished_steps(outcome, settings.timeout)
    passed = finished and all(s.passed for s in steps) and len(steps) == len(STEPS)
    timed_out = not finished and all(ended == "timeout" for ended in endings)
    error = "" if finished or timed_out else outcome.error_summary()
    text = _report_text(
        command=command,
        folder=folder,
        name=name,
        log_dir=log_dir,
        steps=steps,
        passed=passed,
        finished=finished,
        tries=tries,
        allowed=allowed,
        timeout=settings.timeout,
        timed_out=timed_out,
        notes=notes,
    )
    return GateReport(
        passed=passed,
        tries=tries,
        steps=steps,
        text=text,
        timed_out=timed_out,
        error=error,
        log_dir=str(log_dir),
    )


# ---- one try, in a process of its own ----


@dataclass
class _Try:
    """What the parent learnt of one try: the steps it finished, the step it was in, and
    how it ended ("done", "timeout", "died" or "error")."""

    steps: list[GateStep] = dataclasses.field(default_factory=list)
    running: str = ""
    ended: str = ""
    seconds: float = 0.0
    exit_code: int | None = None
    error: str = ""
    log_dir: Path | None = None  # the try's logs

    @property
    def finished(self) -> bool:
        return self.ended == "done"

    def why_unfinished(self, timeout: float) -> str:
        done = ", ".join(f"{s.name} {'ok' if s.passed else 'FAIL'}" for s in self.steps) or "none"
        if self.ended == "timeout":
            during = f" during {self.running}" if self.running else " before its first step"
            return (
                f"timed out after {timeout:g} s{during} (steps done: {done}); ended, with "
                "every process it started"
            )
        if self.ended == "error":
            return f"the gate's own process failed{self._during()}: {self.error_line()}"
        return f"the gate's own process ended without a verdict{self._during()} " + (
            f"(exit code {self.exit_code})" if self.exit_code is not None else ""
        )

    def _during(self) -> str:
        return f" during {self.running}" if self.running else ""

    def error_line(self) -> str:
        lines = [line for line in self.error.strip().splitlines() if line.strip()]
        return lines[-1] if lines else "no error was reported"

    def error_summary(self) -> str:
        if self.ended == "error":
            return self.error_line()
        return f"the gate's process ended without a verdict (exit code {self.exit_code})"


def _one_try(
    command: str,
    folder: Path,
    config: LeagueConfig,
    settings: GateSettings,
    log_dir: Path,
    name: str,
    db_path: str,
    timeout: float,
) -> _Try:
    """Run the three steps in a child process, ended (with everything it started) when
    `timeout` seconds pass before its verdict."""
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(
        target=_child,
        args=(send, os.getpid(), command, folder, config, settings, log_dir, name, db_path),
        name=f"arena-gate-{name}",
    )
    outcome = _Try()
    started = time.monotonic()
    process.start()
    send.close()  # the child's end: once it exits, recv() raises EOFError
    try:
        deadline = started + timeout
        while not outcome.ended:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                outcome.ended = "timeout"
                break
            if not receive.poll(min(remaining, 0.5)):
                if not process.is_alive() and not receive.poll():
                    outcome.ended = "died"
                continue
            try:
                kind, payload = receive.recv()
            except (EOFError, OSError):
                outcome.ended = "died"
                break
            if kind == "begin":
                outcome.running = payload
            elif kind == "step":
                outcome.steps.append(GateStep.from_json(payload))
                outcome.running = ""
            elif kind == "error":
                outcome.ended, outcome.error = "error", payload
            elif kind == "done":
                outcome.ended = "done"
    finally:
        outcome.seconds = time.monotonic() - started
        outcome.exit_code = _end_try(process, at_once=outcome.ended != "done")
        receive.close()
    if outcome.steps and (not outcome.steps[-1].passed or len(outcome.steps) == len(STEPS)):
        outcome.ended = "done"  # the verdict was given, whatever became of the process after
    return outcome


def _end_try(process: Any, *, at_once: bool) -> int | None:
    """End the try's process. One that gave its verdict is exiting (its bots already
    ended): it is waited for. Otherwise SIGTERM makes it kill its bots and exit
    (`worker_init`); one that does not within `END_GRACE` (stuck where no signal handler
    runs) is killed with SIGKILL, and so is every process found below it before the
    signal (its bots and their children: it is their subreaper, so double-forked ones
    are below it too). Its exit code is returned (None if it could not be ended)."""
    if not at_once:
        process.join(timeout=30)
    if process.is_alive():
        below = _snapshot(process.pid)
        process.terminate()
        process.join(timeout=END_GRACE)
        if process.is_alive():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(process.pid, signal.SIGKILL)
            process.join(timeout=END_GRACE)
        for pid, start in below.items():  # whatever the child could not end itself
            if _start_time(pid) == start:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
    process.join(timeout=END_GRACE)
    code = process.exitcode
    with contextlib.suppress(ValueError):
        process.close()
    return code


def _snapshot(pid: int) -> dict[int, bytes]:
    """Every process below `pid`, with its start time (a pid reused later is spared)."""
    found = {}
    for child in descendants(pid):
        start = _start_time(child)
        if start is not None:
            found[child] = start
    return found


def _start_time(pid: int) -> bytes | None:
    """The process's start time from /proc (field 22 of its stat), None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b") ", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[19] if len(fields) > 19 else None


def _child(
    conn: Any,
    parent: int,
    command: str,
    folder: Path,
    config: LeagueConfig,
    settings: GateSettings,
    log_dir: Path,
    name: str,
    db_path: str,
) -> None:
    """The try's process: as a league's worker, it leaves Ctrl-C to the ladder, kills its
    bots and exits on SIGTERM or when the ladder is gone; it tells the parent each step
    as it begins and ends."""
    worker_init(parent)
    try:
        log_dir.mkdir(parents=True, exist_ok=True)

        def tell(kind: str, payload: Any) -> None:
            conn.send((kind, payload))

        gate_steps(command, folder, config, settings, log_dir, name, db_path, tell)
        conn.send(("done", None))
    except BaseException:
        with contextlib.suppress(OSError, ValueError):
            conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


def gate_steps(
    command: str,
    folder: Path,
    config: LeagueConfig,
    settings: GateSettings,
    log_dir: Path,
    name: str,
    db_path: str = "",
    tell: Callable[[str, Any], None] | None = None,
) -> list[GateStep]:
    """The three steps in this process, up to the first that fails (no timeout, no
    retry: `run_gate` gives both). `tell` hears ("begin", step name) and ("step", its
    JSON) as each begins and ends."""
    say = tell or (lambda _kind, _payload: None)
    version = version_config(config, folder)
    steps: list[GateStep] = []
    for step_name, step in (
        ("start", lambda: _start_step(version, command, log_dir, name, db_path)),
        ("check-bot", lambda: _check_step(version, command, log_dir, db_path)),
        (
            "validation",
            lambda: _validation_step(version, command, log_dir, name, db_path, settings),
        ),
    ):
        say("begin", step_name)
        done = step()
        steps.append(done)
        say("step", done.to_json())
        if not done.passed:
            break
    return steps


def _start_step(
    config: LeagueConfig, command: str, log_dir: Path, name: str, db_path: str
) -> GateStep:
    """Started once, greeted with the ladder's game and rules, and ended, exactly as
    `arena run` checks an entrant before its first match."""
    check = check_entrant(config, Entrant(name, command), 0, log_dir=log_dir, db_path=db_path)
    if check.ok:
        return GateStep("start", True, f"started, greeted and ended in {check.seconds:.1f} s")
    detail = f"it could not start (after {check.seconds:.1f} s):\n{check.problem}"
    if check.log and check.log not in check.problem:
        detail += f"\nlog: {check.log}"
    return GateStep("start", False, detail)


def _check_step(config: LeagueConfig, command: str, log_dir: Path, db_path: str) -> GateStep:
    """`arena check-bot` with its default seed, under the ladder's limits and sandbox."""
    report = check_bot(
        command,
        config.game,
        settings=remote_settings(config.limits),
        log_dir=log_dir,
        sandbox=_league_sandbox(config, db_path, log_dir),
        base_dir=config.base_dir,
    )
    return GateStep("check-bot", report.clean, "\n".join(report.lines()))


def _validation_step(
    config: LeagueConfig,
    command: str,
    log_dir: Path,
    name: str,
    db_path: str,
    settings: GateSettings,
) -> GateStep:
    """A seat-rotated match of the bot against copies of itself on the ladder's rules,
    its bots started as a league starts them; any fault of its own refuses it (a timeout
    the machine caused is shown, never charged)."""
    game = config.engine
    per_match = len(seatings(game.seats, config.rotations))
    wanted = settings.validation_games or per_match
    names = unique_names([name] * game.seats)
    referee = RefereeSettings(max_faults=config.limits.max_faults)
    played = decisions = 0
    charged: list[str] = []
    machine: list[str] = []
    try:
        with league_players(
            config, [command] * game.seats, log_dir, db_path=db_path, log_prefix="validation-"
        ) as players:
            for match in range(math.ceil(wanted / per_match)):
                seed = game_seed(config.deal_key, f"gate/{name}/{match + 1}")
                for rotation, seating, result in match_games(
                    game,
                    players,
                    names,
                    seed,
                    options=config.options,
                    settings=referee,
                    rotations=config.rotations,
                ):
                    played += 1
                    decisions += result.decisions
                    for fault in result.faults:
                        line = (
                            f"game {played} (match {match + 1}, rotation {rotation}), "
                            f"{names[seating[fault.seat]]} in seat {fault.seat}: deal "
                            f"{fault.deal} decision {fault.decision}: {fault.kind}: "
                            f"{fault.detail}{fault.log_note()}"
                        )
                        (machine if fault.overload else charged).append(line)
                    if played >= wanted:
                        break
    except (BotStartError, ConfigError, SandboxError) as err:
        return GateStep(
            "validation",
            False,
            f"the copies of the bot could not all start for the validation match:\n{err}",
        )
    what = (
        f"played {played} game{'s' if played != 1 else ''} of {config.game} "
        f"({config.rotations} seat rotation) with the bot in all {game.seats} seats, "
        f"{decisions} decisions"
    )
    lines = [what]
    if charged:
        lines.append(f"faults: {len(charged)}")
        lines += [f"  - {line}" for line in charged[:FAULT_LINES]]
        if len(charged) > FAULT_LINES:
            lines.append(f"  ... and {len(charged) - FAULT_LINES} more")
    else:
        lines.append("faults: none")
    if machine:
        lines.append(f"timeouts the machine caused (not charged): {len(machine)}")
    lines.append(f"logs: {log_dir}/validation-seat*.log")
    return GateStep("validation", not charged, "\n".join(lines))


# ---- the report ----


def _unfinished_steps(outcome: _Try, timeout: float) -> tuple[GateStep, ...]:
    """The steps of a last try that gave no verdict: those it finished, then the one it
    was in, failed with why."""
    steps = list(outcome.steps)
    if outcome.running:
        why = (
            f"did not finish within the gate's timeout of {timeout:g} s"
            if outcome.ended == "timeout"
            else f"did not finish: {outcome.why_unfinished(timeout)}"
        )
        if outcome.log_dir is not None:
            why += f"\nthe bot's logs of that try: {outcome.log_dir}"
        steps.append(GateStep(outcome.running, False, why))
    else:  # between two steps
        steps.append(GateStep(STEPS[len(steps)], False, outcome.why_unfinished(timeout)))
    return tuple(steps)


def _report_text(
    *,
    command: str,
    folder: Path,
    name: str,
    log_dir: Path,
    steps: tuple[GateStep, ...],
    passed: bool,
    finished: bool,
    tries: int,
    allowed: int,
    timeout: float,
    timed_out: bool,
    notes: list[str],
) -> str:
    """The report as the author reads it: the verdict, each step's, the tries that hung."""
    if passed:
        verdict = f"PASSED on try {tries} of {allowed}"
    elif finished:
        failed = next(s.name for s in steps if not s.passed)
        verdict = f"REFUSED at {failed} (try {tries} of {allowed})"
    elif timed_out:
        every = f"all {tries} tries" if tries > 1 else "its one try"
        verdict = (
            f"REFUSED: {every} timed out (the gate allows {timeout:g} s a try); "
            "a bot that takes this long to start, check and play one match would hold "
            "up every table it sits at"
        )
    else:
        verdict = (
            f"NOT DECIDED: the gate itself failed in {'all ' if tries > 1 else ''}{tries} "
            f"tr{'ies' if tries > 1 else 'y'} (the arena's fault, "
            "not the bot's): it will be checked again"
        )
    lines = [
        f"gate for {name}: `{command}` run from {folder}",
        f"verdict: {verdict}",
    ]
    ran = {s.name for s in steps}
    for step in steps:
        lines.append(f"[{step.name}] {'ok' if step.passed else 'FAIL'}")
        lines += [f"  {line}" for line in step.detail.splitlines()]
    for missing in (s for s in STEPS if s not in ran):
        lines.append(f"[{missing}] not run (an earlier step failed)")
    if notes:
        lines.append("tries that gave no verdict:")
        lines += [f"  {note}" for note in notes]
    lines.append(f"logs: {log_dir}")
    return "\n".join(lines)
