"""arena/wire/loop.py: the referee's and the SDK's event loops are uvloop's unless
ARENA_EVENT_LOOP=asyncio, and bots the referee starts get that setting, sandboxed too."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import uvloop

from arena.wire.loop import VARIABLE, loop_factory, run_main, thread_loop
from tests.support.bot_processes import variable_seen_by_a_started_bot

ROOT = Path(__file__).resolve().parents[2]


def _loop_module_in_a_new_thread() -> str:
    """The module of the loop `thread_loop` makes for a thread that had none."""
    seen: list[str] = []

    def work() -> None:
        loop = thread_loop()
        seen.append(type(loop).__module__)
        loop.close()

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(30)
    return seen[0]


def test_the_referees_loops_are_uvloops_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)
    assert _loop_module_in_a_new_thread().startswith("uvloop")
    assert loop_factory() is uvloop.new_event_loop


def test_arena_event_loop_asyncio_picks_asyncios_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VARIABLE, "asyncio")
    assert _loop_module_in_a_new_thread().startswith("asyncio")


@pytest.mark.parametrize("setting", [None, "asyncio"])
def test_a_bots_main_runs_on_the_chosen_loop(
    setting: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if setting is None:
        monkeypatch.delenv(VARIABLE, raising=False)
    else:
        monkeypatch.setenv(VARIABLE, setting)

    async def which() -> str:
        return type(asyncio.get_running_loop()).__module__

    result: list[str] = []
    thread = threading.Thread(target=lambda: result.append(run_main(which())))
    thread.start()
    thread.join(30)
    assert result[0].startswith("uvloop" if setting is None else "asyncio")


@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_started_bot_gets_the_referees_setting_even_in_the_sandbox(
    sandboxed: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VARIABLE, "asyncio")
    assert variable_seen_by_a_started_bot(VARIABLE, tmp_path, sandboxed) == ["seen", "asyncio"]


def test_a_game_against_a_python_bot_on_asyncios_own_loops(tmp_path: Path) -> None:
    """The fallback path end to end: referee and bot both on asyncio's loop."""
    env = {**os.environ, VARIABLE: "asyncio"}
    bot = ROOT / "sample_bots" / "random_bot.py"
    command = [sys.executable, "-m", "arena.cli", "play", f"python {bot}", "builtin:random",
               "builtin:random", "builtin:random", "--games", "1", "--seed", "loop",
               "--sandbox", "off", "--logs", str(tmp_path / "logs"), "--json"]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    game = json.loads(done.stdout.splitlines()[-1])
    assert game["players"][0] == "random_bot" and game["faults"] == 0
