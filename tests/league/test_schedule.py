"""League schedules: complete round-robins, even balanced leagues, fair gauntlets, repeatable."""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.league.definition.schedule import (
    SCHEDULES,
    ScheduledMatch,
    build_schedule,
    pair_counts,
    play_counts,
)


def names(n: int) -> list[str]:
    """Entrant names deliberately not in sorted order, so league order and sorting differ."""
    return [f"bot{(7 * i) % n:02d}-{i}" for i in range(n)]


def spread(counts: dict) -> int:
    return max(counts.values()) - min(counts.values())


# --- round-robin ------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 8), seats=st.sampled_from([3, 4]), rounds=st.integers(1, 3))
def test_round_robin_plays_every_table_once_per_round(n: int, seats: int, rounds: int) -> None:
    if n < seats:
        return
    league = names(n)
    schedule = build_schedule(league, seats, "round-robin", "rr", rounds=rounds)
    per_round = math.comb(n, seats)
    assert len(schedule) == per_round * rounds
    tables = Counter(m.entrants for m in schedule)
    assert set(tables) == set(itertools.combinations(league, seats))
    assert set(tables.values()) == {rounds}
    # Round r is the whole list again, after round r - 1, in league order.
    first = [m.entrants for m in schedule[:per_round]]
    assert first == list(itertools.combinations(league, seats))
    for r in range(rounds):
        assert [m.entrants for m in schedule[r * per_round : (r + 1) * per_round]] == first


def test_round_robin_keeps_league_order_within_a_table() -> None:
    league = ["zed", "amy", "kim", "bob"]
    schedule = build_schedule(league, 3, "round-robin", 1)
    assert schedule[0].entrants == ("zed", "amy", "kim")
    for match in schedule:
        positions = [league.index(name) for name in match.entrants]
        assert positions == sorted(positions)


def test_round_robin_with_exactly_seats_entrants_is_one_table_per_round() -> None:
    schedule = build_schedule(["a", "b", "c", "d"], 4, "round-robin", 5, rounds=3)
    assert [m.entrants for m in schedule] == [("a", "b", "c", "d")] * 3


def test_indices_and_seeds_follow_the_league_seed() -> None:
    for kind, extra in [
        ("round-robin", {"rounds": 2}),
        ("balanced", {"matches": 7}),
        ("gauntlet", {"matches": 7, "candidates": ["bot00-0"]}),
    ]:
        schedule = build_schedule(names(6), 4, kind, "spring-24", **extra)
        assert [m.index for m in schedule] == list(range(len(schedule)))
        assert [m.seed for m in schedule] == [f"spring-24/{i}" for i in range(len(schedule))]
    assert build_schedule(names(4), 4, "round-robin", 42)[0].seed == "42/0"


# --- balanced ---------------------------------------------------------------------------


def test_balanced_ten_entrants_sixty_matches() -> None:
    league = names(10)
    schedule = build_schedule(league, 4, "balanced", "league-1", matches=60)
    assert len(schedule) == 60
    plays = play_counts(schedule, league)
    # 240 seats over 10 entrants divides exactly, so "differ by at most one" means equal.
    assert set(plays.values()) == {24}
    pairs = pair_counts(schedule, league)
    assert len(pairs) == 45
    assert sum(pairs.values()) == 60 * 6
    # Measured: 7..9 for this and other seeds (mean 8); the bound leaves a margin of one.
    assert spread(pairs) <= 3
    assert min(pairs.values()) >= 6
    # For this seed, exactly: how many of the 45 pairs met 7, 8 and 9 times.
    assert sorted(Counter(pairs.values()).items()) == [(7, 5), (8, 35), (9, 5)]


def test_balanced_twenty_entrants_every_pair_meets() -> None:
    league = names(20)
    schedule = build_schedule(league, 4, "balanced", "league-1", matches=100)
    assert set(play_counts(schedule, league).values()) == {20}
    pairs = pair_counts(schedule, league)
    # Measured: 2..4 or 2..5 depending on the seed (mean 3.16); nobody is kept apart.
    assert min(pairs.values()) >= 1
    assert spread(pairs) <= 4
    # For this seed, exactly: how many of the 190 pairs met 2, 3, 4 and 5 times.
    assert sorted(Counter(pairs.values()).items()) == [(2, 12), (3, 137), (4, 40), (5, 1)]


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(4, 12),
    seats=st.sampled_from([3, 4]),
    matches=st.integers(1, 40),
    seed=st.one_of(st.integers(), st.text(max_size=6)),
)
def test_balanced_play_counts_differ_by_at_most_one(
    n: int, seats: int, matches: int, seed: int | str
) -> None:
    league = names(n)
    schedule = build_schedule(league, seats, "balanced", seed, matches=matches)
    assert len(schedule) == matches
    for match in schedule:
        assert len(match.entrants) == seats
        assert len(set(match.entrants)) == seats
        assert set(match.entrants) <= set(league)
    assert spread(play_counts(schedule, league)) <= 1


def test_balanced_is_deterministic_and_depends_on_the_seed() -> None:
    league = names(10)
    first = build_schedule(league, 4, "balanced", 7, matches=30)
    assert build_schedule(league, 4, "balanced", 7, matches=30) == first
    assert build_schedule(tuple(league), 4, "balanced", 7, matches=30) == first
    assert build_schedule(league, 4, "balanced", 8, matches=30) != first
    assert build_schedule(league, 4, "balanced", "7x", matches=30) != first


def test_balanced_does_not_always_seat_the_same_way() -> None:
    """Seat order is shuffled, so nobody is systematically first to play or to someone's left."""
    league = names(8)
    schedule = build_schedule(league, 4, "balanced", 3, matches=40)
    first_seats = Counter(m.entrants[0] for m in schedule)
    assert len(first_seats) == len(league)
    assert any(list(m.entrants) != sorted(m.entrants, key=league.index) for m in schedule)


SCRIPT = """
import json, sys
from arena.league.definition.schedule import build_schedule
league = [f"e{i}" for i in range(9)]
out = [
    [m.entrants for m in build_schedule(league, 4, "balanced", "h", matches=25)],
    [m.entrants for m in build_schedule(league, 3, "gauntlet", "h", matches=25,
                                        candidates=["e8", "e2"])],
]
json.dump(out, sys.stdout)
"""


def test_schedules_do_not_depend_on_hash_randomisation() -> None:
    results = []
    for hashseed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=60,  # subprocess.run kills the child if it runs over
        )
        results.append(json.loads(done.stdout))
    assert results[0] == results[1] == results[2]


# --- gauntlet ---------------------------------------------------------------------------


def test_gauntlet_candidates_take_turns_against_a_balanced_field() -> None:
    league = names(10)
    candidates = [league[3], league[8]]
    field = [n for n in league if n not in candidates]
    schedule = build_schedule(league, 4, "gauntlet", 11, matches=30, candidates=candidates)
    assert len(schedule) == 30
    for i, match in enumerate(schedule):
        assert match.entrants[0] == candidates[i % 2]
        assert len(match.entrants) == 4
        assert len(set(match.entrants)) == 4
        assert set(match.entrants[1:]) <= set(field)  # enough outsiders: no candidate drawn
    draws = Counter(name for m in schedule for name in m.entrants[1:])
    assert sum(draws.values()) == 90
    assert spread({name: draws[name] for name in field}) <= 1


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(4, 10),
    seats=st.sampled_from([3, 4]),
    matches=st.integers(1, 40),
    data=st.data(),
)
def test_gauntlet_properties(n: int, seats: int, matches: int, data: st.DataObject) -> None:
    league = names(n)
    candidates = data.draw(st.lists(st.sampled_from(league), min_size=1, max_size=n, unique=True))
    schedule = build_schedule(
        league, seats, "gauntlet", "g", matches=matches, candidates=candidates
    )
    assert len(schedule) == matches
    outsiders = [name for name in league if name not in candidates]
    for i, match in enumerate(schedule):
        candidate = candidates[i % len(candidates)]
        assert match.entrants[0] == candidate
        assert len(match.entrants) == seats
        assert len(set(match.entrants)) == seats
        assert set(match.entrants) <= set(league)
        if len(outsiders) >= seats - 1:
            assert set(match.entrants[1:]) <= set(outsiders)
    if len(outsiders) >= seats - 1:
        draws = Counter(name for m in schedule for name in m.entrants[1:])
        assert spread({name: draws[name] for name in outsiders}) <= 1


def test_gauntlet_with_too_few_outsiders_draws_other_candidates() -> None:
    league = ["a", "b", "c", "d", "e"]
    schedule = build_schedule(league, 4, "gauntlet", 1, matches=6, candidates=["a", "b", "c"])
    # Only d and e are outsiders, a 4-seat table needs 3 opponents: candidates fill in.
    for match in schedule:
        assert match.entrants[0] not in match.entrants[1:]
        assert len(set(match.entrants)) == 4
    assert any({"a", "b", "c"} & set(m.entrants[1:]) for m in schedule)


def test_gauntlet_is_deterministic() -> None:
    league = names(9)
    kwargs = {"matches": 20, "candidates": [league[0]]}
    first = build_schedule(league, 4, "gauntlet", "s", **kwargs)
    assert build_schedule(league, 4, "gauntlet", "s", **kwargs) == first
    assert build_schedule(league, 4, "gauntlet", "t", **kwargs) != first


# --- helpers ----------------------------------------------------------------------------


def test_pair_and_play_counts() -> None:
    schedule = [
        ScheduledMatch(0, ("zed", "amy", "kim"), "s/0"),
        ScheduledMatch(1, ("kim", "zed", "bob"), "s/1"),
    ]
    assert play_counts(schedule) == {"zed": 2, "amy": 1, "kim": 2, "bob": 1}
    assert play_counts(schedule, ["ned"]) == {"ned": 0, "zed": 2, "amy": 1, "kim": 2, "bob": 1}
    assert pair_counts(schedule) == {
        ("amy", "zed"): 1,
        ("kim", "zed"): 2,
        ("amy", "kim"): 1,
        ("bob", "zed"): 1,
        ("bob", "kim"): 1,
        ("amy", "bob"): 0,
    }
    with_ned = pair_counts(schedule, ["ned"])
    assert len(with_ned) == 10
    assert with_ned[("kim", "ned")] == 0


# --- errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((["a", "b", "c"], 4, "round-robin", 1), {}, "at least 4 entrants"),
        ((["a", "b", "c"], 4, "balanced", 1), {"matches": 5}, "at least 4 entrants"),
        ((["a", "b", "c"], 4, "gauntlet", 1), {"matches": 5, "candidates": ["a"]}, "at least 4"),
        ((["a", "b", "c", "d"], 4, "round-robin", 1), {"rounds": 0}, "rounds"),
        ((["a", "b", "c", "d"], 4, "balanced", 1), {"matches": 0}, "matches"),
        ((["a", "b", "c", "d"], 4, "gauntlet", 1), {"matches": 3}, "candidate"),
        (
            (["a", "b", "c", "d"], 4, "gauntlet", 1),
            {"matches": 3, "candidates": ["x"]},
            "'x' is not an entrant",
        ),
        (
            (["a", "b", "c", "d"], 4, "gauntlet", 1),
            {"matches": 0, "candidates": ["a"]},
            "matches",
        ),
        (
            (["a", "b", "c", "d"], 4, "gauntlet", 1),
            {"matches": 3, "candidates": ["a", "a"]},
            "repeat",
        ),
        ((["a", "b", "a", "d"], 3, "round-robin", 1), {}, "'a' is listed twice"),
        ((["a", "b", "c", "d"], 1, "round-robin", 1), {}, "seats"),
        ((["a", "b", "c", "d"], 4, "swiss", 1), {}, "'swiss'"),
    ],
)
def test_errors_name_the_problem(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_schedule(*args, **kwargs)


def test_unknown_schedule_lists_the_allowed_values() -> None:
    with pytest.raises(ValueError) as error:
        build_schedule(["a", "b", "c", "d"], 4, "Round-Robin", 1)
    for name in SCHEDULES:
        assert repr(name.value) in str(error.value)
    assert set(SCHEDULES) == {"round-robin", "balanced", "gauntlet"}
