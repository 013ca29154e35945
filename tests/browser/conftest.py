"""The browser tests' page: the game viewer of a replay, opened in Chromium through
Playwright. For now the page is the stand-alone one tests/browser/harness.py writes
(from file://, as a static report is opened); `game_page` is the one place to point the
tests at `arena serve` or `arena report` instead.

Playwright and Chromium are part of the test set-up: when either is missing the tests
fail, saying so, and are never skipped."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.browser.harness import write_game_page

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
SCREENSHOTS = BUILD / "screenshots"
CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
MISSING = "; `make test` installs them (Playwright, Chromium, Jinja2)"


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError as err:
        pytest.fail(f"the browser tests need Playwright ({err}){MISSING}", pytrace=False)
    if not Path(CHROMIUM).exists():
        pytest.fail(f"the browser tests need Chromium at {CHROMIUM}{MISSING}", pytrace=False)
    with sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        except Error as err:
            pytest.fail(f"Chromium at {CHROMIUM} did not start ({err}){MISSING}", pytrace=False)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A laptop-sized page that fails the test on any JavaScript error, and leaves a
    screenshot in build/screenshots/ named after the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield tab
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^\w.-]+", "-", request.node.name).strip("-")
    try:
        tab.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    finally:
        context.close()
    assert errors == [], errors


@pytest.fixture
def game_page(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., str]:
    """The URL of the game page of a replay (`seats_shown` as replay_frames has it)."""

    def url(replay: Mapping[str, Any], seats_shown: str = "all") -> str:
        out = tmp_path_factory.mktemp("game-page")
        try:
            return write_game_page(replay, out, seats_shown).as_uri()  # type: ignore[arg-type]
        except ImportError as err:  # jinja2, which renders the page's template
            pytest.fail(f"the browser tests need {err.name}{MISSING}", pytrace=False)

    return url
