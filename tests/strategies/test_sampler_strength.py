"""`arena.bench.strength`: the measurement runs and reports what it says,
on a tiny scale (two short Trianon matches, one sampled deal per decision)."""

from __future__ import annotations

import pytest

from arena.bench.strength import measure_strength
from arena.strategies.sampler.__main__ import main


def test_strength_reports_margins_intervals_think_time_and_declarations() -> None:
    rows = measure_strength(
        "trianon",
        matches=2,
        seed="tiny",
        samples=1,
        budget_ms=5000,
        time_ms=0,
        options={"target": 60},
    )
    assert [(r.name, r.opponents) for r in rows] == [
        ("sampler[1 samples]", "greedy"),
        ("greedy", "random"),
    ]
    for row in rows:
        assert row.matches == 2 and row.margin.n == 2 and len(row.margins) == 2
        assert row.margin.low <= row.margin.mean <= row.margin.high
        assert row.decisions > 0 and 0 < row.think_ms <= row.max_think_ms
        assert row.faults == 0
        assert 0 <= row.made <= row.declared <= row.deals
        assert set(row.as_dict()) >= {"margin", "margin_ci", "think_ms", "declared", "made"}
    again = measure_strength(
        "trianon",
        2,
        seed="tiny",
        samples=1,
        budget_ms=5000,
        time_ms=0,
        options={"target": 60},
        yardstick=False,
    )
    assert again[0].margins == rows[0].margins  # fixed work: the measurement repeats


def test_the_command_refuses_a_budget_that_is_not_positive() -> None:
    for argv in (["--budget-ms", "0"], ["--samples", "0"]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2


@pytest.mark.slow
def test_arena_bench_strength_prints_each_margin_with_its_interval_and_think_time() -> None:
    from typer.testing import CliRunner

    from arena.cli import app

    result = CliRunner().invoke(
        app,
        [
            "bench",
            "strength",
            "--game",
            "trix",
            "--matches",
            "2",
            "--samples",
            "1",
            "--budget-ms",
            "5000",
        ],
    )
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("trix: ")]
    assert [line.split(":")[1].strip() for line in lines] == [
        "sampler[1 samples] against greedy",
        "greedy against random",
    ]
    for line in lines:
        assert "a game, 95% interval [" in line and "2 matches (seeds strength-0" in line
        assert "ms a decision" in line and "0 faults" in line
