"""Every registered game through the `Game` interface alone (arena/games/base.py), as
OpenSpiel's `random_sim_test` runs each of its games: the same checks for Trix, Trianon
and any game registered after them, none of which knows a game's rules.

- random games played to the end, checking at every decision what the driver relies on
  (whose turn, the kind, the legal actions, events that name their action, an illegal
  action refused and changing nothing), and the result against the deals;
- the replay round trip: a game played by the referee, written as an `arena-replay/1`
  file, read back and played again through the engine from its events alone;
- `observe` hides every card a seat may not see (T-8, N-8), for each seat and for a
  spectator (`PUBLIC`), with a leaking engine caught by the same check;
- rule options: whatever is given either parses or is refused with a ConfigError, and
  what parses survives `options_dict` and the CLI's strings unchanged;
- the table-summary declarations (`deal_summary`, `deal_label`, `deal_declarer`), the
  check-bot ones (`unasked`, `seat_asked_every_kind`) and the deal records agree.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.bots.builtin import RandomBot
from arena.errors import ConfigError, IllegalAction
from arena.games import GAMES, get_game
from arena.games.base import PUBLIC, Game, SummaryKind
from arena.league.reports.table import csv_columns
from arena.play.referee import play_game
from arena.play.replays import read_replay, write_replay

NAMES = sorted(GAMES)
MAX_STEPS = 100_000  # a bound on any game's decisions: a game that never ends fails
CARD = re.compile(r"[2-9TJQKA][CDHS]")
SEEDS = st.from_regex(r"[a-z0-9-]{1,12}", fullmatch=True)
EXAMPLES = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _interface_members() -> set[str]:
    """Every attribute and method the `Game` protocol declares."""
    declared = {name for name in vars(Game) if not name.startswith("_")}
    return declared | set(Game.__annotations__)


def _strings(value: Any) -> Iterator[str]:
    """Every string anywhere in plain data (a view's dict, an event, options)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _cards(value: Any) -> set[str]:
    return {s for s in _strings(value) if CARD.fullmatch(s)}


def _may_know(game: Game, state: Any, options: Any, seat: int) -> set[str]:
    """The card codes `seat` may see now: its own hand as dealt in this deal, every
    card code in the deal's public events so far (cards played, exposed) and in the
    rule options (Trix's first_king_card) and, for the seat to move, in its legal
    actions. A spectator (PUBLIC) has no hand. A bid code such as Trianon's "7H" looks
    like a card, so a bid made or legal lets that code through: the check is strict
    for a seat not to move, and every seat is checked at every decision."""
    record = game.deal_record(state, state.deal_index)
    known = _cards(record["events"]) | _cards(game.options_dict(options))
    if seat != PUBLIC:
        known |= set(record["hands"][seat])
    if seat == state.to_move:
        known |= _cards([game.action_event(a) for a in state.legal])
    return known


def _leaks(game: Game, state: Any, options: Any, seat: int, view: Any) -> set[str]:
    """The cards in `view` (seat's observation) that the seat may not see."""
    return _cards(game.view_dict(view)) - _may_know(game, state, options, seat)


def _check_decision(game: Game, state: Any, options: Any) -> None:
    """What the driver relies on at one decision, through the interface alone."""
    assert 0 <= state.to_move < game.seats
    assert state.kind in game.decision_kinds, state.kind
    legal = list(state.legal)
    assert legal and len(set(legal)) == len(legal), legal
    for action in legal:
        event = game.action_event(action)
        assert "seat" not in event and isinstance(event.get("type"), str), event
        assert json.loads(json.dumps(event)) == event
        assert game.parse_event(event) == action, event
        assert game.describe_action(action)
    illegal = next(a for a in range(4096) if a not in legal)
    before = (state.to_move, state.kind, legal, state.deal_index, len(state.events))
    with pytest.raises(IllegalAction):
        game.apply(state, illegal)
    assert (state.to_move, state.kind, list(state.legal), state.deal_index,
            len(state.events)) == before  # fmt: skip
    for seat in (*range(game.seats), PUBLIC):
        view = game.observe(state, seat)
        assert _leaks(game, state, options, seat, view) == set(), (seat, game.view_dict(view))
    own = game.view_dict(game.observe(state, state.to_move))
    assert json.loads(json.dumps(own)) == own


def _random_game(
    game: Game, seed: str, options: Any, rng: random.Random, checked: bool = True
) -> Any:
    """A game played to its end by uniformly random legal actions, every decision
    checked (`_check_decision`) unless not `checked`."""
    state = game.new_game(seed, options)
    for _ in range(MAX_STEPS):
        if state.to_move < 0:
            return state
        if checked:
            _check_decision(game, state, options)
        deal = state.deal_index
        game.apply(state, rng.choice(state.legal))
        assert state.deal_index >= deal
    raise AssertionError(f"{game.name} {seed!r}: no end after {MAX_STEPS} decisions")


def _check_result(game: Game, state: Any, default_options: bool) -> None:
    totals, ranks = game.result(state)
    assert len(totals) == len(ranks) == game.seats
    assert all(1 <= r <= game.seats for r in ranks) and min(ranks) == 1
    records = game.deal_records(state)
    assert [r["number"] for r in records] == list(range(1, len(records) + 1))
    for record in records:
        assert len(record["scores"]) == len(record["hands"]) == game.seats
    if default_options:  # the plain rules: the totals are the deals' sums, higher ranks better
        assert totals == [sum(r["scores"][s] for r in records) for s in range(game.seats)]
        for i in range(game.seats):
            for j in range(game.seats):
                if totals[i] > totals[j]:
                    assert ranks[i] < ranks[j], (totals, ranks)


# ----------------------------------------------------------------- the interface


@pytest.mark.parametrize("name", NAMES)
def test_a_registered_game_declares_everything_the_interface_does(name: str) -> None:
    game = get_game(name)
    assert game.name == name
    missing = sorted(m for m in _interface_members() if not hasattr(game, m))
    assert missing == [], f"{name} does not declare {missing}"
    assert game.seats >= 2 and len(set(game.decision_kinds)) == len(game.decision_kinds)


def test_the_interface_check_sees_a_missing_declaration() -> None:
    """The check above is not empty: a game without its table summary fails it."""

    class Partial:
        name, seats, decision_kinds = "partial", 3, ("play",)

    members = _interface_members()
    assert {"deal_summary", "deal_label", "unasked", "observe"} <= members
    assert any(not hasattr(Partial(), m) for m in members)


# ----------------------------------------------------------------- random games


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@EXAMPLES
@given(seed=SEEDS, rng_seed=st.integers(0, 2**32 - 1))
def test_random_games_reach_the_end_through_the_interface(
    name: str, seed: str, rng_seed: int
) -> None:
    """T-8 / N-8 at every decision, every legal action's event round trip, an illegal
    action refused without a change, and the result against the deal records."""
    game = get_game(name)
    options = game.parse_options({})
    state = _random_game(game, seed, options, random.Random(rng_seed))
    _check_result(game, state, default_options=True)
    with pytest.raises(IllegalAction):  # nothing is legal once the game is over
        game.apply(state, 0)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_random_games_under_random_valid_options_reach_the_end(name: str) -> None:
    """Options drawn as in the options test below; those that parse, played to the end."""
    game = get_game(name)
    played = 0
    for n in range(40):  # bounded; a seeded walk over option values
        rng = random.Random(f"{name}-options-{n}")
        raw = _random_options(game, rng)
        try:
            options = game.parse_options(raw)
        except ConfigError:
            continue
        state = _random_game(game, f"opt-{n}", options, rng)
        _check_result(game, state, default_options=False)
        played += 1
        if played == 4:
            break
    assert played >= 2, f"{name}: the walk found fewer than two valid option sets"


# ----------------------------------------------------------------- replays


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", ["replay-1", "replay-2"])
def test_a_replay_round_trip_through_the_file_and_the_engine(
    tmp_path, name: str, seed: str
) -> None:
    """A refereed game's `arena-replay/1` file reads back equal, and its events alone,
    through `parse_event` and `apply`, rebuild the same deals, totals and ranks."""
    game = get_game(name)
    options = game.parse_options({})
    replay = play_game(game, [RandomBot() for _ in range(game.seats)], seed, options).replay
    path = write_replay(tmp_path, 1, replay)
    back = read_replay(path)
    assert back == json.loads(json.dumps(replay))
    assert back["game"] == name and back["seed"] == seed

    state = game.new_game(back["seed"], game.parse_options(back["options"]))
    assert game.options_dict(game.parse_options(back["options"])) == back["options"]
    for _ in range(MAX_STEPS):  # the replay's next event is where the state stands
        if state.to_move < 0:  # (events the engine made itself are in it already)
            break
        event = back["deals"][state.deal_index]["events"][len(state.events)]
        assert state.to_move == event["seat"], event
        bare = {k: v for k, v in event.items() if k not in ("seat", "auto")}
        game.apply(state, game.parse_event(bare))
    assert state.to_move == -1 and state.deal_index == len(back["deals"])  # all ended
    strip = [
        {**d, "events": [{k: v for k, v in e.items() if k != "auto"} for e in d["events"]]}
        for d in back["deals"]
    ]
    assert json.loads(json.dumps(game.deal_records(state))) == strip
    assert list(game.result(state)) == [back["totals"], back["ranks"]]


@pytest.mark.parametrize("name", NAMES)
def test_a_replay_with_a_forged_event_is_refused_by_the_engine(name: str) -> None:
    """The attack on the round trip: an event of the replay moved to a decision where
    it is not legal (a card the seat does not hold, a bid out of turn) is refused with
    IllegalAction, never played."""
    game = get_game(name)
    options = game.parse_options({})
    replay = play_game(game, [RandomBot() for _ in range(game.seats)], "forge", options).replay
    pool = [
        {k: v for k, v in e.items() if k not in ("seat", "auto")}
        for deal in replay["deals"]
        for e in deal["events"]
    ]
    state = game.new_game(replay["seed"], options)
    forged = 0
    events = replay["deals"][0]["events"]
    while state.to_move >= 0 and state.deal_index == 0:  # bounded by the deal's events
        event = events[len(state.events)]
        wrong = next((e for e in pool if game.parse_event(e) not in state.legal), None)
        if wrong is not None:
            with pytest.raises(IllegalAction):
                game.apply(state, game.parse_event(wrong))
            forged += 1
        game.apply(state, game.parse_event({k: v for k, v in event.items() if k != "auto"}))
    assert forged > 0, "no decision of the first deal had an illegal event to forge"


# ----------------------------------------------------------------- information


@pytest.mark.parametrize("name", NAMES)
def test_observe_hides_every_card_a_seat_may_not_see_t8_n8(name: str) -> None:
    """T-8 / N-8 from the first deal's first decision: no view holds another seat's
    card, a spectator's view holds no hand, and a seat's view holds its own hand."""
    game = get_game(name)
    options = game.parse_options({})
    state = game.new_game("hiding", options)
    hands = game.deal_records(state)[-1]["hands"]
    for seat in range(game.seats):
        shown = _cards(game.view_dict(game.observe(state, seat)))
        assert set(hands[seat]) <= shown  # the check is not vacuous: the hand is there
        others = set().union(*(set(h) for s, h in enumerate(hands) if s != seat))
        assert not shown & others - _may_know(game, state, options, seat)
    spectator = _cards(game.view_dict(game.observe(state, PUBLIC)))
    assert not spectator & set().union(*map(set, hands)) - _may_know(game, state, options, PUBLIC)


@pytest.mark.parametrize("name", NAMES)
def test_the_hiding_check_catches_an_engine_that_leaks(name: str) -> None:
    """The attack: a view that carries one card of the next seat's hand, or any card to
    a spectator, is reported by `_leaks` (T-8, N-8)."""
    game = get_game(name)
    options = game.parse_options({})
    state = game.new_game("leak", options)
    hands = game.deal_records(state)[-1]["hands"]
    stolen = hands[1][0]

    class Leaky:
        def __init__(self, inner: Game) -> None:
            self._inner = inner

        def __getattr__(self, attr: str) -> Any:
            return getattr(self._inner, attr)

        def view_dict(self, view: Any) -> dict[str, Any]:
            return {**self._inner.view_dict(view), "peek": [stolen]}

    leaky: Any = Leaky(game)
    assert _leaks(leaky, state, options, 0, game.observe(state, 0)) == {stolen}
    assert _leaks(leaky, state, options, PUBLIC, game.observe(state, PUBLIC)) == {stolen}
    assert _leaks(game, state, options, 0, game.observe(state, 0)) == set()


# ----------------------------------------------------------------- options


def _random_options(game: Game, rng: random.Random) -> dict[str, Any]:
    """Some of the game's option keys (from its defaults) with values of any kind, and
    now and then a key the game does not have."""
    defaults = game.options_dict(game.parse_options({}))
    values: list[Any] = [True, False, "true", "false", 0, 1, 2, 3, 4, 5, 100, 500, -1, "2",
                         "none", "king-of-hearts", "7H", "QS", "XX", "", None, 1.5]  # fmt: skip
    values += list(defaults.values())
    raw = {k: rng.choice(values) for k in defaults if rng.random() < 0.5}
    if rng.random() < 0.1:
        raw["no-such-option"] = 1
    return raw


def _as_cli(value: Any) -> str:
    """An option value as `--rules KEY=VALUE` gives it: text."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None)
@given(rng_seed=st.integers(0, 2**32 - 1))
def test_options_parse_or_are_refused_and_round_trip(name: str, rng_seed: int) -> None:
    game = get_game(name)
    raw = _random_options(game, random.Random(rng_seed))
    try:
        options = game.parse_options(raw)
    except ConfigError as err:
        assert str(err)  # refused, saying why; never another exception
        return
    plain = game.options_dict(options)
    assert json.loads(json.dumps(plain)) == plain
    assert game.parse_options(plain) == options
    assert game.parse_options({k: _as_cli(v) for k, v in plain.items()}) == options
    assert game.options_dict(game.parse_options(plain)) == plain


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_option_is_refused_naming_it(name: str) -> None:
    game = get_game(name)
    with pytest.raises(ConfigError, match="no-such-option"):
        game.parse_options({"no-such-option": 1})


# ----------------------------------------------------------------- table summaries


@pytest.mark.parametrize("name", NAMES)
def test_the_table_summary_declaration_is_well_formed(name: str) -> None:
    summary = get_game(name).deal_summary
    assert isinstance(summary.kind, SummaryKind)
    assert re.fullmatch(r"[a-z]+", summary.noun), summary.noun  # a CSV column prefix
    assert summary.labels and len(set(summary.labels)) == len(summary.labels)
    assert set(summary.short) <= set(summary.labels)
    shown = [summary.abbreviation(label) for label in summary.labels]
    assert len(set(shown)) == len(shown) and all(shown)  # abbreviations tell labels apart
    columns = csv_columns(summary)
    assert len(columns) == len(set(columns))
    for label in summary.labels:
        assert any(c.startswith(f"{summary.noun}_{label}") for c in columns), label


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", ["summary-1", "summary-2", "summary-3"])
def test_the_table_summary_agrees_with_the_deal_records(name: str, seed: str) -> None:
    """Each finished deal's label is one the table has a column for whenever the table
    counts it: every deal for a mean score, every declared deal (made or failed) for
    declarations, and a deal nobody declared under no column. With `every_game`, a
    whole game plays every label."""
    game = get_game(name)
    summary = game.deal_summary
    state = _random_game(game, seed, game.parse_options({}), random.Random(seed), checked=False)
    seen = set()
    for record in game.deal_records(state):
        label = game.deal_label(record)
        assert isinstance(label, str) and label
        declarer, made = game.deal_declarer(record)
        assert -1 <= declarer < game.seats
        if summary.kind is SummaryKind.MEAN_SCORE:
            assert label in summary.labels, label
        elif declarer >= 0:
            assert label in summary.labels and isinstance(made, bool), (label, made)
        else:
            assert label not in summary.labels and made is None, (label, made)
        seen.add(label)
    if summary.every_game:
        assert set(summary.labels) <= seen, set(summary.labels) - seen


# ----------------------------------------------------------------- check-bot declarations


@pytest.mark.parametrize("name", NAMES)
def test_unasked_reasons_name_decision_kinds(name: str) -> None:
    game = get_game(name)
    assert set(game.unasked) <= set(game.decision_kinds)
    assert all(isinstance(why, str) and why for why in game.unasked.values())


@pytest.mark.parametrize("name", NAMES)
def test_the_seat_asked_every_kind_is_asked_every_kind_whatever_it_plays(name: str) -> None:
    """When a game names a seat, that seat meets every decision kind while the others
    take the first legal action, whatever it plays itself (random, first, last)."""
    game = get_game(name)
    options = game.parse_options({})
    named = 0
    for n in range(1, 9):
        seed = f"every-kind-{n}"
        seat = game.seat_asked_every_kind(seed, options)
        if seat is None:
            continue
        assert 0 <= seat < game.seats
        named += 1
        rng = random.Random(seed)
        for pick in (lambda legal: legal[0], lambda legal: legal[-1], rng.choice):
            state = game.new_game(seed, options)
            asked = set()
            for _ in range(MAX_STEPS):
                if state.to_move < 0:
                    break
                mine = state.to_move == seat
                if mine:
                    asked.add(state.kind)
                game.apply(state, pick(state.legal) if mine else state.legal[0])
            assert asked == set(game.decision_kinds), (seed, seat, asked)
    if named == 0:  # a game that names no seat must have a reason for a kind to go unasked
        assert game.unasked, f"{name} names no seat yet says no kind can go unasked"
