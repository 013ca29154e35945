"""The SDK's sampled deals agree with the observation at every decision of real games of
both games (issue 32, point 1).

Games are played through the referee by random and greedy SDK bots (seeds, rule
options and which seats are greedy drawn by hypothesis), and at every decision the
bot's `Turn` is built from the very request bytes the referee sent. There,
`turn.state()` must be exactly the engine's view of the seat (so it holds nothing the
seat may not know), and every deal `turn.sample_deals` returns must agree with the view
in every way the view proves anything, each checked here from the view's events alone,
without the SDK's beliefs: the seat's own hand exact; cards played where they were
played and nowhere else; hand sizes; no card of a suit a seat failed to follow
(T-3.2, N-4.2); a King of Hearts heart lead only from a hand of hearts (T-3.4); no
playable card in the hand of a seat that passed in the Trix contract (T-6.4); the
exposure queue (T-5.1): a seat asked to expose held an exposable card, one passed over
held none, and exposed cards stay with their exposer. Then the engine itself replays
the deal's events on the sampled hands and must see the same view. Trianon bids are
soft evidence, not facts: the beliefs must record them as the events say.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import FULL_DECK, HEARTS, JACK, SUIT_MASK
from arena.games import trianon, trix
from arena.sdk import Turn
from arena.sdk.deal import Deal
from arena.wire.v1 import bot_pb2 as pb
from tests.support.recorded_games import Recorded, record_game


def _played(view) -> list[int]:
    out = [0] * len(view.cards_left)
    for seat, action in view.events:
        if action < 52:
            out[seat] |= 1 << action
    return out


def _tricks(view) -> list[list[tuple[int, int]]]:
    """The deal's tricks so far (the last one maybe unfinished), from its plays."""
    seats = len(view.cards_left)
    plays = [(s, a) for s, a in view.events if a < 52]
    return [plays[i : i + seats] for i in range(0, len(plays), seats)]


def _row_next(card: int) -> int:
    """T-6.3, written out again: a Jack opens both ways, a card above it leads up,
    one below it down."""
    rank = card % 13
    if rank == JACK:
        return (1 << (card + 1)) | (1 << (card - 1))
    if JACK < rank < 12:
        return 1 << (card + 1)
    if 0 < rank < JACK:
        return 1 << (card - 1)
    return 0


def _check_trix(view, dealt: tuple[int, ...], hands: list[int]) -> None:
    """What a Trix view proves about the other hands (see the module docstring)."""
    if view.contract == trix.TRIX:  # T-6.4: a pass means nothing playable was held
        playable = trix.JACKS_MASK
        holding = list(dealt)
        for seat, action in view.events:
            if action < 52:
                holding[seat] &= ~(1 << action)
                playable = (playable & ~(1 << action)) | _row_next(action)
            elif action == trix.PASS:
                assert not holding[seat] & playable, "a seat that passed held a playable card"
    elif view.contract >= 0:
        for trick in _tricks(view):
            led = trick[0][1] // 13
            leader = trick[0][0]
            if view.contract == trix.KING_OF_HEARTS and led == HEARTS:  # T-3.4
                assert not hands[leader] & ~SUIT_MASK[HEARTS]
            for seat, card in trick[1:]:
                if card // 13 != led:  # T-3.2
                    assert not hands[seat] & SUIT_MASK[led], "a void shown holds the suit"
    if view.options.doubling and view.contract in (trix.KING_OF_HEARTS, trix.QUEENS):
        exposable = trix.KH_BIT if view.contract == trix.KING_OF_HEARTS else trix.QUEENS_MASK
        asked = {s for s, a in view.events if a >= trix.EXPOSE_BASE}
        queue = [(view.king + k) % 4 for k in range(4)]
        settled = queue
        if view.kind == "expose":  # the seats after the one asked now are not settled
            settled = queue[: queue.index(view.seat)]
        for seat in settled:
            assert bool(dealt[seat] & exposable) == (seat in asked), "the exposure queue"
    for seat in range(4):  # exposed cards stay with their exposer until played
        assert view.exposed[seat] & ~_played(view)[seat] & ~hands[seat] == 0


def _check_trianon(view, hands: list[int], beliefs) -> None:
    for trick in _tricks(view):
        led = trick[0][1] // 13
        for seat, card in trick[1:]:
            if card // 13 != led:  # N-4.2
                assert not hands[seat] & SUIT_MASK[led], "a void shown holds the suit"
    highest: dict[int, int] = {}
    quiet = []
    for seat, action in view.events:
        if trianon.BID_BASE <= action < trianon.RAISE_BASE:
            highest[seat] = action - trianon.BID_BASE
        elif trianon.RAISE_BASE <= action < trianon.RAISE_BASE + trianon.NUM_BIDS:
            highest[seat] = action - trianon.RAISE_BASE
        elif action == trianon.PASS and not highest and seat != view.seat:
            quiet.append(seat)
    assert dict(beliefs.bids) == {s: b for s, b in highest.items() if s != view.seat}
    assert list(beliefs.quiet) == quiet


def check_deal(view, deal: Deal, beliefs) -> None:
    """A sampled deal agrees with the view it was drawn from."""
    engine = trix if isinstance(view, trix.TrixView) else trianon
    deck = FULL_DECK if engine is trix else trianon.DECK_MASK
    state = deal.engine_state
    hands = list(state.hands)
    dealt = tuple(state.dealt)
    played = _played(view)
    assert (deal.to_move, deal.kind, deal.actions) == (view.seat, view.kind, view.legal)
    assert hands[view.seat] == view.hand, "the own hand is exact"
    everything = 0
    for seat, hand in enumerate(hands):
        assert hand.bit_count() == view.cards_left[seat], "hand sizes"
        assert dealt[seat] == hand | played[seat], "played cards were played by their seat"
        assert not everything & dealt[seat], "no card twice"
        everything |= dealt[seat]
    assert everything == deck, "every card dealt"
    if engine is trix:
        _check_trix(view, dealt, hands)
    else:
        _check_trianon(view, hands, beliefs)
    # The engine replays the deal's events on the sampled hands and sees the same view.
    if engine is trix:
        start = view.contracts_left | ((1 << view.contract) if view.contract >= 0 else 0)
        again = trix.state_from_deal(
            dealt, view.king, view.events, view.options, start,
            first_king=view.first_king, deal_index=view.deal - 1,
            deal_scores=view.deal_scores, totals=view.totals,
        )  # fmt: skip
    else:
        again = trianon.state_from_deal(
            dealt, view.dealer, view.events, view.options,
            deal_index=view.deal - 1, deal_scores=view.deal_scores, totals=view.totals,
        )  # fmt: skip
    assert engine.observe(again, view.seat) == view
    assert engine.observe(state, view.seat) == view


def check_every_decision(log: list[Recorded], rng: random.Random) -> int:
    """Check the SDK's state and two sampled deals at every recorded decision; how many
    decisions there were."""
    for view, request in log:
        turn = Turn(pb.DecisionRequest.FromString(request))
        state = turn.state()
        assert state.engine_view == view, "the seat's state is exactly what observe built"
        assert state.legal == turn.legal and state.actions == view.legal
        for deal in turn.sample_deals(2, rng):
            check_deal(view, deal, state.beliefs)
    return len(log)


@settings(max_examples=6, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    doubling=st.booleans(),
    greedy=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_trix_sampled_deals_agree_at_every_decision(
    seed: int, doubling: bool, greedy: list[bool]
) -> None:
    log = record_game("trix", f"sdk-{seed}", {"kingdoms": 1, "doubling": doubling}, greedy)
    kinds = {view.kind for view, _ in log}
    assert {"contract", "expose" if doubling else "play", "play"} <= kinds
    assert check_every_decision(log, random.Random(seed)) > 200


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10**9), greedy=st.lists(st.booleans(), min_size=3, max_size=3))
def test_trianon_sampled_deals_agree_at_every_decision(seed: int, greedy: list[bool]) -> None:
    log = record_game("trianon", f"sdk-{seed}", {"target": 200, "max_deals": 6}, greedy)
    assert {"bid", "play"} <= {view.kind for view, _ in log}
    assert check_every_decision(log, random.Random(seed)) > 30
