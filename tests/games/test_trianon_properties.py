"""Hypothesis properties of the Trianon engine, its interface, and the golden counts.

The score and trick checks below re-derive every trick winner from the deal's events
with their own small implementation of N-1.4, N-1.5 and N-4.3, so they do not trust the
engine's trick code.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.bots.builtin import make_builtin
from arena.cards import CARD_CODES, seeded_rng
from arena.errors import IllegalAction
from arena.games import trianon
from arena.games.trianon import (
    ACTIONS,
    DECK_MASK,
    GAME,
    KIND_BID,
    KIND_PLAY,
    KIND_RAISE,
    TrianonOptions,
    apply,
    observe,
)
from arena.play.referee import play_game
from tests.support.trianon_golden_counts import FIXTURE, compute
from tests.support.walks import advance_randomly, until_over, with_cards_swapped

options_strategy = st.builds(
    TrianonOptions, target=st.integers(1, 600), max_deals=st.integers(1, 6)
)
seeds = st.text(min_size=1, max_size=12)
# How often a random bidder passes: 0 overbids wildly, 0.95 makes most deals Trianons.
pass_bias = st.sampled_from([0.0, 0.5, 0.8, 0.95])
PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Per deal at most 54 bids, 3 passes, 1 keep or raise and 36 cards: a bound, not a guess.
DECISIONS_PER_DEAL = 54 + 3 + 1 + 36


def random_walk(
    seed: str, options: TrianonOptions, bias: float = 0.5, check=None
) -> trianon.TrianonState:
    """Play random legal actions to the end, calling `check(state)` before each one."""
    state = trianon.new_game(seed, options)
    rng = seeded_rng("trianon-walk", seed, bias)
    for _ in range(DECISIONS_PER_DEAL * options.max_deals + 1):
        if state.to_move < 0:
            return state
        if check:
            check(state)
        legal = state.legal
        if state.kind == KIND_BID and rng.random() < bias:
            apply(state, legal[0])
        else:
            apply(state, rng.choice(legal))
    raise AssertionError("a game did not end within the bound")


@PROPERTY
@given(seed=seeds, options=options_strategy, bias=pass_bias)
def test_random_legal_play_always_ends(seed: str, options: TrianonOptions, bias: float) -> None:
    state = random_walk(seed, options, bias)
    deals = len(state.deal_scores)
    assert 1 <= deals <= options.max_deals
    totals, ranks = trianon.result(state)
    assert totals == [sum(d[s] for d in state.deal_scores) for s in range(3)]
    assert min(ranks) == 1
    # N-7.1 / N-7.3: it ended for a reason, and not before.
    assert max(totals) >= options.target or deals == options.max_deals
    running = [0, 0, 0]
    for scores in state.deal_scores[:-1]:
        running = [r + s for r, s in zip(running, scores, strict=True)]
        assert max(running) < options.target


def _played_by(state: trianon.TrianonState, seat: int) -> int:
    return sum(1 << a for s, a in state.events if s == seat and a < 52)


def _cards_conserved(state: trianon.TrianonState) -> None:
    played = 0
    for _, action in state.events:
        if action < 52:
            assert not played & (1 << action), "a card was played twice"
            played |= 1 << action
    held = 0
    for hand in state.hands:
        assert not held & hand, "two seats hold the same card"
        held |= hand
    assert not held & played
    assert held | played == DECK_MASK
    for seat in range(3):
        assert state.hands[seat] | _played_by(state, seat) == state.dealt[seat]
        assert state.hands[seat].bit_count() == 12 - _played_by(state, seat).bit_count()


@PROPERTY
@given(seed=seeds, options=options_strategy, bias=pass_bias)
def test_cards_are_conserved(seed: str, options: TrianonOptions, bias: float) -> None:
    random_walk(seed, options, bias, _cards_conserved)


def _legal_as_documented(state: trianon.TrianonState) -> None:
    """The legal actions, re-derived from N-3 and N-4.2, in the documented order."""
    legal = state.legal
    if state.kind == KIND_BID:
        bids = [e[1] - trianon.BID_BASE for e in state.events if e[1] >= trianon.BID_BASE]
        low = bids[-1] + 1 if bids else 0
        assert legal == (trianon.PASS,) + tuple(trianon.BID_BASE + b for b in range(low, 54))
    elif state.kind == KIND_RAISE:
        assert legal[0] == trianon.KEEP
        assert list(legal[1:]) == list(
            range(trianon.RAISE_BASE + state.high + 1, trianon.RAISE_BASE + 54)
        )
    else:
        hand = state.hands[state.to_move]
        cards = [c for c in range(52) if hand >> c & 1]
        if state.trick:
            led = state.trick[0][1] // 13
            cards = [c for c in cards if c // 13 == led] or cards
        assert list(legal) == cards


@PROPERTY
@given(seed=seeds, options=options_strategy, bias=pass_bias)
def test_legal_actions_follow_the_rules_in_the_documented_order(
    seed: str, options: TrianonOptions, bias: float
) -> None:
    random_walk(seed, options, bias, _legal_as_documented)


NORMAL = "6789TJQKA"  # N-1.4, low to high
SANS_SOUCI = "JQKA6789T"  # N-1.5, low to high


def _replay_deal(record: dict) -> tuple[int, str, list[int]]:
    """From a replay deal record alone: (declarer or -1, contract code or "", tricks)."""
    events = record["events"]
    declarer, bid = -1, ""
    for event in events:
        if event["type"] == "bid":
            bid = event["bid"]
        elif event["type"] in ("raise", "keep"):
            declarer = event["seat"]
            bid = event.get("bid", bid)
    plays = [(e["seat"], e["card"]) for e in events if e["type"] == "play"]
    assert len(plays) == 36
    strain = bid[-2:] if bid[-2:] in ("SS", "NT") else bid[-1:]
    trump = strain if strain in ("C", "D", "H", "S") else None
    order = SANS_SOUCI if strain == "SS" else NORMAL
    tricks = [0, 0, 0]
    leader = (declarer + 1) % 3 if declarer >= 0 else record["dealer"]  # N-4.1, N-6.1
    for i in range(0, 36, 3):
        trick = plays[i : i + 3]
        assert [s for s, _ in trick] == [leader, (leader + 1) % 3, (leader + 2) % 3]
        led = trick[0][1][1]
        trumps = [t for t in trick if t[1][1] == trump]
        contenders = trumps or [t for t in trick if t[1][1] == led]
        leader = max(contenders, key=lambda t: order.index(t[1][0]))[0]
        tricks[leader] += 1
    return declarer, bid, tricks


@PROPERTY
@given(seed=seeds, bias=pass_bias)
def test_each_deal_scores_obey_n5_and_n6(seed: str, bias: float) -> None:
    state = random_walk(seed, TrianonOptions(target=10**6, max_deals=6), bias)
    for record in trianon.deal_records(state):
        declarer, bid, tricks = _replay_deal(record)
        scores = record["scores"]
        if declarer < 0:  # N-6.2
            assert bid == ""
            assert scores == [{0: 150, 1: 105, 2: 70, 3: 35}.get(t, 0) for t in tricks]
            continue
        number = int(bid[:-2] if bid[-2:] in ("SS", "NT") else bid[:-1])
        sans = bid.endswith(("SS", "NT"))
        defenders = [s for s in range(3) if s != declarer]
        if tricks[declarer] >= number:  # N-5.1, N-5.2
            assert scores[declarer] == (number - 4) * (40 if sans else 30)
            assert all(scores[s] == 0 for s in defenders)
        else:  # N-5.3
            assert scores[declarer] == 0
            short = number - tricks[declarer]
            assert all(scores[s] == short * (50 if sans else 40) for s in defenders)


def _visible_cards(view: trianon.TrianonView) -> int:
    """Every card a view mentions anywhere."""
    mask = view.hand
    for _, action in view.events:
        if action < 52:
            mask |= 1 << action
    for _, card in view.trick:
        mask |= 1 << card
    for action in view.legal:
        if action < 52:
            mask |= 1 << action
    return mask


def _observation_hides_hands(state: trianon.TrianonState) -> None:
    for seat in range(3):
        view = observe(state, seat)
        visible = _visible_cards(view)
        for other in range(3):
            if other != seat:
                assert not visible & state.hands[other], (
                    f"seat {seat} can see an unplayed card of seat {other}"
                )
        assert view.hand == state.hands[seat]
        as_dict = trianon.view_dict(view)
        shown = (
            set(as_dict["hand"])
            | {e["card"] for e in as_dict["events"] if "card" in e}
            | {t["card"] for t in as_dict["trick"]}
            | {e["card"] for e in as_dict["legal"] if "card" in e}
        )
        for other in range(3):
            if other != seat:
                assert not shown & {CARD_CODES[c] for c in trianon.cards_of(state.hands[other])}


@PROPERTY
@given(seed=seeds, options=options_strategy, bias=pass_bias)
def test_an_observation_never_holds_another_seats_unplayed_card(
    seed: str, options: TrianonOptions, bias: float
) -> None:
    options = TrianonOptions(options.target, min(options.max_deals, 2))
    random_walk(seed, options, bias, _observation_hides_hands)


@PROPERTY
@given(seed=seeds, steps=st.integers(0, 150), data=st.data())
def test_states_differing_only_in_hidden_cards_look_the_same(seed: str, steps: int, data) -> None:
    """OpenSpiel's observer contract: what a seat cannot see cannot change its view."""
    state = trianon.new_game(seed, TrianonOptions(max_deals=3))
    advance_randomly(apply, state, seeded_rng("hidden", seed), steps)
    seat = data.draw(st.integers(0, 2))
    b, c = [s for s in range(3) if s != seat]
    hidden_b = trianon.cards_of(state.hands[b])
    hidden_c = trianon.cards_of(state.hands[c])
    k = data.draw(st.integers(0, min(len(hidden_b), len(hidden_c))))
    from_b = data.draw(st.permutations(hidden_b))[:k]
    from_c = data.draw(st.permutations(hidden_c))[:k]
    twin = with_cards_swapped(state, b, c, from_b, from_c)
    assert observe(twin, seat) == observe(state, seat)
    assert trianon.view_dict(observe(twin, seat)) == trianon.view_dict(observe(state, seat))
    if k:  # and the twins really differ where the seat cannot look
        assert twin.hands[b] != state.hands[b]


# --- The interface: actions, replay events, the referee --------------------------------


def test_every_action_round_trips_through_its_event() -> None:
    assert len(ACTIONS) == 36 + 2 + 54 + 54
    names = set()
    for action in ACTIONS:
        event = trianon.action_event(action)
        assert trianon.parse_event(event) == action
        names.add(trianon.describe_action(action))
    assert len(names) == len(ACTIONS)  # "bid 7H" is never mistaken for the card 7H
    for bad in (-1, 0, 54, 118, 182, 10**6):  # 0 is 2C: not a Trianon card
        try:
            trianon.action_event(bad)
        except IllegalAction:
            continue
        raise AssertionError(f"{bad} should not be an action")
    for event in ({"type": "contract", "contract": "trix"}, {"type": "raise"}, {}):
        try:
            trianon.parse_event(event)
        except IllegalAction:
            continue
        raise AssertionError(f"{event} should not parse")


@PROPERTY
@given(seed=seeds, bias=pass_bias)
def test_replay_events_have_the_documented_shape(seed: str, bias: float) -> None:
    state = random_walk(seed, TrianonOptions(max_deals=3), bias)
    for record in trianon.deal_records(state):
        assert list(record) == ["number", "dealer", "hands", "events", "scores"]
        events = record["events"]
        calls = [e for e in events if e["type"] in ("bid", "pass")]
        choice = [e for e in events if e["type"] in ("raise", "keep")]
        plays = events[len(calls) + len(choice) :]
        assert events[: len(calls)] == calls  # bids and passes come first
        assert all(e["type"] == "play" and list(e) == ["seat", "type", "card"] for e in plays)
        assert len(plays) == 36
        if any(e["type"] == "bid" for e in calls):
            assert len(choice) == 1 and events[len(calls)] == choice[0]
            assert list(choice[0]) in (["seat", "type", "bid"], ["seat", "type"])
        else:
            assert choice == [] and [e["type"] for e in calls] == ["pass"] * 3
        for e in calls:
            assert list(e) == (["seat", "type", "bid"] if e["type"] == "bid" else ["seat", "type"])
        assert all(len(h) == 12 for h in record["hands"])
        json.dumps(record)


def test_the_referee_plays_trianon_games() -> None:
    options = TrianonOptions(target=300, max_deals=20)
    bots = [make_builtin("random") for _ in range(3)]
    first = play_game(GAME, bots, "referee", options)
    again = play_game(GAME, [make_builtin("random") for _ in range(3)], "referee", options)
    assert first.replay == again.replay
    assert first.replay["game"] == "trianon" and first.replay["options"] == {
        "target": 300,
        "max_deals": 20,
    }
    assert first.decisions == sum(len(d["events"]) for d in first.replay["deals"])
    json.dumps(first.replay)
    kinds = set()
    state = trianon.new_game("kinds")
    for _ in until_over(state):
        kinds.add(state.kind)
        apply(state, state.legal[-1] if state.kind != KIND_PLAY else state.legal[0])
    assert kinds == set(GAME.decision_kinds) == {KIND_BID, KIND_RAISE, KIND_PLAY}
    assert state.automatic == 0


def test_golden_legal_action_counts() -> None:
    """Three seeds played by first-legal play, one by the `bidder` policy."""
    expected = json.loads(FIXTURE.read_text())
    actual = compute()
    assert set(actual) == set(expected)
    for seed, counts in expected.items():
        assert len(actual[seed]) == len(counts), seed
        mismatch = next(
            (i for i, (a, e) in enumerate(zip(actual[seed], counts, strict=True)) if a != e), None
        )
        assert mismatch is None, f"{seed}: decision {mismatch} has a different count"
