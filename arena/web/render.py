"""Pages from templates: one Jinja2 environment (HTML escaped by default), and the
helpers every template may use (`links`, `static`, `ago`, `made`)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from arena.web.links import Links

ENV = Environment(
    loader=PackageLoader("arena.web", "templates"),
    autoescape=select_autoescape(["html"]),
    undefined=StrictUndefined,  # a name a template misspells fails the page, not blanks it
    trim_blocks=True,
    lstrip_blocks=True,
)
# `tojson` writes JSON without spaces: a page's embedded data (a game's outline) is
# written into every game page of a static report, ten thousand of them in a big one.
ENV.policies["json.dumps_kwargs"] = {"sort_keys": True, "separators": (",", ":")}


def ago(timestamp: float | None) -> str:
    """A stored time as "12 s ago" / "3 min ago"."""
    if timestamp is None:
        return "-"
    seconds = max(0.0, time.time() - timestamp)
    if seconds < 90:
        return f"{seconds:.0f} s ago"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min ago"
    return f"{seconds / 3600:.1f} h ago"


def render_page(
    template: str, links: Links, context: dict[str, Any], made: str | None = None
) -> str:
    """`template` with `context`; `league` and `live_page` default to none and true.
    `made` is the time the page says it was made (now unless given: the static report
    gives a placeholder, so that a page whose content did not change is not rewritten)."""
    if made is None:
        made = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    values = {"league": None, "live_page": True, **context}
    return ENV.get_template(template).render(
        links=links, static=links.static, ago=ago, made=made, **values
    )
