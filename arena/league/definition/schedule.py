"""League schedules: which entrants meet at which table, derived only from the league seed.

A schedule is a plain list of `ScheduledMatch`; running it is someone else's job. Everything
here is deterministic: the same entrants, settings and seed always give the same list, on any
machine and under any `PYTHONHASHSEED`, so a league can be re-run or audited from its file.
To keep it so, randomness comes from a private `random.Random` seeded with a sha256 of the
seed text (never the global generator, never `hash()`), and nothing iterates over a set of
names; every loop walks the entrants in league-file order.

Three schedules:

- `round-robin`: every table of `seats` entrants, `rounds` times. Exhaustive, so it is the
  fairest, but C(n, seats) grows fast (20 entrants at 4 seats is 4845 tables).
- `balanced`: a fixed number of tables chosen greedily so that play counts never differ by
  more than one and pairs of entrants meet about equally often; for leagues too large for
  round-robin.
- `gauntlet`: each match seats one candidate (taking turns) against entrants drawn evenly
  from the field; for testing new bots against an established pool.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum


class Schedule(StrEnum):
    """How a league chooses its tables (docs/leagues.md, "Schedules")."""

    ROUND_ROBIN = "round-robin"
    BALANCED = "balanced"
    GAUNTLET = "gauntlet"
    PLAY = "play"  # `arena play --db`: games stored as they come, no schedule of their own
    LADDER = "ladder"  # a ladder's matches, chosen as it runs (docs/ladder.md)


SCHEDULES = (Schedule.ROUND_ROBIN, Schedule.BALANCED, Schedule.GAUNTLET)
"""The schedules a league file may choose."""
BALANCED_ATTEMPTS = 8  # greedy tables tried per balanced match; the best is kept


@dataclass(frozen=True)
class ScheduledMatch:
    """One table of the schedule, before any game is played."""

    index: int  # 0-based position in the schedule
    entrants: tuple[str, ...]  # one name per seat for rotation 0 (length = seats)
    seed: str  # the match's game seed, f"{league_seed}/{index}"
    # The first rotation slot its bots' processes take (arena/bots/rotation_pool.py):
    # a ladder replays a table's deals with one version changed (a promotion test's
    # pair), and the replay's slots are processes that have not seen those deals.
    slots: int = 0


@dataclass(frozen=True)
class Step:
    """One size a league had: its entrants (in league-file order) and, by schedule, its
    rounds or matches. A league that grew (docs/leagues.md, "Growing a league") was
    scheduled step by step, each step extending the schedule of the one before."""

    entrants: tuple[str, ...]
    rounds: int = 1
    matches: int = 0


def build_schedule(
    entrants: Sequence[str],
    seats: int,
    schedule: str,
    seed: int | str,
    *,
    rounds: int = 1,
    matches: int = 0,
    candidates: Sequence[str] = (),
    history: Sequence[Step] = (),
) -> list[ScheduledMatch]:
    """The league's matches in playing order, the same list every time for the same inputs.

    `rounds` is read only by round-robin; `matches` and `candidates` only by the others.
    `history` is the league's earlier sizes, oldest first, when it grew: the schedule of
    each earlier size is a prefix of this one (the same tables, seeds and indexes), and
    the rest extends it so that the whole is as fair as the schedule allows.
    """
    steps = [*history, Step(tuple(entrants), rounds, matches)]
    for step in steps:
        _check_entrants(list(step.entrants), seats)
    _check_growth(steps)
    if schedule == Schedule.ROUND_ROBIN:
        tables = _round_robin(steps, seats)
    elif schedule == Schedule.BALANCED:
        tables = _balanced(steps, seats, _rng(seed, schedule))
    elif schedule == Schedule.GAUNTLET:
        tables = _gauntlet(steps, seats, list(candidates), _rng(seed, schedule))
    else:
        allowed = ", ".join(repr(s.value) for s in SCHEDULES)
        raise ValueError(f"unknown schedule {schedule!r}: must be one of {allowed}")
    return [ScheduledMatch(i, table, f"{seed}/{i}") for i, table in enumerate(tables)]


def _check_growth(steps: Sequence[Step]) -> None:
    """Each step keeps the one before: its entrants first, in their order, and no fewer
    rounds or matches."""
    for before, after in itertools.pairwise(steps):
        if after.entrants[: len(before.entrants)] != before.entrants:
            raise ValueError("a league can only grow: its entrants must stay, in their order")
        if after.rounds < before.rounds or after.matches < before.matches:
            raise ValueError("a league can only grow: no fewer rounds or matches")


def play_counts(schedule: Iterable[ScheduledMatch], entrants: Sequence[str] = ()) -> dict[str, int]:
    """How many matches each entrant plays.

    Names in `entrants` that never play are listed with 0, so that a balance measure
    (max - min) sees them; without it only entrants found in the schedule are listed.
    """
    counts = dict.fromkeys(entrants, 0)
    for match in schedule:
        for name in match.entrants:
            counts[name] = counts.get(name, 0) + 1
    return counts


def pair_counts(
    schedule: Iterable[ScheduledMatch], entrants: Sequence[str] = ()
) -> dict[tuple[str, str], int]:
    """How many matches each pair of entrants shares, keyed by the two names sorted.

    Every pair of the entrants found in the schedule (plus any named in `entrants`) is
    listed, with 0 for pairs that never meet: a pair that never meets is the worst
    imbalance there is, and a dict of only the meetings would hide it.
    """
    matches = list(schedule)
    names = list(dict.fromkeys([*entrants, *(n for m in matches for n in m.entrants)]))
    counts = {_pair(a, b): 0 for a, b in itertools.combinations(names, 2)}
    for match in matches:
        for a, b in itertools.combinations(match.entrants, 2):
            counts[_pair(a, b)] += 1
    return counts


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _rng(seed: int | str, schedule: str) -> random.Random:
    """A private random source for one schedule: sha256, so it does not depend on hash()."""
    digest = hashlib.sha256(f"{seed}/{schedule}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _check_entrants(names: list[str], seats: int) -> None:
    if seats < 2:
        raise ValueError(f"seats must be at least 2, not {seats}")
    seen: set[str] = set()  # membership only; never iterated
    for name in names:
        if name in seen:
            raise ValueError(f"entrant {name!r} is listed twice")
        seen.add(name)
    if len(names) < seats:
        raise ValueError(
            f"a {seats}-seat table needs at least {seats} entrants, the league has {len(names)}"
        )


def _round_robin(steps: Sequence[Step], seats: int) -> list[tuple[str, ...]]:
    """Every combination, in league order, once per round; a grown league adds, for
    the rounds it had, the tables its new entrants are at, then its new rounds whole."""
    tables: list[tuple[str, ...]] = []
    done: tuple[str, ...] = ()
    played = 0
    for step in steps:
        if step.rounds < 1:
            raise ValueError(f"round-robin rounds must be at least 1, not {step.rounds}")
        combos = list(itertools.combinations(step.entrants, seats))
        old = set(done)  # membership only; never iterated
        tables += [c for c in combos if not old.issuperset(c)] * played
        tables += combos * (step.rounds - played)
        done, played = step.entrants, step.rounds
    return tables


def _balanced(steps: Sequence[Step], seats: int, rng: random.Random) -> list[tuple[str, ...]]:
    """Greedy tables: the least-played entrants first, then the fewest repeat meetings.

    Each table is built seat by seat. The next entrant is the one with the fewest plays so
    far, then the fewest meetings with those already seated, then a seeded random draw.
    Plays come first, so every table takes the least-played entrants and play counts
    never differ by more than one; meetings only choose among equally-played entrants.
    A grown league's new entrants join with no plays, so they are seated first until
    they have caught up.

    One greedy pass can paint itself into a corner (its first pick is random), so each
    table is built `BALANCED_ATTEMPTS` times with different draws and the attempt with the
    fewest plays, then the fewest earlier meetings (then the fewest repeated ones: sum of
    squares) is kept. At 20 entrants, 4 seats and 100 matches this roughly halves the
    seeds whose worst pair spread (max - min meetings) is 3 rather than 2.
    """
    plays: dict[str, int] = {}
    meets: dict[tuple[str, str], int] = {}
    tables: list[tuple[str, ...]] = []
    for step in steps:
        if step.matches < 1:
            raise ValueError(f"balanced schedule needs matches of at least 1, not {step.matches}")
        names = list(step.entrants)
        _join(names, plays, meets)
        while len(tables) < step.matches:
            best: tuple[int, int, int] | None = None
            table: list[str] = []
            for _attempt in range(BALANCED_ATTEMPTS):
                attempt: list[str] = []
                for _seat in range(seats):
                    attempt.append(_pick(names, attempt, plays, meets, rng))
                met = [meets[_pair(a, b)] for a, b in itertools.combinations(attempt, 2)]
                key = (sum(plays[n] for n in attempt), sum(met), sum(m * m for m in met))
                if best is None or key < best:
                    best, table = key, attempt
            # Seat order matters under cyclic rotation (neighbours stay neighbours), so
            # the seats are shuffled rather than left in picking order, which favours the
            # least-played entrant in the first seat.
            rng.shuffle(table)
            for name in table:
                plays[name] += 1
            for a, b in itertools.combinations(table, 2):
                meets[_pair(a, b)] += 1
            tables.append(tuple(table))
    return tables


def _join(names: list[str], counts: dict[str, int], meets: dict[tuple[str, str], int]) -> None:
    """Entrants new to the league start with no plays and no meetings."""
    for name in names:
        counts.setdefault(name, 0)
    for a, b in itertools.combinations(names, 2):
        meets.setdefault(_pair(a, b), 0)


def _gauntlet(
    steps: Sequence[Step],
    seats: int,
    candidates: list[str],
    rng: random.Random,
) -> list[tuple[str, ...]]:
    """Candidates take turns in seat one; the other seats are drawn evenly from the field.

    The field is the non-candidates when there are enough of them to fill a table, so
    candidates are measured against the established pool rather than each other; only a
    league with too few non-candidates falls back to drawing other candidates too. A
    grown league's new entrants join the field with no draws, so they are drawn first.
    """
    if not candidates:
        raise ValueError("gauntlet schedule needs at least one candidate")
    names = list(steps[-1].entrants)
    for name in candidates:
        if name not in names:
            raise ValueError(f"gauntlet candidate {name!r} is not an entrant")
    if len(set(candidates)) != len(candidates):
        raise ValueError("gauntlet candidates must not repeat")
    draws: dict[str, int] = {}
    meets: dict[tuple[str, str], int] = {}
    tables: list[tuple[str, ...]] = []
    for step in steps:
        if step.matches < 1:
            raise ValueError(f"gauntlet schedule needs matches of at least 1, not {step.matches}")
        names = list(step.entrants)
        _join(names, draws, meets)
        outsiders = [n for n in names if n not in candidates]
        while len(tables) < step.matches:
            candidate = candidates[len(tables) % len(candidates)]
            if len(outsiders) >= seats - 1:
                field = outsiders
            else:
                field = [n for n in names if n != candidate]
            table = [candidate]
            for _seat in range(seats - 1):
                table.append(_pick(field, table, draws, meets, rng))
            drawn = table[1:]
            rng.shuffle(drawn)  # the field's seats, as in balanced; the candidate stays first
            for name in drawn:
                draws[name] += 1
            for a, b in itertools.combinations(table, 2):
                meets[_pair(a, b)] += 1
            tables.append((candidate, *drawn))
    return tables


def _pick(
    pool: list[str],
    table: list[str],
    counts: dict[str, int],
    meets: dict[tuple[str, str], int],
    rng: random.Random,
) -> str:
    """The entrant of `pool` not yet at `table` with the fewest (counts, meetings, draw).

    Only the entrants with the lowest count can win, so only they are scored (this keeps
    large leagues fast). The random key is drawn per scored name in `pool` order, so the
    tie-break is seeded and independent of any hashing.
    """
    free = [name for name in pool if name not in table]
    low = min(counts[name] for name in free)
    best: tuple[int, float] | None = None
    choice = free[0]
    for name in free:
        if counts[name] != low:
            continue
        key = (sum(meets[_pair(name, other)] for other in table), rng.random())
        if best is None or key < best:
            best, choice = key, name
    return choice
