"""The ladder's public site (`arena ladder serve`) in a real browser, over the small
ladder of tests/support/site_ladder.py with its candidate promoted part-way through
the run: the table, then a click through to a bot whose rating chart marks the
promotion, to the promoted version with its gate report, and into the replay viewer
for one of its games, each page free of JavaScript errors and of serious axe-core
violations (the check tests/browser/test_reader.py runs on the league site); the
matches and a version's games filtered through the pages' own links show exactly the
rows that match; and no hostile name (an `<img onerror>`, a `<script>`) ever runs on
any page visited, even with the site's CSP switched off.

`python -m tests.browser.ladder_screens OUT_DIR` saves screenshots of these pages;
the tests themselves write only under pytest's tmp."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

import pytest

from arena.web.ladder.params import LIMIT_DEFAULT
from tests.browser.conftest import served
from tests.browser.test_reader import _axe
from tests.support.site_ladder import (
    HOSTILE_AUTHOR,
    HOSTILE_BOT,
    HOSTILE_HOUSE,
    LADDER,
    build_ladder_db,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROMOTE_AFTER = 7  # of the fixture's 14 matches: the promotion is mid-chart
HOSTILE = (HOSTILE_AUTHOR, HOSTILE_BOT, HOSTILE_HOUSE, LADDER)

# Every way the fixture's names could run script, made to leave a mark instead of a
# dialog: alert/confirm/prompt set window.__pwned (the names call alert()).
TRAP = """
for (const name of ["alert", "confirm", "prompt"]) {
  window[name] = (...args) => {
    window.__pwned = (window.__pwned || []).concat([[name, ...args]]);
  };
}
"""


@pytest.fixture(scope="module")
def ladder_db(tmp_path_factory) -> Path:
    return build_ladder_db(tmp_path_factory.mktemp("ladder-browser"), promote_after=PROMOTE_AFTER)


@pytest.fixture(scope="module")
def ladder(ladder_db) -> Iterator[str]:
    """`arena ladder serve` on loopback, ended with the module."""
    with served(ladder_db, command=("ladder", "serve")) as url:
        assert url.startswith("http://127.0.0.1:")
        yield url


class Tab:
    """A browser page that records what would be wrong on any page it shows: a
    JavaScript error or a console error (a CSP refusal is one), a dialog opened, and
    script a name ran (`window.__pwned`)."""

    def __init__(self, browser, bypass_csp: bool) -> None:
        self.context = browser.new_context(
            viewport={"width": 1280, "height": 900}, bypass_csp=bypass_csp
        )
        self.context.add_init_script(TRAP)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda err: self.errors.append(f"{self.page.url}: {err}"))
        self.page.on(
            "console",
            lambda m: (
                self.errors.append(f"{self.page.url}: {m.text}") if m.type == "error" else None
            ),
        )
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog) -> None:
        self.dialogs.append(f"{self.page.url}: {dialog.message}")
        dialog.dismiss()

    def settle(self) -> None:
        """Wait for the page (and, on a game page, the viewer's first step)."""
        self.page.wait_for_load_state("load")
        if urlsplit(self.page.url).path.startswith("/game/"):
            self.page.wait_for_selector("#step-label[data-step]")

    def unharmed(self) -> None:
        """No name ran as script on the page shown, none made an element that could
        (an image, a handler, a script other than the JSON data the viewer reads), and
        nothing went wrong on it."""
        page = self.page
        assert page.evaluate("window.__pwned") is None, (page.url, page.evaluate("window.__pwned"))
        assert self.dialogs == [], self.dialogs
        made = page.evaluate(
            """() => ({
              img: document.querySelectorAll('img[src="x"], img[onerror]').length,
              scripts: [...document.scripts].filter(
                s => s.type !== "application/json" && /alert\\(/.test(s.textContent)).length,
              handlers: [...document.querySelectorAll('*')].filter(
                e => [...e.attributes].some(a => a.name.startsWith('on'))).length,
            })"""
        )
        assert made == {"img": 0, "scripts": 0, "handlers": 0}, (page.url, made)
        assert self.errors == [], self.errors

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def tab(browser) -> Iterator[Tab]:
    """A page under the site's own CSP, as a visitor's browser shows it."""
    opened = Tab(browser, bypass_csp=False)
    yield opened
    opened.close()


@pytest.fixture
def checker(browser) -> Iterator[Tab]:
    """A page with the CSP bypassed: axe-core can be injected, and an escaped name is
    shown to be escaped rather than merely blocked by the CSP."""
    opened = Tab(browser, bypass_csp=True)
    yield opened
    opened.close()


def accessible(checker: Tab, url: str) -> dict[str, list[dict]]:
    """axe-core's serious and critical violations of the page at `url`, at a laptop's
    width and a phone's (none when all is well); the page must be unharmed too."""
    found = {}
    for width in (1280, 390):
        checker.page.set_viewport_size({"width": width, "height": 900})
        checker.page.goto(url)
        checker.settle()
        checker.unharmed()
        violations = _axe(checker.page)
        if violations:
            found[f"{urlsplit(url).path} at {width}"] = violations
    checker.page.set_viewport_size({"width": 1280, "height": 900})
    return found


def test_the_table_loads_clean_and_passes_axe(tab, checker, ladder) -> None:
    tab.page.goto(f"{ladder}/")
    tab.settle()
    assert tab.page.locator("#ladder-table tbody tr").count() >= 4
    assert LADDER in tab.page.inner_text("h1")  # the hostile ladder name, as text
    shown = tab.page.eval_on_selector_all(
        "#ladder-table tbody tr", "rows => rows.map(r => r.dataset.entrant)"
    )
    assert "alpha@2" in shown and "alpha@1" not in shown  # the promoted version plays
    tab.unharmed()
    assert accessible(checker, tab.page.url) == {}


def test_table_to_bot_to_version_to_viewer(tab, checker, ladder) -> None:
    """A click at each step, from the table to a game of the promoted version."""
    page = tab.page
    page.goto(f"{ladder}/")
    tab.settle()
    page.click('#ladder-table tr[data-entrant="alpha@2"] td:nth-child(2) a')
    page.wait_for_selector("#bot-chart")
    tab.settle()
    assert urlsplit(page.url).path == "/bot/alpha"
    marks = page.eval_on_selector_all("#bot-chart g.mark title", "ts => ts.map(t => t.textContent)")
    assert f"alpha@2 active (match {PROMOTE_AFTER})" in marks, marks
    mark = page.locator("#bot-chart g.mark").filter(has_text="alpha@2 active")
    assert mark.locator("line").count() == 1 and mark.is_visible()
    chart = page.locator("#bot-chart svg").bounding_box()
    line = mark.locator("line").bounding_box()
    assert chart["x"] + 40 < line["x"] < chart["x"] + chart["width"] - 40  # inside, mid-chart
    states = page.eval_on_selector_all(
        "#bot-versions tbody td.state", "cells => cells.map(c => c.textContent)"
    )
    assert states == ["retired", "active"]
    tab.unharmed()
    assert accessible(checker, page.url) == {}

    page.click('#bot-versions tr[data-entrant="alpha@2"] a')
    page.wait_for_selector("#gate-report")
    tab.settle()
    assert urlsplit(page.url).path == "/bot/alpha/version/2"
    assert page.inner_text("#state").startswith("active: promoted by its author")
    report = page.inner_text("#gate-report")
    assert "PASSED on try 1 of 3" in report and "[validation] ok" in report
    said = "passed after 1 try: start passed, check-bot passed, validation passed"
    assert said in page.inner_text("main")
    tab.unharmed()
    assert accessible(checker, page.url) == {}

    first = page.locator("#version-games tbody tr").first
    game = first.locator("td:first-child a").inner_text()
    first.locator("td:first-child a").click()
    page.wait_for_selector("#step-label[data-step]")
    tab.settle()
    assert urlsplit(page.url).path == f"/game/{game}"
    outline = json.loads(page.text_content("#game-outline"))
    assert "alpha@2" in outline["players"], outline["players"]
    assert page.locator("[data-card]").count() > 0  # the viewer drew the deal's cards
    page.click("#next")
    page.wait_for_function("() => Number(document.getElementById('step-label').dataset.step) >= 1")
    tab.unharmed()
    assert accessible(checker, page.url) == {}


def _rows(page) -> list[list[str]]:
    """Each row of the matches list: the versions it names."""
    return page.eval_on_selector_all(
        "#ladder-matches tbody tr",
        "rows => rows.map(r => [...r.cells[3].querySelectorAll('bdi')].map(b => b.textContent))",
    )


def _everything(tab: Tab, ladder: str) -> list[list[str]]:
    tab.page.goto(f"{ladder}/matches?limit=500")
    tab.settle()
    return _rows(tab.page)


def test_the_matches_filtered_through_the_links_show_only_matching_rows(tab, ladder) -> None:
    every = _everything(tab, ladder)
    page = tab.page
    page.goto(f"{ladder}/bot/alpha")
    tab.settle()
    page.click("text=its matches")
    page.wait_for_selector("#filter")
    assert parse_qs(urlsplit(page.url).query) == {"bot": ["alpha"]}
    alphas = _rows(page)
    expected = [r for r in every if any(e.startswith("alpha@") for e in r)]
    assert alphas == expected[: len(alphas)] and 0 < len(alphas) < len(every)
    assert len(alphas) == min(len(expected), LIMIT_DEFAULT)  # a page of the default size

    # a version's name in a row: that version's matches, the bot's filter kept
    page.locator("#ladder-matches tbody a", has_text="alpha@2").first.click()
    page.wait_for_url(re.compile(r"version=alpha%402"))
    tab.settle()
    assert parse_qs(urlsplit(page.url).query) == {"bot": ["alpha"], "version": ["alpha@2"]}
    assert "version alpha@2" in page.inner_text("#filter")
    own = _rows(page)
    assert own and all("alpha@2" in r for r in own)
    assert own == [r for r in every if "alpha@2" in r]

    # an opponent's version in a row of those: alpha's matches against it
    opponent = next(e for e in own[0] if not e.startswith("alpha@"))
    page.locator("#ladder-matches tbody tr").first.locator("a", has_text=opponent).click()
    page.wait_for_url(lambda u: parse_qs(urlsplit(u).query).get("version") == [opponent])
    tab.settle()
    assert parse_qs(urlsplit(page.url).query) == {"bot": ["alpha"], "version": [opponent]}
    against = _rows(page)
    met = [r for r in every if opponent in r and any(e.startswith("alpha@") for e in r)]
    assert against and against == met
    page.click("#filter a")  # "every match"
    tab.settle()
    assert urlsplit(page.url).query == "" and len(_rows(page)) == min(len(every), LIMIT_DEFAULT)

    # the address's opponent filter, as the page's hint tells: version and opponent
    page.goto(f"{ladder}/matches?version=alpha@2&opponent=greedy&limit=500")
    tab.settle()
    both = _rows(page)
    wanted = [r for r in every if "alpha@2" in r and any(e.startswith("greedy@") for e in r)]
    assert both == wanted and 0 < len(both) < len(own)
    tab.unharmed()


def test_a_versions_games_filtered_by_an_opponent_through_its_link(tab, ladder) -> None:
    page = tab.page
    page.goto(f"{ladder}/bot/alpha/version/2?limit=500")
    tab.settle()
    games = page.locator("#version-games tbody tr")
    total = games.count()
    assert total > 0
    link = games.first.locator('a[title^="only the games against"]').first
    opponent = link.inner_text()
    link.click()
    page.wait_for_selector("#filter")
    tab.settle()
    assert parse_qs(urlsplit(page.url).query) == {"opponent": [opponent]}
    players = page.eval_on_selector_all(
        "#version-games tbody tr",
        "rows => rows.map(r => [...r.cells[3].querySelectorAll('bdi')].map(b => b.textContent))",
    )
    assert players and all(opponent in p and "alpha@2" in p for p in players)
    assert len(players) < total
    page.goto(f"{ladder}/bot/alpha/version/2?limit=500")
    tab.settle()
    every = page.eval_on_selector_all(
        "#version-games tbody tr",
        "rows => rows.map(r => [...r.cells[3].querySelectorAll('bdi')].map(b => b.textContent))",
    )
    assert len(players) == len([p for p in every if opponent in p])  # every one of them
    tab.unharmed()


def _pages_to_visit(tab: Tab, ladder: str) -> list[str]:
    """Every page the table links to and each page those link to, at most a few of each
    kind (a match, a game), and always those whose address holds a hostile name."""
    page = tab.page
    seen: list[str] = []
    kinds: dict[str, int] = {}
    todo = [f"{ladder}/"]
    while todo and len(seen) < 60:
        url = todo.pop(0)
        if url in seen:
            continue
        seen.append(url)
        page.goto(url)
        tab.settle()
        tab.unharmed()
        for href in page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)"):
            href = href.split("#")[0]
            parts = urlsplit(href)
            if not href.startswith(ladder) or parts.path.startswith(("/api/", "/static/")):
                continue
            kind = re.sub(r"\d+", "N", parts.path) + ("?" if parts.query else "")
            hostile = "<" in unquote(href)
            if href not in seen and href not in todo and (hostile or kinds.get(kind, 0) < 3):
                kinds[kind] = kinds.get(kind, 0) + 1
                todo.append(href)
    return seen


def test_no_hostile_name_runs_script_on_any_page(tab, checker, ladder) -> None:
    """Every page the crawl reaches, under the CSP and again without it (so a name that
    ran would show even were the CSP to block it), and a game the hostile house bot
    played, whose names the viewer writes into the page itself."""
    visited = _pages_to_visit(tab, ladder)
    paths = {unquote(urlsplit(u).path) for u in visited}
    assert f"/bot/{HOSTILE_HOUSE}" in paths and f"/bot/{HOSTILE_BOT}" in paths
    assert f"/bot/{HOSTILE_BOT}/version/1" in paths and "/bot/alpha" in paths
    assert any(p.startswith("/game/") for p in paths) and "/faults" in paths
    assert "/queue" in paths and any(p.startswith("/match/") for p in paths)
    tab.page.goto(f"{ladder}/bot/{quote(HOSTILE_HOUSE, safe='')}")
    tab.settle()
    tab.page.locator("#bot-versions tbody a").first.click()
    tab.page.wait_for_selector("#version-games")
    tab.page.locator("#version-games tbody tr td:first-child a").first.click()
    tab.page.wait_for_selector("#step-label[data-step]")
    hostile_game = tab.page.url
    players = json.loads(tab.page.text_content("#game-outline"))["players"]
    assert f"{HOSTILE_HOUSE}@1" in players, players
    for _ in range(8):
        tab.page.click("#next")  # steps drawn by the viewer, with the names in them
    assert HOSTILE_HOUSE in tab.page.inner_text("#viewer")
    tab.unharmed()
    for url in [*visited, hostile_game]:  # the crawl saw each under the CSP; now without
        checker.page.goto(url)
        checker.settle()
        checker.unharmed()
    shown = tab.page
    shown.goto(f"{ladder}/")
    text = shown.inner_text("body")
    assert HOSTILE_HOUSE in text and HOSTILE_AUTHOR in text  # shown, as text
