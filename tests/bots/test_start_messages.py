"""What a bot's author reads when the bot does not start: how and how soon it ended,
the address it was given as it saw it, and what a missing `arena` module means."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.bots.confinement.sandbox import Sandbox
from arena.bots.remote.handshake import BotStartError, missing_module_hint
from arena.bots.remote.settings import RemoteSettings
from arena.bots.spec import started_players

SCRIPTED = Path(__file__).resolve().parents[1] / "bot_scripts" / "scripted_bot.py"
QUICK = RemoteSettings(move_timeout=0.5, startup_timeout=1.5)


def _start(spec: str, tmp_path: Path, sandbox: Sandbox | None = None) -> str:
    with pytest.raises(BotStartError) as err:
        with started_players(
            [spec], "trix", {}, settings=QUICK, log_dir=tmp_path / "logs", sandbox=sandbox
        ):
            pass
    return str(err.value)


def _script(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bot.py"
    path.write_text(text)
    return path


def test_a_bot_that_exits_at_once_is_told_so_with_its_code(tmp_path) -> None:
    bot = _script(tmp_path, "import sys\nprint('bad flag --x')\nsys.exit(2)\n")
    text = _start(f"python {bot}", tmp_path)
    first = text.splitlines()[0]
    assert "exited at once (" in first and "s after it started) with code 2" in first
    assert "before it listened on $ARENA_BOT_ADDRESS (ARENA_BOT_ADDRESS=unix:/" in first
    assert "did not start listening" not in text and "within 1.5 s" not in first
    assert "bad flag --x" in text  # the log's last lines follow


def test_a_bot_killed_by_a_signal_is_told_so(tmp_path) -> None:
    bot = _script(tmp_path, "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    text = _start(f"python {bot}", tmp_path)
    assert "was killed by signal SIGKILL at once (" in text.splitlines()[0]


def test_a_bot_that_runs_but_never_listens_is_told_where_to_listen(tmp_path) -> None:
    text = _start(f"python {SCRIPTED} --fault silent", tmp_path)
    first = text.splitlines()[0]
    assert "did not listen on $ARENA_BOT_ADDRESS within 1.5 s (startup_timeout)" in first
    assert "it is still running, but nothing listens at ARENA_BOT_ADDRESS=unix:/" in first
    assert "a bot must listen on $ARENA_BOT_ADDRESS" in first


def test_in_the_sandbox_the_address_is_the_one_the_bot_saw(tmp_path) -> None:
    tmp_path.chmod(0o755)  # a sandboxed bot runs as a user of its own
    bot = _script(tmp_path, "import sys\nsys.exit(2)\n")
    text = _start(f"python {bot}", tmp_path, Sandbox())
    assert "(ARENA_BOT_ADDRESS=unix:/run/arena/bot.sock as the bot saw it)" in text


def test_a_python_that_cannot_import_the_arena_is_explained(tmp_path) -> None:
    # -S: no site-packages, as a bot started on an interpreter without the arena has
    bot = _script(tmp_path, "from arena.sdk import Bot, serve\nserve(Bot())\n")
    text = _start(f"{sys.executable} -S {bot}", tmp_path)
    assert "ModuleNotFoundError: No module named 'arena'" in text  # the log's tail
    first = text.splitlines()[0]
    assert "its Python cannot import the arena (No module named 'arena')" in first
    assert "start a Python bot as `python FILE`" in first
    assert "or install the arena into the interpreter the bot runs on" in first


def test_other_missing_modules_are_named_and_unrelated_logs_give_no_hint() -> None:
    log = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'numpy'"
    assert "its Python has no module 'numpy': install it" in missing_module_hint(log)
    assert missing_module_hint("ValueError: no") == ""
