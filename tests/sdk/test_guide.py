"""docs/guide.md is true: each step's code block is the very file in sample_bots/guide/,
the first step is the README's ten-line bot, and every step's file plays whole games of
both games with no fault, in the referee's process and as a sandboxed program (issue 32,
point 3)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from arena.bots.check import check_bot
from arena.bots.confinement.sandbox import Sandbox
from arena.bots.local import SdkPlayer
from arena.games import get_game
from arena.play.referee import play_game
from arena.sdk import Bot
from tests.support.recorded_games import RandomBot

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide.md"
STEPS = ROOT / "sample_bots" / "guide"
STEP_FILES = sorted(p.name for p in STEPS.glob("step*.py"))

# A file's block: a marker naming the file, then the fenced block.
FILE_BLOCK = re.compile(r"<!-- file: (\S+) -->\n```python\n(.*?)^```", re.S | re.M)


def guide_blocks() -> dict[str, str]:
    """The guide's code blocks that stand for files, by the file's path."""
    return {path: code for path, code in FILE_BLOCK.findall(GUIDE.read_text())}


def test_every_step_file_is_a_block_of_the_guide_word_for_word() -> None:
    blocks = guide_blocks()
    assert len(STEP_FILES) == 5
    assert set(blocks) == {f"sample_bots/guide/{name}" for name in STEP_FILES}
    for path, code in blocks.items():
        assert code == (ROOT / path).read_text(), f"docs/guide.md's block of {path} differs"


def test_the_first_step_is_the_readme_bot_with_one_line_for_trianon() -> None:
    readme = (ROOT / "README.md").read_text()
    readme_bot = re.search(r"save this as `my_bot.py`:\n\n```python\n(.*?)^```", readme,
                           re.S | re.M | re.I).group(1)  # fmt: skip
    step1 = (STEPS / "step1_lowest.py").read_text().splitlines()
    extra = [line for line in step1 if line not in readme_bot.splitlines()]
    assert [line.strip() for line in extra] == [
        'games = ("trix", "trianon")  # the README\'s bot plays Trix alone'
    ]
    assert [line for line in step1 if line not in extra] == readme_bot.splitlines()


def test_the_guide_is_linked_from_the_readme_and_names_its_measurements() -> None:
    assert "](docs/guide.md)" in (ROOT / "README.md").read_text()
    text = GUIDE.read_text()
    for name in STEP_FILES:  # each step's duel command is printed, to be repeated
        assert f'arena duel "python sample_bots/guide/{name}" builtin:greedy' in text


def load_step(name: str, monkeypatch) -> type[Bot]:
    """The step's Bot class, its file imported as the program would run it (its own
    folder on the path, for the steps that import an earlier one)."""
    monkeypatch.syspath_prepend(str(STEPS))
    spec = importlib.util.spec_from_file_location(f"guide_{name[:-3]}", STEPS / name)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    bots = [v for v in vars(module).values()
            if isinstance(v, type) and issubclass(v, Bot) and v is not Bot]  # fmt: skip
    assert len(bots) == 1, name
    return bots[0]


@pytest.mark.slow
@pytest.mark.parametrize("game_name", ["trix", "trianon"])
@pytest.mark.parametrize("name", STEP_FILES)
def test_each_step_plays_whole_games_with_no_fault(name, game_name, monkeypatch) -> None:
    """Through the real wire encoding, in the referee's process: an illegal answer or an
    exception would be a fault (and the referee's fallback played instead)."""
    bot = load_step(name, monkeypatch)
    assert game_name in bot.games
    game = get_game(game_name)
    players = [SdkPlayer(bot())] + [SdkPlayer(RandomBot()) for _ in range(game.seats - 1)]
    result = play_game(game, players, f"guide-{name}-{game_name}", game.parse_options({}))
    assert result.replay["faults"] == []
    assert len(result.replay["deals"]) >= (20 if game_name == "trix" else 2)
    assert all(record["scores"] is not None for record in result.replay["deals"])


@pytest.mark.slow
@pytest.mark.parametrize("game", ["trix", "trianon"])
@pytest.mark.parametrize("name", ["step1_lowest.py", "step4_margin.py", "step5_fast.py"])
def test_the_step_files_pass_check_bot_in_the_sandbox(tmp_path, name, game) -> None:
    """As the guide runs them: `python sample_bots/guide/STEP.py`, confined (step 4
    imports step 2 from its own folder, which the sandbox lets it read)."""
    report = check_bot(f"python {STEPS / name}", game, log_dir=tmp_path, sandbox=Sandbox())
    assert report.clean, "\n".join(report.lines())
    assert report.decisions >= 10
