"""`arena ladder run`: play a ladder's matches until told to stop (or N of them).

The ladder is opened from the database (its settings as `init` stored them), its
lock taken (one run per ladder), and its matches played by the league's run loop
(arena/league/running/dispatch.py) on worker processes here or a Dask cluster, every
returned match checked with the engine. Between matches the source looks at the
database again, so versions submitted, withdrawn or promoted by authors meanwhile
take part at once. Versions waiting for the gate are checked one at a time on a
thread of their own, so a slow gate never stops the matches.

Ctrl-C or SIGTERM end the run cleanly: the bots are ended, and the matches in flight
stay queued in the database, to be played first when the ladder runs again. A worker
that dies is the machine's fault, never a bot's: its match is played again.

The test matches authors ask for are played by the same loop, unrated, and stored in
the ladder's tests league (arena/ladder/source.py says how they are kept apart).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.process import run_log_folder
from arena.bots.spec import slug
from arena.ladder.book import Ladder, State, open_ladder
from arena.ladder.gate import GateReport, run_gate
from arena.ladder.source import LadderProgress, LadderSource
from arena.ladder.uploads import sweep_incoming
from arena.league.running.dispatch import WorkerDied, run_matches
from arena.league.running.lock import league_lock
from arena.league.running.schedule_source import TaskTemplate
from arena.league.store import clear_in_flight, open_db, stored_deal_key
from arena.league.store.ladder_reads import tests_league_id, version_rows
from arena.league.store.ladder_writes import drop_matches, drop_test_matches, set_gate_report
from arena.league.workers.bot_archives import ShippedBot, own_files, pack_folder
from arena.league.workers.executors import MatchExecutor, open_executor
from arena.league.workers.worker import Lifecycle

Notice = Callable[[str], None]
IDLE_SECONDS = 1.0  # how often an idle ladder looks for new versions
MAX_DEATHS = 3  # a match that takes its worker down this often is dropped


@dataclass
class LadderRunSummary:
    """What one `arena ladder run` did."""

    ladder: str
    db_path: Path
    played: int = 0
    stored: int = 0  # matches stored in all, at the end
    gated: int = 0  # versions the gate checked
    interrupted: bool = False

    def describe(self) -> str:
        return (
            f"ladder {self.ladder!r}: {self.played} matches played now, {self.stored} stored "
            f"in all, {self.gated} versions checked by the gate (database {self.db_path})"
        )


def run_ladder(
    db_path: Path,
    ladder_name: str | None = None,
    *,
    workers: int = 1,
    cluster: str | None = None,
    matches: int | None = None,
    progress: Callable[[LadderProgress], None] | None = None,
    notice: Notice | None = None,
    idle_seconds: float = IDLE_SECONDS,
    lifecycle: Lifecycle = Lifecycle.LEAGUE,
) -> LadderRunSummary:
    """Run the ladder until Ctrl-C or SIGTERM (KeyboardInterrupt), or until `matches`
    matches are stored by this run."""
    say = notice or (lambda text: None)
    db = open_db(db_path)
    try:
        ladder = open_ladder(db, ladder_name)
        summary = LadderRunSummary(ladder.config.name, db_path)
        with league_lock(db_path, ladder.config.name):
            _run(
                ladder,
                db,
                db_path,
                summary,
                _Options(workers, cluster, matches, progress, say, idle_seconds, lifecycle),
            )
    finally:
        db.close()
    return summary


@dataclass(frozen=True)
class _Options:
    workers: int
    cluster: str | None
    matches: int | None
    progress: Callable[[LadderProgress], None] | None
    say: Notice
    idle_seconds: float
    lifecycle: Lifecycle


def _run(ladder: Ladder, db, db_path: Path, summary: LadderRunSummary, run: _Options) -> None:
    """The run, its lock held."""
    name = ladder.config.name
    logs = db_path.parent / "logs" / f"{slug(db_path.stem, 'db')}-{slug(name, 'ladder', limit=200)}"
    log_dir = run_log_folder(logs)
    cluster = run.cluster or ladder.config.cluster
    template = TaskTemplate(log_dir, db_path, run.lifecycle)
    _clear_in_flight(db, ladder)
    if sweep_incoming(ladder.store):
        run.say(f"removed the unpacking folders of submissions killed in {ladder.store}")
    gates = _Gates(db_path, ladder, log_dir / "gate", run.say)
    played_before = 0
    deaths: dict[int, int] = {}  # match -> workers lost playing it
    source: LadderSource | None = None
    try:
        while True:
            if source is None:  # rebuilt after each round: nothing of a lost worker stays
                source = _source(ladder, db, template, run, played_before)
            if _waiting(db, ladder):  # not started for nothing: a thread just started
                gates.start()  # is not idle yet, and the run would wait for it to end
            source.refresh()
            if not source.queue and not source.tests and source.choose() is None:
                summary.stored = source.stored_count()
                if gates.idle() and run.matches is not None and not _waiting(db, ladder):
                    run.say(
                        "no table can be made from the versions playing now "
                        f"(a {ladder.config.engine.seats}-seat table needs versions of "
                        f"{ladder.config.engine.seats} authors or house bots): the run ends"
                    )
                    break
                time.sleep(run.idle_seconds)
                continue
            executor = open_executor(cluster, run.workers, "--cluster")
            shared: dict[str, Any] = {}
            _ship_on(source, executor, shared)
            try:
                run_matches(
                    source,
                    executor,
                    shared=shared,
                    say=run.say,
                    lost=lambda hint, source=source: (
                        f"of ladder {name!r}, the {source.stored_count()} matches stored are "
                        f"kept and the matches in flight are played again ({hint})"
                    ),
                )
            except WorkerDied as err:
                deaths[err.index] = deaths.get(err.index, 0) + 1
                if deaths[err.index] >= MAX_DEATHS:
                    drop_matches(db, ladder.id, [err.index])
                    _drop_test(db, ladder, source, err.index)
                    run.say(
                        f"{err}; match {err.index} took its worker down {MAX_DEATHS} times "
                        "and is dropped (no version is charged); the others in flight are "
                        "played again"
                    )
                else:
                    run.say(f"{err}; the matches in flight are played again")
            played_before += source.played
            summary.played = played_before
            summary.stored = source.stored_count()
            source = None
            if run.matches is not None and played_before >= run.matches:
                break
    except KeyboardInterrupt:
        summary.interrupted = True
        raise
    finally:
        summary.gated = gates.stop()
        with contextlib.suppress(Exception):
            _clear_in_flight(db, ladder)


def _clear_in_flight(db, ladder: Ladder) -> None:
    """No match of the ladder (rated, or a test match) is in flight any more."""
    clear_in_flight(db, ladder.league_id)
    tests = tests_league_id(db, ladder.id)
    if tests is not None:
        clear_in_flight(db, tests)


def _drop_test(db, ladder: Ladder, source: LadderSource, index: int) -> None:
    """The test match given out as `index` (if it was one) is dropped: it took its
    worker down too often."""
    test = source.testing.get(index)
    if test is not None:
        drop_test_matches(db, ladder.id, [(test.id, f"it took its worker down {MAX_DEATHS} times")])


def _source(
    ladder: Ladder, db, template: TaskTemplate, run: _Options, played_before: int
) -> LadderSource:
    """The ladder's source as the database has it now (rebuilt for each round of the
    loop, so a worker lost mid-match leaves nothing behind in memory)."""
    ladder = open_ladder(db, ladder.config.name)  # frozen, or settings taken again
    source = LadderSource.open(ladder, db, template, run.say)
    source.progress = run.progress
    if run.matches is not None:
        source.limit = max(0, run.matches - played_before)
    return source


def _waiting(db, ladder: Ladder) -> bool:
    return bool(version_rows(db, ladder.id, states=(State.CHECKING,)))


def _ship_on(source: LadderSource, executor: MatchExecutor, shared: dict[str, Any]) -> None:
    """On a cluster, each version's folder travels as an archive (packed as a
    league's bots are), sent the first time a match of it is given out; `shared` is
    what the executor was given of them, which the run loop hands every task."""
    if not executor.ships_bots:
        source.template = dataclasses.replace(source.template, elsewhere=False)
        return
    source.template = dataclasses.replace(source.template, elsewhere=True)

    def ship(name: str, spec: str) -> ShippedBot | None:
        found = own_files(spec, source.ladder.config.base_dir)
        if found is None:
            return None
        folder, words, relative = found
        data = pack_folder(folder, name)
        digest = hashlib.sha256(data).hexdigest()
        if digest not in shared:
            shared.update(executor.share({digest: data}))
        return ShippedBot(name, words, relative, digest)

    source.ship = ship


class _Gates:
    """The gate, one version at a time, on a thread of its own (with its own
    connection to the database: SQLite's are not shared between threads)."""

    def __init__(self, db_path: Path, ladder: Ladder, log_dir: Path, say: Notice) -> None:
        self.db_path, self.ladder, self.log_dir, self.say = db_path, ladder, log_dir, say
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()
        self.done = 0
        self.undecided: set[int] = set()  # the gate itself failed on them this run

    def idle(self) -> bool:
        return self.thread is None or not self.thread.is_alive()

    def start(self) -> None:
        if self.idle() and not self.stopping.is_set():
            self.thread = threading.Thread(target=self._work, name="ladder-gate", daemon=True)
            self.thread.start()

    def stop(self) -> int:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=5)
        return self.done

    def _work(self) -> None:
        db = open_db(self.db_path)
        try:
            while not self.stopping.is_set():
                waiting = [
                    v
                    for v in version_rows(db, self.ladder.id, states=(State.CHECKING,))
                    if v["id"] not in self.undecided
                ]
                if not waiting:
                    return
                self._check(db, waiting[0])
        finally:
            db.close()

    def _check(self, db, version: dict) -> None:
        config = self.ladder.config
        self.say(f"the gate checks {version['entrant']}")
        report: GateReport = run_gate(
            version["command"],
            Path(version["folder"]),
            config.league([], stored_deal_key(db, self.ladder.league_id)),
            settings=config.gate,
            log_dir=version_gate_folder(self.log_dir, version),
            name=version["entrant"],
            db_path=self.db_path,
        )
        if self.stopping.is_set() and not report.passed:
            return  # ended by the run's end, not by the bot: checked again next run
        if report.error:  # the gate's own process failed: no verdict on the bot
            self.undecided.add(version["id"])
            self.say(
                f"the gate could not check {version['entrant']} ({report.error}); it stays "
                "checking and is checked again when the ladder runs next"
            )
            return
        if not report.passed:
            state, reason = State.REFUSED, _first_failure(report, version["bot"])
        else:
            actives = version_rows(db, self.ladder.id, bot=version["bot"], states=(State.ACTIVE,))
            state = State.CANDIDATE if actives else State.ACTIVE
            reason = (
                f"passed the gate; tested against {actives[0]['entrant']}"
                if actives
                else "passed the gate; its bot's first active version"
            )
        set_gate_report(db, version["id"], report.to_json(), state, reason)
        self.done += 1
        self.say(f"{version['entrant']} is {state}: {reason}")


def version_gate_folder(gate_logs: Path, version: dict) -> Path:
    """The gate's logs of one version, in a folder of its own (`ID-ENTRANT`): what its
    bot printed is its author's to read (the site's author pages), nobody else's."""
    return gate_logs / f"{version['id']}-{slug(version['entrant'], 'version', limit=80)}"


REASON_DETAIL_CHARS = 300
"""How much of the failed step's report a refusal's one-line reason quotes."""


def _first_failure(report: GateReport, bot: str) -> str:
    """The refusal's one-line reason: the failed step and the start of what it said, cut
    at a word (never mid-path) and pointing at the whole report when it is cut."""
    failed = next((step for step in report.steps if not step.passed), None)
    if failed is None:
        return "refused by the gate"
    detail = " ".join(failed.detail.split())  # one line: the report holds the rest
    if len(detail) > REASON_DETAIL_CHARS:
        cut = detail[:REASON_DETAIL_CHARS].rsplit(" ", 1)[0]
        detail = f"{cut} ... (the whole report: arena ladder versions --bot {bot})"
    return f"refused by the gate at {failed.name}: {detail}"
