"""The command line shared by the independent replay checkers."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def replay_files(args: list[str]) -> list[Path]:
    """Files named, and every ``*.json`` below directories named."""
    files: list[Path] = []
    for arg in args:
        path = Path(arg)
        if path.is_dir():
            files.extend(sorted(path.rglob("*.json")))
        else:
            files.append(path)
    return files


def run_checker(
    check_replay: Callable[[dict[str, Any]], list[str]], module: str, argv: list[str] | None
) -> int:
    """Check every replay named; print each disagreement and a count; 0 only if none."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print(f"usage: python -m {module} FILE_OR_DIR...", file=sys.stderr)
        return 2
    files = replay_files(args)
    disagreements = 0
    for path in files:
        try:
            replay = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            problems = [f"cannot read replay: {error}"]
        else:
            problems = check_replay(replay)
        for problem in problems:
            print(f"{path}: {problem}")
        disagreements += len(problems)
    print(f"{len(files)} replays checked, {disagreements} disagreements")
    if not files:
        return 2
    return 0 if disagreements == 0 else 1
