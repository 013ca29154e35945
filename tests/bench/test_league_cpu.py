"""`arena bench league`'s CPU figures: where each comes from, never how big it is
(docs/benchmarks.md). Nothing here times anything."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bench import league as bench
from arena.wire.v1 import bot_pb2 as pb


def test_the_league_bench_prints_cpu_per_decision_beside_the_transports_and_the_ratio() -> None:
    runs = [
        bench.LeagueRun("league", 8, 4.0, 3.0, 6000, bot_cpu_seconds=0.6, main_cpu_seconds=0.1),
        bench.LeagueRun("league", 8, 4.0, 2.0, 4000, bot_cpu_seconds=0.4, main_cpu_seconds=0.1),
    ]
    transport = bench.TransportCpu(
        round_trips=1000, message_bytes=1100, cpu_seconds=0.25, seconds=0.2
    )
    text = bench.render_league(bench.LeagueBench(runs, transport, "a counter"), 2)
    assert "CPU 500 us per decision (6000 decisions asked)" in text  # 3.0 s / 6000
    assert (  # 5 s, 1 s and 0.2 s over 10,000 decisions
        "CPU 500 us per decision (the bots' own while asked: 100 us; the main process, "
        "store and ratings: 20 us)" in text
    )
    assert "1100 bytes each way" in text and "1000 round trips): 250 us (200 us wall)" in text
    assert "bots kept for the league (a process per entrant and rotation): 2.00x" in text
    assert "CPU counted: a counter" in text
    assert "120 games per minute" in text  # the rate stays


def test_the_run_counter_counts_a_process_started_after_it() -> None:
    """Started after the counter, a child's CPU is on it (in the run's cgroup, where
    one can be made; else on the machine's counters, which count it too); and the
    counter leaves the process where it was."""
    before = Path("/proc/self/cgroup").read_text()
    counter = bench.RunCpu()
    try:
        start = counter.seconds()
        spent = os.times().children_user + os.times().children_system
        subprocess.run(  # a bounded loop of work
            [sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], check=True
        )
        child = os.times().children_user + os.times().children_system - spent
        counted = counter.seconds() - start
    finally:
        counter.close()
    assert child > 0
    assert counted >= 0.9 * child  # clock ticks round the child's own figure
    assert Path("/proc/self/cgroup").read_text() == before
    if "cgroup" in counter.source:
        made = counter.source.split("(")[1].rsplit("/", 1)[0]
        assert not Path(made).exists()  # removed once empty


def test_a_killed_benchs_empty_cgroups_are_swept_and_a_live_ones_kept(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    (tmp_path / f"arena-bench-{dead}" / "arena-bot-x" / "inner").mkdir(parents=True)
    (tmp_path / f"arena-bench-{os.getpid()}").mkdir()  # this process's: alive
    (tmp_path / "other").mkdir()
    bench._sweep_stale(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"arena-bench-{os.getpid()}", "other"]


def test_the_transports_message_is_the_mean_of_the_games_own_decision_messages() -> None:
    messages = bench.decision_messages(kingdoms=1, seed="s")
    parsed = [pb.RefereeMessage.FromString(m) for m in messages]
    assert all(p.WhichOneof("body") == "decision" for p in parsed)
    for seat in range(4):  # each seat's decisions numbered 1, 2, ... as a bot sees them
        ids = [p.decision.decision_id for p in parsed if p.decision.game.seat == seat]
        assert ids == list(range(1, len(ids) + 1))
    assert any(len(p.decision.legal) == 1 for p in parsed)  # forced decisions are asked too
    assert all(p.decision.observation.seat == p.decision.game.seat for p in parsed)
    assert bench.mean_request_bytes(1, "s") == round(sum(map(len, messages)) / len(messages))


@pytest.mark.slow
def test_the_transports_cpu_is_counted_around_its_round_trips_to_four_echo_servers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import arena.bench.referee as referee

    calls: list[tuple[list[str], str, str, list[tuple[int, bytes]]]] = []
    real = referee.round_trips

    def spy(addresses, method, transport, *, messages, warm_up):  # type: ignore[no-untyped-def]
        calls.append((addresses, method, transport, messages))
        readings.append(("sent", len(messages)))
        return real(addresses, method, transport, messages=messages, warm_up=warm_up)

    readings: list[tuple[str, int]] = []

    class Counter:
        source = "a spy"

        def seconds(self) -> float:
            readings.append(("read", 0))
            return float(len(readings))

    monkeypatch.setattr(referee, "round_trips", spy)
    figures = bench.transport_cpu(Counter(), 700, 40)  # type: ignore[arg-type]
    addresses, method, transport, messages = calls[-1]
    assert (method, transport) == ("/arena.bench.Echo/Stream", "stream")
    assert len(set(addresses)) == 4 and len(messages) == 40
    assert [server for server, _ in messages] == [i % 4 for i in range(40)]
    assert {len(message) for _, message in messages} == {700}
    assert readings[-3:] == [("read", 0), ("sent", 40), ("read", 0)]  # just around them
    assert figures.round_trips == 40 and figures.message_bytes == 700
    assert figures.cpu_seconds == 2.0  # the two readings' difference, in this spy's units
