"""A stand-alone game page for the viewer's browser tests, until `arena serve` and
`arena report` exist: the real template (arena/web/templates/game.html over a minimal
base.html) rendered with a game's outline, its deals' loader scripts beside it and the
static files copied, opened from file:// exactly as a static report is.

`python -m tests.browser.harness REPLAY.json OUT_DIR [public]` writes one to look at.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.play.replay_frames import SeatsShown, deal_script, game_frames, game_outline

WEB = Path(__file__).resolve().parents[2] / "arena" / "web"


def write_game_page(replay: Mapping[str, Any], out: Path, seats_shown: SeatsShown = "all") -> Path:
    """Write the game page of `replay` into `out` (index.html, deal-N.js, static/) and
    return the page's path."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(WEB / "static", out / "static", dirs_exist_ok=True)
    urls = []
    for doc in game_frames(replay, seats_shown):
        name = f"deal-{doc['deal']}.js"
        (out / name).write_text(deal_script(doc))
        urls.append(name)
    env = Environment(loader=FileSystemLoader(WEB / "templates"), autoescape=select_autoescape())
    env.globals["static"] = lambda name: f"static/{name}"
    page = env.get_template("game.html").render(
        outline=game_outline(replay, seats_shown), deal_urls=urls
    )
    (out / "index.html").write_text(page)
    return out / "index.html"


if __name__ == "__main__":
    shown: SeatsShown = "public" if sys.argv[3:] == ["public"] else "all"
    path = write_game_page(json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2]), shown)
    print(path.resolve().as_uri())
