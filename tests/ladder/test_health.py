"""A version's health (docs/ladder.md, "Health"): suspended when its charged faults
over its last `window` games pass `max_fault_rate` of its decisions, or when it
crashed in each of its last `max_crash_games` games; never on fewer games than the
window, never for a calm run."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arena.ladder.health import HealthSettings, health_problem

DEFAULTS = HealthSettings()


def test_the_defaults_are_the_documented_ones() -> None:
    assert (DEFAULTS.window, DEFAULTS.max_fault_rate, DEFAULTS.max_crash_games) == (20, 0.10, 5)


def test_five_crashed_games_in_a_row_suspend() -> None:
    games = [(5, 5, 1)] * 5
    assert "crashed in each of its last 5 games" in health_problem(games, DEFAULTS)


def test_four_crashes_then_a_clean_game_do_not() -> None:
    games = [(5, 5, 1)] * 4 + [(50, 0, 0)] + [(5, 5, 1)] * 10
    assert health_problem(games, DEFAULTS) is None


def test_a_fault_rate_above_the_limit_over_the_window_suspends() -> None:
    games = [(50, 6, 0)] * 20  # 12% of the decisions
    assert "above [health] max_fault_rate" in health_problem(games, DEFAULTS)


def test_a_rate_at_the_limit_or_too_few_games_do_not() -> None:
    assert health_problem([(50, 5, 0)] * 20, DEFAULTS) is None  # 10%: not above
    assert health_problem([(50, 50, 0)] * 19, DEFAULTS) is None  # fewer games than the window


@given(st.lists(st.tuples(st.integers(1, 200), st.just(0), st.just(0)), max_size=60))
def test_a_version_with_no_fault_is_never_suspended(games: list[tuple[int, int, int]]) -> None:
    assert health_problem(games, DEFAULTS) is None
