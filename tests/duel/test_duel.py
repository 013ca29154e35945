"""`arena duel`'s runner (arena/duel/): A and B on the same deals against the same
opponents, each under a bot seed of its own, read by the shared sequential test.

Built-in bots in process, on Trix with one kingdom (5 deals a game, so a pair of
matches takes milliseconds); the margins of the test are scaled to such games (a pair's
difference of two random bots spreads about 85 points a game there, against about 175
in a full game)."""

from __future__ import annotations

import dataclasses

import pytest

from arena.bots.builtin import RandomBot
from arena.duel.report import summary
from arena.duel.runner import DEFAULT_OPPONENT, Duel, DuelRequest, opponent_specs
from arena.duel.tables import OwnSeed, side_seed
from arena.errors import ConfigError
from arena.league.standings.sprt import SprtSettings
from arena.play.referee import GameStart

SHORT = {"kingdoms": "1"}
RANDOM = "builtin:random"
SELF_SEEDS = 40


def _duel(a: str, b: str, key: int, **given) -> Duel:
    given.setdefault("opponents", (RANDOM,))
    given.setdefault("rules", SHORT)
    return Duel(DuelRequest(a, b, deal_key=f"{key:032x}", **given))


def _played(duel: Duel) -> Duel:
    for _ in duel.play():
        pass
    return duel


def test_a_random_bot_against_itself_is_undecided_or_equal_within_its_interval() -> None:
    """The issue's noise test: over 40 deal keys, a random bot against itself is
    undecided, or 0 lies inside the interval shown with the verdict, in at least 95%.
    The test is the duel's default but for margin1 (40, scaled to one-kingdom games:
    about half a spread, so that every duel decides within a few dozen pairs)."""
    settings = SprtSettings(margin1=40.0, max_games=800)
    fine = []
    decided = 0
    for key in range(1, SELF_SEEDS + 1):
        duel = _played(_duel(RANDOM, RANDOM, key, settings=settings))
        verdict, (low, high) = duel.verdict(), duel.interval()
        decided += verdict.decision in ("accept", "reject")
        fine.append(verdict.decision in ("undecided", "continue") or low <= 0.0 <= high)
    assert sum(fine) >= 0.95 * SELF_SEEDS, fine
    assert decided >= SELF_SEEDS // 2  # the duels do decide: the check above is not idle


@pytest.mark.slow
def test_at_the_duels_defaults_too_a_bot_against_itself_is_undecided_or_equal() -> None:
    """The same over 20 deal keys at every default of `arena duel` (full Trix games,
    margins 0 and 20, 2,000 games at most) but the opponents (random, not greedy: in
    process either way, random being the noisier): most end undecided there, the
    difference of two random bots spreading some 175 points a game a pair."""
    fine = []
    for key in range(1, 21):
        duel = _played(_duel(RANDOM, RANDOM, key, rules={}))
        verdict, (low, high) = duel.verdict(), duel.interval()
        fine.append(verdict.decision in ("undecided", "continue") or low <= 0.0 <= high)
    assert sum(fine) >= 19, fine


def test_two_copies_of_one_random_bot_play_their_own_games() -> None:
    duel = _played(_duel(RANDOM, RANDOM, 7, matches=3))
    assert len(duel.pairs) == 3
    assert all(p.difference != 0.0 for p in duel.pairs)
    assert all(p.a_margin != p.b_margin for p in duel.pairs)


def test_a_deterministic_bot_against_itself_differs_by_exactly_zero() -> None:
    """Same deals, same opponents in the same seats: with no randomness of its own,
    the greedy bot plays both tables identically (so nothing but the bots differs)."""
    duel = _played(_duel("builtin:mixed:1.0", "builtin:mixed:1.0", 3, matches=3))
    assert [p.difference for p in duel.pairs] == [0.0, 0.0, 0.0]
    assert all(p.a_margin == p.b_margin != 0.0 for p in duel.pairs)


def test_greedy_against_random_decides_for_greedy_and_the_other_way_round() -> None:
    for key in (1, 2, 3):
        won = _played(_duel("builtin:greedy", RANDOM, key))
        assert won.verdict().decision == "accept", summary(won)
        low, _ = won.interval()
        assert low > 0
        lost = _played(_duel(RANDOM, "builtin:greedy", key))
        assert lost.verdict().decision == "reject", summary(lost)
        assert lost.interval()[1] < 0
        assert summary(lost)["verdict"] == "A not better"


def test_the_deal_key_repeats_a_duel_exactly_and_another_key_does_not() -> None:
    first = summary(_played(_duel(RANDOM, "builtin:mixed:0.5", 11, matches=4)))
    again = summary(_played(_duel(RANDOM, "builtin:mixed:0.5", 11, matches=4)))
    other = summary(_played(_duel(RANDOM, "builtin:mixed:0.5", 12, matches=4)))
    assert first == again
    assert first["steps"] != other["steps"]


def test_matches_plays_that_many_pairs_whatever_the_test_says() -> None:
    duel = _played(_duel("builtin:greedy", RANDOM, 1, matches=12))
    assert len(duel.pairs) == 12 and duel.pairs[-1].verdict.games == 12 * 8
    result = summary(duel)
    assert result["decided_at"] is not None and result["decided_at"] < 12
    assert result["games"] == 96 and result["games_per_pair"] == 8


def test_until_decided_stops_at_the_verdict_or_at_max_games() -> None:
    decided = _played(_duel("builtin:greedy", RANDOM, 1))
    assert decided.verdict().decided and decided.verdict().decision == "accept"
    assert [p.verdict.decided for p in decided.pairs].index(True) == len(decided.pairs) - 1
    capped = _played(_duel(RANDOM, RANDOM, 1, settings=SprtSettings(max_games=24)))
    assert len(capped.pairs) == 3 and capped.verdict().decision == "undecided"
    assert summary(capped)["verdict"] == "undecided"


def test_each_side_has_a_bot_seed_of_its_own_and_the_opponents_keep_theirs() -> None:
    seen: list[str] = []

    class Spy(RandomBot):
        def start_game(self, start: GameStart) -> None:
            seen.append(start.seed)
            super().start_game(start)

    start = GameStart("trix", 0, "f" * 32, {}, ("a", "b", "c", "d"))
    for side in ("A", "B"):
        OwnSeed(Spy(), side).start_game(start)
    assert seen == [side_seed("A", "f" * 32), side_seed("B", "f" * 32)]
    assert len({*seen, "f" * 32}) == 3
    wrapped = OwnSeed(Spy(), "A")
    assert wrapped.name == "random" and wrapped.wants_notices is False
    assert not hasattr(wrapped, "act_async")  # the referee calls it directly


def test_the_opponents_are_one_spec_for_all_seats_or_one_a_seat() -> None:
    assert opponent_specs((), 4) == (DEFAULT_OPPONENT,) * 3 == ("builtin:greedy",) * 3
    assert opponent_specs(("builtin:random",), 3) == ("builtin:random",) * 2
    three = ("builtin:random", "builtin:first", "builtin:greedy")
    assert opponent_specs(three, 4) == three
    with pytest.raises(ConfigError, match="one spec .* or 3 specs"):
        opponent_specs(three[:2], 4)
    with pytest.raises(ConfigError, match="builtin:nope"):
        Duel(DuelRequest("builtin:nope", RANDOM))
    with pytest.raises(ConfigError, match="trianon needs|kingdoms|option"):
        Duel(DuelRequest(RANDOM, RANDOM, game="trianon", rules={"kingdoms": "1"}))


def test_trianon_duels_at_three_seats() -> None:
    duel = _played(Duel(DuelRequest("builtin:greedy", RANDOM, (RANDOM,), game="trianon",
                                    deal_key="ab" * 16, matches=2)))  # fmt: skip
    assert duel.games_per_pair == 6 and len(duel.pairs) == 2
    assert summary(duel)["opponents"] == [RANDOM, RANDOM]


def test_the_summary_holds_every_documented_field() -> None:
    result = summary(_played(_duel(RANDOM, "builtin:first", 5, matches=1)))
    assert set(result) >= {
        "a", "b", "opponents", "game", "rules", "margin0", "margin1", "alpha", "beta",
        "max_games", "min_pairs", "matches", "pairs", "games", "games_per_pair", "mean",
        "low", "high", "a_margin", "b_margin", "llr", "lower", "upper", "decision",
        "verdict", "decided_at", "interrupted", "faults", "overloads", "steps",
    }  # fmt: skip
    assert result["low"] is None and result["high"] is None  # one pair: no interval yet
    assert result["steps"][0]["seed"] == "duel-1"


def test_separate_runs_deal_each_side_its_own_cards() -> None:
    """The bench's other condition: A and B on deals of their own, so a deterministic
    bot against itself no longer differs by 0."""
    request = DuelRequest("builtin:mixed:1.0", "builtin:mixed:1.0", (RANDOM,), rules=SHORT,
                          deal_key="cd" * 16, matches=2)  # fmt: skip
    paired = _played(Duel(request))
    separate = _played(Duel(dataclasses.replace(request, paired=False)))
    assert [p.difference for p in paired.pairs] == [0.0, 0.0]
    assert all(p.difference != 0.0 for p in separate.pairs)
