"""`arena run` and `arena demo`: a league played (or resumed) and its table printed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.base import WithLeague, command
from arena.league.formats import TableFormat

TableFormatOption = Annotated[
    TableFormat,
    typer.Option(
        "--format",
        help="Table format at the end. With json or csv, stdout holds the table alone and "
        "the summary and the league's lines go to stderr.",
    ),
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
    with_league: WithLeague = False,
) -> None:
    """Run a league (or resume it: stored matches are never played again) and print its table."""
    from arena.cli.progress import LeagueProgress
    from arena.league.reports import check_table_options, table_report
    from arena.league.runner import run_league

    check_table_options(fmt, with_league)  # before the league runs, not after
    with LeagueProgress() as progress:
        summary = run_league(league, db, workers, until_separated, progress.update, progress.note)
    report = table_report(summary.db_path, summary.league, fmt, with_league)
    machine = fmt in (TableFormat.JSON, TableFormat.CSV)
    typer.echo(summary.describe(), err=machine)  # stdout holds only the table's data
    if report.note:
        typer.echo(report.note, err=True)
    typer.echo(report.out, color=True)  # as it is: CSV cells are data (text is made safe)


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
