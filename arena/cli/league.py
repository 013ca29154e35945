"""`arena run` and `arena demo`: a league played (or resumed) and its table printed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.base import (
    FAULT_EXIT_CODE,
    LatestLeague,
    LeagueDb,
    WithLeague,
    command,
    league_app,
)
from arena.league.reports.formats import TableFormat

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
        int | None,
        typer.Option(
            min=1,
            max=1024,  # more processes than a machine of 1,024 cores could use is a typo
            help="Parallel worker processes (default: one per core).",
        ),
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
    allow_broken: Annotated[
        bool,
        typer.Option(
            "--allow-broken",
            help="Play even when the pre-flight check finds entrants that cannot start: their "
            "seats play fallback moves, recorded as start-failure faults (exit code 3).",
        ),
    ] = False,
    fail_on_fault: Annotated[
        bool,
        typer.Option(
            "--fail-on-fault",
            help=f"Exit with code {FAULT_EXIT_CODE} when any match played now had any fault, "
            "not only start-failures.",
        ),
    ] = False,
    with_league: WithLeague = False,
    cluster: Annotated[
        str | None,
        typer.Option(
            metavar="tcp://HOST:PORT",
            help="Play the matches on the workers of this Dask scheduler (started with `dask "
            "scheduler`; needs pip install 'trix-arena[cluster]'; docs/cluster.md). Overrides "
            "[cluster] address of the league file.",
        ),
    ] = None,
) -> None:
    """Run a league (or resume it: stored matches are never played again) and print its table.

    Before the first match, every started entrant is launched once, greeted and ended: when
    one cannot start, they are all listed and nothing is played (unless --allow-broken).

    Exit codes: 0 done; 2 an error (the league file, a bot that cannot start, ...: nothing
    more is played); 3 every match was played and stored and the table printed, but a match
    played now had start-failure faults (with --fail-on-fault: any fault); 130 interrupted
    (the matches stored so far are kept).
    """
    from arena.cli.progress import LeagueProgress
    from arena.errors import ConfigError
    from arena.league.definition.config import cluster_address_problem, workers_warning
    from arena.league.reports.commands import check_table_options, table_report
    from arena.league.reports.snapshot import store_standings
    from arena.league.running.runner import run_league

    check_table_options(fmt, with_league)  # before the league runs, not after
    if cluster is not None:
        problem = cluster_address_problem(cluster)
        if problem:
            raise ConfigError(f"--cluster {problem}")
    warning = workers_warning(workers)
    if warning:
        typer.echo(warning, err=True)
    with LeagueProgress() as progress:
        summary = run_league(
            league,
            db,
            workers=workers,
            until_separated=until_separated,
            progress=progress.update,
            notice=progress.note,
            allow_broken=allow_broken,
            cluster=cluster,
        )
    store_standings(summary.db_path, summary.league)  # what the site reads (snapshot.py)
    report = table_report(summary.db_path, summary.league, fmt, with_league)
    machine = fmt in (TableFormat.JSON, TableFormat.CSV)
    typer.echo(summary.describe(), err=machine)  # stdout holds only the table's data
    if report.note:
        typer.echo(report.note, err=True)
    typer.echo(report.out, color=True)  # as it is: CSV cells are data (text is made safe)
    problem = summary.fault_problem(any_fault=fail_on_fault)
    if problem:
        typer.echo(f"exit code {FAULT_EXIT_CODE}: {problem}", err=True)
        raise typer.Exit(FAULT_EXIT_CODE)


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
    from arena.league.definition.demo import DEMO_LEAGUE, demo_database

    with demo_database(db) as path:
        run(league or DEMO_LEAGUE, db=path, workers=None, until_separated=False)


@command()
def upgrade(
    db: Annotated[Path, typer.Option(help="The league database to upgrade.")] = Path("arena.db"),
    rerate: Annotated[
        bool,
        typer.Option(
            "--rerate",
            help="Also rate again, by the default feeding, every league rated another way "
            "(from its stored matches; nothing is played).",
        ),
    ] = False,
    vacuum: Annotated[
        bool,
        typer.Option(
            "--vacuum",
            help="Then give the space the upgrade freed back to the file system (SQLite's "
            "VACUUM: rewrites the file; needs as much free disk again, and the database "
            "to itself while it runs).",
        ),
    ] = False,
) -> None:
    """Upgrade a league database to this arena's schema, in place (the reading commands
    never change a database; `arena run` upgrades the one it writes to), and name the
    leagues whose ratings came from an older feeding (docs/ratings.md). Migration 13
    (the compact store) converts the games a batch at a time with progress on stderr;
    interrupted, the next upgrade carries on (docs/leagues.md, "Storage")."""
    from arena.league.definition.config import RATE_BY_DEFAULT
    from arena.league.standings.rerate import older_feedings
    from arena.league.store import upgrade as upgrade_db

    before, after = upgrade_db(db)
    typer.echo(
        f"{db}: schema version {after}"
        + (f" (was {before})" if before != after else " already; nothing to do")
    )
    if vacuum:
        from arena.league.store import open_db
        from arena.league.store.compaction import vacuum as vacuum_db

        opened = open_db(db)
        try:
            size, now = vacuum_db(opened)
        finally:
            opened.close()
        typer.echo(f"{db}: vacuumed, {size / 1e6:,.1f} MB -> {now / 1e6:,.1f} MB")
    elif before < 13 <= after:
        typer.echo(
            f"{db}: the file keeps its size until it is vacuumed: `arena upgrade --db {db} "
            "--vacuum` gives the space back"
        )
    for found in older_feedings(db, rerate):
        if found.rerated:
            typer.echo(
                f"league {found.league!r}: rated again by rate_by = {RATE_BY_DEFAULT.value!r} "
                f"(was {found.rate_by!r}); a league file that says rate_by = "
                f"{found.rate_by!r} must now say {RATE_BY_DEFAULT.value!r} (or leave it out) "
                "to resume it"
            )
        else:
            typer.echo(
                f"league {found.league!r}: its ratings came from rate_by = "
                f"{found.rate_by!r}, not the default {RATE_BY_DEFAULT.value!r}; "
                f"`arena upgrade --db {db} --rerate` rates it again by the default"
            )


@command(league_app, name="key")
def league_key(db: LeagueDb = Path("arena.db"), league: LatestLeague = None) -> None:
    """Print a league's secret deal key: with `deal_key = "KEY"` in its league file,
    the league deals the same cards anywhere (docs/leagues.md, "Deal keys"). Keep it
    from the bots' authors until the league is over."""
    from arena.league.reports.commands import deal_key_report

    report = deal_key_report(db, league)
    if report.note:
        typer.echo(f"warning: {report.note}", err=True)
    typer.echo(report.out)
