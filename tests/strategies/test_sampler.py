"""The sampler bot: its sampled deals agree with the observation they came from, its
answers are legal, a tiny budget is respected and the same inputs give the same
decisions.

The observations are real ones: short games of seeded random SDK bots played through
the referee and the wire (`ask_forced`, so that passes in the Trix contract and every
other forced decision are asked too), keeping for each decision the engine's view
and the request bytes the bot got."""

from __future__ import annotations

import itertools
import random
import time
import types
from collections.abc import Iterator
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots.local import SdkPlayer
from arena.bots.sampler import SamplerPlayer
from arena.cards import SUIT_MASK
from arena.games import get_game, trianon, trix
from arena.play.referee import RefereeSettings, play_game
from arena.sdk import Bot, Turn
from arena.strategies.sampler import SamplerBot, playout, search
from arena.strategies.sampler import bot as sampler_bot
from arena.strategies.sampler import deals as sampler_deals
from arena.strategies.sampler.beliefs import beliefs_of, view_from_dict
from arena.strategies.sampler.bot import think_seconds
from arena.strategies.sampler.deals import dealt_hands, sample_dealt, sample_hidden, state_for
from arena.strategies.sampler.search import margin, team_margin
from arena.wire.v1 import bot_pb2 as pb


class _Random(Bot):
    name = "random"
    games = ("trix", "trianon")

    def act(self, turn: Turn) -> int:
        return turn.random_index(len(turn.request.legal))


class _Recorder:
    """Plays `_Random` through the wire and keeps (engine view, request bytes) pairs."""

    wants_notices = False

    def __init__(self, log: list) -> None:
        self.inner = SdkPlayer(_Random())
        self.inner.record = True
        self.name = "recorder"
        self.log = log

    def start_game(self, start) -> None:
        self.inner.start_game(start)

    def act(self, decision):
        view = decision.view
        action = self.inner.act(decision)
        self.log.append((view, self.inner.requests[-1]))
        return action

    def end_deal(self, seat, deal) -> None:
        pass

    def end_game(self, seat, replay) -> None:
        pass


@cache
def recorded(game_name: str, seed: str) -> tuple:
    """Every decision of one short game, at all seats."""
    game = get_game(game_name)
    raw = {"kingdoms": 1} if game_name == "trix" else {"target": 300}
    log: list = []
    players = [_Recorder(log) for _ in range(game.seats)]
    play_game(
        game, players, seed, game.parse_options(raw), settings=RefereeSettings(ask_forced=True)
    )
    return tuple(log)


def _turn(request: bytes) -> Turn:
    return Turn(pb.DecisionRequest.FromString(request))


def _sdk_view(request: bytes):
    turn = _turn(request)
    info = turn.game
    return view_from_dict(
        info["game"], turn.view, turn.kind, legal=turn.legal, options=info["options"]
    )


GAMES = [("trix", "sampler-a"), ("trix", "sampler-b"), ("trianon", "sampler-a")]


def test_the_recorded_games_hold_every_decision_kind() -> None:
    kinds = {v.kind for v, _ in recorded("trix", "sampler-a") + recorded("trix", "sampler-b")}
    assert kinds == {"contract", "expose", "play", "pass"}
    kinds = {v.kind for v, _ in recorded("trianon", "sampler-a")}
    assert kinds == {"bid", "raise", "play"}
    exposures = [v for v, _ in recorded("trix", "sampler-a") if any(v.exposed) and v.kind == "play"]
    assert exposures, "some game must expose cards (doubling)"


@pytest.mark.parametrize(("game_name", "seed"), GAMES)
def test_the_sdk_view_is_rebuilt_exactly(game_name: str, seed: str) -> None:
    for view, request in recorded(game_name, seed):
        assert _sdk_view(request) == view


def _played(view) -> list[int]:
    out = [0] * len(view.cards_left)
    for seat, action in view.events:
        if action < 52:
            out[seat] |= 1 << action
    return out


def _voids(view) -> list[int]:
    """Suits each seat has shown it lacks, worked out here independently (T-3.2, N-4.2)."""
    seats = len(view.cards_left)
    plays = [(s, a) for s, a in view.events if a < 52]
    voids = [0] * seats
    for start in range(0, len(plays), seats):
        trick = plays[start : start + seats]
        led = trick[0][1] // 13
        for seat, card in trick[1:]:
            if card // 13 != led:
                voids[seat] |= SUIT_MASK[led]
    return voids


def _check_sample(view, hidden: list[int]) -> None:
    """A sampled deal agrees with the view it came from."""
    seat = view.seat
    played = _played(view)
    everything_played = 0
    for mask in played:
        everything_played |= mask
    deck = trix.FULL_DECK if isinstance(view, trix.TrixView) else trianon.DECK_MASK
    assert hidden[seat] == 0
    union = view.hand
    for s, mask in enumerate(hidden):
        if s == seat:
            continue
        assert mask.bit_count() == view.cards_left[s]  # hand sizes
        assert not mask & view.hand and not mask & everything_played  # own and played out
        assert not mask & union  # disjoint
        union |= mask
        if isinstance(view, trix.TrixView) and view.contract != trix.TRIX:
            assert not mask & _voids(view)[s]  # shown voids
        elif isinstance(view, trianon.TrianonView):
            assert not mask & _voids(view)[s]
        if isinstance(view, trix.TrixView):  # exposed cards stay with their exposer
            assert view.exposed[s] & ~played[s] & ~mask == 0
    assert union | everything_played == deck
    dealt = dealt_hands(beliefs_of(view), hidden)
    state = state_for(view, dealt)  # the rules replay the deal's events on these hands
    game = trix if isinstance(view, trix.TrixView) else trianon
    assert game.observe(state, seat) == view


def _hidden_of(view, dealt: tuple[int, ...]) -> list[int]:
    """The hands of a deal as dealt, less what was played (the seat's own entry 0)."""
    played = _played(view)
    return [0 if s == view.seat else dealt[s] & ~played[s] for s in range(len(dealt))]


@pytest.mark.parametrize(("game_name", "seed"), GAMES)
def test_every_sampled_deal_agrees_with_its_observation(game_name: str, seed: str) -> None:
    rng = random.Random(seed)
    for view, _ in recorded(game_name, seed):
        beliefs = beliefs_of(view)
        for _ in range(2):
            _check_sample(view, sample_hidden(beliefs, rng))
        # the deals the search plays: in Trianon also shaped by the bidding (soft)
        _check_sample(view, _hidden_of(view, sample_dealt(beliefs, rng)))


def test_pass_and_exposure_constraints_are_read() -> None:
    """A pass in the Trix contract forbids the cards then playable; an expose event
    places the KH (doubling: only its holder is asked, T-5.1)."""
    passes = kh = queens = 0
    for view, _ in recorded("trix", "sampler-a") + recorded("trix", "sampler-b"):
        beliefs = beliefs_of(view)
        if view.contract == trix.TRIX and any(a == trix.PASS for _, a in view.events):
            playable = trix.JACKS_MASK
            for s, action in view.events:
                if action < 52:
                    playable = (playable & ~(1 << action)) | trix._ROW_NEXT[action]
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


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 60), doubling=st.booleans())
def test_samples_agree_anywhere_in_a_trix_deal(seed: int, steps: int, doubling: bool) -> None:
    rng = random.Random(seed)
    state = trix.new_game(str(seed), trix.TrixOptions(doubling=doubling, kingdoms=1))
    deals = rng.randrange(5)  # some deals of the kingdom first (totals, fewer contracts)
    while state.to_move >= 0 and state.deal_index < deals:
        trix.apply(state, rng.choice(state.legal))
    for _ in range(steps):
        if state.to_move < 0:
            break
        trix.apply(state, rng.choice(state.legal))
    if state.to_move < 0:
        return
    view = trix.observe(state, state.to_move)
    beliefs = beliefs_of(view)
    for _ in range(3):
        _check_sample(view, sample_hidden(beliefs, rng))


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 40))
def test_samples_agree_anywhere_in_a_trianon_deal(seed: int, steps: int) -> None:
    rng = random.Random(seed)
    state = trianon.new_game(str(seed))
    for _ in range(steps):
        if state.to_move < 0:
            break
        trianon.apply(state, rng.choice(state.legal))
    if state.to_move < 0:
        return
    view = trianon.observe(state, state.to_move)
    beliefs = beliefs_of(view)
    for _ in range(3):
        _check_sample(view, sample_hidden(beliefs, rng))


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
    for module in (sampler_bot, sampler_deals, search):
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
        players = [make(), *(SdkPlayer(_Random()) for _ in range(3))]
        replays.append(play_game(game, players, "twin", options).replay)
    assert replays[0]["deals"] == replays[1]["deals"]


def test_a_bid_shapes_the_bidders_sampled_hands_but_never_breaks_a_rule() -> None:
    """Soft evidence (N-3): after seat 1 bids 9 hearts, its sampled hands hold more
    hearts than hands drawn with no evidence, and every one still agrees."""
    hands = trianon.deal_hands("evidence", 0)
    nine_hearts = trianon.BID_BASE + trianon.parse_bid("9H")
    state = trianon.state_from_deal(hands, 0, [(1, nine_hearts)])
    view = trianon.observe(state, 2)
    beliefs = beliefs_of(view)
    assert beliefs.bids == ((1, trianon.parse_bid("9H")),)
    rng = random.Random(1)
    hearts = trianon.DECK_MASK & SUIT_MASK[2]
    shaped = plain = 0
    for _ in range(40):
        dealt = sample_dealt(beliefs, rng)
        _check_sample(view, _hidden_of(view, dealt))
        shaped += (dealt[1] & hearts).bit_count()
        plain += (sample_hidden(beliefs, rng)[1] & hearts).bit_count()
    assert shaped > plain + 40  # more than one heart more per hand on average


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
        state = state_for(view, sample_dealt(beliefs_of(view), rng))
        assert playout.policy_action(state, rng.random) in view.legal
        if view.kind in ("play", "contract", "expose"):
            budget = search.Budget(5, time.perf_counter() + 2e-5)
            result = search.evaluate(view, beliefs_of(view), list(view.legal), rng, budget=budget)
            assert result.samples == 0
            assert result.fallback is None or result.fallback in view.legal
