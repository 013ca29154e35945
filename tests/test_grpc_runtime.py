"""arena/wire/runtime.py: every arena process picks gRPC core's I/O path before grpc
loads, and a value the user set is kept."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.wire.runtime import ARENA_DEFAULT, VARIABLE
from tests.bot_processes import variable_seen_by_a_started_bot

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
