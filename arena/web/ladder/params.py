"""The query parameters of the ladder site's lists, read and bounded before anything is
looked up: a value that cannot be right (a limit of a million, a cursor of 5,000
digits, a time that is no time, a name longer than any name, a parameter given twice
or not known) is `BadRequest`, which the server answers with 400 and one line saying
what to send instead, never with a 500."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from arena.errors import ArenaError

LIMIT_DEFAULT = 50
LIMIT_MAX = 500  # items a page at most: a bounded answer however large the ladder
NAME_MAX = 200  # characters: longer than any bot name (64) with its version
CURSOR_DIGITS = 18  # always fits SQLite's integer, like the site's ids
LATEST = 1e11  # Unix seconds (year 5138): a time past it is a mistake, not a date


class BadRequest(ArenaError):
    """A query parameter the site refuses (answered 400 with its message)."""


@dataclass(frozen=True)
class Query:
    """A request's query parameters, each given at most once, none unknown."""

    values: Mapping[str, str]

    @classmethod
    def of(cls, items: Sequence[tuple[str, str]], known: Collection[str]) -> Query:
        values: dict[str, str] = {}
        for key, value in items:
            if key not in known:
                raise BadRequest(
                    f"unknown parameter {key[:40]!r}: this address takes "
                    + (", ".join(sorted(known)) or "no parameter")
                )
            if key in values:
                raise BadRequest(f"give {key} once")
            values[key] = value
        return cls(values)

    def text(self, key: str) -> str | None:
        """A name: printable, at most NAME_MAX characters; None when not given or empty."""
        value = self.values.get(key)
        if value is None or value == "":
            return None
        if len(value) > NAME_MAX:
            raise BadRequest(f"{key} is at most {NAME_MAX} characters; it has {len(value)}")
        if not value.isprintable():
            raise BadRequest(f"{key} must be printable text")
        return value

    def limit(self) -> int:
        value = self.values.get("limit")
        if value is None or value == "":
            return LIMIT_DEFAULT
        if (
            not (value.isascii() and value.isdigit())
            or len(value) > 4
            or not 1 <= int(value) <= LIMIT_MAX
        ):
            raise BadRequest(f"limit is a whole number from 1 to {LIMIT_MAX}")
        return int(value)

    def cursor(self) -> int | None:
        """The `next_cursor` of the page before (None: the first page)."""
        value = self.values.get("cursor")
        if value is None or value == "":
            return None
        if not (value.isascii() and value.isdigit()) or len(value) > CURSOR_DIGITS:
            raise BadRequest(
                "cursor is the next_cursor of the page before (at most "
                f"{CURSOR_DIGITS} digits); leave it out for the first page"
            )
        return int(value)

    def time(self, key: str) -> float | None:
        """A time as Unix seconds or an ISO 8601 date and time (UTC unless it says)."""
        value = self.values.get(key)
        if value is None or value == "":
            return None
        problem = (
            f"{key} is a time: Unix seconds (1765000000) or ISO 8601 "
            "(2026-12-07 or 2026-12-07T05:00:00Z)"
        )
        if len(value) > 40:
            raise BadRequest(problem)
        try:
            seconds = float(value)
        except ValueError:
            try:
                when = datetime.fromisoformat(value)
            except ValueError:
                raise BadRequest(problem) from None
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
            seconds = when.timestamp()
        if not math.isfinite(seconds) or not 0 <= seconds <= LATEST:
            raise BadRequest(problem)
        return seconds


def version_spec(value: str, key: str) -> tuple[str, int]:
    """`BOT@N` as (bot, N); BadRequest when it is not that shape."""
    bot, at, number = value.rpartition("@")
    if not (at and bot and number.isascii() and number.isdigit()) or len(number) > 18:
        raise BadRequest(f"{key} names a version as BOT@N (alpha@2); got {value[:80]!r}")
    return bot, int(number)
