"""Choose an action by playing each one out in deals sampled from the seat's beliefs.

Perfect-information Monte Carlo: draw a deal the seat cannot tell from the real one
(`SeatState.sample_deal` of the SDK), play every candidate action in it followed by the playout
policy (`playout.py`) to the end of the deal, and score each for the seat; repeat on
fresh deals; pick the action with the best mean. Every action is tried on the same
deals, so the comparison between actions is not blurred by the luck of the draw.

What is maximised is the seat's **margin**: its deal score less the mean deal score
of the other seats (with Trix's partners option, T-9, its team's score less the other
team's). That is exactly what a seat-rotated match measures (a duplicate
margin, `arena/league/standings/stats.py`), and it counts what a deal gives others as well as
what it gives the seat: in Trix it is the seat's own score where a deal hands out a
fixed total (T-4.5, T-6.6), and it weighs exposures (T-5.3) right, where a doubled
card's penalty goes to one seat and its gain to another. In Trianon it is the seat's
side: the two defenders score alike (N-5.3), so a defender's margin is half the
difference between its score and the declarer's.

Deals, not games: every search ends with the current deal. What a choice does to the
rest of the game is in the contract choice's baseline (`bot.py`) and nowhere else.

The searches here take a `Budget`: a fixed number of sampled deals (so that tests and
measured matches repeat exactly) and a wall-clock deadline that cuts the work short
only when the fixed work would overrun it. The clock is read before every playout,
so a decision overruns its deadline by one playout at most; when the time runs out
before one deal has been tried on every action, the playout policy's own choice in
the deal drawn is the answer (`fallback`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from arena.sdk.fast import trianon, trix
from arena.sdk.state import SeatState
from arena.strategies.sampler import playout


@dataclass
class Budget:
    """How much work a decision may do: `samples` deals at most, and never past
    `deadline` (a `time.perf_counter()` value): a new deal is started only when the
    deals so far say it will be done in time."""

    samples: int
    deadline: float

    def allows(self, done: int, started: float) -> bool:
        if done >= self.samples:
            return False
        if done == 0:
            return time.perf_counter() < self.deadline
        now = time.perf_counter()
        per_deal = (now - started) / done
        return now + per_deal < self.deadline


@dataclass
class Evaluation:
    """The mean margin of each candidate action over the deals it was tried on."""

    actions: list[int]
    totals: list[float]
    samples: int = 0
    playouts: int = 0
    fallback: int | None = None  # the policy's choice when no deal was done in time

    def means(self) -> list[float]:
        n = max(1, self.samples)
        return [t / n for t in self.totals]

    def best(self, adjust: Sequence[float] | None = None) -> int:
        """The action of the highest mean (plus `adjust`); the first on a tie, so the
        documented order of legal actions breaks ties."""
        means = self.means()
        if adjust is not None:
            means = [m + a for m, a in zip(means, adjust, strict=True)]
        best = max(range(len(means)), key=lambda i: (means[i], -i))
        return self.actions[best]


def margin(scores: Sequence[int], seat: int) -> float:
    """The seat's deal score less the mean of the others' (see the module docstring)."""
    own = scores[seat]
    return own - (sum(scores) - own) / (len(scores) - 1)


def team_margin(scores: Sequence[int], seat: int) -> float:
    """Trix with partners (T-9): teams 0+2 and 1+3 are ranked, so the seat's team
    score less the other team's."""
    return scores[seat] + scores[(seat + 2) % 4] - scores[(seat + 1) % 4] - scores[(seat + 3) % 4]


def evaluate(
    state: SeatState,
    actions: Sequence[int],
    rng: random.Random,
    *,
    budget: Budget,
) -> Evaluation:
    """Each action's mean margin: the action, then the playout policy to the deal's end."""
    view = state.engine_view
    seat = view.seat
    objective = margin
    if isinstance(view, trix.TrixView):
        copy, apply, play = trix.copy_state, trix.apply_legal, playout.play_trix_deal
        if view.options.partners:
            objective = team_margin
    else:
        copy, apply, play = trianon.copy_state, trianon.apply_legal, _play_trianon_on
    result = Evaluation(list(actions), [0.0] * len(actions))
    rnd = rng.random
    clock = time.perf_counter
    deadline = budget.deadline
    started = clock()
    row = [0.0] * len(actions)
    while budget.allows(result.samples, started):
        root = state.sample_deal(rng, deadline=deadline).engine_state
        for i, action in enumerate(actions):
            if clock() > deadline:  # a deal not tried on every action is left out
                if not result.samples:  # the time ran out in the first deal
                    result.fallback = playout.policy_action(root, rnd)
                return result
            line = copy(root)
            apply(line, action)
            row[i] = objective(play(line, rnd), seat)
        for i, value in enumerate(row):
            result.totals[i] += value
        result.samples += 1
        result.playouts += len(actions)
    return result


# --------------------------------------------------------------------------- Trianon


def _play_trianon_on(state: trianon.TrianonState, rnd: Callable[[], float]) -> tuple[int, ...]:
    """A Trianon deal from any point: the rest of the bidding by `playout.bid_policy`
    (keeping the bid held when declarer), then the card play."""
    apply = trianon.apply_legal
    while state.kind in ("bid", "raise") and state.to_move >= 0:
        if state.kind == "bid":
            apply(state, playout.bid_policy(state))
        else:
            apply(state, trianon.KEEP)
    return playout.play_trianon_deal(state, rnd)


def contract_score(bid: int, tricks: int) -> float:
    """The declarer's margin (N-5) when it takes `tricks` in contract `bid`: its score
    less the mean of the defenders' (who score alike)."""
    scores = trianon.score_contract(bid, 0, [tricks, 0, 0])
    return margin(scores, 0)


def _declare(state: trianon.TrianonState, seat: int, strain: int) -> bool:
    """Make `seat` the declarer in `strain` on this copy: its lowest legal bid in the
    strain (or a raise to it), the others passing; False when no such bid is legal."""
    apply = trianon.apply_legal
    if state.kind == "bid":
        bid = next(
            (a for a in state.legal if a != trianon.PASS and (a - trianon.BID_BASE) % 6 == strain),
            None,
        )
        if bid is None:
            return False
        apply(state, bid)
        while state.kind == "bid":
            apply(state, trianon.PASS)
    if state.kind != "raise" or state.to_move != seat:
        return False
    held = state.high
    if held % 6 == strain:
        apply(state, trianon.KEEP)
        return True
    raise_to = next(
        (a for a in state.legal if a != trianon.KEEP and (a - trianon.RAISE_BASE) % 6 == strain),
        None,
    )
    if raise_to is None:
        return False
    apply(state, raise_to)
    return True


@dataclass
class TrickTable:
    """For each sampled deal, the tricks the seat takes as declarer in each strain
    (None where the strain cannot be reached), and the margin of passing."""

    tricks: list[list[int | None]] = field(default_factory=list)
    passing: list[float] = field(default_factory=list)
    fallback: int | None = None  # the policy's choice when no deal was done in time


def declarer_tricks(
    seat_state: SeatState,
    rng: random.Random,
    budget: Budget,
    *,
    with_pass: bool,
) -> TrickTable:
    """Per sampled deal, the seat's tricks as declarer in each of the six strains: the
    level changes only the score, not the play (the policy plays to win every trick),
    so one playout per strain prices every bid of it. With `with_pass`, also the
    seat's margin when it passes now and the others bid on by the policy."""
    seat = seat_state.seat
    rnd = rng.random
    table = TrickTable()
    started = time.perf_counter()
    done = 0
    clock = time.perf_counter
    while budget.allows(done, started):
        root = seat_state.sample_deal(rng, deadline=budget.deadline).engine_state
        row: list[int | None] = []
        for strain in range(6):
            if clock() > budget.deadline:  # a deal not tried in every strain is left out
                if not done:  # the time ran out in the first deal
                    table.fallback = playout.policy_action(root, rnd)
                return table
            state = trianon.copy_state(root)
            if _declare(state, seat, strain):
                playout.play_trianon_deal(state, rnd)
                row.append(state.tricks_won[seat])
            else:
                row.append(None)
        table.tricks.append(row)
        if with_pass:
            state = trianon.copy_state(root)
            trianon.apply_legal(state, trianon.PASS)
            table.passing.append(margin(_play_trianon_on(state, rnd), seat))
        done += 1
    return table


def bid_values(table: TrickTable, bids: Sequence[int]) -> list[float]:
    """The mean margin of holding each bid index as the contract, over the table."""
    out = []
    for bid in bids:
        strain = bid % 6
        total, n = 0.0, 0
        for row in table.tricks:
            tricks = row[strain]
            if tricks is not None:
                total += contract_score(bid, tricks)
                n += 1
        out.append(total / n if n else float("-inf"))
    return out
