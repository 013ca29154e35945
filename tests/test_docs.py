"""The README and docs/: links resolve, examples are what the arena really does, and
every command shown exists."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cards import codes_of
from arena.cli import app
from arena.games import trianon, trix
from arena.league.definition.config import LEAGUE_KEYS, LIMIT_KEYS, RATING_KEYS, load_league
from tests.support.doc_examples import examples

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]

runner = CliRunner()

FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
INLINE_CODE = re.compile(r"`[^`\n]+`")


def _prose(text: str) -> str:
    """Markdown without its fenced blocks and inline code, where links are not links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings: lower case, punctuation dropped,
    spaces made hyphens."""
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", FENCE.sub("", page.read_text()), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


def _links() -> list[tuple[Path, str]]:
    return [(page, target) for page in PAGES for target in LINK.findall(_prose(page.read_text()))]


def test_the_docs_pages_are_there() -> None:
    names = {p.name for p in DOCS.glob("*.md")}
    assert names >= {
        "bots.md", "protocol.md", "faults.md", "sandbox.md", "leagues.md", "ratings.md",
        "replays.md", "benchmarks.md", "architecture.md",
    }  # fmt: skip
    assert len(_links()) > 50  # the link check below finds links at all


def test_readme_is_under_200_lines() -> None:
    assert len(README.read_text().splitlines()) < 200


def test_every_relative_link_resolves() -> None:
    """Every link of README.md and docs/**/*.md that is not a web address names a file of
    the repository, and its #anchor (if any) a heading of that file."""
    problems = []
    for page, target in _links():
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        file = (page.parent / path_part).resolve() if path_part else page
        if ROOT not in file.parents and file != ROOT:
            problems.append(f"{page.name}: {target} points outside the repository")
        elif not file.exists():
            problems.append(f"{page.name}: {target} does not exist")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            problems.append(f"{page.name}: {target}: no heading makes #{anchor}")
    assert not problems, "\n".join(problems)


def test_the_bot_examples_are_what_the_referee_sends() -> None:
    """docs/bots.md's example turns equal those tests/support/doc_examples.py captures now from
    real games (`python -m tests.support.doc_examples` prints them afresh)."""
    text = (DOCS / "bots.md").read_text()
    shown = {
        name: json.loads(block)
        for name, block in re.findall(r"<!-- example: (.+?) -->\n```json\n(.*?)```", text, re.S)
    }
    captured = examples()
    assert sorted(shown) == sorted(captured)
    for name, value in captured.items():
        assert shown[name] == value, f"docs/bots.md example {name!r} is out of date"


def _readme_commands() -> list[list[str]]:
    """The `arena ...` commands of the README: lines of its code blocks, and inline code."""
    text = README.read_text()
    lines = [line for block in _blocks(text, r"\w*") for line in block.splitlines()]
    lines += [code.strip("`") for code in INLINE_CODE.findall(FENCE.sub("", text))]
    commands = []
    for line in lines:
        words = line.split()
        if len(words) >= 2 and words[0] == "arena":
            commands.append(words[1:3] if words[1] == "bench" else words[1:2])
    return commands


def test_every_command_in_the_readme_exists() -> None:
    commands = _readme_commands()
    assert {c[0] for c in commands} >= {"play", "check-bot", "run", "table", "faults", "replay"}
    for command in commands:
        result = runner.invoke(app, [*command, "--help"])
        assert result.exit_code == 0, f"arena {' '.join(command)}: {result.output}"


def test_the_replay_example_is_what_the_play_command_writes(tmp_path) -> None:
    """docs/replays.md's replay example is game 1 of the `arena play` command it shows
    (shortened with "..." strings, so the block is still JSON)."""
    page = (DOCS / "replays.md").read_text()
    section = page[page.index("## The format") :]
    example = json.loads(_blocks(section, "json")[0])
    command = _blocks(section, "sh")[0]
    args = command.replace("\\\n", " ").split()[1:]
    args[args.index("--games") + 1] = "1"
    args[args.index("--replays") + 1] = str(tmp_path)
    assert runner.invoke(app, args).exit_code == 0
    replay = json.loads((tmp_path / "game-0001.json").read_text())
    for key in ("format", "game", "options", "seed", "players", "totals", "ranks", "faults"):
        assert example[key] == replay[key], key
    shown, deal = example["deals"][0], replay["deals"][0]
    assert {k: shown[k] for k in ("number", "king", "scores")} == {
        k: deal[k] for k in ("number", "king", "scores")
    }
    assert shown["events"][:-1] == deal["events"][: len(shown["events"]) - 1]
    assert shown["hands"][0][:-1] == deal["hands"][0][: len(shown["hands"][0]) - 1]


def _deal(game: str, seed: str, index: int, deck: list[str], hand: int) -> list[list[str]]:
    """A deal as docs/replays.md defines it, written from the page alone."""
    digest = hashlib.shake_256(f"{game}/{seed}/{index}".encode()).digest(4 * len(deck))
    keys = sorted(
        (int.from_bytes(digest[4 * i : 4 * i + 4], "big") >> 8, i) for i in range(len(deck))
    )
    order = [position for _, position in keys]
    seats = len(deck) // hand
    return [sorted(deck[p] for p in order[hand * s : hand * (s + 1)]) for s in range(seats)]


@pytest.mark.parametrize("seed", ["7-1", "demo/3", "x"])
def test_the_deal_definition_is_the_engines(seed) -> None:
    ranks = "23456789TJQKA"
    deck = [rank + suit for suit in "CDHS" for rank in ranks]
    short = [rank + suit for suit in "CDHS" for rank in ranks[4:]]
    for index in range(3):
        engine = [sorted(codes_of(h)) for h in trix.deal_hands(seed, index)]
        assert _deal("trix", seed, index, deck, 13) == engine
        engine = [sorted(codes_of(h)) for h in trianon.deal_hands(seed, index)]
        assert _deal("trianon", seed, index, short, 12) == engine


def test_the_league_file_examples_load(tmp_path) -> None:
    """Every league file shown in the README and docs/leagues.md is accepted, and the
    full example in docs/leagues.md shows every key there is (those of the other
    schedules commented out, since a key the schedule does not read is refused)."""
    shown = {page: _blocks(page.read_text(), "toml") for page in (README, DOCS / "leagues.md")}
    assert all(shown.values())
    for page, blocks in shown.items():
        for i, block in enumerate(blocks):
            path = tmp_path / f"{page.stem}-{i}.toml"
            path.write_text(block)
            load_league(path)
    full = shown[DOCS / "leagues.md"][0]
    keys = set(re.findall(r"^(?:# )?(\w+) =", full, re.M))  # commented: other schedules
    assert keys >= LEAGUE_KEYS | LIMIT_KEYS | RATING_KEYS | {"name", "bot"}
    assert keys >= {"doubling", "kingdoms", "tiebreak", "first_king_card", "partners"}


def test_the_leagues_page_names_every_league_file() -> None:
    page = (DOCS / "leagues.md").read_text()
    for league in (ROOT / "leagues").glob("*.toml"):
        assert f"leagues/{league.name}" in page, league.name


def test_the_readme_fault_example_is_what_arena_play_prints(tmp_path, monkeypatch) -> None:
    """The README's fault example: its first line is the command (run from the
    repository's folder), the rest its output."""
    monkeypatch.chdir(ROOT)
    block = _blocks(README.read_text(), "text")[0].splitlines()
    assert block[0].startswith("$ arena play ")
    argv = shlex.split(block[0].removeprefix("$ arena "))
    logs = ["--logs", str(tmp_path / "logs")]
    result = runner.invoke(app, [*argv, "--sandbox", "off", *logs], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    run_folder = next((tmp_path / "logs").iterdir())  # logs/run-DATE-TIME-PID/
    assert re.fullmatch(r"run-\d{8}-\d{6}-\d+", run_folder.name), run_folder.name
    output = result.output.replace(f"{tmp_path / 'logs'}/", "arena-logs/")  # the default
    shown = "arena-logs/run-20261201-101500-4242/"  # the README's example of a run's folder
    output = output.replace(f"arena-logs/{run_folder.name}/", shown)
    printed = [line for line in output.splitlines() if not line.startswith("the sandbox")]
    assert printed == block[1:]


def test_the_readme_bot_is_a_clean_bot(tmp_path) -> None:
    """The README's ten-line bot passes `arena check-bot`."""
    (tmp_path / "my_bot.py").write_text(_blocks(README.read_text(), "python")[0])
    result = runner.invoke(
        app,
        ["check-bot", f"python {tmp_path / 'my_bot.py'}", "--sandbox", "off",
         "--logs", str(tmp_path / "logs")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "name 'lowest'" in result.output and "verdict: PASS" in result.output
    assert "(plays as 'my_bot')" in result.output  # the name comes from the spec, not the bot
