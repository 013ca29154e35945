"""The byte-level request encoder says exactly what the engine's view says."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import seeded_rng
from arena.games import trix
from arena.wire.codec import WireCodec, game_info, game_info_bytes, wrap_decision
from arena.wire.messages import action_dict, observation_dict
from arena.wire.v1 import bot_pb2 as pb
from tests.support.walks import advance_randomly

GAME = trix.GAME
CODEC = WireCodec(GAME)
VIEW_ONLY = {"to_move", "kind", "legal", "options"}  # carried elsewhere in the request
WIRE_ONLY = {"dealer", "declarer", "bid", "trump"}  # Trianon fields, empty in Trix


@settings(max_examples=30, deadline=None)
@given(seed=st.text(max_size=8), steps=st.integers(0, 1200))
def test_decoded_request_equals_the_view(seed: str, steps: int) -> None:
    state = advance_randomly(trix.apply, trix.new_game(seed), seeded_rng("wire", seed), steps)
    if state.to_move < 0:
        return
    seat = state.to_move
    view = trix.observe(state, seat)
    info = game_info(
        "trix",
        "g",
        seat,
        seed=seed,
        players=["a", "b", "c", "d"],
        options=trix.options_dict(state.options),
    )
    data = CODEC.decision_bytes(
        view, state.legal, 9, game_info_bytes(info), time_ms=1000, time_bank_ms=250
    )
    request = pb.DecisionRequest.FromString(data)
    expected = {k: v for k, v in trix.view_dict(view).items() if k not in VIEW_ONLY}
    decoded = observation_dict(request.observation)
    assert {k: v for k, v in decoded.items() if k not in WIRE_ONLY} == expected
    assert decoded["declarer"] == -1
    assert [action_dict(a) for a in request.legal] == [trix.action_event(a) for a in state.legal]
    assert request.kind == state.kind and request.decision_id == 9
    assert request.time_ms == 1000 and request.time_bank_ms == 250
    assert request.game == info
    assert pb.RefereeMessage.FromString(wrap_decision(data)).decision == request


def test_answers_are_parsed_by_value() -> None:
    state = trix.new_game("answers")
    for action in state.legal:
        message = pb.Action(**{k: v for k, v in trix.action_event(action).items()})
        assert CODEC.parse_answer(message) == action
    expose = pb.Action(type="expose", cards=["QS", "QC"])
    assert CODEC.parse_answer(expose) == trix.EXPOSE_BASE | trix.parse_cards(["QC", "QS"])


def test_one_codec_across_many_games_and_seats_stays_exact() -> None:
    """The encoder keeps per-deal caches; games that share a deal number, contract and
    totals but not their King or cards must still be told their own."""
    codec = WireCodec(GAME)
    for seed in range(12):
        state = trix.new_game(f"many-{seed}")
        for step in range(120):
            seat = state.to_move
            view = trix.observe(state, seat)
            info = game_info_bytes(
                game_info("trix", "g", seat, seed="s", players=list("abcd"), options={})
            )
            request = pb.DecisionRequest.FromString(
                codec.decision_bytes(view, state.legal, step, info, time_ms=1000)
            )
            expected = {k: v for k, v in trix.view_dict(view).items() if k not in VIEW_ONLY}
            decoded = observation_dict(request.observation)
            assert {k: v for k, v in decoded.items() if k not in WIRE_ONLY} == expected
            trix.apply(state, state.legal[(seed + step) % len(state.legal)])


@settings(max_examples=30, deadline=None)
@given(seed=st.text(max_size=8), steps=st.integers(0, 200))
def test_trianon_requests_equal_the_view(seed: str, steps: int) -> None:
    from arena.games import trianon

    game = trianon.GAME
    codec = WireCodec(game)
    state = game.new_game(seed, game.parse_options({"target": 300}))
    advance_randomly(game.apply, state, seeded_rng("wire-trianon", seed), steps)
    if state.to_move < 0:
        return
    seat = state.to_move
    view = game.observe(state, seat)
    info = game_info_bytes(
        game_info("trianon", "g", seat, seed=seed, players=["a", "b", "c"], options={})
    )
    request = pb.DecisionRequest.FromString(
        codec.decision_bytes(view, state.legal, 3, info, time_ms=500)
    )
    expected = {k: v for k, v in game.view_dict(view).items() if k not in VIEW_ONLY}
    decoded = observation_dict(request.observation)
    assert {k: decoded[k] for k in expected} == expected
    assert [action_dict(a) for a in request.legal] == [game.action_event(a) for a in state.legal]
    for action in state.legal:  # and every legal answer parses back
        assert codec.parse_answer(pb.Action(**game.action_event(action))) == action


def test_the_hand_and_rows_kept_by_card_set_stay_exact_past_the_caches_bound() -> None:
    """A hand's and the rows' fields are kept by card set (arena/wire/codec.py), in a
    cache emptied when it outgrows its bound: every set, before and after, decodes to
    its own cards."""
    from random import Random

    from arena.cards import cards_of, codes_of
    from arena.wire.codec import _HAND, _ROWS

    rng = Random(7)
    masks = [rng.getrandbits(52) for _ in range(_HAND.limit + 50)]
    for mask in masks + masks[:10]:  # the first ones again, after the cache was emptied
        hand = pb.Observation.FromString(_HAND[mask]).hand
        rows = pb.Observation.FromString(_ROWS[mask]).rows
        assert list(hand) == list(rows) == codes_of(mask)
        assert len(hand) == len(cards_of(mask))
    assert len(_HAND) <= _HAND.limit
