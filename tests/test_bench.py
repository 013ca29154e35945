"""`arena bench referee` measures what it prints. Nothing here times anything: the test
checks where each figure comes from, not how big it is (docs/benchmarks.md)."""

from __future__ import annotations

import pytest

from arena.bench import referee as bench


def test_the_referee_bench_floor_sends_the_games_own_requests_to_the_same_bots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    given: list[tuple[list[str], str, str, list[tuple[int, bytes]]]] = []
    real = bench.round_trips

    def spy(addresses, method, transport, messages, warm_up):  # type: ignore[no-untyped-def]
        given.append((addresses, method, transport, messages))
        return real(addresses, method, transport, messages, warm_up)

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
