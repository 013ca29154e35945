"""The friendly level of the SDK's simulation: `turn.state()` and the `Deal`s it samples
behave as docs/bots.md ("Simulating") says."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from arena.errors import IllegalAction
from arena.games import trianon, trix
from arena.sdk import Turn
from arena.sdk.deal import Deal
from arena.sdk.state import SeatState
from arena.sdk.turn import decision_seed
from arena.wire.v1 import bot_pb2 as pb
from tests.support.recorded_games import short_game

GAMES = [("trix", "sampler-b"), ("trianon", "sampler-a")]


def _turns(game_name: str, seed: str, kind: str | None = None) -> list[Turn]:
    """Turns of a recorded game with a choice to make (of one kind, if given)."""
    out = []
    for view, request in short_game(game_name, seed):
        if len(view.legal) > 1 and kind in (None, view.kind):
            out.append(Turn(pb.DecisionRequest.FromString(request)))
    return out


@pytest.mark.parametrize(("game_name", "seed"), GAMES)
def test_the_state_speaks_as_the_turn_does(game_name: str, seed: str) -> None:
    for turn in _turns(game_name, seed)[:40]:
        state = turn.state()
        assert turn.state() is state  # built once
        assert state.game == turn.game["game"] and state.seat == turn.game["seat"]
        assert (state.kind, state.to_move, state.deal) == (turn.kind, state.seat, turn.view["deal"])
        assert all(a is b for a, b in zip(state.legal, turn.legal, strict=True))  # the same
        assert state.hand == turn.view["hand"]
        shared = set(state.view) & set(turn.view)
        assert {k: state.view[k] for k in shared} == {k: turn.view[k] for k in shared}
        # built from the engine's view alone, the dicts are the same
        assert SeatState(state.engine_view).legal == turn.legal


def test_a_turn_samples_with_its_own_random_source_by_default() -> None:
    turn = _turns("trix", "sampler-b", "play")[0]
    again = Turn(turn.request)
    info = turn.game
    explicit = random.Random(decision_seed(info["seed"], info["seat"], turn.decision_id))
    hands = [d.hands for d in turn.sample_deals(3)]
    assert hands == [d.hands for d in again.sample_deals(3, explicit)]
    different = [d.hands for d in Turn(turn.request).sample_deals(3, random.Random(1))]
    assert different != hands


@pytest.mark.parametrize(("game_name", "seed"), GAMES)
def test_apply_returns_the_next_deal_and_leaves_this_one(game_name: str, seed: str) -> None:
    rng = random.Random(7)
    for turn in _turns(game_name, seed)[:30]:
        deal = turn.state().sample_deal(rng)
        before = (deal.to_move, deal.kind, deal.hands, deal.legal)
        for action in deal.legal:
            after = deal.apply(action)
            assert (deal.to_move, deal.kind, deal.hands, deal.legal) == before
            played = deal.actions[deal.legal.index(action)]
            assert after.engine_state.events[-1] == (deal.to_move, played)
        if deal.kind == "play":
            card = deal.legal[-1]["card"]
            assert deal.apply(card).hands == deal.apply(deal.legal[-1]).hands


def test_an_illegal_or_int_action_is_refused() -> None:
    turn = _turns("trix", "sampler-b", "play")[0]
    deal = turn.state().sample_deal(random.Random(0))
    held = set(deal.hands[deal.to_move])
    foreign = next(c for hand in deal.hands for c in hand if c not in held)
    with pytest.raises(IllegalAction):
        deal.apply(foreign)
    with pytest.raises(IllegalAction):
        deal.apply({"type": "bid", "bid": "7H"})
    with pytest.raises(TypeError, match="fast level"):
        deal.apply(0)  # an index or an engine int: ambiguous, so neither
    with pytest.raises(ValueError, match="not over"):
        _ = deal.scores


@pytest.mark.parametrize(("game_name", "seed"), GAMES)
def test_play_out_plays_to_the_deals_end_and_scores_it(game_name: str, seed: str) -> None:
    rng = random.Random(3)
    engine = trix if game_name == "trix" else trianon
    for turn in _turns(game_name, seed)[::10]:
        deal = turn.state().sample_deal(rng)
        first = deal.play_out()
        assert not deal.over and deal.to_move == turn.state().seat  # unchanged
        # by hand, the same rule: the first legal action until the deal is over
        line = deal
        moves = 0
        while not line.over:
            line = line.apply(line.legal[0])
            moves += 1
        assert line.scores == first and line.to_move == -1 and line.legal == []
        assert moves >= 1
        # the engine's own scoring of the same deal, played from the hands as dealt
        state = engine.copy_state(deal.engine_state)
        while state.to_move >= 0:
            engine.apply(state, state.legal[0])
        assert tuple(state.deal_scores[-1]) == first
        # a policy is asked at every move of the deal being played, and is obeyed
        seen: list[int] = []

        def first_legal(d: Deal, seen: list[int] = seen) -> dict:
            seen.append(d.to_move)
            return d.legal[0]

        assert deal.play_out(first_legal) == first and len(seen) == moves
        assert len(deal.play_out(lambda d: d.legal[-1])) == len(first)


def test_a_deal_shows_any_seats_view() -> None:
    turn = _turns("trianon", "sampler-a", "play")[0]
    deal = turn.state().sample_deal(random.Random(0))
    assert deal.view() == trianon.view_dict(trianon.observe(deal.engine_state, deal.to_move))
    mine = deal.view(turn.state().seat)
    assert mine["hand"] == turn.view["hand"] and mine["events"] == turn.view["events"]


def test_importing_the_sdk_loads_no_engine() -> None:
    """A bot that never simulates starts without the rules engines (architecture.md)."""
    code = "import sys, arena.sdk; print(any(m.startswith('arena.games') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
