"""The table's separation rule (arena.league.standings.places) on constructed leagues."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.league.standings.places import evidence, place_ranges, place_text, separated_pairs
from arena.league.standings.ratings import GameOutcome, MatchOutcome
from arena.league.standings.stats import head_to_head, mean_interval


def _match(idx: int, totals: dict[str, int], games: int = 1) -> MatchOutcome:
    """A match of `games` games in which every game gave each entrant `totals`."""
    names = list(totals)
    outcome = MatchOutcome(idx, names)
    for g in range(games):
        outcome.games.append(GameOutcome(g, dict(totals), dict.fromkeys(names, 0), []))
    return outcome


def test_one_table_league_gives_exactly_the_head_to_head_interval() -> None:
    league = [
        _match(i, {"a": 100 + 13 * (i % 3), "b": 50 - 7 * (i % 4), "c": 9 * (i % 5), "d": -20})
        for i in range(9)
    ]
    proof = evidence(league)
    for a, b in [("a", "b"), ("b", "c"), ("d", "a")]:
        direct = mean_interval([head_to_head(m, a, b) for m in league])
        fitted = proof.difference(a, b)
        assert fitted.mean == pytest.approx(direct.mean)
        assert fitted.low == pytest.approx(direct.low)
        assert fitted.high == pytest.approx(direct.high)
        assert fitted.n == direct.n == 9


def test_entrants_who_never_met_are_separated_through_shared_opponents() -> None:
    # Two-seat tables: a beats c by about 100, c beats b by about 100; a and b never meet.
    league = []
    for i in range(8):
        jitter = 10 * (i % 3) - 10
        league.append(_match(2 * i, {"a": 100 + jitter, "c": 0}))
        league.append(_match(2 * i + 1, {"c": 100 - jitter, "b": 0}))
    proof = evidence(league)
    fitted = proof.difference("a", "b")
    assert fitted.mean == pytest.approx(200, abs=1)
    assert fitted.low is not None and fitted.low > 150
    assert proof.better("a", "b") and not proof.better("b", "a")
    assert place_ranges(["a", "c", "b"], proof) == [(1, 1), (2, 2), (3, 3)]


def test_ranges_do_not_chain_from_the_top_of_a_table_to_its_bottom() -> None:
    # The chaining the head-to-head grouping suffered: x, y, z are close to each other
    # (never told apart), but x is far above z. A range never holds a pair it separates.
    league = [
        _match(i, {"x": 200 + 60 * (i % 2), "y": 100 + 90 * (i % 3 == 0), "z": 0 + 40 * (i % 2)})
        for i in range(6)
    ]
    proof = evidence(league)
    order = ["x", "y", "z"]
    apart = separated_pairs(order, proof)
    assert ("x", "z") in apart
    ranges = place_ranges(order, proof)
    for (first, last), name in zip(ranges, order, strict=True):
        inside = order[first - 1 : last]
        assert all((a, b) not in apart for a in inside for b in inside if a != name == b)
    assert ranges[0] != ranges[2]


def test_an_order_the_evidence_contradicts_is_not_shown_separated() -> None:
    league = [_match(i, {"a": 10 * (i % 2), "b": 300 + i}) for i in range(5)]
    proof = evidence(league)
    assert proof.better("b", "a")
    assert separated_pairs(["a", "b"], proof) == set()  # the table puts a first: tied
    assert place_ranges(["a", "b"], proof) == [(1, 2), (1, 2)]


def test_unconnected_and_unplayed_entrants_are_never_separated() -> None:
    league = [_match(i, {"a": 100 + i, "b": 0}) for i in range(5)]
    league += [_match(5 + i, {"c": 100 + i, "d": 0}) for i in range(5)]
    proof = evidence(league, ["a", "b", "c", "d", "new"])
    assert proof.better("a", "b") and proof.better("c", "d")
    assert not proof.better("a", "d") and not proof.better("c", "b")
    assert proof.difference("a", "new").low is None
    assert place_ranges(["a", "c", "b", "d", "new"], proof)[4] == (1, 5)  # could be anywhere


def test_one_match_gives_no_interval_and_no_separation() -> None:
    proof = evidence([_match(0, {"a": 500, "b": 0})])
    assert proof.difference("a", "b").low is None
    assert place_ranges(["a", "b"], proof) == [(1, 2), (1, 2)]
    assert evidence([]).names == ()


def test_place_text() -> None:
    assert place_text(3, 3) == "3" and place_text(2, 4) == "2-4"


LEAGUES = st.lists(
    st.tuples(
        st.lists(st.sampled_from("abcdef"), min_size=2, max_size=4, unique=True),
        st.lists(st.integers(-300, 300), min_size=4, max_size=4),
    ),
    min_size=2,
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(LEAGUES, st.permutations("abcdef"))
def test_a_group_of_tied_places_never_holds_two_separated_entrants(data, order) -> None:
    league = [
        _match(i, dict(zip(table, scores, strict=False)), games=1 + i % 2)
        for i, (table, scores) in enumerate(data)
    ]
    proof = evidence(league, order)
    apart = separated_pairs(order, proof)
    ranges = place_ranges(order, proof)
    for p, (first, last) in enumerate(ranges):
        assert first <= p + 1 <= last  # a range holds its own place
        holders = [order[q] for q, span in enumerate(ranges) if span == (first, last)]
        for i, a in enumerate(holders):
            for b in holders[i + 1 :]:
                assert (a, b) not in apart and (b, a) not in apart
    for upper, lower in apart:  # a claim agrees with the table's order and the evidence
        assert order.index(upper) < order.index(lower)
        interval = proof.difference(upper, lower)
        assert interval.low is not None and interval.low > 0


def test_entrants_with_fewer_than_three_matches_are_not_compared() -> None:
    # Two matches at disjoint tables fit exactly (no residual freedom): a sandwich
    # variance of zero would call every pair apart. Nothing is claimed until each of
    # the two has played three matches.
    league = [_match(0, {"a": 300, "b": 0, "c": -300}), _match(1, {"d": 300, "e": 0, "f": -300})]
    league += [_match(2, {"a": 310, "b": 5, "c": -290})]
    proof = evidence(league)
    assert proof.difference("a", "c").low is None  # each has two matches
    assert separated_pairs(["a", "d", "b", "e", "c", "f"], proof) == set()
    league += [_match(3 + i, {"a": 300 + 7 * i, "b": -3 * i, "c": -300}) for i in range(3)]
    assert evidence(league).better("a", "c")
