"""Hidden hands drawn at random so that they agree with everything the seat has seen.

`sample_hidden` deals the pool of unseen cards to the other seats obeying `Beliefs`
exactly: sizes, allowed cards (voids, passes, exposures), fixed cards, and the "holds
at least one of" conditions. Cards are dealt one at a time, each to a seat chosen with
probability proportional to the room left in its hand (which is the uniform deal when
nothing else constrains it), among the seats that may hold it and whose choice leaves
the rest of the deal possible. That last test is Hall's condition for the remaining
cards, kept up to date as one "slack" number per set of seats, so no draw ever needs
to back-track; with at most three other seats there are seven sets.

`sample_state` turns a draw into an engine state at the seat's decision with the
engine's own `state_from_deal`, which replays the deal's events on the drawn hands:
a draw the rules would reject raises there instead of being played on.

Bots reach this through `SeatState.sample_deal` and `sample_deals` (`state.py`, and
`turn.sample_deals`); the functions here are the machinery, public for tests and for a
bot that wants to draw hands itself.
"""

from __future__ import annotations

import random
import time
from functools import lru_cache
from typing import Any

from arena.cards import cards_of
from arena.games import trianon, trix
from arena.sdk.beliefs import Beliefs
from arena.sdk.estimates import trick_estimates


class Impossible(ValueError):
    """No deal agrees with the beliefs (a bug, or a view that contradicts itself)."""


@lru_cache(maxsize=64)
def _subsets_of(seats: tuple[int, ...]) -> tuple[int, ...]:
    """Every non-empty set of `seats` as a bitmask over seats."""
    out = []
    for m in range(1, 1 << len(seats)):
        out.append(sum(1 << seats[i] for i in range(len(seats)) if m >> i & 1))
    return tuple(out)


@lru_cache(maxsize=1024)
def _squeezed(seats: tuple[int, ...], card_type: int, seat: int) -> tuple[int, ...]:
    """The sets of seats whose slack giving a card of `card_type` to `seat` lowers:
    those holding `seat` but not every seat of the type."""
    bit = 1 << seat
    return tuple(sub for sub in _subsets_of(seats) if sub & bit and card_type & ~sub)


def _deal_once(beliefs: Beliefs, fixed: list[int], rng: random.Random) -> list[int] | None:
    """One draw honouring sizes, allowed and `fixed` (not `needs`); None if impossible."""
    seats = tuple(s for s in range(len(beliefs.sizes)) if s != beliefs.seat)
    hands = list(fixed)
    room = [beliefs.sizes[s] - fixed[s].bit_count() for s in range(len(beliefs.sizes))]
    room[beliefs.seat] = 0
    taken = 0
    for s in seats:
        taken |= fixed[s]
        if room[s] < 0:
            return None
    cards = list(cards_of(beliefs.pool & ~taken))
    if len(cards) != sum(room):
        return None
    allowed = beliefs.allowed
    # Each card's type: the set of seats that may hold it.
    types = []
    for card in cards:
        bit = 1 << card
        t = 0
        for s in seats:
            if allowed[s] & bit:
                t |= 1 << s
        if not t:
            return None
        types.append(t)
    if all(t == types[0] for t in types) and types and types[0].bit_count() == len(seats):
        # Nothing constrains the deal: a plain shuffle split by sizes.
        rng.shuffle(cards)
        i = 0
        for s in seats:
            for card in cards[i : i + room[s]]:
                hands[s] |= 1 << card
            i += room[s]
        return hands
    subsets = _subsets_of(seats)
    # slack[S] = room of S less the cards that can only go to seats of S (Hall).
    slack = {}
    for sub in subsets:
        cap = sum(room[s] for s in seats if sub >> s & 1)
        need = sum(1 for t in types if t & ~sub == 0)
        if cap < need:
            return None
        slack[sub] = cap - need
    order = list(range(len(cards)))
    rng.shuffle(order)
    for i in order:
        card, t = cards[i], types[i]
        choices = []
        weights = []
        for s in seats:
            if not (t >> s & 1) or room[s] <= 0:
                continue
            # giving the card to s lowers the slack of every set holding s but not
            # all of t's seats: each must have slack to spare
            if all(slack[sub] > 0 for sub in _squeezed(seats, t, s)):
                choices.append(s)
                weights.append(room[s])
        if not choices:
            return None
        if len(choices) == 1:
            s = choices[0]
        else:
            x = rng.random() * sum(weights)
            k = 0
            while x >= weights[k]:
                x -= weights[k]
                k += 1
            s = choices[k]
        hands[s] |= 1 << card
        room[s] -= 1
        bit = 1 << s
        for sub in subsets:
            slack[sub] += (t & ~sub == 0) - (sub & bit != 0)
    return hands


def sample_hidden(beliefs: Beliefs, rng: random.Random, tries: int = 30) -> list[int]:
    """The other seats' hidden hands (the seat's own entry is 0), drawn at random
    consistent with `beliefs`. A "holds at least one of" condition is met by drawing
    again (it usually holds); after `tries` failures one of its cards is placed first.
    Raises Impossible when no deal fits."""
    fixed = list(beliefs.fixed)
    for attempt in range(3 * tries):
        hands = _deal_once(beliefs, fixed, rng)
        if hands is None:
            raise Impossible(f"no deal agrees with {beliefs!r}")
        missing = [(s, m) for s, m in beliefs.needs if not hands[s] & m]
        if not missing:
            return hands
        if attempt >= tries:
            s, m = missing[0]
            candidates = [
                c for c in cards_of(m & beliefs.allowed[s]) if not any(f >> c & 1 for f in fixed)
            ]
            if not candidates:
                raise Impossible(f"seat {s} cannot hold any of its needed cards")
            fixed[s] |= 1 << rng.choice(candidates)
    raise Impossible(f"no deal meets the conditions of {beliefs!r}")


def dealt_hands(beliefs: Beliefs, hidden: list[int]) -> tuple[int, ...]:
    """The hands as dealt: what each seat holds now plus what it played this deal."""
    return tuple(
        (beliefs.hand if s == beliefs.seat else hidden[s]) | beliefs.played[s]
        for s in range(len(hidden))
    )


def state_for(view: Any, dealt: tuple[int, ...]) -> Any:
    """The engine state of the view's deal with these hands as dealt, at the view's
    moment: `state_from_deal` with everything else copied from the view."""
    if isinstance(view, trix.TrixView):
        start = view.contracts_left | ((1 << view.contract) if view.contract >= 0 else 0)
        return trix.state_from_deal(
            dealt,
            view.king,
            view.events,
            view.options,
            start,
            first_king=view.first_king,
            deal_index=view.deal - 1,
            deal_scores=view.deal_scores,
            totals=view.totals,
        )
    return trianon.state_from_deal(
        dealt,
        view.dealer,
        view.events,
        view.options,
        deal_index=view.deal - 1,
        deal_scores=view.deal_scores,
        totals=view.totals,
    )


# Soft evidence of the Trianon bidding: a bid of n tricks in a strain is read as a hand
# whose trick estimate there (`estimates.trick_estimates`) is at least n - BID_SLACK; a
# pass before any bid as a hand estimated below QUIET_TRICKS in every strain. Draws are
# redrawn up to EVIDENCE_TRIES times until one fits, else the best fitting is kept:
# the evidence shapes the hands, it never makes a draw impossible.
BID_SLACK = 1.0
QUIET_TRICKS = 5.5
EVIDENCE_TRIES = 12


def _misfit(beliefs: Beliefs, dealt: tuple[int, ...]) -> float:
    """How far the drawn hands fall short of the bidding's evidence (0: they fit)."""
    short = 0.0
    for seat, bid in beliefs.bids:
        estimate = trick_estimates(dealt[seat])[bid % 6]
        short += max(0.0, trianon.bid_tricks(bid) - BID_SLACK - estimate)
    for seat in beliefs.quiet:
        short += max(0.0, max(trick_estimates(dealt[seat])) - QUIET_TRICKS)
    return short


def sample_dealt(
    beliefs: Beliefs, rng: random.Random, deadline: float | None = None
) -> tuple[int, ...]:
    """Hands as dealt that agree with the beliefs, and in Trianon fit the bidding's
    soft evidence when a few draws (made before `deadline`, a perf_counter time) can
    make them."""
    dealt = dealt_hands(beliefs, sample_hidden(beliefs, rng))
    if not (beliefs.bids or beliefs.quiet):
        return dealt
    best, best_misfit = dealt, _misfit(beliefs, dealt)
    for _ in range(EVIDENCE_TRIES):
        if best_misfit == 0.0 or (deadline is not None and time.perf_counter() > deadline):
            break
        dealt = dealt_hands(beliefs, sample_hidden(beliefs, rng))
        misfit = _misfit(beliefs, dealt)
        if misfit < best_misfit:
            best, best_misfit = dealt, misfit
    return best


def sample_state(
    view: Any, beliefs: Beliefs, rng: random.Random, deadline: float | None = None
) -> Any:
    """A full-information state that the seat cannot tell from the real one."""
    return state_for(view, sample_dealt(beliefs, rng, deadline))
