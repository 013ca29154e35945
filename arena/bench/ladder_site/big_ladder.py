"""A ladder database of about 100,000 stored games, made in seconds: what `arena bench
ladder-web --games N` times the site's routes over, and what the test that holds the
site's queries to an index reads (tests/web/test_ladder_scale.py).

`arena ladder init` makes the ladder (house versions `v000`, `v001`, ... of builtin
bots) and an author, `ann`, with a bot `alpha` whose version 1 is active and version 2
a candidate under a promotion test. A pool of real matches is played once by the
built-in bots (a Trix match of one kingdom takes milliseconds in process); then every
stored match is written directly, in one transaction, as rows of the schema: a pool
match's games, replays, results, deal scores and per-contract sums under other
versions' names and a new index, the ladder's chosen match (stored; the last `PAIRS`
pairs of tables a promotion test, the candidate and the active version on the same
cards), a few charged faults (`illegal`, one a `FAULT_EVERY` games: rows of the
`faults` table only, their replays say nothing of them) and each entrant's rating
after each match. Every version's final rating is the run's own: the ladder is
opened as `arena ladder run` opens it (every stored match rated) and each version's
mu, sigma and games written back; the history before it is drawn as a straight line
from the prior to it (the site reads the rows, it does not check TrueSkill's steps).

It writes what `store_match` writes, without its transaction per match: 100,000
games in about half a minute instead of the two minutes of `arena bench ladder`'s
path (which also writes no chosen match and no rating history).
"""

from __future__ import annotations

import dataclasses
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.games import get_game
from arena.ladder.book import State, author_add, init_ladder
from arena.ladder.config import parse_ladder
from arena.league.definition.config import Entrant
from arena.league.definition.records import GameOutcome, MatchOutcome, PlayedMatch
from arena.league.definition.schedule import ScheduledMatch
from arena.league.standings.ratings import Rater
from arena.league.store import open_db, stored_deal_key
from arena.league.store.bulk_writes import write_rows
from arena.league.store.ladder_reads import author_row
from arena.league.store.ladder_writes import add_version, set_gate_report
from arena.league.store.replay_codec import pack_replay, with_players
from arena.league.workers.worker import Lifecycle, play_scheduled_match

NAME = "big"
AUTHOR = "ann"
BOT = "alpha"
POOL = 64  # real matches played once, stored again and again under other seats
PAIRS = 40  # the promotion test's pairs of tables, at the end of the ladder
FAULT_EVERY = 97  # one charged fault every this many games
SECONDS_APART = 3.0  # matches finish this far apart, the last one now

GATE = {
    "passed": True,
    "tries": 1,
    "steps": [{"name": "start", "passed": True, "detail": "started"}],
    "text": "gate: PASSED on try 1 of 3",
    "timed_out": False,
    "error": "",
    "log_dir": "",
}


@dataclasses.dataclass
class BigLadder:
    """What was built: the database, its counts, the author's token, the seconds."""

    db_path: Path
    versions: int
    matches: int
    games: int
    token: str
    seconds: float

    @property
    def megabytes(self) -> float:
        return self.db_path.stat().st_size / 1e6


def build_big_ladder(
    folder: Path,
    games: int = 100_000,
    versions: int = 100,
    say: Callable[[str], None] = lambda text: None,
) -> BigLadder:
    """`folder/arena.db`: a ladder of `versions` house versions and the author's two,
    holding about `games` stored games (whole matches of four), built as the module
    says."""
    started = time.monotonic()
    house = [f"v{i:03d}" for i in range(versions)]
    data = {
        "ladder": {"name": NAME, "game": "trix", "seed": "big"},
        "rules": {"kingdoms": 1},
        "limits": {"sandbox": "off"},
        "house": [{"name": n, "bot": "builtin:random"} for n in house],
    }
    config = parse_ladder(folder / "big.toml", data)
    db_path = folder / "arena.db"
    ladder, _ = init_ladder(config, db_path)
    token = author_add(db_path, None, AUTHOR)
    db = open_db(db_path)
    try:
        author = author_row(db, ladder.id, AUTHOR)["id"]  # type: ignore[index]
        for command, state in (
            ("builtin:random", State.ACTIVE),
            ("builtin:greedy", State.CHECKING),
        ):
            version_id, _, _ = add_version(
                db,
                ladder_id=ladder.id,
                league_id=ladder.league_id,
                bot=BOT,
                author_id=author,
                sha256=command[-1] * 64,
                command=command,
                folder=str(folder),
                state=state,
                start_mu=config.ratings.mu,
                reason="passed the gate",
            )
        set_gate_report(db, version_id, GATE, State.CANDIDATE, "passed the gate")
        active, candidate = f"{BOT}@1", f"{BOT}@2"
        names = [f"{n}@1" for n in house]
        league = config.league([Entrant(n, "builtin:random") for n in names[:4]], "")
        league = dataclasses.replace(league, deal_key=stored_deal_key(db, ladder.league_id))
        pool = [
            play_scheduled_match(
                league,
                ScheduledMatch(i, tuple(names[:4]), f"big/{i}"),
                str(folder / "logs"),
                lifecycle=Lifecycle.MATCH,
                live_file=False,
            )
            for i in range(POOL)
        ]
        say(f"  {POOL} pool matches played ({time.monotonic() - started:.1f} s)")
        matches = max(2 * PAIRS + 1, games // len(pool[0].games))
        _write_rows(db, ladder, pool, [*names, active], active, candidate, matches)
        say(f"  {matches:,} matches written ({time.monotonic() - started:.1f} s)")
    finally:
        db.close()
    return BigLadder(
        db_path,
        versions + 2,
        matches,
        matches * len(pool[0].games),
        token,
        time.monotonic() - started,
    )


def _write_rows(
    db: Any,
    ladder: Any,
    pool: list[PlayedMatch],
    playing: list[str],
    active: str,
    candidate: str,
    matches: int,
) -> None:
    """Every stored match's rows, in one transaction (see the module's docstring)."""
    engine = get_game("trix")
    rng = random.Random(26)
    league_id, ladder_id = ladder.league_id, ladder.id
    mu0, sigma0 = ladder.config.ratings.mu, ladder.config.ratings.sigma
    packed = {(m, g): pack_replay(game.replay) for m, match in enumerate(pool)
              for g, game in enumerate(match.games)}  # fmt: skip
    deals = {  # (pool match, game) -> [(deal, seat, contract, score, declarer, made)]
        (m, g): [
            (deal["number"], seat, engine.deal_label(deal), score,
             int(engine.deal_declarer(deal)[0] == seat),
             engine.deal_declarer(deal)[1] if engine.deal_declarer(deal)[0] == seat else None)
            for deal in game.replay["deals"]
            for seat, score in enumerate(deal["scores"])
        ]
        for m, match in enumerate(pool)
        for g, game in enumerate(match.games)
    }  # fmt: skip
    now = time.time()
    first_pair = matches - 2 * PAIRS
    contracts: dict[tuple[str, str], list[int]] = {}
    game_id = 0
    match_rows, game_rows, result_rows, deal_rows, fault_rows = [], [], [], [], []
    chosen_rows, outcomes = [], []
    others = [n for n in playing if n != active]
    for idx in range(matches):
        t = idx % len(pool)
        reason, focus, pair = "fewest", "", None
        if idx >= first_pair:  # a promotion test's pair: candidate's table, then active's
            offset = (idx - first_pair) % 2
            if offset == 0:
                seats = [candidate, *rng.sample(others, 3)]
                rng.shuffle(seats)
                pair = idx + 1
            else:
                seats = [active if s == candidate else s for s in seats]
                pair = idx - 1
                t = (idx - 1) % len(pool)  # the same cards
            reason, focus = "promotion", candidate
        else:
            seats = rng.sample(playing, 4)
            focus = seats[0]
        template = pool[t]
        names = dict(zip(template.entrants, seats, strict=True))
        finished = now - (matches - idx) * SECONDS_APART
        match_id = idx + 1
        match_rows.append(
            (match_id, league_id, idx, f"big/{idx}", json.dumps(seats), len(template.games),
             template.seconds, finished, 0, "bench")
        )  # fmt: skip
        chosen_rows.append(
            (ladder_id, idx, f"big/{idx}", json.dumps(seats), reason, focus, pair, 1, "stored",
             finished - template.seconds)
        )  # fmt: skip
        outcome = MatchOutcome(idx, seats)
        outcomes.append(outcome)
        for g, game in enumerate(template.games):
            game_id += 1
            players = [names[p] for p in game.players]
            replay = game.replay
            game_rows.append(
                (game_id, league_id, match_id, game.rotation, replay["seed"], json.dumps(players),
                 json.dumps(replay["totals"]), json.dumps(replay["ranks"]), game.decisions,
                 with_players(packed[(t, g)], players))
            )  # fmt: skip
            faulted = game_id % FAULT_EVERY == 0
            outcome.games.append(
                GameOutcome(
                    game.rotation,
                    dict(zip(players, replay["totals"], strict=True)),
                    {p: int(faulted and seat == 0) for seat, p in enumerate(players)},
                )
            )
            for seat, entrant in enumerate(players):
                charged = int(faulted and seat == 0)
                result_rows.append(
                    (game_id, match_id, league_id, seat, entrant, replay["totals"][seat],
                     replay["ranks"][seat], charged)
                )  # fmt: skip
            if faulted:
                fault_rows.append(
                    (game_id, match_id, league_id, players[0], 0, 1, "illegal",
                     "answered 99: not one of the 13 legal actions", 1, 1, "0..12", "99")
                )  # fmt: skip
            for deal, seat, contract, score, declarer, made in deals[(t, g)]:
                entrant = players[seat]
                deal_rows.append((game_id, deal, seat, entrant, contract, score, declarer, made))
                sums = contracts.setdefault((entrant, contract), [0, 0, 0, 0])
                sums[0] += 1
                sums[1] += score
                sums[2] += declarer
                sums[3] += made or 0
    final = _final_ratings(ladder, outcomes)
    rating_rows = [  # the history: a straight line from the prior to the final rating
        (league_id, idx + 1, idx, -1, name,
         mu0 + (final[name][0] - mu0) * (idx + 1) / matches,
         sigma0 + (final[name][1] - sigma0) * (idx + 1) / matches)
        for idx, outcome in enumerate(outcomes)
        for name in outcome.entrants
    ]  # fmt: skip
    write_rows(
        db,
        {
            "matches": match_rows,
            "ladder_matches": chosen_rows,
            "games": game_rows,
            "results": result_rows,
            "deal_scores": deal_rows,
            "entrant_contracts": [(league_id, e, c, *sums) for (e, c), sums in contracts.items()],
            "faults": fault_rows,
            "ratings": rating_rows,
        },
        [(mu, sigma, n, ladder_id, name) for name, (mu, sigma, n) in final.items()],
    )


def _final_ratings(
    ladder: Any, outcomes: list[MatchOutcome]
) -> dict[str, tuple[float, float, int]]:
    """Each version's (mu, sigma, games) as `arena ladder run` rates the stored matches
    (arena/ladder/source.py, `open`: every match absorbed in the order stored, one
    solve), from the outcomes in memory."""
    rater = Rater(ladder.config.ratings, [], "margin", 1)
    games: dict[str, int] = {}
    for outcome in outcomes:
        for name in outcome.entrants:
            rater.add(name, ladder.config.ratings.mu)
            games[name] = games.get(name, 0) + len(outcome.games)
        rater.absorb(outcome)
    rater.solve()
    return {name: (r.mu, r.sigma, games[name]) for name, r in rater.ratings.items()}
