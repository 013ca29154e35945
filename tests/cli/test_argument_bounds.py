"""Issue 27 finding 7, "every id and path argument bounded": counts and paths of any
size are refused with a usage line or an `error:` line, never a traceback or a run
without end."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from tests.support.tiny_league import tiny_file

runner = CliRunner()
BUILTINS = ["builtin:random", "builtin:first"] * 2


def test_finding_7_run_bounds_its_workers(tmp_path: Path) -> None:
    league = tiny_file(tmp_path)
    result = runner.invoke(app, ["run", str(league), "--workers", "99999999999999"])
    assert result.exit_code == 2 and "less than or equal to 1024" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "arena.db").exists()


@pytest.mark.parametrize(
    ("option", "value", "bound"),
    [("--games", "99999999999999999999", "1000000"), ("--matches", "100001", "100000")],
)
def test_finding_7_play_bounds_its_counts(option: str, value: str, bound: str) -> None:
    result = runner.invoke(app, ["play", *BUILTINS, option, value])
    assert result.exit_code == 2 and f"less than or equal to {bound}" in result.output


@pytest.mark.parametrize(
    "argv",
    [
        ["table", "--db", "x" * 5000],
        ["table", "--db", "d/" + "é" * 200],
        ["upgrade", "--db", "y" * 300],
    ],
)
def test_finding_7_paths_too_long_for_the_system_are_error_lines(argv: list[str]) -> None:
    result = runner.invoke(app, argv)
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: --db: ") and "Traceback" not in result.output


def test_finding_7_a_nul_byte_in_a_path_is_a_usage_error() -> None:
    result = runner.invoke(app, ["games", "--db", "a\x00b"])
    assert result.exit_code == 2 and "null byte" in result.output
    assert "Traceback" not in result.output
