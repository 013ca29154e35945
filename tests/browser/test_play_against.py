"""Issue 33.5, "play against this bot" in a real browser, on a league site served by
`arena serve` itself: the entrant's page offers the game, a click on its button sends
the visitor to their seat's page, a whole Trix game of one kingdom is played there by
clicking `data-action` elements to its end, no frame the page was sent holds a card
the seat could not see, the game's replay (the organiser's `--human-replays` folder)
passes the independent checker, the server printed no seat's secret, and the league's
database is untouched. The page with the form at a laptop's and a phone's width,
checked by axe-core, is left in build/screenshots/ (play-against-*.png)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import sqlite_utils

from tests.browser.conftest import SCREENSHOTS, served
from tests.browser.table_harness import (
    choose,
    dom_cards,
    frames_of,
    leaks,
    next_turn,
    page_step,
    visible,
)
from tests.browser.test_reader import _axe
from tests.independent import trix_checker
from tests.support.tiny_league import digest, tiny_db

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_visitor_plays_a_whole_game_against_an_entrant(browser, tmp_path: Path) -> None:
    db = tiny_db(tmp_path)
    before = digest(db)
    replays, printed = tmp_path / "replays", tmp_path / "serve.txt"
    flags = ("--human-games", "2", "--human-replays", str(replays))
    with served(db, *flags, output=printed) as url:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        responses: list = []
        page.on("response", lambda response: responses.append(response))
        try:
            page.goto(f"{url}/league/tiny/entrant/a")
            page.select_option("select[name=opponent] >> nth=1", "builtin:first")
            page.get_by_role("button", name="play against this bot").click()
            page.wait_for_url("**/seat/*")
            token = page.url.rsplit("/", 1)[-1]
            assert len(token) == 32
            rng, turns, seen = random.Random(5), 0, []
            while next_turn(page):
                seen.append((page_step(page), dom_cards(page)))
                choose(page, rng)
                turns += 1
                assert turns < 200
            status = page.locator("#status").inner_text()
            assert page.evaluate("() => document.body.dataset.state") == "over", status
            assert status.startswith("Game over.")
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "play-against-over.png"), full_page=True)
            frames = frames_of(responses)
        finally:
            context.close()
        assert errors == []
    (replay_path,) = sorted(replays.glob("game-*.json"))
    replay = json.loads(replay_path.read_text())
    assert trix_checker.check_replay(replay) == []
    assert replay["players"] == ["visitor", "a", "greedy", "first"]
    assert turns >= 13
    # no unseen card in any frame sent, nor in the document at any decision
    assert frames and not [leaks(replay, 0, f) for f in frames if leaks(replay, 0, f)]
    assert not [
        (step, cards - visible(replay, 0, *step))
        for step, cards in seen
        if cards - visible(replay, 0, *step)
    ]
    assert token not in printed.read_text(errors="replace")  # no secret printed
    assert digest(db) == before  # nothing of it stored in the league


def test_the_offer_reads_at_a_laptops_and_a_phones_width(browser, tmp_path: Path) -> None:
    db = tiny_db(tmp_path)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with served(db, "--human-games", "1") as url:
        for width, height, name in ((1280, 900, "desktop"), (390, 844, "phone")):
            context = browser.new_context(
                viewport={"width": width, "height": height}, bypass_csp=True
            )
            page = context.new_page()
            try:
                page.goto(f"{url}/league/tiny/entrant/a")
                offer = page.locator("#play")
                offer.scroll_into_view_if_needed()
                assert offer.get_by_role("button", name="play against this bot").is_visible()
                page.screenshot(path=str(SCREENSHOTS / f"play-against-{name}.png"))
                overflow = page.evaluate(
                    "() => document.documentElement.scrollWidth"
                    " - document.documentElement.clientWidth"
                )
                assert overflow <= 0, f"{overflow} px wider than the {name} screen"
                assert _axe(page) == []
            finally:
                context.close()


def test_the_visitors_choices_survive_the_page_following_the_league(
    browser, tmp_path: Path
) -> None:
    """The entrant's page follows the league (a match starting swaps the page in anew);
    the opponents the visitor picked in the form are still picked after the swap."""
    db = tiny_db(tmp_path)
    with served(db, "--human-games", "1") as url:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        try:
            page.goto(f"{url}/league/tiny/entrant/a")
            page.evaluate(
                "() => document.addEventListener('arena:refreshed',"
                " () => { window.swaps = (window.swaps || 0) + 1; })"
            )
            page.select_option("select[name=opponent] >> nth=0", "builtin:random")
            page.select_option("select[name=opponent] >> nth=1", "builtin:first")
            store = sqlite_utils.Database(db)
            (league_id,) = store.execute("SELECT id FROM leagues").fetchone()
            store["live_matches"].insert(  # a match of the league starts: the page changes
                {
                    "league_id": league_id,
                    "idx": 999,
                    "entrants": "[]",
                    "started_at": 1.0,
                    "run_pid": 1,
                }
            )
            store.conn.commit()
            page.wait_for_function("() => window.swaps >= 1", timeout=15_000)
            picked = page.eval_on_selector_all(
                "select[name=opponent]", "all => all.map(s => s.value)"
            )
            assert picked[:2] == ["builtin:random", "builtin:first"]
        finally:
            context.close()
