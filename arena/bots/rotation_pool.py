"""Bot processes per (entrant, rotation slot), kept alive across matches.

A seat-rotated match deals the same cards in every rotation, so a bot process that
played rotation 1 would know every hand of rotation 2 (the deals are revealed at the end
of each deal, T-8.2): a bot that remembered them was measured to gain 166 points a game.
So each rotation of a match is played by processes that have not seen the match's deals:
one process per (entrant, rotation slot). A process keeps its slot for as long as it
lives, so across matches it meets each match's deals exactly once, in its own rotation;
it may learn its opponents' styles and its own results, never a deal it will play again.

Keeping the processes alive across matches pays each bot's start-up once per league (per
worker) rather than once per match. The pool is bounded (`capacity` processes; the
least recently used is ended first), restarts a crashed bot at its next game (as every
`RemotePlayer` does), tries a bot that could not start again at its next match, and ends
every process when it is closed: at the end of the league, of the `arena play` session,
or of the worker (arena/league/workers/worker.py closes it on the way out).
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.bots.remote.player import RemotePlayer
from arena.bots.spec import slug, spec_slug, start_together
from arena.play.referee import Player

DEFAULT_CAPACITY = 64  # processes kept per worker: 16 entrants x 4 rotations of Trix


@dataclass(frozen=True)
class Seat:
    """Who a pooled player is: an entrant (its name, its bot spec) in a rotation slot."""

    entrant: str
    spec: str
    rotation: int


MakePlayer = Callable[[Seat], Player]


class RotationPool:
    """Players by (entrant, rotation slot), made by `make` when first wanted.

    `make` builds the player for a seat (arena/bots/spec.py `make_player` with the
    league's settings and a log file of the seat's own); external bots it returns are
    launched together and then handshaken, as `started_players` does, so a match's new
    bots start in parallel.
    """

    def __init__(
        self,
        make: MakePlayer,
        game: str,
        options: dict,
        *,
        capacity: int = DEFAULT_CAPACITY,
        tolerate_start_failures: bool = True,
    ) -> None:
        if capacity < 1:
            raise ValueError("a rotation pool holds at least one player")
        self._make = make
        self._game = game
        self._options = dict(options)
        self.capacity = capacity
        self._tolerate = tolerate_start_failures
        self._players: OrderedDict[Seat, Player] = OrderedDict()
        self.started = 0  # players made, for the figures of `arena bench league`

    def match_players(self, seats: Sequence[Sequence[Seat]]) -> list[list[Player]]:
        """The players of one match: `seats[r]` lists the bots of rotation r by bot
        index, and the answer holds their players in the same shape. Every player is
        made (and started) if it is not in the pool, and marked used."""
        wanted = [seat for rotation in seats for seat in rotation]
        if len(set(wanted)) != len(wanted):
            raise ValueError("a seat of the pool can play only one place of a match")
        fresh: list[Player] = []
        for seat in wanted:
            if seat in self._players:
                self._players.move_to_end(seat)
                if self._retry_start_failure(self._players[seat]):
                    fresh.append(self._players[seat])  # started with the new ones
            else:
                player = self._make(seat)
                self._players[seat] = player
                self.started += 1
                fresh.append(player)
        self._start(fresh)
        self._trim(keep=set(wanted))
        return [[self._players[seat] for seat in rotation] for rotation in seats]

    def _start(self, players: list[Player]) -> None:
        """Start the new bots together (`start_together`); one that cannot start plays
        fallback moves for this match, unless the pool was told not to tolerate it."""
        start_together(players, self._game, self._options, self._tolerate)

    def _retry_start_failure(self, player: Player) -> bool:
        """A pooled bot that could not start in an earlier match gets one more start at
        each match: a machine that was busy then may start it now. True when it is to be
        started again (together with the match's other bots to start)."""
        if isinstance(player, RemotePlayer) and player.start_failed():
            player.clear_start_failure()
            return True
        return False

    def _trim(self, keep: set[Seat]) -> None:
        """End the least recently used players beyond `capacity` (never one of `keep`,
        the match about to be played)."""
        for seat in list(self._players):
            if len(self._players) <= self.capacity:
                break
            if seat not in keep:
                _close(self._players.pop(seat))

    def activate(self, players: Sequence[Player]) -> None:
        """Before a game: thaw `players` (its seats) and freeze every other pooled bot,
        so that each entrant has at most one process running per worker, whatever
        its number of rotation slots: its CPU quota and weight are those of one bot."""
        active = {id(player) for player in players}
        for player in self._players.values():
            if isinstance(player, RemotePlayer) and id(player) not in active:
                player.pause(True)
        for player in players:
            if isinstance(player, RemotePlayer):
                player.pause(False)

    def forget(self, seats: Sequence[Seat]) -> None:
        """End these players: the next match that wants them gets fresh processes (a
        match played again must meet bots that have not seen its deals)."""
        for seat in seats:
            player = self._players.pop(seat, None)
            if player is not None:
                _close(player)

    def __len__(self) -> int:
        return len(self._players)

    def close(self) -> None:
        """End every process of the pool."""
        while self._players:
            _, player = self._players.popitem(last=False)
            _close(player)


def _close(player: Player) -> None:
    if isinstance(player, RemotePlayer):
        with contextlib.suppress(Exception):  # ending a bot must not stop the others' ending
            player.close()


def seat_log(log_dir: Path, seat: Seat, position: int) -> Path:
    """The log of a pooled bot: one file per (entrant, rotation) process."""
    name = slug(seat.entrant, "entrant", 40)
    return log_dir / f"{position:03d}-{name}-rotation{seat.rotation}-{spec_slug(seat.spec)}.log"
