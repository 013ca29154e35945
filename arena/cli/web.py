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
HumanGames = Annotated[
    int,
    typer.Option(
        min=0,
        max=64,
        help="Games visitors may play at once against the site's bots (\"play against this "
        'bot", unrated, never in the database; docs/human.md); past it a visitor is told to come '
        "back (503). 0 offers none.",
    ),
]
HUMAN_GAMES = 4  # arena.web.table.site_games.HUMAN_GAMES (not imported: it loads the bots)
HumanMoveTimeout = Annotated[
    float,
    typer.Option(
        min=1.0,
        max=3600.0,
        help="Seconds a visitor has for each decision of such a game; then the fallback move "
        "is played, and after the league's max_faults of them the rest are fallbacks, so an "
        "idle game ends by itself.",
    ),
]
HUMAN_MOVE_TIMEOUT = 120.0  # arena.web.table.site_games.MOVE_SECONDS
HumanReplays = Annotated[
    Path | None,
    typer.Option(
        help="A folder to write each such game's replay into (game-NNNN.json); without it "
        "they are kept nowhere. Never in the database: a person is never rated.",
    ),
]


def site_games(games: int, move_timeout: float, replays: Path | None) -> Any:
    """The games visitors may play from a site (None when `games` is 0)."""
    from arena.web.table.site_games import SiteGames

    if not games:
        return None
    return SiteGames(games, move_seconds=move_timeout, replays=replays)


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
        access_log=False,  # a seat's page has its secret in the path (docs/human.md)
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
    human_games: HumanGames = HUMAN_GAMES,
    human_move_timeout: HumanMoveTimeout = HUMAN_MOVE_TIMEOUT,
    human_replays: HumanReplays = None,
) -> None:
    """Serve the league site over a league database: every league, its table, charts,
    crosstable, entrants, matches, faults and a replay viewer, live while `arena run`
    writes to the database. Read-only but for "play against this bot" (an entrant's
    page starts an unrated game, stored nowhere, for a visitor: --human-games);
    Ctrl-C stops it."""
    from arena.web.app import make_app

    def make(hosts: list[str]) -> Any:
        games = site_games(human_games, human_move_timeout, human_replays)
        return make_app(db, live_hands, hosts, games)

    run_site(
        db,
        make,
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
