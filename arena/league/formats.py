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
