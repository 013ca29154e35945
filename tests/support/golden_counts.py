"""Golden counts: the number of legal actions at each decision of a Trix game played by
`builtin:first` (always the first legal action), for three fixed seeds.

Like python-chess's perft numbers, they pin the move generator down: any change to the
rules that changes a single legal action somewhere changes a count. Regenerate (only
after a rule change that is meant) with `python -m tests.support.golden_counts --write`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from arena.games import trix
from tests.support.walks import until_over

SEEDS = ("golden-1", "golden-2", "golden-3")
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "trix_golden_counts.json"


def legal_counts(seed: str) -> list[int]:
    state = trix.new_game(seed)
    counts = []
    for _ in until_over(state):
        counts.append(len(state.legal))
        trix.apply(state, state.legal[0])
    return counts


def compute() -> dict[str, list[int]]:
    return {seed: legal_counts(seed) for seed in SEEDS}


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        FIXTURE.write_text(json.dumps(compute()) + "\n")
        print(f"wrote {FIXTURE}")
    else:
        print(__doc__)
