"""`SamplerBot`: a perfect-information Monte Carlo bot for Trix and Trianon.

It is written on the SDK's public simulation API alone (`turn.state()`, sampled deals
and the fast level `arena.sdk.fast`; tests/strategies checks it imports nothing else of
the arena), which is the proof that a bot author has what the arena's strongest bot has.

Every decision goes the same way: take the seat's view as a state (`turn.state()`,
rebuilt from what the request holds; nothing else is read), whose beliefs list the hard
facts it implies about the hidden hands, then price each legal action on deals sampled
consistent with them (`SeatState.sample_deal`, `search.py`). Per decision kind:

- play (both games), expose (Trix): each legal action, played out to the deal's end.
- contract (Trix, the King): each contract, played out from the deal's start on
  deals of the others' hands, less that contract's mean margin for a King with a
  random hand (`CONTRACT_BASELINE`): the contracts not chosen are played later in
  the kingdom on hands of about average worth, so a hand is spent where it is worth
  most above the average (T-2.5).
- bid (Trianon): per sampled deal, one playout as declarer in each strain gives the
  tricks the seat takes there, which prices every level of the strain (N-5); passing
  is priced by playing the deal on with the other seats bidding by the playout rule.
  The best bid is made when it beats passing.
- raise (Trianon): the held bid and every raise, priced from the same trick counts.

Time: `budget_ms` per decision, never more than `SAFE_FRACTION` of the request's
`time_ms` less `RESERVE_MS` (for the reply's way back and the referee's clock); the
time bank is not counted on. With `samples` set, a decision does that fixed work
(reproducible: same requests, same answers) unless it would overrun the time.

Randomness comes only from the bot seed, the seat and the decision's number, as
`turn.rng`, so a replayed game replays the bot's choices.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from arena.sdk import Bot, Turn
from arena.sdk.fast import trianon, trix
from arena.sdk.state import SeatState
from arena.strategies.sampler import search

DEFAULT_BUDGET_MS = 200
SAFE_FRACTION = 0.5  # of the request's time_ms: the rest absorbs a loaded machine
RESERVE_MS = 30
MANY_SAMPLES = 100_000  # "as many as the time allows"
# A contract, an exposure, a bid or a raise comes once a deal and weighs more than a
# card: with a fixed number of samples it gets RARE_FACTOR times as many. Not more
# time: on a loaded machine the time per decision is what must stay small.
RARE_KINDS = frozenset(("contract", "expose", "bid", "raise"))
RARE_FACTOR = 3

# The mean margin of a King in each contract on a random hand under the playout
# policy (2,000 deals each, 95% intervals about +-2 to +-4; doubling on). Close to
# zero: a margin already nets out what a contract hands everyone (T-4.5).
CONTRACT_BASELINE = (-2.2, -4.3, -3.8, -2.2, -2.9)


@dataclass
class Stats:
    """What the bot did, for measurements: decisions, think time, samples, and in
    Trianon the contracts it declared."""

    decisions: int = 0
    think_s: float = 0.0
    samples: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)


def think_seconds(budget_ms: float, time_ms: int) -> float:
    """The wall-clock time a decision may take: the budget, capped by a safe share of
    the time the referee allows (`time_ms`, 0 when not told)."""
    allowed = budget_ms
    if time_ms > 0:
        allowed = min(allowed, SAFE_FRACTION * time_ms - RESERVE_MS)
    return max(0.0, allowed) / 1000.0


class Sampler:
    """The decision maker behind the SDK bot and the in-process player: the seat's
    state in (`SeatState`), an action of its `actions` (the fast level's int) out."""

    def __init__(self, budget_ms: float = DEFAULT_BUDGET_MS, samples: int | None = None) -> None:
        self.budget_ms = budget_ms
        self.samples = samples
        self.stats = Stats()

    def decide(
        self, state: SeatState, rng: random.Random, time_ms: int = 0, started: float | None = None
    ) -> int:
        """The chosen action among `state.actions`; `started` is when the request came
        in (`time.perf_counter()`), by default now."""
        if started is None:
            started = time.perf_counter()
        legal = state.actions
        if len(legal) == 1:
            return legal[0]
        kind = state.kind
        samples = self.samples or MANY_SAMPLES
        if kind in RARE_KINDS:
            samples *= RARE_FACTOR
        budget = search.Budget(samples, started + think_seconds(self.budget_ms, time_ms))
        if isinstance(state.engine_view, trix.TrixView):
            action, samples = self._trix(state, rng, budget)
        else:
            action, samples = self._trianon(state, rng, budget)
        stats = self.stats
        stats.decisions += 1
        stats.samples += samples
        stats.think_s += time.perf_counter() - started
        stats.by_kind[kind] = stats.by_kind.get(kind, 0) + 1
        return action

    def _trix(self, state: SeatState, rng: random.Random, budget: search.Budget) -> Any:
        legal = list(state.actions)
        result = search.evaluate(state, legal, rng, budget=budget)
        if result.samples == 0:
            return _fallback(result.fallback, legal), 0
        adjust = None
        if state.kind == trix.KIND_CONTRACT:
            adjust = [-CONTRACT_BASELINE[a - trix.CONTRACT_BASE] for a in legal]
        return result.best(adjust), result.samples

    def _trianon(self, state: SeatState, rng: random.Random, budget: search.Budget) -> Any:
        legal = list(state.actions)
        kind = state.kind
        if kind == trianon.KIND_PLAY:
            result = search.evaluate(state, legal, rng, budget=budget)
            if result.samples == 0:
                return _fallback(result.fallback, legal), 0
            return result.best(), result.samples
        table = search.declarer_tricks(state, rng, budget, with_pass=kind == trianon.KIND_BID)
        if not table.tricks:
            return _fallback(table.fallback, legal), 0
        if kind == trianon.KIND_BID:
            bids = [a - trianon.BID_BASE for a in legal[1:]]
            values = search.bid_values(table, bids)
            first = sum(table.passing) / len(table.passing)
        else:
            bids = [a - trianon.RAISE_BASE for a in legal[1:]]
            values = search.bid_values(table, bids)
            first = search.bid_values(table, [_held_bid(state.engine_view)])[0]
        best, best_value = legal[0], first
        for action, value in zip(legal[1:], values, strict=True):
            if value > best_value:
                best, best_value = action, value
        return best, len(table.tricks)


def _fallback(choice: int | None, legal: list[int]) -> int:
    """The answer when the time ran out before a search could compare the actions: the
    playout policy's choice in the one deal drawn, else the first legal action."""
    return choice if choice is not None and choice in legal else legal[0]


def _held_bid(view: trianon.TrianonView) -> int:
    """The bid the declarer holds (its last bid, N-3.4)."""
    return max(
        a - trianon.BID_BASE for _, a in view.events if trianon.BID_BASE <= a < trianon.RAISE_BASE
    )


class SamplerBot(Bot):
    """The SDK bot: `python -m arena.strategies.sampler --budget-ms 200` serves it."""

    name = "sampler"
    version = "1.0"
    games = ("trix", "trianon")

    def __init__(self, budget_ms: float = DEFAULT_BUDGET_MS, samples: int | None = None) -> None:
        self.sampler = Sampler(budget_ms, samples)

    @property
    def stats(self) -> Stats:
        return self.sampler.stats

    def act(self, turn: Turn) -> Any:
        started = time.perf_counter()
        legal = turn.legal
        if len(legal) == 1:
            return legal[0]
        state = turn.state()
        action = self.sampler.decide(state, turn.rng, turn.time_ms, started)
        return state.legal[state.actions.index(action)]
