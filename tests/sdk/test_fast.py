"""The fast level (`arena.sdk.fast`) is a documented, public surface: every name it
offers is public, documented in its module's docstring, and the engine's own object
(so that it is as fast as the engine, and a bot's playouts follow the real rules)."""

from __future__ import annotations

import re

import pytest

import arena.cards
from arena.games import trianon as trianon_engine
from arena.games import trix as trix_engine
from arena.sdk.deal import Deal
from arena.sdk.fast import cards, trianon, trix

SURFACES = [(cards, arena.cards), (trix, trix_engine), (trianon, trianon_engine)]


@pytest.mark.parametrize(("surface", "engine"), SURFACES)
def test_every_name_is_public_documented_and_the_engines_own(surface, engine) -> None:
    documented = set(re.findall(r"`(\w+)", surface.__doc__))
    for name in surface.__all__:
        assert not name.startswith("_"), name
        assert name in documented, f"{surface.__name__}.{name} is not in its docstring"
        assert getattr(surface, name) is getattr(engine, name)
    offered = {n for n in vars(surface) if not n.startswith("_")}
    assert offered == set(surface.__all__)  # nothing offered that is not promised


def test_a_sampled_deal_is_played_on_with_the_fast_level() -> None:
    """The docstrings' promise: copy, apply in place, read `legal`, `to_move` and the
    last of `deal_scores` once over; the friendly level scores it the same."""
    state = trix.new_deal(trix_engine.deal_hands("fast", 0), king=1)
    root = trix.copy_state(state)
    while state.to_move >= 0:
        trix.apply_legal(state, state.legal[0])
    assert root.to_move == 1 and len(root.deal_scores) == 0  # the copy did not move
    assert Deal(root).play_out() == tuple(state.deal_scores[-1])
