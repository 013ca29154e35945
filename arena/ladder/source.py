"""A ladder as the run loop's match source (arena/league/running/dispatch.py): matches
chosen as slots free up, each chosen match queued in the database before it is given
out, each played one stored with the ratings it makes in one transaction, then the
versions' health and promotion tests brought up to date.

What the source keeps in memory (who is busy, when each version last played, its
recent games, the promotion tests' evidence) is rebuilt from the database when a run
starts (`LadderSource.open`), so `kill -9` at any moment loses nothing: a match
chosen but not stored is played again, with its seed and seats, when the run resumes;
a stored one is never played again (`store_match` judges by its index).

Test matches (docs/ladder.md, "Test matches") go through the same loop, unrated. An
author's request waits in `test_matches` (queued); the source gives it out before it
chooses a new rated table, once its versions are free (and not held for a queued rated
table), and the versions of the oldest waiting one are kept out of new rated tables
until it starts, so a busy ladder cannot starve it. When it is given out it takes the
next index of the ladder's one counter, written to its row (playing) before a worker
has it: a rated match and a test match never share an index, so the run's own
bookkeeping (which match a returned one is), the live file of a match in flight (keyed
by the ladder's name and the index) and the index `store_match` judges by are never
ambiguous. Its games are stored in the ladder's tests league (`ladders.tests_league_id`),
never in the ladder's own, with no rating, no rating history, no health and no
promotion evidence; its row is marked stored in the same transaction. A run killed
after giving it out plays it again, as the same index with the same seed, when it
resumes; a stored one never again.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import math
import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

from arena.ladder.book import PLAYING, TESTABLE, Ladder, State
from arena.ladder.config import version_spec
from arena.ladder.health import health_problem
from arena.ladder.matchmaking import Choice, Contender, choose
from arena.ladder.promotion import Verdict, pair_evidence, sprt
from arena.league.definition.config import Entrant
from arena.league.definition.records import MatchOutcome, PlayedGame, PlayedMatch
from arena.league.definition.schedule import ScheduledMatch
from arena.league.running.dispatch import LoopCounts
from arena.league.running.schedule_source import TaskTemplate
from arena.league.standings.ratings import Rater
from arena.league.store import load_outcomes, mark_in_flight, store_match, stored_deal_key
from arena.league.store.ladder_reads import (
    ladder_by_name,
    ladder_match_rows,
    last_test_index,
    recent_games,
    stored_order,
    tests_league_id,
    version_rows,
    waiting_test_matches,
)
from arena.league.store.ladder_writes import (
    drop_matches,
    drop_test_matches,
    ladder_match_stored,
    mark_tests_stored,
    queue_matches,
    set_states,
    test_match_given,
    test_match_stored,
)
from arena.league.store.reads import stored_match_indexes
from arena.league.workers.bot_archives import ShippedBot
from arena.league.workers.match_task import MatchTask
from arena.play.faults import FaultKind
from arena.play.matches import seatings

CRASH_KINDS = (FaultKind.CRASH, FaultKind.START_FAILURE)


@dataclass
class VersionRecord:
    """One version as the source follows it."""

    id: int
    entrant: str  # BOT@N
    bot: str
    author: str
    house: bool
    state: str
    spec: str  # the bot spec it starts from
    start_mu: float
    matches: int = 0  # stored matches it played
    games: int = 0
    last_played: int = 0  # the ladder's match counter when it last started one
    joined: int = 0  # the counter when it could first play
    busy: bool = False
    recent: list[tuple[int, int, int]] = field(default_factory=list)  # newest first


@dataclass
class TestMatch:
    """A test match an author asked for, as the run follows it."""

    id: int
    author: str
    entrants: tuple[str, ...]  # the author's version, then the opponents (rotation 0)
    seed: str
    idx: int | None = None  # the match index, once given out

    __test__ = False  # no pytest test class, wherever a test imports it


@dataclass(frozen=True)
class LadderProgress:
    """One progress report of a ladder run, after each stored match."""

    played: int  # matches stored by this run
    stored: int  # matches stored in all
    games: int  # games stored by this run
    elapsed: float
    leader: tuple[str, float]  # the version with the highest rating, and that rating
    in_flight: int
    versions: int  # versions playing now (active and candidates)
    events: tuple[str, ...]  # what changed with this match (promotions, suspensions)


@dataclass
class LadderSource:
    """The run loop's source of a ladder's matches (a `MatchSource`)."""

    ladder: Ladder
    db: sqlite_utils.Database
    template: TaskTemplate
    rater: Rater
    deal_key: str
    versions: dict[str, VersionRecord] = field(default_factory=dict)
    queue: list[ScheduledMatch] = field(default_factory=list)  # chosen, not given out
    chosen: dict[int, dict[str, Any]] = field(default_factory=dict)  # idx -> its row
    counter: int = 0  # the next match index
    stored_count_: int = 0
    played: int = 0  # stored by this run
    given: int = 0  # given out by this run
    limit: int | None = None  # give out at most this many (--matches)
    stopping: bool = False
    outcomes: dict[int, MatchOutcome] = field(default_factory=dict)  # pair halves waiting
    evidence: dict[str, list[float]] = field(default_factory=dict)  # candidate -> diffs
    decided: set[str] = field(default_factory=set)  # candidates whose test has ended
    progress: Callable[[LadderProgress], None] | None = None
    say: Callable[[str], None] = lambda text: None
    ship: Callable[[str, str], ShippedBot | None] | None = None  # on a cluster
    shipped: dict[str, ShippedBot] = field(default_factory=dict)
    tests: list[TestMatch] = field(default_factory=list)  # asked for, not given out
    testing: dict[int, TestMatch] = field(default_factory=dict)  # idx -> given out
    test_indexes: set[int] = field(default_factory=set)  # every idx a test match was given
    test_ids: set[int] = field(default_factory=set)  # every test match this source has seen
    tests_league: int | None = None  # the league row of the test matches' games

    # -- opening ------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        ladder: Ladder,
        db: sqlite_utils.Database,
        template: TaskTemplate,
        say: Callable[[str], None] | None = None,
    ) -> LadderSource:
        """The ladder as stored: every stored match rated in the order stored, the
        versions' counts and recent games, the tests' evidence, and the chosen matches
        not stored yet queued to be played first (and the test matches not stored yet;
        `say` is told of those dropped as it opens)."""
        config = ladder.config
        source = cls(
            ladder=ladder,
            db=db,
            template=template,
            rater=Rater(config.ratings, [], "margin", 1),
            deal_key=stored_deal_key(db, ladder.league_id),
        )
        if say is not None:
            source.say = say
        source._open_tests()
        source.refresh()
        outcomes = load_outcomes(db, ladder.league_id, deals=False)
        order = stored_order(db, ladder.league_id)
        for idx in order:
            outcome = outcomes[idx]
            source._absorb(outcome)
        source.rater.solve()
        source.stored_count_ = len(order)
        rows = ladder_match_rows(db, ladder.id)
        source.chosen = {row["idx"]: row for row in rows}
        source.counter = max(  # above every index given: rated, stored, or a test match's
            [*(r["idx"] + 1 for r in rows), *(i + 1 for i in order), 0],
            default=0,
        )
        source.counter = max(source.counter, last_test_index(db, ladder.id) + 1)
        for row in rows:  # when each version last started a match
            for name in row["entrants"]:
                if name in source.versions:
                    source.versions[name].last_played = row["idx"] + 1
        for record in source.versions.values():
            record.recent = recent_games(
                db, ladder.league_id, record.entrant, max(config.health.window, 1) + 1
            )
        stored = set(order)
        for row in rows:
            pair = row["pair_idx"]
            if row["state"] == "queued" and row["idx"] in stored:
                row["state"] = "stored"  # stored, killed before its row was marked
            if pair is not None and row["idx"] < pair and row["idx"] in stored:
                if pair in stored:
                    source._pair_evidence(outcomes[row["idx"]], outcomes[pair], row)
                else:
                    source.outcomes[row["idx"]] = outcomes[row["idx"]]
        for row in rows:
            if row["state"] == "queued" and row["idx"] not in stored:
                source.queue.append(_scheduled(row, len(source._rotations())))
        return source

    def _open_tests(self) -> None:
        """The test matches not stored yet, queued to be played (those given out by a
        run that ended first, as the index they were given); a row whose games are
        stored (killed between the two, which one transaction prevents) marked so."""
        self.tests_league = tests_league_id(self.db, self.ladder.id)
        stored = (
            stored_match_indexes(self.db, self.tests_league)
            if self.tests_league is not None
            else set()
        )
        done = []
        for row in waiting_test_matches(self.db, self.ladder.id):
            if row["idx"] is not None and row["idx"] in stored:
                done.append(row["id"])
                continue
            self._take_test(row)
        if done:
            mark_tests_stored(self.db, self.ladder.id, done)
        self.tests.sort(key=lambda t: (t.idx is None, t.id))  # those given out before first

    def _take_test(self, row: Mapping[str, Any]) -> None:
        self.test_ids.add(row["id"])
        test = TestMatch(
            id=row["id"],
            author=row["author"],
            entrants=tuple(row["entrants"]),
            seed=row["seed"],
            idx=row["idx"],
        )
        if test.idx is not None:
            self.test_indexes.add(test.idx)
        self.tests.append(test)

    def _absorb(self, outcome: MatchOutcome) -> None:
        """Take one stored match into the ratings and the counts."""
        for name in outcome.entrants:
            record = self.versions.get(name)
            self.rater.add(name, record.start_mu if record else None)
            if record is not None:
                record.matches += 1
                record.games += len(outcome.games)
        self.rater.absorb(outcome)

    def refresh(self) -> None:
        """The versions as the database has them now: an author may have withdrawn or
        promoted one, and the gate passed or refused others since the last look.
        Queued matches of a version that left the ladder are dropped."""
        frozen = ladder_by_name(self.db, self.ladder.config.name)["frozen_at"] is not None
        if frozen != self.ladder.frozen:
            self.ladder = dataclasses.replace(self.ladder, frozen=frozen)
        rows = version_rows(self.db, self.ladder.id)
        for row in rows:
            record = self.versions.get(row["entrant"])
            if record is None:
                record = self.versions[row["entrant"]] = VersionRecord(
                    id=row["id"],
                    entrant=row["entrant"],
                    bot=row["bot"],
                    author=row["author"] if not row["house"] else f"house:{row['bot']}",
                    house=bool(row["house"]),
                    state=row["state"],
                    spec=version_start(row),
                    start_mu=row["start_mu"],
                    joined=self.counter,
                )
            if record.state not in PLAYING and row["state"] in PLAYING:
                record.joined = self.counter
            record.state = row["state"]
        gone = [
            m for m in self.queue if any(self.versions[e].state not in PLAYING for e in m.entrants)
        ]
        if gone:
            self.queue = [m for m in self.queue if m not in gone]
            drop_matches(self.db, self.ladder.id, [m.index for m in gone])
        self._refresh_tests()

    def _refresh_tests(self) -> None:
        """Test matches asked for since the last look joined to the queue; waiting ones
        whose versions left the ladder meanwhile dropped, saying which and why."""
        if self.tests_league is None:
            self.tests_league = tests_league_id(self.db, self.ladder.id)
            if self.tests_league is None:
                return  # nobody has asked for a test match yet
        for row in waiting_test_matches(self.db, self.ladder.id):
            if row["id"] not in self.test_ids:
                self._take_test(row)
        dropped = [(test, self._test_problem(test)) for test in self.tests]
        dropped = [(test, why) for test, why in dropped if why]
        if dropped:
            gone = {test.id for test, _ in dropped}
            self.tests = [test for test in self.tests if test.id not in gone]
            drop_test_matches(self.db, self.ladder.id, [(test.id, why) for test, why in dropped])
            for test, why in dropped:
                self.say(f"test match {test.id} is dropped: {why}")

    def _test_problem(self, test: TestMatch) -> str:
        """Why a waiting test match can no longer be played ("" when it can): its
        version must still be one its author may test, its opponents still playing."""
        for seat, name in enumerate(test.entrants):
            record = self.versions.get(name)
            allowed = TESTABLE if seat == 0 else PLAYING
            if record is None or record.state not in allowed:
                state = record.state if record is not None else "gone"
                return f"{name} is {state}"
        return ""

    # -- the MatchSource interface ------------------------------------------------

    def next_match(self) -> ScheduledMatch | None:
        """The next match to give out: a chosen rated table waiting for its versions,
        else a test match whose versions are free, else a new rated table. `--matches`
        counts rated matches only: test matches are given out past it."""
        if self.stopping:
            return None
        self.refresh()
        limited = self.limit is not None and self.given >= self.limit
        if not limited:
            for match in self.queue:
                if not any(self.versions[e].busy for e in match.entrants):
                    self.queue.remove(match)
                    return self._give(match)
        test = self._next_test()
        if test is not None or limited:
            return test
        choice = self.choose()
        if choice is None:
            return None
        first = self._chosen(choice.seats, choice, None)
        if choice.paired is not None:
            second = self._chosen(choice.paired, choice, first)
            self.queue.append(second)
            queue_matches(self.db, self.ladder.id, [self._row(first), self._row(second)])
        else:
            queue_matches(self.db, self.ladder.id, [self._row(first)])
        return self._give(first)

    def choose(self) -> Choice | None:
        """The matchmaker's next table (arena/ladder/matchmaking.py), from the
        versions free now, with a generator seeded by the ladder's seed and this
        match's index: the same events give the same choices."""
        config = self.ladder.config
        contenders = self.contenders()
        if len(contenders) < config.engine.seats:
            return None
        rng = random.Random(
            int.from_bytes(
                hashlib.sha256(f"{config.seed}/choice/{self.counter}".encode()).digest()[:8],
                "big",
            )
        )
        return choose(contenders, config.engine.seats, config.matchmaking, rng)

    def _next_test(self) -> ScheduledMatch | None:
        """The oldest waiting test match whose versions are all free (none in a match,
        none held for a queued rated table), given out: it takes the counter's next
        index (kept when a run gave it one before), written to its row first."""
        reserved = {name for match in self.queue for name in match.entrants}
        for test in self.tests:
            if any(
                name in reserved or name not in self.versions or self.versions[name].busy
                for name in test.entrants
            ):
                continue
            self.tests.remove(test)
            if test.idx is None:
                test.idx = self.counter
                self.counter += 1
            test_match_given(self.db, self.ladder.id, test.id, test.idx)
            self.test_indexes.add(test.idx)
            self.testing[test.idx] = test
            for name in test.entrants:
                self.versions[name].busy = True
            return ScheduledMatch(test.idx, test.entrants, test.seed)
        return None

    def contenders(self) -> list[Contender]:
        """Every version that may play now, as the matchmaker sees it. The versions of
        a queued rated table, and of the oldest waiting test match, are held for them."""
        placement = self.ladder.config.matchmaking.placement_matches
        active = {r.bot: r.entrant for r in self.versions.values() if r.state == State.ACTIVE}
        reserved = {name for match in self.queue for name in match.entrants}
        if self.tests:
            reserved |= set(self.tests[0].entrants)
        out = []
        for record in self.versions.values():
            if record.state not in PLAYING:
                continue
            rating = self.rater.ratings.get(record.entrant)
            mu = rating.mu if rating is not None else record.start_mu
            sigma = rating.sigma if rating is not None else self.ladder.config.ratings.sigma
            testing = record.state == State.CANDIDATE and record.entrant not in self.decided
            out.append(
                Contender(
                    version=record.entrant,
                    author=record.author,
                    house=record.house,
                    state=record.state,
                    games=record.games,
                    mu=mu,
                    sigma=sigma,
                    last_played=record.last_played,
                    joined=record.joined,
                    busy=record.busy or record.entrant in reserved,  # a queued table's
                    placement_left=0 if record.house else max(0, placement - record.matches),
                    active_version=active.get(record.bot, "") if testing else "",
                )
            )
        return out

    def _chosen(
        self, seats: tuple[str, ...], choice: Choice, first: ScheduledMatch | None
    ) -> ScheduledMatch:
        """A chosen table as a match: its index, and the seed of its deals (the pair's
        second table takes the first's seed, and rotation slots that have not seen it)."""
        idx = self.counter
        self.counter += 1
        if first is None:
            match = ScheduledMatch(idx, tuple(seats), f"{self.ladder.config.seed}/{idx}")
        else:
            rotations = len(self._rotations())
            match = ScheduledMatch(idx, tuple(seats), first.seed, slots=rotations)
        self.chosen[idx] = {
            "idx": idx,
            "reason": choice.reason,
            "focus": choice.focus,
            "pair_idx": None,
            "entrants": list(seats),
        }
        if first is not None:
            self.chosen[idx]["pair_idx"] = first.index
            self.chosen[first.index]["pair_idx"] = idx
        return match

    def _rotations(self) -> list[Any]:
        config = self.ladder.config
        return list(seatings(config.engine.seats, config.rotations))

    def _row(self, match: ScheduledMatch) -> dict[str, Any]:
        row = self.chosen[match.index]
        return {
            "idx": match.index,
            "seed": match.seed,
            "entrants": json.dumps(list(match.entrants)),
            "reason": row["reason"],
            "focus": row["focus"],
            "pair_idx": row["pair_idx"],
            "rated": 1,
        }

    def _give(self, match: ScheduledMatch) -> ScheduledMatch:
        self.given += 1
        for name in match.entrants:
            record = self.versions[name]
            record.busy = True
            record.last_played = match.index + 1
        return match

    def give_back(self, match: ScheduledMatch) -> None:
        for name in match.entrants:
            self.versions[name].busy = False
        test = self.testing.pop(match.index, None)
        if test is not None:
            self.tests.insert(0, test)  # its row stays "playing" with its index
            return
        self.given -= 1
        self.queue.insert(0, match)

    def task(self, match: ScheduledMatch) -> MatchTask:
        template = self.template
        entrants = [Entrant(name, self.versions[name].spec) for name in match.entrants]
        config = self.ladder.config.league(entrants, self.deal_key)
        shipped = {}
        if template.elsewhere and self.ship is not None:
            for name in match.entrants:
                if name not in self.shipped:
                    bot = self.ship(name, self.versions[name].spec)
                    if bot is not None:
                        self.shipped[name] = bot
                if name in self.shipped:
                    shipped[name] = self.shipped[name]
        return MatchTask(
            config,
            match,
            str(template.log_dir),
            str(template.db_path),
            template.lifecycle,
            shipped=shipped,
            must_start=frozenset(shipped),
            elsewhere=template.elsewhere,
        )

    def started(self, match: ScheduledMatch) -> None:
        league = self.tests_league if match.index in self.test_indexes else None
        mark_in_flight(
            self.db,
            league if league is not None else self.ladder.league_id,
            match.index,
            match.entrants,
            run_pid=os.getpid(),
        )

    def is_test(self, index: int) -> bool:
        """Whether match `index` is a test match (given out by this run or an earlier)."""
        return index in self.test_indexes

    def store(self, played: PlayedMatch) -> bool:
        if self.is_test(played.index):
            return self._store_test(played)
        outcome = played.outcome()
        row = self.chosen.get(played.index, {})
        saved = self._snapshot()
        self._absorb(outcome)
        self.rater.solve()
        step = self.stored_count_ + 1
        ratings = [
            (name, r.mu, r.sigma, self.versions[name].games)
            for name, r in self.rater.ratings.items()
            if name in self.versions
        ]
        history = [
            {
                "step": step,
                "match_idx": played.index,
                "rotation": -1,
                "entrant": name,
                "mu": self.rater.ratings[name].mu,
                "sigma": self.rater.ratings[name].sigma,
            }
            for name in played.entrants
        ]

        def also(db: sqlite_utils.Database) -> None:
            ladder_match_stored(db, self.ladder, played.index, ratings, history)

        if not store_match(self.db, self.ladder.league_id, played, also=also):
            self._restore(saved)
            return False
        self.stored_count_ += 1
        if row:
            row["state"] = "stored"
        return True

    def _snapshot(self) -> Any:
        """What `store` changes before it knows the match is new (a cluster may send a
        match twice): put back by `_restore` when it was stored already."""
        return (
            copy.deepcopy(self.rater.margin_state),
            copy.deepcopy(self.rater.spread),
            dict(self.rater.ratings),
            {n: (r.matches, r.games) for n, r in self.versions.items()},
        )

    def _restore(self, saved: Any) -> None:
        state, spread, ratings, counts = saved
        self.rater.margin_state, self.rater.spread, self.rater.ratings = state, spread, ratings
        for name, (matches, games) in counts.items():
            self.versions[name].matches, self.versions[name].games = matches, games

    def _store_test(self, played: PlayedMatch) -> bool:
        """A test match stored in the tests league, its row marked stored in the same
        transaction; unrated: nothing of it reaches the ratings, the rating history,
        the versions' counts, health or a promotion test. False when its index is stored
        there already (a match a cluster sent twice)."""
        test = self.testing.get(played.index)
        if test is None or self.tests_league is None:
            return False  # not given out by this run: a stray copy of one stored already
        league = self.tests_league

        def also(db: sqlite_utils.Database) -> None:
            test_match_stored(db, self.ladder.id, league, test.id, played.entrants)

        return store_match(self.db, league, played, also=also)

    def stored(self, played: PlayedMatch, loop: LoopCounts) -> None:
        test = self.testing.pop(played.index, None)
        if test is not None:
            for name in played.entrants:
                self.versions[name].busy = False
            self.say(
                f"test match {test.id} stored (match {played.index}, {len(played.games)} "
                f"games, unrated): {test.entrants[0]} against {', '.join(test.entrants[1:])}"
            )
            return
        self.played += 1
        events: list[str] = []
        for name in played.entrants:
            self.versions[name].busy = False
        for name, games in _health_rows(played).items():
            record = self.versions[name]
            record.recent = (games + record.recent)[: self.ladder.config.health.window + 1]
            if record.state in PLAYING and not record.house:
                problem = health_problem(record.recent, self.ladder.config.health)
                if problem:
                    events += self._set(record, State.SUSPENDED, problem)
        events += self._promotion(played)
        for event in events:
            self.say(event)
        if self.progress:
            self.progress(self._report(loop, tuple(events)))

    def stored_count(self) -> int:
        return self.stored_count_

    # -- promotion -----------------------------------------------------------------

    def _promotion(self, played: PlayedMatch) -> list[str]:
        """When both tables of a promotion test's pair are stored: the paired
        difference added to the candidate's evidence, and the test's verdict acted on."""
        row = self.chosen.get(played.index)
        if row is None or row.get("pair_idx") is None:
            return []
        pair = row["pair_idx"]
        first, second = sorted((played.index, pair))
        if pair not in self.outcomes:
            self.outcomes[played.index] = played.outcome()
            return []
        halves = {played.index: played.outcome(), pair: self.outcomes.pop(pair)}
        return self._pair_evidence(halves[first], halves[second], self.chosen[first])

    def _pair_evidence(
        self, first: MatchOutcome, second: MatchOutcome, row: dict[str, Any]
    ) -> list[str]:
        """One pair's difference (the candidate's table first) taken as evidence."""
        evidence = pair_evidence(first, second)
        if evidence is None:  # not a pair after all (a version left between its tables)
            return []
        candidate, active, diff = evidence
        self.evidence.setdefault(candidate, []).append(diff)
        return self._decide(candidate, active, first)

    def verdict(self, candidate: str, games_per_pair: int) -> Verdict:
        return sprt(self.evidence.get(candidate, []), games_per_pair, self.ladder.config.promotion)

    def _decide(self, candidate: str, active: str, first: MatchOutcome) -> list[str]:
        record = self.versions.get(candidate)
        if record is None or record.state != State.CANDIDATE or candidate in self.decided:
            return []
        verdict = self.verdict(candidate, len(first.games))
        said = (
            f"{verdict.mean:+.1f} points a game over {active} in {verdict.pairs} paired "
            f"matches ({verdict.games} games)"
        )
        settings = self.ladder.config.promotion
        if verdict.decision == "continue":
            return []
        self.decided.add(candidate)
        if self.ladder.frozen:
            return [f"{candidate}: the test ended ({verdict.decision}), the ladder is frozen"]
        if verdict.decision == "accept" and settings.mode == "auto":
            events = self._set(record, State.ACTIVE, f"promoted on evidence: {said}")
            old = self.versions.get(active)
            if old is not None and old.state == State.ACTIVE:
                events += self._set(old, State.RETIRED, f"{candidate} was promoted: {said}")
            return events
        if verdict.decision == "accept":
            return [f"{candidate}: the test says promote ({said}); its author decides"]
        if verdict.decision == "reject":
            return self._set(record, State.RETIRED, f"not better on evidence: {said}")
        return [
            f"{candidate}: undecided after {verdict.games} games ({said}); it stays a candidate"
        ]

    def _set(self, record: VersionRecord, state: str, reason: str) -> list[str]:
        set_states(self.db, [(record.id, state, reason)])
        record.state = state
        if state not in PLAYING:
            self.queue = [m for m in self.queue if record.entrant not in m.entrants]
        return [f"{record.entrant} is {state}: {reason}"]

    # -- progress ------------------------------------------------------------------

    def _report(self, loop: LoopCounts, events: tuple[str, ...]) -> LadderProgress:
        playing = [r for r in self.versions.values() if r.state in PLAYING]
        leader = ("", 0.0)
        if playing:
            best = max(
                playing,
                key=lambda r: _conservative(self.rater.ratings.get(r.entrant)),
            )
            leader = (best.entrant, _conservative(self.rater.ratings.get(best.entrant)))
        return LadderProgress(
            played=self.played,
            stored=self.stored_count_,
            games=loop.games,
            elapsed=loop.elapsed,
            leader=leader,
            in_flight=loop.in_flight,
            versions=len(playing),
            events=events,
        )


def _conservative(rating: Any) -> float:
    return -math.inf if rating is None else rating.mu - 3 * rating.sigma


def version_start(row: Mapping[str, Any]) -> str:
    """The bot spec a version starts from: a house bot's as the file gives it (its
    folder resolves relative paths), a submission's command from its own folder."""
    command, folder = row["command"], Path(row["folder"])
    if command.startswith(("builtin:", "grpc:")):
        return command
    return version_spec(command, folder)


def _scheduled(row: Mapping[str, Any], rotations: int) -> ScheduledMatch:
    """A queued match as it was chosen: a pair's second table keeps the first's seed
    and takes rotation slots past the first's (processes that have not seen it)."""
    pair = row.get("pair_idx")
    slots = rotations if pair is not None and pair < row["idx"] else 0
    return ScheduledMatch(row["idx"], tuple(row["entrants"]), row["seed"], slots=slots)


def _health_rows(played: PlayedMatch) -> dict[str, list[tuple[int, int, int]]]:
    """Per entrant, its games of `played`, newest first: (asked, charged faults,
    crashed), as `recent_games` reads them back."""
    rows: dict[str, list[tuple[int, int, int]]] = {}
    for game in played.games:
        for name, values in _game_health(game).items():
            rows.setdefault(name, []).insert(0, values)
    return rows


def _game_health(game: PlayedGame) -> dict[str, tuple[int, int, int]]:
    think = game.replay.get("think") or [None] * len(game.players)
    faults = dict.fromkeys(game.players, 0)
    crashed = dict.fromkeys(game.players, 0)
    for fault in game.faults():
        faults[fault.entrant] += fault.charged
        if fault.charged and fault.kind in CRASH_KINDS:
            crashed[fault.entrant] = 1
    return {
        name: (len(think[seat]["wall_ms"]) if think[seat] else 0, faults[name], crashed[name])
        for seat, name in enumerate(game.players)
    }
