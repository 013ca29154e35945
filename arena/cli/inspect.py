"""The commands that read a league database: `table`, `compare`, `games`, `faults` and
`replay`. Each calls one report of `arena.league.reports.commands` and prints it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.base import LatestLeague, LeagueDb, WithLeague, command
from arena.league.reports.formats import TableFormat, TextOrJson

TextOrJsonOption = Annotated[TextOrJson, typer.Option("--format", help="The output format.")]


@command()
def table(
    db: LeagueDb = Path("arena.db"),
    league: LatestLeague = None,
    fmt: Annotated[
        TableFormat,
        typer.Option(
            "--format",
            help="The output format. With json or csv, stdout holds the table alone and the "
            "league's lines go to stderr.",
        ),
    ] = TableFormat.TEXT,
    with_league: WithLeague = False,
) -> None:
    """Show a league table: place, rating (mu - 3 sigma), mu, sigma, scores, margins, faults.

    Text and markdown tables begin with what they are: the league, game, seed, matches
    stored of scheduled, when the last was stored, and the arena's version."""
    from arena.league.reports.commands import table_report

    report = table_report(db, league, fmt, with_league)
    if report.note:
        typer.echo(report.note, err=True)
    typer.echo(report.out, color=True)  # as it is: CSV cells are data (text is made safe)


@command()
def compare(
    a: Annotated[str, typer.Argument(help="An entrant's name.")],
    b: Annotated[str, typer.Argument(help="Another entrant's name.")],
    db: LeagueDb = Path("arena.db"),
    league: LatestLeague = None,
    fmt: TextOrJsonOption = TextOrJson.TEXT,
) -> None:
    """A's duplicate margin over B in the matches both played, with its 95% interval."""
    from arena.league.reports.commands import comparison_report

    typer.echo(comparison_report(db, league, a=a, b=b, fmt=fmt))


@command()
def games(
    db: LeagueDb = Path("arena.db"),
    league: Annotated[
        str | None, typer.Option(help="Only this league's games (default: all).")
    ] = None,
    fmt: TextOrJsonOption = TextOrJson.TEXT,
) -> None:
    """List stored games: id, match, players, totals, ranks."""
    from arena.league.reports.commands import games_report

    text = games_report(db, league, fmt)
    if text:
        typer.echo(text)


@command()
def faults(
    db: LeagueDb = Path("arena.db"),
    league: LatestLeague = None,
    bot: Annotated[
        str | None, typer.Option(help="Only this entrant's faults (its name in the league).")
    ] = None,
    fmt: TextOrJsonOption = TextOrJson.TEXT,
) -> None:
    """List every fault of a league: game, deal, decision, expected, got, the bot's log.

    The game is a stored game id (`arena replay GAME_ID`); what came back is truncated.

    Fault kinds: timeout, crash, start-failure, illegal, oversize, protocol
    (docs/faults.md)."""
    from arena.league.reports.commands import faults_report

    typer.echo(faults_report(db, league, bot, fmt))


@command()
def replay(
    target: Annotated[
        str, typer.Argument(help="A stored game's id (see `arena games`), or a replay file.")
    ],
    db: Annotated[Path, typer.Option(help="The league database, for a game id.")] = Path(
        "arena.db"
    ),
    seat: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Show what this seat was asked, decision by decision: its view as the "
            "bot received it, the legal actions, the answer.",
        ),
    ] = None,
    deal: Annotated[
        int | None, typer.Option(min=1, help="With --seat: only this deal's decisions.")
    ] = None,
    decision: Annotated[
        int | None,
        typer.Option(min=1, help="With --seat: only this decision (the request's decision_id)."),
    ] = None,
    fmt: TextOrJsonOption = TextOrJson.TEXT,
) -> None:
    """Print a game as readable text (deal by deal) or as its arena-replay/1 JSON; with
    --seat, what that seat was asked at each decision."""
    from arena.league.reports.commands import replay_report

    typer.echo(replay_report(target, db, fmt=fmt, seat=seat, deal=deal, decision=decision))
