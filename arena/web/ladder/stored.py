"""The ladder's stored matches as the site's figures read them, kept in the serving
process and read again only for what was stored since.

The table's margins and place ranges, a bot's margins against each opponent, the
promotion tests and the versions' fault counts are functions of every stored match.
Read whole for each request they cost seconds at 100,000 games (docs/ladder.md,
"Measured"). But a stored match never changes and each is stored with a higher row id
than all before it, so the site keeps each ladder's outcomes in memory (`Stored`: a
snapshot, never changed once made) and, at each request, reads only the match rows
after the last one it holds (arena/league/store/ladder_site_reads.py, `stored_since`:
ranges of ids on indexes). A snapshot is replaced, not changed, when matches were
stored, so a request reads one consistent state however many run at once.

A snapshot of 25,000 matches is about 400,000 objects, which Python's cyclic garbage
collector would go through at each of its full collections: a request that met one
took 100 ms more (measured at 100,000 games, a bot's page at p95 130 ms instead of
50). So from `FREEZE_AT` stored matches on, a new snapshot's objects are moved out of
its reach once made (`gc.collect()`, then `gc.freeze()`): the collection before it
goes only through what is not frozen yet, and a snapshot's objects hold no reference
cycle, so those of a snapshot replaced are still freed by their reference counts.

What is computed from a snapshot (the table's rows, the pairs of the promotion tests)
is memoised in it (`Stored.memo`). Computing the table over 100,000 games still takes
a second or two, so while one request computes it for a new snapshot the others are
given the table of the snapshot before (`Stored.latest`): under load the table may lag
the stored matches by that one computation, never more; with nobody else asking, a
request always gets the table of the newest snapshot.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import sqlite_utils

from arena.league.definition.records import GameOutcome, MatchOutcome
from arena.league.store.ladder_site_reads import database_file, stored_match_id, stored_since

T = TypeVar("T")
FREEZE_AT = 5000  # stored matches from which a new snapshot's objects are frozen


@dataclass
class Stored:
    """Every stored match of one ladder as read up to the match row `last_id`."""

    league_id: int
    last_id: int = 0
    last_idx: int | None = None
    outcomes: Mapping[int, MatchOutcome] = field(default_factory=dict)  # by index
    order: tuple[int, ...] = ()  # the indexes in the order stored
    finished: tuple[tuple[float, int], ...] = ()  # (finished_at, index), sorted
    faults: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # (charged, games)
    memo: dict[Hashable, Any] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def value(self, key: Hashable, compute: Callable[[], T]) -> T:
        """`compute()` for this snapshot, computed once."""
        with self.lock:
            if key not in self.memo:
                self.memo[key] = compute()
            return self.memo[key]  # type: ignore[no-any-return]


_HELD: dict[tuple[str, int], Stored] = {}
_READING: dict[tuple[str, int], threading.Lock] = {}  # one reader of new matches at a time
_LATEST: dict[tuple[str, int, Hashable], tuple[int, Any]] = {}  # value, and of which id
_BUSY: set[tuple[str, int, Hashable]] = set()
_LOCK = threading.Lock()


def _file(db: sqlite_utils.Database) -> str:
    return database_file(db)


def stored(db: sqlite_utils.Database, league_id: int) -> Stored:
    """The snapshot of the league's stored matches as `db` holds them now. One request
    at a time reads what was stored since (the server's first reads every match, 1.2 s
    at 100,000 games: a hundred readers arriving at once read them once, not a hundred
    times); the others wait for it and take its snapshot."""
    key = (_file(db), league_id)
    with _LOCK:
        reading = _READING.setdefault(key, threading.Lock())
    with reading:
        return _refreshed(db, key, league_id)


def _refreshed(db: sqlite_utils.Database, key: tuple[str, int], league_id: int) -> Stored:
    with _LOCK:
        held = _HELD.get(key)
    if held is not None and held.last_idx is not None:
        if stored_match_id(db, held.last_id) != (league_id, held.last_idx):
            held = None  # another database at this path: read it whole
    if held is None:
        held = Stored(league_id)
    matches, games = stored_since(db, league_id, held.last_id)
    if not matches:
        with _LOCK:
            _HELD.setdefault(key, held)
        return held
    outcomes = dict(held.outcomes)
    faults = {name: list(counts) for name, counts in held.faults.items()}
    finished = list(held.finished)
    order = list(held.order)
    for match_id, idx, entrants, finished_at in matches:
        outcome = outcomes[idx] = MatchOutcome(idx, entrants)
        order.append(idx)
        finished.append((finished_at or 0.0, idx))
        game_ids: dict[int, GameOutcome] = {}
        for rotation, game_id, _, entrant, total, charged in games.get(match_id, []):
            game = game_ids.get(game_id)
            if game is None:
                game = game_ids[game_id] = GameOutcome(rotation, {}, {})
                outcome.games.append(game)
            game.totals[entrant] = total
            game.faults[entrant] = charged
            counts = faults.setdefault(entrant, [0, 0])
            counts[0] += charged or 0
            counts[1] += 1
    fresh = Stored(
        league_id,
        matches[-1][0],
        matches[-1][1],
        outcomes,
        tuple(order),
        tuple(sorted(finished)),
        {name: (c[0], c[1]) for name, c in faults.items()},
    )
    with _LOCK:
        now = _HELD.get(key)
        if now is None or now.last_id <= fresh.last_id:
            _HELD[key] = fresh
    if len(outcomes) >= FREEZE_AT:
        gc.collect()
        gc.freeze()
    return fresh


def latest(
    db: sqlite_utils.Database,
    snapshot: Stored,
    name: str,
    key: Hashable,
    compute: Callable[[], T],
) -> T:
    """`compute()` of `snapshot` (`key`: what else it depends on), memoised in it;
    while another request computes the value called `name`, the newest one computed
    before, when there is one (the module's docstring)."""
    memo = (name, key)
    if memo in snapshot.memo:
        return snapshot.memo[memo]  # type: ignore[no-any-return]
    slot = (_file(db), snapshot.league_id, name)
    with _LOCK:
        held = _LATEST.get(slot)
        if slot in _BUSY and held is not None:
            return held[1]  # type: ignore[no-any-return]
        _BUSY.add(slot)
    try:
        value = snapshot.value(memo, compute)
    except BaseException:
        with _LOCK:
            _BUSY.discard(slot)
        raise
    with _LOCK:
        _BUSY.discard(slot)
        held = _LATEST.get(slot)
        if held is None or held[0] <= snapshot.last_id:
            _LATEST[slot] = (snapshot.last_id, value)
    return value
