"""The commands of the league's web site: `arena serve` and `arena report`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.base import LatestLeague, LeagueDb, command

HEADER_TIMEOUT = 10.0  # arena.web.hardening.HEADER_TIMEOUT (not imported: it loads uvicorn)


Host = Annotated[
    str,
    typer.Option(help="The address to listen on: loopback unless you say otherwise."),
]
Port = Annotated[int, typer.Option(min=1, max=65535, help="The port to listen on.")]
AllowedHost = Annotated[
    list[str] | None,
    typer.Option(
        "--allowed-host",
        help="A name the site may be reached by (the request's Host), besides "
        "loopback's and --host's; repeat for more. Any other Host is refused (400), "
        "so a page on another name cannot read the site through DNS rebinding.",
    ),
]
HeaderTimeout = Annotated[
    float,
    typer.Option(
        min=0.1,
        help="Seconds a client has to send a request's headers; a slower one is cut off.",
    ),
]


def run_site(
    db: Path,
    make: Callable[[list[str]], Any],
    host: str,
    port: int,
    allowed_host: list[str] | None,
    header_timeout: float,
    what: str,
) -> None:
    """Serve the site `make(hosts)` builds over `db` at host:port, hardened for being
    published (docs/web.md): a damaged database or an address this machine cannot
    listen on is refused before it starts. Shared by `arena serve` and `arena ladder
    serve`."""
    import uvicorn

    from arena.league.store.schema import check_integrity, open_existing
    from arena.web.app import check_address
    from arena.web.hardening import allowed_hosts, header_timeout_protocol

    checked = open_existing(db)  # a damaged database is refused now, not as HTTP 500s
    check_integrity(checked, db)
    checked.close()
    app = make(allowed_hosts(host, allowed_host or ()))
    check_address(host, port)
    typer.echo(f"serving {what} at http://{host}:{port}/ (Ctrl-C stops)", err=True)
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        http=header_timeout_protocol(header_timeout),
    )


@command()
def serve(
    db: LeagueDb = Path("arena.db"),
    host: Host = "127.0.0.1",
    port: Port = 8000,
    live_hands: Annotated[
        bool,
        typer.Option(
            "--live-hands",
            help="Show the hands of games still being played. Only for an organiser's own "
            "screen: a watcher could pass them to a bot that plays over the network.",
        ),
    ] = False,
    allowed_host: AllowedHost = None,
    header_timeout: HeaderTimeout = HEADER_TIMEOUT,
) -> None:
    """Serve the league site over a league database: every league, its table, charts,
    crosstable, entrants, matches, faults and a replay viewer, live while `arena run`
    writes to the database. Read-only; Ctrl-C stops it."""
    from arena.web.app import make_app

    run_site(
        db,
        lambda hosts: make_app(db, live_hands, hosts),
        host,
        port,
        allowed_host,
        header_timeout,
        str(db),
    )


@command()
def report(
    out: Annotated[Path, typer.Option("--out", help="The folder to write the report into.")],
    db: LeagueDb = Path("arena.db"),
    league: LatestLeague = None,
    games: Annotated[
        str,
        typer.Option(
            "--games",
            help="Which games get a page and the replay viewer: all, none, last:N (the N "
            "stored last) or best:N (the N closest finishes: smallest gap between the "
            "two highest totals). The others are still listed, linked to --serve-url.",
        ),
    ] = "all",
    serve_url: Annotated[
        str,
        typer.Option(
            "--serve-url",
            help="Where `arena serve` shows this database: a game without a page in the "
            "report links to SERVE_URL/game/ID there.",
        ),
    ] = "http://127.0.0.1:8000",
    jobs: Annotated[
        int,
        typer.Option(min=0, help="Processes building the games' pages (0: one per core)."),
    ] = 0,
) -> None:
    """Write the league site as static files (no server, no network: it works from
    file:// and any static host). Without --league, every league in the database.
    Into an earlier report's folder, only what changed is written."""
    from arena.web.report import build_report

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            typer.echo(f"\rgames {done} of {total}", nl=done == total, err=True)

    result = build_report(db, out, league, progress, games, serve_url, jobs or None)
    typer.echo(
        f"{result.paged} of {result.games} games with a page; {result.written_files} of "
        f"{result.files} files written ({result.written_bytes / 1e6:.1f} of "
        f"{result.bytes / 1e6:.1f} MB), the rest unchanged",
        err=True,
    )
    typer.echo(str(result.index.resolve()))
