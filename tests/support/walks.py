"""Shared moves of the engine and wire tests: random legal steps, and a twin state
that differs from the original only in cards two seats hold."""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from arena.cards import codes_of
from arena.games.base import PUBLIC

# Far above the decisions of any game the tests play (a 24-deal Trix game makes about
# 1,300, a Trianon game of first-legal play about 550): a loop that plays a game to its
# end stops there, so a game that never ends fails the test instead of hanging it.
MOVE_LIMIT = 10_000


def until_over(state: Any, limit: int = MOVE_LIMIT) -> Iterator[int]:
    """Count the moves of a loop that plays `state` on: stop once the game is over
    (`to_move < 0`), and fail if it is not over after `limit` moves."""
    for move in range(limit):
        if state.to_move < 0:
            return
        yield move
    raise AssertionError(f"the game is not over after {limit} moves")


def advance_randomly(
    apply: Callable[[Any, int], None], state: Any, rng: random.Random, steps: int
) -> Any:
    """Apply up to `steps` uniformly random legal actions, stopping when the game ends."""
    for _ in range(steps):
        if state.to_move < 0:
            break
        apply(state, rng.choice(state.legal))
    return state


def with_cards_swapped(
    state: Any, b: int, c: int, from_b: Sequence[int], from_c: Sequence[int]
) -> Any:
    """A copy of `state` in which seat `b` holds `from_c` instead of `from_b`, and seat
    `c` the other way round; nothing else differs."""
    twin = copy.deepcopy(state)
    move_b = sum(1 << x for x in from_b)
    move_c = sum(1 << x for x in from_c)
    twin.hands[b] = (twin.hands[b] & ~move_b) | move_c
    twin.hands[c] = (twin.hands[c] & ~move_c) | move_b
    return twin


def asked_by_seat(
    game: Any, replay: dict[str, Any], options: Any, forced: bool = False
) -> list[int]:
    """How many decisions of `replay` the referee puts to each seat: with `forced`
    (ask_forced, the default at a table with bots over gRPC) all of them, else those
    with more than one legal action. The replay's events are played
    again on a new game of its seed; the only events a seat was never asked at all, the
    contracts the engine chooses itself (the last of a Trix kingdom, T-2.5), are passed
    over (and must be the state's own last event)."""
    state = game.new_game(replay["seed"], options)
    asked = [0] * game.seats
    for deal in replay["deals"]:
        for event in deal["events"]:
            event = {k: v for k, v in event.items() if k != "auto"}
            action = game.parse_event(event)
            if state.to_move != event["seat"] or action not in state.legal:
                assert event["type"] == "contract" and state.events[-1][1] == action, event
                continue
            asked[event["seat"]] += forced or len(state.legal) > 1
            game.apply_legal(state, action)
    assert state.to_move < 0, "the replay's events do not end the game"
    return asked


CARD_CODE = re.compile(r"^[2-9TJQKA][CDHS]$")
# Keys whose text is not a card even when it looks like one: a Trianon bid ("7H": seven
# hearts) and the rule options (Trix first_king_card "7H" is public, T-9).
NOT_CARDS = ("bid", "options")


def card_codes_in(data: Any) -> set[str]:
    """Every card code anywhere in plain data (views, replays, viewer frames), at any
    depth, whatever key it is under, but for the keys of NOT_CARDS."""
    if isinstance(data, str):
        return {data} if CARD_CODE.match(data) else set()
    if isinstance(data, dict):
        return set().union(*(card_codes_in(v) for k, v in data.items() if k not in NOT_CARDS))
    if isinstance(data, (list, tuple)):
        return set().union(*(card_codes_in(v) for v in data))
    return set()


def spectator_sees_no_hidden_card(game: Any, seed: str, options: Any) -> int:
    """Play a game of random moves and check the spectator's view (`observe(state,
    PUBLIC)`) at every decision: no hand, no legal action, and no card code but the
    cards played or exposed, and otherwise the same public record a seat sees. Returns
    the number of decisions checked."""
    rng = random.Random(seed)
    state = game.new_game(seed, options)
    for move in until_over(state):
        view = game.view_dict(game.observe(state, PUBLIC))
        seat = game.view_dict(game.observe(state, state.to_move))
        assert (view["seat"], view["hand"], view["legal"]) == (PUBLIC, [], [])
        assert {k: v for k, v in view.items() if k not in ("seat", "hand", "legal")} == {
            k: v for k, v in seat.items() if k not in ("seat", "hand", "legal")
        }
        exposed = {c for cards in view.get("exposed", []) for c in cards}
        unplayed = {c for hand in state.hands for c in codes_of(hand)} - exposed
        assert not card_codes_in(view) & unplayed, (move, card_codes_in(view) & unplayed)
        game.apply(state, rng.choice(state.legal))
    return move
