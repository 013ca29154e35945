"""A seat played by an external bot over gRPC: the referee's side of the protocol.

Like python-chess's engine wrapper: every call has a deadline, every answer is parsed
and checked against the legal actions, and every failure becomes a named fault with a
detail the bot's author can act on. Nothing a bot does can raise out of `act`.

The jobs are split: start-up and the handshake in `handshake`, the wire modes in
`transports` (one class each), what a failure is charged as in `faults`; this module
holds the game's life cycle (notices, the time bank) and the one place a bot that went
away is restarted (once per game). The referee awaits `act_async`, on its thread's
event loop (`arena.wire.loop`); `act` runs it for plain callers.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from arena.bots.process import BotProcess
from arena.bots.remote import faults
from arena.bots.remote.channel import rpc_text
from arena.bots.remote.handshake import BotStartError, Connection, connect
from arena.bots.remote.load import Marks, judge
from arena.bots.remote.settings import CPU_WALL_CAP, Clock, RemoteSettings
from arena.bots.remote.transports import AnswerTimeout, StreamEnded, Transport, make_transport
from arena.errors import IllegalAction
from arena.games import get_game
from arena.games.base import Action, Game
from arena.play.faults import BotFault, FaultKind
from arena.play.referee import Decision, GameStart
from arena.wire.codec import WireCodec, game_info, game_info_bytes
from arena.wire.loop import loop_busy, run
from arena.wire.v1 import bot_pb2 as pb


class RemotePlayer:
    """A seat played by a bot over gRPC, started by the referee or already running."""

    wants_notices = False  # set by the handshake: HelloReply.notices

    def __init__(
        self,
        spec: str,
        address: str | None = None,
        process: BotProcess | None = None,
        settings: RemoteSettings | None = None,
    ) -> None:
        if (address is None) == (process is None):
            raise ValueError("give an address or a process")
        self.spec = spec
        self.process = process
        self.address = process.address if process else str(address)
        self.settings = settings or RemoteSettings()
        self.name = spec
        self.version = ""
        self.latencies: list[float] = []  # seconds per answered decision, for check-bot
        self.cpu_latencies: list[float] = []  # and the bot's CPU seconds on each (cgroup)
        self.game_think: list[tuple[float, float | None]] = []  # this game's (wall, cpu)
        self.referee_seconds = 0.0  # time spent in act(), round trips included
        self.wait_seconds = 0.0  # of which waiting for the answer (the round trip)
        self._connection: Connection | None = None
        self._transport: Transport | None = None
        self._codec: WireCodec | None = None
        self._game: Game | None = None
        self._options: Mapping[str, Any] = {}
        self._info: pb.GameInfo | None = None
        self._info_bytes = b""
        self._decision_id = 0
        self._unanswered: tuple[int, float] | None = None  # see `_timed_out`
        self._late_ids: set[int] = set()  # this game's decisions that timed out unanswered
        self._restarts = 0
        self._paused = False
        self._dead: BotFault | None = None
        self._bank = 0.0
        self._game_left = math.inf  # what is left of settings.game_time in this game
        self._notices: list[tuple[str, bytes]] = []  # sent before the next message
        self._game_seq = 0

    # -- start-up ------------------------------------------------------------------

    @property
    def log_path(self) -> Path | None:
        return self.process.log_path if self.process else None

    def launch(self) -> None:
        """Start the bot's process (if the referee runs it); returns at once."""
        if self.process is not None and not self.process.alive():
            self.process.start()

    def connect(self, game: str, options: Mapping[str, Any], since: float | None = None) -> None:
        """Wait for the bot to listen and shake hands; BotStartError says what failed.
        `since`: when the wait to listen began (bots launched together share it)."""
        run(self._connect(game, options, since))

    async def _connect(
        self, game: str, options: Mapping[str, Any], since: float | None = None
    ) -> None:
        self._game = get_game(game)
        self._options = dict(options)
        self._codec = WireCodec(self._game)
        self.launch()
        await self._disconnect()
        connection = await connect(
            self.spec,
            self.address,
            self.process,
            game=self._game,
            options=options,
            startup_timeout=self.settings.startup_timeout,
            since=since,
        )
        self._connection = connection
        self._transport = make_transport(connection.methods, self.settings)
        self.address = connection.address
        self.name = connection.name or self.name
        self.version = connection.version
        self.wants_notices = connection.notices
        self._dead = None
        self._unanswered = None  # a new process (or channel) is busy with nothing

    async def _disconnect(self) -> None:
        """End the transport and the channel of an earlier connection, if any."""
        if self._transport is not None:
            self._transport.close()
            self._transport = None
        if self._connection is not None:
            connection, self._connection = self._connection, None
            await connection.channel.close()

    def mark_start_failure(self, err: Exception) -> None:
        """The bot could not start: every decision of this match is a fallback move."""
        self._dead = faults.start_failure(err, self.settings.startup_timeout)

    def pause(self, paused: bool) -> None:
        """Freeze (or thaw) the bot's processes between its games: a pooled bot that
        is not playing uses no CPU (arena/bots/rotation_pool.py). Nothing happens for a
        bot the referee did not start, or where processes cannot be frozen."""
        if self.process is not None and self._paused != paused:
            self._paused = paused
            self.process.freeze(paused)

    def start_failed(self) -> bool:
        """Whether the bot could not start (and so plays fallback moves)."""
        return self._dead is not None and self._dead.kind == FaultKind.START_FAILURE

    def clear_start_failure(self) -> None:
        """Forget a start failure, so the next start (arena/bots/rotation_pool.py, at a
        new match) is a real one."""
        if self.start_failed():
            self._dead = None

    # -- a game ----------------------------------------------------------------------

    def start_game(self, start: GameStart) -> None:
        self._game_seq += 1
        self._restarts = 0
        self._decision_id = 0
        self._unanswered = None
        self._late_ids = set()
        self._bank = self.settings.time_bank
        self._game_left = self.settings.game_time or math.inf
        self.game_think = []
        self._abandon()
        self._notices.clear()
        if self.start_failed():
            pass  # it could not start for this match: do not wait startup_timeout per game
        elif (
            self._game is None
            or self._game.name != start.game
            or self._options != dict(start.options)
        ):
            self._dead = None
            try:
                self.connect(start.game, start.options)
            except BotStartError as err:
                self.mark_start_failure(err)
        elif self._dead is not None:
            self._dead = None
            run(self._restart("was down at the start of the game"))
        self._info = game_info(
            start.game,
            f"{start.seed}#{self._game_seq}",
            start.seat,
            seed=start.seed,
            players=start.players,
            options=start.options,
        )
        self._info_bytes = game_info_bytes(self._info)

    def act(self, decision: Decision) -> Action:
        """`act_async`, for callers that are not on the event loop (e.g. a wrapper)."""
        return run(self.act_async(decision))

    async def act_async(self, decision: Decision) -> Action:
        if self._notices and self._dead is None:
            await self._send_notices()  # not the decision's time: a notice is no decision
        started = time.monotonic()
        try:
            return await self._act(decision, started)
        finally:
            self.referee_seconds += time.monotonic() - started

    async def _act(self, decision: Decision, started: float) -> Action:
        if self._dead is not None:
            raise self._dead
        assert self._codec is not None and self._game is not None
        if self._game_left <= 0:  # its game_time is spent: it is not asked again
            raise faults.game_time_up(self.settings)
        self._decision_id += 1
        limit = self.settings.move_timeout + self._bank
        capped = self._game_left < limit  # the game's budget ends before the move's time
        limit = min(limit, self._game_left)
        data = self._codec.decision_bytes(
            decision.view,
            decision.legal,
            self._decision_id,
            self._info_bytes,
            time_ms=int(min(self.settings.move_timeout, self._game_left) * 1000),
            time_bank_ms=int(self._bank * 1000),
        )
        cpu_start = self._bot_cpu()
        on_cpu = self.settings.clock == Clock.CPU and cpu_start is not None
        deadline = started + (limit * CPU_WALL_CAP if on_cpu else limit)
        marks = Marks.now(cpu_start, self._bot_throttled())
        asked = time.monotonic()
        try:
            if on_cpu:
                assert cpu_start is not None
                reply = await self._ask_on_cpu(data, deadline, limit, cpu_start)
            else:
                reply = await self._ask(data, deadline)
        except BotFault as fault:
            now, cpu_end = time.monotonic(), self._bot_cpu()
            wall, cpu = self._think(started, now, cpu_start, cpu_end)
            self._game_left -= cpu if on_cpu and cpu is not None else wall
            if capped and fault.kind == FaultKind.TIMEOUT:
                fault = faults.game_time_up(self.settings, limit)
            elif fault.kind == FaultKind.TIMEOUT and not on_cpu:
                why = self._machine_made_late(marks, cpu_end, wall)
                if why:
                    fault = faults.overloaded(fault, why)
                elif cpu is not None:  # what it did with the time: thought, or waited
                    fault = faults.with_cpu(fault, cpu, wall)
            raise self._timed_out(fault, asked) from None
        self._unanswered = None  # it answered: whatever it was busy with is done
        answered = time.monotonic()
        self.wait_seconds += answered - asked
        cpu_end = self._bot_cpu()
        elapsed, cpu = self._think(started, answered, cpu_start, cpu_end)
        charged = cpu if on_cpu and cpu is not None else elapsed
        self._game_left -= charged
        if charged > limit:  # answered, but too late: discarded
            self._abandon()
            if capped:
                raise faults.game_time_up(self.settings, limit)
            if on_cpu:
                raise faults.cpu_timeout(self.settings, self._bank, charged)
            late = faults.timeout(
                self.settings, self._bank, f"an answer after {elapsed:.3f} s, discarded"
            )
            # as for no answer at all: an answer the machine made late is not the bot's
            why = self._machine_made_late(marks, cpu_end, elapsed)
            raise faults.overloaded(late, why) if why else late
        self._bank -= max(0.0, charged - self.settings.move_timeout)
        self.latencies.append(elapsed)
        if cpu is not None:
            self.cpu_latencies.append(cpu)
        if reply.decision_id != self._decision_id:
            self._abandon()
            raise faults.wrong_decision(self._decision_id, reply, self._late_ids)
        try:
            return self._codec.parse_answer(reply.action)
        except IllegalAction:
            raise faults.not_an_action(self._game.name, reply.action) from None

    def _bot_cpu(self) -> float | None:
        """The bot's CPU time so far (its cgroup's), or None when it has no cgroup."""
        return self.process.cpu_seconds() if self.process is not None else None

    def _machine_made_late(self, marks: Marks, cpu_end: float | None, wall: float) -> str:
        """Why a decision that took `wall` seconds, from `marks` on, was late through the
        machine's doing and not the bot's (`load.judge`), or "" when it was the bot's."""
        return judge(marks, Marks.now(cpu_end, self._bot_throttled()), wall, self._cpus())

    def _bot_throttled(self) -> float | None:
        """How long its own CPU quota has held the bot back (None: not known)."""
        return self.process.throttled_seconds() if self.process is not None else None

    def _cpus(self) -> float:
        """The CPU time per second the bot may use (its sandbox's quota; 1 without)."""
        if self.process is None or self.process.sandbox is None:
            return 1.0
        return self.process.sandbox.limits.cpus

    def _think(
        self, started: float, ended: float, cpu_start: float | None, cpu_end: float | None
    ) -> tuple[float, float | None]:
        """One decision's think time, wall and CPU (None without a cgroup), kept for
        the game's replay (`think`)."""
        wall = ended - started
        cpu = cpu_end - cpu_start if cpu_start is not None and cpu_end is not None else None
        self.game_think.append((wall, cpu))
        return wall, cpu

    async def _ask_on_cpu(
        self, data: bytes, deadline: float, limit: float, cpu_start: float
    ) -> pb.DecisionReply:
        """`_ask` with the limit on the bot's CPU time: its cgroup's CPU time is read
        every few milliseconds while the answer is awaited, and the call cancelled once
        the bot has used more than `limit` (the wall `deadline` still holds, for a bot
        that sleeps)."""
        task = asyncio.ensure_future(self._ask(data, deadline))
        poll = max(0.002, min(0.05, limit / 20))
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=poll)
                if done:
                    return task.result()
                used = (self._bot_cpu() or cpu_start) - cpu_start
                if used > limit:
                    task.cancel()
                    with contextlib.suppress(BaseException):
                        await task
                    self._abandon()
                    raise faults.cpu_timeout(self.settings, self._bank, used)
        finally:
            if not task.done():
                task.cancel()

    def _timed_out(self, fault: BotFault, asked: float) -> BotFault:
        """Keep track of decisions that timed out with no answer at all (the call
        cancelled): when the one before this also did, and nothing has come back since,
        the bot is most likely still busy with the first of them. A bot that answers
        one decision at a time (the Python SDK's `act` holds its server's only thread)
        reads the next request only when it is done with the old one, so its next
        decisions time out too, through no slowness of their own; the fault says so.
        Any other failure (an answer, late or wrong; a crash) ends the run."""
        if fault.kind != FaultKind.TIMEOUT:
            self._unanswered = None
            return fault
        self._late_ids.add(self._decision_id)
        if self._unanswered is None:
            self._unanswered = (self._decision_id, asked)
            return fault
        first, first_asked = self._unanswered
        return faults.still_busy(fault, first, asked - first_asked)

    async def _ask(self, data: bytes, deadline: float) -> pb.DecisionReply:
        """One decision over the transport; every way it can fail becomes its fault."""
        transport = self._transport
        assert transport is not None
        try:
            answer = await transport.ask(data, deadline)
        except AnswerTimeout:
            transport.abandon()
            raise faults.timeout(self.settings, self._bank) from None
        except StreamEnded:
            raise faults.stream_closed() from None
        except grpc.RpcError as err:
            transport.abandon()
            alive = self.process is None or self.process.alive()
            fault = faults.from_status(err, deadline, self.settings, self._bank, alive)
            if fault is not None and fault.kind is FaultKind.CRASH:
                fault = faults.memory_limit(fault, self._memory_limit())
            raise (fault or await self._crashed(rpc_text(err))) from None
        try:
            return pb.DecisionReply.FromString(answer)
        except DecodeError as err:  # parsed here rather than by gRPC, to show what came
            transport.abandon()
            raise faults.not_a_reply(answer, err) from None

    def _abandon(self) -> None:
        if self._transport is not None:
            self._transport.abandon()

    # -- a bot that went away --------------------------------------------------------

    async def _crashed(self, why: str) -> BotFault:
        """The bot went away: restart it once per game, then give up for the game."""
        if self.process is None:
            return faults.crashed(f"the bot at {self.address} went away ({why})", why)
        self.process.wait_exit(0.5)  # the connection drops a moment before the exit status
        exit_text = self.process.exit_description()
        detail = f"the bot process {exit_text} ({why}); log: {self.log_path}"
        fault = faults.memory_limit(
            faults.crashed(detail, f"the bot process {exit_text}"), self._memory_limit()
        )
        await self._restart(fault.detail)
        return fault

    def _memory_limit(self) -> tuple[str, int, bool] | None:
        """(the limit's key, its MB, whether the whole bot ended) when a memory limit
        (the bot's, its entrant's or its run's) ended one of its processes since its
        start, else None: read before any restart. The kill was of this bot's process
        (the kernel counts it in the bot's own cgroup), so the fault is this bot's."""
        process = self.process
        if process is None or process.sandbox is None:
            return None
        reached = process.memory_limit()
        if reached is None:
            return None
        return *reached, not process.alive()

    async def _restart(self, why: str) -> None:
        """The one place a bot is started again: at most once per game."""
        self._abandon()
        if self.process is None or self._restarts >= 1:
            self._dead = faults.crashed(
                f"{why}; already restarted once in this game",
                "no bot: it went away again after its restart in this game",
            )
            return
        self._restarts += 1
        try:
            assert self._game is not None
            self.process.start()
            await self._connect(self._game.name, self._options)
        except BotStartError as err:
            self._dead = faults.crashed(
                f"{why}; the restart failed: {err}",
                "no bot: the restart failed: " + str(err).splitlines()[0],
            )

    # -- notices and the end ------------------------------------------------------------

    def end_deal(self, seat: int, deal: Mapping[str, Any]) -> None:
        """Queued, and sent ahead of the bot's next message (the referee does not wait)."""
        if self._dead is not None or self._info is None or self._codec is None:
            return
        body = self._codec.deal_end_bytes(self._info.SerializeToString(), deal)
        self._notices.append(("deal_end", body))

    def end_game(self, seat: int, replay: Mapping[str, Any]) -> None:
        if self._dead is None and self._info is not None:
            end = pb.GameEnd(game=self._info, totals=replay["totals"], ranks=replay["ranks"])
            self._notices.append(("game_end", end.SerializeToString()))
        run(self._end_game())

    async def _end_game(self) -> None:
        """Send the notices waiting and end the game on the transport, waiting at most
        move_timeout, so that the bot has read every notice before its match ends. A
        bot that fails here has nothing left to be charged with."""
        try:
            async with asyncio.timeout(self.settings.move_timeout):
                await self._send_notices()
                if self._transport is not None:
                    await self._transport.finish_game()
        except (TimeoutError, grpc.RpcError):
            self._notices.clear()
        self._abandon()

    async def _send_notices(self) -> None:
        """The notices waiting, each within move_timeout. A bot that does not take one
        is not charged: the transport drops it."""
        if self._transport is None:
            self._notices.clear()
            return
        while self._notices:
            notice, body = self._notices.pop(0)
            await self._transport.notify(notice, body)

    def close(self) -> None:
        """End the transport, the channel, and (if the referee started it) the bot."""
        self.pause(False)  # a frozen bot could not take the end of its channel
        if self._transport is not None:
            self._transport.close()
            self._transport = None
        if self._connection is not None and not loop_busy():
            with contextlib.suppress(Exception):
                run(self._connection.channel.close())
        self._connection = None
        if self.process is not None:
            self.process.close()
