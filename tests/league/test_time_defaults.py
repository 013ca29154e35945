"""Issue 27, the per-game budget paragraph and finding 16: a default game_time (120 s,
from the measurement docs/leagues.md "Time limits" shows) in league files, `arena
play` and the settings alike; and docs/cluster.md saying that bots thinking for a fixed
time do not replay alike on a cluster."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from arena.bots.remote.settings import DEFAULT_GAME_TIME, RemoteSettings
from arena.cli import app
from arena.league.definition.config import load_league
from tests.support.tiny_league import tiny_file

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_default_game_time_is_120_s_everywhere(tmp_path: Path) -> None:
    assert DEFAULT_GAME_TIME == 120.0 and RemoteSettings().game_time == DEFAULT_GAME_TIME
    assert load_league(tiny_file(tmp_path)).limits.game_time == DEFAULT_GAME_TIME
    shown = CliRunner().invoke(app, ["play", "--help"], terminal_width=200).output
    assert re.search(r"--game-time .*\[default: 120", shown.replace("\n", " "))


def test_the_default_is_documented_with_its_measurements() -> None:
    text = (DOCS / "leagues.md").read_text()
    section = text.split("### Time limits", 1)[1].split("\n### ", 1)[0]
    assert "game_time` (default **120 s**)" in section
    for bot in ("sampler", "greedy", "random", "JavaScript"):
        assert re.search(rf"\| {bot}.*\| \d+, \d+ \| [\d.]+ s, [\d.]+ s \|", section), bot
    assert "0.05 s" in section  # the move_timeout floor, finding 8


def test_finding_16_cluster_docs_say_fixed_time_bots_differ() -> None:
    text = (DOCS / "cluster.md").read_text()
    assert "fixed **time**" in text and "builtin:sampler:50" in text
    assert "all 52 games" in text
