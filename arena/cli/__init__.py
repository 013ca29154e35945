"""The `arena` command: one module per command group, each a thin layer that parses,
calls one library function and prints (`arena.cli.base` says how errors are shown).

- `play`: `arena play`;
- `duel`: `arena duel` (docs/duel.md);
- `check`: `arena check-bot`;
- `league`: `arena run`, `arena demo`;
- `ladder`: `arena ladder ...` (docs/ladder.md);
- `inspect`: `arena table`, `compare`, `games`, `faults`, `replay`;
- `web`: `arena serve`, `arena report`;
- `bench`: `arena bench engine|referee|league|rating|web`.

Heavy modules (grpc, sqlite-utils, trueskill) are imported inside the commands that
need them, so `arena --help` and the read-only commands start sooner.
"""

from __future__ import annotations

import sys

import typer

from arena import __version__, interrupts
from arena.cli.base import app, command

# Each module registers its commands; `arena --help` lists them in this order.
# isort: off
from arena.cli import play, duel, check, league, ladder, inspect, web, bench  # noqa: E402, F401
# isort: on

__all__ = ["app", "main"]


@command()
def version() -> None:
    """Print the arena's version."""
    typer.echo(__version__)


def main() -> None:
    """Console entry point. SIGTERM ends a command the way Ctrl-C does, so every bot it
    started is ended (without the sandbox, nothing else would end them), and neither is
    lost where Python would drop the KeyboardInterrupt (arena/interrupts.py)."""
    interrupts.install()
    try:
        app()
    except BrokenPipeError:  # `arena ... | head` is fine
        sys.stderr.close()
