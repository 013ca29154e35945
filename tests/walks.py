"""Shared moves of the engine and wire tests: random legal steps, and a twin state
that differs from the original only in cards two seats hold."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

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
