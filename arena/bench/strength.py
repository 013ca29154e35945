"""`arena bench strength`: how strong the sampler is, in seat-rotated matches against the
greedy bot, and greedy against random bots as a yardstick.

`measure_strength` plays, for one game, `matches` seat-rotated matches (`play_match`,
one game per seating, every game of a match on the match's seed) of the sampler
against greedy bots in every other seat, and as a yardstick as many of one greedy bot
against random bots. Every bot plays in process: the sampler as `SamplerPlayer` (the
same engine view the SDK bot rebuilds from a request), greedy through `SdkPlayer`
(the real wire encoding, as it would run as a process), random as the built-in.

Per bot it reports the duplicate margin per game (its total less the mean of the
others' totals, over the match's games) with its 95% Student t interval over one
number per match (`arena.league.standings.stats.mean_interval`: the match, not the game, is
the independent sample), its think time per decision asked, and in Trianon how
often it declared and made its contracts. With `samples` set, every decision does
a fixed amount of work, so a measurement repeats exactly on any machine (the time
budget only cuts work that would overrun it).

Measured with `measure_strength(game, 30, "strength", samples=N, budget_ms=5000,
time_ms=0)`, default rules, margins per game with 95% intervals:
- Trix, 20 samples: sampler +170.5 [+122.3, +218.7] over greedy (30 matches, 29 ms
  a decision); greedy +777.6 [+736.0, +819.2] over random.
- Trianon, 20 samples: sampler +177.5 [+153.6, +201.4] over greedy (30 matches,
  62 ms a decision; declarer in 289 of 934 deals, 236 made); greedy +354.0
  [+334.3, +373.7] over random.
- 60 samples: Trix +243.8 [+198.1, +289.5] (62 ms a decision); at the default 200 ms
  budget, Trix +277.1 [+235.3, +318.9]; docs/bots.md has every level for both games.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.bots.builtin import RandomBot
from arena.bots.local import SdkPlayer
from arena.bots.sampler import SamplerPlayer
from arena.games import get_game
from arena.games.base import Action, SummaryKind
from arena.league.standings.stats import Interval, mean_interval
from arena.play.matches import MatchResult, play_match
from arena.play.referee import Decision, GameStart
from arena.strategies.greedy import GreedyBot


class Timed:
    """A player wrapper that counts the decisions put to it and the time it took."""

    def __init__(self, player: Any) -> None:
        self.player = player
        self.name = player.name
        self.wants_notices = player.wants_notices
        self.decisions = 0
        self.seconds = 0.0
        self.slowest = 0.0

    def start_game(self, start: GameStart) -> None:
        self.player.start_game(start)

    def act(self, decision: Decision) -> Action:
        started = time.perf_counter()
        try:
            return self.player.act(decision)
        finally:
            took = time.perf_counter() - started
            self.seconds += took
            self.slowest = max(self.slowest, took)
            self.decisions += 1

    def end_deal(self, seat: int, deal: Any) -> None:
        self.player.end_deal(seat, deal)

    def end_game(self, seat: int, replay: Any) -> None:
        self.player.end_game(seat, replay)


@dataclass
class BotStrength:
    """One bot's measured strength against its table (see the module docstring)."""

    name: str
    opponents: str
    matches: int
    margin: Interval  # per game, 95% interval over matches
    think_ms: float  # mean wall-clock time per decision asked
    max_think_ms: float  # the slowest single decision
    decisions: int
    faults: int
    deals: int = 0
    declared: int = 0  # Trianon: deals in which this bot was the declarer
    made: int = 0  # ... and made the contract
    margins: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "opponents": self.opponents,
            "matches": self.matches,
            "margin": self.margin.mean,
            "margin_ci": [self.margin.low, self.margin.high],
            "think_ms": self.think_ms,
            "max_think_ms": self.max_think_ms,
            "decisions": self.decisions,
            "faults": self.faults,
            "deals": self.deals,
            "declared": self.declared,
            "made": self.made,
        }


def _declarations(game: Any, result: MatchResult, bot: int) -> tuple[int, int, int]:
    """(deals played, deals declared, contracts made) by bot index `bot` in a match."""
    deals = declared = made = 0
    for seating, outcome in zip(result.seatings, result.games, strict=True):
        for record in outcome.replay["deals"]:
            deals += 1
            seat, ok = game.deal_declarer(record)
            if seat >= 0 and seating[seat] == bot:
                declared += 1
                made += bool(ok)
    return deals, declared, made


def _bot_margin(result: MatchResult, bot: int) -> float:
    totals = result.bot_totals()
    others = [t for i, t in enumerate(totals) if i != bot]
    return (totals[bot] - sum(others) / len(others)) / len(result.games)


def _run(
    game: Any,
    options: Any,
    *,
    make_hero: Callable[[], Any],
    make_other: Callable[[], Any],
    name: str,
    opponents: str,
    seeds: list[str],
    on_match: Callable[[str, int, float], None] | None,
) -> BotStrength:
    margins: list[float] = []
    decisions = 0
    seconds = 0.0
    slowest = 0.0
    faults = deals = declared = made = 0
    for index, seed in enumerate(seeds):
        hero = Timed(make_hero())
        others = [make_other() for _ in range(game.seats - 1)]
        names = [name] + [f"{o.name}#{i + 1}" for i, o in enumerate(others)]
        result = play_match(game, [hero, *others], names, seed, options=options)
        margins.append(_bot_margin(result, 0))
        decisions += hero.decisions
        seconds += hero.seconds
        slowest = max(slowest, 1000 * hero.slowest)
        faults += result.bot_faults()[0]
        d, c, m = _declarations(game, result, 0)
        deals, declared, made = deals + d, declared + c, made + m
        if on_match is not None:
            on_match(name, index, margins[-1])
    return BotStrength(
        name=name,
        opponents=opponents,
        matches=len(seeds),
        margin=mean_interval(margins),
        think_ms=1000 * seconds / decisions if decisions else 0.0,
        max_think_ms=slowest,
        decisions=decisions,
        faults=faults,
        deals=deals,
        declared=declared,
        made=made,
        margins=margins,
    )


def measure_strength(
    game_name: str,
    matches: int = 30,
    *,
    seed: str = "strength",
    budget_ms: float = 200,
    samples: int | None = None,
    options: dict[str, Any] | None = None,
    yardstick: bool = True,
    on_match: Callable[[str, int, float], None] | None = None,
    time_ms: int = 1000,
) -> list[BotStrength]:
    """The sampler against greedy bots, and (with `yardstick`) greedy against random
    bots, over `matches` seat-rotated matches of `game_name` on seeds
    `{seed}-0`, `{seed}-1`, ...; `on_match(bot, index, margin)` after each match.

    The sampler thinks `budget_ms` per decision, or does `samples` deals per decision
    within that time when `samples` is set, and never more than its safe share of
    `time_ms`, the decision time a referee would give it (the default move_timeout;
    0: not told). With `samples` set and time to spare (a generous `budget_ms`,
    `time_ms` 0) the work per decision is fixed and the result repeats exactly."""
    game = get_game(game_name)
    opts = game.parse_options(options or {})
    seeds = [f"{seed}-{i}" for i in range(matches)]
    greedy = GreedyBot
    label = f"sampler[{samples} samples]" if samples else f"sampler[{budget_ms:g} ms]"
    rows = [
        _run(
            game,
            opts,
            make_hero=lambda: SamplerPlayer(budget_ms, samples, name=label, time_ms=time_ms),
            make_other=lambda: SdkPlayer(greedy()),
            name=label,
            opponents="greedy",
            seeds=seeds,
            on_match=on_match,
        )
    ]
    if yardstick:
        rows.append(
            _run(
                game,
                opts,
                make_hero=lambda: SdkPlayer(greedy()),
                make_other=lambda: RandomBot(),
                name="greedy",
                opponents="random",
                seeds=seeds,
                on_match=on_match,
            )
        )
    return rows


def render_strength(rows: list[BotStrength], game: str, seed: str) -> str:
    """The rows as `arena bench strength` prints them (with declarations when the
    game's table counts them, `SummaryKind.DECLARED`)."""
    declares = get_game(game).deal_summary.kind is SummaryKind.DECLARED
    lines = []
    for row in rows:
        low, high = row.margin.low, row.margin.high
        interval = "n/a" if low is None or high is None else f"[{low:+.1f}, {high:+.1f}]"
        line = (
            f"{game}: {row.name} against {row.opponents}: {row.margin.mean:+.1f} a game, "
            f"95% interval {interval}, {row.matches} matches (seeds {seed}-0 .. "
            f"{seed}-{row.matches - 1}); think {row.think_ms:.1f} ms a decision "
            f"(slowest {row.max_think_ms:.0f} ms, {row.decisions} decisions), "
            f"{row.faults} faults"
        )
        if row.deals and declares:
            line += f"; declarer in {row.declared} of {row.deals} deals, made {row.made}"
        lines.append(line)
    return "\n".join(lines)
