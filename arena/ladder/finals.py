"""`arena ladder finals`: the top K active versions in a league of their own.

A ladder's ratings are read from matches chosen as it went, under a rating that
moved; a final is a fixed, fair schedule on fresh deals, rated with tau = 0, whose
table is the result. It is written as an ordinary league file beside the database
(`NAME-finals.toml`: its entrants the versions, `BOT@N`, started from their stored
folders; the ladder's rules and limits) and played by `arena run`'s own code, so it
is stored, shown, resumed (`arena run` of the same file) and served like any league.

The schedule: every table of `seats` versions is played round-robin when `--matches`
is a whole number of rounds of them; otherwise a `balanced` schedule of that many
matches (play counts differ by at most one).
"""

from __future__ import annotations

import json
import math
import secrets
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.ladder.book import State, open_ladder, reading
from arena.ladder.config import LadderConfig
from arena.ladder.reports import table_rows
from arena.ladder.source import version_start
from arena.league.running.runner import run_league
from arena.league.store.ladder_reads import version_rows


def play_finals(
    db_path: Path,
    ladder_name: str | None,
    *,
    top: int,
    matches: int,
    workers: int | None = None,
    seed: str | None = None,
) -> str:
    """Write the final's league file and play it; what was played, a line."""
    with reading(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        rows = table_rows(db, ladder)
        specs = {
            v["entrant"]: version_start(v)
            for v in version_rows(db, ladder.id, states=(State.ACTIVE,))
        }
    config = ladder.config
    seats = config.engine.seats
    if len(rows) < max(top, seats):
        raise ConfigError(
            f"ladder {config.name!r} has {len(rows)} active versions; the final needs "
            f"--top {top} (and at least {seats}, one table): lower --top"
        )
    finalists = [(r["entrant"], specs[r["entrant"]]) for r in rows[:top]]
    path = finals_file(db_path, config, finalists, matches, seed or secrets.token_hex(8))
    summary = run_league(path, db_path, workers=workers)
    return (
        f"{summary.describe()}\nthe final's league file is {path}; its table: "
        f"`arena table --db {db_path} --league {json.dumps(_league_name(config))}`"
    )


def _league_name(config: LadderConfig) -> str:
    return f"{config.name} finals"


def finals_file(
    db_path: Path,
    config: LadderConfig,
    finalists: list[tuple[str, str]],
    matches: int,
    seed: str,
) -> Path:
    """The final as a league file beside the database (its name kept: a final that
    was stopped resumes with `arena run` of the same file)."""
    seats = config.engine.seats
    tables = math.comb(len(finalists), seats)
    league: dict[str, Any] = {
        "name": _league_name(config),
        "game": config.game,
        "seed": f"{config.seed}/finals/{seed}",
        "rotations": config.rotations.value,
    }
    if matches % tables == 0:
        league |= {"schedule": "round-robin", "rounds": matches // tables}
    else:
        league |= {"schedule": "balanced", "matches": matches}
    ratings = {**dict(config.raw.get("ratings", {})), "tau": 0.0}
    lines = [
        f"# The final of ladder {config.name}: its top {len(finalists)} active versions.",
        "[league]",
        *_pairs(league),
        "",
        "[rules]",
        *_pairs(dict(config.raw.get("rules", {}))),
        "",
        "[limits]",
        *_pairs(dict(config.raw.get("limits", {}))),
        "",
        "[ratings]",
        *_pairs(ratings),
    ]
    for name, spec in finalists:
        lines += ["", "[[entrant]]", *_pairs({"name": name, "bot": spec})]
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in config.name)[:100]
    path = db_path.resolve().parent / f"{safe}-finals.toml"
    if path.exists() and f"name = {json.dumps(_league_name(config))}" not in path.read_text():
        raise ConfigError(f"{path} exists and is not this ladder's final: move it away")
    if not path.exists():
        path.write_text("\n".join(lines) + "\n")
    return path


def _pairs(table: dict[str, Any]) -> list[str]:
    return [f"{key} = {_value(value)}" for key, value in table.items()]


def _value(value: Any) -> str:
    """A TOML value: strings as JSON writes them (a TOML basic string reads them back)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise ConfigError(f"cannot write {value!r} into the final's league file")
