"""`arena bench league`: a league of four external random bots into a fresh database,
in games per minute, everything included (bot start-up, storage, ratings), with the
bots kept for the whole league (a process per entrant and rotation, the rule) and, in
the same run, started for every match (the lifecycle before it). Nothing is asserted.

Beside the rate, the CPU time of everything per decision asked (the referee's workers,
the bots, the store and the ratings) against the gRPC transport's own CPU per round
trip: a bare echo over the same transport (a Play-like bidirectional stream on Unix
sockets) with a message of the league's mean request size, going round four echo
servers as a game's decisions go round its four bots, measured with the same counter
in the same run (`RunCpu`)."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bench.referee import RANDOM_BOT

LIFECYCLE_WORDS = {
    "league": "bots kept for the league (a process per entrant and rotation)",
    "match": "bots started for every match (one process per entrant, all rotations)",
}


@dataclass(frozen=True)
class LeagueRun:
    lifecycle: str
    games: int
    seconds: float
    cpu_seconds: float = 0.0  # everything the run started, on `RunCpu`'s counter
    decisions: int = 0  # asked over the wire, forced ones included
    bot_cpu_seconds: float | None = None  # the bots' own, while asked (their cgroups)
    main_cpu_seconds: float = 0.0  # this process's: the store, the ratings, the pre-flight

    @property
    def per_minute(self) -> float:
        return self.games / self.seconds * 60

    @property
    def cpu_us(self) -> float:
        """CPU microseconds of everything per decision asked."""
        return self.cpu_seconds / self.decisions * 1e6 if self.decisions else 0.0


@dataclass(frozen=True)
class TransportCpu:
    """The gRPC transport's own CPU per round trip: client and echo servers together."""

    round_trips: int
    message_bytes: int
    cpu_seconds: float
    seconds: float

    @property
    def cpu_us(self) -> float:
        return self.cpu_seconds / self.round_trips * 1e6

    @property
    def wall_us(self) -> float:
        return self.seconds / self.round_trips * 1e6


@dataclass
class LeagueBench:
    """What `arena bench league` prints: the leagues, the transport, the counter used."""

    runs: list[LeagueRun]
    transport: TransportCpu | None = None
    source: str = ""  # what the CPU counter is, in words


class RunCpu:
    """The CPU time of this process and of every process it starts from now on.

    Where this process may make cgroups (cgroup v1's cpuacct, as root), it moves into a
    cgroup of its own, `arena-bench-PID` below its current one, whose `cpuacct.usage`
    then counts everything started afterwards: the league's workers, the bots (their own
    cgroups are made below the arena's, arena/bots/confinement/cgroups.py), the echo
    servers. On cgroup v2, its own cgroup's `cpu.stat` when it is alone in it. Else the
    machine's busy time from /proc/stat, which counts whatever else runs too (`source`
    says which). `close` moves the process back and removes the cgroup."""

    def __init__(self) -> None:
        from arena.bots.confinement.cgroups import own_cgroup_folder

        self._made: Path | None = None
        self._home: Path | None = None
        self._file = ""
        self.source = "the machine's busy time (/proc/stat): everything running counts"
        v1 = own_cgroup_folder("cpuacct")
        v2 = own_cgroup_folder("")
        if v1 is not None:
            _sweep_stale(v1)
            made = v1 / f"arena-bench-{os.getpid()}"
            try:
                made.mkdir(exist_ok=True)
                (made / "cgroup.procs").write_text(str(os.getpid()))
            except OSError:
                with contextlib.suppress(OSError):
                    made.rmdir()
            else:
                self._made, self._home = made, v1
                self._file = str(made / "cpuacct.usage")
                self.source = f"the run's cgroup ({made}/cpuacct.usage)"
        elif v2 is not None and _alone_in(v2):
            self._file = str(v2 / "cpu.stat")
            self.source = f"this process's own cgroup, alone in it ({v2}/cpu.stat)"

    def seconds(self) -> float:
        """CPU seconds so far on the counter (only differences mean anything)."""
        if not self._file:
            return machine_busy_seconds()
        data = Path(self._file).read_text()
        if self._file.endswith("cpuacct.usage"):
            return int(data) / 1e9
        for line in data.splitlines():
            if line.startswith("usage_usec "):
                return int(line.split()[1]) / 1e6
        raise OSError(f"{self._file} has no usage_usec")

    def close(self) -> None:
        """Back into the cgroup it came from; the run's cgroup removed once empty."""
        if self._made is None or self._home is None:
            return
        made, self._made = self._made, None
        for _ in range(50):  # a bot's cgroup below it may take a moment to go
            with contextlib.suppress(OSError):  # every thread (gRPC's own too), one by one
                for tid in (made / "tasks").read_text().split():
                    with contextlib.suppress(OSError):  # a thread that ended meanwhile
                        (self._home / "tasks").write_text(tid)
            try:
                made.rmdir()
                return
            except OSError:
                time.sleep(0.1)


def _alone_in(folder: Path) -> bool:
    """Whether this process is the only one in the cgroup `folder`."""
    try:
        return (folder / "cgroup.procs").read_text().split() == [str(os.getpid())]
    except OSError:
        return False


def _sweep_stale(parent: Path) -> None:
    """Remove the empty cgroups that killed benches left in `parent` (their pid gone),
    deepest first; one that still holds a process stays."""
    from arena.bots.confinement.cgroups import pid_alive

    for folder in parent.glob("arena-bench-*"):
        pid = folder.name.removeprefix("arena-bench-")
        if not pid.isdigit() or pid_alive(int(pid)):
            continue
        for inner in sorted(folder.rglob("*"), key=lambda p: -len(p.parts)) + [folder]:
            if inner.is_dir():
                with contextlib.suppress(OSError):
                    inner.rmdir()


def machine_busy_seconds() -> float:
    """Busy CPU seconds of the whole machine since boot, all cores (/proc/stat: every
    column but idle and iowait)."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    busy = sum(values[:8]) - values[3] - values[4]  # user..steal, less idle and iowait
    return busy / os.sysconf("SC_CLK_TCK")


def bench_league(
    matches: int = 24,
    *,
    workers: int = 2,
    lifecycles: tuple[str, ...] = ("match", "league"),
    repeats: int = 2,
    kingdoms: int = 4,
    bot: str = RANDOM_BOT,
    round_trips: int = 20_000,
) -> LeagueBench:
    """The league (`repeats` times each lifecycle, taking turns, so that a drift of the
    machine's speed is shared): one `LeagueRun` per league played, in order, each with
    its CPU on one counter (`RunCpu`); then, on the same counter, `round_trips` bare
    echoes of the league's mean request size (none when 0). Fewer `kingdoms` make
    shorter games, in which a bot's start-up weighs more."""
    counter = RunCpu()
    bench = LeagueBench([], source=counter.source)
    try:
        for _ in range(repeats):
            for lifecycle in lifecycles:
                with tempfile.TemporaryDirectory(prefix="arena-bench-league-") as name:
                    bench.runs.append(
                        _bench_league(
                            Path(name),
                            matches,
                            workers=workers,
                            lifecycle=lifecycle,
                            kingdoms=kingdoms,
                            bot=bot,
                            counter=counter,
                        )
                    )
        if round_trips:
            size = mean_request_bytes(kingdoms)
            bench.transport = transport_cpu(counter, size, round_trips)
    finally:
        counter.close()
    return bench


def _bench_league(
    folder: Path,
    matches: int,
    *,
    workers: int,
    lifecycle: str,
    kingdoms: int = 4,
    bot: str = RANDOM_BOT,
    counter: RunCpu | None = None,
) -> LeagueRun:
    from arena.league.running.runner import run_league
    from arena.league.store import open_existing
    from arena.league.store.reads import entrant_stats
    from arena.league.workers.worker import Lifecycle

    entrants = "".join(f'\n[[entrant]]\nname = "bot-{i}"\nbot = "{bot}"\n' for i in range(4))
    league = folder / "bench.toml"
    league.write_text(
        '[league]\nname = "bench"\ngame = "trix"\nseed = 1\nschedule = "round-robin"\n'
        f"rounds = {matches}\n\n[rules]\nkingdoms = {kingdoms}\n" + entrants
    )
    cpu_start = counter.seconds() if counter else 0.0
    main_start = time.process_time()
    start = time.perf_counter()
    summary = run_league(
        league, folder / "bench.db", workers=workers, lifecycle=Lifecycle(lifecycle)
    )
    seconds = time.perf_counter() - start
    main = time.process_time() - main_start
    cpu = counter.seconds() - cpu_start if counter else 0.0
    db = open_existing(folder / "bench.db")
    try:
        stats = list(entrant_stats(db, 1).values())
    finally:
        db.close()
    decisions = sum(row.get("asked") or 0 for row in stats)
    bots = [row.get("think_cpu_ms") for row in stats]
    bot_cpu = None if None in bots else sum(bots) / 1000
    return LeagueRun(lifecycle, summary.played * 4, seconds, cpu, decisions, bot_cpu, main)


def mean_request_bytes(kingdoms: int = 4, seed: str = "bench-size") -> int:
    """The mean size of a Play message carrying a decision (`decision_messages`)."""
    sizes = [len(message) for message in decision_messages(kingdoms, seed)]
    return round(sum(sizes) / len(sizes))


def decision_messages(kingdoms: int = 4, seed: str = "bench-size") -> list[bytes]:
    """Every decision of a Trix game of `kingdoms` between four random players, forced
    ones included, as the RefereeMessage a bot is sent on the Play stream: encoded in
    process as a RemotePlayer encodes it, with no bot started."""
    from arena.games import get_game
    from arena.play.referee import RefereeSettings, play_game
    from arena.wire.codec import WireCodec, game_info, game_info_bytes, wrap_decision

    game = get_game("trix")
    options = game.parse_options({"kingdoms": kingdoms})
    messages: list[bytes] = []

    class Encoding:
        """A player that encodes every decision it is asked, then plays one at random."""

        wants_notices = False

        def __init__(self, seat: int) -> None:
            self.name = f"bot-{seat}"
            self.codec = WireCodec(game)
            self.info = b""
            self.asked = 0

        def start_game(self, start: Any) -> None:
            self.info = game_info_bytes(
                game_info(game.name, f"{start.seed}#1", start.seat, seed=start.seed,
                          players=start.players, options=start.options)
            )  # fmt: skip

        def act(self, decision: Any) -> Any:
            self.asked += 1
            data = self.codec.decision_bytes(
                decision.view, decision.legal, self.asked, self.info, time_ms=1000
            )
            messages.append(wrap_decision(data))
            return decision.legal[len(messages) * 7919 % len(decision.legal)]  # any, fixed

        def end_deal(self, seat: int, deal: Any) -> None: ...

        def end_game(self, seat: int, replay: Any) -> None: ...

    play_game(game, [Encoding(s) for s in range(4)], seed, options,
              settings=RefereeSettings(ask_forced=True))  # fmt: skip
    return messages


def transport_cpu(counter: RunCpu, size: int, round_trips: int) -> TransportCpu:
    """The transport's own CPU per round trip on `counter`: four bare echo servers
    (`arena.bench.referee.serve_echo`, on the SDK's loop) started and warmed, then
    `round_trips` messages of `size` bytes on a Play-like stream, each to the next
    server in turn, as a game's decisions go round its bots, awaited one at a time;
    the client's CPU (this process) and the servers' counted together."""
    from arena.bench.referee import echo_servers
    from arena.bench.referee import round_trips as send

    message = b"\x0a" * size
    method = "/arena.bench.Echo/Stream"
    with tempfile.TemporaryDirectory(prefix="arena-bench-echo-") as name:
        with echo_servers(Path(name)) as addresses:
            warm = [(i % 4, message) for i in range(200)]
            send(addresses, method, "stream", messages=warm, warm_up=warm)
            messages = [(i % 4, message) for i in range(round_trips)]
            cpu_start, start = counter.seconds(), time.perf_counter()
            send(addresses, method, "stream", messages=messages, warm_up=[])
            seconds = time.perf_counter() - start
            cpu = counter.seconds() - cpu_start
    return TransportCpu(round_trips, size, cpu, seconds)


def render_league(bench: LeagueBench, workers: int) -> str:
    """The figures as `arena bench league` prints them."""
    runs, transport = bench.runs, bench.transport
    lines = []
    for run in runs:
        line = (
            f"{run.games} games in {run.seconds:.1f} s with {workers} workers, "
            f"{LIFECYCLE_WORDS[run.lifecycle]}: {run.per_minute:.0f} games per minute"
        )
        if run.decisions:
            line += f"; CPU {run.cpu_us:.0f} us per decision ({run.decisions} decisions asked)"
        lines.append(line)
    means = {}
    cpu = {}
    for lifecycle in dict.fromkeys(run.lifecycle for run in runs):
        mine = [run for run in runs if run.lifecycle == lifecycle]
        means[lifecycle] = sum(run.per_minute for run in mine) / len(mine)
        line = f"mean, {LIFECYCLE_WORDS[lifecycle]}: {means[lifecycle]:.0f} games per minute"
        decisions = sum(run.decisions for run in mine)
        if decisions:
            cpu[lifecycle] = sum(run.cpu_seconds for run in mine) / decisions * 1e6
            line += f"; CPU {cpu[lifecycle]:.0f} us per decision"
            main_us = sum(run.main_cpu_seconds for run in mine) / decisions * 1e6
            bots = [run.bot_cpu_seconds for run in mine]
            if None not in bots:
                bot_us = sum(b or 0.0 for b in bots) / decisions * 1e6
                line += f" (the bots' own while asked: {bot_us:.0f} us;"
            else:
                line += " ("
            line += f" the main process, store and ratings: {main_us:.0f} us)"
        lines.append(line)
    if "league" in means and "match" in means:
        ratio = means["league"] / means["match"]
        lines.append(f"kept for the league / started every match: {ratio:.2f}x")
    if cpu:
        lines.append(f"CPU counted: {bench.source}")
    if transport is not None:
        lines.append(
            f"the gRPC transport's own CPU per round trip (stream, {transport.message_bytes} "
            f"bytes each way, client and four echo servers, {transport.round_trips} round "
            f"trips): {transport.cpu_us:.0f} us ({transport.wall_us:.0f} us wall)"
        )
        for lifecycle, us in cpu.items():
            lines.append(
                f"CPU per decision / the transport's per round trip, "
                f"{LIFECYCLE_WORDS[lifecycle]}: {us / transport.cpu_us:.2f}x"
            )
    return "\n".join(lines)
