"""What the arena prints: machine-readable output that holds only data, tables whose
columns are scalars, names that cannot break a table, and tables that say what they
are (docs/leagues.md, "Tables")."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.config import ENTRANT_NAME_LIMIT, load_league

BUILTIN_LEAGUE = """
[league]
name = "{name}"
game = "{game}"
seed = 3
rounds = {rounds}

[rules]
{rules}

{entrants}
"""

HOSTILE_NAMES = {  # what: (name, what the refusal says)
    "a newline": ("two\nlines", "control character '\\n'"),
    "a carriage return": ("back\rover", "control character '\\r'"),
    "an ANSI escape": ("\x1b[31mred\x1b[0m", "control character '\\x1b'"),
    "a tab": ("tab\there", "control character '\\t'"),
    "a zero-width space": ("zero\u200bwidth", "control character '\\u200b'"),
    "a pipe": ("left|right", "must not hold '|'"),
    "a leading space": (" padded", "must not begin or end with spaces"),
    "a trailing space": ("padded ", "must not begin or end with spaces"),
    "nothing": ("", "must not be empty"),
    "only spaces": ("   ", "must not be empty"),
    "too many characters": ("x" * (ENTRANT_NAME_LIMIT + 1), f"at most {ENTRANT_NAME_LIMIT}"),
}


def entrants_toml(names: list[str], bot: str = "builtin:random") -> str:
    return "\n".join(f'[[entrant]]\nname = {_toml_string(n)}\nbot = "{bot}"\n' for n in names)


def _toml_string(text: str) -> str:
    """A TOML basic string holding `text` exactly (control characters escaped)."""
    out = "".join(
        ch if ch.isprintable() and ch not in '"\\' else f"\\u{ord(ch):04x}" for ch in text
    )
    return f'"{out}"'


def write_builtin_league(
    folder: Path,
    names: list[str],
    name: str = "out",
    game: str = "trix",
    rounds: int = 1,
    rules: str = "kingdoms = 1",
) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(
        BUILTIN_LEAGUE.format(
            name=name, game=game, rounds=rounds, rules=rules, entrants=entrants_toml(names)
        )
    )
    return path


@pytest.mark.parametrize("what", sorted(HOSTILE_NAMES))
def test_a_league_file_refuses_an_entrant_name_that_would_break_a_table(
    tmp_path: Path, what: str
) -> None:
    hostile, problem = HOSTILE_NAMES[what]
    path = write_builtin_league(tmp_path, ["a", hostile, "c", "d"])
    with pytest.raises(ConfigError) as err:
        load_league(path)
    assert str(err.value).startswith(f"{path}: [entrant 2] name "), str(err.value)
    assert problem in str(err.value), str(err.value)


def test_printable_names_of_every_script_are_accepted(tmp_path: Path) -> None:
    names = ["greedy v2", "bot, with comma", 'quote "q"', "خوارزمية", "x" * ENTRANT_NAME_LIMIT]
    config = load_league(write_builtin_league(tmp_path, names))
    assert [e.name for e in config.entrants] == names
