"""The commands of the league's web site: `arena serve` and `arena report`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.base import LatestLeague, LeagueDb, command

HEADER_TIMEOUT = 10.0  # arena.web.hardening.HEADER_TIMEOUT (not imported: it loads uvicorn)


@command()
def serve(
    db: LeagueDb = Path("arena.db"),
    host: Annotated[
        str,
        typer.Option(help="The address to listen on: loopback unless you say otherwise."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="The port to listen on.")] = 8000,
    live_hands: Annotated[
        bool,
        typer.Option(
            "--live-hands",
            help="Show the hands of games still being played. Only for an organiser's own "
            "screen: a watcher could pass them to a bot that plays over the network.",
        ),
    ] = False,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            help="A name the site may be reached by (the request's Host), besides "
            "loopback's and --host's; repeat for more. Any other Host is refused (400), "
            "so a page on another name cannot read the site through DNS rebinding.",
        ),
    ] = None,
    header_timeout: Annotated[
        float,
        typer.Option(
            min=0.1,
            help="Seconds a client has to send a request's headers; a slower one is cut off.",
        ),
    ] = HEADER_TIMEOUT,
) -> None:
    """Serve the league site over a league database: every league, its table, charts,
    crosstable, entrants, matches, faults and a replay viewer, live while `arena run`
    writes to the database. Read-only; Ctrl-C stops it."""
    import uvicorn

    from arena.league.store.schema import check_integrity, open_existing
    from arena.web.app import check_address, make_app
    from arena.web.hardening import allowed_hosts, header_timeout_protocol

    checked = open_existing(db)  # a damaged database is refused now, not as HTTP 500s
    check_integrity(checked, db)
    checked.close()
    app = make_app(db, live_hands, allowed_hosts(host, allowed_host or ()))
    check_address(host, port)
    typer.echo(f"serving {db} at http://{host}:{port}/ (Ctrl-C stops)", err=True)
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        http=header_timeout_protocol(header_timeout),
    )


@command()
def report(
    out: Annotated[Path, typer.Option("--out", help="The folder to write the report into.")],
    db: LeagueDb = Path("arena.db"),
    league: LatestLeague = None,
) -> None:
    """Write the league site as static files (no server, no network: it works from
    file:// and any static host). Without --league, every league in the database."""
    from arena.web.report import write_report

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            typer.echo(f"\rgames {done} of {total}", nl=done == total, err=True)

    index = write_report(db, out, league, progress)
    typer.echo(str(index.resolve()))
