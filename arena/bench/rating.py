"""`arena bench rating`: how many games a statistic needs to order a ladder of known strength.

The ladder is four in-process mixed bots (`arena.strategies.mixed`, the heuristic
move with probability p, p = 0.6, 0.7, 0.8, 0.9) at one table in seat-rotated matches,
so the true order is known. Each league seed plays its own matches; every statistic is
then read after every match of the same games, so they are compared on equal terms.

"Games needed for 90%" is the fewest games from which at least 90% of the seeds order
the ladder exactly right at every later point up to the cap (a statistic that touches
90% and falls back has not settled). Nothing here is a test: the tests check the
statistics on constructed cases.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.league.definition.config import Ratings
from arena.league.standings.ratings import GameOutcome, MatchOutcome, Rater
from arena.league.standings.separation import StopRule, place_order, stop_check
from arena.league.standings.stats import match_margins

LADDER = (0.6, 0.7, 0.8, 0.9)
NAMES = tuple(f"ladder-{p:g}" for p in LADDER)
TRUE_ORDER = tuple(reversed(NAMES))  # best first
TRUESKILL_DEFAULTS = Ratings(tau=25.0 / 300, draw_probability=0.10)  # the library's own


def play_ladder_league(
    seed: str, matches: int, game_name: str = "trix", rungs: Sequence[float] = LADDER
) -> list[MatchOutcome]:
    """One league of the ladder at one table: `matches` seat-rotated matches, seeded
    f"{seed}/{i}" as a league schedule seeds them."""
    from arena.bots.mixed import mixed_player
    from arena.games import get_game
    from arena.play.matches import play_match

    game = get_game(game_name)
    options = game.parse_options({})
    players = [mixed_player(p) for p in rungs]
    names = [player.name for player in players][: game.seats]
    outcomes = []
    for i in range(matches):
        result = play_match(game, players[: game.seats], names, f"{seed}/{i}", options=options)
        outcome = MatchOutcome(i, names)
        for rotation, (seating, played) in enumerate(
            zip(result.seatings, result.games, strict=True)
        ):
            players_by_seat = [names[b] for b in seating]
            faults = dict.fromkeys(names, 0)
            for fault in played.faults:
                faults[players_by_seat[fault.seat]] += 1
            deals = [
                dict(zip(players_by_seat, d["scores"], strict=True)) for d in played.replay["deals"]
            ]
            outcome.games.append(
                GameOutcome(
                    rotation, dict(zip(players_by_seat, played.totals, strict=True)), faults, deals
                )
            )
        outcomes.append(outcome)
    return outcomes


def _to_json(matches: Sequence[MatchOutcome]) -> list[Any]:
    return [
        [m.idx, m.entrants, [[g.rotation, g.totals, g.faults, g.deals] for g in m.games]]
        for m in matches
    ]


def _from_json(data: list[Any]) -> list[MatchOutcome]:
    return [
        MatchOutcome(idx, entrants, [GameOutcome(*g) for g in games])
        for idx, entrants, games in data
    ]


def _play(args: tuple[str, int]) -> list[Any]:
    return _to_json(play_ladder_league(*args))


def play_leagues(
    seeds: int,
    matches: int,
    workers: int = 2,
    cache: Path | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[list[MatchOutcome]]:
    """The ladder leagues of seeds 0..seeds-1 ("rating-bench-K"), played in `workers`
    processes; with `cache`, leagues already in that JSON-lines file are read back
    (one line per seed, so an interrupted bench resumes)."""
    done: dict[str, list[Any]] = {}
    if cache and cache.exists():
        for line in cache.read_text().splitlines():
            record = json.loads(line)
            if len(record["matches"]) >= matches:
                done[record["seed"]] = record["matches"][:matches]
    wanted = [f"rating-bench-{k}" for k in range(seeds)]
    todo = [s for s in wanted if s not in done]
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        for seed, data in zip(todo, pool.map(_play, [(s, matches) for s in todo]), strict=True):
            done[seed] = data
            if cache:
                with cache.open("a") as out:
                    out.write(json.dumps({"seed": seed, "matches": data}) + "\n")
            if progress:
                progress(len([s for s in wanted if s in done]))
    return [_from_json(done[s]) for s in wanted]


# -- statistics read after every match --------------------------------------------------

Order = tuple[str, ...]


def trueskill_orders(league: Sequence[MatchOutcome], params: Ratings, rate_by: str) -> list[Order]:
    """The table's place order (mu - 3 sigma, then mu) after each match."""
    rater = Rater(params, league[0].entrants, rate_by, forfeit=10**9)
    orders = []
    for match in league:
        rater.apply(match)
        orders.append(place_order(rater))
    return orders


def margin_orders(league: Sequence[MatchOutcome]) -> list[Order]:
    """The order by mean duplicate margin after each match."""
    sums: dict[str, float] = {}
    orders = []
    for match in league:
        for entrant, margin in match_margins(match).items():
            sums[entrant] = sums.get(entrant, 0.0) + margin
        orders.append(tuple(sorted(sums, key=lambda e: -sums[e])))
    return orders


def games_needed(
    correct: Sequence[Sequence[bool]], share: float, games_per_match: int
) -> int | None:
    """The fewest games from which at least `share` of the leagues are right at every
    later match up to the cap; None if that never happens within the cap.

    `correct[s][m]` says whether league s ordered the ladder right after match m."""
    if not correct:
        return None
    matches = min(len(c) for c in correct)
    needed = None
    for m in range(matches - 1, -1, -1):
        right = sum(1 for c in correct if c[m]) / len(correct)
        if right < share:
            break
        needed = (m + 1) * games_per_match
    return needed


@dataclass
class StopFigures:
    right: int  # leagues that stopped with the true order
    wrong: int  # leagues that stopped with another order
    undecided: int  # leagues the rule had not stopped by the cap
    mean_games: float  # games played when stopped (the cap for the undecided)

    @property
    def leagues(self) -> int:
        return self.right + self.wrong + self.undecided


@dataclass
class RatingBench:
    seeds: int
    matches: int
    games_per_match: int
    rows: list[tuple[str, int | None, int | None, float]] = field(default_factory=list)
    stop: StopFigures | None = None


def statistic_labels(rate_by: str, extra: bool) -> list[str]:
    labels = [
        f"TrueSkill as fed (rate_by = {rate_by}, league defaults)",
        "TrueSkill per game, library defaults (tau = sigma/100, draws 10%)",
        "mean duplicate margin",
    ]
    if extra:
        labels += [
            f"TrueSkill rate_by = {by}, league defaults" for by in RATE_BY_ORDER if by != rate_by
        ]
    return labels


RATE_BY_ORDER = ("match", "deal", "game")


def score_league(
    league: Sequence[MatchOutcome], fed: Ratings, rate_by: str, rule: StopRule, extra: bool
) -> tuple[list[list[bool]], tuple[Order | None, int]]:
    """For one league: per statistic (in `statistic_labels` order) whether the order is
    right after each match; and where the stopping rule stopped (order, matches)."""
    rater = Rater(fed, league[0].entrants, rate_by, forfeit=10**9)
    fed_orders: list[Order] = []
    stopped: tuple[Order | None, int] = (None, len(league))
    for m, match in enumerate(league, start=1):
        rater.apply(match)
        fed_orders.append(place_order(rater))
        if stopped[0] is None:
            order = stop_check(league[:m], rater, rule)
            if order is not None:
                stopped = (order, m)
    orders = [
        fed_orders,
        trueskill_orders(league, TRUESKILL_DEFAULTS, "game"),
        margin_orders(league),
    ]
    if extra:
        orders += [trueskill_orders(league, fed, by) for by in RATE_BY_ORDER if by != rate_by]
    return [[o == TRUE_ORDER for o in each] for each in orders], stopped


def _score(args: tuple[list[Any], Ratings, str, StopRule, bool]) -> Any:
    data, fed, rate_by, rule, extra = args
    return score_league(_from_json(data), fed, rate_by, rule, extra)


def evaluate(
    leagues: Sequence[Sequence[MatchOutcome]],
    fed: Ratings,
    rate_by: str,
    rule: StopRule,
    extra: bool = False,
    workers: int = 1,
) -> RatingBench:
    """Every statistic's games to 90% and 95% of leagues right, and the stopping rule."""
    games_per_match = len(leagues[0][0].games)
    jobs = [(_to_json(lg), fed, rate_by, rule, extra) for lg in leagues]
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        scored = list(pool.map(_score, jobs))
    bench = RatingBench(len(leagues), min(len(lg) for lg in leagues), games_per_match)
    for i, label in enumerate(statistic_labels(rate_by, extra)):
        correct = [marks[i] for marks, _ in scored]
        at_end = sum(c[-1] for c in correct) / len(correct)
        bench.rows.append(
            (
                label,
                games_needed(correct, 0.90, games_per_match),
                games_needed(correct, 0.95, games_per_match),
                at_end,
            )
        )
    right = sum(order == TRUE_ORDER for _, (order, _) in scored)
    undecided = sum(order is None for _, (order, _) in scored)
    games = sum(m for _, (_, m) in scored) * games_per_match / len(scored)
    bench.stop = StopFigures(right, len(scored) - right - undecided, undecided, games)
    return bench


def render_bench(bench: RatingBench) -> str:
    """The bench's figures as a markdown table and a line on the stopping rule."""

    def games(value: int | None) -> str:
        return f"{value}" if value is not None else f"> {bench.matches * bench.games_per_match}"

    lines = [
        f"ladder p = {', '.join(f'{p:g}' for p in LADDER)} (Trix, one table, "
        f"{bench.games_per_match} games a match); {bench.seeds} league seeds "
        f"rating-bench-0..{bench.seeds - 1}, up to {bench.matches} matches each",
        "",
        "| statistic | games to 90% right | games to 95% right | right at the cap |",
        "|---|---|---|---|",
    ]
    for label, ninety, ninety_five, at_end in bench.rows:
        lines.append(f"| {label} | {games(ninety)} | {games(ninety_five)} | {at_end:.0%} |")
    if bench.stop is not None:
        stop = bench.stop
        lines += [
            "",
            f"stopping rule (--until-separated): stopped with the true order in "
            f"{stop.right} of {stop.leagues} seeds ({stop.right / stop.leagues:.1%}), with "
            f"another order in {stop.wrong}, not stopped by the cap in {stop.undecided}; "
            f"mean games {stop.mean_games:.1f} (the cap counted for those not stopped)",
        ]
    return "\n".join(lines)


def rating_bench(
    seeds: int,
    matches: int,
    workers: int = 2,
    cache: Path | None = None,
    extra: bool = False,
    progress: Callable[[int], None] | None = None,
) -> str:
    """`arena bench rating`: play (or read back) the ladder leagues, score every
    statistic with the league defaults, and render the figures."""
    from arena.league.definition.config import RATE_BY_DEFAULT
    from arena.league.standings.separation import StopRule

    leagues = play_leagues(seeds, matches, workers, cache, progress=progress)
    bench = evaluate(leagues, Ratings(), RATE_BY_DEFAULT, StopRule(), extra, workers)
    return render_bench(bench)
