"""Games and matches between bot specs, with the bots started before and ended after:
what `arena play` runs.

One function, `play_session`, checks the request before anything starts (the game, its
rules, one bot per seat), then yields every game as it ends and, for a match series,
every match, so a caller can print or save each as it comes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arena.bots.process import run_log_folder
from arena.bots.remote.settings import RemoteSettings
from arena.bots.sandbox import Sandbox
from arena.bots.spec import started_players, unique_names
from arena.errors import ConfigError
from arena.games import get_game
from arena.play.matches import MatchResult, match_games
from arena.play.referee import GameResult, RefereeSettings, play_game
from arena.play.series import game_seeds


@dataclass(frozen=True)
class SessionRequest:
    """What to play: one bot spec per seat, the game and its rule options (text, as
    typed), how many games with seats fixed or seat-rotated matches, and how."""

    specs: tuple[str, ...]
    game: str = "trix"
    rules: Mapping[str, str] = field(default_factory=dict)
    seed: str = "1"
    games: int = 1
    matches: int = 0
    remote: RemoteSettings = field(default_factory=RemoteSettings)
    referee: RefereeSettings = field(default_factory=RefereeSettings)
    logs: Path = Path("arena-logs")
    sandbox: Sandbox | None = None


@dataclass(frozen=True)
class GamePlayed:
    """One game of the session, numbered from 1 over the whole session."""

    number: int
    seed: str
    result: GameResult
    match: int = 0  # the match's number (from 1) in a match series, else 0
    rotation: int = -1  # the game's rotation within its match, else -1
    seconds: float = 0.0  # how long the game took to play


@dataclass(frozen=True)
class MatchPlayed:
    """One match of a series: each bot's sum over its rotations, by name."""

    number: int
    seed: str
    names: tuple[str, ...]
    totals: tuple[int, ...]
    games: int
    seconds: float = 0.0  # how long the match took, its bots' start-up included


def play_session(request: SessionRequest) -> Iterator[GamePlayed | MatchPlayed]:
    """Play the request's games (or matches); ConfigError before anything starts when
    it cannot be played as asked."""
    if request.matches and request.games != 1:
        raise ConfigError(
            f"--games {request.games} and --matches {request.matches} do not go together: "
            "--matches N plays N seat-rotated matches (one game per rotation), --games N "
            "plays N games with seats fixed; give one of them"
        )
    game = get_game(request.game)
    options = game.parse_options(request.rules)
    if len(request.specs) != game.seats:
        raise ConfigError(
            f"{game.name} needs {game.seats} bots, one per seat; got {len(request.specs)}"
        )
    options_dict = game.options_dict(options)
    logs = request.logs
    if any(not s.strip().startswith(("builtin:", "grpc:")) for s in request.specs):
        logs = run_log_folder(logs)  # a folder per run: a rerun writes no log over this one's
    if not request.matches:
        with started_players(
            request.specs, game.name, options_dict, request.remote, logs,
            sandbox=request.sandbox,
        ) as players:  # fmt: skip
            names = unique_names([p.name for p in players])
            for number, seed in enumerate(game_seeds(request.seed, request.games), start=1):
                started = time.monotonic()
                result = play_game(game, players, seed, options, request.referee, names=names)
                yield GamePlayed(number, seed, result, seconds=time.monotonic() - started)
        return
    count = 0
    for number, seed in enumerate(game_seeds(request.seed, request.matches), start=1):
        match_started = time.monotonic()
        with started_players(
            request.specs, game.name, options_dict, request.remote, logs,
            log_prefix=f"match{number}-", sandbox=request.sandbox,
        ) as players:  # fmt: skip
            names = unique_names([p.name for p in players])
            match = MatchResult(seed, names)
            started = time.monotonic()
            for rotation, seating, result in match_games(
                game, players, names, seed, options, request.referee
            ):
                match.games.append(result)
                match.seatings.append(seating)
                count += 1
                yield GamePlayed(
                    count, seed, result, number, rotation, seconds=time.monotonic() - started
                )
                started = time.monotonic()
        yield MatchPlayed(
            number, seed, tuple(names), tuple(match.bot_totals()), len(match.games),
            seconds=time.monotonic() - match_started,
        )  # fmt: skip
