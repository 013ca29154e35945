"""`state_from_deal` and `copy_state` of both engines: a deal rebuilt from its hands
and events looks the same to every seat as the real one and plays on the same; a copy
plays on without touching its original."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ConfigError, IllegalAction
from arena.games import trianon, trix


def _trix_rebuilt(state: trix.TrixState, seat: int) -> trix.TrixState:
    view = trix.observe(state, seat)
    start = view.contracts_left | ((1 << view.contract) if view.contract >= 0 else 0)
    return trix.state_from_deal(
        state.dealt,
        view.king,
        view.events,
        view.options,
        start,
        first_king=view.first_king,
        deal_index=view.deal - 1,
        deal_scores=view.deal_scores,
        totals=view.totals,
    )


def _trianon_rebuilt(state: trianon.TrianonState, seat: int) -> trianon.TrianonState:
    view = trianon.observe(state, seat)
    return trianon.state_from_deal(
        state.dealt,
        view.dealer,
        view.events,
        view.options,
        deal_index=view.deal - 1,
        deal_scores=view.deal_scores,
        totals=view.totals,
    )


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), doubling=st.booleans(), tiebreak=st.booleans())
def test_a_rebuilt_trix_deal_looks_the_same_to_every_seat(
    seed: int, doubling: bool, tiebreak: bool
) -> None:
    rng = random.Random(seed)
    options = trix.TrixOptions(
        doubling=doubling, kingdoms=1, tiebreak="king-of-hearts" if tiebreak else "none"
    )
    state = trix.new_game(str(seed), options)
    while state.to_move >= 0:
        if rng.random() < 0.2:
            seat = rng.randrange(4)
            assert trix.observe(_trix_rebuilt(state, seat), seat) == trix.observe(state, seat)
        trix.apply(state, rng.choice(state.legal))


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_a_rebuilt_trianon_deal_looks_the_same_to_every_seat(seed: int) -> None:
    rng = random.Random(seed)
    state = trianon.new_game(str(seed), trianon.TrianonOptions(target=300))
    while state.to_move >= 0:
        if rng.random() < 0.3:
            seat = rng.randrange(3)
            rebuilt = _trianon_rebuilt(state, seat)
            assert trianon.observe(rebuilt, seat) == trianon.observe(state, seat)
        legal = state.legal
        trianon.apply(state, rng.choice(legal) if state.kind == "play" else legal[0])


def test_a_rebuilt_deal_plays_on_to_the_same_scores_and_then_ends() -> None:
    rng = random.Random(7)
    state = trix.new_game("rebuilt", trix.TrixOptions(kingdoms=1))
    for _ in range(30):
        trix.apply(state, state.legal[0])
    copy = _trix_rebuilt(state, 0)
    choices = []
    while state.deal_index == 0:
        choices.append(rng.choice(state.legal))
        trix.apply(state, choices[-1])
    for action in choices:
        trix.apply(copy, action)
    assert copy.deal_scores == state.deal_scores
    assert copy.to_move == -1  # the game ends with the rebuilt deal


def test_the_last_contract_is_played_without_asking_in_a_rebuilt_deal() -> None:
    hands = trix.deal_hands("auto", 0)
    state = trix.state_from_deal(hands, 2, (), None, 1 << trix.QUEENS)
    assert state.contract == trix.QUEENS and state.automatic == 1
    assert state.events[0] == (2, trix.CONTRACT_BASE + trix.QUEENS)
    again = trix.state_from_deal(hands, 2, state.events, None, 1 << trix.QUEENS)
    assert trix.observe(again, 0) == trix.observe(state, 0)


def test_hands_and_events_that_cannot_be_are_refused() -> None:
    hands = trix.deal_hands("bad", 0)
    with pytest.raises(ConfigError):
        trix.state_from_deal(hands[:3] + (hands[2],), 0)
    with pytest.raises(ConfigError):
        trix.state_from_deal(hands, 4)
    state = trix.new_deal(hands, 0)
    trix.apply(state, trix.CONTRACT_BASE + trix.NO_TRICKS)
    lead = state.legal[0]
    events = list(state.events) + [(0, lead)]
    trix.state_from_deal(hands, 0, events)
    with pytest.raises(IllegalAction):  # seat 1 does not hold seat 0's card
        trix.state_from_deal(hands, 0, events[:1] + [(0, next(iter(_cards(hands[1]))))])
    with pytest.raises(IllegalAction):  # not seat 1's turn
        trix.state_from_deal(hands, 0, events[:1] + [(1, next(iter(_cards(hands[1]))))])
    t_hands = trianon.deal_hands("bad", 0)
    with pytest.raises(ConfigError):
        trianon.state_from_deal(t_hands, 3)
    with pytest.raises(IllegalAction):  # seat 1 speaks first after dealer 0 (N-3.3)
        trianon.state_from_deal(t_hands, 0, [(2, trianon.PASS)])


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def test_a_copy_plays_on_without_changing_its_original() -> None:
    rng = random.Random(3)
    for game, state in (
        (trix, trix.new_game("copy", trix.TrixOptions(kingdoms=1))),
        (trianon, trianon.new_game("copy")),
    ):
        for _ in range(25):
            game.apply(state, state.legal[0])
        before = [game.observe(state, s) for s in range(game.SEATS)]
        records = game.deal_records(state)
        copy = game.copy_state(state)
        assert [game.observe(copy, s) for s in range(game.SEATS)] == before
        while copy.to_move >= 0:
            game.apply(copy, rng.choice(copy.legal))
        assert [game.observe(state, s) for s in range(game.SEATS)] == before
        assert game.deal_records(state) == records
