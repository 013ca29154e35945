"""An author's day on the ladder site, in a real browser against `arena ladder serve`
while `arena ladder run` checks and plays: sign in with the token, upload a bot and a
broken one through the form, watch the gate pass one and refuse the other (its report
and log), see the version on the table, upload a second version and promote it; and
the attacks: a form sent with a wrong or missing form token, another author's pages,
an upload past the cap and a zip slip through the form, traversal on the author's
routes, and names and commands that are script. Every author page is checked by
axe-core and left unharmed (no name ran as script)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from arena.ladder.runner import run_ladder
from tests.browser.conftest import served
from tests.browser.test_ladder_site import Tab
from tests.browser.test_reader import _axe
from tests.ladder.ladder_support import CRASH_AT_START, ok, versions
from tests.support.ladder_authors import AUTHORS, author_ladder, bot_tar, tar_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HOSTILE_COMMAND = 'python bot.py "<img src=x onerror=alert(3)>"'


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[tuple[str, object, Path]]:
    folder = tmp_path_factory.mktemp("ladder-authors")
    ladder = author_ladder(folder, max_mb=1)
    with served(ladder.db, command=("ladder", "serve")) as url:
        yield url, ladder, folder


def sign_in(tab: Tab, url: str, token: str) -> None:
    tab.page.goto(f"{url}/login")
    tab.page.fill("#token", token)
    tab.page.click("form.stacked button[type=submit]")
    tab.page.wait_for_url(f"{url}/author")


def upload(tab: Tab, archive: Path, bot: str, command: str = "python bot.py") -> str:
    """The author page's upload form sent; what the page then says."""
    page = tab.page
    page.fill("#bot", bot)
    page.fill("#command", command)
    page.set_input_files("#archive", str(archive))
    page.click("form[enctype] button[type=submit]")
    page.wait_for_load_state("load")
    said = page.locator("#said, #form-error")
    return said.first.inner_text() if said.count() else ""


def checked(tab: Tab) -> None:
    """The page shown is unharmed and free of serious axe-core violations, at a
    laptop's width and a phone's."""
    for width in (1280, 390):
        tab.page.set_viewport_size({"width": width, "height": 900})
        tab.unharmed()
        assert _axe(tab.page) == [], (tab.page.url, width)
    tab.page.set_viewport_size({"width": 1280, "height": 900})


def state_of(tab: Tab, entrant: str) -> str:
    return tab.page.locator(f'tr[data-entrant="{entrant}"] td.state').inner_text()


def live_state(tab: Tab, entrant: str, state: str) -> None:
    """Wait (at most 20 s) for the page to show `entrant` in `state` without a reload."""
    tab.page.wait_for_function(
        """([entrant, state]) => {
          const cell = document.querySelector(`tr[data-entrant="${entrant}"] td.state`);
          return cell !== null && cell.textContent.trim().startsWith(state);
        }""",
        arg=[entrant, state],
        timeout=20_000,
    )


@pytest.fixture
def author_tab(browser) -> Iterator[Tab]:
    """A page with the CSP bypassed, so that axe-core can be injected (the escaping
    is then what keeps names from running, not the CSP)."""
    opened = Tab(browser, bypass_csp=True)
    yield opened
    opened.close()


@pytest.fixture
def stranger(browser) -> Iterator[Tab]:
    opened = Tab(browser, bypass_csp=False)
    yield opened
    opened.close()


def test_an_authors_day_sign_in_upload_gate_table_promote(site, author_tab, stranger) -> None:
    url, ladder, folder = site
    tab = author_tab
    tab.page.goto(f"{url}/login")
    checked(tab)
    sign_in(tab, url, ladder.alice)
    assert "signed in as alice" in " ".join(tab.page.inner_text("nav.account").split())
    checked(tab)

    good, broken = folder / "good.tar.gz", folder / "broken.tar.gz"
    good.write_bytes(bot_tar("webbot"))
    broken.write_bytes(tar_of({"bot.py": CRASH_AT_START.encode()}))
    assert "webbot@1 submitted" in upload(tab, good, "webbot")
    assert "crashbot@1 submitted" in upload(tab, broken, "crashbot")
    third = folder / "third.tar.gz"
    third.write_bytes(bot_tar("thirdbot"))
    assert "thirdbot@1 submitted" in upload(tab, third, "thirdbot")
    assert state_of(tab, "webbot@1").startswith("checking")
    checked(tab)

    tab.page.fill("#bot", "typed, not lost")
    ok("ladder", "run", "--db", str(ladder.db), "--matches", "2")  # the gate, then play
    live_state(tab, "crashbot@1", "refused")  # the page follows the gate by itself
    live_state(tab, "webbot@1", "active")
    assert tab.page.input_value("#bot") == "typed, not lost"  # the form was left alone
    assert state_of(tab, "webbot@1").startswith("active"), state_of(tab, "webbot@1")
    assert state_of(tab, "crashbot@1").startswith("refused"), state_of(tab, "crashbot@1")
    tab.page.click('tr[data-entrant="crashbot@1"] a:text("report and logs")')
    tab.page.wait_for_url(re.compile(r".*/author/logs/crashbot/1$"))
    report = tab.page.inner_text("#gate-report")
    assert "REFUSED" in report, report
    assert "this bot cannot start" in tab.page.inner_text("main")  # its own log, to the author
    assert "webbot" not in tab.page.inner_text("main")  # no other version's log
    checked(tab)

    tab.page.goto(f"{url}/")
    assert "webbot" in tab.page.inner_text("main")  # on the table
    tab.page.goto(f"{url}/author")
    second = folder / "second.tar.gz"
    second.write_bytes(bot_tar("webbot", extra="\n# a second version\n"))
    assert "webbot@2 submitted" in upload(tab, second, "webbot")
    ok("ladder", "run", "--db", str(ladder.db), "--matches", "1")
    tab.page.reload()
    assert state_of(tab, "webbot@2").startswith("candidate"), state_of(tab, "webbot@2")
    tab.page.click('button[aria-label="promote webbot@2"]')
    tab.page.wait_for_load_state("load")
    assert "webbot@2 is active" in tab.page.inner_text("#said")
    assert state_of(tab, "webbot@1").startswith("retired")
    assert versions(ladder.db)["webbot@2"]["state"] == "active"

    # a test match asked for on the page, played unrated, watched from the author's seat
    tab.page.select_option("#test-version", "webbot@2")
    for n, opponent in enumerate(("greedy@1", "random@1", "thirdbot@1"), start=1):
        tab.page.select_option(f"#opponent-{n}", opponent)
    tab.page.click('form[action="/author/tests"] button[type=submit]')
    tab.page.wait_for_load_state("load")
    assert "test match 1 queued: webbot@2 against" in tab.page.inner_text("#said")
    checked(tab)
    run_ladder(ladder.db, workers=1, matches=0)  # the test match alone
    tab.page.goto(f"{url}/author/tests/1")
    assert tab.page.inner_text("#test-state").startswith("stored")
    checked(tab)
    tab.page.click("#test-games li:first-child a")
    tab.page.wait_for_selector("#step-label[data-step]")
    seat = tab.page.evaluate("JSON.parse(document.getElementById('game-outline').textContent)")
    seat = seat["seats_shown"]
    options = tab.page.locator("#seat-view option")
    assert options.count() == 1 and tab.page.locator("#seat-view").is_disabled()
    for other in range(4):  # face up: the author's seat's hand; every other hand face down
        face = tab.page.get_attribute(f"#seat-{other} .hand", "data-face")
        assert (face == "up") == (other == seat), (other, seat, face)
    checked(tab)

    # another author's pages and a stranger's visit
    sign_in(stranger, url, ladder.mallory)
    for path in ("/author/logs/crashbot/1", "/author/logs/webbot/2", "/author/tests/1"):
        answer = stranger.page.goto(url + path)
        assert answer.status == 404, path
        assert "this bot cannot start" not in stranger.page.inner_text("main")
    assert "crashbot" not in stranger.page.goto(f"{url}/author").text()


def test_attacks_through_the_forms(site, author_tab, stranger, browser) -> None:
    url, ladder, folder = site
    tab = stranger
    sign_in(tab, url, ladder.mallory)
    assert AUTHORS[1] in tab.page.inner_text("nav.account")  # shown as text, never run
    tab.unharmed()

    # a form sent with a wrong form token, and with none
    for token in ("wrong-" + "x" * 30, None):
        tab.page.goto(f"{url}/author")
        script = (
            "t => { const f = document.querySelector('form[enctype]'); "
            "const c = f.querySelector('[name=csrf]'); if (t === null) c.remove(); "
            "else c.value = t; }"
        )
        tab.page.evaluate(script, token)
        slipped = folder / "plain.tar.gz"
        slipped.write_bytes(bot_tar("forged"))
        said = upload(tab, slipped, "forged")
        assert "form" in said and "token" in said, said
    assert "forged@1" not in versions(ladder.db)

    # past the cap, a zip slip, a link out
    tab.page.goto(f"{url}/author")
    big = folder / "big.tar.gz"
    big.write_bytes(tar_of({"bot.py": b"x", "blob": os.urandom(2 << 20)}))
    assert "larger than this ladder takes (1 MiB" in upload(tab, big, "big")
    slip = folder / "slip.tar.gz"
    slip.write_bytes(tar_of({"../../outside.py": b"x"}))
    assert "outside.py" in upload(tab, slip, "slip")
    assert not (folder.parent / "outside.py").exists()

    # the refusals above are the only errors the browser saw: their own answers
    assert all("/author/submissions: Failed to load resource" in e for e in tab.errors)
    tab.errors.clear()

    # script in a command is shown as text on every page it reaches
    evil = folder / "evil.tar.gz"
    evil.write_bytes(bot_tar("evil"))
    assert "evil@1 submitted" in upload(tab, evil, "evil", HOSTILE_COMMAND)
    for path in ("/author", "/bot/evil", "/bot/evil/version/1", "/"):
        tab.page.goto(url + path)
        tab.unharmed()
    source = tab.page.goto(f"{url}/bot/evil/version/1").text()
    assert "&lt;img src=x onerror=alert(3)&gt;" in source and "<img src=x" not in source

    # traversal on the author's routes
    for path in (
        "/author/logs/..%2F..%2Fetc/1",
        "/author/logs/evil/..%2F1",
        "/author/../../etc/passwd",
        "/author/logs/evil/1/../../../../etc/passwd",
    ):
        answer = tab.page.goto(url + path)
        assert answer.status in (400, 404), (path, answer.status)
        assert "root:" not in tab.page.content()
    assert urlsplit(tab.page.url).netloc == urlsplit(url).netloc
