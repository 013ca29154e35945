"""External bots over gRPC: the referee's side of protos/arena/v1/bot.proto.

Like python-chess's engine wrapper: every call has a deadline, every answer is parsed
and checked against the legal actions, and every failure becomes a named fault with a
detail the bot's author can act on. Nothing a bot does can raise out of `act`.

Transport: by default one bidirectional `Play` stream per game (a message each way per
decision, the cheapest round trip gRPC offers from Python); `unary` makes one `Decide`
call per decision. Calls run on grpc.aio, on the referee thread's event loop
(`arena.wire.loop`): the referee awaits `act_async`, and `act` runs it for plain callers.
Each decision has its own deadline; when a bot overruns it the stream is cancelled,
and the next decision opens a new stream (every request is complete in itself, so a
bot needs no state across streams).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from arena.bots.deadline import DecisionDeadline
from arena.bots.process import BotProcess, wait_for_socket
from arena.errors import ArenaError, IllegalAction
from arena.games import get_game
from arena.games.base import Action, Game
from arena.play.referee import BotFault, Decision, GameStart, truncate
from arena.wire.codec import (
    PROTOCOL_VERSION,
    WireCodec,
    field,
    game_info,
    game_info_bytes,
    options_text,
    wrap_decision,
)
from arena.wire.loop import loop_busy, run
from arena.wire.v1 import bot_pb2 as pb

MAX_REPLY_BYTES = 64 * 1024  # a DecisionReply is a few dozen bytes
MAX_REQUEST_BYTES = 1 << 20
_CLOCK_SLACK = 0.005  # gRPC's deadline and time.monotonic may differ by this much
_GRPC_TOO_LARGE = "CLIENT: Received message larger than max"  # gRPC's own check's text
NAME_LIMIT = 64  # characters kept of a bot's name and version from the handshake
MAX_DECISIONS_PER_GAME = 2000  # bounds the stream's own gRPC deadline
_MSG_DEAL_END, _MSG_GAME_END = 2, 3


FROM_A_LIVE_BOT = "from a running bot"  # what a crash fault expected (README "Faults")


class BotStartError(ArenaError):
    """A bot could not be started or refused the handshake; the message says why."""

    kind = "start-failure"


@dataclass
class RemoteSettings:
    """Limits for one external bot (league file `[limits]`, CLI options)."""

    move_timeout: float = 1.0  # seconds for each decision
    startup_timeout: float = 10.0  # seconds from launch to a completed handshake
    time_bank: float = 0.0  # seconds per game a bot may overrun move_timeout by, in all
    transport: str = "stream"  # "stream" (Play) or "unary" (Decide)


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
        self.referee_seconds = 0.0  # time spent in act(), round trips included
        self.wait_seconds = 0.0  # of which waiting for the answer (the round trip)
        self._channel: grpc.aio.Channel | None = None
        self._codec: WireCodec | None = None
        self._game: Game | None = None
        self._options: Mapping[str, Any] = {}
        self._info: pb.GameInfo | None = None
        self._info_bytes = b""
        self._decision_id = 0
        self._restarts = 0
        self._dead: BotFault | None = None
        self._bank = 0.0
        self._call: Any = None  # the game's open Play stream (grpc.aio), if any
        self._deadline = DecisionDeadline()  # cancels a wait on the stream past its deadline
        self._notices: list[tuple[int, bytes]] = []  # sent before the next message
        self._game_seq = 0

    # -- start-up ------------------------------------------------------------------

    @property
    def log_path(self) -> Path | None:
        return self.process.log_path if self.process else None

    def launch(self) -> None:
        """Start the bot's process (if the referee runs it); returns at once."""
        if self.process is not None and not self.process.alive():
            self.process.start()

    def connect(self, game: str, options: Mapping[str, Any]) -> None:
        """Wait for the bot to listen and shake hands; BotStartError says what failed."""
        run(self._connect(game, options))

    async def _connect(self, game: str, options: Mapping[str, Any]) -> None:
        self._game = get_game(game)
        self._options = dict(options)
        self._codec = WireCodec(self._game)
        self.launch()
        deadline = time.monotonic() + self.settings.startup_timeout
        if self.process is not None:
            ready = wait_for_socket(
                self.process.socket_path, self.process, self.settings.startup_timeout
            )
            if not ready:
                raise BotStartError(self._start_problem("did not start listening"))
            try:
                self.address = self.process.ready_address()
            except (OSError, ValueError) as err:
                problem = self._start_problem(f"offered an untrusted socket ({err})")
                raise BotStartError(problem) from None
        await self._open_channel()
        assert self._channel is not None
        try:
            async with asyncio.timeout_at(max(time.monotonic() + 0.05, deadline)):
                await self._channel.channel_ready()
            answer = await self._stub_hello(
                pb.HelloRequest(
                    protocol_version=PROTOCOL_VERSION,
                    game=game,
                    seats=self._game.seats,
                    options=options_text(options),
                ),
                timeout=max(0.05, deadline - time.monotonic()),
            )
            reply = pb.HelloReply.FromString(answer)
        except DecodeError as err:
            problem = f"failed the handshake (answered bytes that are not a HelloReply: {err})"
            raise BotStartError(self._start_problem(problem)) from None
        except TimeoutError:
            raise BotStartError(self._start_problem("could not be reached")) from None
        except grpc.RpcError as err:
            problem = self._start_problem(f"failed the handshake ({_rpc_text(err)})")
            raise BotStartError(problem) from None
        if reply.error:
            raise BotStartError(f"bot {self.spec!r} refused to play: {reply.error}")
        if reply.protocol_version != PROTOCOL_VERSION:
            raise BotStartError(
                f"bot {self.spec!r} speaks arena protocol {reply.protocol_version}, the referee "
                f"speaks {PROTOCOL_VERSION}: rebuild it from protos/arena/v1/bot.proto"
            )
        self.name = printable(reply.name, NAME_LIMIT) or self.name
        self.version = printable(reply.version, NAME_LIMIT)
        self.wants_notices = reply.notices
        self._dead = None

    def _start_problem(self, what: str) -> str:
        limit = self.settings.startup_timeout
        text = f"bot {self.spec!r} {what} at {self.address} within {limit} s (startup_timeout)"
        if self.process is not None:
            if not self.process.alive():
                text += f"; it {self.process.exit_description()}"
            text += f"; its log: {self.process.log_path}"
            tail = _log_tail(self.process.log_path)
            if tail:
                text += "\n--- last lines of the log ---\n" + tail
        return text

    async def _open_channel(self) -> None:
        if self._channel is not None:
            await self._channel.close()
        channel = grpc.aio.insecure_channel(
            self.address,
            options=[
                ("grpc.max_receive_message_length", MAX_REPLY_BYTES),
                ("grpc.max_send_message_length", MAX_REQUEST_BYTES),
                ("grpc.enable_retries", 0),
            ],
        )
        self._channel = channel
        self._stub_hello = channel.unary_unary(
            "/arena.v1.Bot/Hello",
            request_serializer=pb.HelloRequest.SerializeToString,
            response_deserializer=None,  # parsed in _connect, to say what came back
        )
        self._stub_decide = channel.unary_unary(
            "/arena.v1.Bot/Decide",
            request_serializer=None,  # requests are bytes from arena.wire
            response_deserializer=None,  # answers are parsed by _parse_reply
        )
        self._stub_play = channel.stream_stream(
            "/arena.v1.Bot/Play",
            request_serializer=None,
            response_deserializer=None,
        )
        self._stub_notify = channel.unary_unary(
            "/arena.v1.Bot/Notify",
            request_serializer=None,  # Notice bytes: deal_end = 1, game_end = 2
            response_deserializer=None,  # an Ack, whatever it holds: nothing to read
        )

    # -- a game ----------------------------------------------------------------------

    def start_game(self, start: GameStart) -> None:
        self._game_seq += 1
        self._restarts = 0
        self._decision_id = 0
        self._bank = self.settings.time_bank
        self._close_stream()
        self._notices.clear()
        if self._dead is not None and self._dead.kind == "start-failure":
            pass  # it could not start for this match: do not wait startup_timeout per game
        elif (
            self._game is None
            or self._game.name != start.game
            or self._options != dict(start.options)
        ):
            self._dead = None
            self._connect_or_die(start.game, start.options)
        elif self._dead is not None:
            self._dead = None
            run(self._restart("was down at the start of the game"))
        self._info = game_info(
            start.game,
            f"{start.seed}#{self._game_seq}",
            start.seat,
            start.seed,
            start.players,
            start.options,
        )
        self._info_bytes = game_info_bytes(self._info)

    def _connect_or_die(self, game: str, options: Mapping[str, Any]) -> None:
        try:
            self.connect(game, options)
        except BotStartError as err:
            self.mark_start_failure(err)

    def mark_start_failure(self, err: Exception) -> None:
        """The bot could not start: every decision of this match is a fallback move."""
        self._dead = BotFault(
            "start-failure",
            str(err),
            f"from a bot that listens and completes the handshake within "
            f"{self.settings.startup_timeout} s (startup_timeout)",
            "no bot: " + str(err).splitlines()[0],
        )

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
        assert self._codec is not None
        self._decision_id += 1
        limit = self.settings.move_timeout + self._bank
        data = self._codec.decision_bytes(
            decision.view,
            decision.legal,
            self._decision_id,
            self._info_bytes,
            int(self.settings.move_timeout * 1000),
            int(self._bank * 1000),
        )
        deadline = started + limit
        asked = time.monotonic()
        if self.settings.transport == "unary":
            reply = await self._ask_unary(data, deadline)
        else:
            reply = await self._ask_stream(data, deadline)
        answered = time.monotonic()
        self.wait_seconds += answered - asked
        elapsed = answered - started
        if elapsed > limit:  # answered, but too late: discarded
            self._close_stream()
            raise self._timeout_fault(f"an answer after {elapsed:.3f} s, discarded")
        self._bank -= max(0.0, elapsed - self.settings.move_timeout)
        self.latencies.append(elapsed)
        if reply.decision_id != self._decision_id:
            self._close_stream()
            raise BotFault(
                "protocol",
                f"answered decision {reply.decision_id} when asked decision "
                f"{self._decision_id}: echo DecisionRequest.decision_id in the reply",
                f"in a DecisionReply with decision_id {self._decision_id}",
                f"decision_id {reply.decision_id}, action {_short(reply.action)}",
            )
        try:
            return self._codec.parse_answer(reply.action)
        except IllegalAction:
            raise BotFault(
                "illegal",
                f"answered {_short(reply.action)}, which is not a {self._game.name} "
                f"action; answer one of the request's legal actions",  # fmt: skip
                got=_short(reply.action),
            ) from None

    async def _ask_stream(self, data: bytes, deadline: float) -> pb.DecisionReply:
        """One decision on the game's Play stream: the request and the answer, within
        the decision's deadline (`time.monotonic` is the loop's clock), which one timer
        per bot keeps (arena.bots.deadline)."""
        if self._call is None:
            self._open_stream()
        call = self._call
        clock = self._deadline
        clock.start(deadline)
        try:
            try:
                await _write(call, wrap_decision(data))
                answer = await call.read()  # raises the status of a call the bot ended
            finally:
                expired = clock.finish()
        except asyncio.CancelledError:
            if not expired:
                raise  # the referee itself is being cancelled
            self._close_stream()
            raise self._timeout_fault() from None
        except grpc.RpcError as err:
            self._close_stream()
            raise await self._fault_from(err, deadline) from None
        if answer is grpc.aio.EOF:
            self._call = None
            raise BotFault(
                "protocol",
                "closed the Play stream instead of answering the decision",
                "in a DecisionReply on the open Play stream",
                "the end of the stream",
            )
        return self._parse_reply(answer)

    async def _ask_unary(self, data: bytes, deadline: float) -> pb.DecisionReply:
        try:
            answer = await self._stub_decide(data, timeout=max(0.001, deadline - time.monotonic()))
        except grpc.RpcError as err:
            raise await self._fault_from(err, deadline) from None
        return self._parse_reply(answer)

    def _parse_reply(self, answer: bytes) -> pb.DecisionReply:
        """The bot's answer bytes as a DecisionReply. They are parsed here rather than
        by gRPC so that a fault can show what came back."""
        try:
            return pb.DecisionReply.FromString(answer)
        except DecodeError as err:
            self._close_stream()
            raise BotFault(
                "protocol",
                f"answered {len(answer)} bytes that are not a DecisionReply ({err})",
                "in a DecisionReply message",
                f"{len(answer)} bytes: {answer[:80]!r}",
            ) from None

    def _open_stream(self) -> None:
        game_seconds = MAX_DECISIONS_PER_GAME * (self.settings.move_timeout + 0.05)
        self._call = self._stub_play(timeout=game_seconds + self.settings.time_bank)

    def _close_stream(self) -> None:
        if self._call is not None:
            self._call.cancel()
        self._call = None

    def _timeout_fault(self, got: str = "") -> BotFault:
        """The decision's time is up: no answer (the call cancelled), or `got` late."""
        limit = self.settings.move_timeout + self._bank
        return BotFault(
            "timeout",
            self._timeout_detail(limit),
            self._within(limit),
            got or f"no answer; the call was cancelled after {limit:.3f} s",
        )

    async def _fault_from(self, err: grpc.RpcError, deadline: float) -> BotFault:
        """The named fault of a failed call (README "Faults")."""
        code = err.code() if hasattr(err, "code") else None
        status = f"{code.name if code else '?'}: {_rpc_text(err)}"
        # A bot can end a call with any status it likes, so a status alone proves
        # nothing: a timeout is one only when the time is up, an oversize only when
        # gRPC's own size check on this side (the "CLIENT:" text) refused the message.
        if time.monotonic() >= deadline - _CLOCK_SLACK:
            return self._timeout_fault()
        if code == grpc.StatusCode.RESOURCE_EXHAUSTED and _GRPC_TOO_LARGE in _rpc_text(err):
            return BotFault(
                "oversize",
                f"sent a message over the {MAX_REPLY_BYTES // 1024} KiB limit ({_rpc_text(err)})",
                f"in a DecisionReply of at most {MAX_REPLY_BYTES // 1024} KiB",
                status,
            )
        if code == grpc.StatusCode.UNAVAILABLE or (
            self.process is not None and not self.process.alive()
        ):
            return await self._crashed(_rpc_text(err))
        if code == grpc.StatusCode.UNKNOWN:
            return BotFault(
                "crash",
                f"the bot failed this decision: {_rpc_text(err)}",
                "from the bot's Decide/Play handler",
                status,
            )
        return BotFault(
            "protocol",
            f"ended the call with the status {status} instead of answering",
            "in a DecisionReply message",
            status,
        )

    def _within(self, limit: float) -> str:
        return f"within {limit:.3f} s (move_timeout" + (
            " + time bank)" if self.settings.time_bank else ")"
        )

    def _timeout_detail(self, limit: float) -> str:
        return (
            f"no answer within {limit:.3f} s (move_timeout {self.settings.move_timeout} s"
            + (f" + time bank {self._bank:.3f} s" if self.settings.time_bank else "")
            + "); a late answer is discarded"
        )

    async def _crashed(self, why: str) -> BotFault:
        """The bot went away: restart it once per game, then give up for the game."""
        if self.process is None:
            return BotFault(
                "crash", f"the bot at {self.address} went away ({why})", FROM_A_LIVE_BOT, why
            )
        self.process.wait_exit(0.5)  # the connection drops a moment before the exit status
        exit_text = self.process.exit_description()
        detail = f"the bot process {exit_text} ({why}); log: {self.log_path}"
        await self._restart(detail)
        return BotFault("crash", detail, FROM_A_LIVE_BOT, f"the bot process {exit_text}")

    async def _restart(self, why: str) -> None:
        self._close_stream()
        if self.process is None or self._restarts >= 1:
            self._dead = BotFault(
                "crash", f"{why}; already restarted once in this game", FROM_A_LIVE_BOT,
                "no bot: it went away again after its restart in this game",
            )  # fmt: skip
            return
        self._restarts += 1
        try:
            assert self._game is not None
            self.process.start()
            await self._connect(self._game.name, self._options)
        except BotStartError as err:
            self._dead = BotFault(
                "crash", f"{why}; the restart failed: {err}", FROM_A_LIVE_BOT,
                "no bot: the restart failed: " + str(err).splitlines()[0],
            )  # fmt: skip

    # -- notices and the end ------------------------------------------------------------

    def end_deal(self, seat: int, deal: Mapping[str, Any]) -> None:
        """Queued, and sent ahead of the bot's next message (the referee does not wait)."""
        if self._dead is not None or self._info is None or self._codec is None:
            return
        body = self._codec.deal_end_bytes(self._info.SerializeToString(), deal)
        self._notices.append((_MSG_DEAL_END, body))

    def end_game(self, seat: int, replay: Mapping[str, Any]) -> None:
        if self._dead is None and self._info is not None:
            end = pb.GameEnd(game=self._info, totals=replay["totals"], ranks=replay["ranks"])
            self._notices.append((_MSG_GAME_END, end.SerializeToString()))
        run(self._end_game())

    async def _end_game(self) -> None:
        """Send the notices waiting, end the game's stream from our side and wait (at most
        move_timeout) for the bot to end its side, so that it has read every notice before
        its match ends. A bot that fails here has nothing left to be charged with."""
        try:
            async with asyncio.timeout(self.settings.move_timeout):
                await self._send_notices()
                call, self._call = self._call, None
                if call is not None:
                    await call.done_writing()
                    while await call.read() is not grpc.aio.EOF:
                        pass  # a well-behaved bot sends nothing more
        except (TimeoutError, grpc.RpcError):
            self._notices.clear()
        self._close_stream()

    async def _send_notices(self) -> None:
        """The notices waiting: on the game's stream, or each in a short unary call; each
        within move_timeout. A bot that does not take one is not charged: it is dropped
        (with the stream, which the next decision opens anew)."""
        limit = self.settings.move_timeout
        while self._notices:
            number, body = self._notices.pop(0)
            if self.settings.transport == "stream":
                if self._call is None:
                    self._open_stream()
                try:
                    async with asyncio.timeout(limit):
                        await _write(self._call, field(number, body))
                except (TimeoutError, grpc.RpcError):
                    self._close_stream()
            else:
                with contextlib.suppress(grpc.RpcError):
                    await self._stub_notify(field(number - 1, body), timeout=limit)

    def close(self) -> None:
        """End the stream, the channel, and (if the referee started it) the bot."""
        self._close_stream()
        self._deadline.close()
        if self._channel is not None and not loop_busy():
            with contextlib.suppress(Exception):
                run(self._channel.close())
        self._channel = None
        if self.process is not None:
            self.process.close()


async def _write(call: Any, message: bytes) -> None:
    """Write on a stream; nothing when the call has already ended (its next read
    raises the status the bot ended it with)."""
    with contextlib.suppress(asyncio.InvalidStateError):
        await call.write(message)


def _rpc_text(err: grpc.RpcError) -> str:
    details = err.details() if hasattr(err, "details") else str(err)
    return (details or str(err))[:300]


def _short(action: pb.Action) -> str:
    text = str(action).replace("\n", " ").strip()
    return (text[:120] + "...") if len(text) > 120 else (text or "an empty action")


def _log_tail(path: Path, lines: int = 15) -> str:
    try:
        data = path.read_bytes()[-4000:]
    except OSError:
        return ""
    tail = data.decode(errors="replace").splitlines()[-lines:]
    return "\n".join(printable(line, 300) for line in tail)


def printable(text: str, limit: int) -> str:
    """A bot's text made safe for a terminal, a table and a log line: control characters
    (escape sequences, carriage returns, newlines) become `?`, and it is cut at `limit`
    characters. A bot chooses its name and its log; without this it could clear the
    organiser's screen or forge lines of the referee's output."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in text[: limit + 1])
    return truncate(clean.strip(), limit)
