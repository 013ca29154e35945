"""The output formats of the commands that print league data, as enums the CLI and
the library share (typer checks a value against them and lists them in --help)."""

from __future__ import annotations

from enum import StrEnum


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
    or by hand, may still hold one."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def markdown_safe(text: str) -> str:
    """`text` for a markdown table cell: control characters as in `text_safe`, and `\\`
    and `|` escaped, so a name can neither end its cell nor escape the next `|`."""
    return text_safe(text).replace("\\", "\\\\").replace("|", "\\|")
