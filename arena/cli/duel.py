"""`arena duel A B`: is A better than B? Paired matches on the same deals against the
same opponents, read by the sequential test, with progress as it plays."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.bots.remote.settings import (
    DEFAULT_GAME_TIME,
    RemoteSettings,
    TransportKind,
    move_timeout_warning,
)
from arena.cli.base import (
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
from arena.cli.play import checked_key, parse_rules, started_sandbox
from arena.errors import ConfigError
from arena.league.standings.sprt import SprtSettings, check_settings
from arena.play.referee import RefereeSettings

if TYPE_CHECKING:  # grpc loads only when the duel is played
    from arena.duel.runner import Duel, PairPlayed

INTERRUPTED_CODE = 130


@command()
def duel(
    a: Annotated[
        str,
        typer.Argument(
            metavar="A",
            help="Bot A, the one asked about (say your new version): builtin:NAME, "
            "grpc:HOST:PORT, or a command such as 'python my_bot.py'.",
        ),
    ],
    b: Annotated[
        str,
        typer.Argument(
            metavar="B", help="Bot B, the one A is compared with (say your old version)."
        ),
    ],
    opponents: Annotated[
        list[str] | None,
        typer.Option(
            help="The opponents at both tables: one spec for all of them, or one per seat "
            "but A's (3 for Trix, 2 for Trianon), the option repeated. Default: "
            "builtin:greedy in every seat."
        ),
    ] = None,
    game: Game = TRIX,
    rules: Annotated[
        list[str] | None,
        typer.Option(help="Rule options KEY=VALUE, repeatable (as `arena play --rules`)."),
    ] = None,
    margin0: Annotated[
        float,
        typer.Option(
            "--margin0",
            "--elo0",
            help="H0: A is better than B by this many points a game (fishtest's elo0, in "
            "points); accepting it says A is not better by margin1."
        ),
    ] = 0.0,
    margin1: Annotated[
        float,
        typer.Option(
            "--margin1",
            "--elo1",
            help="H1: A is better by this many points a game (fishtest's elo1, in points); "
            "above margin0. Accepting it says A is better."
        ),
    ] = 20.0,
    alpha: Annotated[
        float, typer.Option(help="The chance of accepting H1 when H0 is true.")
    ] = 0.05,
    beta: Annotated[float, typer.Option(help="The chance of accepting H0 when H1 is true.")] = 0.05,
    max_games: Annotated[
        int,
        typer.Option(
            help="Stop undecided after this many games (A's and B's together: a Trix pair is 8)."
        ),
    ] = 2000,
    min_pairs: Annotated[
        int, typer.Option(help="No verdict before this many pairs (the spread needs them).")
    ] = 5,
    until_decided: Annotated[
        bool,
        typer.Option(
            "--until-decided",
            help="Play until the test decides or --max-games is reached (the default).",
        ),
    ] = False,
    matches: Annotated[
        int,
        typer.Option(
            min=0,
            max=100_000,
            help="Play exactly N pairs instead (2 matches each), whatever the test says "
            "meanwhile; the verdict is read after them.",
        ),
    ] = 0,
    deal_key: Annotated[
        str | None,
        typer.Option(
            help="The secret the deals come from (32 to 128 hex digits): the same key, the "
            "same deals again. Default: a fresh key, printed at the end."
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the result as one JSON object (docs/duel.md)."),
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
) -> None:
    """Is A better than B? Seat each at its own table with the same opponents on the
    same deals, pair after pair, and read the paired difference of their duplicate
    margins with a sequential test (docs/duel.md).

    Progress goes to stderr after every pair; the result to stdout. Exit codes: 0 done
    (whatever the verdict); 2 an error; 130 interrupted (the result so far printed)."""
    from arena.duel.report import summary
    from arena.duel.runner import Duel, DuelRequest, play_duel

    if until_decided and matches:
        raise ConfigError(
            f"--until-decided and --matches {matches} do not go together: --until-decided "
            "plays until the test decides, --matches N plays N pairs; give one of them"
        )
    values = {"margin0": margin0, "margin1": margin1, "alpha": alpha, "beta": beta,
              "max_games": max_games, "min_pairs": min_pairs}  # fmt: skip
    check_settings(values, names={k: "--" + k.replace("_", "-") for k in values})
    specs = [a, b, *(opponents or [])]
    request = DuelRequest(
        a=a,
        b=b,
        opponents=tuple(opponents or ()),
        game=game,
        rules=parse_rules(rules or []),
        settings=SprtSettings(**values),
        matches=matches,
        deal_key=checked_key(deal_key),
        remote=RemoteSettings(
            move_timeout=move_timeout,
            startup_timeout=startup_timeout,
            time_bank=time_bank,
            transport=transport,
            game_time=game_time,
        ),
        referee=RefereeSettings(max_faults=max_faults),
        logs=logs,
    )
    Duel(request)  # checked before anything is said or started
    if any(not spec.strip().startswith("builtin:") for spec in specs):
        said = move_timeout_warning(move_timeout, "--move-timeout")
        if said:
            typer.echo(said, err=True)
    played = Duel(dataclasses.replace(request, sandbox=started_sandbox(sandbox_mode, specs)))

    def show(pair: PairPlayed) -> None:
        typer.echo(progress_line(played, pair), err=True)
        for f in pair.faults:
            typer.echo(f"  {fault_line(played, f)}", err=True)

    interrupted = play_duel(played, show)
    result = summary(played, interrupted)
    typer.echo(json.dumps(result) if as_json else "\n".join(result_lines(result)))
    if deal_key is None:
        key = played.key
        typer.echo(f"deal key {key}: `--deal-key {key}` deals these cards again", err=True)
    if result["overloads"]:
        typer.echo(
            f"warning: {result['overloads']} timeouts came from this machine being too busy, "
            "not from the bots (not charged to them): give a longer --move-timeout, or run "
            "fewer things at once",
            err=True,
        )
    if interrupted:
        typer.echo(
            f"interrupted after {result['pairs']} pairs: the result so far is above; every "
            "bot process was ended",
            err=True,
        )
        raise typer.Exit(INTERRUPTED_CODE)


def _signed(x: float | str | None, digits: int = 1) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, str):
        return x if x.startswith("-") else "+" + x
    return f"{x:+.{digits}f}"


def _interval(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "[n/a]"
    return f"[{low:+.1f}, {high:+.1f}]"


def progress_line(duel: Duel, pair: PairPlayed) -> str:
    """What the duel says on stderr after each pair: the pairs and games so far, the
    mean difference with its 95% interval, and the ratio between its bounds."""
    v = pair.verdict
    low, high = (None, None) if math.isnan(pair.interval[0]) else pair.interval
    return (
        f"pair {pair.number}: {v.games} games  A-B {v.mean:+.1f} {_interval(low, high)} "
        f"points a game  LLR {_signed(_finite(v.llr), 2)} in ({v.lower:+.2f}, {v.upper:+.2f})"
    )


def _finite(x: float) -> float | str:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def fault_line(duel: Duel, fault: Any) -> str:
    """A fault as the pair's progress shows it: whose, where, and the bot's log."""
    f = fault.fault
    where = f"pair {fault.pair} rotation {fault.rotation + 1} deal {f.deal} decision {f.decision}"
    note = " (the machine's, not charged)" if f.overload else ""
    return f"fault: {fault.who} {where} {f.kind}: {f.detail}{f.log_note()}{note}"


def result_lines(result: dict[str, Any]) -> list[str]:
    """The duel's result as text (the same figures as `--json`)."""
    opponents = result["opponents"]
    same = len(set(opponents)) == 1
    shown = f"{opponents[0]} x{len(opponents)}" if same else ", ".join(opponents)
    lines = [
        f"A: {result['a']}  margin {_signed(result['a_margin'])} points a game",
        f"B: {result['b']}  margin {_signed(result['b_margin'])} points a game",
        f"{result['game']} against {shown}: {result['pairs']} pairs, {result['games']} games",
        f"A - B: {_signed(result['mean'])} points a game, 95% interval "
        f"{_interval(result['low'], result['high'])}",
        f"test: H0 A better by {result['margin0']:g}, H1 A better by {result['margin1']:g} "
        f"points a game (alpha {result['alpha']:g}, beta {result['beta']:g}); "
        f"LLR {_signed(result['llr'], 2)}, bounds {result['lower']:+.2f} and "
        f"{result['upper']:+.2f}",
        "verdict: " + verdict_text(result),
    ]
    faults = result["faults"]
    if any(faults.values()):
        lines.append(
            f"faults charged: A {faults['A']}, B {faults['B']}, opponents "
            f"{faults['opponents']} (each played the fallback move; see the lines above)"
        )
    return lines


def verdict_text(result: dict[str, Any]) -> str:
    """The verdict in words, with what it means."""
    decision, m0, m1 = result["decision"], result["margin0"], result["margin1"]
    pairs, games = result["pairs"], result["games"]
    if decision == "accept":
        return f"A is better: H1 accepted (A better by {m1:g}) after {pairs} pairs, {games} games"
    if decision == "reject":
        text = (
            f"A is not better by {m1:g}: H0 accepted (A better by {m0:g} at most) after "
            f"{pairs} pairs, {games} games"
        )
        high = result["high"]
        if high is not None and high < 0:
            text += "; B is better (the interval lies below 0)"
        return text
    if decision == "undecided":
        return (
            f"undecided at --max-games {result['max_games']}: neither hypothesis reached "
            "(give a wider margin1 - margin0, or more games)"
        )
    stopped = "interrupted" if result["interrupted"] else f"--matches {result['matches']}"
    first = result["decided_at"]
    said = f"; the test had decided at pair {first}" if first else ""
    return f"undecided after {pairs} pairs ({stopped}): the test would play on{said}"
