"""Screenshots of the ladder site to look at, never taken by the tests: the table, the
bot whose rating chart marks its candidate's promotion, and the promoted version with
its gate report, over the ladder tests/browser/test_ladder_site.py uses (built in a
temporary folder, served by `arena ladder serve` on loopback, ended after).

`python -m tests.browser.ladder_screens OUT_DIR` (Chromium as the browser tests find
it: ARENA_CHROMIUM, else `chromium` on PATH; `make browser-tools` installs it)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from tests.browser.test_ladder_site import PROMOTE_AFTER


def take(out: Path) -> list[Path]:
    """The three screenshots, written into `out`; their paths."""
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import served
    from tests.support.site_ladder import build_ladder_db

    chromium = os.environ.get("ARENA_CHROMIUM") or shutil.which("chromium")
    if not chromium:
        raise SystemExit("no Chromium: `make browser-tools` installs it (or set ARENA_CHROMIUM)")
    out.mkdir(parents=True, exist_ok=True)
    shots = []
    with tempfile.TemporaryDirectory() as folder:
        db = build_ladder_db(Path(folder), promote_after=PROMOTE_AFTER)
        with served(db, command=("ladder", "serve")) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
            )
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{url}/")
            shots.append(out / "ladder-table.png")
            page.screenshot(path=str(shots[-1]), full_page=True)
            page.click('#ladder-table tr[data-entrant="alpha@2"] td:nth-child(2) a')
            page.wait_for_selector("#bot-chart g.mark")
            shots.append(out / "ladder-bot-promotion-mark.png")
            page.screenshot(path=str(shots[-1]), full_page=True)
            shots.append(out / "ladder-bot-chart.png")
            page.locator("#bot-chart").screenshot(path=str(shots[-1]))
            page.click('#bot-versions tr[data-entrant="alpha@2"] a')
            page.wait_for_selector("#gate-report")
            shots.append(out / "ladder-version-gate-report.png")
            page.screenshot(path=str(shots[-1]), full_page=True)
            browser.close()
    return shots


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m tests.browser.ladder_screens OUT_DIR")
    for shot in take(Path(sys.argv[1])):
        print(shot)
