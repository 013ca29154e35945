"""Shared moves of the engine and wire tests: random legal steps, and a twin state
that differs from the original only in cards two seats hold."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from typing import Any


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
