"""What the SDK's beliefs read from a view: the Trix contract's passes, the exposure
queue, and in Trianon the bids, which shape the sampled hands without ever breaking a
rule (the agreement of every sampled deal is test_sampled_deals.py)."""

from __future__ import annotations

import random

from arena.cards import SUIT_MASK
from arena.games import trianon, trix
from arena.sdk.sampling import sample_hidden
from arena.sdk.state import SeatState
from tests.sdk.test_sampled_deals import check_deal
from tests.support.recorded_games import short_game


def test_pass_and_exposure_constraints_are_read() -> None:
    """A pass in the Trix contract forbids the cards then playable; an expose event
    places the KH (doubling: only its holder is asked, T-5.1); a seat passed over in
    Queens holds no queen."""
    passes = kh = queens = 0
    for view, _ in short_game("trix", "sampler-a") + short_game("trix", "sampler-b"):
        beliefs = SeatState(view).beliefs
        if view.contract == trix.TRIX and any(a == trix.PASS for _, a in view.events):
            playable = trix.JACKS_MASK
            for s, action in view.events:
                if action < 52:
                    playable = (playable & ~(1 << action)) | trix.ROW_NEXT[action]
                elif s != view.seat:
                    assert not beliefs.allowed[s] & playable
                    passes += 1
        if view.contract == trix.KING_OF_HEARTS and view.kind == "play":
            holder = next((s for s, a in view.events if a >= trix.EXPOSE_BASE), -1)
            if holder not in (-1, view.seat) and trix.KH_BIT & beliefs.pool:
                assert beliefs.fixed[holder] == trix.KH_BIT
                kh += 1
        if view.contract == trix.QUEENS and view.kind == "play":
            asked = {s for s, a in view.events if a >= trix.EXPOSE_BASE}
            for s in set(range(4)) - asked - {view.seat}:
                assert not beliefs.allowed[s] & trix.QUEENS_MASK
                queens += 1
    assert passes and kh and queens


def test_a_bid_shapes_the_bidders_sampled_hands_but_never_breaks_a_rule() -> None:
    """Soft evidence (N-3): after seat 1 bids 9 hearts, its sampled hands hold more
    hearts than hands drawn with no evidence, and every one still agrees."""
    hands = trianon.deal_hands("evidence", 0)
    nine_hearts = trianon.BID_BASE + trianon.parse_bid("9H")
    view = trianon.observe(trianon.state_from_deal(hands, 0, [(1, nine_hearts)]), 2)
    state = SeatState(view)
    assert state.beliefs.bids == ((1, trianon.parse_bid("9H")),)
    rng = random.Random(1)
    hearts = trianon.DECK_MASK & SUIT_MASK[2]
    shaped = plain = 0
    for _ in range(40):
        deal = state.sample_deal(rng)
        check_deal(view, deal, state.beliefs)
        shaped += (deal.engine_state.hands[1] & hearts).bit_count()
        plain += (sample_hidden(state.beliefs, rng)[1] & hearts).bit_count()
    assert shaped > plain + 40  # more than one heart more per hand on average
