"""Golden counts: the number of legal actions at each decision of four fixed Trianon games.

Like python-chess's perft numbers, they pin the move generator down: any change to the
rules that changes a single legal action somewhere changes a count. Three seeds are
played by `builtin:first` (always the first legal action: everyone passes, so every deal
is a Trianon round, N-6); one more is played by `bidder`, a simple deterministic policy
that bids, raises on odd deals and plays the first legal card, so that the bidding, the
declarer's choice and trick play with and without trumps are pinned too. Regenerate
(only after a rule change that is meant) with
`python -m tests.support.trianon_golden_counts --write`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from arena.games import trianon
from arena.games.base import Action
from tests.support.walks import until_over

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "trianon_golden_counts.json"

Policy = Callable[[trianon.TrianonState], Action]


def first(state: trianon.TrianonState) -> Action:
    """The referee's fallback: pass, keep, the lowest card."""
    return state.legal[0]


def bidder(state: trianon.TrianonState) -> Action:
    """Bid one to six steps above the highest bid while the bidding is low (more than 40
    legal actions, so below 6H), else pass; raise one step on odd deals, keep on even
    ones; play the first legal card. Strains vary with the seat and the deal."""
    legal = state.legal
    if state.kind == trianon.KIND_BID:
        if len(legal) > 40:
            return legal[1 + (state.to_move + state.deal_index) % 6]
        return legal[0]
    if state.kind == trianon.KIND_RAISE:
        return legal[1] if state.deal_index % 2 and len(legal) > 1 else legal[0]
    return legal[0]


GAMES: dict[str, Policy] = {
    "golden-1": first,
    "golden-2": first,
    "golden-3": first,
    "golden-bidder": bidder,
}


def play(seed: str, policy: Policy) -> trianon.TrianonState:
    state = trianon.new_game(seed)
    for _ in until_over(state):
        trianon.apply(state, policy(state))
    return state


def legal_counts(seed: str, policy: Policy) -> list[int]:
    state = trianon.new_game(seed)
    counts = []
    for _ in until_over(state):
        counts.append(len(state.legal))
        trianon.apply(state, policy(state))
    return counts


def compute() -> dict[str, list[int]]:
    return {seed: legal_counts(seed, policy) for seed, policy in GAMES.items()}


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        FIXTURE.write_text(json.dumps(compute()) + "\n")
        print(f"wrote {FIXTURE}")
    else:
        print(__doc__)
