"""Games and matches between bot specs, with the bots started before and ended after:
what `arena play` runs.

One function, `play_session`, checks the request before anything starts (the game, its
rules, one bot per seat), then yields every game as it ends and, for a match series,
every match, so a caller can print or save each as it comes.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.confinement.cgroups import entrant_group
from arena.bots.confinement.sandbox import Sandbox
from arena.bots.human import HumanTable, is_human_spec
from arena.bots.process import become_subreaper, run_log_folder
from arena.bots.remote.settings import RemoteSettings
from arena.bots.rotation_pool import RotationPool, Seat
from arena.bots.spec import make_player, seat_names, spec_slug, started_players
from arena.errors import ConfigError
from arena.games import get_game
from arena.play.deal_keys import game_seed, new_deal_key, normal_key
from arena.play.matches import MatchResult, match_games, seatings
from arena.play.referee import GameResult, Player, RefereeSettings, play_game
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
    deal_key: str = ""  # the secret the deals come from; "" makes a fresh one (`key`)
    humans: HumanTable | None = None  # the people's seats (`human` specs) and their pages

    @functools.cached_property
    def key(self) -> str:
        """The session's deal key: the one given, else one made for this request."""
        return normal_key(self.deal_key) if self.deal_key else new_deal_key()


@dataclass(frozen=True)
class GamePlayed:
    """One game of the session, numbered from 1 over the whole session."""

    number: int
    seed: str  # the public seed (`SEED-i`); the game was dealt from game_seed(key, seed)
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


def check_request(request: SessionRequest) -> tuple[Any, Any]:
    """The request's game and parsed rule options; ConfigError, before anything starts,
    when it cannot be played as asked (also a person's seat where none can sit)."""
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
    people = [s for s in request.specs if is_human_spec(s)]
    humans = request.humans
    if people and (humans is None or len(humans.seats) != len(people)):
        raise ConfigError(
            f"bot spec {people[0].strip()[:60]!r} seats a person: only `arena play` "
            "seats people, each at a page of its own (docs/human.md)"
        )
    if people and request.matches:
        raise ConfigError(
            "--matches with a person's seat: a person plays games with the seats fixed "
            "(--games N); seat-rotated matches are for bots"
        )
    return game, options


def play_session(request: SessionRequest) -> Iterator[GamePlayed | MatchPlayed]:
    """Play the request's games (or matches); ConfigError before anything starts when
    it cannot be played as asked."""
    game, options = check_request(request)
    options_dict = game.options_dict(options)
    humans = request.humans
    referee = request.referee
    if humans:  # every move shown on every person's page as it is made
        referee = dataclasses.replace(referee, watch=humans.watch_with(referee.watch))
    logs = request.logs
    if any(not s.strip().startswith(("builtin:", "grpc:")) and not is_human_spec(s)
           for s in request.specs):  # fmt: skip
        logs = run_log_folder(logs)  # a folder per run: a rerun writes no log over this one's
    if not request.matches:
        with started_players(
            request.specs,
            game.name,
            options_dict,
            settings=request.remote,
            log_dir=logs,
            sandbox=request.sandbox,
            humans=humans,
        ) as players:
            names = seat_names(request.specs)
            for number, seed in enumerate(game_seeds(request.seed, request.games), start=1):
                started = time.monotonic()
                result = play_game(
                    game,
                    players,
                    game_seed(request.key, seed),
                    options,
                    settings=referee,
                    names=names,
                )
                yield GamePlayed(number, seed, result, seconds=time.monotonic() - started)
        return
    count = 0
    names = seat_names(request.specs)
    with closing(_session_pool(request, game.name, options_dict, logs)) as pool:
        rotations = len(seatings(game.seats))
        seats = [
            [Seat(f"seat{b}", spec, r) for b, spec in enumerate(request.specs)]
            for r in range(rotations)
        ]
        for number, seed in enumerate(game_seeds(request.seed, request.matches), start=1):
            match_started = time.monotonic()
            rosters = pool.match_players(seats)
            match = MatchResult(seed, names)
            started = time.monotonic()
            for rotation, seating, result in match_games(
                game,
                rosters[0],
                names,
                game_seed(request.key, seed),
                options=options,
                settings=request.referee,
                rotation_players=rosters,
                before_game=pool.activate,
            ):
                match.games.append(result)
                match.seatings.append(seating)
                count += 1
                yield GamePlayed(
                    count, seed, result, number, rotation, seconds=time.monotonic() - started
                )
                started = time.monotonic()
            yield MatchPlayed(
                number,
                seed,
                tuple(names),
                tuple(match.bot_totals()),
                len(match.games),
                seconds=time.monotonic() - match_started,
            )


def _session_pool(
    request: SessionRequest, game: str, options: Mapping[str, Any], logs: Path
) -> RotationPool:
    """The bots of a match series: a process per (seat's bot, rotation), started at the
    first match and kept to the last, so that no process meets a match's deals twice
    and start-up is paid once (arena/bots/rotation_pool.py). A bot that cannot start
    is an error, as in every `arena play`."""
    become_subreaper()
    owner = os.getpid()

    def make(seat: Seat) -> Player:  # seat.entrant is "seat{index}": the seat's own bot
        log = logs / f"{seat.entrant}-rotation{seat.rotation}-{spec_slug(seat.spec)}.log"
        sandbox = request.sandbox
        if sandbox is not None:  # a seat's processes share one CPU quota (cgroups.py)
            sandbox = dataclasses.replace(sandbox, group=entrant_group(owner, seat.entrant))
        return make_player(seat.spec, request.remote, log_path=log, sandbox=sandbox)

    return RotationPool(make, game, dict(options), tolerate_start_failures=False)
