"""The output formats of the commands that print league data, as enums the CLI and
the library share (typer checks a value against them and lists them in --help)."""

from __future__ import annotations

from enum import StrEnum

from wcwidth import wcswidth

from arena.league.definition.names import shows


class TableFormat(StrEnum):
    TEXT = "text"
    MARKDOWN = "markdown"
    CSV = "csv"
    JSON = "json"


class TextOrJson(StrEnum):
    TEXT = "text"
    JSON = "json"


def text_safe(text: str) -> str:
    """`text` for a text table or report line: every control character (newline,
    carriage return, tab, escape sequence) becomes `?`, so a name cannot add a row,
    move the cursor or colour the organiser's terminal. League files refuse such names
    (arena/league/definition/config.py `check_entrant_name`); a database written before that rule,
    or by hand, may still hold one. The joiners of emoji sequences are kept
    (arena/league/definition/names.py)."""
    return "".join(ch if shows(ch) else "?" for ch in text)


def display_width(text: str) -> int:
    """The columns `text` takes in a terminal (wcwidth): 2 for a wide letter or an
    emoji, whether one code point or a joined sequence, 0 for a combining mark; so a
    text table aligns whatever its names are written in."""
    width = wcswidth(text)
    return width if width >= 0 else len(text)  # a character with no width: count it


def pad(text: str, width: int, right: bool = False) -> str:
    """`text` padded with spaces to `width` display columns (on the left with `right`)."""
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill


def markdown_safe(text: str) -> str:
    """`text` for a markdown table cell: control characters as in `text_safe`, and `\\`
    and `|` escaped, so a name can neither end its cell nor escape the next `|`."""
    return text_safe(text).replace("\\", "\\\\").replace("|", "\\|")
