"""`arena run` and `arena demo`: a league played (or resumed) and its table printed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.base import command
from arena.league.formats import TableFormat

TableFormatOption = Annotated[
    TableFormat, typer.Option("--format", help="Table format at the end.")
]


INTERRUPTED = "interrupted: the matches stored so far are kept; run again to resume"


@command(interrupted=INTERRUPTED, interrupted_code=130)
def run(
    league: Annotated[Path, typer.Argument(help="The league file (TOML), e.g. leagues/demo.toml.")],
    db: Annotated[
        Path | None, typer.Option(help="The database (default: arena.db beside the league file).")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Parallel worker processes (default: one per core).")
    ] = None,
    until_separated: Annotated[
        bool,
        typer.Option(
            "--until-separated",
            help="Stop when TrueSkill and the duplicate margins agree on the order and every two "
            "neighbours are apart (see docs/ratings.md: When a league stops).",
        ),
    ] = False,
    fmt: TableFormatOption = TableFormat.TEXT,
) -> None:
    """Run a league (or resume it: stored matches are never played again) and print its table."""
    from arena.cli.progress import LeagueProgress
    from arena.league.reports import table_report
    from arena.league.runner import run_league

    with LeagueProgress() as progress:
        summary = run_league(league, db, workers, until_separated, progress.update, progress.note)
    typer.echo(summary.describe())
    typer.echo(table_report(summary.db_path, summary.league, fmt))


@command(interrupted=INTERRUPTED, interrupted_code=130)
def demo(
    league: Annotated[
        Path | None,
        typer.Option(help="The league to run (default: the demo league the arena ships)."),
    ] = None,
    db: Annotated[
        Path | None, typer.Option(help="Database (default: a fresh one in a temporary folder).")
    ] = None,
) -> None:
    """Run the demo league of the sample bots and print its table (what `make demo` does)."""
    from arena.league.demo import DEMO_LEAGUE, demo_database

    with demo_database(db) as path:
        run(league or DEMO_LEAGUE, db=path, workers=None, until_separated=False)


@command()
def upgrade(
    db: Annotated[Path, typer.Option(help="The league database to upgrade.")] = Path("arena.db"),
) -> None:
    """Upgrade a league database to this arena's schema, in place (the reading commands
    never change a database; `arena run` upgrades the one it writes to)."""
    from arena.league.store import upgrade as upgrade_db

    before, after = upgrade_db(db)
    typer.echo(
        f"{db}: schema version {after}"
        + (f" (was {before})" if before != after else " already; nothing to do")
    )
