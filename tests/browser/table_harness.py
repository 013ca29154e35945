"""A table with people at it, for the browser tests of docs/human.md: `arena play`'s
session played in a thread of the test (as the command plays it, with the table's
server beside it), and what a test needs to play it from a page: the clicks, the
frames the page was sent, and the check that none of them held a card the seat could
not see.

`python -m tests.browser.table_harness trix|trianon` opens a table to look at and
prints the link (Ctrl-C ends it)."""

from __future__ import annotations

import contextlib
import json
import random
import re
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.human import LEAVE_SECONDS, HumanTable
from arena.bots.sessions import GamePlayed, SessionRequest
from arena.league.running.play_run import PlayRun, play_games
from arena.web.table.server import serving_table

CARD = re.compile(r"^[2-9TJQKA][CDHS]$")
NOT_CARDS = {"bid", "options", "players", "name", "contract", "contracts_left", "kind"}
"""Keys whose texts are no cards even when they look like one (the bid 7H, the rule
option first_king_card, a player's name)."""
SETTLE_MS = 60_000  # the most a step of a test may wait for the page


@dataclass
class Table:
    """A session in play: its links by seat, and, once it is over, what it played."""

    links: dict[int, str]
    thread: threading.Thread
    games: list[GamePlayed] = field(default_factory=list)
    run: list[PlayRun] = field(default_factory=list)
    error: list[BaseException] = field(default_factory=list)

    def wait(self, seconds: float = 120) -> list[GamePlayed]:
        """The games, once the session is over; AssertionError if it is not in time."""
        self.thread.join(timeout=seconds)
        assert not self.thread.is_alive(), "the game did not end"
        assert not self.error, self.error
        return self.games


@contextlib.contextmanager
def table(
    specs: Sequence[str],
    game: str = "trix",
    rules: Mapping[str, str] | None = None,
    *,
    timeout: float | None = None,
    leave_seconds: float = LEAVE_SECONDS,
    replays: Path | None = None,
    db: Path | None = None,
    seed: str = "1",
    deal_key: str = "",
) -> Iterator[Table]:
    """Play `specs` at a table whose pages are served on a free loopback port while
    the block runs; the session and the server are ended on the way out (the seats
    closed, so a game still waiting on a person ends in fallbacks)."""
    humans = HumanTable(specs, timeout=timeout, leave_seconds=leave_seconds)
    request = SessionRequest(
        specs=tuple(specs),
        game=game,
        rules=dict(rules or {}),
        seed=seed,
        humans=humans,
        deal_key=deal_key,
    )
    with serving_table(humans) as links:
        holder: Table

        def play() -> None:
            try:
                holder.run.append(
                    play_games(
                        request,
                        show=lambda played, _path: (
                            holder.games.append(played) if isinstance(played, GamePlayed) else None
                        ),
                        replays=replays,
                        db=db,
                    )
                )
            except BaseException as err:  # the test says what went wrong
                holder.error.append(err)

        thread = threading.Thread(target=play, name="table-session", daemon=True)
        holder = Table(links, thread)
        thread.start()
        try:
            yield holder
        finally:
            humans.close()
            thread.join(timeout=60)


# ---- playing from a page ------------------------------------------------------------

WAITING = (
    "() => document.querySelector('[data-action]:not(:disabled)') || "
    "['over', 'closed'].includes(document.body.dataset.state)"
)


def next_turn(page: Any) -> bool:
    """Wait for the seat's next decision (True) or the game's end (False)."""
    page.wait_for_function(WAITING, timeout=SETTLE_MS)
    return page.evaluate("() => document.body.dataset.state") not in ("over", "closed")


def choose(page: Any, rng: random.Random, *, bid_high: bool = False) -> dict[str, Any]:
    """Click one of the decision's legal actions at random (with `bid_high`, a
    Trianon bid's highest, which wins against bots that pass); wait until it is
    taken. Returns the action clicked."""
    decision = page.evaluate("() => document.body.dataset.decision")
    actions = page.locator("[data-action]:not(:disabled)")
    count = actions.count()
    index = rng.randrange(count)
    if bid_high and '"type":"bid"' in (actions.nth(count - 1).get_attribute("data-action") or ""):
        index = count - 1
    target = actions.nth(index)
    action = target.get_attribute("data-action")
    target.click()
    settled(page, decision)
    return json.loads(action or "{}")


def choose_action(page: Any, action: Mapping[str, Any]) -> None:
    """Click the element whose `data-action` is `action`; wait until it is taken."""
    decision = page.evaluate("() => document.body.dataset.decision")
    shown = page.evaluate(
        "() => [...document.querySelectorAll('[data-action]')].map(n => n.dataset.action)"
    )
    index = [json.loads(a) for a in shown].index(dict(action))
    page.locator("[data-action]").nth(index).click()
    settled(page, decision)


def settled(page: Any, decision: str) -> None:
    """Wait until the page has left decision `decision` (answered, or the game over)."""
    page.wait_for_function(
        "(d) => document.body.dataset.decision !== d || "
        "['over', 'closed'].includes(document.body.dataset.state)",
        arg=decision,
        timeout=SETTLE_MS,
    )


def frames_of(responses: list[Any]) -> list[dict[str, Any]]:
    """The frames the page was sent (its state.json answers with a body)."""
    out = []
    for response in responses:
        if "/state.json" in response.url and response.status == 200:
            with contextlib.suppress(Exception):  # a request the page dropped (closed tab)
                out.append(response.json())
    return out


# ---- what a seat may see ------------------------------------------------------------


def cards_in(value: Any, key: str = "") -> set[str]:
    """Every card code in a frame (or any JSON value), but under `NOT_CARDS` keys."""
    if key in NOT_CARDS:
        return set()
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, Mapping):
        return set().union(*(cards_in(v, k) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return set().union(*(cards_in(v, key) for v in value))
    return set()


def event_cards(events: Sequence[Mapping[str, Any]]) -> set[str]:
    out: set[str] = set()
    for event in events:
        out |= {event["card"]} if "card" in event else set()
        out |= set(event.get("cards", ()))
    return out


def visible(replay: Mapping[str, Any], seat: int, deal: int, events: int) -> set[str]:
    """The cards `seat` may have seen when deal `deal` (from 1) had `events` events:
    its own hand as dealt, what was played or exposed so far in the deal, and every
    card played or exposed in the deals before (T-8, N-8)."""
    deals = replay["deals"]
    seen = set(deals[deal - 1]["hands"][seat]) | event_cards(deals[deal - 1]["events"][:events])
    for earlier in deals[: deal - 1]:
        seen |= event_cards(earlier["events"])
    return seen


def leaks(replay: Mapping[str, Any], seat: int, frame: Mapping[str, Any]) -> set[str]:
    """The cards in `frame` (sent to `seat`'s page) that the seat could not see."""
    view = frame.get("view")
    if not view:
        return set()
    return cards_in(frame) - visible(replay, seat, view["deal"], len(view["events"]))


def dom_cards(page: Any) -> set[str]:
    """Every card the page holds in its document: each element's `data-card`, each
    `data-action`'s card or cards."""
    return set(
        page.evaluate(
            """() => {
              const out = [];
              document.querySelectorAll('[data-card]').forEach(n => out.push(n.dataset.card));
              document.querySelectorAll('[data-action]').forEach(n => {
                const a = JSON.parse(n.dataset.action);
                if (a.card) out.push(a.card);
                (a.cards || []).forEach(c => out.push(c));
              });
              return out;
            }"""
        )
    )


def page_step(page: Any) -> tuple[int, int]:
    """(deal, events) of the frame the page shows."""
    deal, events = (page.evaluate("() => document.body.dataset.step") or "0/0").split("/")
    return int(deal), int(events)


if __name__ == "__main__":
    game = sys.argv[1] if len(sys.argv) > 1 else "trix"
    specs = (
        ["human", "builtin:sampler", "builtin:greedy", "builtin:greedy"]
        if game == "trix"
        else ["human", "builtin:greedy", "builtin:sampler"]
    )
    rules = {"kingdoms": "1"} if game == "trix" else {"max_deals": "2"}
    with table(specs, game, rules) as held:
        print(held.links[0], flush=True)
        held.wait(3600)
