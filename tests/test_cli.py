"""The `arena` command: help everywhere, play, demo, replay."""

from __future__ import annotations

import json

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from arena.cli import app
from tests.independent.trix_checker import check_replay

runner = CliRunner()


def _all_commands(group, prefix=()):
    for name, command in getattr(group, "commands", {}).items():
        yield (*prefix, name), command
        yield from _all_commands(command, (*prefix, name))


def test_every_command_has_help_text() -> None:
    root = get_command(app)
    assert runner.invoke(app, ["--help"]).exit_code == 0
    commands = list(_all_commands(root))
    assert {c[0][0] for c in commands} >= {"play", "demo", "replay", "bench"}
    for path, command in commands:
        assert (command.help or "").strip(), f"arena {' '.join(path)} has no help"
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, path
        for param in command.params:
            if param.name != "help" and hasattr(param, "help"):
                assert (param.help or "").strip(), f"{path} {param.name} has no help"


def test_play_json_and_replays(tmp_path) -> None:
    result = runner.invoke(
        app,
        ["play", "--game", "trix", "builtin:random", "builtin:random", "builtin:first",
         "builtin:random", "--games", "3", "--seed", "x", "--replays", str(tmp_path),
         "--rules", "kingdoms=1", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [line["seed"] for line in lines] == ["x-1", "x-2", "x-3"]
    assert lines[0]["players"] == ["random", "random#2", "first", "random#3"]
    for line in lines:
        replay = json.loads(open(line["replay"]).read())
        assert replay["totals"] == line["totals"] and replay["ranks"] == line["ranks"]
        assert check_replay(replay) == []


@pytest.mark.parametrize(
    "args, message",
    [
        (["play", "builtin:random"] * 1, "needs 4 bots"),
        (["play", "builtin:nope", "builtin:random", "builtin:random", "builtin:random"],
         "unknown built-in bot"),
        (["play", "--rules", "kingdoms=9"] + ["builtin:first"] * 4, "kingdoms"),
        (["play", "--rules", "oops"] + ["builtin:first"] * 4, "KEY=VALUE"),
        (["play", "--game", "chess"] + ["builtin:first"] * 4, "unknown game"),
    ],
)  # fmt: skip
def test_play_errors_say_what_to_do(args, message) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output


def test_demo_runs_the_demo_league_and_the_heuristic_bot_leads(tmp_path) -> None:
    result = runner.invoke(app, ["demo", "--db", str(tmp_path / "demo.db")])
    assert result.exit_code == 0, result.output
    table = result.output[result.output.index("place") :].splitlines()[2:]
    order = [line.split()[1] for line in table]
    assert len(order) == 5 and order[0] == "greedy"
    assert order.index("greedy") < order.index("random-py")
    assert order.index("greedy") < order.index("random-js")


def test_replay_command_prints_text_and_json(tmp_path) -> None:
    runner.invoke(app, ["play", *["builtin:first"] * 4, "--replays", str(tmp_path)])
    path = tmp_path / "game-0001.json"
    text = runner.invoke(app, ["replay", str(path)])
    assert text.exit_code == 0 and "Deal 20" in text.output
    as_json = runner.invoke(app, ["replay", str(path), "--format", "json"])
    assert json.loads(as_json.output)["format"] == "arena-replay/1"
    missing = runner.invoke(app, ["replay", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "cannot read replay" in missing.output


def test_rules_take_several_pairs() -> None:
    from arena.cli import parse_rules

    assert parse_rules(["doubling=false,kingdoms=1", "tiebreak=king-of-hearts"]) == {
        "doubling": "false", "kingdoms": "1", "tiebreak": "king-of-hearts"
    }  # fmt: skip
    result = runner.invoke(
        app, ["play", *["builtin:first"] * 4, "--rules", "doubling=false kingdoms=1", "--json"]
    )
    assert result.exit_code == 0, result.output
