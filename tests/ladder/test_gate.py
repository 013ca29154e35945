"""The ladder's gate: a version is started, checked (check-bot) and made to play a
seat-rotated match against copies of itself before it may play rated; the first step
that fails refuses it with the whole report, and a gate that hangs is ended at its
timeout with everything it started, and tried again at most twice."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

import arena.ladder.gate as gate
from arena.bots.confinement.sandbox import SandboxMode
from arena.errors import ConfigError
from arena.games import get_game
from arena.ladder.gate import STEPS, GateReport, GateSettings, GateStep, run_gate
from arena.league.definition.config import LeagueConfig, Limits, RateBy, Ratings
from arena.league.definition.schedule import Schedule
from arena.play.matches import Rotations
from tests.support.bot_processes import marked_processes

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED = ROOT / "tests" / "bot_scripts" / "scripted_bot.py"
RANDOM_BOT = ROOT / "sample_bots" / "random_bot.py"

CRASHES_AT_START = """
print("crash-bot: about to fail", flush=True)
raise RuntimeError("this bot crashes on purpose before it listens")
"""

# Plays its first game cleanly (all check-bot asks of it), then answers one illegal card
# in each later game its process plays: only the validation match's later rotations.
FAULTS_AFTER_ONE_GAME = """
from arena.sdk import Bot, serve


class Later(Bot):
    name = "later"

    def __init__(self):
        self.ended = 0
        self.faulted = 0

    def act(self, turn):
        if self.ended > self.faulted:
            self.faulted = self.ended
            return "ZZ"
        return turn.legal[0]

    def on_game_end(self, totals, ranks, game):
        self.ended += 1


serve(Later())
"""

# Leaves a double-forked grandchild behind (its pid in a file of PIDS), then never
# listens: the gate's start waits for it until the gate's timeout ends the try.
HANGS_AT_START = """
import os, subprocess, sys, time

os.environ["GATE_TEST_MARK"] = sys.argv[1]  # the grandchild inherits it
pidfile = os.path.join(sys.argv[2], f"{os.getpid()}.pid")
subprocess.run(["sh", "-c", 'setsid sleep 600 >/dev/null 2>&1 & echo $! > "$0"', pidfile])
time.sleep(600)
"""

# Answers every decision in time, but slowly: check-bot's game takes minutes.
SLOW_AT_DECISIONS = """
import time

from arena.sdk import Bot, serve


class Slow(Bot):
    name = "slow"

    def act(self, turn):
        time.sleep(0.3)
        return turn.legal[0]


serve(Slow())
"""


def _config(tmp_path: Path, *, sandbox: str = "off", **limits) -> LeagueConfig:
    """A ladder's league settings: Trix with one kingdom (a short validation match)."""
    rules = {"kingdoms": 1}
    return LeagueConfig(
        path=tmp_path / "ladder.toml",
        name="ladder",
        game="trix",
        seed="1",
        schedule=Schedule.ROUND_ROBIN,
        rounds=1,
        matches=0,
        candidates=(),
        rotations=Rotations.CYCLIC,
        rate_by=RateBy.MARGIN,
        forfeit_faults=1,
        rules=rules,
        limits=Limits(sandbox=SandboxMode(sandbox), **limits),
        ratings=Ratings(),
        entrants=(),
        options=get_game("trix").parse_options(rules),
    )


def _version(tmp_path: Path, source: str | Path, name: str = "bot.py") -> Path:
    """A version's unpacked folder holding one bot file."""
    folder = tmp_path / "versions" / "v1"
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(source, Path):
        shutil.copy(source, folder / name)
    else:
        (folder / name).write_text(source)
    return folder


def _gate(tmp_path: Path, command: str, folder: Path, config: LeagueConfig, **settings):
    return run_gate(
        command,
        folder,
        config,
        settings=GateSettings(**settings),
        log_dir=tmp_path / "logs",
        name="tester",
    )


def _left(mark: str) -> list[int]:
    """Live processes holding `mark`, after a bounded wait for the kills to land."""
    for _ in range(100):
        left = [p.pid for p in marked_processes(mark)]
        if not left:
            return []
        time.sleep(0.05)
    return left


def _own_temporary_folder(factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary folder for the gate's tries alone (they are new processes: they read
    TMPDIR), so a test can see what an ended try left behind in it. Outside the test's
    tmp_path: what holds that path in its environment counts as a process left behind."""
    folder = factory.mktemp("tmp")
    monkeypatch.setenv("TMPDIR", str(folder))
    return folder


def _end_marked(mark: str) -> None:
    for proc in marked_processes(mark):
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def test_a_good_bot_passes_every_step_from_its_own_folder(tmp_path) -> None:
    folder = _version(tmp_path, RANDOM_BOT)
    report = _gate(tmp_path, "python bot.py", folder, _config(tmp_path))  # relative: its folder
    assert report.passed and report.tries == 1, report.text
    assert [(s.name, s.passed) for s in report.steps] == [(s, True) for s in STEPS]
    assert report.failed_step == "" and not report.timed_out and not report.error
    assert "verdict: PASSED on try 1 of 3" in report.text
    assert "verdict: PASS" in report.text and "decision kinds all" in report.text  # check-bot's
    assert "with the bot in all 4 seats" in report.text and "faults: none" in report.text
    assert _left(str(tmp_path)) == []


@pytest.mark.sandbox
def test_a_good_bot_passes_sandboxed_as_the_ladder_runs_it(tmp_path) -> None:
    folder = _version(tmp_path, RANDOM_BOT)
    report = _gate(tmp_path, "python bot.py", folder, _config(tmp_path, sandbox="on"))
    assert report.passed and report.tries == 1, report.text
    assert [s.name for s in report.steps] == list(STEPS)


def test_a_bot_that_crashes_at_start_is_refused_at_start_with_its_log(tmp_path) -> None:
    folder = _version(tmp_path, CRASHES_AT_START)
    report = _gate(tmp_path, "python bot.py", folder, _config(tmp_path))
    assert not report.passed and report.tries == 1  # a verdict: never tried again
    assert report.failed_step == "start" and [s.name for s in report.steps] == ["start"]
    assert not report.timed_out and not report.error
    assert "verdict: REFUSED at start (try 1 of 3)" in report.text
    assert "this bot crashes on purpose" in report.text  # the log's last lines
    assert "[check-bot] not run" in report.text and "[validation] not run" in report.text
    log = next(w for w in report.text.split() if w.endswith(".log"))
    assert Path(log.rstrip(";")).is_file()


def test_a_bot_that_answers_illegally_is_refused_at_check_bot(tmp_path) -> None:
    folder = _version(tmp_path, SCRIPTED)
    report = _gate(tmp_path, "python bot.py --fault illegal", folder, _config(tmp_path))
    assert not report.passed and report.tries == 1, report.text
    assert [(s.name, s.passed) for s in report.steps] == [("start", True), ("check-bot", False)]
    assert "verdict: REFUSED at check-bot (try 1 of 3)" in report.text
    assert "faults: illegal x1" in report.text
    assert " decision 3: illegal: " in report.text and "; log: " in report.text
    assert "[validation] not run" in report.text


def test_a_bot_that_faults_only_against_its_copies_is_refused_at_validation(tmp_path) -> None:
    folder = _version(tmp_path, FAULTS_AFTER_ONE_GAME)
    report = _gate(tmp_path, "python bot.py", folder, _config(tmp_path))
    assert not report.passed and report.failed_step == "validation", report.text
    assert [s.passed for s in report.steps] == [True, True, False]
    validation = report.steps[-1].detail
    assert "faults: " in validation and ": illegal: " in validation
    assert "tester#2 in seat" in validation or "tester in seat" in validation
    assert "verdict: REFUSED at validation (try 1 of 3)" in report.text


@pytest.mark.slow
def test_a_gate_that_hangs_is_ended_at_its_timeout_three_times_with_all_it_started(
    tmp_path, tmp_path_factory, monkeypatch
) -> None:
    mark = str(tmp_path)
    temporary = _own_temporary_folder(tmp_path_factory, monkeypatch)
    pids = tmp_path / "pids"
    pids.mkdir()
    folder = _version(tmp_path, HANGS_AT_START)
    config = _config(tmp_path, startup_timeout=60.0)  # the start alone outlasts the gate
    try:
        started = time.monotonic()
        report = _gate(tmp_path, f"python bot.py {mark} {pids}", folder, config, timeout=2.5)
        took = time.monotonic() - started
        assert not report.passed and report.timed_out and report.tries == 3, report.text
        assert took < 60  # never the bot's own 60 s startup timeout, let alone 3 of them
        assert report.failed_step == "start"
        assert "all 3 tries timed out" in report.text
        assert report.text.count("timed out after 2.5 s during start") == 3
        assert len(list(pids.glob("*.pid"))) == 3  # each try started the bot, and its grandchild
        assert _left(mark) == []  # the bots and their double-forked grandchildren, all ended
        assert list(temporary.iterdir()) == []  # and no try left its bot's socket folder
    finally:
        _end_marked(mark)


@pytest.mark.slow
def test_a_bot_too_slow_to_finish_is_ended_mid_check_and_not_retried_past_the_setting(
    tmp_path, tmp_path_factory, monkeypatch
) -> None:
    temporary = _own_temporary_folder(tmp_path_factory, monkeypatch)
    folder = _version(tmp_path, SLOW_AT_DECISIONS)
    try:
        report = _gate(tmp_path, "python bot.py", folder, _config(tmp_path), timeout=3.0, retries=0)
        assert not report.passed and report.timed_out and report.tries == 1, report.text
        assert [(s.name, s.passed) for s in report.steps] == [("start", True), ("check-bot", False)]
        assert "timed out after 3 s during check-bot (steps done: start ok)" in report.text
        assert "its one try timed out" in report.text
        assert "the bot's logs of that try: " in report.steps[-1].detail
        assert _left(str(tmp_path)) == []
        assert list(temporary.iterdir()) == []  # the ended try removed its socket folders
    finally:
        _end_marked(str(tmp_path))


def _deaf(mark: str) -> None:
    """A try's process stuck where SIGTERM does nothing, with a process of its own in a
    session of its own (as every bot is)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.environ["GATE_TEST_MARK"] = mark
    subprocess.Popen(["sleep", "600"], start_new_session=True)
    time.sleep(600)


def test_a_try_deaf_to_sigterm_is_killed_with_everything_below_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(gate, "END_GRACE", 0.5)
    mark = str(tmp_path)
    process = multiprocessing.get_context("spawn").Process(target=_deaf, args=(mark,))
    process.start()
    pid = process.pid
    try:
        for _ in range(400):  # bounded: its child is there within seconds
            if marked_processes(mark):
                break
            time.sleep(0.05)
        assert marked_processes(mark), "the deaf process never started its child"
        assert gate._end_try(process, at_once=True) == -signal.SIGKILL
        assert _left(mark) == []
    finally:
        _end_marked(mark)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_built_in_bot_is_not_gated() -> None:
    with pytest.raises(ConfigError, match="built-in bot"):
        run_gate(
            "builtin:random",
            Path("."),
            _config(Path(".")),
            settings=GateSettings(),
            log_dir=Path("logs"),
            name="x",
        )


def test_the_report_round_trips_through_json(tmp_path) -> None:
    report = GateReport(
        passed=False,
        tries=2,
        steps=(GateStep("start", True, "ok"), GateStep("check-bot", False, "faults:\n  - x")),
        text="gate for x: ...\nverdict: REFUSED at check-bot (try 2 of 3)",
        timed_out=False,
        error="",
        log_dir=str(tmp_path),
    )
    stored = json.dumps(report.to_json())
    assert GateReport.from_json(json.loads(stored)) == report
    assert GateReport.from_json({"passed": True, "tries": 1}).steps == ()  # older rows


def test_a_refusals_reason_cuts_a_long_report_at_a_word_and_points_at_the_whole() -> None:
    from arena.ladder.gate import GateReport, GateStep
    from arena.ladder.runner import REASON_DETAIL_CHARS, _first_failure

    log = "/tmp/logs/arena-spring/run-20261207-053636-8644/gate/try-1/preflight-000.log"
    long = "it could not start: " + "bot 'python bot.py' exited at once; " * 8 + f"its log: {log}"
    steps = (GateStep("start", False, long), GateStep("check-bot", False, "not run"))
    reason = _first_failure(GateReport(False, 1, steps, text=long), "crs")
    assert reason.startswith("refused by the gate at start: it could not start: bot")
    assert reason.endswith("... (the whole report: arena ladder versions --bot crs)")
    quoted = reason.removeprefix("refused by the gate at start: ").split(" ... ")[0]
    assert len(quoted) <= REASON_DETAIL_CHARS and long.startswith(quoted)
    assert long[len(quoted)] == " "  # cut between words, never inside the log's path
    short = (GateStep("check-bot", False, "illegal:\n  answered ZZ"),)
    assert _first_failure(GateReport(False, 1, short, text=""), "x") == (
        "refused by the gate at check-bot: illegal: answered ZZ"
    )
