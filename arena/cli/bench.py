"""`arena bench ...`: benchmarks that print figures; nothing is asserted."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from arena.bots.remote.settings import TransportKind
from arena.cli.base import TRIX, Game, bench_app, command
from arena.errors import ConfigError


class BenchTransport(StrEnum):
    STREAM = "stream"
    UNARY = "unary"
    BOTH = "both"


@command(bench_app, "engine")
def bench_engine(
    game: Game = TRIX,
    games: Annotated[int, typer.Option(min=1, help="How many full games to play.")] = 300,
) -> None:
    """Full games between four builtin:random bots on one core: games and decisions per second."""
    from arena.bench.engine import bench_engine as measure

    typer.echo("\n".join(measure(game, games).lines(game)))


@command(bench_app, "referee")
def bench_referee(
    games: Annotated[int, typer.Option(min=1, help="Full games to play per transport.")] = 6,
    transport: Annotated[
        BenchTransport, typer.Option(help="stream, unary, or both (one after the other).")
    ] = BenchTransport.BOTH,
) -> None:
    """Full games between four external random bots, against a bare gRPC echo.

    Prints decisions per second, the referee's mean time per decision, the round trip of a
    bare gRPC call of the same size over the same transport, their ratio, the same round
    trip taking turns over four echo servers (as a game's decisions go round its four
    bots) and the ratio to that, the floor (the games' requests sent again to the same
    bots with no referee work between them) and its ratio, and seconds per game."""
    from arena.bench.referee import bench_referee as measure

    modes = list(TransportKind) if transport == BenchTransport.BOTH else [transport]
    for mode in modes:
        typer.echo("\n".join(measure(games, str(mode)).lines(str(mode))))


@command(bench_app, "league")
def bench_league(
    matches: Annotated[int, typer.Option(min=1, help="Seat-rotated matches (4 games each).")] = 24,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 2,
    repeats: Annotated[int, typer.Option(min=1, help="Leagues of each lifecycle, in turn.")] = 2,
    kingdoms: Annotated[
        int, typer.Option(min=1, max=4, help="Trix kingdoms a game (4: 20 deals; 1: 5).")
    ] = 4,
    bot: Annotated[
        str,
        typer.Option(
            help="The four entrants' bot command (absolute paths: the league is "
            "written in a temporary folder)."
        ),
    ] = "python -m arena.strategies.uniform",
    round_trips: Annotated[
        int,
        typer.Option(min=0, help="Bare echo round trips for the transport's CPU (0: none)."),
    ] = 20_000,
) -> None:
    """A league of four external random bots into a fresh database: games per minute,
    everything included (bot start-up, storage, ratings), with the bots started for
    every match and kept for the whole league, taking turns in one run, and the ratio;
    the CPU of everything per decision beside the gRPC transport's own CPU per round
    trip (a bare echo of the same size on the same counter), and their ratio."""
    from arena.bench.league import bench_league as measure
    from arena.bench.league import render_league

    bench = measure(
        matches,
        workers=workers,
        repeats=repeats,
        kingdoms=kingdoms,
        bot=bot,
        round_trips=round_trips,
    )
    typer.echo(render_league(bench, workers))


@command(bench_app, "fairness")
def bench_fairness(
    matches: Annotated[int, typer.Option(min=1, help="Matches per league (4 games each).")] = 8,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 2,
) -> None:
    """Calm bots with and without a CPU hog among them, at move_timeout 1.0 and 0.1 s:
    the calm bots' timeouts, and their matches' wall time against the calm league's."""
    from arena.bench.fairness import bench_fairness as measure
    from arena.bench.fairness import render_fairness

    typer.echo(render_fairness(measure(matches, workers=workers), workers))


@command(bench_app, "rating")
def bench_rating(
    seeds: Annotated[int, typer.Option(min=1, help="Independent league seeds.")] = 100,
    matches: Annotated[
        int | None,
        typer.Option(
            min=1, help="Seat-rotated matches per league: the cap (default: the ladder's)."
        ),
    ] = None,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 2,
    cache: Annotated[
        Path | None,
        typer.Option(help="JSON-lines file of played leagues: read back, extended, resumable."),
    ] = None,
    extra: Annotated[
        bool,
        typer.Option(
            "--extra", help="Also show TrueSkill fed the other ways (per match, deal, game)."
        ),
    ] = False,
    ladder: Annotated[
        str,
        typer.Option(
            help="The ladder to play: trix-wide, trix-close, trix-8, trianon-wide, "
            "trianon-close or trianon-8 (docs/benchmarks.md)."
        ),
    ] = "trix-wide",
) -> None:
    """A ladder of bots of known strength over many league seeds: games each statistic
    needs before 90% and 95% of seeds order it right, how often the table's place
    ranges show a pair separated wrongly, and how the --until-separated rule does."""
    from arena.bench.rating import LADDERS, rating_bench
    from arena.errors import ConfigError

    if ladder not in LADDERS:
        raise ConfigError(f"no ladder {ladder!r}; the ladders: {', '.join(LADDERS)}")
    typer.echo(
        rating_bench(
            seeds,
            matches,
            workers,
            cache,
            extra,
            progress=lambda n: typer.echo(f"  {n}/{seeds} leagues played", err=True),
            ladder=ladder,
        )
    )


@command(bench_app, "strength")
def bench_strength(
    game: Game = TRIX,
    matches: Annotated[int, typer.Option(min=1, help="Seat-rotated matches per pairing.")] = 30,
    seed: Annotated[str, typer.Option(help="Match i is played on the seed SEED-i.")] = "strength",
    budget_ms: Annotated[
        float, typer.Option(min=1, help="The sampler's thinking time per decision, in ms.")
    ] = 200,
    samples: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Fixed work instead: this many sampled deals per decision (the measurement "
            "then repeats exactly on any machine; --budget-ms still caps it).",
        ),
    ] = None,
) -> None:
    """The sampler against greedy bots, and greedy against random bots, in seat-rotated
    matches: each margin per game with its 95% interval, and the think time per decision."""
    from arena.bench.strength import measure_strength, render_strength

    rows = measure_strength(
        game,
        matches,
        seed=seed,
        budget_ms=budget_ms,
        samples=samples,
        time_ms=0 if samples else 1000,
        on_match=lambda bot, i, margin: typer.echo(
            f"  {bot}: match {i + 1}/{matches}: {margin:+.1f} a game", err=True
        ),
    )
    typer.echo(render_strength(rows, game, seed))


@command(bench_app, "web")
def bench_web(
    entrants: Annotated[int, typer.Option(min=4, help="Entrants of the league built.")] = 50,
    games: Annotated[int, typer.Option(min=4, help="Games stored (4 a match).")] = 10_000,
    repeats: Annotated[int, typer.Option(min=1, help="Timed repeats of each page.")] = 7,
    db: Annotated[
        Path | None,
        typer.Option(
            help="Keep the league built in this file, or time the one already there "
            "(its --games and --entrants are its own)."
        ),
    ] = None,
    growth: Annotated[
        str,
        typer.Option(
            help="Comma-separated game counts (e.g. 1000,10000,100000,1000000): build and "
            "time a league of each, and print docs/benchmarks.md's growth rows."
        ),
    ] = "",
) -> None:
    """The web site's pages over a big league: the league page, an entrant page, a match
    page and the viewer opening a game, through the whole application, in ms (cold, the
    median and the 95th percentile of the repeats), with the database's build time and
    bytes a game (docs/benchmarks.md, "The web site")."""
    from arena.bench.web import GROWTH_HEADER, bench_growth
    from arena.bench.web import bench_web as measure

    def say(text: str) -> None:
        typer.echo(text, err=True)

    if growth:
        try:
            sizes = [int(part) for part in growth.split(",") if part.strip()]
        except ValueError:
            raise typer.BadParameter("--growth takes game counts such as 1000,10000") from None
        if not sizes or min(sizes) < 4:
            raise typer.BadParameter("--growth takes game counts of at least 4")
        rows = bench_growth(sizes, entrants, repeats, say)
        typer.echo(GROWTH_HEADER)
        typer.echo("|" + "---|" * (GROWTH_HEADER.count("|") - 1))
        for row in rows:
            typer.echo(row.growth_row())
        return
    typer.echo("\n".join(measure(entrants, games, repeats, db, say).lines()))


@command(bench_app, "store")
def bench_store(
    games: Annotated[
        int, typer.Option(min=4, help="Full 4-kingdom Trix games to play and store.")
    ] = 400,
) -> None:
    """Bytes a game takes in the league database, by table and index, before the
    compact store (migration 13) and after, in one run; and the migration's speed."""
    from arena.bench.store import bench_store as measure

    typer.echo("\n".join(measure(games).lines()))


@command(bench_app, "report")
def bench_report(
    games: Annotated[int, typer.Option(min=4, help="Games stored (4 a match).")] = 10_000,
    jobs: Annotated[
        int, typer.Option(min=0, help="Processes building games' pages (0: one per core).")
    ] = 0,
) -> None:
    """`arena report` of a league of GAMES games into a new folder, then again after the
    league grew by a tenth: seconds and bytes (a game and in all), files, and what the
    second report wrote (docs/benchmarks.md)."""
    from arena.bench.report import bench_report as measure

    typer.echo("\n".join(measure(games, jobs or None).lines()))


@command(bench_app, "cluster")
def bench_cluster(
    matches: Annotated[int, typer.Option(min=1, help="Seat-rotated matches (4 games each).")] = 16,
    workers: Annotated[
        str, typer.Option(help="The cluster sizes to play the league on, in order.")
    ] = "1,2,4",
    wait_ms: Annotated[
        float, typer.Option(min=0.0, max=1000.0, help="Milliseconds each bot waits a decision.")
    ] = 2.0,
    kingdoms: Annotated[
        int, typer.Option(min=1, max=4, help="Trix kingdoms a game (4: 20 deals; 1: 5).")
    ] = 1,
) -> None:
    """One league on a LocalCluster of 1, 2 and 4 Dask workers, in one run.

    Prints games per minute on each size and the speed-up over one worker (bots that wait
    instead of computing, so the cores are not the limit), and the main process's check
    of each returned game against a game's time. Needs pip install 'trix-arena[cluster]'."""
    from arena.errors import ConfigError

    try:
        sizes = tuple(int(n) for n in workers.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise ConfigError(f"--workers must be cluster sizes such as 1,2,4; got {workers!r}")
    try:
        import distributed  # noqa: F401

        from arena.bench.cluster import bench_cluster as measure
        from arena.bench.cluster import lines
    except ImportError:
        raise ConfigError(
            "arena bench cluster needs Dask: pip install 'trix-arena[cluster]'"
        ) from None
    typer.echo("\n".join(lines(measure(matches, sizes, wait_ms, kingdoms), wait_ms)))


@command(bench_app, "ladder")
def bench_ladder(
    versions: Annotated[int, typer.Option(min=4, max=1000, help="Versions on the ladder.")] = 100,
    games: Annotated[
        int, typer.Option(min=4, max=1_000_000, help="Games stored before the choices are timed.")
    ] = 100_000,
    choices: Annotated[int, typer.Option(min=1, max=100_000, help="Choices timed.")] = 1000,
    promotion: Annotated[
        bool,
        typer.Option(
            "--promotion/--no-promotion",
            help="Also play promotion tests: games to a decision, paired against unpaired.",
        ),
    ] = True,
    seeds: Annotated[int, typer.Option(min=1, max=10_000, help="Promotion tests per case.")] = 40,
) -> None:
    """A ladder's matchmaker timed at VERSIONS versions and GAMES stored games (the
    database built by a fast path, docs/benchmarks.md), and games to a promotion
    decision for candidates better by about 20 and 50 points a game, paired and unpaired."""
    from arena.bench.ladder import bench_ladder as measure

    typer.echo("\n".join(measure(versions, games, choices, promotion, seeds).lines()))


@command(bench_app, "duel")
def bench_duel(
    a: Annotated[str, typer.Option(help="Bot A (a builtin: spec; played in process).")] = (
        "builtin:mixed:1.0"
    ),
    b: Annotated[str, typer.Option(help="Bot B.")] = "builtin:mixed:0.9",
    opponents: Annotated[
        list[str] | None,
        typer.Option(help="The opponents, as `arena duel --opponents` (default builtin:greedy)."),
    ] = None,
    game: Game = TRIX,
    rules: Annotated[
        list[str] | None, typer.Option(help="Rule options KEY=VALUE, repeatable.")
    ] = None,
    margin1: Annotated[float, typer.Option(help="H1: A better by this (H0: by 0).")] = 20.0,
    max_games: Annotated[
        int, typer.Option(min=1, max=1_000_000, help="Games (both sides') before undecided.")
    ] = 4000,
    seeds: Annotated[
        int, typer.Option(min=1, max=10_000, help="Tests of each kind (one deal key each).")
    ] = 5,
) -> None:
    """Games to a verdict: `arena duel`'s paired matches against two separate runs (A
    and B each on deals of its own, read by the unpaired test), on the same question."""
    from arena.bench.duel import bench_duel as measure
    from arena.bench.duel import render_duel
    from arena.cli.play import parse_rules
    from arena.league.standings.sprt import SprtSettings, check_settings

    test = {**vars(SprtSettings()), "margin1": margin1, "max_games": max_games}
    check_settings(test, "--", {"max_games": "max-games"})
    for spec in (a, b, *(opponents or [])):
        if not spec.startswith("builtin:"):
            raise ConfigError(f"{spec!r}: the bench plays in process; give builtin: specs")
    figures = measure(
        a,
        b,
        tuple(opponents or ()),
        game=game,
        rules=parse_rules(rules or []),
        settings=SprtSettings(**test),
        seeds=seeds,
        on_test=lambda kind, k, v: typer.echo(
            f"  {kind} seed {k + 1}: {v.decision} after {v.games} games", err=True
        ),
    )
    typer.echo(render_duel(figures))


@command(
    bench_app,
    "ladder-web",
    interrupted="stopped: every process the bench started was ended",
    interrupted_code=130,
)
def bench_ladder_web(
    readers: Annotated[
        int, typer.Option(min=1, max=10_000, help="Readers at once, each on its own connection.")
    ] = 100,
    seconds: Annotated[
        float, typer.Option(min=1.0, max=86_400.0, help="Seconds the readers read.")
    ] = 60.0,
    upload_every: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=3600.0,
            help="Seconds between two uploads through POST /api/v1/submissions (0: none).",
        ),
    ] = 10.0,
    db: Annotated[
        Path | None,
        typer.Option(
            help="A ladder database to use as it is (an author is added to it for the "
            "uploads); default: a new ladder in a temporary folder."
        ),
    ] = None,
    games: Annotated[
        int,
        typer.Option(
            min=0,
            max=1_000_000,
            help="Without --db: start from a ladder of about this many stored games, "
            "written directly (0: a new ladder of four house bots).",
        ),
    ] = 0,
    workers: Annotated[
        int, typer.Option(min=1, max=64, help="Worker processes of `arena ladder run`.")
    ] = 1,
    think: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=60.0,
            help="Seconds a reader waits between two requests, 0.5-1.5 times at random "
            "(0: back to back).",
        ),
    ] = 1.0,
) -> None:
    """The ladder's site while `arena ladder run` plays: READERS readers on loopback
    reading its pages and API, an upload every UPLOAD_EVERY seconds; page, API and
    upload times at p50, p95 and max, failed requests, games played, whether every
    upload was stored exactly once. Exits 1 when a request failed."""
    from arena.bench.ladder_site.load import bench_ladder_web as measure

    if db is not None and games:
        raise ConfigError("give --db or --games, not both")
    figures = measure(
        readers=readers,
        seconds=seconds,
        upload_every=upload_every,
        db=db,
        games=games,
        workers=workers,
        think=think,
        say=lambda text: typer.echo(text, err=True),
    )
    typer.echo("\n".join(figures.lines()))
    if figures.failed or figures.stored:
        raise typer.Exit(1)


@command(bench_app, "ladder-pages")
def bench_ladder_pages(
    games: Annotated[
        int, typer.Option(min=400, max=1_000_000, help="Games stored (about; 4 a match).")
    ] = 100_000,
    versions: Annotated[
        int, typer.Option(min=4, max=1000, help="House versions on the ladder (and 2 more).")
    ] = 100,
    requests: Annotated[int, typer.Option(min=1, max=10_000, help="Timed requests a route.")] = 20,
) -> None:
    """Every page and API route of the ladder site over a ladder of GAMES stored games
    (written directly, docs/benchmarks.md), in process: p50, p95 and max of each, as a
    ratio to a static file through the same application, and against the 300 ms goal."""
    from arena.bench.ladder_site.routes import bench_ladder_pages as measure

    figures = measure(games, versions, requests, say=lambda text: typer.echo(text, err=True))
    typer.echo("\n".join(figures.lines()))
