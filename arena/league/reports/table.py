"""League tables from a league database: ratings, scores, margins, faults.

The rating shown is conservative (mu - 3 sigma): a newcomer with few matches is not
placed above an entrant whose strength is known. The duplicate margin compares an
entrant with the others who held the same cards in the same seat (docs/rules/trix.md T-2.2), so
card luck does not count.
"""

from __future__ import annotations

import csv
import io
import json
import shlex
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple, TypedDict

import sqlite_utils

from arena import __version__
from arena.games import get_game
from arena.games.base import DealSummary, SummaryKind
from arena.league import store
from arena.league.definition.config import RATE_BY_DEFAULT, RateBy, Ratings
from arena.league.reports.formats import (
    TableFormat,
    display_width,
    markdown_safe,
    pad,
    text_safe,
)
from arena.league.standings.places import Evidence, evidence, place_ranges, place_text
from arena.league.standings.ratings import MatchOutcome, Rater, rate_prefix
from arena.league.standings.stats import Interval, margin_samples, mean_interval

FORMATS = tuple(TableFormat)


class ThinkMs(TypedDict):
    """Mean think time per decision asked, in ms (`cpu` None without a cgroup)."""

    wall: float
    cpu: float | None


class TableRow(TypedDict):
    """One entrant's row of a league table: the keys of `arena table --format json`
    (docs/leagues.md, "Tables"), in their order."""

    place: int
    place_range: list[int]  # [best, worst]: the places the evidence leaves it (standings.places)
    name: str
    rating: float  # mu - 3 sigma
    mu: float
    sigma: float
    matches: int
    games: int
    mean_score: float
    duplicate_margin: float
    duplicate_margin_ci: list[float | None]  # [low, high] at 95%, [null, null] until 2
    per_contract: dict[str, Any]  # label -> mean score, or declared/made/failed counts
    faults: int
    think_ms: ThinkMs | None  # None for a bot inside the referee (never timed)


class TableAbout(TypedDict):
    """What a table is of: the key `league` of `arena table --format json --with-league`."""

    name: str
    game: str
    seed: str | None
    file: str | None
    matches_stored: int
    matches_scheduled: int | None
    finished: bool | None
    last_match_at: str | None
    arena_version: str
    rate_by: str | None  # what TrueSkill was fed (None: not recorded)


def league_rows(
    db: sqlite_utils.Database,
    league_id: int,
    outcomes: dict[int, MatchOutcome] | None = None,
    *,
    proof: Evidence | None = None,
) -> list[TableRow]:
    """One dict per entrant, best first, with the JSON keys of `arena table --format json`
    (`outcomes`: the league's, when the caller has loaded them already, with or without
    their deals; `proof`: their `evidence`, when the caller needs it too)."""
    game, settings = store.league_record(db, league_id)
    entrants = settings["entrants"]
    if outcomes is None:
        outcomes = store.load_outcomes(db, league_id, deals=False)
    ratings = _stored_ratings(db, league_id, outcomes, settings)
    if ratings is None:  # rate again, from every deal (rate_by = "deal" needs them)
        outcomes = store.load_outcomes(db, league_id)
        rater = Rater(
            Ratings(**settings["ratings"]),
            entrants,
            settings["rate_by"],
            settings["forfeit_faults"],
        )
        rate_prefix(outcomes, rater)
        ratings = {e: (r.mu, r.sigma) for e, r in rater.ratings.items()}
    stats = store.entrant_stats(db, league_id)
    margins = {
        name: mean_interval(samples, 0.95)
        for name, samples in margin_samples(sorted(outcomes.values(), key=lambda m: m.idx)).items()
    }
    summary = get_game(game).deal_summary
    per_contract = (
        _per_declared(db, league_id)
        if summary.kind is SummaryKind.DECLARED
        else _per_mean_score(db, league_id)
    )
    rows: list[dict[str, Any]] = []  # a TableRow but its place, until they are sorted
    for name in entrants:
        mu, sigma = ratings[name]
        stat = stats.get(name, {})
        rows.append(
            {
                "name": name,
                "rating": round(mu - 3 * sigma, 3),
                "mu": round(mu, 3),
                "sigma": round(sigma, 3),
                "matches": stat.get("matches", 0),
                "games": stat.get("games", 0),
                "mean_score": round(stat["mean_score"], 2) if stat else 0.0,
                "duplicate_margin": round(margins[name].mean, 2) if name in margins else 0.0,
                "duplicate_margin_ci": _rounded_ci(margins.get(name)),
                "per_contract": per_contract.get(name, {}),
                "faults": stat.get("faults", 0) or 0,
                "think_ms": _think(stat),
            }
        )
    rows.sort(key=lambda r: (-r["rating"], -r["mu"], r["name"]))
    order = [row["name"] for row in rows]
    ranges = place_ranges(order, proof or evidence(outcomes.values(), entrants))
    return [
        TableRow(place=i, place_range=list(span), **row)
        for i, (row, span) in enumerate(zip(rows, ranges, strict=True), start=1)
    ]


def _think(stat: dict[str, Any]) -> ThinkMs | None:
    """Mean think time per decision asked, in ms: wall and the bot's own CPU (None
    without a cgroup); None for a bot inside the referee (it is never timed)."""
    asked = stat.get("asked")
    if not asked:
        return None
    cpu = stat.get("think_cpu_ms")
    return ThinkMs(
        wall=round(stat["think_wall_ms"] / asked, 3),
        cpu=None if cpu is None else round(cpu / asked, 3),
    )


def _stored_ratings(
    db: sqlite_utils.Database,
    league_id: int,
    outcomes: dict[int, MatchOutcome],
    settings: dict[str, Any],
) -> dict[str, tuple[float, float]] | None:
    """The ratings the runner stored, when they cover exactly the rated prefix of the
    stored matches (so they equal a recomputation); None otherwise.

    Recomputing is exact but slow with rate_by = "deal" (20 TrueSkill updates a match),
    and the runner has already done it, in the same order, with the same settings."""
    prefix = 0
    while prefix in outcomes:
        prefix += 1
    rows = store.latest_ratings(db, league_id)
    last = max((row["match_idx"] for row in rows), default=-1)
    if last + 1 != prefix:
        return None
    fresh = Ratings(**settings["ratings"])
    out = {e: (fresh.mu, fresh.sigma) for e in settings["entrants"]}
    out.update({row["entrant"]: (row["mu"], row["sigma"]) for row in rows})
    return out


def _rounded_ci(interval: Interval | None) -> list[float | None]:
    """[low, high] of a 95% interval; [null, null] until there are two matches."""
    if interval is None or interval.low is None or interval.high is None:
        return [None, None]
    return [round(interval.low, 2), round(interval.high, 2)]


def _per_mean_score(db: sqlite_utils.Database, league_id: int) -> dict[str, dict[str, Any]]:
    """SummaryKind.MEAN_SCORE (Trix): each entrant's mean deal score under each label."""
    out: dict[str, dict[str, Any]] = {}
    for row in store.contract_means(db, league_id):
        out.setdefault(row["entrant"], {})[row["contract"]] = round(row["mean"], 2)
    return out


def _per_declared(db: sqlite_utils.Database, league_id: int) -> dict[str, dict[str, Any]]:
    """SummaryKind.DECLARED (Trianon): per label, the contracts each entrant declared,
    made and failed."""
    out: dict[str, dict[str, Any]] = {}
    for row in store.strain_counts(db, league_id):
        out.setdefault(row["entrant"], {})[row["contract"]] = {
            "declared": row["declared"],
            "made": row["made"],
            "failed": row["declared"] - row["made"],
        }
    return out


class Column(NamedTuple):
    """A column of the text, markdown and web tables: the row's key and its title."""

    key: str
    title: str

    @property
    def numeric(self) -> bool:
        """Right-aligned in a text table: every column but the name and per contract."""
        return self.key not in ("name", "per_contract")


COLUMNS = (
    Column("place", "place"),
    Column("place_range", "places"),
    Column("name", "name"),
    Column("rating", "rating"),
    Column("mu", "mu"),
    Column("sigma", "sigma"),
    Column("matches", "matches"),
    Column("games", "games"),
    Column("mean_score", "score/game"),
    Column("duplicate_margin", "margin/game"),
    Column("duplicate_margin_ci", "95% CI"),
    Column("per_contract", "per contract"),
    Column("faults", "faults"),
    Column("think_ms", "think ms cpu/wall"),
)


def cell(key: str, value: Any, summary: DealSummary) -> str:
    """A row's value under `key` as a text or markdown table shows it (`summary`: what
    the game's per-contract cell holds, `Game.deal_summary`)."""
    if key == "place_range":
        return place_text(*value)
    if key == "per_contract":
        if summary.kind is SummaryKind.DECLARED:
            return " ".join(
                f"{summary.abbreviation(c)} {v['declared']}/{v['made']}/{v['failed']}"
                for c, v in value.items()
            )
        return " ".join(f"{summary.abbreviation(c)} {v:+.1f}" for c, v in value.items())
    if key == "think_ms":
        if value is None:
            return "-"
        cpu = "?" if value["cpu"] is None else f"{value['cpu']:.1f}"
        return f"{cpu}/{value['wall']:.1f}"
    if key == "duplicate_margin_ci":
        low, high = value
        return "n/a" if low is None else f"[{low:+.1f}, {high:+.1f}]"
    if isinstance(value, float):
        return f"{value:+.2f}" if key in ("mean_score", "duplicate_margin") else f"{value:.2f}"
    return str(value)


DECLARED_COUNTS = ("declared", "made", "failed")  # a SummaryKind.DECLARED cell's figures


def csv_columns(summary: DealSummary) -> list[str]:
    """The CSV table's header: every cell a scalar, the same columns for every league of
    a game (docs/leagues.md lists them). The interval is two columns; per contract, a
    column per label of the game's `summary` named by its noun (Trix's
    `contract_king-of-hearts`, ...: the mean deal score), or three per label when it
    counts declarations (Trianon's `strain_H_declared`, `strain_H_made`,
    `strain_H_failed`)."""
    head = [
        c.key
        for c in COLUMNS[: [c.key for c in COLUMNS].index("duplicate_margin_ci")]
        if c.key != "place_range"  # CSV's columns are a fixed contract (docs/leagues.md)
    ]
    return [
        *head,
        "duplicate_margin_ci_low",
        "duplicate_margin_ci_high",
        *_summary_columns(summary),
        "faults",
        "think_wall_ms",
        "think_cpu_ms",
    ]


def _summary_columns(summary: DealSummary) -> list[str]:
    if summary.kind is SummaryKind.DECLARED:
        return [
            f"{summary.noun}_{label}_{what}" for label in summary.labels for what in DECLARED_COUNTS
        ]
    return [f"{summary.noun}_{label}" for label in summary.labels]


def _csv_values(row: TableRow, columns: Sequence[str], summary: DealSummary) -> list[Any]:
    """One row's cells under `columns`: a label the entrant never played is empty (no
    mean); one it never declared counts 0."""
    flat: dict[str, Any] = {
        k: v
        for k, v in row.items()
        if k not in ("duplicate_margin_ci", "per_contract", "think_ms", "place_range")
    }
    flat["duplicate_margin_ci_low"], flat["duplicate_margin_ci_high"] = row["duplicate_margin_ci"]
    think = row.get("think_ms") or {}
    flat["think_wall_ms"], flat["think_cpu_ms"] = think.get("wall"), think.get("cpu")
    declared = summary.kind is SummaryKind.DECLARED
    for label, value in row["per_contract"].items():
        if declared:
            flat.update({f"{summary.noun}_{label}_{k}": n for k, n in value.items()})
        else:
            flat[f"{summary.noun}_{label}"] = value
    counted = set(_summary_columns(summary)) if declared else set()
    return [flat.get(c, 0 if c in counted else None) for c in columns]


def league_about(db: sqlite_utils.Database, league_id: int) -> TableAbout:
    """What a table is of: the league, its game and seed, the matches stored of those
    scheduled, when the last was stored, and the arena that shows it. The key `league`
    of `arena table --format json --with-league` (docs/leagues.md, "Tables")."""
    facts = store.league_facts(db, league_id)
    stored, scheduled = facts["stored"], facts["scheduled"]
    last = facts["last_stored_at"]
    return TableAbout(
        name=facts["name"],
        game=facts["game"],
        seed=facts["settings"].get("seed"),
        file=facts["file"],
        matches_stored=stored,
        matches_scheduled=scheduled,
        finished=None if scheduled is None else stored >= scheduled,
        last_match_at=None if last is None else _when(last),
        arena_version=__version__,
        rate_by=facts["settings"].get("rate_by"),
    )


FEEDINGS = {
    "margin": "by duplicate margin",
    "deal": "per deal",
    "match": "per match",
    "game": "per game",
}
UNRATED_LINE = (
    "ratings: none (rate_by = 'none'): a person played at this table (`arena play --db` "
    "with a human seat), and a person is never rated, so every player stays at the prior"
)


def feeding_line(rate_by: str | None) -> str:
    """What the ratings of a table were fed (docs/ratings.md), and whether that is an
    older feeding than the arena's default, with how to re-rate."""
    if rate_by == RateBy.NONE:
        line = UNRATED_LINE
    elif rate_by is None:
        line = "ratings: TrueSkill, fed as the league's settings do not record"
    else:
        shown = FEEDINGS.get(str(rate_by), "as recorded")
        line = f"ratings: TrueSkill fed {shown} (rate_by = {rate_by!r})"
    if rate_by is not None and rate_by not in (RATE_BY_DEFAULT, RateBy.NONE):
        line += (
            f", not this arena's default {RATE_BY_DEFAULT.value!r}: `arena upgrade --rerate` "
            "re-rates the league by default"
        )
    return (
        line + "; places: a range such as 2-4 where the evidence cannot tell an entrant "
        "from its neighbours at 95%"
    )


def _when(timestamp: float) -> str:
    """A stored time (seconds since the epoch) in ISO 8601, UTC: `2025-06-01T12:00:03Z`."""
    moment = datetime.fromtimestamp(timestamp, UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


SEED_SHOWN = 40  # characters of a seed a table's header shows; a longer one is cut


def about_lines(
    about: TableAbout,
    markdown: bool = False,
    db: Path | None = None,
    idle: Sequence[str] = (),
) -> list[str]:
    """The lines above a text or markdown table: which league, game, seed and arena,
    when its last match was stored, and whether it is finished (and how to resume it:
    with `db`, the `--db` the resuming command needs). A long seed is shown cut, with
    its length. `idle` entrants (no match stored) of a finished league get a hint:
    they play only once the league file's `matches` (or `rounds`) grows."""
    safe = markdown_safe if markdown else text_safe
    stored, scheduled = about["matches_stored"], about["matches_scheduled"]
    last = about["last_match_at"]
    when = (
        "no match stored yet"
        if last is None
        else "last match stored " + last.replace("T", " ").replace("Z", " UTC")
    )
    seed = str(about["seed"])
    if len(seed) > SEED_SHOWN:
        seed = f"{seed[: SEED_SHOWN - 10]}... ({len(seed):,} characters)"
    first = (
        f"league {safe(repr(about['name']))}: {safe(about['game'])}, "
        f"seed {safe(seed)}, {when}; arena {about['arena_version']}"
    )
    played_by_play = about["file"] == "arena play"
    command = f"arena run {shlex.quote(about['file'] or 'LEAGUE.toml')}"
    if db is not None:
        command += f" --db {shlex.quote(str(db))}"
    resume = f"`{text_safe(command)}`"
    if scheduled is None and played_by_play:
        second = f"{stored} matches stored by `arena play` (a session has no schedule)"
    elif scheduled is None:
        second = (
            f"{stored} matches stored; the number scheduled is not recorded ({resume} records it)"
        )
    elif stored >= scheduled:
        second = f"{stored} of {scheduled} matches stored: the league is finished"
        if idle and not played_by_play:
            second += (
                f"; {safe(', '.join(idle[:5]))}{' and others' if len(idle) > 5 else ''} "
                "played no match: raise `matches` (or `rounds`) in the league file for "
                f"them to play, then {resume}"
            )
    else:
        second = (
            f"{stored} of {scheduled} matches stored: the league is not finished; "
            f"{resume} resumes it (with the --cluster it ran with, if any)"
        )
    return [first, second, safe(feeding_line(about.get("rate_by")))]


def render(
    rows: Sequence[TableRow],
    fmt: TableFormat,
    game: str,
    about: TableAbout | None = None,
    with_league: bool = False,
    db: Path | None = None,
) -> str:
    """The table of a league of `game` (a registered game's name: its `deal_summary`
    says what the per-contract cells hold) in one of FORMATS. With `about`
    (`league_about`), text and markdown begin with the lines saying what the table is;
    JSON is the list of rows, or with `with_league` the object {"league": about,
    "rows": [...]}; CSV is the rows alone (what a table is goes to stderr:
    docs/leagues.md says why)."""
    summary = get_game(game).deal_summary
    if fmt == TableFormat.JSON:
        if with_league:
            return json.dumps({"league": about, "rows": list(rows)}, indent=1)
        return json.dumps(list(rows), indent=1)
    if fmt == TableFormat.CSV:
        out = io.StringIO()
        writer = csv.writer(out)  # quotes a cell holding a comma, a quote or a newline
        columns = csv_columns(summary)
        writer.writerow(columns)
        for row in rows:
            writer.writerow(_csv_values(row, columns, summary))
        return out.getvalue().rstrip("\n")
    markdown = fmt == TableFormat.MARKDOWN
    safe = markdown_safe if markdown else text_safe
    header = [c.title for c in COLUMNS]
    body = [[safe(cell(c.key, row[c.key], summary)) for c in COLUMNS] for row in rows]
    idle = [row["name"] for row in rows if row["matches"] == 0]
    above = about_lines(about, markdown, db, idle) if about is not None else []
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
        return "\n\n".join([*above, "\n".join(lines)])
    widths = [  # display columns (wcwidth): wide and joined names align too
        max(len(h), *(display_width(r[i]) for r in body)) if body else len(h)
        for i, h in enumerate(header)
    ]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            pad(text, width, right=column.numeric)
            for column, text, width in zip(COLUMNS, cells, widths, strict=True)
        ).rstrip()

    table = "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in body])
    return "\n\n".join(["\n".join(above), table]) if above else table
