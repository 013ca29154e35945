"""The bot sandbox itself: runtimes start in it, its settings, its socket check, and
nothing a bot started outlives a referee killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import arena.bots.confinement.cgroups as cgroups
import arena.bots.confinement.sandbox as sandbox_module
import arena.league.running.runner as runner
from arena.bots.confinement.sandbox import (
    SLOT_UID_BASE,
    Sandbox,
    SandboxLimits,
    Slot,
    kill_user,
    sandbox_problem,
    trusted_socket,
    wrap,
)
from arena.bots.process import BotProcess, command_argv
from arena.errors import ConfigError, SandboxError
from arena.league.definition.config import load_league
from tests.support.bot_processes import bot_processes, bot_processes_left

pytestmark = [pytest.mark.sandbox]

REPO = Path(__file__).resolve().parents[2]
JS_BOT = REPO / "sample_bots" / "js_bot"


@pytest.fixture(scope="module", autouse=True)
def _sandbox_available() -> None:
    assert sandbox_problem() is None, f"these tests need the sandbox: {sandbox_problem()}"


def run_sandboxed(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    slot = Slot()
    try:
        command = wrap(argv, Sandbox(), slot, share=slot.share, cwd=cwd, variables={})
        try:
            return subprocess.run(
                command.argv, capture_output=True, timeout=120, cwd=cwd, pass_fds=command.fds
            )
        finally:
            command.close()
    finally:
        slot.release()


def test_python_node_and_jvm_runtimes_start_under_the_default_limits() -> None:
    python = run_sandboxed(
        [sys.executable, "-c", "import grpc, arena.sdk, os; print(os.getuid())"],
        REPO / "sample_bots",
    )
    assert python.returncode == 0, python.stderr.decode()
    if os.geteuid() == 0:  # its own user, never root
        assert SLOT_UID_BASE <= int(python.stdout) < SLOT_UID_BASE + 4096
    # the file argument makes js_bot/ the bot's folder (bound, and the working folder)
    code = "require('@grpc/grpc-js'); require('@grpc/proto-loader'); console.log('ok')"
    node = run_sandboxed(["node", "-e", code, str(JS_BOT / "package.json")], JS_BOT)
    assert node.returncode == 0 and b"ok" in node.stdout, node.stderr.decode()
    java = run_sandboxed(["java", "-version"], REPO)
    assert java.returncode == 0, java.stderr.decode()


def test_a_bot_named_by_a_relative_path_starts_in_its_own_folder() -> None:
    code = "import os, sys; print(os.getcwd(), open(sys.argv[1]).read(9))"
    argv = command_argv(f'python -c "{code}" sample_bots/random_bot.py', REPO)
    done = run_sandboxed(argv, REPO)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().split() == [str((REPO / "sample_bots").resolve()), '"""A', "bot"]


def test_limits_and_sandbox_mode_are_read_from_the_league_file(tmp_path) -> None:
    league = tmp_path / "l.toml"
    text = (REPO / "leagues" / "demo.toml").read_text()
    league.write_text(text.replace("[limits]", '[limits]\nsandbox = "off"\nmemory_mb = 512'))
    config = load_league(league)
    assert config.limits.sandbox == "off" and config.limits.bot.memory_mb == 512
    assert config.limits.bot.processes == SandboxLimits().processes
    league.write_text(text.replace("[limits]", '[limits]\nsandbox = "maybe"'))
    with pytest.raises(ConfigError, match="sandbox"):
        load_league(league)
    league.write_text(text.replace("[limits]", "[limits]\nopen_files = 0"))
    with pytest.raises(ConfigError, match="open_files"):
        load_league(league)


def test_cpus_is_a_number_of_cores_up_to_the_machines(tmp_path) -> None:
    league = tmp_path / "l.toml"
    text = (REPO / "leagues" / "demo.toml").read_text()
    league.write_text(text.replace("[limits]", "[limits]\ncpus = 0.5"))
    assert load_league(league).limits.bot.cpus == 0.5
    league.write_text(text)
    assert load_league(league).limits.bot.cpus == 1.0  # the default: a core per bot
    cores = os.cpu_count() or 1
    league.write_text(text.replace("[limits]", f"[limits]\ncpus = {cores}"))
    assert load_league(league).limits.bot.cpus == cores  # a whole number is a number too
    for wrong, said in ((cores + 1, "core"), (0, "cpus"), ('"two"', "cpus"), ("true", "cpus")):
        league.write_text(text.replace("[limits]", f"[limits]\ncpus = {wrong}"))
        with pytest.raises(ConfigError, match=said):
            load_league(league)


def test_a_league_without_a_sandbox_is_refused_unless_it_opts_out(tmp_path, monkeypatch):
    league = tmp_path / "l.toml"
    text = (REPO / "leagues" / "demo.toml").read_text()
    text = text.replace('"python ../', f'"python {REPO}/').replace('"node ../', f'"node {REPO}/')
    league.write_text(text)
    monkeypatch.setattr(sandbox_module, "sandbox_problem", lambda: "bwrap is missing")
    with pytest.raises(SandboxError, match='sandbox = "off"') as err:
        runner.sandbox_notice(load_league(league))
    assert "bwrap is missing" in str(err.value) and str(league) in str(err.value)
    league.write_text(text.replace("[limits]", '[limits]\nsandbox = "off"'))
    assert "resource limits only" in runner.sandbox_notice(load_league(league))


def test_a_sandbox_without_users_of_its_own_is_said_once(tmp_path, monkeypatch) -> None:
    league = tmp_path / "l.toml"
    text = (REPO / "leagues" / "demo.toml").read_text()
    league.write_text(text.replace('"python ../', f'"python {REPO}/'))
    monkeypatch.setattr(sandbox_module, "per_bot_users", lambda: True)
    assert runner.sandbox_notice(load_league(league)) is None  # bubblewrap and users: all
    monkeypatch.setattr(sandbox_module, "per_bot_users", lambda: False)
    assert "share its user id" in runner.sandbox_notice(load_league(league))


def test_without_cgroups_it_is_said_once_and_bots_run_with_the_rlimits(
    tmp_path, monkeypatch
) -> None:
    league = tmp_path / "l.toml"
    text = (REPO / "leagues" / "demo.toml").read_text()
    league.write_text(text.replace('"python ../', f'"python {REPO}/'))
    monkeypatch.setattr(sandbox_module, "per_bot_users", lambda: True)
    monkeypatch.setattr(sandbox_module, "cgroup_problem", lambda: "no cgroup v1 memory")
    said = runner.sandbox_notice(load_league(league))
    assert "no cgroup of their own here (no cgroup v1 memory)" in said
    assert "each of a bot's processes" in said
    monkeypatch.setattr(cgroups, "hierarchy", lambda: None)
    code = "import os; print(len(open('/proc/self/cgroup').read()))"
    bot = BotProcess([sys.executable, "-c", code], tmp_path / "bot.log", sandbox=Sandbox())
    try:
        bot.start()
        bot.wait_exit(20)
        assert bot.exit_description() == "exited with code 0"
        assert bot.cgroup is None and bot.cpu_seconds() is None
        assert not bot.memory_limit_hit()
    finally:
        bot.close()


def test_a_bot_runs_in_a_cgroup_of_its_own_removed_when_it_stops(tmp_path) -> None:
    if cgroups.hierarchy() is None:
        pytest.skip(f"no cgroups here: {cgroups.cgroup_problem()}")
    limits = SandboxLimits(memory_mb=300, processes=50, cpus=0.5)
    code = "import time; time.sleep(30)"
    sandbox = Sandbox(limits=limits)
    bot = BotProcess([sys.executable, "-c", code], tmp_path / "bot.log", sandbox=sandbox)
    try:
        bot.start()
        group = bot.cgroup
        assert group is not None
        for _ in range(200):  # the shell joins, then execs bwrap
            if bot.pid in group.pids():
                break
            time.sleep(0.01)
        assert bot.pid in group.pids()
        assert bot.cpu_seconds() is not None and bot.cpu_seconds() >= 0
        memory = group.folders["memory"]
        limit = "memory.max" if group.version == 2 else "memory.limit_in_bytes"
        assert int((memory / limit).read_text()) == 300 << 20
        assert (group.folders["pids"] / "pids.max").read_text().strip() == "50"
        if group.version == 1:
            assert (group.folders["cpu"] / "cpu.cfs_quota_us").read_text().strip() == "50000"
    finally:
        bot.close()
    assert not any(folder.exists() for folder in group.folders.values())
    assert bot.memory_peak_bytes is not None and 0 < bot.memory_peak_bytes <= 300 << 20


def test_the_referee_trusts_only_a_socket_of_the_bots_own_user(tmp_path) -> None:
    slot = Slot()
    share = slot.share
    private = slot.private  # on the share's filesystem (as root, the slot's own tmpfs)
    try:
        other = tmp_path / "other.sock"  # a socket of the arena's user, not the bot's
        with socket.socket(socket.AF_UNIX) as listener:
            listener.bind(str(other))
            link = share / "bot.sock"
            link.symlink_to(other)
            with pytest.raises(ValueError, match="not a socket"):
                trusted_socket(link, slot, private)
        if os.geteuid() == 0:
            link.unlink()
            with socket.socket(socket.AF_UNIX) as listener:  # a socket, but root's
                listener.bind(str(link))
                with pytest.raises(ValueError, match="not the bot's user"):
                    trusted_socket(link, slot, private)
        assert not (private / "bot.sock").exists()
    finally:
        slot.release()


def test_kill_user_refuses_the_arenas_own_user() -> None:
    with pytest.raises(ValueError, match="refusing to kill the arena's own user"):
        kill_user(os.getuid())


@pytest.mark.slow
def test_nothing_a_bot_started_outlives_a_referee_killed_with_sigkill(tmp_path) -> None:
    scripted = REPO / "tests" / "bot_scripts" / "scripted_bot.py"
    command = [
        sys.executable,
        "-m",
        "arena.cli",
        "play",
        "--game",
        "trix",
        f"python {scripted} --fault spawn --at 2 --pidfile /tmp/grandchild.pid",
        f"python {REPO / 'sample_bots' / 'random_bot.py'}",
        "builtin:random",
        "builtin:first",
        "--games",
        "50",
        "--move-timeout",
        "5",
        "--logs",
        str(tmp_path / "logs"),
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()  # a game finished: the bots are up and spawned
        assert first.startswith(b"game 1"), first
        running = bot_processes()
        assert len(running) >= 3, f"the two bots and the grandchild should run: {running}"
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    left = bot_processes_left()
    assert left == [], f"processes of started bots outlived the referee: {left}"


def _zombie_children() -> list[int]:
    me = str(os.getpid())
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                fields = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] == "Z" and fields[1] == me:
                found.append(int(entry.name))
    return found


def test_a_sandboxed_bot_that_keeps_crashing_leaves_no_zombies(tmp_path) -> None:
    """Each time a sandboxed bot exits by itself, an orphaned bwrap comes back to the
    referee (the subreaper); unreaped, a long league would run out of process ids."""
    from arena.bots.confinement.sandbox import Sandbox
    from arena.bots.remote.settings import RemoteSettings
    from arena.bots.spec import started_players
    from arena.games import get_game
    from arena.play.referee import play_game

    game = get_game("trix")
    options = game.parse_options({"kingdoms": "1"})
    specs = [f"python {REPO / 'tests/bot_scripts/hostile/exit_bot.py'}"] + ["builtin:random"] * 3
    settings = RemoteSettings(move_timeout=2.0)
    before = set(_zombie_children())
    with started_players(
        specs,
        "trix",
        game.options_dict(options),
        settings=settings,
        log_dir=tmp_path,
        sandbox=Sandbox(),
    ) as players:
        for i in range(3):  # the bot crashes and is restarted in every game
            faults = play_game(game, players, f"zombies-{i}", options).faults
            assert [f.kind for f in faults][:1] == ["crash"]
            assert set(_zombie_children()) - before == set()
    assert set(_zombie_children()) - before == set()
