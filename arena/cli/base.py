"""What every `arena` command shares: the app, the one place an `ArenaError` becomes
an `error:` line and exit code 2, and the options several commands take.

Commands parse, call one library function and print. Errors the user can fix
(`ArenaError`) become one clear sentence; anything else is a bug and keeps its
traceback. Choices are enums, so typer checks them and lists them in `--help`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from arena.bots.confinement.sandbox import SandboxMode
from arena.bots.remote.settings import TransportKind
from arena.errors import ArenaError
from arena.games import GAMES

F = TypeVar("F", bound=Callable[..., Any])


app = typer.Typer(
    help="Trix Arena: a referee for card-game bot competitions (Trix and Trianon).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)
bench_app = typer.Typer(help="Benchmarks that print figures (nothing is asserted).")
app.add_typer(bench_app, name="bench")
league_app = typer.Typer(help="Facts of a stored league that no table shows (its deal key).")
app.add_typer(league_app, name="league")

GameName = StrEnum("GameName", {name.upper(): name for name in GAMES})  # type: ignore[misc]
"""The registered games (`arena.games.GAMES`), as typer's choices."""
TRIX = GameName("trix")  # the default game


FAULT_EXIT_CODE = 3
"""`arena run` and `arena play --fail-on-fault`: everything ran and was printed (and
stored), but bots faulted: start-failures in a league run, any fault with the flag.
Distinct from 2 (an `error:`, nothing or not everything ran) and 130 (interrupted)."""


def fail(message: str) -> None:
    """Print `error: MESSAGE` on stderr and exit with code 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def command(
    group: typer.Typer = app,
    name: str | None = None,
    interrupted: str = "",
    interrupted_code: int = 2,
) -> Callable[[F], F]:
    """Register a command whose `ArenaError`s become an `error:` line (exit code 2);
    with `interrupted`, Ctrl-C (or SIGTERM) prints that line and exits with
    `interrupted_code` instead of a traceback."""

    def register(function: F) -> F:
        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except ArenaError as err:
                fail(str(err))
            except KeyboardInterrupt:
                if not interrupted:
                    raise
                typer.echo(interrupted, err=True)
                raise typer.Exit(interrupted_code) from None

        group.command(name)(run)
        return function

    return register


# -- options several commands take -----------------------------------------------------

Game = Annotated[GameName, typer.Option(help="The game.")]
MoveTimeout = Annotated[
    float, typer.Option(help="Seconds a bot has for each decision (move_timeout).")
]
StartupTimeout = Annotated[
    float, typer.Option(help="Seconds a started bot has to listen and shake hands.")
]
TimeBank = Annotated[
    float, typer.Option(help="Seconds per game a bot may overrun move_timeout by, in all.")
]
GameTime = Annotated[
    float,
    typer.Option(
        help="Seconds a bot may think in one game, in all (game_time); 0: no such budget. "
        "Once it is spent, the bot's seat plays fallback moves for the rest of the game."
    ),
]
Transport = Annotated[
    TransportKind,
    typer.Option(help="stream: one Play stream per game; unary: one Decide call each."),
]
LogDir = Annotated[
    Path, typer.Option(help="Folder for the started bots' logs (one file per bot and match).")
]
Sandboxing = Annotated[
    SandboxMode,
    typer.Option(
        "--sandbox",
        help="on: started bots run confined (bubblewrap, own user, limits; see "
        "docs/sandbox.md); off: with resource limits only, for bots you trust.",
    ),
]
LeagueDb = Annotated[Path, typer.Option(help="The league database.")]
LatestLeague = Annotated[
    str | None, typer.Option(help="The league's name (default: the latest league).")
]
WithLeague = Annotated[
    bool,
    typer.Option(
        "--with-league",
        help='With --format json: print {"league": {...}, "rows": [...]}, the rows with the '
        "league, game, seed, matches stored of scheduled, time and arena version, instead "
        "of the list of rows.",
    ),
]
