"""`arena duel A B`: is A better than B? Both seated at tables with the same opponents
on the same deals, pair after pair, until the sequential test decides.

Step i of a duel deals one public seed, `duel-i`, under the deal key, and plays two
seat-rotated matches on it: A with the opponents, and B with the same opponents in the
same seats. Each gives its side's duplicate margin; their difference (A's minus B's,
points a game) is one paired difference, read by the test the ladder's promotion
reads (`arena.league.standings.sprt`): H0 "A is better by margin0" against H1 "by
margin1". The deals and the opponents cancel out of the difference, so what is left
is A and B, and the noise of their own play: far fewer games reach a verdict than two
separate runs of A and of B (docs/duel.md has the measured figures).

Bots are started once, as `arena play --matches` starts them: a process per (bot,
rotation slot), kept for the whole duel, so that no process meets a match's deals
twice (arena/bots/rotation_pool.py). The opponents at B's table are processes of their
own, for the same reason: A's table deals the cards B's table deals. Every process is
ended when the duel ends, however it ends (Ctrl-C included).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from arena import interrupts
from arena.bots.confinement.cgroups import entrant_group
from arena.bots.confinement.sandbox import Sandbox
from arena.bots.process import become_subreaper, run_log_folder
from arena.bots.remote.settings import RemoteSettings
from arena.bots.rotation_pool import RotationPool, Seat
from arena.bots.spec import check_spec, make_player, spec_name, spec_slug, unique_names
from arena.duel.tables import SIDES, TablePlay, opponent_entrants, play_table
from arena.errors import ConfigError
from arena.games import get_game
from arena.league.standings.sprt import (
    SprtSettings,
    Verdict,
    paired_difference,
    sequence_interval,
    sprt,
    sprt_unpaired,
)
from arena.play.deal_keys import game_seed, new_deal_key, normal_key
from arena.play.faults import Fault
from arena.play.matches import seatings
from arena.play.referee import Player, RefereeSettings

DEFAULT_OPPONENT = "builtin:greedy"
"""The opponents when none are given: copies of the greedy bot. It is in process (no
start-up, no processes), plays every game of both games, is the strongest of the
cheap built-in bots, and plays the same cards in the same position every time, so it
adds no noise of its own to the difference."""


@dataclass(frozen=True)
class DuelRequest:
    """What to play: A and B (bot specs), the opponents (seats - 1 specs, one spec for
    all of them, or none for `DEFAULT_OPPONENT`), the game and its rules (text, as
    typed), the test, how many pairs (0: until the test decides), and how bots run."""

    a: str
    b: str
    opponents: tuple[str, ...] = ()
    game: str = "trix"
    rules: Mapping[str, str] = field(default_factory=dict)
    settings: SprtSettings = field(default_factory=SprtSettings)
    matches: int = 0  # pairs to play whatever the test says; 0: until it decides
    deal_key: str = ""  # the secret the deals come from; "" makes a fresh one (`key`)
    remote: RemoteSettings = field(default_factory=RemoteSettings)
    referee: RefereeSettings = field(default_factory=RefereeSettings)
    logs: Path = Path("arena-logs")
    sandbox: Sandbox | None = None
    paired: bool = True  # False: A and B each on deals of its own, as two separate runs

    @functools.cached_property
    def key(self) -> str:
        """The duel's deal key: the one given, else one made for this request."""
        return normal_key(self.deal_key) if self.deal_key else new_deal_key()


@dataclass(frozen=True)
class SideFault:
    """A fault of the duel, with whose it was: "A", "B", or an opponent at A's or B's
    table ("A-opponent2")."""

    pair: int
    rotation: int
    who: str
    fault: Fault


@dataclass(frozen=True)
class PairPlayed:
    """One step of the duel: A's and B's margins (points a game), their difference, the
    games of both matches, the faults in them, and the test's reading after it."""

    number: int  # from 1
    seed: str  # the public seed `duel-i`; the cards are dealt from game_seed(key, seed)
    a_margin: float
    b_margin: float
    difference: float
    games: int
    faults: tuple[SideFault, ...]
    verdict: Verdict  # the test's reading of every pair so far
    interval: tuple[float, float]  # the mean difference's 95% confidence sequence so far


def public_seed(step: int) -> str:
    """The public seed of the duel's step `step` (from 1)."""
    return f"duel-{step}"


class Duel:
    """A duel, checked when made (before any bot starts); `play()` plays it, a pair at a
    time, and `pairs` holds what has been played however it ended."""

    def __init__(self, request: DuelRequest) -> None:
        self.request = request
        self.game = get_game(request.game)
        self.options = self.game.parse_options(dict(request.rules))
        self.opponents = opponent_specs(request.opponents, self.game.seats)
        for spec in (request.a, request.b, *self.opponents):
            check_spec(spec)
        if request.matches < 0:
            raise ConfigError(f"--matches must be 0 (until decided) or more, not {request.matches}")
        self.key = request.key
        self.rotations = len(seatings(self.game.seats))
        self.pairs: list[PairPlayed] = []

    @property
    def games_per_pair(self) -> int:
        """Both matches of a pair: the games counted against max_games."""
        return 2 * self.rotations

    def names(self, side: str) -> list[str]:
        """What the bots of `side`'s table are told they are called, by bot index: the
        names their specs give, the same at both tables when A and B are one spec."""
        spec = self.request.a if side == "A" else self.request.b
        return unique_names([spec_name(s) for s in (spec, *self.opponents)])

    def verdict(self) -> Verdict:
        """The test's reading of every pair played so far."""
        return self._reading(self.pairs)

    def interval(self) -> tuple[float, float]:
        """The mean difference's 95% interval, valid wherever the duel stopped (a
        confidence sequence, `arena.league.standings.sprt.sequence_interval`): the
        t interval read where a sequential test stops leans the way it stopped.
        Unpaired: Welch's interval of the two runs (for the bench alone)."""
        return self._interval(self.pairs)

    def _interval(self, pairs: Sequence[PairPlayed]) -> tuple[float, float]:
        if not self.request.paired:
            verdict = self._reading(pairs)
            return (verdict.low, verdict.high)
        return sequence_interval([p.difference for p in pairs])

    def _reading(self, pairs: Sequence[PairPlayed]) -> Verdict:
        """The test on `pairs`: paired, or (`paired` False) the unpaired test on the
        two separate runs' margins, their games counted the same way."""
        settings = self.request.settings
        if self.request.paired:
            return sprt([p.difference for p in pairs], self.games_per_pair, settings)
        a = [p.a_margin for p in pairs]
        b = [p.b_margin for p in pairs]
        return sprt_unpaired(a, b, self.games_per_pair, settings)

    def play(self) -> Iterator[PairPlayed]:
        """Play pair after pair, yielding each as it ends, until the test decides (or
        `matches` pairs are played); every bot process is ended when this ends, also
        when it is closed early or interrupted. A bot that cannot start is an error
        before any game."""
        with closing(self._pool()) as pool:
            while True:
                step = len(self.pairs) + 1
                played = self._pair(pool, step)
                self.pairs.append(played)
                yield played
                if self.request.matches:
                    if step >= self.request.matches:
                        return
                elif played.verdict.decided:
                    return

    def _pair(self, pool: RotationPool, step: int) -> PairPlayed:
        seed = public_seed(step)
        tables: dict[str, TablePlay] = {}
        faults: list[SideFault] = []
        for side in SIDES:
            spec = self.request.a if side == "A" else self.request.b
            # separate runs: each side's own deals, as if A and B were run apart
            dealt = game_seed(self.key, seed if self.request.paired else f"{seed}-{side}")
            rosters = pool.match_players(self._seats(side, spec))
            table = play_table(
                self.game,
                side,
                rosters,
                self.names(side),
                dealt,
                options=self.options,
                settings=self.request.referee,
                before_game=pool.activate,
            )
            tables[side] = table
            faults += [
                SideFault(step, rotation, side if bot == 0 else f"{side}-opponent{bot}", fault)
                for rotation, bot, fault in table.faults
            ]
        a, b = tables["A"], tables["B"]
        if self.request.paired:
            difference = paired_difference(a.outcome, b.outcome, "A", "B")
        else:
            difference = a.margin - b.margin
        played = PairPlayed(
            step,
            seed,
            a.margin,
            b.margin,
            difference,
            a.games + b.games,
            tuple(faults),
            verdict=self.verdict(),  # replaced below by the readings with this pair
            interval=(math.nan, math.nan),
        )
        so_far = [*self.pairs, played]
        return dataclasses.replace(
            played, verdict=self._reading(so_far), interval=self._interval(so_far)
        )

    def _seats(self, side: str, spec: str) -> list[list[Seat]]:
        """Each rotation's pooled bots of `side`'s table, by bot index: the side's bot,
        then its own opponents' (named for the side: none is shared between tables)."""
        others = opponent_entrants(len(self.opponents))
        return [
            [Seat(side, spec, r)]
            + [Seat(f"{side}-{o}", s, r) for o, s in zip(others, self.opponents, strict=True)]
            for r in range(self.rotations)
        ]

    def _pool(self) -> RotationPool:
        """The duel's bots: a process per (bot, rotation slot), started at the first
        pair and kept to the last, every one ended when the pool is closed."""
        request = self.request
        become_subreaper()
        logs = request.logs
        specs = (request.a, request.b, *self.opponents)
        if any(not s.strip().startswith(("builtin:", "grpc:")) for s in specs):
            logs = run_log_folder(logs)  # a folder per run: a rerun writes no log over this one's
        owner = os.getpid()

        def make(seat: Seat) -> Player:
            log = logs / f"{seat.entrant}-rotation{seat.rotation}-{spec_slug(seat.spec)}.log"
            sandbox = request.sandbox
            if sandbox is not None:  # a bot's processes share one CPU quota (cgroups.py)
                sandbox = dataclasses.replace(sandbox, group=entrant_group(owner, seat.entrant))
            return make_player(seat.spec, request.remote, log_path=log, sandbox=sandbox)

        capacity = 2 * self.game.seats * self.rotations
        options = self.game.options_dict(self.options)
        return RotationPool(
            make, self.game.name, options, capacity=capacity, tolerate_start_failures=False
        )


def opponent_specs(given: Sequence[str], seats: int) -> tuple[str, ...]:
    """The opponents' specs, one a seat but A's (or B's): as given, one spec given for
    all of them, or `DEFAULT_OPPONENT`; a ConfigError saying what to give otherwise."""
    others = seats - 1
    given = tuple(s.strip() for s in given)
    if not given:
        return (DEFAULT_OPPONENT,) * others
    if len(given) == 1:
        return given * others
    if len(given) != others:
        raise ConfigError(
            f"--opponents takes one spec (played by all {others} opponents) or {others} specs, "
            f"one per opponent; got {len(given)}"
        )
    return given


def play_duel(duel: Duel, show: Callable[[PairPlayed], None]) -> bool:
    """Play `duel` to its end, telling `show` of each pair as it ends; True when Ctrl-C
    (or SIGTERM, which the command turns into it) stopped it first, so that the caller
    can still print what was played. Every bot process is ended either way."""
    try:
        with closing(duel.play()) as pairs:
            for pair in pairs:
                show(pair)
                interrupts.check()  # a Ctrl-C Python dropped on the way ends it here
    except KeyboardInterrupt:
        return True
    return False
