"""`arena bench duel`: the games a duel takes to a verdict, against two separate runs on
the same question.

For each of `seeds` deal keys it plays the same question twice, each to its verdict
through the duel's own code (`arena.duel.runner.Duel`, built-in bots in process):

- **paired**: `arena duel A B` as it is, A's and B's matches of each step on the same
  deals against the same opponents, read by the paired test (`sprt`);
- **separate**: A alone against the opponents on deals of its own and B alone on deals
  of its own, step after step, the two runs read together by the unpaired test
  (`sprt_unpaired`): what an author does with two `arena play` runs, with the same
  test at the end so that only the pairing differs.

Both count every game played, A's and B's, against the same `max_games`. The spread
of one step's difference, paired and separate, says where the games go. Prints
nothing; the command prints the figures. Nothing here is a test.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.duel.runner import Duel, DuelRequest, PairPlayed
from arena.league.standings.sprt import SprtSettings, Verdict


@dataclass
class Condition:
    """One way of asking (paired or separate) over every seed: each test's verdict and
    every step's difference."""

    paired: bool
    verdicts: list[Verdict] = field(default_factory=list)
    differences: list[float] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def name(self) -> str:
        return "paired" if self.paired else "separate"

    def figures(self) -> dict[str, Any]:
        games = [v.games for v in self.verdicts]
        decided = [v.games for v in self.verdicts if v.decision in ("accept", "reject")]
        return {
            "tests": len(games),
            "accepted": sum(v.decision == "accept" for v in self.verdicts),
            "rejected": sum(v.decision == "reject" for v in self.verdicts),
            "undecided": sum(v.decision == "undecided" for v in self.verdicts),
            "games_mean": statistics.fmean(games) if games else None,
            "games_median": statistics.median(games) if games else None,
            "games": games,
            "decided_games_mean": statistics.fmean(decided) if decided else None,
            "step_mean": statistics.fmean(self.differences) if self.differences else None,
            "step_spread": (
                statistics.stdev(self.differences) if len(self.differences) > 1 else None
            ),
            "seconds": self.seconds,
        }


def bench_duel(
    a: str,
    b: str,
    opponents: tuple[str, ...] = (),
    *,
    game: str = "trix",
    rules: Mapping[str, str] | None = None,
    settings: SprtSettings | None = None,
    seeds: int = 5,
    on_test: Callable[[str, int, Verdict], None] | None = None,
) -> dict[str, Any]:
    """Play the question "is A better than B?" to its verdict `seeds` times paired
    and `seeds` times as two separate runs, seed k's deal key the same for both
    (`on_test` is told of each verdict as it comes); the figures of each."""
    settings = settings or SprtSettings()
    conditions = [Condition(paired=True), Condition(paired=False)]
    for k in range(seeds):
        key = f"{k + 1:032x}"  # a fixed key a seed: the bench repeats exactly
        for condition in conditions:
            duel = Duel(
                DuelRequest(
                    a,
                    b,
                    opponents,
                    game=game,
                    rules=dict(rules or {}),
                    settings=settings,
                    deal_key=key,
                    paired=condition.paired,
                )
            )
            started = time.perf_counter()
            steps: list[PairPlayed] = list(duel.play())
            condition.seconds += time.perf_counter() - started
            condition.differences += [p.difference for p in steps]
            verdict = duel.verdict()
            condition.verdicts.append(verdict)
            if on_test is not None:
                on_test(condition.name, k, verdict)
    return {
        "a": a,
        "b": b,
        "opponents": list(Duel(DuelRequest(a, b, opponents, game=game)).opponents),
        "game": game,
        "rules": dict(rules or {}),
        "settings": vars(settings),
        "seeds": seeds,
        **{c.name: c.figures() for c in conditions},
    }


def render_duel(figures: Mapping[str, Any]) -> str:
    """The bench's figures as text: each condition's verdicts and games to them."""
    s = figures["settings"]
    opponents = figures["opponents"]
    shown = (
        f"{opponents[0]} x{len(opponents)}" if len(set(opponents)) == 1 else ", ".join(opponents)
    )
    rules = " ".join(f"{k}={v}" for k, v in figures["rules"].items())
    lines = [
        f"{figures['game']}{' ' + rules if rules else ''}: A {figures['a']} against B "
        f"{figures['b']}, opponents {shown}",
        f"test: H0 A better by {s['margin0']:g}, H1 by {s['margin1']:g} points a game, "
        f"alpha {s['alpha']:g}, beta {s['beta']:g}, max {s['max_games']} games; "
        f"{figures['seeds']} seeds",
    ]
    for name in ("paired", "separate"):
        f = figures[name]
        spread = f"{f['step_spread']:.1f}" if f["step_spread"] is not None else "n/a"
        lines.append(
            f"{name:>8}: accepted {f['accepted']}, rejected {f['rejected']}, undecided "
            f"{f['undecided']}; games to a verdict mean {f['games_mean']:.0f}, median "
            f"{f['games_median']:.0f} ({', '.join(map(str, f['games']))}); one step's "
            f"difference {f['step_mean']:+.1f}, spread {spread} points a game; "
            f"{f['seconds']:.0f} s"
        )
    paired, separate = figures["paired"]["games_mean"], figures["separate"]["games_mean"]
    if paired and separate:
        lines.append(f"separate runs took {separate / paired:.2f} times the duel's games")
    return "\n".join(lines)
