"""What one seat knows about the hidden hands: hard constraints from its view alone.

A `Beliefs` is built from the seat's observation (the engine's view, which a turn
rebuilds from its request: `views.py`) and from nothing else: a bot must never see the
referee's state (rules/trix.md T-8, rules/trianon.md N-8). It says which unseen cards
each other seat may hold, which it must hold, and how many it holds; `sampling.py`
draws hands that obey all of it, and the rules engine replays the deal's events on
every draw (`state_from_deal`), which is the final check. `SeatState.beliefs`
(`state.py`) is how a bot reads it.

The constraints, each one exact (a hand that breaks one could not have produced the
events seen):
- own hand exact; cards played are gone; each seat holds `cards_left` cards;
- T-3.2 / N-4.2: a seat that did not follow the suit led holds none of that suit;
- T-3.4: a seat that led a heart in King of Hearts held only hearts then;
- T-6.4: a seat that passed in the Trix contract held none of the cards playable then;
- T-5: with doubling, in King of Hearts and Queens every holder of the exposable cards
  is asked in turn from the King and nobody else: an expose event (even exposing
  nothing) says the seat held one of them, a seat passed over held none, and exposed
  cards stay with their exposer until played.
Bids are no hard constraint (a bid may be a bluff or a mistake): they are recorded as
soft evidence (`bids`, `quiet`), which `sampling.py` weighs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.cards import SUIT_MASK
from arena.games import trianon, trix

HEARTS = 2


@dataclass(frozen=True)
class Beliefs:
    """The hidden part of a deal as one seat sees it.

    `pool` is every card the seat cannot see (held by the others); for each seat,
    `sizes` is how many pool cards it holds, `allowed` the pool cards it may hold and
    `fixed` those it surely holds (a subset of `allowed`); `needs` lists (seat, mask)
    pairs: that seat holds at least one pool card of mask. The seat's own entries are
    0 (its hand is `hand`). `played` is each seat's cards played this deal, so that a
    sampled hand plus `played` is the hand as dealt (what `state_from_deal` takes).
    """

    game: str
    seat: int
    hand: int
    pool: int
    sizes: tuple[int, ...]
    allowed: tuple[int, ...]
    fixed: tuple[int, ...]
    needs: tuple[tuple[int, int], ...]
    played: tuple[int, ...]
    bids: tuple[tuple[int, int], ...] = ()  # Trianon: (seat, its highest bid), others only
    quiet: tuple[int, ...] = ()  # Trianon: other seats that passed with no bid made yet


def trix_beliefs(view: trix.TrixView) -> Beliefs:
    """The constraints of a Trix view (see the module docstring for the rules read)."""
    seat = view.seat
    played = [0, 0, 0, 0]
    for s, action in view.events:
        if action < 52:
            played[s] |= 1 << action
    seen = view.hand | played[0] | played[1] | played[2] | played[3]
    pool = trix.FULL_DECK & ~seen
    allowed = [pool, pool, pool, pool]
    fixed = [0, 0, 0, 0]
    needs: list[tuple[int, int]] = []
    contract = view.contract
    if contract == trix.TRIX:
        playable = trix.JACKS_MASK
        for s, action in view.events:
            if action < 52:
                playable = (playable & ~(1 << action)) | trix.ROW_NEXT[action]
            elif action == trix.PASS:  # T-6.4: nothing playable in that hand
                allowed[s] &= ~playable
    elif contract >= 0:
        trick: list[tuple[int, int]] = []
        for s, action in view.events:
            if action >= 52:
                continue
            if not trick:
                led = action // 13
                if contract == trix.KING_OF_HEARTS and led == HEARTS:  # T-3.4
                    allowed[s] &= SUIT_MASK[HEARTS]
            elif action // 13 != led:  # T-3.2
                allowed[s] &= ~SUIT_MASK[led]
            trick.append((s, action))
            if len(trick) == 4:
                trick = []
        if view.options.doubling and contract in (trix.KING_OF_HEARTS, trix.QUEENS):
            _exposure_constraints(view, played, pool, allowed=allowed, fixed=fixed, needs=needs)
    allowed[seat] = fixed[seat] = 0
    for s in range(4):
        allowed[s] |= fixed[s]
    sizes = list(view.cards_left)
    sizes[seat] = 0
    return Beliefs(
        "trix",
        seat,
        view.hand,
        pool,
        tuple(sizes),
        tuple(allowed),
        tuple(fixed),
        tuple(needs),
        tuple(played),
    )


def _exposure_constraints(
    view: trix.TrixView,
    played: list[int],
    pool: int,
    *,
    allowed: list[int],
    fixed: list[int],
    needs: list[tuple[int, int]],
) -> None:
    """T-5.1: who was asked to expose, and who was passed over, in King of Hearts and
    Queens with doubling on. The queue runs from the King in turn order; it is settled
    for every seat once play began, else for the seats before the one now asked."""
    exposable = trix.KH_BIT if view.contract == trix.KING_OF_HEARTS else trix.QUEENS_MASK
    asked = {s for s, a in view.events if a >= trix.EXPOSE_BASE}
    order = [(view.king + k) % 4 for k in range(4)]
    if view.kind == trix.KIND_EXPOSE and view.to_move >= 0:
        settled = order[: order.index(view.to_move)]
    else:
        settled = order
    for s in settled:
        if s == view.seat:
            continue
        if s not in asked:
            allowed[s] &= ~exposable
            continue
        fixed[s] |= view.exposed[s] & pool
        if not (played[s] | view.exposed[s]) & exposable:  # it holds one still
            need = exposable & pool
            if need.bit_count() == 1:  # the KH: that seat's
                fixed[s] |= need
            else:
                needs.append((s, need))


def trianon_beliefs(view: trianon.TrianonView) -> Beliefs:
    """The constraints of a Trianon view: voids shown by not following suit (N-4.2)."""
    seat = view.seat
    played = [0, 0, 0]
    for s, action in view.events:
        if action < 52:
            played[s] |= 1 << action
    seen = view.hand | played[0] | played[1] | played[2]
    pool = trianon.DECK_MASK & ~seen
    allowed = [pool, pool, pool]
    count = 0
    led = -1
    for s, action in view.events:
        if action >= 52:
            continue
        if count % 3 == 0:
            led = action // 13
        elif action // 13 != led:
            allowed[s] &= ~SUIT_MASK[led]
        count += 1
    allowed[seat] = 0
    sizes = list(view.cards_left)
    sizes[seat] = 0
    # Soft evidence (deals.py weighs it, never as a hard rule): what each seat bid.
    bids: dict[int, int] = {}
    quiet: list[int] = []
    for s, action in view.events:
        if trianon.BID_BASE <= action < trianon.RAISE_BASE:
            bids[s] = action - trianon.BID_BASE
        elif trianon.RAISE_BASE <= action < trianon.RAISE_BASE + trianon.NUM_BIDS:
            bids[s] = action - trianon.RAISE_BASE
        elif action == trianon.PASS and not bids and s != seat:
            quiet.append(s)
    return Beliefs(
        "trianon",
        seat,
        view.hand,
        pool,
        tuple(sizes),
        tuple(allowed),
        (0, 0, 0),
        (),
        tuple(played),
        tuple((s, b) for s, b in bids.items() if s != seat),
        tuple(quiet),
    )


def beliefs_of(view: Any) -> Beliefs:
    """The constraints of either game's view."""
    if isinstance(view, trix.TrixView):
        return trix_beliefs(view)
    return trianon_beliefs(view)
