"""A game page of any replay for the viewer's browser tests: rendered by the site's
own template and links exactly as `arena report` writes a game's page (the static
files copied beside it, the game's deals in one packed loader script), opened from
file://. Stored games are tested through `arena serve` and a real report too
(tests/browser/test_site.py); this page lets the tests choose the game (one with
faults, one still being played).

`python -m tests.browser.harness REPLAY.json OUT_DIR [public]` writes one to look at.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.play.replay_frames import SeatsShown, game_outline
from arena.web.links import ReportLinks
from arena.web.render import render_page
from arena.web.report import STATIC
from arena.web.viewer_data import game_pack

GAME_ID = 1


def write_game_page(replay: Mapping[str, Any], out: Path, seats_shown: SeatsShown = "all") -> Path:
    """Write the game page of `replay` into `out` and return the page's path."""
    links = ReportLinks()
    shutil.copytree(STATIC, out / "static", dirs_exist_ok=True)
    (out / "data").mkdir(parents=True, exist_ok=True)
    urls = [links.deal_data(GAME_ID, n + 1) for n in range(len(replay["deals"]))]
    (out / urls[0]).write_text(game_pack(replay, GAME_ID, seats_shown))  # every deal's
    context = {
        "title": "game",
        "game_id": GAME_ID,
        "league": None,
        "match_idx": None,
        "rotation": 0,
        "outline": game_outline(replay, seats_shown),
        "deal_urls": urls,
        "live_page": False,
    }
    page = out / links.game(GAME_ID)
    page.write_text(render_page("game.html", links, context))
    return page


if __name__ == "__main__":
    shown: SeatsShown = "public" if sys.argv[3:] == ["public"] else "all"
    path = write_game_page(json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2]), shown)
    print(path.resolve().as_uri())
