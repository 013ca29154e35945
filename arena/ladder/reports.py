"""What the ladder's reading commands print: `arena ladder table`, `versions`,
`history BOT`, `matches` and an author's `tests`, each as text or JSON (the JSON fields named in
docs/ladder.md are a contract other tools read).

The table shows each bot's active version (and the house bots): place, bot, version,
author, rating (mu - 3 sigma), mu, sigma, games, duplicate margin per game with its
95% interval, and charged faults. Places are tied where the evidence does not
separate neighbours, by the same rule as a league's table
(arena/league/standings/places.py), over every stored match of the ladder.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from arena.ladder.book import Ladder, State, my_test_matches, open_ladder, reading
from arena.league.definition.records import MatchOutcome
from arena.league.reports.formats import TextOrJson, pad, text_safe
from arena.league.standings.places import evidence, place_ranges, place_text
from arena.league.standings.stats import margin_samples, mean_interval
from arena.league.store import load_outcomes
from arena.league.store.ladder_reads import (
    ladder_match_rows,
    version_events,
    version_fault_counts,
    version_history,
    version_rows,
)


def table_rows(
    db: Any,
    ladder: Ladder,
    *,
    rows: list[dict[str, Any]] | None = None,
    outcomes: Iterable[MatchOutcome] | None = None,
    faults: Mapping[str, tuple[int, int]] | None = None,
) -> list[dict[str, Any]]:
    """The table's rows, best first: each bot's active version and the house bots.
    The site gives the active versions' `rows`, the stored `outcomes` and the fault
    counts it holds already (arena/web/ladder/stored.py); else they are read."""
    if rows is None:
        rows = version_rows(db, ladder.id, states=(State.ACTIVE,))
    rows = [dict(r) for r in rows]
    if outcomes is None:
        outcomes = load_outcomes(db, ladder.league_id, deals=False).values()
    outcomes = list(outcomes)
    margins = margin_samples(outcomes)
    if faults is None:
        faults = version_fault_counts(db, ladder.league_id)
    prior = ladder.config.ratings
    for row in rows:
        row["mu"] = prior.mu if row["mu"] is None else row["mu"]
        row["sigma"] = prior.sigma if row["sigma"] is None else row["sigma"]
        row["rating"] = row["mu"] - 3 * row["sigma"]
    rows.sort(key=lambda r: (-r["rating"], r["entrant"]))
    order = [r["entrant"] for r in rows]
    ranges = place_ranges(order, evidence(outcomes, order)) if order else []
    out = []
    for row, (first, last) in zip(rows, ranges, strict=True):
        margin = mean_interval(margins.get(row["entrant"], []))
        out.append(
            {
                "place": first,
                "place_range": [first, last],
                "bot": row["bot"],
                "version": row["number"],
                "entrant": row["entrant"],
                "author": row["author"],
                "rating": round(row["rating"], 3),
                "mu": round(row["mu"], 3),
                "sigma": round(row["sigma"], 3),
                "games": row["games"] or 0,
                "margin": round(margin.mean, 2) if margin.n else None,
                "margin_low": None if margin.low is None else round(margin.low, 2),
                "margin_high": None if margin.high is None else round(margin.high, 2),
                "faults": faults.get(row["entrant"], (0, 0))[0],
            }
        )
    return out


def table_report(db_path: Path, ladder_name: str | None, fmt: TextOrJson) -> str:
    with reading(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        rows = table_rows(db, ladder)
        stored = len(ladder_match_rows(db, ladder.id, ("stored",)))
    if fmt == TextOrJson.JSON:
        return json.dumps(rows, indent=2, ensure_ascii=False)
    head = (
        f"ladder {text_safe(ladder.config.name)} ({ladder.config.game}, seed "
        f"{text_safe(ladder.config.seed)[:40]}): {stored} matches stored"
        + ("; frozen" if ladder.frozen else "")
    )
    if not rows:
        return head + "\nno active version yet: `arena ladder submit` adds one (docs/ladder.md)"
    columns = [
        ("place", lambda r: place_text(*r["place_range"]), True),
        ("bot", lambda r: text_safe(r["bot"]), False),
        ("version", lambda r: str(r["version"]), True),
        ("author", lambda r: text_safe(r["author"]), False),
        ("rating", lambda r: f"{r['rating']:.2f}", True),
        ("mu", lambda r: f"{r['mu']:.2f}", True),
        ("sigma", lambda r: f"{r['sigma']:.2f}", True),
        ("games", lambda r: str(r["games"]), True),
        ("margin [95%]", _margin_text, True),
        ("faults", lambda r: str(r["faults"]), True),
    ]
    return head + "\n" + _text_table(columns, rows)


def _margin_text(row: dict[str, Any]) -> str:
    if row["margin"] is None:
        return "-"
    if row["margin_low"] is None:
        return f"{row['margin']:+.1f}"
    return f"{row['margin']:+.1f} [{row['margin_low']:+.1f}, {row['margin_high']:+.1f}]"


def _text_table(columns: list[tuple[str, Any, bool]], rows: list[dict[str, Any]]) -> str:
    cells = [[get(row) for _, get, _ in columns] for row in rows]
    widths = [
        max([len(name), *(len(c[i]) for c in cells)]) for i, (name, _, _) in enumerate(columns)
    ]
    lines = [
        "  ".join(pad(name, w, right) for (name, _, right), w in zip(columns, widths, strict=True))
    ]
    for row in cells:
        lines.append(
            "  ".join(
                pad(c, w, right) for c, w, (_, _, right) in zip(row, widths, columns, strict=True)
            )
        )
    return "\n".join(line.rstrip() for line in lines)


def versions_report(
    db_path: Path, ladder_name: str | None, bot: str | None, fmt: TextOrJson
) -> str:
    """Every version (of `bot`): its state and why, its files' SHA-256, its games, and,
    asked for one bot, the gate's whole report (its author reads why it was refused)."""
    with reading(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        rows = version_rows(db, ladder.id, bot=bot)
        if bot is not None and not rows:
            from arena.errors import ConfigError

            raise ConfigError(f"no bot named {bot!r} in ladder {ladder.config.name!r}")
        faults = version_fault_counts(db, ladder.league_id)
        out = [version_item(row, faults, db if bot else None) for row in rows]
    if fmt == TextOrJson.JSON:
        return json.dumps(out, indent=2, ensure_ascii=False)
    lines = []
    for v in out:
        rating = "" if v["mu"] is None else f" mu {v['mu']:.2f} sigma {v['sigma']:.2f}"
        lines.append(
            f"{text_safe(v['bot'])}@{v['version']} ({text_safe(v['author'])}) {v['state']}: "
            f"{v['games']} games, {v['faults']} faults{rating}; sha256 {v['sha256'][:12]}"
            + (f"; {text_safe(v['reason'])}" if v["reason"] else "")
        )
        if bot is not None and v.get("gate"):
            lines.append("  gate report:")
            lines += ["    " + text_safe(line) for line in v["gate"].get("text", "").splitlines()]
    return "\n".join(lines) if lines else "no version yet"


def version_item(
    row: dict[str, Any], faults: dict[str, tuple[int, int]], db: Any
) -> dict[str, Any]:
    """A version as `versions --format json` gives it (the contract fields of
    docs/ladder.md), with its gate report and events when `db` is given; the ladder
    site's API gives the same fields."""
    out = {
        "bot": row["bot"],
        "version": row["number"],
        "entrant": row["entrant"],
        "author": row["author"],
        "house": bool(row["house"]),
        "state": row["state"],
        "reason": row["reason"] or "",
        "sha256": row["sha256"],
        "command": row["command"],
        "games": row["games"] or 0,
        "faults": faults.get(row["entrant"], (0, 0))[0],
        "mu": row["mu"],
        "sigma": row["sigma"],
        "start_mu": row["start_mu"],
        "created_at": _when(row["created_at"]),
    }
    if db is not None:
        out["gate"] = json.loads(row["gate_report"]) if row["gate_report"] else None
        out["events"] = [
            {"at": _when(e["at"]), "state": e["state"], "reason": e["reason"]}
            for e in version_events(db, row["id"])
        ]
    return out


def history_report(db_path: Path, ladder_name: str | None, bot: str, fmt: TextOrJson) -> str:
    """A bot's every version: its states over time, and its rating after each match."""
    with reading(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        rows = version_rows(db, ladder.id, bot=bot)
        if not rows:
            from arena.errors import ConfigError

            raise ConfigError(f"no bot named {bot!r} in ladder {ladder.config.name!r}")
        out = []
        for row in rows:
            item = version_item(row, {}, db)
            item.pop("gate", None)
            item["ratings"] = [
                {"match": h["match_idx"], "mu": round(h["mu"], 3), "sigma": round(h["sigma"], 3)}
                for h in version_history(db, ladder.league_id, row["entrant"])
            ]
            out.append(item)
    if fmt == TextOrJson.JSON:
        return json.dumps(out, indent=2, ensure_ascii=False)
    lines = []
    for v in out:
        lines.append(f"{text_safe(v['entrant'])} ({text_safe(v['author'])}): {v['state']}")
        for event in v["events"]:
            lines.append(f"  {event['at']}  {event['state']}: {text_safe(event['reason'])}")
        if v["ratings"]:
            last = v["ratings"][-1]
            line = (
                f"  rating: {len(v['ratings'])} matches, mu {v['ratings'][0]['mu']:.2f} -> "
                f"{last['mu']:.2f}, sigma {last['sigma']:.2f}"
            )
            if v["mu"] is not None and f"{v['mu']:.2f}" != f"{last['mu']:.2f}":
                # Margin-fed ratings are solved from every match, so a version's rating
                # moves with the matches it did not play too (docs/ladder.md).
                line += f"; now mu {v['mu']:.2f}, sigma {v['sigma']:.2f}, from later matches"
            lines.append(line)
    return "\n".join(lines)


def match_item(row: dict[str, Any]) -> dict[str, Any]:
    """A chosen match as the commands and the ladder site name its fields: index, state,
    why it was chosen (and for whom), its pair, its seats."""
    return {
        "match": row["idx"],
        "state": row["state"],
        "reason": row["reason"],
        "focus": row["focus"],
        "pair": row["pair_idx"],
        "entrants": row["entrants"],
    }


def matches_report(db_path: Path, ladder_name: str | None, fmt: TextOrJson, limit: int = 50) -> str:
    """The ladder's chosen matches, newest first: index, state, why chosen, seats."""
    with reading(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        rows = ladder_match_rows(db, ladder.id)
    rows = rows[::-1][:limit] if limit else rows[::-1]
    out = [{**match_item(r), "seed": r["seed"], "chosen_at": _when(r["chosen_at"])} for r in rows]
    if fmt == TextOrJson.JSON:
        return json.dumps(out, indent=2, ensure_ascii=False)
    lines = [
        f"match {m['match']:>6} {m['state']:<7} {m['reason']:<10} "
        + "  ".join(text_safe(e) for e in m["entrants"])
        + (f"  (pair of {m['pair']})" if m["pair"] is not None else "")
        for m in out
    ]
    return "\n".join(lines) if lines else "no match chosen yet"


def test_item(row: dict[str, Any]) -> dict[str, Any]:
    """One test match as `arena ladder tests --format json` gives it."""
    return {
        "test": row["id"],
        "version": row["entrant"],
        "opponents": row["opponents"],
        "state": row["state"],
        "reason": row["reason"],
        "match": row["idx"],
        "seed": row["seed"],
        "requested_at": _when(row["requested_at"]),
        "started_at": _when(row["started_at"]),
        "finished_at": _when(row["finished_at"]),
        "games": [
            {"id": g["id"], "rotation": g["rotation"], "seat": g["seat"]} for g in row["games"]
        ],
    }


def tests_report(db_path: Path, ladder_name: str | None, token: str | None, fmt: TextOrJson) -> str:
    """The author's own test matches, newest first (the token says whose)."""
    out = [test_item(r) for r in my_test_matches(db_path, ladder_name, token=token)]
    if fmt == TextOrJson.JSON:
        return json.dumps(out, indent=2, ensure_ascii=False)
    lines = []
    for t in out:
        games = ", ".join(f"{g['id']} (seat {g['seat']})" for g in t["games"])
        lines.append(
            f"test {t['test']:>5} {t['state']:<8} {text_safe(t['version'])} against "
            + ", ".join(text_safe(o) for o in t["opponents"])
            + f"  asked {t['requested_at']}"
            + (f"; games {games}" if games else "")
            + (f"; {text_safe(t['reason'])}" if t["state"] == "dropped" else "")
        )
    return "\n".join(lines) if lines else "no test match asked for yet (`arena ladder test`)"


def _when(stamp: float | None) -> str | None:
    if stamp is None or not math.isfinite(stamp):
        return None
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))
