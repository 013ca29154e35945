"""The game viewer in a browser (arena/web/static/viewer.js): at every step of a deal the
page shows exactly what the engine's views hold (every hand, the trick, whose turn, the
scores), a seat's view shows that seat's cards and the public ones and nothing else
(T-8.1, N-8.1), a spectator of a game in progress sees no hand, deep links open where
they say, the arrow keys step and fallbacks carry a badge.

What the page should show is worked out here from the engine (the test's own walk of
the replay, tests/play/test_replay_frames.py `observed`), never read back from the page's
JavaScript. The page-driving functions take a `page` and a URL only."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from arena.bots.builtin import make_builtin
from arena.play.replay_frames import deal_frames
from tests.play.test_replay_frames import Faulty, in_progress, observed, played

pytestmark = [pytest.mark.browser, pytest.mark.slow]

READ_PAGE = """() => {
  const cards = (root, sel) => [...root.querySelectorAll(sel)].map(c => c.dataset.card);
  const viewer = document.getElementById('viewer');
  const label = document.getElementById('step-label');
  return {
    deal: Number(label.dataset.deal), step: Number(label.dataset.step),
    hands: [...document.querySelectorAll('.hand')].map(h => ({
      seat: Number(h.dataset.seat), up: cards(h, '.card[data-card]'),
      down: h.querySelectorAll('.card.back').length})),
    trick: cards(document.getElementById('trick'), '[data-card]'),
    faceUp: cards(viewer, '.card[data-card]'),
    toMove: Number(document.getElementById('to-move').dataset.seat),
    turn: [...document.querySelectorAll('.seat.turn')].map(s => Number(s.dataset.seat)),
    totals: [...document.querySelectorAll('#scores tr.totals td')].map(
      td => [Number(td.dataset.seat), Number(td.textContent)]),
    deals: [...document.querySelectorAll('#scores tr.deal-row')].map(
      tr => [...tr.querySelectorAll('td')].map(td => Number(td.textContent))),
    legal: [...document.querySelectorAll('#legal li')].map(li => JSON.parse(li.dataset.action)),
    answer: document.getElementById('answer').textContent,
    badges: [...document.querySelectorAll('.fault-badge')].map(b => b.dataset.kind),
    hash: location.hash,
  };
}"""


@cache
def trix_replay() -> dict:
    """A one-kingdom Trix game whose seat 0 faults (a badge to find) among random bots."""
    bots = [Faulty(every=5)] + [make_builtin("random") for _ in range(3)]
    return played("trix", "viewer-trix", {"kingdoms": 1}, bots)


@cache
def trianon_replay() -> dict:
    return played("trianon", "viewer-trianon")


def open_at(page: Any, url: str, deal: int, step: int, seat: str = "all") -> dict:
    """Open the page's deep link and wait until it shows that step."""
    extra = "" if seat == "all" else f"&seat={seat}"
    page.goto(f"{url}#deal={deal}&step={step}{extra}")
    return wait_for(page, deal, step)


def wait_for(page: Any, deal: int, step: int) -> dict:
    page.wait_for_function(
        "([d, s]) => { const l = document.getElementById('step-label');"
        " return l && l.dataset.deal == d && l.dataset.step == s; }",
        arg=[deal, step],
    )
    return page.evaluate(READ_PAGE)


def check_table(shown: dict, views: list[dict], frame: dict) -> None:
    """The page of the all-hands view against the seats' views of one step."""
    table = views[0]
    assert [h["seat"] for h in shown["hands"]] == list(range(len(views)))
    for hand, view in zip(shown["hands"], views, strict=True):
        assert (hand["up"], hand["down"]) == (view["hand"], 0), hand["seat"]
    assert shown["trick"] == [t["card"] for t in table["trick"]]
    assert shown["toMove"] == table["to_move"]
    assert shown["turn"] == ([table["to_move"]] if table["to_move"] >= 0 else [])
    assert shown["totals"] == [[seat, total] for seat, total in enumerate(table["totals"])]
    assert shown["deals"] == table["deal_scores"]
    mover = table["to_move"]
    assert shown["legal"] == (views[mover]["legal"] if mover >= 0 else [])
    assert shown["badges"] == ([frame["auto"]] if "auto" in frame else [])


def public_cards(view: dict) -> set[str]:
    """The cards every seat may see at a step: played, exposed, on the rows (T-8.1)."""
    played_cards = {e["card"] for e in view["events"] if e["type"] == "play"}
    exposed = {c for cards in view.get("exposed", []) for c in cards}
    return played_cards | exposed | set(view.get("rows", []))


def check_seat_view(shown: dict, view: dict, seat: int) -> None:
    """The page of one seat's view: its own hand face up, every other hand face down
    with the count its view gives, and no other face-up card but public ones."""
    for hand in shown["hands"]:
        if hand["seat"] == seat:
            assert (hand["up"], hand["down"]) == (view["hand"], 0)
        else:
            assert (hand["up"], hand["down"]) == ([], view["cards_left"][hand["seat"]])
    assert set(shown["faceUp"]) - set(view["hand"]) <= public_cards(view)
    assert shown["legal"] == view["legal"]  # only at its own decisions


def step_through_deal(page: Any, url: str, replay: dict, deal: int, key: str = "") -> int:
    """Step through a whole deal with #next (or the key `key`), checking every step
    against the engine's views; the number of steps."""
    steps = observed(replay, list(range(len(replay["players"]))))[deal][0]
    frames = _frames(replay, deal)
    shown = open_at(page, url, deal, 0)
    for step, views in enumerate(steps):
        if step:
            page.keyboard.press(key) if key else page.click("#next")
            shown = wait_for(page, deal, step)
        check_table(shown, views, frames[step])
        assert shown["hash"] == f"#deal={deal}&step={step}"
    return len(steps)


def seat_view_through_deal(page: Any, url: str, replay: dict, deal: int, seat: int) -> None:
    steps = observed(replay, [seat])[deal][0]
    open_at(page, url, deal, 0, str(seat))
    for step, (view,) in enumerate(steps):
        if step:
            page.click("#next")
        check_seat_view(wait_for(page, deal, step), view, seat)


def _frames(replay: dict, deal: int) -> list[dict]:
    """The step meta of the deal (answers, fallbacks): the module's, whose placement
    tests/play/test_replay_frames.py checks against the replay."""
    return deal_frames(replay, deal)["frames"]


def first_fault(replay: dict) -> dict:
    return replay["faults"][0]


def test_every_step_of_a_trix_deal_shows_the_seats_views(page, game_page) -> None:
    replay = trix_replay()
    deal = first_fault(replay)["deal"]
    assert step_through_deal(page, game_page(replay), replay, deal) > 40


def test_every_step_of_a_trianon_deal_shows_the_seats_views(page, game_page) -> None:
    replay = trianon_replay()
    assert step_through_deal(page, game_page(replay), replay, 2, key="ArrowRight") > 30


def test_a_trix_seat_sees_its_hand_and_the_public_cards_only(page, game_page) -> None:
    """T-8.1: the seat's view hides exactly what the seat could not see."""
    replay = trix_replay()
    seat_view_through_deal(page, game_page(replay), replay, 2, seat=1)


def test_a_trianon_seat_sees_its_hand_and_the_public_cards_only(page, game_page) -> None:
    """N-8.1: the seat's view hides exactly what the seat could not see."""
    replay = trianon_replay()
    seat_view_through_deal(page, game_page(replay), replay, 1, seat=2)


def test_a_deep_link_opens_there_and_the_arrow_keys_step(page, game_page) -> None:
    replay = trix_replay()
    url = game_page(replay)
    steps = observed(replay, [0, 1, 2, 3])
    shown = open_at(page, url, 2, 5)
    check_table(shown, steps[2][0][5], _frames(replay, 2)[5])
    page.keyboard.press("ArrowRight")
    assert wait_for(page, 2, 6)["hash"] == "#deal=2&step=6"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    check_table(wait_for(page, 2, 4), steps[2][0][4], _frames(replay, 2)[4])
    page.keyboard.press("ArrowDown")
    check_table(wait_for(page, 3, 0), steps[3][0][0], _frames(replay, 3)[0])
    page.keyboard.press("ArrowUp")
    assert wait_for(page, 2, 0)["hash"] == "#deal=2&step=0"
    page.keyboard.press(" ")
    assert page.get_attribute("#play", "aria-pressed") == "true"
    page.wait_for_function("() => document.getElementById('step-label').dataset.step >= 2")
    page.keyboard.press(" ")
    assert page.get_attribute("#play", "aria-pressed") == "false"
    page.evaluate("location.hash = '#deal=4&step=3'")  # a link followed in the page
    wait_for(page, 4, 3)
    page.select_option("#deal-select", "5")
    wait_for(page, 5, 0)


def test_a_fallback_carries_a_badge_with_its_fault(page, game_page) -> None:
    replay = trix_replay()
    fault = first_fault(replay)
    steps = observed(replay, [0])[fault["deal"]]
    step = steps[1].index(fault["event"])
    open_at(page, game_page(replay), fault["deal"], step)
    badge = page.locator(".fault-badge")
    assert badge.count() == 1 and badge.get_attribute("data-kind") == "crash"
    assert "fails on purpose" in badge.inner_text()
    assert page.get_attribute("#answer", "data-auto") == "crash"


def test_a_spectator_of_a_game_in_progress_sees_no_hand(page, game_page) -> None:
    """T-8.1: a game still being played shows face-down hands with their counts only."""
    replay = trix_replay()
    live = in_progress(replay, 3, 20)
    url = game_page(live, "public")
    truth = observed(live, [0, 1, 2, 3])[3][0]
    last = len(truth) - 1
    shown = open_at(page, url, 3, last)
    hidden = {c for view in truth[last] for c in view["hand"]}
    assert not set(shown["faceUp"]) & (hidden - public_cards(truth[last][0]))
    for hand in shown["hands"]:
        assert hand["up"] == [] and hand["down"] == truth[last][0]["cards_left"][hand["seat"]]
    assert shown["legal"] == [] and shown["toMove"] == truth[last][0]["to_move"]
    assert page.is_disabled("#seat-view")
    page.keyboard.press("ArrowLeft")
    assert wait_for(page, 3, last - 1)["trick"] == [t["card"] for t in truth[last - 1][0]["trick"]]


def test_the_page_reads_on_a_phone(page, game_page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    replay = trianon_replay()
    open_at(page, game_page(replay), 1, 10)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px screen"
    assert json.loads(page.text_content("#game-outline"))["game"] == "trianon"


@pytest.mark.parametrize("which", ["trix", "trianon"])
def test_the_packed_game_unpacks_in_the_browser_to_the_engines_views(
    page, game_page, which
) -> None:
    """The report's one script a game (gzip, base64, frames as columns) unpacked and
    expanded by viewer.js gives, at every step of every deal, every seat's view exactly
    as the engine's observe() gave it (the test's own walk of the replay)."""
    replay = trix_replay() if which == "trix" else trianon_replay()
    expected = observed(replay, list(range(len(replay["players"]))))
    open_at(page, game_page(replay), 1, 0)
    page.wait_for_function(
        "n => Object.keys(ArenaViewer.state.deals).length === n", arg=len(expected)
    )
    shown = page.evaluate(
        "() => Object.fromEntries(Object.entries(ArenaViewer.state.deals)"
        ".map(([deal, d]) => [deal, d.views]))"
    )
    assert sorted(map(int, shown)) == sorted(expected)
    for deal, (views, _) in expected.items():
        assert len(shown[str(deal)]) == len(views) > 10
        assert shown[str(deal)] == views, deal
