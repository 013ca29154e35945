"""Screenshots of the ladder site to look at, never taken by the tests: the table, the
bot whose rating chart marks its candidate's promotion, and the promoted version with
its gate report, over the ladder tests/browser/test_ladder_site.py uses (built in a
temporary folder, served by `arena ladder serve` on loopback, ended after); and the
author's side over tests/browser/test_ladder_authors.py's ladder: the upload form
with the gate's verdicts, a broken bot's report and log, and an upload refused.

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
        shots += _author_side(out, Path(folder) / "authors", chromium)
    return shots


def _author_side(out: Path, folder: Path, chromium: str) -> list[Path]:
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import served
    from tests.ladder.ladder_support import CRASH_AT_START, ok
    from tests.support.ladder_authors import author_ladder, bot_tar, tar_of

    folder.mkdir()
    ladder = author_ladder(folder, max_mb=1)
    files = {"webbot": bot_tar("webbot"), "crashbot": tar_of({"bot.py": CRASH_AT_START.encode()})}
    shots = []
    with served(ladder.db, command=("ladder", "serve")) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{url}/login")
        page.fill("#token", ladder.alice)
        page.click("form.stacked button[type=submit]")
        page.wait_for_url(f"{url}/author")

        def upload(bot: str, data: bytes) -> None:
            archive = folder / f"{bot}.tar.gz"
            archive.write_bytes(data)
            page.fill("#bot", bot)
            page.fill("#command", "python bot.py")
            page.set_input_files("#archive", str(archive))
            page.click("form[enctype] button[type=submit]")
            page.wait_for_load_state("load")

        for bot, data in files.items():
            upload(bot, data)
        ok("ladder", "run", "--db", str(ladder.db), "--matches", "2")
        upload("webbot", bot_tar("webbot", extra="# two"))
        shots.append(out / "ladder-author-upload-form.png")
        page.screenshot(path=str(shots[-1]), full_page=True)
        upload("slip", tar_of({"../../outside.py": b"x"}))
        shots.append(out / "ladder-author-upload-refused.png")
        page.screenshot(path=str(shots[-1]), full_page=True)
        page.goto(f"{url}/author/logs/crashbot/1")
        shots.append(out / "ladder-author-gate-report.png")
        page.screenshot(path=str(shots[-1]), full_page=True)
        browser.close()
    return shots


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m tests.browser.ladder_screens OUT_DIR")
    for shot in take(Path(sys.argv[1])):
        print(shot)
