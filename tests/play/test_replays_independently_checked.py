"""Replays written by the arena, re-checked by the independent checker (tests/independent),
which was written from docs/rules/trix.md alone and shares no code with the engine."""

from __future__ import annotations

import pytest

from arena.bots.builtin import FirstBot, RandomBot
from arena.games import get_game, trix
from arena.play.referee import play_game
from tests.independent.trix_checker import check_replay

GAME = get_game("trix")


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"doubling": "false"},
        {"partners": "true"},
        {"tiebreak": "king-of-hearts", "kingdoms": "1"},
        {
            "kingdoms": "2",
            "first_king_card": "AS",
            "partners": "true",
            "tiebreak": "king-of-hearts",
        },
    ],
)
def test_replays_pass_the_independent_checker(rules) -> None:
    options = trix.parse_options(rules)
    extra_deals = {}
    # tie-53 and tie-64 are seeds whose one-kingdom games end tied at the top (T-7.3).
    for seed in [f"indep-{i}" for i in range(10)] + ["tie-53", "tie-64"]:
        bots = [RandomBot(), RandomBot(), FirstBot(), RandomBot()]
        replay = play_game(GAME, bots, seed, options).replay
        assert check_replay(replay) == []
        extra = len(replay["deals"]) - 5 * options.kingdoms
        if extra:
            extra_deals[seed] = extra
    if rules.get("tiebreak") == "king-of-hearts" and rules.get("kingdoms") == "1":
        # Both tied games go to tie-break deals: tie-53's first one breaks the tie,
        # tie-64 needs two (the checker above confirmed each stop by the totals).
        assert extra_deals == {"tie-53": 1, "tie-64": 2}, "tie-break deals not exercised"
    else:  # no tie-break option, or (two kingdoms, partners) no tie at the top
        assert extra_deals == {}


def test_the_checker_catches_a_tampered_replay() -> None:
    replay = play_game(GAME, [RandomBot() for _ in range(4)], "tamper", trix.parse_options({}))
    data = replay.replay
    assert check_replay(data) == []
    scores = data["deals"][3]["scores"]
    played = list(scores)
    scores[0] += 10
    # Both lies are named: deal 4's scores are not what its play gives, and the totals
    # are not the sum of the deal scores.
    deal_error, totals_error = check_replay(data)
    assert deal_error.startswith(f"deal 4: scores are {scores}, but the ")
    assert deal_error.endswith(f"deal as played scores {played} (T-4, T-5.3, T-5.4)")
    assert totals_error.startswith("totals are ") and totals_error.endswith(" (T-7.1)")
