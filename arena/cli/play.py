"""`arena play`: games or seat-rotated matches between bots, printed as they end."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.bots.confinement.sandbox import Sandbox, sandbox_notice
from arena.bots.remote.settings import (
    DEFAULT_GAME_TIME,
    RemoteSettings,
    TransportKind,
    move_timeout_warning,
)
from arena.cli.base import (
    FAULT_EXIT_CODE,
    TRIX,
    Game,
    GameTime,
    LogDir,
    MoveTimeout,
    Sandboxing,
    SandboxMode,
    StartupTimeout,
    TimeBank,
    Transport,
    command,
)
from arena.errors import ConfigError
from arena.play.deal_keys import deal_key_problem, normal_key

if TYPE_CHECKING:  # grpc loads only for the commands that talk to bots
    from arena.bots.human import HumanTable
    from arena.bots.sessions import GamePlayed, MatchPlayed
from arena.play.referee import RefereeSettings


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


def started_sandbox(mode: SandboxMode, specs: Sequence[str]) -> Sandbox:
    """The sandbox for `arena play` and `check-bot`; its notice, if any, said once."""
    if any(not s.startswith(("builtin:", "grpc:")) for s in specs):
        notice = sandbox_notice(mode == SandboxMode.ON, "pass --sandbox off")
        if notice:
            typer.echo(notice, err=True)
    return Sandbox(enabled=mode == SandboxMode.ON)


@command(interrupted="error: interrupted; every bot process was ended")
def play(
    bots: Annotated[
        list[str],
        typer.Argument(
            help="One bot spec per seat: builtin:NAME, grpc:HOST:PORT, grpc:unix:PATH, "
            "a command such as 'python sample_bots/random_bot.py', or human (human:NAME) "
            "for a person, who plays at a page of their own (docs/human.md)."
        ),
    ],
    game: Game = TRIX,
    seed: Annotated[
        str,
        typer.Option(
            help="Public seed of the run: game (or match) i is dealt from SEED-i under the "
            "deal key."
        ),
    ] = "1",
    deal_key: Annotated[
        str | None,
        typer.Option(
            help="The secret the deals come from (32 to 128 hex digits): with the same "
            "--seed, the same deals again. Default: a fresh key for this run, printed at "
            "the end, so no bot can work out the hands from the seed."
        ),
    ] = None,
    games: Annotated[
        int,
        typer.Option(
            min=1, max=1_000_000, help="How many games, seats fixed (not with --matches)."
        ),
    ] = 1,
    matches: Annotated[
        int,
        typer.Option(
            min=0,
            max=100_000,  # a league's most matches (docs/leagues.md, "Ranges and sizes")
            help="Play N seat-rotated matches instead: one game per rotation, same deals.",
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
        Path | None,
        typer.Option(
            help="Folder to write one replay JSON per game into (game-0001.json, ...): a "
            "folder that holds replays already is numbered on after its last one, so no "
            "file is ever replaced."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object per game instead of text.")
    ] = False,
    move_timeout: MoveTimeout = 1.0,
    startup_timeout: StartupTimeout = 10.0,
    time_bank: TimeBank = 0.0,
    game_time: GameTime = DEFAULT_GAME_TIME,
    max_faults: Annotated[
        int, typer.Option(min=1, help="Faults in one game after which a bot only gets fallbacks.")
    ] = 5,
    transport: Transport = TransportKind.STREAM,
    logs: LogDir = Path("arena-logs"),
    sandbox_mode: Sandboxing = SandboxMode.ON,
    fail_on_fault: Annotated[
        bool,
        typer.Option(
            "--fail-on-fault",
            help=f"Exit with code {FAULT_EXIT_CODE} when any game had a fault (after printing "
            "everything), for scripts and CI.",
        ),
    ] = False,
    db: Annotated[
        Path | None,
        typer.Option(
            help="Store the games in this league database, as a league of their own, for "
            "`arena games`, `faults`, `replay` and `table`."
        ),
    ] = None,
    league: Annotated[
        str | None,
        typer.Option(help="With --db: the league's name (default: play-YYYYMMDD-HHMMSS)."),
    ] = None,
    host: Annotated[
        str,
        typer.Option(
            help="With a human seat: the address the table's pages are served on "
            "(loopback unless you say otherwise)."
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(
            min=0,
            max=65535,
            help="With a human seat: the port the table's pages are served on (0, the "
            "default: a free one).",
        ),
    ] = 0,
    open_page: Annotated[
        bool,
        typer.Option("--open", help="With a human seat: open the first seat's page in a browser."),
    ] = False,
    human_move_timeout: Annotated[
        float | None,
        typer.Option(
            min=0.1,
            max=86_400.0,
            help="Seconds a person has for each decision; then the fallback move is played "
            "and a timeout fault recorded. Default: no limit.",
        ),
    ] = None,
) -> None:
    """Play games (or seat-rotated matches) between bots and print the results.

    A human seat (`human` or `human:NAME`) is played by a person at a page of the
    table's own small web server: one link per seat, printed on stderr, each with a
    secret of its own (docs/human.md).

    Exit codes: 0 done (faults or not, unless --fail-on-fault); 2 an error; 3 with
    --fail-on-fault, when any game had a fault."""
    from arena.bots.human import HumanTable, is_human_spec
    from arena.bots.sessions import MatchPlayed, SessionRequest, check_request
    from arena.league.running.play_run import play_games

    humans = HumanTable(bots, timeout=human_move_timeout)
    machines = [spec for spec in bots if not is_human_spec(spec)]
    if any(not spec.startswith("builtin:") for spec in machines):
        said = move_timeout_warning(move_timeout, "--move-timeout")
        if said:
            typer.echo(said, err=True)
    request = SessionRequest(
        specs=tuple(bots),
        game=game,
        rules=parse_rules(rules or []),
        seed=seed,
        games=games,
        matches=matches,
        remote=RemoteSettings(
            move_timeout=move_timeout,
            startup_timeout=startup_timeout,
            time_bank=time_bank,
            transport=transport,
            game_time=game_time,
        ),
        referee=RefereeSettings(max_faults=max_faults),
        logs=logs,
        sandbox=started_sandbox(sandbox_mode, machines),
        deal_key=checked_key(deal_key),
        humans=humans or None,
    )

    def show(played: GamePlayed | MatchPlayed, path: Path | None) -> None:
        if isinstance(played, MatchPlayed):
            if not as_json:
                typer.echo(_match_line(played))
        else:
            typer.echo(_game_json(played, path) if as_json else _game_text(played))

    if humans:
        check_request(request)  # refused now, before a link is printed
        run = _at_table(humans, host, port, open_page, lambda: play_games(
            request, show=show, replays=replays, db=db, league=league
        ))  # fmt: skip
    else:
        run = play_games(request, show=show, replays=replays, db=db, league=league)
    if matches and not as_json:
        typer.echo(
            f"mean score per game over {matches} matches ({run.series.games} games): "
            + "  ".join(f"{n} {mean:+.1f}" for n, mean in run.series.means().items())
        )
    if run.stored:
        typer.echo(run.stored, err=True)
    if deal_key is None and not run.stored and not as_json:
        typer.echo(
            f"deal key {run.key}: `--deal-key {run.key} --seed {seed}` deals these cards again",
            err=True,
        )
    if run.overloads:
        typer.echo(
            f"warning: {_count(run.overloads, 'timeout')} came from this machine being too "
            "busy, not from the bots (not charged to them): give a longer --move-timeout, "
            "or run fewer things at once",
            err=True,
        )
    if fail_on_fault and run.faults:
        typer.echo(
            f"exit code {FAULT_EXIT_CODE} (--fail-on-fault): {_count(run.faults, 'fault')} in "
            f"{_count(run.faulty_games, 'game')} of those played",
            err=True,
        )
        raise typer.Exit(FAULT_EXIT_CODE)


def _at_table(humans: HumanTable, host: str, port: int, open_page: bool, play: Any) -> Any:
    """`play()` with the table's pages served: each person's link printed first (and
    the first opened in a browser with --open), the server stopped after."""
    import webbrowser

    from arena.web.table.server import serving_table

    with serving_table(humans, host, port) as links:
        for seat, link in links.items():
            typer.echo(f"human seat {seat} ({humans.seats[seat].name}): {link}", err=True)
        if open_page:
            webbrowser.open(links[min(links)])
        return play()


def checked_key(key: str | None) -> str:
    """`--deal-key` as the session takes it ("" for a fresh key), or a ConfigError
    saying what a key must be."""
    if key is None:
        return ""
    problem = deal_key_problem(key)
    if problem:
        raise ConfigError(f"--deal-key {problem}")
    return normal_key(key)


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _game_json(played: GamePlayed, path: Path | None) -> str:
    result = played.result
    extra = {"match": played.match, "rotation": played.rotation} if played.match else {}
    return json.dumps(
        {
            "game": played.number,
            **extra,
            "seed": played.seed,
            "game_seed": result.replay["seed"],
            "players": result.replay["players"],
            "totals": result.totals,
            "ranks": result.ranks,
            "faults": len(result.faults),
            "fault_details": [fault.as_dict() for fault in result.faults],
            "replay": str(path) if path else None,
        }
    )


def _game_text(played: GamePlayed) -> str:
    result = played.result
    players = result.replay["players"]
    label = (
        f"match {played.match} game {played.rotation + 1}"
        if played.match
        else f"game {played.number}"
    )
    line = "  ".join(
        f"{n} {t:+d} (#{r})" for n, t, r in zip(players, result.totals, result.ranks, strict=True)
    )
    lines = [f"{label} seed {played.seed}: {line}"]
    lines += [
        f"  fault: {players[f.seat]} deal {f.deal} decision {f.decision} {f.kind}: "
        + f.detail
        + f.log_note()
        + (OVERLOAD_NOTE if f.overload else "")
        for f in result.faults
    ]
    return "\n".join(lines)


OVERLOAD_NOTE = (
    "; not charged to the bot (not counted toward --max-faults or --fail-on-fault): the "
    "machine was too busy to serve this --move-timeout; give a longer --move-timeout, or "
    "run fewer things at once"
)


def _match_line(played: MatchPlayed) -> str:
    return (
        f"match {played.number} seed {played.seed} (sum over {played.games} rotations): "
        + "  ".join(f"{n} {t:+d}" for n, t in zip(played.names, played.totals, strict=True))
    )
