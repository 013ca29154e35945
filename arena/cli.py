"""The `arena` command: a thin layer that parses, calls the library, and reports.

Errors the user can fix (`ArenaError`) become one clear sentence and exit code 2;
anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from arena import __version__
from arena.bots.spec import make_player, unique_names
from arena.errors import ArenaError, ConfigError
from arena.games import GAMES, get_game
from arena.referee import play_game
from arena.render import replay_text

app = typer.Typer(
    help="Trix Arena: a referee for card-game bot competitions (Trix now, Trianon next).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(help="Benchmarks that print figures (nothing is asserted).")
app.add_typer(bench_app, name="bench")


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def parse_rules(pairs: Sequence[str]) -> dict[str, str]:
    """`KEY=VALUE` strings into a dict; the game validates the values."""
    rules: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--rules takes KEY=VALUE, e.g. doubling=false; got {pair!r}")
        rules[key.strip()] = value.strip()
    return rules


def game_seeds(seed: str, count: int) -> list[str]:
    """The seeds of `count` games derived from one `--seed`: `SEED-1`, `SEED-2`, ..."""
    return [f"{seed}-{i}" for i in range(1, count + 1)]


def write_replay(directory: Path, index: int, replay: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"game-{index:04d}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(replay, separators=(",", ":")))
    tmp.replace(path)  # a replay file is either whole or absent
    return path


@app.command()
def play(
    bots: Annotated[list[str], typer.Argument(help="One bot spec per seat, e.g. builtin:random.")],
    game: Annotated[str, typer.Option(help=f"The game: {', '.join(GAMES)}.")] = "trix",
    seed: Annotated[str, typer.Option(help="Seed of the run; game i plays seed SEED-i.")] = "1",
    games: Annotated[int, typer.Option(min=1, help="How many games, seats fixed.")] = 1,
    rules: Annotated[
        list[str] | None,
        typer.Option(help="A rule option KEY=VALUE (TRIX.md T-9); repeat for more."),
    ] = None,
    replays: Annotated[
        Path | None, typer.Option(help="Folder to write one replay JSON per game into.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object per game instead of text.")
    ] = False,
) -> None:
    """Play games between bots and print each game's result."""
    try:
        game_obj = get_game(game)
        options = game_obj.parse_options(parse_rules(rules or []))
        if len(bots) != game_obj.seats:
            raise ConfigError(f"{game} needs {game_obj.seats} bots, one per seat; got {len(bots)}")
        players = [make_player(spec) for spec in bots]
        names = unique_names([p.name for p in players])
        for index, game_seed in enumerate(game_seeds(seed, games), start=1):
            result = play_game(game_obj, players, game_seed, options, names=names)
            path = write_replay(replays, index, result.replay) if replays else None
            if as_json:
                typer.echo(
                    json.dumps(
                        {
                            "game": index,
                            "seed": game_seed,
                            "players": result.replay["players"],
                            "totals": result.totals,
                            "ranks": result.ranks,
                            "faults": len(result.faults),
                            "replay": str(path) if path else None,
                        }
                    )
                )
            else:
                line = "  ".join(
                    f"{n} {t:+d} (#{r})"
                    for n, t, r in zip(names, result.totals, result.ranks, strict=True)
                )
                typer.echo(f"game {index} seed {game_seed}: {line}")
    except ArenaError as err:
        _fail(str(err))


@app.command()
def demo(
    seed: Annotated[str, typer.Option(help="Seed of the demo game.")] = "demo",
) -> None:
    """Play one full game of four built-in bots and print it deal by deal."""
    game_obj = get_game("trix")
    specs = ["builtin:random", "builtin:first", "builtin:random", "builtin:random"]
    players = [make_player(s) for s in specs]
    names = unique_names([p.name for p in players])
    result = play_game(game_obj, players, seed, game_obj.parse_options({}), names=names)
    typer.echo(replay_text(result.replay))


@app.command()
def replay(
    path: Annotated[Path, typer.Argument(help="A replay file written by `arena play --replays`.")],
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Print a replay as readable text (deal by deal) or as its JSON."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        _fail(f"cannot read replay {path}: {err}")
    if fmt == "json":
        typer.echo(json.dumps(data, indent=1))
    elif fmt == "text":
        typer.echo(replay_text(data))
    else:
        _fail(f"--format must be text or json, not {fmt!r}")


@bench_app.command("engine")
def bench_engine_cmd(
    game: Annotated[str, typer.Option(help="The game to benchmark.")] = "trix",
    games: Annotated[int, typer.Option(min=1, help="How many full games to play.")] = 300,
) -> None:
    """Full games between four builtin:random bots on one core: games and decisions per second."""
    from arena.bench import bench_engine

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


@app.command()
def version() -> None:
    """Print the arena's version."""
    typer.echo(__version__)


def main() -> None:
    """Console entry point."""
    try:
        app()
    except BrokenPipeError:  # `arena ... | head` is fine
        sys.stderr.close()


if __name__ == "__main__":
    main()
