"""`arena ladder ...`: a continuous ladder (docs/ladder.md). The organiser's commands
(`init`, `run`, `author add|revoke`, `freeze`, `finals`), the author's (`submit`,
`promote`, `withdraw`, `test`, `tests`, each with `--token` or ARENA_TOKEN), and the reading ones
(`table`, `versions`, `history`, `matches`, each with `--format text|json`), and
`serve`, the ladder's public web site and JSON API."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.base import app, command
from arena.cli.web import (
    HEADER_TIMEOUT,
    HUMAN_GAMES,
    HUMAN_MOVE_TIMEOUT,
    AllowedHost,
    HeaderTimeout,
    Host,
    HumanGames,
    HumanMoveTimeout,
    HumanReplays,
    Port,
    run_site,
    site_games,
)
from arena.league.reports.formats import TextOrJson

ladder_app = typer.Typer(
    help="A continuous ladder: authors submit versions, the gate checks them, the "
    "matchmaker places and rates them, promotion is decided on evidence (docs/ladder.md).",
    no_args_is_help=True,
)
author_app = typer.Typer(
    help="The ladder's authors: add one (its token is printed once), revoke one."
)
ladder_app.add_typer(author_app, name="author")
app.add_typer(ladder_app, name="ladder")

Db = Annotated[Path, typer.Option(help="The database (default: arena.db here).")]
LadderName = Annotated[
    str | None,
    typer.Option("--ladder", help="The ladder's name (needed when the database holds several)."),
]
Format = Annotated[TextOrJson, typer.Option("--format", help="The output format.")]
Token = Annotated[
    str | None,
    typer.Option(
        help="Your author token (default: the ARENA_TOKEN variable). Prefer the variable: "
        "a command line is visible to other users of the machine.",
        show_default=False,
    ),
]
INTERRUPTED = (
    "stopped: the matches stored are kept, and those in flight are played first when the "
    "ladder runs again"
)


def _token(token: str | None) -> str | None:
    return token if token is not None else os.environ.get("ARENA_TOKEN")


@command(ladder_app, "init")
def init(
    ladder: Annotated[
        Path, typer.Argument(help="The ladder file (TOML), e.g. leagues/ladder.toml.")
    ],
    db: Annotated[
        Path | None, typer.Option(help="The database (default: arena.db beside the ladder file).")
    ] = None,
) -> None:
    """Make a ladder from its file (or take a stored ladder's changed settings), with
    its house bots as active versions."""
    from arena.ladder.book import init_ladder
    from arena.ladder.config import load_ladder

    config = load_ladder(ladder)
    _, done = init_ladder(config, db or config.base_dir / "arena.db")
    for line in done:
        typer.echo(line)


@command(ladder_app, "run", interrupted=INTERRUPTED, interrupted_code=130)
def run(
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
    workers: Annotated[
        int | None,
        typer.Option(min=1, max=1024, help="Parallel worker processes (default: one per core)."),
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            metavar="tcp://HOST:PORT",
            help="Play the matches on the workers of this Dask scheduler (docs/cluster.md).",
        ),
    ] = None,
    matches: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=100_000,
            help="Stop after this many rated matches are stored (default: play until Ctrl-C "
            "or SIGTERM); test matches are played too, and not counted.",
        ),
    ] = None,
) -> None:
    """Play the ladder's matches continuously (or N of them), checking new versions with
    the gate as they come; Ctrl-C or SIGTERM end it cleanly."""
    from arena.ladder.runner import run_ladder
    from arena.league.definition.config import cluster_address_problem

    if workers is not None and cluster:
        raise typer.BadParameter("give --workers or --cluster, not both")
    if cluster:
        problem = cluster_address_problem(cluster)
        if problem:
            raise typer.BadParameter(f"--cluster {problem}")

    def say(text: str) -> None:
        typer.echo(text, err=True)

    def progress(info) -> None:  # noqa: ANN001 (LadderProgress)
        name, rating = info.leader
        typer.echo(
            f"{info.stored} matches stored ({info.played} now, {info.games} games, "
            f"{info.in_flight} in flight); {info.versions} versions playing; leader "
            f"{name} ({rating:.1f})",
            err=True,
        )

    summary = run_ladder(
        db,
        ladder,
        workers=workers or os.cpu_count() or 1,
        cluster=cluster,
        matches=matches,
        progress=progress,
        notice=say,
    )
    typer.echo(summary.describe(), err=True)


@command(author_app, "add")
def author_add(
    name: Annotated[str, typer.Argument(help="The author's name.")],
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
) -> None:
    """Add an author; their token is printed once, alone on standard output (only a
    salted hash of it is stored: it cannot be shown again)."""
    from arena.ladder.book import author_add as add

    typer.echo(add(db, ladder, name))


@command(author_app, "revoke")
def author_revoke(
    name: Annotated[str, typer.Argument(help="The author's name.")],
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
) -> None:
    """Revoke an author's token: it changes nothing from now on."""
    from arena.ladder.book import author_revoke as revoke

    typer.echo(revoke(db, ladder, name))


@command(ladder_app, "submit")
def submit(
    bot: Annotated[str, typer.Argument(help="The bot's name (yours once you first use it).")],
    path: Annotated[Path, typer.Argument(help="A folder, or an archive (.tar.gz, .tgz, .zip).")],
    command_line: Annotated[
        str,
        typer.Option(
            "--command",
            help='The command that starts the bot from the folder\'s root: "python bot.py".',
        ),
    ],
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
    token: Token = None,
) -> None:
    """Submit a new version of a bot: it is checked by the gate, then placed and rated."""
    from arena.ladder.book import submit as do_submit

    done = do_submit(db, ladder, token=_token(token), bot=bot, source=path, command=command_line)
    if done.new:
        typer.echo(f"{done.version} submitted (sha256 {done.sha256}): the gate checks it next")
    else:
        typer.echo(f"identical to {done.version} (sha256 {done.sha256}): nothing was added")


@command(ladder_app, "promote")
def promote(
    version: Annotated[str, typer.Argument(help="BOT@N: the version to make active.")],
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
    token: Token = None,
) -> None:
    """Make one of your versions its bot's active version (the one before is retired)."""
    from arena.ladder.book import promote as do_promote

    typer.echo(do_promote(db, ladder, token=_token(token), spec=version))


@command(ladder_app, "withdraw")
def withdraw(
    version: Annotated[str, typer.Argument(help="BOT@N, or BOT for every version of it.")],
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
    token: Token = None,
) -> None:
    """Take one of your versions (or a whole bot) off the ladder; its games stay."""
    from arena.ladder.book import withdraw as do_withdraw

    typer.echo(do_withdraw(db, ladder, token=_token(token), spec=version))


@command(ladder_app, "test")
def ask_test_match(
    version: Annotated[
        str, typer.Argument(help="BOT@N: your version to try (active, a candidate or retired).")
    ],
    opponents: Annotated[
        list[str],
        typer.Argument(
            help="The opponents, BOT@N each: as many as the table has other seats (3 in "
            "Trix, 2 in Trianon), each a version that plays now (house bots included).",
            show_default=False,
        ),
    ],
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
    token: Token = None,
) -> None:
    """Ask for an unrated test match of your version against opponents you pick: one
    seat-rotated match, played by `arena ladder run`, stored apart from the rated
    matches (no rating, no health, no promotion evidence)."""
    from arena.ladder.book import request_test

    typer.echo(request_test(db, ladder, token=_token(token), spec=version, opponents=opponents))


@command(ladder_app, "tests")
def tests_command(
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
    token: Token = None,
    fmt: Format = TextOrJson.TEXT,
) -> None:
    """Your test matches, newest first: state, opponents, and once stored their games
    and your version's seat in each (`arena replay ID --seat N --db ...` shows one)."""
    from arena.ladder.reports import tests_report

    typer.echo(tests_report(db, ladder, _token(token), fmt))


@command(ladder_app, "freeze")
def freeze(db: Db = Path("arena.db"), ladder: LadderName = None) -> None:
    """Stop submissions and promotions (before the finals)."""
    from arena.ladder.book import freeze as do_freeze

    typer.echo(do_freeze(db, ladder))


@command(ladder_app, "finals", interrupted=INTERRUPTED, interrupted_code=130)
def finals(
    top: Annotated[int, typer.Option(min=3, max=100, help="How many active versions, best first.")],
    matches: Annotated[int, typer.Option(min=1, max=100_000, help="Matches of the final league.")],
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
    workers: Annotated[
        int | None, typer.Option(min=1, max=1024, help="Parallel worker processes.")
    ] = None,
) -> None:
    """Play the top K active versions in a round-robin league on fresh deals (tau = 0),
    stored as a league whose table is the final result."""
    from arena.ladder.finals import play_finals

    typer.echo(play_finals(db, ladder, top=top, matches=matches, workers=workers))


@command(ladder_app, "table")
def table(
    db: Db = Path("arena.db"), ladder: LadderName = None, fmt: Format = TextOrJson.TEXT
) -> None:
    """The ladder table: each bot's active version, placed and rated."""
    from arena.ladder.reports import table_report

    typer.echo(table_report(db, ladder, fmt))


@command(ladder_app, "versions")
def versions(
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
    bot: Annotated[
        str | None, typer.Option(help="Only this bot's versions, with the gate's reports.")
    ] = None,
    fmt: Format = TextOrJson.TEXT,
) -> None:
    """Every version: state and why, SHA-256, games and faults."""
    from arena.ladder.reports import versions_report

    typer.echo(versions_report(db, ladder, bot, fmt))


@command(ladder_app, "history")
def history(
    bot: Annotated[str, typer.Argument(help="The bot's name.")],
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
    fmt: Format = TextOrJson.TEXT,
) -> None:
    """A bot's versions over time: each change of state and its rating after each match."""
    from arena.ladder.reports import history_report

    typer.echo(history_report(db, ladder, bot, fmt))


@command(ladder_app, "matches")
def matches_command(
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
    fmt: Format = TextOrJson.TEXT,
    limit: Annotated[int, typer.Option(min=0, max=1_000_000, help="The newest N (0: all).")] = 50,
) -> None:
    """The matches the ladder chose, newest first: state, why chosen, seats."""
    from arena.ladder.reports import matches_report

    typer.echo(matches_report(db, ladder, fmt, limit))


@command(ladder_app, "serve")
def serve(
    db: Db = Path("arena.db"),
    ladder: LadderName = None,
    host: Host = "127.0.0.1",
    port: Port = 8000,
    allowed_host: AllowedHost = None,
    header_timeout: HeaderTimeout = HEADER_TIMEOUT,
    human_games: HumanGames = HUMAN_GAMES,
    human_move_timeout: HumanMoveTimeout = HUMAN_MOVE_TIMEOUT,
    human_replays: HumanReplays = None,
) -> None:
    """Serve the ladder's site: the table, each bot and version with its gate report,
    promotion test and games, the matches and the queue, a replay viewer; authors sign
    in at /login to upload, promote and withdraw; and a JSON API under /api/v1 (its
    OpenAPI document at /api/v1/openapi.json; writes with a Bearer token). A version's
    page offers visitors "play against this bot" (unrated, never in the database:
    --human-games). Live while `arena ladder run` writes; Ctrl-C stops it."""
    from arena.web.ladder.app import make_ladder_app

    def make(hosts: list[str]) -> Any:
        games = site_games(human_games, human_move_timeout, human_replays)
        return make_ladder_app(db, ladder, hosts, games=games)

    run_site(
        db,
        make,
        host,
        port,
        allowed_host,
        header_timeout,
        f"the ladder in {db}",
    )
