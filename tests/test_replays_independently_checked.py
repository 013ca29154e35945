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
    extra_deals = 0
    # tie-53 and tie-64 are seeds whose one-kingdom games end tied at the top (T-7.3).
    for seed in [f"indep-{i}" for i in range(10)] + ["tie-53", "tie-64"]:
        bots = [RandomBot(), RandomBot(), FirstBot(), RandomBot()]
        replay = play_game(GAME, bots, seed, options).replay
        assert check_replay(replay) == []
        extra_deals += len(replay["deals"]) - 5 * options.kingdoms
    if rules.get("tiebreak") == "king-of-hearts" and rules.get("kingdoms") == "1":
        assert extra_deals > 0, "no game exercised the tie-break deals"


def test_the_checker_catches_a_tampered_replay() -> None:
    replay = play_game(GAME, [RandomBot() for _ in range(4)], "tamper", trix.parse_options({}))
    data = replay.replay
    data["deals"][3]["scores"][0] += 10
    assert check_replay(data)
