"""Charts as SVG drawn on the server: no chart library, nothing to download, the same
picture from `arena serve` and from a static report opened with file://.

Two charts: every entrant's TrueSkill mu over the matches with its band (mu +- 2
sigma, where about 95% of the belief lies), and every entrant's duplicate margin with
its 95% interval against zero (a forest plot)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
)
MAX_POINTS = 200  # per entrant: a chart of 2,500 matches keeps its shape with 200


def colour(index: int) -> str:
    """The entrant's colour, the same in every chart and table of a league."""
    if index < len(PALETTE):
        return PALETTE[index]
    return f"hsl({(index * 137) % 360} 60% 42%)"  # the golden angle: neighbours differ


def _thinned(points: Sequence[Any], limit: int = MAX_POINTS) -> list[Any]:
    """At most `limit` points, evenly spread, the first and last kept."""
    if len(points) <= limit:
        return list(points)
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def rating_chart(
    history: Sequence[Mapping[str, Any]],
    entrants: Sequence[str],
    width: int = 720,
    colours: Mapping[str, str] | None = None,
    marks: Sequence[tuple[float, str]] = (),
) -> str:
    """`history` rows (match_idx, entrant, mu, sigma) as lines of mu over the match
    index, each with its mu +- 2 sigma band, in `colours` (the legend's, by name);
    "" when nothing is rated yet, or when only one match is (no line to draw: a band
    over one point is an empty frame). `marks`: (match number, what happened) drawn
    as dashed upright lines with their text on hover (a ladder's promotions)."""
    series: dict[str, list[tuple[int, float, float]]] = {name: [] for name in entrants}
    for row in history:
        if row["entrant"] in series:
            # matches counted from 1, as every page and `arena play` count them
            series[row["entrant"]].append((row["match_idx"] + 1, row["mu"], row["sigma"]))
    if len({p[0] for points in series.values() for p in points}) < 2:
        return ""
    height, left, right, top, bottom = 300, 44, 12, 10, 28
    xs = [p[0] for points in series.values() for p in points]
    lows = [p[1] - 2 * p[2] for points in series.values() for p in points]
    highs = [p[1] + 2 * p[2] for points in series.values() for p in points]
    x0, x1 = min(xs), max(max(xs), min(xs) + 1)
    y0, y1 = min(lows), max(highs)
    y0, y1 = (y0 - 1, y1 + 1) if y1 - y0 < 1e-9 else (y0, y1)

    def x(value: float) -> float:
        return left + (value - x0) / (x1 - x0) * (width - left - right)

    def y(value: float) -> float:
        return top + (y1 - value) / (y1 - y0) * (height - top - bottom)

    parts = [_axes(width, height, left, right, top, bottom, (x0, x1), (y0, y1), "match", "mu")]
    for at, text in marks:
        mx = x(min(max(at, x0), x1))
        parts.append(
            f'<g class="mark"><title>{escape(text)} (match {at:.0f})</title>'
            f'<line x1="{mx:.1f}" y1="{top}" x2="{mx:.1f}" y2="{height - bottom}" '
            'stroke="#555" stroke-dasharray="4 3" stroke-width="1.2"/>'
            f'<text x="{mx + 3:.1f}" y="{top + 10}" class="axis">{escape(text)}</text></g>'
        )
    for index, name in enumerate(entrants):
        points = _thinned(series[name])
        if not points:
            continue
        hue = colours.get(name, colour(index)) if colours else colour(index)
        upper = [f"{x(i):.1f},{y(mu + 2 * s):.1f}" for i, mu, s in points]
        lower = [f"{x(i):.1f},{y(mu - 2 * s):.1f}" for i, mu, s in reversed(points)]
        line = " ".join(f"{x(i):.1f},{y(mu):.1f}" for i, mu, _ in points)
        parts.append(
            f'<g class="series" data-entrant="{escape(name)}"><title>{escape(name)}</title>'
            f'<polygon points="{" ".join(upper + lower)}" fill="{hue}" opacity="0.12"/>'
            f'<polyline points="{line}" fill="none" stroke="{hue}" stroke-width="1.8"/></g>'
        )
    return _svg(width, height, "ratings over the matches", "".join(parts))


def margin_chart(rows: Sequence[Mapping[str, Any]], colours: Mapping[str, str]) -> str:
    """Each table row's duplicate margin per game as a dot with its 95% interval as a
    bar, against a line at zero: where a bar crosses zero, the matches have not shown
    the entrant better or worse than the field."""
    if not rows:
        return ""
    width, row_height, left, right, top = 720, 20, 150, 16, 20
    height = top + row_height * len(rows) + 24
    values = [0.0]
    for row in rows:
        values.append(row["duplicate_margin"])
        values += [v for v in row["duplicate_margin_ci"] if v is not None]
    low, high = min(values), max(values)
    low, high = (low - 1, high + 1) if high - low < 1e-9 else (low, high)

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * (width - left - right)

    parts = [
        f'<line x1="{x(0):.1f}" y1="{top - 6}" x2="{x(0):.1f}" y2="{height - 20}" '
        'stroke="#888" stroke-dasharray="3 3"/>',
        f'<text x="{x(0):.1f}" y="{height - 6}" text-anchor="middle" class="axis">0</text>',
        f'<text x="{left}" y="{height - 6}" class="axis">{low:+.0f}</text>',
        f'<text x="{width - right}" y="{height - 6}" text-anchor="end" class="axis">'
        f"{high:+.0f}</text>",
    ]
    for i, row in enumerate(rows):
        cy = top + i * row_height + row_height / 2
        hue = colours.get(row["name"], "#333")
        parts.append(
            f'<text x="{left - 8}" y="{cy + 4:.1f}" text-anchor="end" class="label">'
            f"{escape(row['name'])}</text>"
        )
        ci_low, ci_high = row["duplicate_margin_ci"]
        if ci_low is not None and ci_high is not None:
            parts.append(
                f'<line x1="{x(ci_low):.1f}" y1="{cy:.1f}" x2="{x(ci_high):.1f}" '
                f'y2="{cy:.1f}" stroke="{hue}" stroke-width="3" opacity="0.55"/>'
            )
        parts.append(
            f'<circle cx="{x(row["duplicate_margin"]):.1f}" cy="{cy:.1f}" r="4" fill="{hue}">'
            f"<title>{escape(row['name'])}: {row['duplicate_margin']:+.1f}</title></circle>"
        )
    return _svg(width, height, "duplicate margin per game with its 95% interval", "".join(parts))


def _axes(
    width: int,
    height: int,
    left: int,
    right: int,
    top: int,
    bottom: int,
    xs: tuple[float, float],
    ys: tuple[float, float],
    x_name: str,
    y_name: str,
) -> str:
    base, edge = height - bottom, width - right
    return (
        f'<line x1="{left}" y1="{base}" x2="{edge}" y2="{base}" stroke="#999"/>'
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{base}" stroke="#999"/>'
        f'<text x="{left}" y="{height - 8}" class="axis">{x_name} {xs[0]:.0f}</text>'
        f'<text x="{edge}" y="{height - 8}" text-anchor="end" class="axis">{xs[1]:.0f}</text>'
        f'<text x="{left - 4}" y="{top + 10}" text-anchor="end" class="axis">{ys[1]:.0f}</text>'
        f'<text x="{left - 4}" y="{base}" text-anchor="end" class="axis">{ys[0]:.0f}</text>'
        f'<text x="4" y="{(top + base) / 2:.0f}" class="axis">{y_name}</text>'
    )


def _svg(width: int, height: int, title: str, body: str) -> str:
    return (
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>{body}</svg>"
    )
