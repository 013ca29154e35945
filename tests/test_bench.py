"""`arena bench referee` measures what it prints. Nothing here times anything: the test
checks where each figure comes from, not how big it is (docs/benchmarks.md)."""

from __future__ import annotations

import pytest

from arena.bench import referee as bench


@pytest.mark.slow
def test_the_referee_bench_floor_sends_the_games_own_requests_to_the_same_bots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    given: list[tuple[list[str], str, str, list[tuple[int, bytes]]]] = []
    real = bench.round_trips

    def spy(addresses, method, transport, *, messages, warm_up):  # type: ignore[no-untyped-def]
        given.append((addresses, method, transport, messages))
        return real(addresses, method, transport, messages=messages, warm_up=warm_up)

    monkeypatch.setattr(bench, "round_trips", spy)
    figures = bench.bench_referee(games=1, transport="stream")

    floors = [g for g in given if g[1] == "/arena.v1.Bot/Play"]
    assert len(floors) == 1
    addresses, _, transport, requests = floors[0]
    assert transport == "stream" and len(set(addresses)) == 4
    assert len(requests) == figures.decisions  # every request the game asked, once
    assert {seat for seat, _ in requests} == {0, 1, 2, 3}
    assert figures.message_bytes == sum(len(r) for _, r in requests) // len(requests)
    echoes = [g for g in given if g[1] == "/arena.bench.Echo/Stream"]
    assert [len(set(g[0])) for g in echoes] == [1, 4]
    assert all({len(r) for _, r in g[3]} == {figures.message_bytes} for g in echoes)
    assert figures.floor_us > 0 and figures.bare_us > 0 and figures.bare_four_us > 0


@pytest.mark.slow
@pytest.mark.cluster
def test_the_cluster_bench_plays_the_league_and_checks_every_game(tmp_path) -> None:
    """`arena bench cluster` on a cluster of one worker, one match: the games it counts
    are the league's, and every stored game went through the result check once."""
    from arena.bench.cluster import bench_cluster, lines

    (run,) = bench_cluster(matches=1, workers=(1,), wait_ms=0.0)
    assert run.workers == 1 and run.games == 4 and len(run.check_ms) == 1
    assert run.steady == 0.0  # one match: no time after the first one to measure
    text = lines([run], 0.0)
    assert "1 worker : 4 games in" in text[1] and "1.00x one worker" in text[1]
    assert text[-1].startswith("result check: ")


def test_the_cluster_bench_rate_after_start_up_counts_from_every_workers_first_match(
    monkeypatch,
) -> None:
    from arena.bench import cluster

    rows = [{"finished_at": t, "worker": w, "games": 4}  # a's first at 10 s, b's at 40 s
            for t, w in [(10, "a"), (40, "b"), (50, "a"), (70, "b"), (100, "a")]]  # fmt: skip
    monkeypatch.setattr("arena.league.store.match_records", lambda db, league: rows)
    monkeypatch.setattr("arena.league.store.open_existing", lambda path: _Closing())
    assert cluster._steady("m.db") == 12 / 1.0  # 3 matches, 12 games, in the 60 s from 40 s


class _Closing:
    def close(self) -> None:
        pass


def test_the_duel_bench_asks_one_question_paired_and_as_two_separate_runs() -> None:
    """`arena bench duel`: both ways reach their verdicts on the same deal keys; the
    separate runs deal A and B cards of their own, so their steps differ from the
    duel's (nothing is timed here)."""
    from arena.bench.duel import bench_duel, render_duel

    told = []
    figures = bench_duel(
        "builtin:greedy",
        "builtin:random",
        ("builtin:random",),
        rules={"kingdoms": "1"},
        seeds=2,
        on_test=lambda kind, k, v: told.append((kind, k, v.decision)),
    )
    assert told == [("paired", 0, "accept"), ("separate", 0, "accept"),
                    ("paired", 1, "accept"), ("separate", 1, "accept")]  # fmt: skip
    for kind in ("paired", "separate"):
        got = figures[kind]
        assert got["tests"] == got["accepted"] == 2 and len(got["games"]) == 2
        assert all(g % 8 == 0 for g in got["games"])  # whole pairs of Trix matches
    assert figures["paired"]["step_mean"] != figures["separate"]["step_mean"]
    text = render_duel(figures)
    assert "paired: accepted 2" in text and "separate runs took" in text
