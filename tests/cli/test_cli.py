"""The `arena` command: help everywhere, play, demo, replay."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

try:
    from typer import rich_utils as typer_rich_utils
except ImportError:  # typer without rich: click formats the help, in plain text
    typer_rich_utils = None

from arena.cli import app
from arena.play.deal_keys import game_seed
from tests.independent.trix_checker import check_replay
from tests.support.bot_processes import live_processes

ROOT = Path(__file__).resolve().parents[2]

runner = CliRunner()


def _all_commands(group, prefix=()):
    for name, command in getattr(group, "commands", {}).items():
        yield (*prefix, name), command
        yield from _all_commands(command, (*prefix, name))


# Help is checked as plain text, whatever renders it: rich draws panels with box-drawing
# characters (U+2500..U+257F) and, when the environment forces a terminal, colours.
BOX_DRAWING = re.compile("[\u2500-\u257f]")
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PANEL_TITLES = {"Arguments", "Options", "Commands"}
HELP_WIDTH = 80


def _help_lines(path: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """`arena PATH --help` at 80 columns as plain lines: no colours, box characters blanked.

    The width is pinned everywhere it can come from: COLUMNS and click's terminal_width,
    and typer's rich console, which reads TERMINAL_WIDTH (and FORCE_COLOR) once at import.
    """
    if typer_rich_utils is not None:
        monkeypatch.setattr(typer_rich_utils, "MAX_WIDTH", HELP_WIDTH, raising=False)
        monkeypatch.setattr(typer_rich_utils, "FORCE_TERMINAL", False, raising=False)
    pinned = CliRunner(env={"COLUMNS": str(HELP_WIDTH), "TERMINAL_WIDTH": str(HELP_WIDTH)})
    result = pinned.invoke(app, [*path, "--help"], terminal_width=HELP_WIDTH)
    assert result.exit_code == 0, (path, result.output)
    return [BOX_DRAWING.sub(" ", ANSI_ESCAPE.sub("", line)) for line in result.output.splitlines()]


def _description(lines: list[str]) -> list[str]:
    """The command's help paragraphs as shown: the lines after the usage line, up to the
    first panel or section (Arguments, Options, Commands), each stripped."""
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("Usage:")) + 1
    shown = []
    for line in lines[start:]:
        if line.strip().rstrip(":") in PANEL_TITLES:
            break
        shown.append(line.strip())
    return shown


def _words(text: str) -> list[str]:
    """The words of a help text as markdown shows them (inline code without backticks)."""
    return text.replace("`", "").split()


@pytest.mark.slow
def test_every_command_has_help_text(monkeypatch) -> None:
    root = get_command(app)
    assert runner.invoke(app, ["--help"]).exit_code == 0
    commands = list(_all_commands(root))
    assert {c[0][0] for c in commands} >= {"play", "demo", "replay", "bench"}
    params_seen = 0
    for path, command in commands:
        assert (command.help or "").strip(), f"arena {' '.join(path)} has no help"
        lines = _help_lines(path, monkeypatch)
        # The help shows the command's whole description ...
        assert _words(" ".join(_description(lines))) == _words(command.help), path
        # ... and lists every option and argument, and a group its commands (an option's
        # other names follow it after a comma: "--margin0,--elo0").
        shown = set(" ".join(lines).replace("...", " ").replace(",", " ").lower().split())
        for param in command.params:
            if param.name != "help" and hasattr(param, "help"):
                assert (param.help or "").strip(), f"{path} {param.name} has no help"
            names = (
                param.opts + param.secondary_opts
                if param.param_type_name == "option"
                else [param.name]
            )
            for name in names:
                assert name.lower() in shown, f"arena {' '.join(path)} --help lacks {name}"
            params_seen += 1
        for name in getattr(command, "commands", {}):
            assert name in shown, f"arena {' '.join(path)} --help lacks its command {name}"
    assert params_seen == sum(len(c.params) for _, c in commands) > 0


@pytest.mark.slow
def test_help_paragraphs_flow_to_the_terminals_width(monkeypatch) -> None:
    """A docstring's own line breaks must not reach the help: at 80 columns they would
    leave ragged half-lines (typer keeps them unless help is markdown)."""
    breaks = 0  # line breaks inside a paragraph: each one is checked below
    needed = 0  # the fewest breaks the descriptions can have at 80 columns
    for path, command in _all_commands(get_command(app)):
        for paragraph in command.help.split("\n\n"):
            length = len(" ".join(_words(paragraph)))
            needed += -(-length // (HELP_WIDTH - 2)) - 1  # lines of at most 78 characters
        lines = _help_lines(path, monkeypatch)
        assert max(map(len, lines)) <= HELP_WIDTH, path  # readable at 80 columns
        paragraphs = "\n".join(_description(lines)).split("\n\n")
        for paragraph in paragraphs:
            shown = paragraph.strip().splitlines()
            for line, following in zip(shown, shown[1:], strict=False):
                room = HELP_WIDTH - 4 - len(line)  # what the next word would have needed
                assert len(following.split()[0]) > room, (path, line)
                breaks += 1
    # Some descriptions do not fit on one line: the loop above did check breaks.
    assert breaks >= needed > 0


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


def test_play_json_keeps_every_faults_details(tmp_path) -> None:
    """Without --replays the JSON line is all a run leaves: it carries the faults whole."""
    illegal = f"python {ROOT / 'tests' / 'bot_scripts' / 'hostile' / 'illegal_bot.py'}"
    result = runner.invoke(
        app,
        ["play", illegal, "builtin:random", "builtin:random", "builtin:random", "--json",
         "--rules", "kingdoms=1", "--logs", str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    line = json.loads(result.output.splitlines()[-1])
    # A hostile bot misbehaves once, at its decision 3 (tests/bot_scripts/hostile/_common.py, AT).
    assert line["faults"] == len(line["fault_details"]) == 1
    assert [f["decision"] for f in line["fault_details"]] == [3]
    assert {f["kind"] for f in line["fault_details"]} == {"illegal"}
    assert all(f["seat"] == 0 and f["detail"] and f["expected"] for f in line["fault_details"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["play", "builtin:random"] * 1, "needs 4 bots"),
        (["play", "builtin:nope", "builtin:random", "builtin:random", "builtin:random"],
         "unknown built-in bot"),
        (["play", "--rules", "kingdoms=9"] + ["builtin:first"] * 4, "kingdoms"),
        (["play", "--rules", "oops"] + ["builtin:first"] * 4, "KEY=VALUE"),
        (["play", "--game", "chess"] + ["builtin:first"] * 4,
         "'chess' is not one of 'trix', 'trianon'"),
    ],
)  # fmt: skip
def test_play_errors_say_what_to_do(args, message) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in plain(result.output)


def plain(output: str) -> str:
    """Output as words: a usage error comes in a box of rich's, wrapped to the
    terminal's width; the words are what the user reads."""
    return " ".join(output.translate(str.maketrans("", "", "│╭╮╰╯─")).split())


def _table_order(output: str) -> list[str]:
    table = output[output.index("\nplace  places") + 1 :].splitlines()[2:]
    return [line.split()[2] for line in table]


@pytest.mark.slow
def test_demo_runs_the_demo_league_and_the_search_bot_leads(tmp_path) -> None:
    """`make demo` runs the repository's demo league (with the JavaScript bot)."""
    league = ROOT / "leagues" / "demo.toml"
    result = runner.invoke(app, ["demo", "--league", str(league), "--db", str(tmp_path / "d.db")])
    assert result.exit_code == 0, result.output
    order = _table_order(result.output)
    assert len(order) == 6 and order[:2] == ["sampler", "greedy"]
    assert order.index("greedy") < order.index("random-py")
    assert order.index("greedy") < order.index("random-js")


SHIPPED_BOTS = {  # the repository's sample bot scripts: the package's module serving each
    "python ../sample_bots/sampler_bot.py": "python -m arena.strategies.sampler",
    "python ../sample_bots/greedy_bot.py": "python -m arena.strategies.greedy",
    "python ../sample_bots/random_bot.py": "python -m arena.strategies.uniform",
}


def test_the_shipped_demo_league_is_the_repositorys_with_the_packages_bots() -> None:
    """`arena demo` plays the league the package ships (the installed package's test
    plays its bots); `make demo` plays leagues/demo.toml, whose table the test above
    checks. They are the same league: the same settings and entrants, each script of
    sample_bots/ replaced by the package's module of the same bot, and the JavaScript
    bot by the mixed one (an installed arena has no Node)."""
    import tomllib

    from arena.league.definition.config import load_league
    from arena.league.definition.demo import DEMO_LEAGUE

    shipped = tomllib.loads(DEMO_LEAGUE.read_text())
    repository = tomllib.loads((ROOT / "leagues" / "demo.toml").read_text())
    for entrant in repository["entrant"]:
        script, _, arguments = entrant["bot"].partition(".py")
        if entrant["name"] == "random-js":
            entrant.update(name="mixed-0.5", bot="python -m arena.strategies.mixed --p 0.5")
        elif script.startswith("python ../sample_bots/"):
            entrant["bot"] = SHIPPED_BOTS[script + ".py"] + arguments
    assert shipped == repository
    assert [e.name for e in load_league(DEMO_LEAGUE).entrants][:2] == ["sampler", "greedy"]


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
    from arena.cli.play import parse_rules

    assert parse_rules(["doubling=false,kingdoms=1", "tiebreak=king-of-hearts"]) == {
        "doubling": "false", "kingdoms": "1", "tiebreak": "king-of-hearts"
    }  # fmt: skip
    result = runner.invoke(
        app, ["play", *["builtin:first"] * 4, "--rules", "doubling=false kingdoms=1", "--json"]
    )
    assert result.exit_code == 0, result.output


@pytest.mark.slow
def test_sigterm_ends_every_bot_the_command_started(tmp_path) -> None:
    """`arena play` killed with SIGTERM (a service manager, `kill`) ends its bots the way
    Ctrl-C does, even without the sandbox, whose bots would otherwise outlive it."""
    folder = tmp_path / "bots"
    folder.mkdir()
    bot = folder / "sigterm_random_bot.py"
    bot.write_text((ROOT / "sample_bots" / "random_bot.py").read_text())
    command = [sys.executable, "-m", "arena.cli", "play", f"python {bot}", "builtin:random",
               "builtin:random", "builtin:random", "--games", "500", "--sandbox", "off",
               "--logs", str(tmp_path / "logs")]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _processes_of(bot, process.pid):
            time.sleep(0.1)
        assert _processes_of(bot, process.pid), "the bot did not start"
        process.terminate()  # SIGTERM to the arena alone, not to its process group
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    assert b"interrupted" in err and b"Traceback" not in err, err
    for _ in range(100):
        if not _processes_of(bot, process.pid):
            break
        time.sleep(0.1)
    assert _processes_of(bot, process.pid) == []


def _processes_of(bot: Path, arena: int = 0) -> list[int]:
    """Processes running `bot` (the arena's own command line names it too: not counted)."""
    return [p.pid for p in live_processes() if str(bot).encode() in p.cmdline and p.pid != arena]


@pytest.mark.parametrize(
    "command", [["table"], ["games"], ["faults"], ["compare", "a", "b"], ["replay", "1"]]
)
def test_a_missing_database_points_to_the_one_arena_run_wrote(
    tmp_path, monkeypatch, command
) -> None:
    """`arena run leagues/demo.toml` writes leagues/arena.db; the other commands read
    ./arena.db by default, so their error says where `arena run` keeps it."""
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, command)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "beside the league file" in result.output and "did you mean" not in result.output
    (tmp_path / "leagues").mkdir()
    (tmp_path / "leagues" / "arena.db").write_bytes(b"")
    result = runner.invoke(app, command)
    assert result.exit_code == 2
    assert "did you mean --db leagues/arena.db?" in result.output, result.output
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "arena.db").write_bytes(b"")
    result = runner.invoke(app, command)  # two candidates: no guess
    assert result.exit_code == 2 and "did you mean" not in result.output


BUILTIN_LEAGUE = """
[league]
name = "b"
game = "trix"
deal_key = "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0"

[rules]
kingdoms = 1
"""


def builtin_league(folder: Path, league: str = "", bots: tuple[str, ...] = ()) -> Path:
    """A league file of four built-in entrants (`bots` replaces the first ones' specs);
    `league` adds lines to its [league] table."""
    specs = [*bots, *["builtin:random"] * (4 - len(bots))]
    text = BUILTIN_LEAGUE.replace('game = "trix"', f'game = "trix"\n{league}')
    for i, spec in enumerate(specs):
        text += f'\n[[entrant]]\nname = "e{i}"\nbot = "{spec}"\n'
    path = folder / "b.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "command",
    [["table"], ["games"], ["faults"], ["compare", "a", "b"], ["replay", "1"], ["run", "L"]],
)
def test_a_file_that_is_not_a_database_is_an_error_not_a_traceback(tmp_path, command) -> None:
    bad = tmp_path / "notes.db"
    bad.write_text("not a database\n" * 100)
    command = [str(builtin_league(tmp_path)) if c == "L" else c for c in command]
    result = runner.invoke(app, [*command, "--db", str(bad)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and "is not a league database" in result.output
    assert bad.read_text() == "not a database\n" * 100


def test_another_programs_sqlite_database_is_refused_and_left_unchanged(tmp_path) -> None:
    import sqlite3

    other = tmp_path / "shop.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT)")
    before = other.read_bytes()
    result = runner.invoke(app, ["table", "--db", str(other)])
    assert result.exit_code == 2, result.output
    assert "not a league database" in result.output and "orders" in result.output
    assert other.read_bytes() == before  # no league tables added, no WAL switch


def test_replays_naming_a_file_is_refused_before_any_game(tmp_path) -> None:
    target = tmp_path / "out.json"
    target.write_text("{}")
    result = runner.invoke(app, ["play", *["builtin:first"] * 4, "--replays", str(target)])
    assert result.exit_code == 2 and result.output.startswith("error: "), result.output
    assert "is a file, not a folder" in result.output and "seed" not in result.output
    assert target.read_text() == "{}"


@pytest.mark.slow
def test_replay_of_json_that_is_not_a_replay_is_an_error_line(tmp_path) -> None:
    runner.invoke(app, ["play", *["builtin:first"] * 4, "--replays", str(tmp_path)])
    good = json.loads((tmp_path / "game-0001.json").read_text())
    cases = {
        "empty.json": ({}, '"format" is missing'),
        "list.json": ([1, 2], "JSON list"),
        "chess.json": ({**good, "game": "chess"}, "'chess' is not one of trix, trianon"),
        "cut.json": ({k: v for k, v in good.items() if k != "players"}, "'players'"),
        "deal.json": ({**good, "deals": [{}]}, "not a readable"),
    }
    for name, (data, message) in cases.items():
        (tmp_path / name).write_text(json.dumps(data))
        for fmt in ("text", "json"):
            result = runner.invoke(app, ["replay", str(tmp_path / name), "--format", fmt])
            if name == "deal.json" and fmt == "json":
                continue  # JSON output only re-prints the document
            assert result.exit_code == 2, (name, fmt, result.output)
            assert result.output.startswith("error: ") and message in result.output, result.output


def test_run_refuses_an_unknown_table_format_before_running(tmp_path) -> None:
    league = builtin_league(tmp_path)
    result = runner.invoke(app, ["run", str(league), "--format", "xml"])
    assert result.exit_code == 2, result.output
    assert "'xml' is not one of 'text', 'markdown', 'csv', 'json'" in plain(result.output)
    assert not (tmp_path / "arena.db").exists()


def test_games_and_matches_together_are_refused() -> None:
    bots = ["builtin:first"] * 4
    result = runner.invoke(app, ["play", *bots, "--matches", "2", "--games", "5"])
    assert result.exit_code == 2 and result.output.startswith("error: "), result.output
    assert "--games 5 and --matches 2 do not go together" in result.output
    assert "give one of them" in result.output
    alone = runner.invoke(app, ["play", *bots, "--matches", "1", "--json"])
    assert alone.exit_code == 0 and len(alone.output.splitlines()) == 4


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["builtin:random", " builtin:first"])
def test_check_bot_refuses_a_builtin_bot(spec) -> None:
    result = runner.invoke(app, ["check-bot", spec])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: check-bot checks external bots")
    assert "verdict" not in result.output


def test_a_failed_demo_leaves_no_temporary_folder(tmp_path, monkeypatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = runner.invoke(app, ["demo", "--league", str(tmp_path / "missing.toml")])
    assert result.exit_code == 2 and "no such league file" in result.output, result.output
    assert list(tmp_path.glob("arena-demo-*")) == []


def test_the_command_loads_no_grpc_storage_or_ratings_until_a_command_needs_them() -> None:
    """`arena --help`, `table` and `replay` start sooner without grpc (0.15 s), and the
    read-only commands without gRPC at all: every command module imports its heavy
    library inside the command."""
    code = (
        "import sys, arena.cli; "
        "print(sorted(m for m in ('grpc', 'sqlite_utils', 'trueskill') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_replays_of_two_runs_into_one_folder_are_both_kept(tmp_path) -> None:
    """A second `arena play --replays DIR` numbers on after the first run's files."""
    folder = tmp_path / "replays"
    bots = ["builtin:random"] * 4
    key = ["--deal-key", "ab" * 16]
    first = runner.invoke(app, ["play", *bots, "--games", "2", "--replays", str(folder), "--json",
                                *key])  # fmt: skip
    again = runner.invoke(app, ["play", *bots, "--games", "2", "--seed", "9", "--replays",
                                str(folder), "--json", *key])  # fmt: skip
    assert first.exit_code == 0 and again.exit_code == 0, first.output + again.output
    paths = [json.loads(line)["replay"] for line in first.output.splitlines()]
    paths += [json.loads(line)["replay"] for line in again.output.splitlines()]
    assert [Path(p).name for p in paths] == [f"game-000{i}.json" for i in (1, 2, 3, 4)]
    seeds = [json.loads(Path(p).read_text())["seed"] for p in paths]
    public = ["1-1", "1-2", "9-1", "9-2"]  # the first run's files are unchanged
    assert seeds == [game_seed("ab" * 16, seed) for seed in public]
    assert sorted(p.name for p in folder.iterdir()) == [Path(p).name for p in paths]


def test_a_replay_that_cannot_be_written_leaves_no_temporary_file(tmp_path, monkeypatch) -> None:
    """A full disk mid-write: an error line, and neither the replay nor its temporary file."""
    from arena.play import replays

    real = Path.write_text

    def full(self, data, *args, **kwargs):  # type: ignore[no-untyped-def]
        real(self, data[:10], *args, **kwargs)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(replays.Path, "write_text", full)
    folder = tmp_path / "replays"
    result = runner.invoke(app, ["play", *["builtin:random"] * 4, "--replays", str(folder)])
    assert result.exit_code == 2 and result.output.startswith("error: cannot write the replay")
    assert "No space left on device" in result.output
    assert list(folder.iterdir()) == []
