"""`arena check-bot`: a bot's conformance check, with a verdict in the exit code."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.bots.remote.settings import RemoteSettings, TransportKind
from arena.cli.base import (
    TRIX,
    Game,
    LogDir,
    MoveTimeout,
    Sandboxing,
    SandboxMode,
    StartupTimeout,
    Transport,
    command,
)
from arena.cli.play import started_sandbox


@command(name="check-bot")
def check_bot(
    bot: Annotated[str, typer.Argument(help="The bot spec to check, e.g. 'python my_bot.py'.")],
    game: Game = TRIX,
    move_timeout: MoveTimeout = 1.0,
    startup_timeout: StartupTimeout = 10.0,
    transport: Transport = TransportKind.STREAM,
    logs: LogDir = Path("arena-logs"),
    sandbox_mode: Sandboxing = SandboxMode.ON,
) -> None:
    """Check a bot against the protocol: every contract and decision kind, latency, faults.

    Exit code 0 only when the bot is clean."""
    from arena.bots.check import check_bot as run_check

    settings = RemoteSettings(move_timeout, startup_timeout, 0.0, transport)  # checks them
    sandbox = started_sandbox(sandbox_mode, [bot])
    report = run_check(bot, game, settings=settings, log_dir=logs, sandbox=sandbox)
    typer.echo("\n".join(report.lines()))
    raise typer.Exit(0 if report.clean else 1)
