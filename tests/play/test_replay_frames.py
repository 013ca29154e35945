"""The replay viewer's frames (arena/play/replay_frames.py): expanded, they are exactly
what `observe` gives every seat at every step of every deal (T-8, N-8: the page shows
nothing else); the spectator's frames of a game in progress hold no card of an unplayed
hand; fallbacks and faults sit at the step of their decision; a whole Trix game's data
stays well under a megabyte.

The views expected here are rebuilt by the test's own walk of the replay through the
engine, not by the module's."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.bots.builtin import make_builtin
from arena.errors import ConfigError
from arena.games import get_game
from arena.games.base import PUBLIC
from arena.play.faults import MAX_FAULTS_MARK
from arena.play.referee import play_game
from arena.play.replay_frames import (
    FRAMES_FORMAT,
    deal_frames,
    deal_script,
    expand,
    game_frames,
    game_outline,
)
from tests.support.walks import card_codes_in

RULES = {"trix": {"kingdoms": 1}, "trianon": {"target": 2000}}  # random bids fail: 4+ deals


def played(game_name: str, seed: str, rules: dict | None = None, bots: list | None = None):
    """A replay of builtin bots, as read back from a file."""
    game = get_game(game_name)
    options = game.parse_options(RULES[game_name] if rules is None else rules)
    players = bots or [make_builtin("random") for _ in range(game.seats)]
    return json.loads(json.dumps(play_game(game, players, seed, options).replay))


def observed(replay: dict, observers: list[int]) -> dict[int, tuple[list, list[int]]]:
    """Per deal number: the observers' views at every step (each decision's state, then
    the deal's end on a copy whose game ends there), and each decision's event index."""
    game = get_game(replay["game"])
    state = game.new_game(replay["seed"], game.parse_options(replay["options"]))
    out: dict[int, tuple[list, list[int]]] = {}

    def views(s: Any) -> list[dict]:
        return [game.view_dict(game.observe(s, seat)) for seat in observers]

    for number, record in enumerate(replay["deals"], start=1):
        steps, ats = out.setdefault(number, ([], []))
        events = record["events"]
        for at, event in enumerate(events):
            if at < len(state.events):
                continue  # a contract the engine chose itself (T-2.5)
            action = game.parse_event({k: v for k, v in event.items() if k != "auto"})
            steps.append(views(state))
            ats.append(at)
            if at == len(events) - 1 and record["scores"] is not None:
                # a deep copy first: the real state stays clear of whatever the copy shares
                end = game.last_deal_copy(copy.deepcopy(state))
                game.apply(end, action)
                steps.append(views(end))
            game.apply(state, action)
    if replay["deals"][-1]["scores"] is None:
        out[len(replay["deals"])][0].append(views(state))  # the step being decided
    return out


def in_progress(replay: dict, deal: int, events: int) -> dict:
    """The replay as a game still being played would have it: deal `deal` cut after
    `events` events, without scores, and no later deal, totals or ranks."""
    cut = copy.deepcopy(replay)
    cut["deals"] = cut["deals"][:deal]
    cut["deals"][-1]["events"] = cut["deals"][-1]["events"][:events]
    cut["deals"][-1]["scores"] = None
    for key in ("totals", "ranks"):
        del cut[key]
    return cut


def round_trip(doc: dict) -> dict:
    return json.loads(json.dumps(doc))


@pytest.mark.parametrize("game_name", ["trix", "trianon"])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.text("abcdef0123456789", min_size=1, max_size=8))
def test_expanded_frames_are_what_observe_gave_every_seat_at_every_step(game_name, seed) -> None:
    """T-8.1 / N-8.1: the viewer's data is observe's views and nothing else."""
    replay = played(game_name, f"frames-{seed}")
    expected = observed(replay, list(range(get_game(game_name).seats)))
    docs = game_frames(replay)
    assert [d["deal"] for d in docs] == list(range(1, len(replay["deals"]) + 1))
    for doc in docs:
        steps, ats = expected[doc["deal"]]
        assert doc["format"] == FRAMES_FORMAT and doc["complete"]
        assert expand(round_trip(doc)) == steps
        frames = doc["frames"]
        assert frames[-1] == {**frames[-1], "end": True} and "answer" not in frames[-1]
        events = replay["deals"][doc["deal"] - 1]["events"]
        assert [f["answer"] for f in frames[:-1]] == [
            {k: v for k, v in events[at].items() if k != "auto"} for at in ats
        ]
        last = steps[-1][0]  # the deal's end: every card played, its scores
        scores = replay["deals"][doc["deal"] - 1]["scores"]
        assert last["deal_scores"][-1] == doc["scores"] == scores
        assert last["deal"] == doc["deal"] and last["to_move"] == -1 and last["legal"] == []
    one = docs[len(docs) // 2]
    assert deal_frames(replay, one["deal"]) == one


@pytest.mark.parametrize("game_name", ["trix", "trianon"])
def test_public_frames_of_a_game_in_progress_hold_no_hidden_card(game_name) -> None:
    """T-8.1 / N-8.1: a spectator of a game still being played sees no seat's unplayed
    cards (but the exposed ones, T-5.2) at any step, anywhere in the deal's data."""
    replay = played(game_name, "public-frames")
    seats = list(range(get_game(game_name).seats))
    events = len(replay["deals"][1]["events"]) // 2
    live = in_progress(replay, 2, events)
    doc = deal_frames(live, 2, "public")
    assert doc["observers"] == [PUBLIC] and not doc["complete"]
    truth, _ = observed(live, seats)[2]
    public, _ = observed(live, [PUBLIC])[2]
    views = expand(round_trip(doc))
    assert views == public and len(views) == len(truth)
    for step, (spectator, seen) in enumerate(zip(views, truth, strict=True)):
        exposed = {c for cards in seen[0].get("exposed", []) for c in cards}
        hidden = {c for view in seen for c in view["hand"]} - exposed
        assert not card_codes_in(spectator) & hidden, step
        assert spectator[0]["hand"] == [] and spectator[0]["legal"] == []
    exposed = {c for cards in truth[-1][0].get("exposed", []) for c in cards}
    hidden_now = {c for view in truth[-1] for c in view["hand"]} - exposed
    assert len(hidden_now) > 5 and not card_codes_in(doc) & hidden_now
    outline = game_outline(live)
    assert not card_codes_in(outline)
    assert outline["totals"] is None and outline["deals"][-1]["steps"] == len(views)
    assert [d["steps"] for d in outline["deals"]] == [
        len(deal_frames(live, n, "public")["frames"]) for n in (1, 2)
    ]


class Faulty:
    """Seat 0's bot: it raises at some decisions (a `crash` fault each), then after
    `max_faults` the referee plays its moves for it ("max-faults")."""

    name = "faulty"
    wants_notices = False

    def __init__(self, every: int) -> None:
        self.every = every
        self.asked = 0

    def start_game(self, start: Any) -> None:
        pass

    def act(self, decision: Any) -> int:
        self.asked += 1
        if self.asked % self.every == 0:
            raise RuntimeError(f"decision {self.asked} fails on purpose </script>")
        return decision.legal[-1]

    def end_deal(self, seat: int, deal: Any) -> None:
        pass

    def end_game(self, seat: int, replay: Any) -> None:
        pass


def test_fallbacks_and_faults_are_marked_at_the_step_of_their_decision() -> None:
    bots = [Faulty(every=4)] + [make_builtin("random") for _ in range(3)]
    replay = played("trix", "faults", {"kingdoms": 1}, bots)
    assert len(replay["faults"]) == 5
    expected = observed(replay, [0, 1, 2, 3])
    outline = game_outline(replay)
    marks = []
    for fault in replay["faults"]:
        doc = deal_frames(replay, fault["deal"])
        step = expected[fault["deal"]][1].index(fault["event"])
        frame = doc["frames"][step]
        assert frame["auto"] == fault["kind"] == "crash"
        assert frame["fault"] == {k: v for k, v in fault.items() if k != "log"}
        assert expand(doc)[step][0]["to_move"] == fault["seat"] == 0
        public = deal_frames(replay, fault["deal"], "public")["frames"][step]["fault"]
        assert public == {k: fault[k] for k in ("seat", "deal", "kind", "decision")}
        marks.append({"deal": fault["deal"], "step": step, "seat": 0, "kind": "crash"})
    unasked = 0
    for number, record in enumerate(replay["deals"], start=1):
        frames = deal_frames(replay, number)["frames"]
        for step, at in enumerate(expected[number][1]):
            if record["events"][at].get("auto") == MAX_FAULTS_MARK:
                assert frames[step]["auto"] == MAX_FAULTS_MARK and "fault" not in frames[step]
                marks.append({"deal": number, "step": step, "seat": 0, "kind": MAX_FAULTS_MARK})
                unasked += 1
            elif "auto" not in record["events"][at]:
                assert "auto" not in frames[step] and "fault" not in frames[step]
    assert unasked > 10
    key = lambda m: (m["deal"], m["step"])  # noqa: E731
    assert sorted(outline["fallbacks"], key=key) == sorted(marks, key=key)


def test_a_whole_trix_game_is_well_under_a_megabyte() -> None:
    replay = played("trix", "frames-size", {"kingdoms": 4})
    docs = game_frames(replay)
    assert sum(len(d["frames"]) for d in docs) > 1000
    size = sum(len(deal_script(d).encode()) for d in docs)
    assert size < 700_000, size
    expected = observed(replay, [0, 1, 2, 3])
    assert all(expand(round_trip(d)) == expected[d["deal"]][0] for d in docs)
    outline = game_outline(replay)
    assert [d["steps"] for d in outline["deals"]] == [len(d["frames"]) for d in docs]
    assert [d["scores"] for d in outline["deals"]] == [d["scores"] for d in docs]


def test_the_deal_script_cannot_end_a_script_element() -> None:
    doc = {"deal": 3, "frames": [{"fault": {"detail": "raised </script><!-- é"}}]}
    text = deal_script(doc)
    assert text.startswith("ArenaViewer.load(3, ") and text.endswith(");\n")
    assert "</" not in text and text.isascii()
    assert json.loads(text[len("ArenaViewer.load(3, ") : -3]) == doc


def test_a_deal_not_in_the_game_or_an_edited_replay_is_refused() -> None:
    replay = played("trianon", "refused")
    with pytest.raises(ConfigError, match=r"deal 99: this game has deals 1 to"):
        deal_frames(replay, 99)
    replay["deals"][0]["events"].pop()
    with pytest.raises(ConfigError, match=r"deal 1 .* goes on there"):
        deal_frames(replay, 1)
    with pytest.raises(ConfigError, match=r"seats_shown must be 'all', 'public' or a seat"):
        deal_frames(replay, 1, "everyone")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"seats_shown 3: trianon has seats 0 to 2"):
        deal_frames(replay, 1, 3)
    with pytest.raises(ConfigError, match=r"seats_shown must be"):
        game_outline(replay, True)  # type: ignore[arg-type]


@pytest.mark.parametrize("game_name", ["trix", "trianon"])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.text("abcdef0123456789", min_size=1, max_size=8), data=st.data())
def test_a_seats_frames_are_its_own_view_and_hold_no_other_hidden_card(
    game_name, seed, data
) -> None:
    """T-8.1 / N-8.1: a player knows their own hand and the public record, no other
    hand; T-8.2: once a deal is over the hands as dealt may be shown. A seat's frames
    (an author watching their bot's seat) are `observe(state, seat)` at every step, and
    while a deal is played (its end step aside) they hold no card another seat holds
    unplayed and unexposed, in a whole game and in a game still being played."""
    game = get_game(game_name)
    seat = data.draw(st.integers(0, game.seats - 1), label="seat")
    seats = list(range(game.seats))
    replay = played(game_name, f"seat-{seed}")
    cut = in_progress(replay, 2, len(replay["deals"][1]["events"]) // 2)
    for whole, source in ((True, replay), (False, cut)):
        truth = observed(source, seats)
        mine = observed(source, [seat])
        for number in range(1, len(source["deals"]) + 1):
            doc = deal_frames(source, number, seat)
            assert doc["observers"] == [seat] and doc["seats_shown"] == seat
            views = expand(round_trip(doc))
            assert views == mine[number][0]
            ended = whole or number < len(source["deals"])
            playing = views[:-1] if ended else views  # a deal's end may show every hand
            for step, (own, seen) in enumerate(zip(playing, truth[number][0], strict=False)):
                exposed = {c for cards in seen[0].get("exposed", []) for c in cards}
                others = {c for s in seats if s != seat for c in seen[s]["hand"]} - exposed
                assert own[0]["hand"] == seen[seat]["hand"], step
                assert not card_codes_in(own) & others, (number, step)
        outline = game_outline(source, seat)
        assert outline["seats_shown"] == seat
        assert [d["steps"] for d in outline["deals"]] == [
            len(deal_frames(source, n, seat)["frames"]) for n in range(1, len(source["deals"]) + 1)
        ]
    live_doc = deal_frames(cut, 2, seat)
    hidden = {c for s in seats if s != seat for c in observed(cut, seats)[2][0][-1][s]["hand"]}
    exposed = {c for cards in observed(cut, seats)[2][0][-1][0].get("exposed", []) for c in cards}
    assert len(hidden - exposed) > 5 and not card_codes_in(live_doc) & (hidden - exposed)


def test_a_seat_sees_its_own_faults_whole_and_others_as_a_spectator_does() -> None:
    bots = [Faulty(every=4)] + [make_builtin("random") for _ in range(3)]
    replay = played("trix", "faults-seat", {"kingdoms": 1}, bots)
    fault = replay["faults"][0]
    expected = observed(replay, [0, 1, 2, 3])
    step = expected[fault["deal"]][1].index(fault["event"])
    own = deal_frames(replay, fault["deal"], 0)["frames"][step]["fault"]
    assert own == {k: v for k, v in fault.items() if k != "log"}
    other = deal_frames(replay, fault["deal"], 1)["frames"][step]["fault"]
    assert other == {k: fault[k] for k in ("seat", "deal", "kind", "decision")}
