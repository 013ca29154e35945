"""Issue 33, a person at the table (docs/human.md), in a real browser: whole games of
both games played by clicking `data-action` elements (Trix of one kingdom through the
`arena play` command itself, Trianon through its session), every decision kind met,
the replays passing the independent checker; no card the seat could not see in any
frame the page was sent nor in its document, at every step; two people at one table
each seeing only their own hand; a closed tab and a timed out seat giving fallbacks
with faults while the game goes on to its end; a game played from the keyboard alone;
the page at a phone's width; axe-core finding no serious violation.

What a seat may see is worked out from the replay (its hand as dealt, the cards played
or exposed so far), never read back from the page."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from typing import Any

import pytest

from arena.games import get_game
from arena.play.deal_keys import game_seed
from tests.browser.conftest import SCREENSHOTS
from tests.browser.table_harness import (
    choose,
    choose_action,
    dom_cards,
    frames_of,
    leaks,
    next_turn,
    page_step,
    settled,
    table,
    visible,
)
from tests.browser.test_reader import _axe
from tests.independent import trianon_checker, trix_checker

pytestmark = [pytest.mark.browser, pytest.mark.slow]

KEY = "0123456789abcdef0123456789abcdef"  # a fixed deal key: the seats' cards are known
LINK = re.compile(r"^human seat (\d) \((.+)\): (http://127\.0\.0\.1:\d+/seat/[A-Za-z0-9_-]{32})$")
TRIX_KINDS = {"contract", "expose", "play", "pass"}
TRIANON_KINDS = {"bid", "raise", "play"}


def every_kind_seat(rules: dict[str, str]) -> tuple[str, int]:
    """A seed whose Trix game 1 under KEY, every seat playing its first legal action,
    asks its King every decision kind; and the King's seat."""
    game = get_game("trix")
    options = game.parse_options(rules)
    for seed in (str(n) for n in range(1, 200)):
        state = game.new_game(game_seed(KEY, f"{seed}-1"), options)
        king, kinds = game.observe(state, 0).king, set()
        while state.to_move >= 0:
            if state.to_move == king:
                kinds.add(state.kind)
            game.apply_legal(state, state.legal[0])
        if kinds == TRIX_KINDS:
            return seed, king
    raise AssertionError("no seed of these asks its King every kind")


def play_out(page: Any, replay_seat: int, rng: random.Random, *, bid_high: bool = False):
    """Play the page's seat to the game's end by clicks; the kinds asked and, at each
    decision, (step, cards in the document)."""
    kinds, seen = set(), []
    while next_turn(page):
        kinds.add(page.evaluate("() => document.body.dataset.kind"))
        seen.append((page_step(page), dom_cards(page)))
        choose(page, rng, bid_high=bid_high)
    seen.append((page_step(page), dom_cards(page)))
    return kinds, seen


def no_leak(replay: dict, seat: int, frames: list[dict], seen: list) -> None:
    """No frame sent to `seat`'s page, and no document it showed, held a card the seat
    could not see at that step."""
    assert frames, "the page was sent no frames"
    assert all("hands" not in json.dumps(f) for f in frames)
    for frame in frames:
        assert leaks(replay, seat, frame) == set(), frame["view"]["deal"]
    for (deal, events), cards in seen:
        assert cards <= visible(replay, seat, deal, events), (deal, events)


def test_a_one_kingdom_trix_game_is_played_by_clicks_through_arena_play(page, tmp_path) -> None:
    seed, seat = every_kind_seat({"kingdoms": "1"})
    specs = ["builtin:first"] * 4
    specs[seat] = "human:ana"
    replays, db = tmp_path / "replays", tmp_path / "arena.db"
    command = [sys.executable, "-m", "arena.cli", "play", *specs, "--game", "trix",
               "--rules", "kingdoms=1", "--deal-key", KEY, "--seed", seed,
               "--replays", str(replays), "--db", str(db), "--sandbox", "off"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stderr.readline().strip()
        found = LINK.match(line)
        assert found, line
        assert (int(found.group(1)), found.group(2)) == (seat, "ana")
        responses: list = []
        page.on("response", lambda r: responses.append(r))
        page.goto(found.group(3))
        kinds, seen = set(), []
        while next_turn(page):  # the first legal action, as the bots: every kind comes
            frame = frames_of(responses)[-1]
            kinds.add(frame["kind"])
            seen.append((page_step(page), dom_cards(page)))
            choose_action(page, frame["legal"][0])
        frames = frames_of(responses)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert kinds == TRIX_KINDS
    assert "ana" in out and "Game over" in page.locator("#status").inner_text()
    replay = json.loads((replays / "game-0001.json").read_text())
    assert replay["players"][seat] == "ana" and replay.get("faults", []) == []
    assert trix_checker.check_replay(replay) == []
    no_leak(replay, seat, frames, seen)
    assert "stored 1 game" in err
    page.screenshot(path=str(SCREENSHOTS / "table-trix-over.png"), full_page=True)


def test_a_trianon_game_is_played_by_clicks_with_every_kind(page, tmp_path) -> None:
    specs = ["builtin:first", "human", "builtin:first"]
    responses: list = []
    page.on("response", lambda r: responses.append(r))
    with table(specs, "trianon", {"max_deals": "2"}, replays=tmp_path, deal_key=KEY) as held:
        page.goto(held.links[1])
        kinds, seen = play_out(page, 1, random.Random(2), bid_high=True)
        frames = frames_of(responses)
        (played,) = held.wait()
    assert kinds == TRIANON_KINDS
    replay = played.result.replay
    assert 1 <= len(replay["deals"]) <= 2 and played.result.faults == []
    assert trianon_checker.check_replay(replay) == []
    assert trianon_checker.check_replay(json.loads((tmp_path / "game-0001.json").read_text())) == []
    no_leak(replay, 1, frames, seen)
    assert page.locator("#deal-end").is_visible()
    assert page.locator("#scores tr.total td").count() == 3


def test_two_people_at_one_table_each_see_only_their_own_hand(browser) -> None:
    contexts = [browser.new_context(viewport={"width": 1000, "height": 800}) for _ in range(2)]
    pages = [context.new_page() for context in contexts]
    responses: list[list] = [[], []]
    for tab, got in zip(pages, responses, strict=True):
        tab.on("response", lambda r, got=got: got.append(r))
    seen: list[list] = [[], []]
    rng = random.Random(3)
    try:
        with table(["human:ana", "builtin:random", "human:ben"], "trianon",
                   {"max_deals": "1"}, deal_key=KEY) as held:  # fmt: skip
            assert held.links[0] != held.links[2]
            pages[0].goto(held.links[0])
            pages[1].goto(held.links[2])
            done = [False, False]
            while not all(done):
                for i, tab in enumerate(pages):
                    if done[i]:
                        continue
                    state = tab.evaluate("() => document.body.dataset.state || ''")
                    if state in ("over", "closed"):
                        done[i] = True
                        seen[i].append((page_step(tab), dom_cards(tab)))
                    elif tab.locator("[data-action]:not(:disabled)").count():
                        seen[i].append((page_step(tab), dom_cards(tab)))
                        choose(tab, rng)
                    else:
                        tab.wait_for_timeout(50)
            frames = [frames_of(got) for got in responses]
            (played,) = held.wait()
        replay = played.result.replay
        for i, seat in enumerate((0, 2)):
            no_leak(replay, seat, frames[i], seen[i])
            other = set(replay["deals"][0]["hands"][2 - seat])
            hands = [set(f["view"]["hand"]) for f in frames[i] if f.get("view")]
            assert hands and all(not (cards & other) for cards in hands)
        assert played.result.faults == []
    finally:
        for context in contexts:
            context.close()


def test_a_closed_tab_gives_fallbacks_with_faults_and_the_game_ends(browser) -> None:
    context = browser.new_context()
    tab = context.new_page()
    try:
        specs = ["human", "builtin:first", "builtin:first", "builtin:first"]
        with table(specs, "trix", {"kingdoms": "1"}, leave_seconds=1.0, deal_key=KEY) as held:
            tab.goto(held.links[0])
            assert next_turn(tab)
            choose(tab, random.Random(4))
            tab.close()
            (played,) = held.wait()
    finally:
        context.close()
    faults = played.result.faults
    assert [f.kind for f in faults] == ["crash"] * 5  # then --max-faults' fallbacks
    assert all("left the table" in f.detail and f.seat == 0 for f in faults)
    replay = played.result.replay
    assert len(replay["deals"]) == 5 and trix_checker.check_replay(replay) == []
    marks = [e.get("auto") for d in replay["deals"] for e in d["events"] if e.get("auto")]
    assert marks.count("crash") == 5 and "max-faults" in marks


def test_a_timed_out_seat_gets_fallbacks_with_faults_and_a_clock(page, tmp_path) -> None:
    command = [sys.executable, "-m", "arena.cli", "play", "builtin:first", "human",
               "builtin:first", "--game", "trianon", "--rules", "max_deals=1",
               "--human-move-timeout", "1.5", "--replays", str(tmp_path), "--sandbox", "off",
               "--json"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        found = LINK.match(process.stderr.readline().strip())
        assert found and found.group(1) == "1"
        page.goto(found.group(3))
        page.wait_for_function("() => document.body.dataset.decision !== '0'")
        assert re.fullmatch(r"Time left: \d s", page.locator("#clock").inner_text())
        page.wait_for_function(
            "() => document.getElementById('notice').textContent.includes('did not answer')",
            timeout=20_000,
        )
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    result = json.loads(out.splitlines()[0])
    assert result["faults"] == 5
    assert {f["kind"] for f in result["fault_details"]} == {"timeout"}
    replay = json.loads((tmp_path / "game-0001.json").read_text())
    assert trianon_checker.check_replay(replay) == []


def test_a_game_is_played_from_the_keyboard_alone(page) -> None:
    rng = random.Random(5)
    specs = ["builtin:first", "builtin:first", "human"]
    with table(specs, "trianon", {"max_deals": "1"}, deal_key=KEY) as held:
        page.goto(held.links[2])
        turns = 0
        while next_turn(page):
            decision = page.evaluate("() => document.body.dataset.decision")
            count = page.locator("[data-action]").count()
            for _ in range(rng.randrange(count)):
                page.keyboard.press("Tab")
            focused = page.evaluate("() => document.activeElement.dataset.action || ''")
            assert focused, "focus left the actions"
            page.keyboard.press("Enter")
            settled(page, decision)
            turns += 1
        (played,) = held.wait()
    assert turns >= 12 and played.result.faults == []


@pytest.mark.parametrize("game", ["trix", "trianon"])
def test_the_page_reads_on_a_phone_and_axe_finds_no_serious_violation(browser, game) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    specs = (["human", "builtin:first", "builtin:first", "builtin:first"] if game == "trix"
             else ["human", "builtin:first", "builtin:first"])  # fmt: skip
    rules = {"kingdoms": "1"} if game == "trix" else {"max_deals": "1"}
    rng = random.Random(6)
    for width, height, name in ((1280, 900, "desktop"), (390, 844, "phone")):
        context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
        tab = context.new_page()
        try:
            with table(specs, game, rules, deal_key=KEY) as held:
                tab.goto(held.links[0])
                while next_turn(tab):
                    if tab.evaluate("() => document.body.dataset.kind") == "play":
                        break
                    choose(tab, rng)
                for _ in range(4):  # a trick or two on the table, the last trick shown
                    next_turn(tab)
                    choose(tab, rng)
                assert next_turn(tab)
                tab.screenshot(path=str(SCREENSHOTS / f"table-{game}-{name}.png"), full_page=True)
                overflow = tab.evaluate(
                    "() => document.documentElement.scrollWidth"
                    " - document.documentElement.clientWidth"
                )
                assert overflow <= 0, f"{overflow} px wider than the {name} screen"
                boxes = [b.bounding_box() for b in tab.locator("[data-action]").all()]
                assert boxes and all(b["width"] >= 40 and b["height"] >= 40 for b in boxes)
                assert _axe(tab) == []
        finally:
            context.close()
