"""The `arena` command: a thin layer that parses, calls the library, and reports.

Errors the user can fix (`ArenaError`) become one clear sentence and exit code 2;
anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena import __version__
from arena.bots.sandbox import Sandbox, sandbox_notice
from arena.errors import ArenaError, ConfigError
from arena.games import GAMES, get_game
from arena.play.matches import play_match
from arena.play.referee import RefereeSettings, play_game
from arena.play.replay_text import replay_text
from arena.play.replays import check_replay, replay_folder, write_replay

if TYPE_CHECKING:  # grpc loads only for the commands that talk to bots: `arena --help`,
    # `table`, `games` and `replay` start some 0.15 s sooner without it
    from arena.bots.remote.settings import RemoteSettings

app = typer.Typer(
    help="Trix Arena: a referee for card-game bot competitions (Trix and Trianon).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)
bench_app = typer.Typer(help="Benchmarks that print figures (nothing is asserted).")
app.add_typer(bench_app, name="bench")


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def parse_rules(pairs: Sequence[str]) -> dict[str, str]:
    """`KEY=VALUE` strings into a dict; the game validates the values. One `--rules` may
    hold several pairs separated by commas or spaces (`--rules doubling=false,kingdoms=1`)."""
    rules: dict[str, str] = {}
    for pair in (p for text in pairs for p in text.replace(",", " ").split()):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--rules takes KEY=VALUE, e.g. doubling=false; got {pair!r}")
        rules[key.strip()] = value.strip()
    return rules


def game_seeds(seed: str, count: int) -> list[str]:
    """The seeds of `count` games derived from one `--seed`: `SEED-1`, `SEED-2`, ..."""
    return [f"{seed}-{i}" for i in range(1, count + 1)]


def _remote_settings(
    move_timeout: float, startup_timeout: float, time_bank: float, transport: str
) -> RemoteSettings:
    if transport not in ("stream", "unary"):
        raise ConfigError(f"--transport must be stream or unary, not {transport!r}")
    if move_timeout <= 0 or startup_timeout <= 0 or time_bank < 0:
        raise ConfigError("timeouts must be positive (and --time-bank zero or more)")
    from arena.bots.remote.settings import RemoteSettings

    return RemoteSettings(move_timeout, startup_timeout, time_bank, transport)


MoveTimeout = Annotated[
    float, typer.Option(help="Seconds a bot has for each decision (move_timeout).")
]
StartupTimeout = Annotated[
    float, typer.Option(help="Seconds a started bot has to listen and shake hands.")
]
TimeBank = Annotated[
    float, typer.Option(help="Seconds per game a bot may overrun move_timeout by, in all.")
]
Transport = Annotated[
    str, typer.Option(help="stream: one Play stream per game; unary: one Decide call each.")
]
LogDir = Annotated[
    Path, typer.Option(help="Folder for the started bots' logs (one file per bot and match).")
]
LeagueDb = Annotated[Path, typer.Option(help="The league database.")]
LatestLeague = Annotated[
    str | None, typer.Option(help="The league's name (default: the latest league).")
]
TextOrJson = Annotated[str, typer.Option("--format", help="text or json.")]


def _text_or_json(fmt: str) -> None:
    if fmt not in ("text", "json"):
        _fail(f"--format must be text or json, not {fmt!r}")


SandboxMode = Annotated[
    str,
    typer.Option(
        "--sandbox",
        help="on: started bots run confined (bubblewrap, own user, limits; see README); "
        "off: with resource limits only, for bots you trust.",
    ),
]


def _sandbox(mode: str, specs: list[str]) -> Sandbox:
    """The sandbox for `arena play` / `check-bot`, and its notice said once."""
    if mode not in ("on", "off"):
        raise ConfigError(f"--sandbox must be on or off, not {mode!r}")
    if any(not s.startswith(("builtin:", "grpc:")) for s in specs):
        notice = sandbox_notice(mode == "on", "pass --sandbox off")
        if notice:
            typer.echo(notice, err=True)
    return Sandbox(enabled=mode == "on")


@app.command()
def play(
    bots: Annotated[
        list[str],
        typer.Argument(
            help="One bot spec per seat: builtin:NAME, grpc:HOST:PORT, grpc:unix:PATH, "
            "or a command such as 'python sample_bots/random_bot.py'."
        ),
    ],
    game: Annotated[str, typer.Option(help=f"The game: {', '.join(GAMES)}.")] = "trix",
    seed: Annotated[
        str, typer.Option(help="Seed of the run; game (or match) i plays SEED-i.")
    ] = "1",
    games: Annotated[
        int, typer.Option(min=1, help="How many games, seats fixed (not with --matches).")
    ] = 1,
    matches: Annotated[
        int,
        typer.Option(
            min=0, help="Play N seat-rotated matches instead: one game per rotation, same deals."
        ),
    ] = 0,
    rules: Annotated[
        list[str] | None,
        typer.Option(
            help="Rule options KEY=VALUE (docs/rules/trix.md T-9, docs/rules/trianon.md N-9), "
            "repeatable."
        ),
    ] = None,
    replays: Annotated[
        Path | None, typer.Option(help="Folder to write one replay JSON per game into.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object per game instead of text.")
    ] = False,
    move_timeout: MoveTimeout = 1.0,
    startup_timeout: StartupTimeout = 10.0,
    time_bank: TimeBank = 0.0,
    max_faults: Annotated[
        int, typer.Option(min=1, help="Faults in one game after which a bot only gets fallbacks.")
    ] = 5,
    transport: Transport = "stream",
    logs: LogDir = Path("arena-logs"),
    sandbox_mode: SandboxMode = "on",
) -> None:
    """Play games (or seat-rotated matches) between bots and print the results."""
    if matches and games != 1:
        _fail(
            f"--games {games} and --matches {matches} do not go together: --matches N plays N "
            "seat-rotated matches (one game per rotation), --games N plays N games with seats "
            "fixed; give one of them"
        )
    try:
        sandbox = _sandbox(sandbox_mode, bots)
        game_obj = get_game(game)
        options = game_obj.parse_options(parse_rules(rules or []))
        if len(bots) != game_obj.seats:
            raise ConfigError(f"{game} needs {game_obj.seats} bots, one per seat; got {len(bots)}")
        remote = _remote_settings(move_timeout, startup_timeout, time_bank, transport)
        referee = RefereeSettings(max_faults=max_faults)
        if replays is not None:
            replay_folder(replays)
        from arena.bots.spec import started_players, unique_names

        counter = iter(range(1, 1 << 30))

        def report(result, label: str, seed_: str, names: list[str], extra: dict) -> None:
            index = next(counter)
            path = write_replay(replays, index, result.replay) if replays else None
            if as_json:
                typer.echo(
                    json.dumps(
                        {
                            "game": index,
                            **extra,
                            "seed": seed_,
                            "players": result.replay["players"],
                            "totals": result.totals,
                            "ranks": result.ranks,
                            "faults": len(result.faults),
                            "fault_details": [fault.as_dict() for fault in result.faults],
                            "replay": str(path) if path else None,
                        }
                    )
                )
            else:
                line = "  ".join(
                    f"{n} {t:+d} (#{r})"
                    for n, t, r in zip(result.replay["players"], result.totals, result.ranks,
                                       strict=True)
                )  # fmt: skip
                typer.echo(f"{label} seed {seed_}: {line}")
                for fault in result.faults:
                    typer.echo(
                        f"  fault: {result.replay['players'][fault.seat]} deal {fault.deal} "
                        f"decision {fault.decision} {fault.kind}: {fault.detail}"
                    )

        if matches:
            sums: dict[str, int] = {}
            played = 0
            for m, match_seed in enumerate(game_seeds(seed, matches), start=1):
                with started_players(
                    bots, game, game_obj.options_dict(options), remote, logs,
                    log_prefix=f"match{m}-", sandbox=sandbox,
                ) as players:  # fmt: skip
                    names = unique_names([p.name for p in players])
                    result = play_match(
                        game_obj, players, names, match_seed, options, referee,
                        on_game=lambda r, seating, g, m=m, s=match_seed, n=names: report(
                            g, f"match {m} game {r + 1}", s, n, {"match": m, "rotation": r}
                        ),
                    )  # fmt: skip
                totals = result.bot_totals()
                played += len(result.games)
                for name, total in zip(names, totals, strict=True):
                    sums[name] = sums.get(name, 0) + total
                if not as_json:
                    typer.echo(
                        f"match {m} seed {match_seed} (sum over {len(result.games)} rotations): "
                        + "  ".join(f"{n} {t:+d}" for n, t in zip(names, totals, strict=True))
                    )
            if not as_json:
                # every bot sits at the table in every game of every match
                typer.echo(
                    f"mean score per game over {matches} matches ({played} games): "
                    + "  ".join(f"{n} {t / played:+.1f}" for n, t in sums.items())
                )
            return
        with started_players(
            bots, game, game_obj.options_dict(options), remote, logs, sandbox=sandbox
        ) as players:
            names = unique_names([p.name for p in players])
            for index, game_seed in enumerate(game_seeds(seed, games), start=1):
                result = play_game(game_obj, players, game_seed, options, referee, names=names)
                report(result, f"game {index}", game_seed, names, {})
    except ArenaError as err:
        _fail(str(err))
    except KeyboardInterrupt:
        _fail("interrupted; every bot process was ended")


@app.command("check-bot")
def check_bot_cmd(
    bot: Annotated[str, typer.Argument(help="The bot spec to check, e.g. 'python my_bot.py'.")],
    game: Annotated[str, typer.Option(help=f"The game: {', '.join(GAMES)}.")] = "trix",
    move_timeout: MoveTimeout = 1.0,
    startup_timeout: StartupTimeout = 10.0,
    transport: Transport = "stream",
    logs: LogDir = Path("arena-logs"),
    sandbox_mode: SandboxMode = "on",
) -> None:
    """Check a bot against the protocol: every contract and decision kind, latency, faults.

    Exit code 0 only when the bot is clean."""
    from arena.bots.check import check_bot

    try:
        sandbox = _sandbox(sandbox_mode, [bot])
        settings = _remote_settings(move_timeout, startup_timeout, 0.0, transport)
        report = check_bot(bot, game, settings, logs, sandbox=sandbox)
    except ArenaError as err:
        _fail(str(err))
    typer.echo("\n".join(report.lines()))
    raise typer.Exit(0 if report.clean else 1)


@app.command()
def demo(
    league: Annotated[
        Path, typer.Option(help="The league to run (default: leagues/demo.toml).")
    ] = Path("leagues/demo.toml"),
    db: Annotated[
        Path | None, typer.Option(help="Database (default: a fresh one in a temporary folder).")
    ] = None,
) -> None:
    """Run the demo league of the sample bots and print its table (what `make demo` does)."""
    import shutil
    import tempfile

    if db is not None:
        run(league, db=db, workers=None, until_separated=False, fmt="text")
        return
    folder = Path(tempfile.mkdtemp(prefix="arena-demo-"))
    try:
        run(league, db=folder / "demo.db", workers=None, until_separated=False, fmt="text")
    except BaseException:  # a failed or interrupted demo leaves no temporary folder behind
        shutil.rmtree(folder, ignore_errors=True)
        raise


@app.command()
def replay(
    target: Annotated[
        str, typer.Argument(help="A stored game's id (see `arena games`), or a replay file.")
    ],
    db: Annotated[Path, typer.Option(help="The league database, for a game id.")] = Path(
        "arena.db"
    ),
    fmt: TextOrJson = "text",
) -> None:
    """Print a game as readable text (deal by deal) or as its arena-replay/1 JSON."""
    _text_or_json(fmt)
    if target.isdigit() and not Path(target).exists():
        data = _stored_replay(db, int(target))
    else:
        try:
            data = json.loads(Path(target).read_text())
        except (OSError, ValueError) as err:
            _fail(f"cannot read replay {target}: {err}")
    try:
        check_replay(data)
        text = json.dumps(data, indent=1) if fmt == "json" else replay_text(data)
    except ArenaError as err:
        _fail(f"{target}: {err}; give a replay file that `arena play --replays` wrote")
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as err:
        _fail(
            f"{target}: not a readable arena-replay/1 replay ({type(err).__name__}: {err}); "
            "give a replay file that `arena play --replays` wrote"
        )
    typer.echo(text)


def _stored_replay(db_path: Path, game_id: int) -> dict[str, Any]:
    db = _open_existing_db(db_path)
    try:
        row = db["games"].get(game_id)
    except Exception:
        _fail(f"no game {game_id} in {db_path}; `arena games --db {db_path}` lists them")
    finally:
        db.close()
    return json.loads(row["replay"])


@app.command()
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
            "neighbours are apart (see README: When a league stops).",
        ),
    ] = False,
    fmt: Annotated[
        str, typer.Option("--format", help="Table format at the end: text, markdown, csv or json.")
    ] = "text",
) -> None:
    """Run a league (or resume it: stored matches are never played again) and print its table."""
    from arena.cli.progress import LeagueProgress
    from arena.league.runner import run_league

    _table_format(fmt)
    try:
        with LeagueProgress() as progress:
            summary = run_league(
                league, db, workers, until_separated, progress.update, progress.note
            )
    except ArenaError as err:
        _fail(str(err))
    except KeyboardInterrupt:
        typer.echo("interrupted: the matches stored so far are kept; run again to resume", err=True)
        raise typer.Exit(130) from None
    typer.echo(
        f"league {summary.league!r}: {summary.played} matches played now, "
        f"{summary.already_stored} were stored before, {summary.scheduled} scheduled"
        + (f"; stopped early: {summary.stopped_early}" if summary.stopped_early else "")
        + f" (database {summary.db_path})"
    )
    _print_table(summary.db_path, summary.league, fmt)


def _databases_nearby() -> list[Path]:
    """The league databases `arena run` may have left in the current folder's subfolders
    (it keeps one beside each league file: leagues/arena.db for leagues/demo.toml)."""
    found = {*Path().glob("*/arena.db"), *Path().glob("leagues/*/arena.db")}
    return sorted(p for p in found if p.is_file())


def missing_db_message(db: Path) -> str:
    """What to say when there is no database at `db`: where `arena run` put it."""
    message = (
        f"no database at {db}: `arena run LEAGUE.toml` keeps its database beside the league "
        "file (leagues/arena.db for leagues/demo.toml); give --db PATH, or run a league first"
    )
    nearby = _databases_nearby()
    if len(nearby) == 1 and nearby[0].resolve() != db.resolve():
        message += f"; did you mean --db {nearby[0]}?"
    return message


def _open_existing_db(db: Path):
    """A league database that must exist already (table, games, replay)."""
    from arena.league.store import open_db

    if not db.exists():
        _fail(missing_db_message(db))
    try:
        return open_db(db)
    except ArenaError as err:
        _fail(str(err))


def _table_format(fmt: str) -> None:
    from arena.league.table import FORMATS

    if fmt not in FORMATS:
        _fail(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")


def _print_table(db: Path, league: str | None, fmt: str) -> None:
    from arena.league.store import league_id_by_name
    from arena.league.table import league_rows, render

    database = _open_existing_db(db)
    try:
        league_id, _ = league_id_by_name(database, league)
        typer.echo(render(league_rows(database, league_id), fmt))
    except ArenaError as err:
        _fail(str(err))
    finally:
        database.close()


@app.command()
def table(
    db: LeagueDb = Path("arena.db"),
    league: LatestLeague = None,
    fmt: Annotated[str, typer.Option("--format", help="text, markdown, csv or json.")] = "text",
) -> None:
    """Show a league table: place, rating (mu - 3 sigma), mu, sigma, scores, margins, faults."""
    _table_format(fmt)
    _print_table(db, league, fmt)


@app.command()
def compare(
    a: Annotated[str, typer.Argument(help="An entrant's name.")],
    b: Annotated[str, typer.Argument(help="Another entrant's name.")],
    db: LeagueDb = Path("arena.db"),
    league: LatestLeague = None,
    fmt: TextOrJson = "text",
) -> None:
    """A's duplicate margin over B in the matches both played, with its 95% interval."""
    from arena.league.compare import compare as compare_entrants
    from arena.league.compare import render_comparison
    from arena.league.store import league_id_by_name

    _text_or_json(fmt)
    database = _open_existing_db(db)
    try:
        league_id, _ = league_id_by_name(database, league)
        result = compare_entrants(database, league_id, a, b)
    except ArenaError as err:
        _fail(str(err))
    finally:
        database.close()
    typer.echo(json.dumps(result) if fmt == "json" else render_comparison(result))


@app.command()
def games(
    db: Annotated[Path, typer.Option(help="The league database.")] = Path("arena.db"),
    league: Annotated[
        str | None, typer.Option(help="Only this league's games (default: all).")
    ] = None,
    fmt: TextOrJson = "text",
) -> None:
    """List stored games: id, match, players, totals, ranks."""
    from arena.league.store import league_id_by_name

    _text_or_json(fmt)
    database = _open_existing_db(db)
    try:
        where, params = "", []
        if league:
            league_id, _ = league_id_by_name(database, league)
            where, params = "WHERE g.league_id = ?", [league_id]
        rows = [
            {
                "id": r["id"],
                "league": r["league"],
                "match": r["idx"],
                "rotation": r["rotation"],
                "seed": r["seed"],
                "players": json.loads(r["players"]),
                "totals": json.loads(r["totals"]),
                "ranks": json.loads(r["ranks"]),
            }
            for r in database.query(
                "SELECT g.*, m.idx, l.name AS league FROM games g "
                "JOIN matches m ON g.match_id = m.id JOIN leagues l ON g.league_id = l.id "
                f"{where} ORDER BY g.id",
                params,
            )
        ]
    except ArenaError as err:
        _fail(str(err))
    finally:
        database.close()
    if fmt == "json":
        typer.echo(json.dumps(rows))
        return
    for row in rows:
        typer.echo(
            f"{row['id']:>6}  {row['league']}  match {row['match']} rot {row['rotation']}  "
            + "  ".join(f"{n} {t:+d}" for n, t in zip(row["players"], row["totals"], strict=True))
        )


@app.command()
def faults(
    db: LeagueDb = Path("arena.db"),
    league: LatestLeague = None,
    bot: Annotated[
        str | None, typer.Option(help="Only this entrant's faults (its name in the league).")
    ] = None,
    fmt: TextOrJson = "text",
) -> None:
    """List every fault of a league: game, deal, decision, expected, got, the bot's log.

    The game is a stored game id (`arena replay GAME_ID`); what came back is truncated.

    Fault kinds: timeout, crash, start-failure, illegal, oversize, protocol (README,
    "Faults")."""
    from arena.league.faults import FORMATS, fault_rows, render_faults
    from arena.league.store import league_id_by_name

    if fmt not in FORMATS:
        _fail(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    database = _open_existing_db(db)
    try:
        league_id, _ = league_id_by_name(database, league)
        rows = fault_rows(database, league_id, bot)
    except ArenaError as err:
        _fail(str(err))
    finally:
        database.close()
    typer.echo(render_faults(rows, fmt))


@bench_app.command("engine")
def bench_engine_cmd(
    game: Annotated[str, typer.Option(help="The game to benchmark.")] = "trix",
    games: Annotated[int, typer.Option(min=1, help="How many full games to play.")] = 300,
) -> None:
    """Full games between four builtin:random bots on one core: games and decisions per second."""
    from arena.bench.runs import bench_engine

    try:
        figures = bench_engine(game, games)
    except ArenaError as err:
        _fail(str(err))
    typer.echo(f"{game}: {figures.games} full games, {figures.decisions} decisions, one core")
    typer.echo(
        f"through the referee (bots, validation, replays): "
        f"{figures.games_per_second:,.1f} games/s, {figures.decisions_per_second:,.0f} decisions/s"
    )
    typer.echo(
        f"engine alone, observation built for every decision: "
        f"{figures.engine_games_per_second:,.1f} games/s"
    )


@bench_app.command("referee")
def bench_referee_cmd(
    games: Annotated[int, typer.Option(min=1, help="Full games to play per transport.")] = 6,
    transport: Annotated[
        str, typer.Option(help="stream, unary, or both (one after the other).")
    ] = "both",
) -> None:
    """Full games between four external random bots, against a bare gRPC echo.

    Prints decisions per second, the referee's mean time per decision, the round trip of a
    bare gRPC call of the same size over the same transport, their ratio, the same round
    trip taking turns over four echo servers (as a game's decisions go round its four
    bots) and the ratio to that, the floor (the games' requests sent again to the same
    bots with no referee work between them) and its ratio, and seconds per game."""
    from arena.bench.runs import bench_referee

    modes = ["stream", "unary"] if transport == "both" else [transport]
    try:
        for mode in modes:
            f = bench_referee(games, mode)
            typer.echo(
                f"{mode}: {f.games} games, {f.decisions} decisions asked, "
                f"{f.decisions_per_second:,.0f} decisions/s, {f.seconds_per_game:.3f} s per game"
            )
            typer.echo(
                f"  referee time per decision {f.referee_us:.0f} us; bare gRPC round trip "
                f"({mode}, {f.message_bytes} bytes) {f.bare_us:.0f} us; ratio {f.ratio:.2f}"
            )
            typer.echo(
                f"  of which waiting for the answer {f.wait_us:.0f} us (the round trip and the "
                f"Python bot's own work), the referee's own work {f.own_us:.0f} us "
                f"(engine, forced moves, encoding, checking)"
            )
            typer.echo(
                f"  the bare round trip taking turns over four echo servers, as the decisions "
                f"go round the four bots: {f.bare_four_us:.0f} us; ratio {f.ratio_four:.2f}"
            )
            typer.echo(
                f"  the floor: the games' requests sent again to the same four bots, with no "
                f"referee work between them: {f.floor_us:.0f} us; ratio {f.ratio_floor:.2f} to "
                f"the one-server echo"
            )
    except ArenaError as err:
        _fail(str(err))


@bench_app.command("league")
def bench_league_cmd(
    matches: Annotated[int, typer.Option(min=1, help="Seat-rotated matches (4 games each).")] = 12,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 2,
) -> None:
    """A league of four external random bots into a fresh database: games per minute,
    everything included (bot start-up, storage, ratings)."""
    from arena.bench.runs import bench_league

    games, seconds = bench_league(matches, workers)
    typer.echo(
        f"{games} games in {seconds:.1f} s with {workers} workers: "
        f"{games / seconds * 60:.0f} games per minute"
    )


@bench_app.command("rating")
def bench_rating_cmd(
    seeds: Annotated[int, typer.Option(min=1, help="Independent league seeds.")] = 100,
    matches: Annotated[
        int, typer.Option(min=1, help="Seat-rotated matches per league (4 games each): the cap.")
    ] = 40,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 2,
    cache: Annotated[
        Path | None,
        typer.Option(help="JSON-lines file of played leagues: read back, extended, resumable."),
    ] = None,
    extra: Annotated[
        bool, typer.Option("--extra", help="Also show TrueSkill fed per match, deal and game.")
    ] = False,
) -> None:
    """The ladder p = 0.6, 0.7, 0.8, 0.9 (Trix, one table) over many league seeds: games
    each statistic needs before 90% and 95% of seeds order it right, and how the
    --until-separated rule does. Slow: about a minute per seed on one core."""
    from arena.bench.rating import evaluate, play_leagues, render_bench
    from arena.league.config import RATE_BY_DEFAULT, Ratings
    from arena.league.separation import StopRule

    leagues = play_leagues(
        seeds,
        matches,
        workers,
        cache,
        progress=lambda n: typer.echo(f"  {n}/{seeds} leagues played", err=True),
    )
    defaults = Ratings()
    bench = evaluate(leagues, defaults, RATE_BY_DEFAULT, StopRule(), extra, workers)
    typer.echo(render_bench(bench))


@app.command()
def version() -> None:
    """Print the arena's version."""
    typer.echo(__version__)


def _terminated(signum: int, frame: Any) -> None:
    """SIGTERM ends a command the way Ctrl-C does, so every bot it started is ended
    (without the sandbox, nothing else would end them)."""
    raise KeyboardInterrupt


def main() -> None:
    """Console entry point."""
    signal.signal(signal.SIGTERM, _terminated)
    try:
        app()
    except BrokenPipeError:  # `arena ... | head` is fine
        sys.stderr.close()


if __name__ == "__main__":
    main()
