"""arena/wire/runtime.py: every arena process picks gRPC core's I/O path before grpc
loads, and a value the user set is kept."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.wire.runtime import ARENA_DEFAULT, QUIET, QUIETED, VARIABLE, VERBOSITY
from tests.support.bot_processes import variable_seen_by_a_started_bot

SHOW = "import os\nimport arena.sdk\nprint(os.environ.get('GRPC_EXPERIMENTS', '<unset>'))\n"


def _seen(env_value: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != VARIABLE}
    if env_value is not None:
        env[VARIABLE] = env_value
    out = subprocess.run(
        [sys.executable, "-c", SHOW], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_importing_the_arena_sets_the_default_before_grpc_loads() -> None:
    assert _seen(None) == ARENA_DEFAULT


def test_a_value_the_user_set_is_kept() -> None:
    assert _seen("") == ""
    assert _seen("event_engine_client") == "event_engine_client"


def test_grpc_is_not_imported_before_the_arena_package_runs_choose() -> None:
    # The setting only works if nothing in arena/__init__ imports grpc first.
    out = subprocess.run(
        [sys.executable, "-c", "import sys, arena; print('grpc' in sys.modules)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_started_bot_gets_the_referees_setting_even_in_the_sandbox(
    sandboxed: bool, tmp_path: Path
) -> None:
    """The sandbox clears the environment; the setting (the user's, or the arena's
    default) is passed through, so bot and referee use the same gRPC I/O path."""
    assert variable_seen_by_a_started_bot(VARIABLE, tmp_path, sandboxed) == [
        "seen",
        os.environ[VARIABLE],
    ]


def test_this_grpcio_knows_the_experiments_the_arena_turns_off() -> None:
    """gRPC core prints 'Unknown experiment' for a name it does not know: a grpcio
    that dropped the iomgr path would say so in every arena process. This catches it."""
    code = (
        "import arena.sdk, grpc\n"
        "grpc.insecure_channel('unix:/nonexistent/arena.sock').close()\n"
        "print('ok')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != VARIABLE}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip() == "ok", out.stderr
    assert "Unknown experiment" not in out.stderr, out.stderr


NOISY = """
import os
import arena  # noqa: F401  (sets gRPC's environment before grpc loads)
import grpc
from concurrent import futures

channel = grpc.insecure_channel("unix:/nonexistent/arena.sock")
try:
    grpc.channel_ready_future(channel).result(timeout=0.2)
except grpc.FutureTimeoutError:
    pass
pid = os.fork()  # with grpc busy: gRPC core may log that it skips its fork handlers
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
server = grpc.server(futures.ThreadPoolExecutor(1))
try:  # gRPC core logs an error line (add_port.cc) before raising
    server.add_insecure_port("unix:/nonexistent/folder/arena.sock")
except RuntimeError:
    pass
channel.close()
print("done")
"""
GRPC_LOG_LINE = re.compile(r"^[IWEF]\d{4} [\d:.]+ +\d+ \w+\.cc:\d+\]", re.M)


def _stderr_of_noisy_grpc(verbosity: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in (VERBOSITY, QUIETED)}
    if verbosity is not None:
        env[VERBOSITY] = verbosity
    out = subprocess.run(
        [sys.executable, "-c", NOISY], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip() == "done", out.stderr
    return out.stderr


def test_grpc_cores_log_lines_stay_off_the_terminal_unless_asked_for() -> None:
    assert GRPC_LOG_LINE.findall(_stderr_of_noisy_grpc(None)) == []
    for asked in ("INFO", "ERROR"):
        shown = _stderr_of_noisy_grpc(asked)
        assert "add_port.cc" in shown and GRPC_LOG_LINE.search(shown), shown


@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_started_bot_logs_grpcs_errors_or_the_level_the_user_asked_for(
    sandboxed: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot's output goes to its log: gRPC's errors there explain a failed start."""
    assert os.environ[VERBOSITY] == QUIET  # this test process imported the arena
    assert variable_seen_by_a_started_bot(VERBOSITY, tmp_path, sandboxed) == ["seen", "ERROR"]
    monkeypatch.setenv(VERBOSITY, "INFO")
    monkeypatch.delenv(QUIETED)
    assert variable_seen_by_a_started_bot(VERBOSITY, tmp_path, sandboxed) == ["seen", "INFO"]
