"""The hostile bot suite (tests/bot_scripts/hostile/): every bad behaviour, sandboxed, contained.

Each bot plays one Trix game in seat 0, sandboxed, beside a sandboxed sample bot and
two built-in bots. For every one the test checks: the fault it should cause is
recorded (and no other seat is faulted), the game completes, no process of any bot
is left, and the host's files are untouched. A bot stopped by a limit (memory, files,
/tmp) fails its decision with the error, a crash; the bot's own report in its log
shows where the sandbox stopped it. Reading host files and connecting out simply fail
inside the sandbox, so those bots play on unfaulted: nothing reaches the referee.
"""

from __future__ import annotations

import hashlib
import os
import socket
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from arena.bots.confinement.sandbox import Sandbox, SandboxLimits, key_users, sandbox_problem
from arena.bots.process import LOG_CAP_BYTES, BotProcess, command_argv, descendants
from arena.bots.remote.player import RemotePlayer
from arena.bots.remote.settings import RemoteSettings
from arena.bots.spec import started_players
from arena.games import get_game, trix
from arena.play.referee import RefereeSettings, play_game
from tests.support.bot_processes import bot_processes_left

pytestmark = [pytest.mark.sandbox]

HOSTILE = Path(__file__).resolve().parents[1] / "bot_scripts" / "hostile"
SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
GAME = get_game("trix")
ONE_KINGDOM = trix.parse_options({"kingdoms": 1})
SETTINGS = RemoteSettings(move_timeout=0.5, startup_timeout=10.0)
SHORT_START = RemoteSettings(move_timeout=0.5, startup_timeout=3.0)  # for the silent bot
LIMITS = SandboxLimits(memory_mb=256)  # the defaults, with less memory to fill quickly
MEMORY_SETTINGS = RemoteSettings(move_timeout=20.0, startup_timeout=10.0)  # near its
# memory limit a bot is slowed by the kernel's reclaim: the limit is tested, not speed


@pytest.fixture(scope="module", autouse=True)
def _sandbox_available() -> None:
    problem = sandbox_problem()
    assert problem is None, f"the hostile suite needs the sandbox: {problem}"


class Host:
    """What the bots must not touch or reach: files with known hashes, a loopback TCP
    listener and a unix socket that count every connection."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir()
        self.db = folder / "league.db"
        with sqlite3.connect(self.db) as db:
            db.execute("CREATE TABLE results (secret TEXT)")
            db.execute("INSERT INTO results VALUES ('every hand of every deal')")
        self.files = [self.db, SAMPLE_BOTS / "random_bot.py"]
        self.hashes = self._hash()
        self.connections = 0
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.port = self.tcp.getsockname()[1]
        self.unix_path = folder / "victim.sock"
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(str(self.unix_path))
        self.unix.listen()
        self._stop = False
        self._threads = [
            threading.Thread(target=self._count, args=(s,), daemon=True)
            for s in (self.tcp, self.unix)
        ]
        for thread in self._threads:
            thread.start()

    def _hash(self) -> list[str]:
        return [hashlib.sha256(p.read_bytes()).hexdigest() for p in self.files]

    def _count(self, server: socket.socket) -> None:
        server.settimeout(0.1)
        while not self._stop:
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def untouched(self) -> bool:
        return self._hash() == self.hashes and self.connections == 0

    def close(self) -> None:
        self._stop = True
        for thread in self._threads:
            thread.join(timeout=2)
        self.tcp.close()
        self.unix.close()


@pytest.fixture
def host(tmp_path):
    found = Host(tmp_path / "host")
    yield found
    found.close()


def play_hostile(
    bot: str, host: Host, tmp_path: Path, *args: str, settings=SETTINGS, limits=LIMITS
):
    """One sandboxed game with the hostile `bot` in seat 0; the result and its log."""
    specs = [
        f"python {HOSTILE / bot} {' '.join(args)}".strip(),
        "builtin:first",
        f"python {SAMPLE_BOTS / 'random_bot.py'}",
        "builtin:random",
    ]
    logs = tmp_path / "logs"
    sandbox = Sandbox(limits=limits, hidden=(host.db,))
    before = frozenset(descendants(os.getpid()))  # e.g. multiprocessing's resource tracker
    with started_players(
        specs,
        "trix",
        GAME.options_dict(ONE_KINGDOM),
        settings=settings,
        log_dir=logs,
        tolerate_start_failures=True,
        sandbox=sandbox,
    ) as players:
        result = play_game(
            GAME, players, "hostile", ONE_KINGDOM, settings=RefereeSettings(max_faults=3)
        )
        result.before = before  # type: ignore[attr-defined]
        result.slot_users = {  # type: ignore[attr-defined]
            p.process.slot.uid
            for p in players
            if isinstance(p, RemotePlayer) and p.process is not None and p.process.slot
        }
        seat0 = players[0].process if isinstance(players[0], RemotePlayer) else None
        result.share = seat0.slot.share if seat0 and seat0.slot else None  # type: ignore[attr-defined]
    result.seat0 = seat0  # type: ignore[attr-defined]  # stopped: its memory peak is known
    log = next(logs.glob("seat0-*.log"), None)
    return result, (log.read_text(errors="replace") if log else "")


def _assert_contained(result, host: Host) -> None:
    assert len(result.replay["deals"]) == 5, "the game did not complete"
    assert [f for f in result.faults if f.seat != 0] == [], "another seat was faulted"
    left = bot_processes_left(result.slot_users, result.before)
    assert left == [], f"a bot process outlived its match: {left}"
    assert host.untouched(), "a host file changed or a host socket was reached"
    for folder in ("/tmp", "/dev/shm"):
        assert not (Path(folder) / "arena-hostile-fill").exists()


FAULTING = {
    "hang_bot.py": "timeout",
    "late_bot.py": "timeout",
    "spin_bot.py": "timeout",
    "exit_bot.py": "crash",
    "silent_bot.py": "start-failure",
    "illegal_bot.py": "illegal",
    "huge_bot.py": "oversize",
    "garbage_bot.py": "protocol",
}


@pytest.mark.slow
@pytest.mark.parametrize("bot", sorted(FAULTING))
def test_a_hostile_bot_is_faulted_and_contained(bot, host, tmp_path) -> None:
    settings = SHORT_START if bot == "silent_bot.py" else SETTINGS
    result, _ = play_hostile(bot, host, tmp_path, settings=settings)
    kinds = {f.kind for f in result.faults if f.seat == 0}
    assert kinds == {FAULTING[bot]}, [f.as_dict() for f in result.faults]
    _assert_contained(result, host)


def test_a_bot_that_links_its_socket_to_another_bots_is_refused(host, tmp_path) -> None:
    result, log = play_hostile("swap_bot.py", host, tmp_path, str(host.unix_path))
    assert "linked" in log, log[-500:]
    faults = [f for f in result.faults if f.seat == 0]
    assert {f.kind for f in faults} == {"start-failure"}
    assert "untrusted socket" in faults[0].detail
    _assert_contained(result, host)


def test_a_bot_that_swaps_its_socket_mid_game_reaches_no_one(host, tmp_path) -> None:
    result, log = play_hostile("midswap_bot.py", host, tmp_path, str(host.unix_path))
    assert "swapped" in log, log[-500:]
    assert {f.kind for f in result.faults if f.seat == 0} == {"crash"}
    _assert_contained(result, host)


def _reported(log: str, prefix: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith(f"HOSTILE {prefix}")]


def test_a_fork_bomb_is_stopped_and_ended_with_the_match(host, tmp_path) -> None:
    result, log = play_hostile("forkbomb_bot.py", host, tmp_path)
    stopped = _reported(log, "fork stopped after")
    assert stopped and int(stopped[0].split()[4]) < LIMITS.processes, log[-500:]
    # the bomb starves the bot's own threads: it may fail to start or to answer
    assert {f.kind for f in result.faults if f.seat == 0} <= {"start-failure", "timeout", "crash"}
    _assert_contained(result, host)


@pytest.mark.slow
def test_unbounded_heap_is_stopped_by_the_memory_limit(host, tmp_path) -> None:
    result, log = play_hostile("heap_bot.py", host, tmp_path, settings=MEMORY_SETTINGS)
    faults = [f for f in result.faults if f.seat == 0]
    assert {f.kind for f in faults} == {"crash"}, [f.as_dict() for f in faults]
    # the per-process data limit raises MemoryError (reported), unless the bot's
    # limit as a whole (its cgroup: the same memory_mb) ended it first
    stopped = _reported(log, "heap stopped at")
    assert stopped or "memory limit" in faults[0].detail, log[-500:]
    assert all(int(line.split()[4]) <= LIMITS.memory_mb for line in stopped), log[-500:]
    _assert_contained(result, host)


@pytest.mark.slow
def test_dev_shm_and_tmp_are_small_and_private(host, tmp_path) -> None:
    result, log = play_hostile("shm_bot.py", host, tmp_path, settings=MEMORY_SETTINGS)
    for folder in ("/dev/shm", "/tmp"):
        stopped = _reported(log, f"{folder} stopped at")
        assert stopped and int(stopped[0].split()[4]) <= LIMITS.tmp_mb, log[-500:]
    assert {f.kind for f in result.faults if f.seat == 0} == {"crash"}  # the error it raised
    _assert_contained(result, host)


def test_open_files_are_limited(host, tmp_path) -> None:
    result, log = play_hostile("files_bot.py", host, tmp_path)
    stopped = _reported(log, "open stopped at")
    assert stopped and int(stopped[0].split()[4]) < LIMITS.open_files, log[-500:]
    assert {f.kind for f in result.faults if f.seat == 0} == {"crash"}  # the error it raised
    _assert_contained(result, host)


def test_a_flood_of_output_is_capped_in_the_log(host, tmp_path) -> None:
    result, _ = play_hostile("flood_bot.py", host, tmp_path)
    log = next((tmp_path / "logs").glob("seat0-*.log"))
    assert LOG_CAP_BYTES <= log.stat().st_size <= LOG_CAP_BYTES + 200
    assert [f for f in result.faults if f.seat == 0] == []
    _assert_contained(result, host)


def test_host_files_and_other_bots_folders_cannot_be_read(host, tmp_path) -> None:
    repo = Path(__file__).resolve().parents[2]
    targets = [
        host.db,
        SAMPLE_BOTS,
        SAMPLE_BOTS / "random_bot.py",
        repo / "leagues",
        repo / "pyproject.toml",
        repo / ".git",
        tmp_path,
        Path("/etc/shadow"),
    ]
    result, log = play_hostile("snoop_bot.py", host, tmp_path, *map(str, targets))
    assert _reported(log, "SAW") == [], log[-2000:]
    assert len(_reported(log, "blocked")) == len(targets), log[-2000:]
    assert [f for f in result.faults if f.seat == 0] == []
    _assert_contained(result, host)


def test_no_network_loopback_or_outside(host, tmp_path) -> None:
    result, log = play_hostile("net_bot.py", host, tmp_path, str(host.port))
    assert _reported(log, "CONNECTED") == [], log[-1000:]
    assert len(_reported(log, "blocked")) == 3, log[-1000:]
    assert [f for f in result.faults if f.seat == 0] == []
    _assert_contained(result, host)


HOARD_MB = 128  # per child, six children: 768 MB in all without a limit per bot


@pytest.mark.slow
@pytest.mark.parametrize("bot", ["fork_hoard_bot.py", "shared_hoard_bot.py", "memfd_hoard_bot.py"])
def test_memory_hoarded_by_many_processes_is_bounded_for_the_bot_as_a_whole(
    bot, host, tmp_path
) -> None:
    result, log = play_hostile(bot, host, tmp_path, str(HOARD_MB), settings=MEMORY_SETTINGS)
    held = _reported(log, "hoard held")  # none when the limit ended the bot's main process
    assert all(int(line.split()[3]) <= LIMITS.memory_mb for line in held), log[-1000:]
    faults = [f for f in result.faults if f.seat == 0]
    assert {f.kind for f in faults} == {"crash"}, [f.as_dict() for f in faults]
    assert "memory limit" in faults[0].detail and "memory_mb = 256" in faults[0].detail
    peak = result.seat0.memory_peak_bytes
    assert peak is not None and peak <= LIMITS.memory_mb << 20, peak
    _assert_contained(result, host)


def test_a_user_namespace_of_its_own_is_denied_and_the_game_goes_on(host, tmp_path) -> None:
    result, log = play_hostile("userns_tmpfs_bot.py", host, tmp_path, "768")
    assert _reported(log, "userns denied: Operation not permitted"), log[-1000:]
    assert [f for f in result.faults if f.seat == 0] == []
    _assert_contained(result, host)


def test_kernel_keys_are_denied_and_a_slot_user_is_left_clean(host, tmp_path) -> None:
    result, log = play_hostile("keyring_bot.py", host, tmp_path)
    for call in ("add_key", "keyctl", "request_key"):
        assert _reported(log, f"key {call} denied: Operation not permitted"), log[-1000:]
    assert _reported(log, "sysv shm made"), log[-1000:]  # in its own IPC namespace
    assert [f for f in result.faults if f.seat == 0] == []
    assert not result.slot_users & key_users()
    for kind in ("shm", "msg", "sem"):  # nothing of the bot's users in the host's IPC
        lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        owners = {int(line.split()[7 if kind == "shm" else 4]) for line in lines}
        assert not result.slot_users & owners, lines
    _assert_contained(result, host)


def test_the_socket_folder_holds_the_socket_and_little_else(host, tmp_path) -> None:
    result, log = play_hostile("share_fill_bot.py", host, tmp_path)
    stopped = _reported(log, "share stopped at")
    assert stopped and int(stopped[0].split()[4]) <= 64, log[-500:]
    assert {f.kind for f in result.faults if f.seat == 0} == {"crash"}  # the error it raised
    assert result.share is not None and not result.share.exists()  # unmounted and gone
    _assert_contained(result, host)


def test_process_1_of_the_sandbox_shows_no_bound_path(host, tmp_path) -> None:
    result, log = play_hostile("cmdline_bot.py", host, tmp_path)
    seen = _reported(log, "pid1")
    assert seen, log[-1000:]
    line = seen[0]
    for shown in (
        "--bind",
        "--ro-bind",
        "--setenv",
        "arena-slots",
        "/etc",
        str(host.db),
        str(tmp_path),
    ):
        assert shown not in line, line
    assert "--args" in line  # bubblewrap read its options from a descriptor it closed
    assert _reported(log, "fds ['0', '1', '2'"), log[-1000:]
    assert [f for f in result.faults if f.seat == 0] == []
    _assert_contained(result, host)


@pytest.mark.slow
def test_spinning_children_are_held_to_the_bots_cpu_quota(tmp_path) -> None:
    limits = SandboxLimits(memory_mb=256, cpus=1.0)
    argv = command_argv(f"python {HOSTILE / 'spin_children_bot.py'} 30")
    bot = BotProcess(argv, tmp_path / "spin.log", sandbox=Sandbox(limits=limits))
    try:
        bot.start()
        for _ in range(500):  # until the spinners run (bounded: 10 s)
            log = tmp_path / "spin.log"
            if log.exists() and "HOSTILE spinning" in log.read_text(errors="replace"):
                break
            time.sleep(0.02)
        first, start = bot.cpu_seconds(), time.monotonic()
        time.sleep(2.0)
        last, wall = bot.cpu_seconds(), time.monotonic() - start
        assert first is not None and last is not None
        cores = (last - first) / wall  # unbounded: every core of the machine
        assert cores <= limits.cpus * 1.5, cores
    finally:
        bot.close()
    assert bot.cpu_seconds() is None  # its cgroup is gone with it


def test_the_hostile_suite_has_a_bot_per_behaviour() -> None:
    bots = sorted(p.name for p in HOSTILE.glob("*_bot.py"))
    assert len(bots) >= 15
    tested = set(FAULTING) | {
        "swap_bot.py",
        "midswap_bot.py",
        "forkbomb_bot.py",
        "heap_bot.py",
        "shm_bot.py",
        "files_bot.py",
        "flood_bot.py",
        "snoop_bot.py",
        "net_bot.py",
        "fork_hoard_bot.py",
        "shared_hoard_bot.py",
        "memfd_hoard_bot.py",
        "kept_hoard_bot.py",  # tests/bots/test_entrant_memory.py
        "userns_tmpfs_bot.py",
        "keyring_bot.py",
        "share_fill_bot.py",
        "cmdline_bot.py",
        "spin_children_bot.py",
        "spy_bot.py",  # tests/games/test_information_hiding.py
        "seed_guess_bot.py",
        "deal_memory_bot.py",  # tests/games/test_fair_deals.py
        "timing_probe_bot.py",  # tests/play/test_timing_leaks.py
    }
    assert set(bots) == tested
