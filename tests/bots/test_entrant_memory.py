"""Memory in all: an entrant's processes together (`entrant_memory_mb`) and all the
grouped bots of a run (`bots_memory_mb`) are held by cgroups above each bot's own, so
hoarding entrants end only their own processes, and the referee lives."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import arena.bots.confinement.cgroups as cgroups
from arena.bots.confinement.sandbox import (
    Sandbox,
    SandboxLimits,
    machine_memory_mb,
    sandbox_problem,
)
from arena.bots.process import BotProcess
from arena.errors import ConfigError
from arena.league.definition.config import load_league

REPO = Path(__file__).resolve().parents[2]
HOARD = REPO / "tests" / "bot_scripts" / "hostile" / "kept_hoard_bot.py"
CALM = REPO / "sample_bots" / "random_bot.py"

LEAGUE = """\
[league]
name = "hoarders"
game = "trix"
seed = 1
schedule = "round-robin"
rounds = 2
rotations = "cyclic"

[rules]
kingdoms = 1

[limits]
move_timeout = 20.0
startup_timeout = 20.0
{limits}

[[entrant]]
name = "hoard-a"
bot = "python {hoard} {size} 1"

[[entrant]]
name = "hoard-b"
bot = "python {hoard} {size} 1"

[[entrant]]
name = "calm-a"
bot = "python {calm}"

[[entrant]]
name = "calm-b"
bot = "python {calm}"
"""


def league_file(tmp_path: Path, limits: str, size: int = 100) -> Path:
    path = tmp_path / "league.toml"
    path.write_text(LEAGUE.format(limits=limits, hoard=HOARD, calm=CALM, size=size))
    return path


# -- the [limits] keys ------------------------------------------------------------------


def test_the_defaults_follow_memory_mb_and_the_machine(tmp_path) -> None:
    bot = load_league(league_file(tmp_path, "memory_mb = 300")).limits.bot
    assert (bot.entrant_memory_mb, bot.bots_memory_mb) == (0, 0)  # 0: the default
    assert bot.entrant_memory() == 600  # two slots' worth
    machine = machine_memory_mb()
    assert bot.bots_memory() == max(machine // 2, 600)
    assert SandboxLimits(memory_mb=256).entrant_memory() == 512


def test_given_limits_are_kept(tmp_path) -> None:
    text = "memory_mb = 256\nentrant_memory_mb = 400\nbots_memory_mb = 900"
    bot = load_league(league_file(tmp_path, text)).limits.bot
    assert (bot.entrant_memory(), bot.bots_memory()) == (400, 900)


@pytest.mark.parametrize(
    ("limits", "said"),
    [
        ("entrant_memory_mb = 0", "entrant_memory_mb must be a whole number >= 1; got 0"),
        ("entrant_memory_mb = -5", "entrant_memory_mb must be a whole number >= 1"),
        ('entrant_memory_mb = "lots"', "entrant_memory_mb must be a whole number"),
        ("entrant_memory_mb = 1.5", "entrant_memory_mb must be a whole number"),
        ("bots_memory_mb = true", "bots_memory_mb must be a whole number"),
        ("bots_memory_mb = 0", "bots_memory_mb must be a whole number >= 1"),
        (
            "memory_mb = 256\nentrant_memory_mb = 100",
            "entrant_memory_mb must be at least memory_mb, 256",
        ),
        (
            "entrant_memory_mb = 100",
            r"entrant_memory_mb must be at least memory_mb \(the default\), 1024",
        ),
        (
            "memory_mb = 256\nentrant_memory_mb = 400\nbots_memory_mb = 300",
            "bots_memory_mb must be at least entrant_memory_mb, 400",
        ),
        (
            "memory_mb = 256\nbots_memory_mb = 300",
            r"bots_memory_mb must be at least entrant_memory_mb \(the default\), 512",
        ),
        (f"bots_memory_mb = {1 << 40}", "bots_memory_mb must be at most"),
    ],
)
def test_wrong_limits_are_refused_naming_file_table_and_key(tmp_path, limits, said) -> None:
    path = league_file(tmp_path, limits)
    with pytest.raises(ConfigError, match=said) as err:
        load_league(path)
    assert str(err.value).startswith(f"{path}: [limits] ")


def test_a_limit_above_the_machines_memory_is_refused(tmp_path) -> None:
    machine = machine_memory_mb()
    if not machine:
        pytest.skip("this machine does not say how much memory it has")
    for key in ("entrant_memory_mb", "bots_memory_mb"):
        with pytest.raises(ConfigError, match=f"{key} must be at most {machine}, this machine's"):
            load_league(league_file(tmp_path, f"{key} = {machine + 1}"))


@settings(max_examples=30, deadline=None)
@given(memory=st.integers(1, 2048), extra=st.integers(0, 4096), more=st.integers(0, 4096))
def test_any_nested_limits_within_the_machine_are_read_back(
    tmp_path_factory, memory: int, extra: int, more: int
) -> None:
    entrant, bots = memory + extra, memory + extra + more
    if bots > machine_memory_mb():
        return
    text = f"memory_mb = {memory}\nentrant_memory_mb = {entrant}\nbots_memory_mb = {bots}"
    bot = load_league(league_file(tmp_path_factory.mktemp("l"), text)).limits.bot
    assert (bot.memory_mb, bot.entrant_memory(), bot.bots_memory()) == (memory, entrant, bots)


# -- the cgroups --------------------------------------------------------------------------


def _needs_cgroups() -> None:
    problem = sandbox_problem()
    if problem is not None:
        pytest.skip(f"no sandbox here: {problem}")
    if cgroups.hierarchy() is None:
        pytest.skip(f"no cgroups here: {cgroups.cgroup_problem()}")


def _limit_mb(folder: Path, version: int) -> int:
    name = "memory.max" if version == 2 else "memory.limit_in_bytes"
    return int((folder / name).read_text()) >> 20


@pytest.mark.sandbox
def test_a_grouped_bot_sits_in_its_entrants_cgroup_inside_its_runs(tmp_path) -> None:
    _needs_cgroups()
    limits = SandboxLimits(memory_mb=200, entrant_memory_mb=300, bots_memory_mb=700)
    group = cgroups.entrant_group(os.getpid(), "a league\0an entrant")
    sandbox = Sandbox(limits=limits, group=group)
    code = "import time; time.sleep(30)"
    bot = BotProcess([sys.executable, "-c", code], tmp_path / "bot.log", sandbox=sandbox)
    try:
        bot.start()
        made = bot.cgroup
        assert made is not None
        adj_file = Path(f"/proc/{bot.pid}/oom_score_adj")
        wanted = str(cgroups.BOT_OOM_SCORE_ADJ)
        for _ in range(500):  # the shell joins, raises its oom_score_adj, then execs bwrap
            if bot.pid in made.pids() and adj_file.read_text().strip() == wanted:
                break
            time.sleep(0.01)
        assert bot.pid in made.pids()
        memory = made.folders["memory"]
        entrant, run = memory.parent, memory.parent.parent
        assert entrant.name == Path(group).name and run.name == cgroups.run_group(os.getpid())
        assert run.parent == cgroups.hierarchy().folders["memory"]
        v = made.version
        assert [_limit_mb(f, v) for f in (memory, entrant, run)] == [200, 300, 700]
        if v == 1:  # the slots' pages count in their entrant's and run's usage
            for folder in (entrant, run):
                assert (folder / "memory.use_hierarchy").read_text().strip() == "1"
        assert made.limits == {"memory_mb": 200, "entrant_memory_mb": 300, "bots_memory_mb": 700}
        assert adj_file.read_text().strip() == wanted  # bots first, should the machine run short
        assert Path("/proc/self/oom_score_adj").read_text().strip() != wanted  # not the referee
    finally:
        bot.close()
    assert not memory.exists() and not entrant.exists() and not run.exists()


@pytest.mark.sandbox
def test_the_kill_names_the_entrants_limit_when_that_one_was_reached(tmp_path) -> None:
    _needs_cgroups()
    group = cgroups.entrant_group(os.getpid(), "a league\0a hoarder")
    made = cgroups.BotCgroup.create(
        cgroups.cgroup_name("entrant-limit-test"),
        memory_mb=256,
        processes=50,
        cpus=1.0,
        group=group,
        entrant_memory_mb=100,
        bots_memory_mb=500,
    )
    assert made is not None
    try:  # 150 MB: under the bot's own limit, over its entrant's
        code = "b = bytearray(150 << 20)"
        done = subprocess.run(made.join_argv([sys.executable, "-c", code]), timeout=30)
        assert done.returncode == -9
        assert made.memory_limit() == ("entrant_memory_mb", 100)
    finally:
        made.remove()


def _faults(db: Path) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "faults", "--db", str(db), "--format", "json"],
        capture_output=True,
        timeout=30,
        check=True,
    )
    return json.loads(done.stdout)


def _left_cgroups(pid: int) -> list[Path]:
    """The cgroups of the run whose main process was `pid` still on the machine."""
    where = cgroups.hierarchy()
    assert where is not None
    mine = f"{cgroups.PREFIX}-{cgroups._namespace()}-{pid}-"
    return [p for folder in where.parents() for p in folder.glob(f"**/{mine}*")]


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.parametrize(
    ("limits", "named"),
    [  # each hoarder's slot holds about 120 MB; its four slots would hold some 480 MB
        ("memory_mb = 256\nentrant_memory_mb = 300\nbots_memory_mb = 4096", "entrant_memory_mb"),
        ("memory_mb = 256\nentrant_memory_mb = 500\nbots_memory_mb = 500", "bots_memory_mb"),
    ],
)
def test_several_hoarding_entrants_end_only_their_own_processes(tmp_path, limits, named) -> None:
    """Two hoarding entrants and two calm ones in one league: the hoarders' rotation
    slots, kept alive between their games, hold more than their entrant's limit (or
    all of them more than the run's); the run (the referee and the store's writer)
    ends normally, every game is stored, and the faults are the hoarders' alone."""
    _needs_cgroups()
    path = league_file(tmp_path, limits)
    db = tmp_path / "arena.db"
    command = [sys.executable, "-m", "arena.cli", "run", str(path), "--db", str(db)]
    run = subprocess.Popen(
        [*command, "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        output, _ = run.communicate(timeout=55)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(timeout=10)
    text = output.decode(errors="replace")
    assert run.returncode == 0, text[-2000:]  # the referee lived, and stored every match
    assert _left_cgroups(run.pid) == []
    faults = _faults(db)
    charged = Counter(f["entrant"] for f in faults)
    assert set(charged) <= {"hoard-a", "hoard-b"}, charged  # calm bots: no fault at all
    assert charged, "the hoarders held more than their limits and nothing was ended"
    assert all(f["kind"] == "crash" for f in faults), faults[:3]
    limited = [f for f in faults if "by its memory limit" in f["detail"]]
    assert limited, [f["detail"] for f in faults[:3]]
    assert any(f"({named} = " in f["detail"] for f in limited), limited[0]["detail"]
    with sqlite3.connect(db) as connection:
        games = connection.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert games == 8  # two matches of four rotations


@pytest.mark.sandbox
def test_a_killed_runs_nested_cgroups_are_swept_with_their_processes() -> None:
    """A run killed with SIGKILL leaves its run's folder, its entrant groups and their
    members (frozen bots take no parent-death signal); the next arena removes them, and
    inside a live run's groups only the members of dead workers."""
    _needs_cgroups()
    where = cgroups.hierarchy()
    assert where is not None
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid no process has now: a killed run's, or a killed worker's
    ns = cgroups._namespace()
    dead_run = cgroups.entrant_group(gone.pid, "a killed run\0an entrant")
    live_run = cgroups.entrant_group(os.getpid(), "a live run\0an entrant")
    sleepers = []
    try:
        for group in (dead_run, live_run):
            cgroups._make_group(where, group, 1.0, 300, 600)
            member = f"{group}/{cgroups.PREFIX}-{ns}-{gone.pid}-member"
            for parent in where.parents():
                (parent / member).mkdir()
            procs = " ".join(str(p / member / "cgroup.procs") for p in where.parents())
            script = f'for p in {procs}; do echo $$ > "$p"; done; exec sleep 60'
            sleepers.append(subprocess.Popen(["/bin/sh", "-c", script]))
        memory = where.folders["memory"]
        for _ in range(500):
            if all(
                (memory / g / f"{cgroups.PREFIX}-{ns}-{gone.pid}-member" / "cgroup.procs")
                .read_text()
                .strip()
                for g in (dead_run, live_run)
            ):
                break
            time.sleep(0.01)
        cgroups.sweep_stale()
        for sleeper in sleepers:
            assert sleeper.wait(timeout=10) == -9
        assert not (memory / Path(dead_run).parent).exists()  # the whole killed run
        assert (memory / live_run).is_dir()  # a live run's group stays, its dead member not
        assert not [p for p in (memory / live_run).iterdir() if p.is_dir()]
    finally:
        for sleeper in sleepers:
            if sleeper.poll() is None:
                sleeper.kill()
                sleeper.wait(timeout=10)
        cgroups._kill_and_remove(
            [p / Path(live_run).parent for p in where.parents() if (p / live_run).exists()]
        )
