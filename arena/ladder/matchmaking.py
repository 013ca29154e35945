"""The ladder's matchmaker: which versions sit at the next table, and why.

`choose` is a pure function of the ladder's state (the contenders as the store reads
them, the table size, the `[matchmaking]` policy) and of the `random.Random` it is handed:
no I/O, no clock, no other randomness. The same contenders (in any order: they are sorted
by version first) and an rng in the same state give the same `Choice`, so a ladder's
choices replay from its seed and the order of events (docs/ladder.md, "Matchmaking").

The policy, in the order it is applied:

1. **Legality.** A table is `seats` free versions of `seats` different authors (each house
   bot counts as an author of its own). When the free versions span fewer authors there is
   no legal table and `choose` returns None. Otherwise every free version can be seated:
   its table is filled from the other authors' versions.
2. **Placement.** A free version that still owes placement matches is the focus, the one
   that has waited longest first, so a new version is rated promptly.
3. **Promotion.** While some candidate (placement done) and its author's active version
   are both free and enough other authors are free to fill a table, `share_promotion` of
   the choices are promotion pairs: the candidate's table, and in `paired` the same
   opponents in the same seats with the active version in the candidate's seat.
4. **Shares.** Otherwise the focus is drawn by explicit shares: `share_fewest` weighted
   toward the versions with the fewest games, `share_uncertain` the most uncertain among
   the longest idle (so a version whose sigma stays high because it crashes cannot take
   every turn: Halite #355), `share_idle` the longest idle.
5. **Opponents** are drawn near the focus in mu: the other free authors (each by its
   version nearest in mu) ordered by distance, a window of random width over them, and
   `seats - 1` drawn from the window. Seats are shuffled.

`bench_choice` (the one function here that reads a clock) measures `choose` on a
synthetic ladder for `arena bench ladder`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from arena.errors import ConfigError

REASONS = ("placement", "fewest", "uncertain", "idle", "promotion")
"""Every `Choice.reason`, in the order the policy considers them (promotion comes second)."""

STATES = ("active", "candidate")
"""The only states a contender may be in: nothing else plays."""


@dataclass(frozen=True)
class Contender:
    """A version that may play, as the matchmaker sees it (read from the store)."""

    version: str  # entrant name "BOT@N"
    author: str  # author name; house bots: "house" (see `house`)
    house: bool  # a bot the organiser runs to anchor ratings; always eligible
    state: str  # "active" or "candidate" (nothing else is ever passed in)
    games: int  # rated games stored
    mu: float
    sigma: float
    last_played: int  # the ladder's match counter when it last started a match (0: never)
    joined: int  # the match counter when it became eligible
    busy: bool  # in a match now (never chosen while busy)
    placement_left: int  # placement matches it still owes
    active_version: str = ""  # for a candidate: its author's active version of the same bot


@dataclass(frozen=True)
class Policy:
    """The ladder file's `[matchmaking]` table. Every default is explained in
    docs/ladder.md, "Matchmaking"; `__post_init__` refuses values that cannot work."""

    placement_matches: int = 10  # matches a new version plays before the shares apply
    share_fewest: float = 0.5  # focus weighted toward the fewest games (1/rank)
    share_uncertain: float = 0.25  # focus: highest sigma among the longest idle
    share_idle: float = 0.25  # focus: the longest idle
    share_promotion: float = 0.5  # of the choices while some candidate can be paired
    window: float = 0.25  # widest opponent window, as a share of the other free authors
    uncertain_pool: float = 0.25  # the longest-idle share of free versions `uncertain` picks in

    def __post_init__(self) -> None:
        shares = (self.share_fewest, self.share_uncertain, self.share_idle)
        for name in ("share_fewest", "share_uncertain", "share_idle", "share_promotion",
                     "window", "uncertain_pool"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or math.isnan(value) or value < 0:
                raise ConfigError(
                    f"[matchmaking] {name} = {value!r}: give a number of 0 or more"
                )
        if sum(shares) <= 0:
            raise ConfigError(
                "[matchmaking] share_fewest, share_uncertain and share_idle are all 0: "
                "give at least one a positive share"
            )
        for name in ("share_promotion", "window", "uncertain_pool"):
            if getattr(self, name) > 1:
                raise ConfigError(
                    f"[matchmaking] {name} = {getattr(self, name)!r}: give a share from 0 to 1"
                )
        if self.uncertain_pool == 0 and self.share_uncertain > 0:
            raise ConfigError(
                "[matchmaking] uncertain_pool = 0 leaves `uncertain` nobody to choose: "
                "give a share above 0, or set share_uncertain = 0"
            )
        if isinstance(self.placement_matches, bool) or not isinstance(
            self.placement_matches, int
        ) or self.placement_matches < 0:
            raise ConfigError(
                f"[matchmaking] placement_matches = {self.placement_matches!r}: "
                "give a whole number of 0 or more"
            )


@dataclass(frozen=True)
class Choice:
    """The next table: who sits where, and why."""

    seats: tuple[str, ...]  # versions at the table, rotation-0 seat order
    reason: str  # "placement" | "fewest" | "uncertain" | "idle" | "promotion"
    focus: str  # the version the choice was made for
    paired: tuple[str, ...] | None = None  # promotion: the active version's table


AuthorKey = tuple[str, str]


def author_key(contender: Contender) -> AuthorKey:
    """Who a version belongs to for the one-author-a-table rule: its author, or for a
    house bot the bot itself (house bots are independent anchors, so two of them may
    meet; two versions of one house bot may not)."""
    if contender.house:
        return ("house", contender.version.rpartition("@")[0] or contender.version)
    return ("author", contender.author)


def _since(c: Contender) -> int:
    """The match counter since which `c` has waited: its last start, or its joining."""
    return max(c.last_played, c.joined)


def choose(
    contenders: Sequence[Contender], seats: int, policy: Policy, rng: random.Random
) -> Choice | None:
    """The next table, or None when the free versions span fewer than `seats` authors.

    Deterministic in (contenders as a set, seats, policy, rng state): the contenders are
    sorted by version before anything else, and every later order has explicit
    tie-breaks. Draws from `rng` only when there is a table to choose."""
    if seats < 1:
        raise ValueError(f"a table has at least one seat, not {seats}")
    pool = sorted(contenders, key=lambda c: c.version)
    for before, after in zip(pool, pool[1:], strict=False):
        if before.version == after.version:
            raise ValueError(f"version {after.version} is listed twice")
    free = [c for c in pool if not c.busy]
    keys = {c.version: author_key(c) for c in pool}
    free_authors = len({keys[c.version] for c in free})
    if free_authors < seats:
        return None

    owing = [c for c in free if c.placement_left > 0]
    if owing:
        focus = min(owing, key=lambda c: (_since(c), -c.placement_left, c.version))
        return _table(focus, free, keys, seats, policy, rng, "placement")

    pairable = _pairable(pool, free, keys)
    if pairable and rng.random() < policy.share_promotion:
        candidate, active = min(pairable, key=lambda pair: (_since(pair[0]), pair[0].version))
        choice = _table(candidate, free, keys, seats, policy, rng, "promotion")
        paired = tuple(active.version if v == candidate.version else v for v in choice.seats)
        return Choice(choice.seats, "promotion", candidate.version, paired)

    reason = _reason(policy, rng)
    if reason == "fewest":
        focus = _fewest(free, rng)
    elif reason == "uncertain":
        focus = _uncertain(free, policy)
    else:
        focus = min(free, key=lambda c: (_since(c), c.version))
    return _table(focus, free, keys, seats, policy, rng, reason)


def _pairable(
    pool: list[Contender], free: list[Contender], keys: dict[str, AuthorKey]
) -> list[tuple[Contender, Contender]]:
    """Every free candidate (placement done) whose author's active version is free too,
    with that version. The other authors can always fill its tables: the caller found
    `seats` authors free, the candidate's among them."""
    by_version = {c.version: c for c in pool}
    pairs = []
    for c in free:
        if c.state != "candidate" or c.placement_left > 0 or not c.active_version:
            continue
        active = by_version.get(c.active_version)
        if active is None or active.busy or active.version == c.version:
            continue
        if keys[active.version] != keys[c.version]:
            continue  # not its author's: pairing would seat another author twice
        pairs.append((c, active))
    return pairs


def _reason(policy: Policy, rng: random.Random) -> str:
    """A share's name, drawn in proportion to the three shares."""
    shares = (
        ("fewest", policy.share_fewest),
        ("uncertain", policy.share_uncertain),
        ("idle", policy.share_idle),
    )
    draw = rng.random() * sum(share for _, share in shares)
    for name, share in shares:
        if draw < share:
            return name
        draw -= share
    return next(name for name, share in reversed(shares) if share > 0)  # rounding at the top


def _fewest(free: list[Contender], rng: random.Random) -> Contender:
    """A free version drawn with weight 1/(rank+1) by games, fewest first (ties: the
    longest idle, then the version): scale-free, so a version far behind catches up
    steadily without the leaders never being chosen."""
    ranked = sorted(free, key=lambda c: (c.games, _since(c), c.version))
    weights = [1.0 / (rank + 1) for rank in range(len(ranked))]
    return rng.choices(ranked, weights=weights)[0]


def _uncertain(free: list[Contender], policy: Policy) -> Contender:
    """The highest sigma among the `uncertain_pool` share of free versions that have
    waited longest. Picking by sigma alone lets a version whose sigma never falls (one
    that crashes) be chosen every time; here, once chosen it waits its turn again."""
    idle = sorted(free, key=lambda c: (_since(c), c.version))
    size = max(1, math.ceil(policy.uncertain_pool * len(idle)))
    return min(idle[:size], key=lambda c: (-c.sigma, _since(c), c.version))


def _table(
    focus: Contender,
    free: list[Contender],
    keys: dict[str, AuthorKey],
    seats: int,
    policy: Policy,
    rng: random.Random,
    reason: str,
) -> Choice:
    """`focus` and `seats - 1` opponents of other authors, near it in mu.

    Each other free author stands by its version nearest the focus in mu (ties: the
    version); the authors are ordered by that distance, the window takes the nearest
    `seats - 1` plus a uniform random number up to `window` of the rest, and the opponents
    are a random sample of the window. Caller checked that enough authors are free."""
    own = keys[focus.version]
    nearest: dict[AuthorKey, tuple[float, str, Contender]] = {}
    for c in free:
        key = keys[c.version]
        if key == own:
            continue
        entry = (abs(c.mu - focus.mu), c.version, c)
        if key not in nearest or entry[:2] < nearest[key][:2]:
            nearest[key] = entry
    ordered = [entry[2] for entry in sorted(nearest.values(), key=lambda e: e[:2])]
    need = seats - 1
    widest = need + int(policy.window * (len(ordered) - need))
    width = rng.randint(need, widest)
    table = [focus, *rng.sample(ordered[:width], need)]
    rng.shuffle(table)
    return Choice(tuple(c.version for c in table), reason, focus.version)


def synthetic_ladder(
    versions: int = 100, games: int = 100_000, seed: int = 0
) -> list[Contender]:
    """A ladder of `versions` versions holding about `games` rated games in all, shaped
    like a running one: a few house bots, authors with one to three versions, some
    candidates (with their author's active version), some owing placement, some busy.
    For benchmarks and tests."""
    rng = random.Random(seed)
    counter = max(1, games // 4)  # matches started so far, four seats a match
    out: list[Contender] = []
    active_of: dict[str, str] = {}
    for i in range(versions):
        house = i < max(1, versions // 20)
        author = "house" if house else f"author{rng.randrange(max(1, versions // 2))}"
        bot = f"house{i}" if house else f"{author}bot"
        version = f"{bot}@{i + 1}"
        candidate = not house and author in active_of and rng.random() < 0.5
        placement = 0 if house or rng.random() < 0.95 else rng.randint(1, 10)
        share = rng.random() * 2 * games / max(1, versions)
        out.append(
            Contender(
                version=version,
                author=author,
                house=house,
                state="candidate" if candidate else "active",
                games=0 if placement == 10 else int(share),
                mu=rng.gauss(25.0, 6.0),
                sigma=max(1.0, 8.333 * rng.random()),
                last_played=rng.randrange(counter),
                joined=rng.randrange(counter // 2 + 1),
                busy=rng.random() < 0.1,
                placement_left=placement,
                active_version=active_of.get(author, "") if candidate else "",
            )
        )
        if not house and not candidate:
            active_of.setdefault(author, version)
    return out


def bench_choice(
    versions: int = 100, games: int = 100_000, choices: int = 1000
) -> dict[str, float]:
    """Time `choose` at `versions` versions holding `games` games, four seats a table:
    `choices` choices over a synthetic ladder (`synthetic_ladder`), each on the ladder as
    it stands (the bench times the choice, not a simulation). Returns milliseconds per
    choice (`mean_ms`, `p50_ms`, `p95_ms`, `max_ms`) and the sizes; prints nothing."""
    import time  # the one clock here: the benchmark's, never the policy's

    ladder = synthetic_ladder(versions, games)
    stored = sum(c.games for c in ladder)
    index = {c.version: i for i, c in enumerate(ladder)}
    counter = max(c.last_played for c in ladder) if ladder else 0
    policy = Policy()
    rng = random.Random(f"bench/{versions}/{games}")
    times: list[float] = []
    nones = 0
    for _ in range(choices):
        start = time.perf_counter()
        choice = choose(ladder, 4, policy, rng)
        times.append((time.perf_counter() - start) * 1000)
        if choice is None:
            nones += 1
            continue
        counter += 1  # the chosen start a match and (untimed) the next choice sees it
        for version in choice.seats:
            c = ladder[index[version]]
            ladder[index[version]] = replace(
                c, games=c.games + 1, last_played=counter,
                placement_left=max(0, c.placement_left - 1),
            )
    times.sort()
    return {
        "versions": float(versions),
        "games": float(stored),
        "choices": float(choices),
        "mean_ms": sum(times) / len(times) if times else 0.0,
        "p50_ms": times[len(times) // 2] if times else 0.0,
        "p95_ms": times[min(len(times) - 1, int(0.95 * len(times)))] if times else 0.0,
        "max_ms": times[-1] if times else 0.0,
        "none": float(nones),
    }
