"""The repository stands on its own: nothing it tracks points outside it, and every rule
number that code, tests and docs cite is defined in the project's rule books
(docs/rules/trix.md for T-, docs/rules/trianon.md for N-).

A rule book defines a section by a heading that starts with its number
(`## T-2 Game structure`) and a rule or worked check by the bold number that starts a
list item (`- **T-2.2** ...`, `- **W-1** ...`)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"
BOOKS = {"T": RULES / "trix.md", "N": RULES / "trianon.md"}

# Built here so that this file does not itself hold the text it looks for.
OUTSIDE = ".." + "/shared"

# Where rule numbers are cited: these folders and files of the tracked tree (the league
# files and the protocol definition cite rules too).
CITING = ("arena/", "tests/", "sample_bots/", "docs/", "leagues/", "protos/", "README.md")

# A cited rule number: T-4, T-4.3, N-10, W-2. Not preceded by a letter, digit or dash, so
# that names such as `rating-bench-N-1` or `QT-1` are not taken for rule numbers.
CITED = re.compile(r"(?<![\w-])([TNW]-\d+(?:\.\d+)?)\b")
# A definition: a section heading or the bold number that starts a list item.
DEFINED = re.compile(r"^(?:## ([TN]-\d+) |- \*\*([TNW]-\d+(?:\.\d+)?)\*\* )", re.MULTILINE)


def tracked_files() -> list[str]:
    """The repository's tracked files, as paths relative to its root."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    return [name for name in out.decode().split("\0") if name]


def read_text(path: str) -> str | None:
    """The file's text, or None for a binary file (or one deleted but still tracked)."""
    try:
        data = (ROOT / path).read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def definitions(book: Path) -> list[str]:
    """Every rule number the book defines, in order, repeats included."""
    return [section or rule for section, rule in DEFINED.findall(book.read_text())]


def test_no_tracked_file_points_outside_the_repository() -> None:
    naming = [
        path
        for path in tracked_files()
        if (text := read_text(path)) is not None and OUTSIDE in text
    ]
    assert not naming, (
        f"tracked files that name {OUTSIDE} (the rule books are docs/rules/trix.md and "
        "docs/rules/trianon.md): " + ", ".join(naming)
    )


def test_every_cited_rule_number_is_defined_once() -> None:
    defined: dict[str, set[str]] = {}
    for prefix, book in BOOKS.items():
        assert book.exists(), f"missing rule book {book.relative_to(ROOT)}"
        numbers = definitions(book)
        repeated = sorted({n for n in numbers if numbers.count(n) > 1})
        assert not repeated, f"{book.relative_to(ROOT)} defines more than once: {repeated}"
        foreign = sorted({n for n in numbers if n[0] not in (prefix, "W")})
        assert not foreign, f"{book.relative_to(ROOT)} defines another book's rules: {foreign}"
        defined[prefix] = set(numbers)
    checks = defined["T"] | defined["N"]  # W-n: the worked checks, numbered in each book

    cited: dict[str, set[str]] = defaultdict(set)
    for path in tracked_files():
        if not path.startswith(CITING) or (text := read_text(path)) is None:
            continue
        for line_number, line in enumerate(text.splitlines(), start=1):
            for number in CITED.findall(line):
                cited[number].add(f"{path}:{line_number}")
    assert cited, "no rule numbers found at all: the citation pattern is broken"

    missing = {
        number: places
        for number, places in cited.items()
        if number not in (checks if number[0] == "W" else defined[number[0]])
    }
    assert not missing, "rule numbers cited but defined in no rule book:\n" + "\n".join(
        f"  {number}: {', '.join(sorted(places))}" for number, places in sorted(missing.items())
    )
