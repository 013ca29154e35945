"""Headless Chromium against the league site: a small real league database, `arena
serve` over it, and a browser page per test that leaves a screenshot in
build/screenshots/. `make test` installs Chromium (Debian's `chromium`, with apt-get
as root) and Playwright; without them these tests fail saying so, never skip."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.browser.harness import write_game_page
from tests.support.site_league import build_site_db

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
HOW = (
    "`make browser-tools` installs Chromium (`apt-get install chromium`, as root) and "
    "`make test` does too; Playwright with `pip install -e '.[test]'`; or set "
    "ARENA_CHROMIUM to a Chromium binary"
)


def chromium_path() -> str:
    """The Chromium binary the tests drive (ARENA_CHROMIUM, else `chromium` on PATH)."""
    found = os.environ.get("ARENA_CHROMIUM") or shutil.which("chromium")
    if not found:
        pytest.fail(f"no Chromium for the browser tests: {HOW}", pytrace=False)
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Chromium under Playwright, for one test module: Playwright's sync API keeps an
    event loop running on this thread while it is open, so it is closed before the
    tests of other modules, which run event loops of their own."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(f"Playwright is not installed: {HOW}", pytrace=False)
    executable = chromium_path()
    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(
                executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
            )
        except Exception as err:  # the message says what the browser lacked
            pytest.fail(f"Chromium at {executable} does not start ({err}): {HOW}", pytrace=False)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, request) -> Iterator[object]:
    """A fresh page (laptop-sized); its screenshot is saved when the test ends."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda err: errors.append(str(err)))
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield tab
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    name = request.node.name.replace("/", "_").replace("[", "-").replace("]", "")
    with contextlib.suppress(Exception):
        tab.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    context.close()
    assert errors == [], f"the page raised JavaScript errors: {errors}"


@pytest.fixture(scope="session")
def site_db(tmp_path_factory) -> Path:
    return build_site_db(tmp_path_factory.mktemp("site"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def served(
    db: Path, *flags: str, command: tuple[str, ...] = ("serve",), output: Path | None = None
) -> Iterator[str]:
    """`arena serve` (or `command`: `("ladder", "serve")`) over `db` on a free loopback
    port, ended when the block ends; what it prints goes to `output` when given."""
    port = free_port()
    sink = output.open("wb") if output is not None else subprocess.PIPE
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *command, "--db", str(db), "--port", str(port), *flags],
        stdout=sink,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/version", timeout=2).read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    out = process.communicate(timeout=5)[0] if process.poll() is not None else b""
                    said = " ".join(command)
                    raise AssertionError(f"arena {said} did not start: {out!r}") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if output is not None:
            sink.close()  # type: ignore[union-attr]


@pytest.fixture(scope="session")
def server(site_db) -> Iterator[str]:
    with served(site_db) as url:
        yield url


@pytest.fixture
def game_page(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., str]:
    """The URL of the game page of any replay (`seats_shown` as replay_frames has it),
    written as `arena report` writes a game's page and opened from file://."""

    def url(replay: Mapping[str, Any], seats_shown: str = "all") -> str:
        return write_game_page(replay, tmp_path_factory.mktemp("game-page"), seats_shown).as_uri()

    return url
