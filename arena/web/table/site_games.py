"""Games a visitor of a league's or a ladder's site plays against one of its bots
("play against this bot", docs/human.md#from-the-web-site).

Why here and not in `arena play`: the site's server runs for days and is reached by
strangers, so everything a game holds is bounded. At most `limit` games at once (the
next is refused with `Busy`, which the page answers 503 with Retry-After); the bot
played against is the one the league or ladder runs, started as it starts its bots
(`league_players`: its limits, its sandbox hiding the database, its folder); the
other seats are built-ins from `OPPONENTS` only; and every game ends: a person who
leaves gets the fault policy's fallbacks (arena/bots/human.py), a page never opened
within `open_seconds`, or a game longer than `game_seconds`, closes the table, after
which every decision of the seat is a fault and the fallbacks finish the game at once.

Why unrated and not in the database: the game is a visitor's practice, not evidence
about the bot, and a person is never rated; storing it in the league's database would
put a person's games beside its matches, where the table, the ratings and every
reader of the results would take them in. It is refereed as any game is, and kept
nowhere but, when the server was given a folder (`--human-replays`), as a replay file
there, which no page of the site reads.

Each game runs on a thread of its own (the referee's, with its own event loop for
bots over gRPC); the site's server reaches its seat through `seat_of`, as the table
app of `arena play` reaches its table's seats.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
import time
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.builtin import BUILTIN_BOTS, make_builtin
from arena.bots.human import HUMAN_PREFIX, HumanSeat, HumanTable
from arena.bots.remote.handshake import BotStartError
from arena.bots.spec import BUILTIN_PREFIX, started_players, unique_names
from arena.errors import ArenaError, ConfigError, SandboxError
from arena.games import get_game
from arena.league.definition.config import LeagueConfig
from arena.play.deal_keys import game_seed, new_deal_key
from arena.play.referee import Player, RefereeSettings, play_game
from arena.play.replays import ReplayWriter

HUMAN_GAMES = 4  # `--human-games`' default: games at once on one server
MOVE_SECONDS = 120.0  # a visitor's time for each decision (`--human-move-timeout`)
OPEN_SECONDS = 120.0  # a seat's page not opened within this is a game abandoned
GAME_SECONDS = 3 * 3600.0  # no game lasts longer
RETRY_SECONDS = 60  # what Retry-After says when the server is full
VISITOR = "visitor"  # the visitor's name at the table (the page adds "you")


def _offered() -> tuple[str, ...]:
    """The built-ins a visitor may seat: each that needs no option (`builtin:mixed`
    needs its P, so it is left out)."""
    names = []
    for name in BUILTIN_BOTS:
        try:
            make_builtin(name)
        except ConfigError:
            continue
        names.append(BUILTIN_PREFIX + name)
    return tuple(names)


OPPONENTS = _offered()
"""The only bots a visitor may seat beside the one played against."""


class Busy(ArenaError):
    """The server plays its most games at once already: try again later."""


@dataclass(frozen=True)
class Opponent:
    """The bot a visitor plays against, as its league or ladder starts it.

    `config` is how its league (or ladder) starts bots: limits, sandbox, the folder its
    command's paths resolve in; None for a built-in bot of a league whose file is not
    on this machine (a built-in needs none of it). `rules` are the game's rule options
    as stored (the league's, or the ladder's)."""

    name: str
    spec: str
    game: str
    rules: Mapping[str, Any] = field(default_factory=dict)
    config: LeagueConfig | None = None
    db_path: str = ""  # the database the sandbox hides from the bot


@dataclass
class _Game:
    table: HumanTable
    seat: HumanSeat
    started: float
    thread: threading.Thread | None = None


class SiteGames:
    """The games being played from one site's server: at most `limit` at once, each
    with one person (seat 0), the bot played against (seat 1) and built-ins.

    `move_seconds` is a person's time for each decision; `open_seconds` and
    `game_seconds` end a game nobody came to, or one that went on too long; each game
    that ends is written into `replays` when it is given."""

    def __init__(
        self,
        limit: int = HUMAN_GAMES,
        *,
        move_seconds: float = MOVE_SECONDS,
        open_seconds: float = OPEN_SECONDS,
        game_seconds: float = GAME_SECONDS,
        leave_seconds: float | None = None,
        replays: Path | None = None,
    ) -> None:
        if limit < 1:
            raise ConfigError(f"--human-games {limit}: give 1 or more (0 offers no games)")
        self.limit = limit
        self.move_seconds = move_seconds
        self.open_seconds = open_seconds
        self.game_seconds = game_seconds
        self.leave_seconds = leave_seconds
        self._writer = ReplayWriter(replays) if replays is not None else None
        self._lock = threading.Lock()
        self._games: dict[int, _Game] = {}
        self._next = 0
        self._logs: Path | None = None  # the bots' logs: a folder made at the first game
        self._closed = False
        self._watch = threading.Thread(target=self._watchdog, name="arena-site-games", daemon=True)
        self._watch.start()

    def running(self) -> int:
        """How many games are being played now."""
        with self._lock:
            return len(self._games)

    def seat_of(self, token: str) -> HumanSeat | None:
        """The seat of a game in play whose secret is `token` (each compared in
        constant time, none skipped)."""
        with self._lock:
            tables = [game.table for game in self._games.values()]
        found = None
        for table in tables:
            seat = table.seat_of(token)
            if seat is not None:
                found = seat
        return found

    def start(self, opponent: Opponent, others: list[str]) -> HumanSeat:
        """Start a game of the visitor against `opponent`, with the built-ins `others`
        in the remaining seats; the visitor's seat (its secret makes its link). Busy
        when `limit` games are being played; ConfigError for a seat not allowed."""
        game = get_game(opponent.game)
        if len(others) != game.seats - 2 or any(o not in OPPONENTS for o in others):
            raise ConfigError(
                f"pick {game.seats - 2} opponents from the built-in bots: " + ", ".join(OPPONENTS)
            )
        specs = [HUMAN_PREFIX + VISITOR, opponent.spec, *others]
        extra = {} if self.leave_seconds is None else {"leave_seconds": self.leave_seconds}
        table = HumanTable(specs, timeout=self.move_seconds, **extra)
        seat = table.seats[0]
        names = unique_names([VISITOR, opponent.name, *(o[len(BUILTIN_PREFIX) :] for o in others)])
        with self._lock:
            if self._closed or len(self._games) >= self.limit:
                raise Busy(
                    f"{len(self._games)} games are being played on this server, the most it "
                    f"plays at once: try again in a minute"
                )
            self._next += 1
            number = self._next
            if self._logs is None:
                self._logs = Path(tempfile.mkdtemp(prefix="arena-site-games-"))
            entry = _Game(table, seat, time.monotonic())
            self._games[number] = entry
        entry.thread = threading.Thread(
            target=self._play,
            args=(number, opponent, specs, names),
            name=f"arena-site-game-{number}",
            daemon=True,
        )
        entry.thread.start()
        return seat

    def _play(self, number: int, opponent: Opponent, specs: list[str], names: list[str]) -> None:
        """One game, refereed to its end on this thread, then forgotten."""
        table = self._games[number].table
        try:
            game = get_game(opponent.game)
            config = opponent.config
            assert self._logs is not None
            logs = self._logs / f"game-{number}"
            players: AbstractContextManager[list[Player]]
            if config is not None:
                from arena.league.workers.worker import league_players  # loads the workers

                options = config.options
                players = league_players(
                    config, specs, logs, db_path=opponent.db_path, humans=table
                )
                faults = config.limits.max_faults
            else:
                options = game.parse_options(opponent.rules)
                players = started_players(
                    specs, game.name, game.options_dict(options), log_dir=logs, humans=table
                )
                faults = RefereeSettings().max_faults
            settings = RefereeSettings(max_faults=faults, watch=table.watch_with(None))
            with players as seated:
                result = play_game(
                    game,
                    seated,
                    game_seed(new_deal_key(), "site"),
                    options,
                    settings=settings,
                    names=names,
                )
            if self._writer is not None:
                with self._lock:
                    self._writer.write(result.replay)
            table.wait_delivered(3.0)
        except Exception as err:  # noqa: BLE001 - whatever it was, the visitor is told and the game ends
            seat = table.seats[0]
            seat.publish({"state": "waiting", "notice": _failure(err)})
            table.wait_delivered(3.0)
        finally:
            table.close()
            with self._lock:
                self._games.pop(number, None)

    def _watchdog(self) -> None:
        """Close the table of a game nobody came to or that went on too long: the
        seat's every decision is then a fault, and the fallbacks end the game."""
        while not self._closed:
            now = time.monotonic()
            with self._lock:
                games = list(self._games.values())
            for game in games:
                unopened = not game.seat.visited() and now - game.started > self.open_seconds
                if unopened or now - game.started > self.game_seconds:
                    game.table.close()
            time.sleep(0.5)

    def close(self, wait: float = 10.0) -> None:
        """The server is stopping: every table closed, the games given `wait` seconds
        to end (their bots' processes are ended as each ends), the logs removed."""
        with self._lock:
            self._closed = True
            games = list(self._games.values())
        for game in games:
            game.table.close()
        end = time.monotonic() + wait
        for game in games:
            if game.thread is not None:
                game.thread.join(timeout=max(0.0, end - time.monotonic()))
        if self._logs is not None:
            shutil.rmtree(self._logs, ignore_errors=True)


def _failure(err: BaseException) -> str:
    """What the visitor's page says when the game could not be played: what kind of
    failure, never its words (they may name the organiser's folders or commands);
    those go to the server's own output."""
    logging.getLogger("arena.web.table").warning(
        "a visitor's game could not be played: %s", " ".join(str(err).split())[:500]
    )
    if isinstance(err, (BotStartError, ConfigError, SandboxError)):
        return "The game could not be played: the bot could not be started on this server."
    return "The game could not be played: it stopped on an error of the server."
