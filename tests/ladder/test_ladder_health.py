"""No false positive: the sample bots (Python random, greedy, mixed and sampler, the
JavaScript bot) and the built-in bots, submitted to a ladder with the default
`[health]`, play without a fault and none is suspended; and a suspended version stops
playing (its author's new version is the way back)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.ladder.ladder_support import ladder_file, ok

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
SUBMISSIONS = {  # author: (bot, folder to copy, command)
    "ann": ("random-py", "random_bot.py", "python random_bot.py"),
    "bo": ("greedy-py", "greedy_bot.py", "python greedy_bot.py"),
    "cy": ("mixed-py", "mixed_bot.py", "python mixed_bot.py --p 0.6"),
    "dee": ("sampler-py", "sampler_bot.py", "python sampler_bot.py --samples 10"),
    "eve": ("js", "js_bot", "node bot.js"),
}
HOUSE = """
[[house]]
name = "first"
bot = "builtin:first"

[[house]]
name = "sampler"
bot = "builtin:sampler:50"  # 50 ms a decision: the same bot, a quarter of the default's wait
"""


def test_sample_and_builtin_bots_are_never_suspended_by_the_defaults(tmp_path: Path) -> None:
    path = ladder_file(tmp_path, extra=HOUSE, sandbox="on")  # as a ladder runs by default
    text = path.read_text().replace("window = 8\nmax_crash_games = 2\n", "")
    path.write_text(text.replace("move_timeout = 2.0", "move_timeout = 1.0"))  # the default
    ok("ladder", "init", str(path))
    db = tmp_path / "arena.db"
    for author, (bot, source, command) in SUBMISSIONS.items():
        token = ok("ladder", "author", "add", author, "--db", str(db)).strip()
        folder = tmp_path / "uploads" / bot
        if (SAMPLES / source).is_dir():
            shutil.copytree(SAMPLES / source, folder)
        else:
            folder.mkdir(parents=True)
            shutil.copy(SAMPLES / source, folder / source)
        ok("ladder", "submit", bot, str(folder), "--command", command, "--db", str(db),
           env={"ARENA_TOKEN": token})
    ok("ladder", "run", "--db", str(db), "--workers", "2", "--matches", "12")
    versions = json.loads(ok("ladder", "versions", "--db", str(db), "--format", "json"))
    assert {v["state"] for v in versions} == {"active"}, [
        (v["entrant"], v["state"], v["reason"]) for v in versions if v["state"] != "active"
    ]
    assert sum(v["games"] for v in versions) == 12 * 4 * 4
    assert all(v["faults"] == 0 for v in versions), [(v["entrant"], v["faults"]) for v in versions]
    assert all(v["games"] > 0 for v in versions)
