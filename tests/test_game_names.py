"""No module outside `arena/games/` compares a game's name or reads a game attribute the
`Game` interface does not declare (issue 25, point 3): what a table, the store, the site,
check-bot or a benchmark needs to know of a game, the game declares (arena/games/base.py),
so a game registered after Trix and Trianon needs no edit anywhere else.

The scan reads every Python module, template and script of `arena/` outside
`arena/games/`; code that is per game by nature (a strategy, the wire codec) picks its
functions from a table keyed by the registered name, which is not a comparison.
"""

from __future__ import annotations

import re
from pathlib import Path

from arena.games import GAMES

ARENA = Path(__file__).resolve().parent.parent / "arena"
SUFFIXES = {".py", ".html", ".js"}
NAMES = "|".join(re.escape(name) for name in GAMES)
QUOTED = rf"""["'](?:{NAMES})["']"""
OP = r"(?:===|!==|==|!=|\bis not\b|\bis\b|\bnot in\b|\bin\b)"
# Something that holds a game or its name: `game`, `game_name`, `turn.game["game"]`,
# `state.outline.game`, `engine.name`, `self.game`.
GAMEISH = r"""(?:\b\w*game\w*\b(?:\[["']game["']\])?|\b(?:engine|game)\.name\b)"""
COMPARISONS = [
    re.compile(rf"{GAMEISH}\s*{OP}\s*\(?\s*{QUOTED}"),  # game == "trix", game in ("trix",
    re.compile(rf"{QUOTED}\s*{OP}\s*{GAMEISH}"),  # "trix" == game
    re.compile(rf"\.name\s*{OP}\s*{QUOTED}"),  # something.name != "trix"
]
# getattr on a game with a default: reading what a game may or may not have declared.
UNDECLARED = re.compile(r"getattr\(\s*(?:game|engine|get_game\([^)]*\))\s*,\s*[\"'](\w+)[\"']")


def offending_lines(text: str) -> list[str]:
    """The lines of `text` that compare a game's name or read an undeclared attribute."""
    out = []
    for line in text.splitlines():
        if any(p.search(line) for p in COMPARISONS) or UNDECLARED.search(line):
            out.append(line.strip())
    return out


def test_no_module_outside_the_games_compares_a_game_name() -> None:
    found = []
    for path in sorted(ARENA.rglob("*")):
        if path.suffix not in SUFFIXES or "games" in path.relative_to(ARENA).parts[:1]:
            continue
        found += [f"{path.relative_to(ARENA.parent)}: {line}"
                  for line in offending_lines(path.read_text())]  # fmt: skip
    assert found == [], "game knowledge outside arena/games/:\n" + "\n".join(found)


def test_the_scan_catches_what_the_code_used_to_do() -> None:
    """The attack: every form the comparisons took before the games declared their table
    summaries is caught, and what replaced them is not."""
    old = [
        '        _per_strain(db, league_id) if game == "trianon" else _per_contract(db, league_id)',
        '    return label.lstrip("0123456789") if game == "trianon" else label',
        '    strains = getattr(engine, "strains", None)',
        '        contracts_needed=tuple(getattr(game, "contracts", ())),',
        '    if game.name != "trix":',
        '        if turn.game["game"] == "trianon":',
        '    if (state.outline.game === "trix") {',
        '{% if game == "trianon" %}<thead>',
        "        if row.deals and game == 'trianon':",
        '    if game in ("trix", "trianon"):',
    ]
    for line in old:
        assert offending_lines(line) == [line.strip()], line
    new = [
        "    summary = get_game(game).deal_summary",
        '{% if summary.kind == "declared" %}<thead>',
        '        return ACTS[turn.game["game"]](turn, legal)',
        "    if (table.king !== undefined) {",
        '    rows.hidden = !(table.contract === "trix"); // the Trix contract (T-6)',
        '    game: str = "trix"',
        "    if summary.kind is SummaryKind.DECLARED:",
    ]
    for line in new:
        assert offending_lines(line) == [], line
