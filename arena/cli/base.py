"""What every `arena` command shares: the app, the one place an `ArenaError` becomes
an `error:` line and exit code 2, and the options several commands take.

Commands parse, call one library function and print. Errors the user can fix
(`ArenaError`) become one clear sentence; anything else is a bug and keeps its
traceback. Choices are enums, so typer checks them and lists them in `--help`.
"""

from __future__ import annotations

import functools
import sqlite3
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
            for key, value in kwargs.items():
                problem = path_problem(value)
                if problem:
                    fail(f"--{key.replace('_', '-')}: {problem}")
            try:
                return function(*args, **kwargs)
            except ArenaError as err:
                fail(str(err))
            except sqlite3.DatabaseError as err:  # met while reading, after the opening
                from arena.league.store.schema import diagnosed

                fail(str(diagnosed(Path(kwargs.get("db") or "the database"), err, writing=False)))
            except OSError as err:
                if err.filename is None:
                    raise  # not about a path the user gave: a bug, with its traceback
                fail(
                    f"{err.filename}: {err.strerror or err}: give a path this user can "
                    "reach (docs/leagues.md, \"Paths\")"
                )
            except KeyboardInterrupt:
                if not interrupted:
                    raise
                typer.echo(interrupted, err=True)
                raise typer.Exit(interrupted_code) from None

        group.command(name)(run)
        return function

    return register


MAX_PATH_CHARS = 4096  # Linux's PATH_MAX: no longer path can be opened
MAX_NAME_BYTES = 255  # NAME_MAX: the longest file or folder name, in bytes


def path_problem(value: Any) -> str | None:
    """Why a path argument can name no file on this system (too long, a name longer
    than 255 bytes, a NUL byte, a name that is no valid text), or None. Checked for
    every Path argument before a command runs, so no command meets it as an OSError."""
    if not isinstance(value, Path):
        return None
    text = str(value)
    if "\0" in text:
        return "a path cannot hold a NUL byte"
    if len(text) > MAX_PATH_CHARS:
        return f"the path is {len(text):,} characters long, more than {MAX_PATH_CHARS}"
    try:
        longest = max((len(part.encode()) for part in value.parts), default=0)
    except UnicodeEncodeError:
        return "the path is not valid text (it holds a lone surrogate)"
    if longest > MAX_NAME_BYTES:
        return f"a name in the path is {longest} bytes long, more than {MAX_NAME_BYTES}"
    return None


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
        help="Seconds a bot may think in one game, in all (game_time; default 120, "
        "docs/leagues.md says why); 0: no such budget. "
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
