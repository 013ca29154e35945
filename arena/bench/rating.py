"""`arena bench rating`: how many games a statistic needs to order a ladder of known strength.

A ladder is in-process mixed bots (`arena.strategies.mixed`: the heuristic move with
probability p, a random one otherwise) of known order, in seat-rotated matches: at one
table, or for a larger ladder in a `balanced` schedule of tables. `LADDERS` names the
ladders measured, of several spacings and sizes, in both games. Each league seed plays
its own matches; every statistic is then read after every match of the same games, so
they are compared on equal terms.

"Games needed for 95%" is the fewest games from which at least 95% of the seeds order
the ladder exactly right at every later point up to the cap (a statistic that touches
95% and falls back has not settled). The bench also scores the place ranges of the
table (`arena.league.standings.places`): how often a seed shows a pair separated the wrong way
round, and what share of the pairs one rung apart it shows separated at the cap; and
the stopping rule. Nothing here is a test: the tests check the statistics on
constructed cases.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.league.definition.config import Ratings
from arena.league.standings.places import evidence, separated_pairs
from arena.league.standings.ratings import GameOutcome, MatchOutcome, Rater
from arena.league.standings.separation import StopRule, place_order, stop_check
from arena.league.standings.stats import match_margins

LADDER = (0.6, 0.7, 0.8, 0.9)
NAMES = tuple(f"ladder-{p:g}" for p in LADDER)
TRUE_ORDER = tuple(reversed(NAMES))  # best first
TRUESKILL_DEFAULTS = Ratings(tau=25.0 / 300, draw_probability=0.10)  # the library's own


@dataclass(frozen=True)
class Ladder:
    """A ladder of known order: its game, rungs (p of each bot), how its matches are
    seated ("one" table of all rungs, or a "balanced" schedule of tables) and its cap."""

    name: str
    game: str
    rungs: tuple[float, ...]
    matches: int
    tables: str = "one"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f"ladder-{p:g}" for p in self.rungs)

    @property
    def true_order(self) -> tuple[str, ...]:
        """Best first: the higher p, the stronger (measured: mean scores rise with p)."""
        pairs = sorted(zip(self.rungs, self.names, strict=True), reverse=True)
        return tuple(name for _, name in pairs)

    def seed(self, k: int) -> str:
        # the first ladder keeps the seeds of the bench's earlier figures
        return f"rating-bench-{k}" if self.name == "trix-wide" else f"{self.name}-{k}"


LADDERS = {
    ladder.name: ladder
    for ladder in (
        Ladder("trix-wide", "trix", (0.6, 0.7, 0.8, 0.9), 40),
        Ladder("trix-close", "trix", (0.7, 0.75, 0.8, 0.85), 60),
        Ladder("trix-8", "trix", (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0), 50, "balanced"),
        Ladder("trianon-wide", "trianon", (0.5, 0.7, 0.9), 40),
        Ladder("trianon-close", "trianon", (0.7, 0.8, 0.9), 60),
        Ladder("trianon-8", "trianon", (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0), 67, "balanced"),
    )
}


def ladder_tables(ladder: Ladder, seed: str, matches: int) -> list[tuple[str, ...]]:
    """The entrants of each match, in seat order: the whole ladder at one table, or the
    league's own `balanced` schedule of the ladder's seats."""
    from arena.games import get_game
    from arena.league.definition.schedule import build_schedule

    seats = get_game(ladder.game).seats
    if ladder.tables == "one":
        if len(ladder.rungs) != seats:
            raise ValueError(f"a one-table ladder of {ladder.game} needs {seats} rungs")
        return [ladder.names] * matches
    schedule = build_schedule(ladder.names, seats, "balanced", seed, matches=matches)
    return [m.entrants for m in schedule]


def play_ladder_league(
    seed: str,
    matches: int,
    game_name: str = "trix",
    rungs: Sequence[float] = LADDER,
    tables: str = "one",
) -> list[MatchOutcome]:
    """One league of the ladder: `matches` seat-rotated matches, seeded f"{seed}/{i}"
    as a league schedule seeds them."""
    from arena.bots.mixed import mixed_player
    from arena.games import get_game
    from arena.play.matches import play_match

    game = get_game(game_name)
    options = game.parse_options({})
    ladder = Ladder("", game_name, tuple(rungs), matches, tables)
    players = {name: mixed_player(p) for p, name in zip(ladder.rungs, ladder.names, strict=True)}
    outcomes = []
    for i, names in enumerate(ladder_tables(ladder, seed, matches)):
        names = list(names)
        table = [players[n] for n in names]
        result = play_match(game, table, names, f"{seed}/{i}", options=options)
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


def _play(args: tuple[str, int, str, tuple[float, ...], str]) -> list[Any]:
    return _to_json(play_ladder_league(*args))


def play_leagues(
    seeds: int,
    matches: int,
    workers: int = 2,
    cache: Path | None = None,
    progress: Callable[[int], None] | None = None,
    ladder: Ladder = LADDERS["trix-wide"],
) -> list[list[MatchOutcome]]:
    """The leagues of `ladder`'s seeds 0..seeds-1, played in `workers` processes; with
    `cache`, leagues already in that JSON-lines file are read back (one line per seed,
    so an interrupted bench resumes)."""
    done: dict[str, list[Any]] = {}
    if cache and cache.exists():
        for line in cache.read_text().splitlines():
            record = json.loads(line)
            if len(record["matches"]) >= matches:
                done[record["seed"]] = record["matches"][:matches]
    wanted = [ladder.seed(k) for k in range(seeds)]
    todo = [s for s in wanted if s not in done]
    jobs = [(s, matches, ladder.game, ladder.rungs, ladder.tables) for s in todo]
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        for seed, data in zip(todo, pool.map(_play, jobs), strict=True):
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
    rater = Rater(params, _entrants(league), rate_by, forfeit=10**9)
    orders = []
    for match in league:
        rater.apply(match)
        orders.append(place_order(rater))
    return orders


def _entrants(league: Sequence[MatchOutcome]) -> list[str]:
    return list(dict.fromkeys(e for m in league for e in m.entrants))


def margin_orders(league: Sequence[MatchOutcome]) -> list[Order]:
    """The order by mean duplicate margin (per match played) after each match."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    orders = []
    for match in league:
        for entrant, margin in match_margins(match).items():
            sums[entrant] = sums.get(entrant, 0.0) + margin
            counts[entrant] = counts.get(entrant, 0) + 1
        orders.append(tuple(sorted(sums, key=lambda e: -sums[e] / counts[e])))
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
    rule: StopRule
    right: int  # leagues that stopped with the true order
    wrong: int  # leagues that stopped with another order
    undecided: int  # leagues the rule had not stopped by the cap
    mean_games: float  # games played when stopped (the cap for the undecided)

    @property
    def leagues(self) -> int:
        return self.right + self.wrong + self.undecided


@dataclass
class PlaceFigures:
    """How the table's place ranges did (the rule of `arena.league.standings.places`, 95%)."""

    wrong_at_cap: int  # seeds whose table at the cap showed a pair separated wrongly
    wrong_ever: int  # seeds whose table showed one after any match
    wrong_looks: float  # share of all (seed, match) looks at a table showing one
    one_rung_shown: float  # share of the pairs one rung apart shown separated at the cap
    pairs_shown: float  # share of all pairs shown separated at the cap


@dataclass
class RatingBench:
    ladder: Ladder
    seeds: int
    matches: int
    games_per_match: float
    rows: list[tuple[str, int | None, int | None, float]] = field(default_factory=list)
    stops: list[StopFigures] = field(default_factory=list)
    places: PlaceFigures | None = None


RATE_BY_ORDER = ("margin", "match", "deal", "game")
STOP_RULES = (  # the rule first
    StopRule(),
    StopRule(min_matches=10),
    StopRule(min_matches=5),
    StopRule(level=0.95, min_matches=10),
)


def statistic_labels(rate_by: str, extra: bool = True) -> list[str]:
    """The rows of the bench, in `score_league`'s order."""
    labels = [f"TrueSkill rate_by = {rate_by} (the default)"]
    if extra:
        labels += [f"TrueSkill rate_by = {by}" for by in RATE_BY_ORDER if by != rate_by]
        labels.append("TrueSkill per game, library defaults (tau = sigma/100, draws 10%)")
    labels += ["mean duplicate margin", "strength fitted by the separation rule"]
    return labels


def score_league(
    league: Sequence[MatchOutcome],
    fed: Ratings,
    rate_by: str,
    truth: Order,
    rungs: dict[str, float],
    extra: bool = True,
    rules: Sequence[StopRule] = STOP_RULES,
) -> dict[str, Any]:
    """For one league: per statistic (in `statistic_labels` order) whether the order is
    right after each match; where the stopping rule stopped at each level (order,
    matches); and the table's separation claims."""
    rater = Rater(fed, _entrants(league), rate_by, forfeit=10**9)
    fed_orders: list[Order] = []
    fitted_orders: list[Order] = []
    stopped: list[tuple[Order | None, int]] = [(None, len(league)) for _ in rules]
    rank = {name: i for i, name in enumerate(truth)}
    wrong_ever = False
    wrong_looks = 0
    claims: set[tuple[str, str]] = set()
    for m, match in enumerate(league, start=1):
        rater.apply(match)
        order = place_order(rater)
        fed_orders.append(order)
        proof = evidence(league[:m], order)
        fitted_orders.append(
            tuple(sorted(order, key=lambda e: -float(proof.strength[proof.index(e)])))
        )
        claims = separated_pairs(order, proof)
        wrong_now = any(rank[a] > rank[b] for a, b in claims)
        wrong_ever = wrong_ever or wrong_now
        wrong_looks += wrong_now
        for i, rule in enumerate(rules):
            if stopped[i][0] is None:
                settled = stop_check(league[:m], rater, rule)
                if settled is not None:
                    stopped[i] = (settled, m)
    orders = [fed_orders]
    if extra:
        orders += [trueskill_orders(league, fed, by) for by in RATE_BY_ORDER if by != rate_by]
        orders.append(trueskill_orders(league, TRUESKILL_DEFAULTS, "game"))
    orders += [margin_orders(league), fitted_orders]
    adjacent = [
        (a, b)
        for a, b in zip(truth, truth[1:], strict=False)
        if abs(rungs[a] - rungs[b]) - min_step(rungs) < 1e-9
    ]
    return {
        "correct": [[o == truth for o in each] for each in orders],
        "stopped": stopped,
        "wrong_at_cap": any(rank[a] > rank[b] for a, b in claims),
        "wrong_ever": wrong_ever,
        "wrong_looks": wrong_looks / max(1, len(league)),
        "one_rung": (sum(pair in claims for pair in adjacent), len(adjacent)),
        "pairs": (len(claims), len(truth) * (len(truth) - 1) // 2),
    }


def min_step(rungs: dict[str, float]) -> float:
    """The smallest distance between two rungs: "one rung apart"."""
    values = sorted(rungs.values())
    return min(b - a for a, b in zip(values, values[1:], strict=False))


def _score(args: tuple[list[Any], Ratings, str, Ladder, bool]) -> Any:
    data, fed, rate_by, ladder, extra = args
    rungs = dict(zip(ladder.names, ladder.rungs, strict=True))
    return score_league(_from_json(data), fed, rate_by, ladder.true_order, rungs, extra)


def evaluate(
    leagues: Sequence[Sequence[MatchOutcome]],
    fed: Ratings,
    rate_by: str,
    ladder: Ladder = LADDERS["trix-wide"],
    extra: bool = True,
    workers: int = 1,
) -> RatingBench:
    """Every statistic's games to 90% and 95% of leagues right, the stopping rule at
    each level, and the table's place ranges."""
    games = sum(len(m.games) for lg in leagues for m in lg)
    games_per_match = games / sum(len(lg) for lg in leagues)
    jobs = [(_to_json(lg), fed, rate_by, ladder, extra) for lg in leagues]
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        scored = list(pool.map(_score, jobs))
    bench = RatingBench(ladder, len(leagues), min(len(lg) for lg in leagues), games_per_match)
    per_match = round(games_per_match)
    for i, label in enumerate(statistic_labels(rate_by, extra)):
        correct = [s["correct"][i] for s in scored]
        at_end = sum(c[-1] for c in correct) / len(correct)
        bench.rows.append(
            (
                label,
                games_needed(correct, 0.90, per_match),
                games_needed(correct, 0.95, per_match),
                at_end,
            )
        )
    truth = ladder.true_order
    for i, rule in enumerate(STOP_RULES):
        stops = [s["stopped"][i] for s in scored]
        right = sum(order == truth for order, _ in stops)
        undecided = sum(order is None for order, _ in stops)
        mean = sum(m for _, m in stops) * per_match / len(stops)
        wrong = len(stops) - right - undecided
        bench.stops.append(StopFigures(rule, right, wrong, undecided, mean))
    bench.places = PlaceFigures(
        sum(s["wrong_at_cap"] for s in scored),
        sum(s["wrong_ever"] for s in scored),
        sum(s["wrong_looks"] for s in scored) / len(scored),
        sum(s["one_rung"][0] for s in scored) / max(1, sum(s["one_rung"][1] for s in scored)),
        sum(s["pairs"][0] for s in scored) / max(1, sum(s["pairs"][1] for s in scored)),
    )
    return bench


def render_bench(bench: RatingBench) -> str:
    """The bench's figures as a markdown table and lines on the places and the stopping
    rule."""
    ladder = bench.ladder
    cap = bench.matches * round(bench.games_per_match)

    def games(value: int | None) -> str:
        return f"{value}" if value is not None else f"> {cap}"

    margin = next((r[2] for r in bench.rows if r[0] == "mean duplicate margin"), None)
    seating = "one table" if ladder.tables == "one" else "a balanced schedule of tables"
    lines = [
        f"ladder {ladder.name}: {ladder.game}, p = {', '.join(f'{p:g}' for p in ladder.rungs)} "
        f"({seating}, {bench.games_per_match:g} games a match); {bench.seeds} league seeds "
        f"{ladder.seed(0)}..{ladder.seed(bench.seeds - 1)}, up to {bench.matches} matches "
        f"({cap} games) each",
        "",
        "| statistic | games to 90% right | games to 95% right | x the margin's | "
        "right at the cap |",
        "|---|---|---|---|---|",
    ]
    for label, ninety, ninety_five, at_end in bench.rows:
        ratio = f"{ninety_five / margin:.2f}" if ninety_five is not None and margin else "-"
        lines.append(
            f"| {label} | {games(ninety)} | {games(ninety_five)} | {ratio} | {at_end:.0%} |"
        )
    if bench.places is not None:
        places = bench.places
        lines += [
            "",
            f"place ranges (95%): a pair shown separated the wrong way round in "
            f"{places.wrong_at_cap} of {bench.seeds} seeds at the cap, in "
            f"{places.wrong_ever} after some match ({places.wrong_looks:.1%} of all looks "
            "after a match); at the cap "
            f"{places.one_rung_shown:.0%} of the pairs one rung apart and "
            f"{places.pairs_shown:.0%} of all pairs shown separated",
        ]
    for stop in bench.stops:
        lines += [
            "",
            f"stopping rule at {stop.rule.level:.0%}, from {stop.rule.min_matches} matches"
            f"{' (the rule)' if stop.rule == StopRule() else ''}: stopped with the true order in "
            f"{stop.right} of {stop.leagues} seeds, with another order in {stop.wrong}, "
            f"not stopped by the cap in {stop.undecided}; mean games {stop.mean_games:.1f} "
            "(the cap counted for those not stopped)",
        ]
    return "\n".join(lines)


def rating_bench(
    seeds: int,
    matches: int | None = None,
    workers: int = 2,
    cache: Path | None = None,
    extra: bool = True,
    progress: Callable[[int], None] | None = None,
    ladder: str = "trix-wide",
    rate_by: str | None = None,
) -> str:
    """`arena bench rating`: play (or read back) the ladder's leagues, score every
    statistic with the league defaults, and render the figures."""
    from arena.league.definition.config import RATE_BY_DEFAULT

    chosen = LADDERS[ladder]
    cap = matches or chosen.matches
    leagues = play_leagues(seeds, cap, workers, cache, progress=progress, ladder=chosen)
    bench = evaluate(leagues, Ratings(), rate_by or RATE_BY_DEFAULT, chosen, extra, workers)
    return render_bench(bench)
