"""The sampler bot: its answers are legal, a tiny budget is respected and the same
inputs give the same decisions. (The deals it samples are the SDK's, tested in
tests/sdk; that it uses nothing but the SDK is test_sampler_uses_the_sdk_alone.py.)

The observations are real ones: short games of seeded random SDK bots played through
the referee and the wire (`tests/support/recorded_games.py`), keeping for each
decision the engine's view and the request bytes the bot got."""

from __future__ import annotations

import itertools
import random
import time
import types
from collections.abc import Iterator

import pytest

from arena.bots.local import SdkPlayer
from arena.bots.sampler import SamplerPlayer
from arena.games import get_game
from arena.play.referee import play_game
from arena.sdk import Turn
from arena.sdk import sampling as sdk_sampling
from arena.sdk.state import SeatState
from arena.strategies.sampler import SamplerBot, playout, search
from arena.strategies.sampler import bot as sampler_bot
from arena.strategies.sampler.bot import think_seconds
from arena.strategies.sampler.search import margin, team_margin
from arena.wire.v1 import bot_pb2 as pb
from tests.support.recorded_games import RandomBot
from tests.support.recorded_games import short_game as recorded


def _turn(request: bytes) -> Turn:
    return Turn(pb.DecisionRequest.FromString(request))


GAMES = [("trix", "sampler-a"), ("trix", "sampler-b"), ("trianon", "sampler-a")]


def _interesting(game_name: str, seed: str, per_kind: int = 3) -> list[bytes]:
    """A few requests of each decision kind that has a choice."""
    by_kind: dict[str, list[bytes]] = {}
    for view, request in recorded(game_name, seed):
        if len(view.legal) > 1 and len(by_kind.setdefault(view.kind, [])) < per_kind:
            by_kind[view.kind].append(request)
    return [r for requests in by_kind.values() for r in requests]


@pytest.mark.parametrize(("game_name", "seed"), GAMES[1:])
def test_answers_are_legal_and_repeat(game_name: str, seed: str) -> None:
    for request in _interesting(game_name, seed):
        first = SamplerBot(budget_ms=5000, samples=3).act(_turn(request))
        again = SamplerBot(budget_ms=5000, samples=3).act(_turn(request))
        assert first in _turn(request).legal
        assert first == again


def _ticking_clock(monkeypatch) -> Iterator[int]:
    """Give the sampler a clock that moves 1 ms at every reading, so that a test of
    its budget does not depend on this machine's speed; the readings so far."""
    readings = itertools.count()
    clock = types.SimpleNamespace(perf_counter=lambda: next(readings) * 0.001)
    for module in (sampler_bot, sdk_sampling, search):
        monkeypatch.setattr(module, "time", clock)
    return readings


def test_a_tiny_budget_is_respected(monkeypatch) -> None:
    """The clock, not the sample count, stops the work: with a 2 ms budget, a decision
    reads the clock only a few times before it answers."""
    readings = _ticking_clock(monkeypatch)
    requests = _interesting("trix", "sampler-b") + _interesting("trianon", "sampler-a")
    bot = SamplerBot(budget_ms=2)
    for request in requests:
        turn = _turn(request)
        before = next(readings)
        assert bot.act(turn) in turn.legal
        assert next(readings) - before <= 10  # 2 ms of readings, and a few to finish
    # at most a deal or two each
    assert bot.stats.samples <= 3 * bot.stats.decisions


def test_the_think_time_is_a_safe_share_of_the_time_allowed() -> None:
    assert think_seconds(200, 1000) == pytest.approx(0.2)
    assert think_seconds(200, 100) == pytest.approx(0.02)  # half of 100 ms, less 30 ms
    assert think_seconds(200, 40) == 0.0
    assert think_seconds(200, 0) == pytest.approx(0.2)  # not told: the budget


def test_the_in_process_twin_plays_the_sdk_bots_game() -> None:
    game = get_game("trix")
    options = game.parse_options({"kingdoms": 1})
    replays = []
    for make in (
        lambda: SamplerPlayer(samples=2, budget_ms=5000),
        lambda: SdkPlayer(SamplerBot(samples=2, budget_ms=5000)),
    ):
        players = [make(), *(SdkPlayer(RandomBot()) for _ in range(3))]
        replays.append(play_game(game, players, "twin", options).replay)
    assert replays[0]["deals"] == replays[1]["deals"]


def test_the_time_the_referee_allows_caps_a_large_budget(monkeypatch) -> None:
    """A request's time_ms caps the think time whatever the budget: a bot told 100 ms
    thinks at most 20 (half, less a reserve), and one told 50 ms answers at once. On
    a clock that moves 1 ms a reading, that is a bounded number of readings."""
    readings = _ticking_clock(monkeypatch)
    bot = SamplerBot(budget_ms=10_000)
    for request in _interesting("trix", "sampler-b", per_kind=1):
        message = pb.DecisionRequest.FromString(request)
        for time_ms, most in ((100, 25), (50, 6)):
            message.time_ms = time_ms
            turn = Turn(message)
            before = next(readings)
            assert bot.act(turn) in turn.legal
            assert next(readings) - before <= most


def test_the_objective_is_the_margin_or_with_partners_the_team_margin() -> None:
    assert margin([-75, 0, 0, 0], 0) == -75
    assert margin([150, 0, -150, 0], 1) == 0  # an exposed KH taken by seat 2 (T-5.3)
    assert margin([0, 40, 40], 1) == 20  # a defender of a failed contract (N-5.3)
    assert team_margin([10, 20, 30, 40], 0) == 10 + 30 - 20 - 40


@pytest.mark.parametrize(("game_name", "seed"), GAMES[1:])
def test_when_time_runs_out_in_the_first_deal_the_policy_answers(game_name: str, seed: str) -> None:
    rng = random.Random(0)
    for view, _ in recorded(game_name, seed):
        if len(view.legal) < 2:
            continue
        seat_state = SeatState(view)
        state = seat_state.sample_deal(rng).engine_state
        assert playout.policy_action(state, rng.random) in view.legal
        if view.kind in ("play", "contract", "expose"):
            budget = search.Budget(5, time.perf_counter() + 2e-5)
            result = search.evaluate(seat_state, list(view.legal), rng, budget=budget)
            assert result.samples == 0
            assert result.fallback is None or result.fallback in view.legal
