"""Hypothesis properties of the Trix engine, and the golden legal-action counts."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.cards import FULL_DECK, seeded_rng
from arena.games import trix
from arena.games.trix import CONTRACTS, KH_BIT, QUEENS_MASK, TrixOptions, apply, observe
from tests.support.golden_counts import FIXTURE, compute
from tests.support.walks import advance_randomly, with_cards_swapped

options_strategy = st.builds(
    TrixOptions,
    doubling=st.booleans(),
    kingdoms=st.integers(1, 4),
    tiebreak=st.sampled_from(["none", "king-of-hearts"]),
    first_king_card=st.sampled_from(["7H", "2C", "AS", "QD"]),
    partners=st.booleans(),
)
seeds = st.text(min_size=1, max_size=12)
PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_DECISIONS = 24 * 52 * 3  # far above any legal game: a bound, so no loop is endless


def random_walk(seed: str, options: TrixOptions, check=None) -> trix.TrixState:
    """Play random legal actions to the end, calling `check(state)` before each one."""
    state = trix.new_game(seed, options)
    rng = seeded_rng("walk", seed)
    for _ in range(MAX_DECISIONS):
        if state.to_move < 0:
            return state
        if check:
            check(state)
        apply(state, rng.choice(state.legal))
    raise AssertionError("a game did not end within the bound")


@PROPERTY
@given(seed=seeds, options=options_strategy)
def test_random_legal_play_always_ends(seed: str, options: TrixOptions) -> None:
    state = random_walk(seed, options)
    regular = options.kingdoms * 5
    assert regular <= len(state.deal_scores) <= regular + 4
    totals, ranks = trix.result(state)
    assert totals == [sum(d[s] for d in state.deal_scores) for s in range(4)]
    assert min(ranks) == 1


def _cards_conserved(state: trix.TrixState) -> None:
    played = 0
    for _, action in state.events:
        if action < 52:
            assert not played & (1 << action), "a card was played twice"
            played |= 1 << action
    hands = state.hands
    held = 0
    for hand in hands:
        assert not held & hand, "two seats hold the same card"
        held |= hand
    assert not held & played
    assert held | played == FULL_DECK
    for seat in range(4):
        assert hands[seat] | _played_by(state, seat) == state.dealt[seat]


def _played_by(state: trix.TrixState, seat: int) -> int:
    return sum(1 << a for s, a in state.events if s == seat and a < 52)


@PROPERTY
@given(seed=seeds, options=options_strategy)
def test_cards_are_conserved(seed: str, options: TrixOptions) -> None:
    random_walk(seed, options, _cards_conserved)


BASE_TOTAL = {"king-of-hearts": -75, "diamonds": -130, "queens": -100, "no-tricks": -195}


@PROPERTY
@given(seed=seeds, doubling=st.booleans())
def test_each_deal_total_obeys_t4_5_and_t6_6(seed: str, doubling: bool) -> None:
    """Without doubling a trick deal's total is fixed (T-4.5) and a Trix deal hands out
    200+150+100+50 (T-6.6). With doubling an exposed card taken by another moves nothing
    (-2p + p = -p, as if unexposed, T-5.3); one taken by its exposer moves the total by
    -p (T-5.4)."""
    state = random_walk(seed, TrixOptions(doubling=doubling))
    for record in state.records:
        contract = CONTRACTS[record["events"][0][1] - trix.CONTRACT_BASE]
        scores = record["scores"]
        total = sum(scores)
        if contract == "trix":
            assert sorted(scores) == [50, 100, 150, 200]
            continue
        exposed = sum(
            (a & FULL_DECK).bit_count() for _, a in record["events"] if a >= trix.EXPOSE_BASE
        )
        assert doubling or not exposed
        penalty = 75 if contract == "king-of-hearts" else 25
        base = BASE_TOTAL[contract]
        assert base - penalty * exposed <= total <= base
        assert (base - total) % penalty == 0


def _visible_cards(view: trix.TrixView) -> int:
    """Every card a view mentions anywhere."""
    mask = view.hand | view.rows
    for m in view.exposed:
        mask |= m
    for _, action in view.events:
        if action < 52:
            mask |= 1 << action
        elif action >= trix.EXPOSE_BASE:
            mask |= action & FULL_DECK
    for _, card in view.trick:
        mask |= 1 << card
    for action in view.legal:
        if action < 52:
            mask |= 1 << action
        elif action >= trix.EXPOSE_BASE:
            mask |= action & FULL_DECK
    return mask


def _observation_hides_hands(state: trix.TrixState) -> None:
    for seat in range(4):
        view = observe(state, seat)
        visible = _visible_cards(view)
        public = 0
        for m in state.exposed:
            public |= m  # T-5.2: exposed cards are public while still held
        for other in range(4):
            if other != seat:
                assert not visible & state.hands[other] & ~public, (
                    f"seat {seat} can see an unplayed card of seat {other}"
                )
        assert view.hand == state.hands[seat]


@PROPERTY
@given(seed=seeds, options=options_strategy)
def test_an_observation_never_holds_another_seats_unplayed_card(
    seed: str, options: TrixOptions
) -> None:
    random_walk(seed, TrixOptions(**{**options.__dict__, "kingdoms": 1}), _observation_hides_hands)


@PROPERTY
@given(seed=seeds, steps=st.integers(0, 300), data=st.data())
def test_states_differing_only_in_hidden_cards_look_the_same(seed: str, steps: int, data) -> None:
    """OpenSpiel's observer contract: what a seat cannot see cannot change its view."""
    state = trix.new_game(seed)
    advance_randomly(apply, state, seeded_rng("hidden", seed), steps)
    seat = data.draw(st.integers(0, 3))
    others = [s for s in range(4) if s != seat]
    b, c = data.draw(st.permutations(others))[:2]
    public = state.exposed[0] | state.exposed[1] | state.exposed[2] | state.exposed[3]
    hidden_b = trix.cards_of(state.hands[b] & ~public)
    hidden_c = trix.cards_of(state.hands[c] & ~public)
    k = data.draw(st.integers(0, min(len(hidden_b), len(hidden_c))))
    from_b = data.draw(st.permutations(hidden_b))[:k]
    from_c = data.draw(st.permutations(hidden_c))[:k]
    twin = with_cards_swapped(state, b, c, from_b, from_c)
    assert observe(twin, seat) == observe(state, seat)
    assert trix.view_dict(observe(twin, seat)) == trix.view_dict(observe(state, seat))
    if k:  # and the twins really differ where the seat cannot look
        assert twin.hands[b] != state.hands[b]


def test_exposable_masks_are_the_rule_books_cards() -> None:
    assert trix.codes_of(KH_BIT) == ["KH"]
    assert trix.codes_of(QUEENS_MASK) == ["QC", "QD", "QH", "QS"]


def test_golden_legal_action_counts() -> None:
    """Three fixed seeds played by `builtin:first`: every decision's number of actions."""
    expected = json.loads(FIXTURE.read_text())
    actual = compute()
    assert set(actual) == set(expected)
    for seed, counts in expected.items():
        assert len(actual[seed]) == len(counts), seed
        mismatch = next(
            (i for i, (a, e) in enumerate(zip(actual[seed], counts, strict=True)) if a != e), None
        )
        assert mismatch is None, f"{seed}: decision {mismatch} has a different count"


def _cards_left_match_the_hands(state: trix.TrixState) -> None:
    view = observe(state, state.to_move)
    assert view.cards_left == tuple(h.bit_count() for h in state.hands)


@PROPERTY
@given(seed=seeds, options=options_strategy)
def test_cards_left_in_a_view_are_the_cards_each_hand_holds(
    seed: str, options: TrixOptions
) -> None:
    """T-8.1 makes the number of cards each seat holds public; the view works it out
    from public facts alone (tricks won and the trick, or the Trix rows' events)."""
    random_walk(
        seed, TrixOptions(**{**options.__dict__, "kingdoms": 1}), _cards_left_match_the_hands
    )
