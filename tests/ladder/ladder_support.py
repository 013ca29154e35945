"""What the ladder's tests share: a ladder file of a short game, bot folders to
submit, and the commands as a person types them (through the CLI in process)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app

LADDER = """\
[ladder]
name = "{name}"
game = "trix"
seed = "{seed}"
deal_key = "0123456789abcdef0123456789abcdef"

[rules]
kingdoms = 1

[limits]
move_timeout = 2.0
sandbox = "{sandbox}"

[matchmaking]
placement_matches = {placement}

[gate]
timeout = 120

[promotion]
max_games = {max_games}

[health]
window = 8
max_crash_games = 2

[[house]]
name = "greedy"
bot = "builtin:greedy"

[[house]]
name = "random"
bot = "builtin:random"
{extra}
"""

RANDOM_BOT = '''\
from arena.sdk import Bot, serve


class RandomBot(Bot):
    name = "{name}"

    def act(self, turn):
        return turn.random_index(len(turn.request.legal))


if __name__ == "__main__":
    serve(RandomBot())
'''

GREEDY_BOT = """\
from arena.sdk import serve
from arena.strategies.greedy.bot import GreedyBot

if __name__ == "__main__":
    serve(GreedyBot())
"""

MIXED_BOT = """\
from arena.strategies.mixed import main

if __name__ == "__main__":
    main(["--p", "{p}"])
"""

CRASH_AT_START = """\
raise SystemExit("this bot cannot start")
"""

# Plays well at first (passes the gate's games), then crashes in every game: its
# process exits at its first decision once a file beside the database says so.
CRASHING_LATER = '''\
import os
import sys

from arena.sdk import Bot, serve


class Crashing(Bot):
    name = "crashing"

    def act(self, turn):
        if os.path.exists("{flag}"):
            os._exit(3)
        return 0


if __name__ == "__main__":
    serve(Crashing())
'''


def ladder_file(folder: Path, *, name: str = "spring", seed: str = "s1", sandbox: str = "off",
                placement: int = 2, max_games: int = 40, extra: str = "") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(
        LADDER.format(name=name, seed=seed, sandbox=sandbox, placement=placement,
                      max_games=max_games, extra=extra)
    )
    return path


def bot_folder(folder: Path, name: str, text: str) -> Path:
    """A folder holding `bot.py` with `text`: what an author submits."""
    where = folder / name
    where.mkdir(parents=True, exist_ok=True)
    (where / "bot.py").write_text(text)
    return where


def arena(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run `arena ARGS` in process: exit code, stdout, stderr."""
    result = CliRunner().invoke(app, list(args), env=env or {})
    return result.exit_code, result.stdout, result.stderr


def ok(*args: str, env: dict[str, str] | None = None) -> str:
    code, out, err = arena(*args, env=env)
    assert code == 0, f"arena {' '.join(args)} exited {code}: {out}{err}"
    return out


def versions(db: Path) -> dict[str, dict]:
    return {v["entrant"]: v for v in json.loads(ok("ladder", "versions", "--db", str(db),
                                                   "--format", "json"))}
