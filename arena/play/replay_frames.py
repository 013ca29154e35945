"""The replay viewer's data (the league site's game page): every step of one deal as
each seat saw it, rebuilt from the replay by playing it through the engine, as
`seat_view.py` does for `arena replay --seat`.

A replay keeps no views; the viewer must not make them up either. So each view here is
`game.view_dict(game.observe(state, seat))`, the one place a seat's view leaves the
hidden state (T-8, N-8): the page shows what these dicts hold and derives nothing a
seat could or could not know. The table with every hand is the seats' own hands side by
side; a game still being played is shown from the spectator's view alone
(`observe(state, PUBLIC)`: no hand, no legal actions), with the fault records cut
to their kind (their detail names the legal actions, which tell a hand). A seat's own
view (`seats_shown` a seat number: an author watching their bot's seat of a ladder test
match) is `observe(state, seat)` alone: that seat's hand and legal actions, no other
seat's hidden card, and the fault records of other seats cut as a spectator's are.

Step 0 is the deal's start, step k the table after the deal's k-th decision; a deal
that ended has one more step, its end: `observe` of a copy of the state whose game ends
with this deal (`last_deal_copy`), so that it shows the deal's last card played and its
scores rather than the next deal's start. A contract the engine chose itself (the last
one of a Trix kingdom, T-2.5) is no decision: it is already in step 0's events.

The views are written once per deal in the `arena-frames/1` document, factored
losslessly (a Trix game is about 1,100 steps of four views of about 2 KB each):

- `prefix`: for each key whose value only grows during a deal (`events`), each
  observer's longest list, or the index of an observer whose list is the same; a
  view then holds that key as a length, the view's list being the list's first items.
- `frames[k]`: `c`, the keys that changed since step k-1 and are equal in every view;
  `v`, by observer index (a string), the other keys that changed in that view. Step 0
  changes every key.
- and for step k's decision, the seat to move being the views' `to_move` (its legal
  actions are its view's `legal`, as `action_event` writes them): `answer`, the replay
  event that was played; `auto`, the fault kind when the referee played the fallback;
  `fault`, the fault record. The deal's end step has `end`.

`expand` undoes the factoring, and so does the viewer's JavaScript (`ArenaViewer.expand`
in arena/web/static/viewer.js), knowing nothing of any game.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from itertools import compress
from operator import itemgetter, ne
from typing import Any, Literal

from arena.errors import ConfigError
from arena.games import get_game
from arena.games.base import PUBLIC, Game
from arena.play.seat_view import event_fault, replay_options, replay_steps

FRAMES_FORMAT = "arena-frames/1"
SeatsShown = Literal["all", "public"] | int  # every seat, a spectator, or one seat
PREFIX_KEYS = ("events",)  # view keys whose lists only grow during a deal
# What a spectator is told of a fault: not its detail, expected or got, which name the
# legal actions or the bot's answer (a card it holds).
PUBLIC_FAULT_KEYS = ("seat", "deal", "kind", "decision")
# A fault's log is a path on the machine that ran the game: nothing for a web page.
HIDDEN_FAULT_KEYS = ("log",)


def deal_frames(
    replay: Mapping[str, Any], deal: int, seats_shown: SeatsShown = "all"
) -> dict[str, Any]:
    """The `arena-frames/1` document of deal `deal` (from 1) of a checked arena-replay/1
    replay: every seat's view at every step (`seats_shown` "all"), only the
    spectator's (`"public"`, for a game still being played), or only seat N's
    (`seats_shown` N: what that seat's bot was shown, and no other seat's hidden card).
    ConfigError when the deal is not in the game, the seat is not one of the game's, or
    the replay's events are not a game the engine plays."""
    deals = replay["deals"]
    if not 1 <= deal <= len(deals):
        raise ConfigError(f"deal {deal}: this game has deals 1 to {len(deals)}")
    return _frame_documents(replay, seats_shown, deal)[deal]


def game_frames(replay: Mapping[str, Any], seats_shown: SeatsShown = "all") -> list[dict[str, Any]]:
    """Every deal's `arena-frames/1` document, in order, from one pass through the
    engine."""
    return game_frames_outline(replay, seats_shown)[0]


def game_frames_outline(
    replay: Mapping[str, Any], seats_shown: SeatsShown = "all"
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """`game_frames` and `game_outline` from the same one pass through the engine (the
    static report builds both for every game)."""
    outline = _Outline(replay)
    docs = _frame_documents(replay, seats_shown, None, outline=outline)
    return [docs[number] for number in sorted(docs)], outline.document(seats_shown)


def _frame_documents(
    replay: Mapping[str, Any],
    seats_shown: SeatsShown,
    only: int | None,
    by_parts: bool = True,
    outline: _Outline | None = None,
) -> dict[int, dict[str, Any]]:
    """Each deal's document. With `by_parts` (the game's `view_parts`), a
    step's views are made key by key, only the keys whose view fields changed
    (`_PartsEncoder`); else whole by `view_dict` and compared (`encode_views`): the same
    documents (tests/play/test_frames_by_parts.py), the first about four times faster.
    `outline`, when given, is told each decision on the way."""
    game = get_game(replay["game"])
    observers = observers_of(game, seats_shown)
    parts = game.view_parts if by_parts else None
    steps: dict[int, Any] = {}
    for number, seat, views, meta in _deal_steps(game, replay, observers, only, parts is None):
        if outline is not None and "answer" in meta:
            outline.decision(number, seat, meta)
        fault = meta.get("fault")
        if fault is not None and seats_shown != "all" and fault.get("seat") != seats_shown:
            meta["fault"] = {k: fault[k] for k in PUBLIC_FAULT_KEYS if k in fault}
        if parts is not None:
            if number not in steps:
                steps[number] = _PartsEncoder(parts, len(observers))
            steps[number].add(views, meta)
            continue
        deal_views, deal_meta = steps.setdefault(number, ([], []))
        deal_views.append(views)
        deal_meta.append(meta)
    return {
        number: {
            "format": FRAMES_FORMAT,
            "game": game.name,
            "deal": number,
            "seats_shown": seats_shown,
            "observers": observers,
            "complete": bool(frames["frames"][-1].get("end")),
            "scores": replay["deals"][number - 1].get("scores"),
            **frames,
        }
        for number, frames in (
            (n, deal.encoded() if parts is not None else encode_views(*deal))
            for n, deal in steps.items()
        )
    }


_MISSING = object()  # a key a view does not hold yet


class _PartsEncoder:
    """One deal's `prefix` and `frames` from the observers' view tuples (as `observe`
    gives them), step by step: a key of a view is made again (`view_parts`) only when a
    field it is made from changed since the step before, and kept when its value did
    not change; a prefix key is held as its length, and its longest list is made once.
    What `encode_views` gives from the whole `view_dict`s. (A report builds ~1,100
    steps of four views a game: this loop is most of its time, hence its plainness.)"""

    def __init__(self, parts: Sequence[tuple[str, tuple[str, ...], Any]], observers: int):
        self.parts = parts
        self.names = [part[0] for part in parts]
        self.makers = [part[2] for part in parts]
        self.order = {name: k for k, name in enumerate(self.names)}  # its place in view_dict
        self.prefix = frozenset(k for k, name in enumerate(self.names) if name in PREFIX_KEYS)
        self.labels = [str(i) for i in range(observers)]
        self.fields: list[list[int]] = []  # view field index -> its keys' indexes
        self.made_from: list[list[int]] = []  # key index -> its view fields' indexes
        self.picks: list[Any] = []  # key index -> an itemgetter of its view fields
        self.plans: dict[Any, list[tuple[Any, ...]]] = {}  # changed fields -> keys to make
        self.previous: list[Any] = [None] * observers
        self.current: list[dict[str, Any]] = [{} for _ in range(observers)]
        self.longest: list[Any] = [None] * observers  # the view with the longest prefix
        self.frames: list[dict[str, Any]] = []

    def _learn(self, view: Any) -> None:
        """Where each key's fields are in the view tuple (the first step's)."""
        names = type(view)._fields
        self.fields = [[] for _ in names]
        for k, (_, made_from, _) in enumerate(self.parts):
            for name in made_from:
                self.fields[names.index(name)].append(k)
        self.made_from = [[names.index(n) for n in part[1]] for part in self.parts]
        self.picks = [itemgetter(*m) for m in self.made_from]

    def add(self, views: Sequence[Any], meta: Mapping[str, Any]) -> None:
        if not self.fields:
            self._learn(views[0])
        plans, previous = self.plans, self.previous
        positions = range(len(self.fields))
        changed: list[dict[str, Any]] = []
        made: dict[int, Any] = {}  # this step's values made for the first observer
        first_view = views[0]
        for i, view in enumerate(views):
            before, current = previous[i], self.current[i]
            changes = None if before is None else tuple(compress(positions, map(ne, view, before)))
            plan = plans.get(changes)
            if plan is None:
                plan = plans[changes] = self._plan(changes)
            mine = {}
            for k, key, field, pick, make in plan:
                if field >= 0:
                    value = self._prefix_length(i, view, field)
                elif i and k in made and pick(view) == pick(first_view):
                    value = made[k]  # the same fields as the first observer's: its value
                else:
                    value = make(view)
                    if not i:
                        made[k] = value
                if current.get(key, _MISSING) != value:
                    mine[key] = current[key] = value
            changed.append(mine)
            previous[i] = view
        first, others = self.current[0], self.current[1:]
        common = {}
        for key in sorted(set().union(*changed), key=self.order.__getitem__):
            value = first[key]
            for other in others:
                if other[key] != value:
                    break
            else:
                common[key] = value
        frame: dict[str, Any] = {"c": common} if common else {}
        own = {}
        for label, mine in zip(self.labels, changed, strict=True):
            for key in common:
                mine.pop(key, None)
            if mine:
                own[label] = mine
        if own:
            frame["v"] = own
        frame.update(meta)
        self.frames.append(frame)

    def _plan(self, changes: tuple[int, ...] | None) -> list[tuple[Any, ...]]:
        """The keys to make again when the view fields `changes` changed (None: the
        first step, every key), in `view_dict`'s order: (index, name, its view field if
        it is a prefix key else -1, its fields' getter, its maker)."""
        keys: Any = range(len(self.parts))
        if changes is not None:
            keys = sorted({k for f in changes for k in self.fields[f]})
        return [
            (
                k,
                self.names[k],
                self.made_from[k][0] if k in self.prefix else -1,
                self.picks[k],
                self.makers[k],
            )
            for k in keys
        ]

    def _prefix_length(self, i: int, view: Any, field: int) -> int:
        """The view's prefix list's length, once checked against the longest so far."""
        items, longest = view[field], self.longest[i]
        if longest is None:
            self.longest[i] = view
            return len(items)
        known = longest[field]
        if len(items) > len(known):
            if items[: len(known)] != known:
                raise ValueError(f"step {len(self.frames)}: a view's list is not a prefix")
            self.longest[i] = view
        elif known[: len(items)] != items:
            raise ValueError(f"step {len(self.frames)}: a view's list is not a prefix")
        return len(items)

    def encoded(self) -> dict[str, Any]:
        """The frames, and each growing list's longest form once, as the viewer reads them."""
        prefix = {
            self.names[k]: _shared(iter([self.makers[k](v) for v in self.longest]))
            for k in self.prefix
        }
        return {"prefix": prefix, "frames": self.frames}


def observers_of(game: Game, seats_shown: SeatsShown) -> list[int]:
    """The seats whose views the frames hold: every seat ("all"), the spectator
    ("public", `PUBLIC`) or one seat (its number); ConfigError for anything else."""
    if seats_shown == "all":
        return list(range(game.seats))
    if seats_shown == "public":
        return [PUBLIC]
    if isinstance(seats_shown, int) and not isinstance(seats_shown, bool):
        if 0 <= seats_shown < game.seats:
            return [seats_shown]
        raise ConfigError(f"seats_shown {seats_shown}: {game.name} has seats 0 to {game.seats - 1}")
    raise ConfigError(f"seats_shown must be 'all', 'public' or a seat number, not {seats_shown!r}")


def _deal_steps(
    game: Game, replay: Mapping[str, Any], observers: list[int], only: int | None, as_dicts: bool
) -> Iterator[tuple[int, int, list[Any], dict[str, Any]]]:
    """(deal number, the seat to move, the observers' views, the step's decision) at
    every step of every deal, or of deal `only`: each decision's state, then each ended
    deal's end. The views as `view_dict`s, or as `observe` gives them."""
    deals = replay["deals"]
    faults = replay.get("faults", [])
    for state, event, action in replay_steps(game, replay, replay_options(game, replay), True):
        number, at = state.deal_index + 1, len(state.events)
        if only is not None and number != only:
            if number > only:
                return
            continue
        views = [game.observe(state, seat) for seat in observers]
        if as_dicts:
            views = [game.view_dict(view) for view in views]
        if event is None:  # a game in progress: nobody has answered yet
            yield number, state.to_move, views, {}
            return
        yield number, state.to_move, views, _decision(faults, state.to_move, number, at, event)
        if at == len(deals[number - 1]["events"]) - 1 and deals[number - 1].get("scores"):
            end = _deal_end(game, state, action, observers, number)
            end_views = [game.view_dict(v) for v in end] if as_dicts else end
            yield number, -1, end_views, {"end": True}  # nobody moves at the end


def _decision(
    faults: Sequence[Mapping[str, Any]], seat: int, number: int, at: int, event: Mapping[str, Any]
) -> dict[str, Any]:
    """A step's decision: the answer played, and whether it was a fallback, and why."""
    out: dict[str, Any] = {"answer": {k: v for k, v in event.items() if k != "auto"}}
    if "auto" in event:
        out["auto"] = event["auto"]
    fault = event_fault(faults, seat, number, at, event)
    if fault is not None:
        out["fault"] = {k: v for k, v in fault.items() if k not in HIDDEN_FAULT_KEYS}
    return out


def _deal_end(game: Game, state: Any, action: int, observers: list[int], number: int) -> list[Any]:
    """The views once the deal's last event is played, on a copy of the state whose
    game ends there (the real one goes on to the next deal's start)."""
    end = game.last_deal_copy(state)
    game.apply_legal(end, action)
    if end.to_move >= 0:
        raise ConfigError(
            f"deal {number} of the replay ends after event {len(state.events)}, "
            "but the game's deal goes on there: it was not written by this arena"
        )
    return [game.observe(end, seat) for seat in observers]


def encode_views(
    views: Sequence[Sequence[Mapping[str, Any]]], meta: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """`prefix` and `frames` of an arena-frames/1 document: the views by step and
    observer, factored as the module's docstring says, each step with its `meta`.
    ValueError when a prefix key's list is not a prefix of the observer's longest one,
    or when a view loses a key (the format could not say so)."""
    observers = len(views[0])
    prefix = {
        key: _shared(_longest(key, [step[i] for step in views]) for i in range(observers))
        for key in PREFIX_KEYS
        if key in views[0][0]
    }
    frames = []
    previous: list[dict[str, Any]] = [{} for _ in range(observers)]
    for step, extra in zip(views, meta, strict=True):
        current = [{**v, **{k: len(v[k]) for k in prefix}} for v in step]
        frames.append({**_changes(previous, current), **extra})
        previous = current
    return {"prefix": prefix, "frames": frames}


def _longest(key: str, lists_by_step: Sequence[Mapping[str, Any]]) -> list[Any]:
    """One observer's longest `key` list over the steps, checked to start with each
    step's list."""
    lists = [view[key] for view in lists_by_step]
    longest = max(lists, key=len)
    for step, items in enumerate(lists):
        if longest[: len(items)] != items:
            raise ValueError(f"step {step}: the view's {key!r} is not a prefix of its longest")
    return list(longest)


def _shared(lists: Iterator[list[Any]]) -> list[Any]:
    """The observers' lists, each one equal to an earlier observer's given as its index."""
    out: list[Any] = []
    for items in lists:
        same = next((i for i, other in enumerate(out) if other == items), None)
        out.append(items if same is None else same)
    return out


def _changes(previous: list[dict[str, Any]], current: list[dict[str, Any]]) -> dict[str, Any]:
    """One step's `c` and `v`: the keys that changed, those equal in every view once."""
    changed = []
    for i, (before, now) in enumerate(zip(previous, current, strict=True)):
        if before and set(before) - set(now):
            raise ValueError(f"observer {i} lost the keys {sorted(set(before) - set(now))}")
        changed.append({k: v for k, v in now.items() if k not in before or before[k] != v})
    keys = {k for own in changed for k in own}
    common = {k: current[0][k] for k in keys if all(v[k] == current[0][k] for v in current)}
    own = {
        str(i): {k: v for k, v in mine.items() if k not in common} for i, mine in enumerate(changed)
    }
    out: dict[str, Any] = {}
    if common:
        out["c"] = common
    if any(own.values()):
        out["v"] = {i: mine for i, mine in own.items() if mine}
    return out


def expand(doc: Mapping[str, Any]) -> list[list[dict[str, Any]]]:
    """The views of an arena-frames/1 document, by step then observer, exactly as
    `view_dict(observe(...))` gave them (`ArenaViewer.expand` does the same in the
    page)."""
    count = len(doc["observers"])
    prefix = doc["prefix"]
    lists = {
        key: [per[i] if not isinstance(per[i], int) else per[per[i]] for i in range(count)]
        for key, per in prefix.items()
    }
    current: list[dict[str, Any]] = [{} for _ in range(count)]
    out = []
    for frame in doc["frames"]:
        common, own = frame.get("c", {}), frame.get("v", {})
        current = [{**current[i], **common, **own.get(str(i), {})} for i in range(count)]
        out.append(
            [{**v, **{k: lists[k][i][: v[k]] for k in prefix}} for i, v in enumerate(current)]
        )
    return out


def game_outline(replay: Mapping[str, Any], seats_shown: SeatsShown = "all") -> dict[str, Any]:
    """What the game page needs before any deal is loaded: the game, players, whose
    views the deals' frames hold (`seats_shown`, as given to `deal_frames`), totals and
    ranks (None while the game is being played), and per deal its number, label (the
    Trix contract, the Trianon bid or "trianon"; "" while it is played), declarer and
    whether it was made (Trianon), scores, its number of steps (step 0 to steps - 1)
    and the steps of its fallbacks. ConfigError for a `seats_shown` the game has not
    (`observers_of`)."""
    game = get_game(replay["game"])
    observers_of(game, seats_shown)
    outline = _Outline(replay)
    faults = replay.get("faults", [])
    for state, event, _ in replay_steps(game, replay, replay_options(game, replay), True):
        if event is None:  # a game in progress: the step being decided is counted below
            break
        number, seat = state.deal_index + 1, state.to_move
        outline.decision(number, seat, _decision(faults, seat, number, len(state.events), event))
    return outline.document(seats_shown)


class _Outline:
    """A game's outline (`game_outline`), counted decision by decision as the game is
    replayed, here or on the frames' own pass (`game_frames_outline`)."""

    def __init__(self, replay: Mapping[str, Any]) -> None:
        self.replay = replay
        self.steps = [0] * len(replay["deals"])
        self.marks: list[dict[str, Any]] = []

    def decision(self, number: int, seat: int, decision: Mapping[str, Any]) -> None:
        """Deal `number`'s next decision, by `seat` (`_decision`'s record of it)."""
        index = number - 1
        if "auto" in decision:
            fault = decision.get("fault")
            kind = fault["kind"] if fault else decision["auto"]
            self.marks.append(
                {"deal": number, "step": self.steps[index], "seat": seat, "kind": kind}
            )
        self.steps[index] += 1

    def document(self, seats_shown: SeatsShown) -> dict[str, Any]:
        replay = self.replay
        game = get_game(replay["game"])
        deals = replay["deals"]
        return {
            "game": game.name,
            "seats": game.seats,
            "players": list(replay["players"]),
            "seats_shown": seats_shown,
            "options": dict(replay.get("options") or {}),
            "totals": replay.get("totals"),
            "ranks": replay.get("ranks"),
            "deals": [
                _deal_outline(game, record, n) for record, n in zip(deals, self.steps, strict=True)
            ],
            "fallbacks": self.marks,
        }


def _deal_outline(game: Game, record: Mapping[str, Any], decisions: int) -> dict[str, Any]:
    """A deal's line of the outline: an ended deal has a step per decision and its end;
    a deal in progress a step per decision and the one being decided."""
    ended = record.get("scores") is not None
    declarer, made = game.deal_declarer(record) if ended else (-1, None)
    return {
        "number": record["number"],
        "label": game.deal_contract(record) if ended else "",
        "declarer": declarer,
        "made": made,
        "scores": record.get("scores"),
        "steps": decisions + 1,
    }


def deal_script(doc: Mapping[str, Any]) -> str:
    """The JavaScript file of one deal's frames, `ArenaViewer.load(N, {...});`: a page
    loads it with a <script src> element, which works from file:// where fetch() does
    not. The JSON is ASCII and has `</` written `<\\/`, so it can never end a script
    element, even pasted inline."""
    data = json.dumps(doc, separators=(",", ":"), ensure_ascii=True).replace("</", "<\\/")
    return f"ArenaViewer.load({int(doc['deal'])}, {data});\n"
