"""How decisions and notices travel to one external bot: one class per wire mode.

Like python-chess's one class per engine protocol, the player speaks to a `Transport`
and never to gRPC's calls directly. `StreamTransport` (the default) keeps one
bidirectional `Play` stream per game, a message each way per decision, the cheapest
round trip gRPC offers from Python; `UnaryTransport` makes one `Decide` call per
decision, whose gRPC deadline is the decision's. Both run on grpc.aio, on the referee
thread's event loop (`arena.wire.loop`).

A transport only carries bytes and reports how an exchange ended: an answer, the time
running out (`AnswerTimeout`), the bot closing the stream (`StreamEnded`), or the
status the call ended with (`grpc.RpcError`). What that is charged as is decided in
`arena.bots.remote.faults`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from abc import ABC, abstractmethod
from typing import Any

import grpc

from arena.bots.deadline import DecisionDeadline
from arena.bots.remote.channel import BotMethods
from arena.bots.remote.settings import RemoteSettings, TransportKind
from arena.wire.codec import field, wrap_decision
from arena.wire.protocol import field_number
from arena.wire.v1 import bot_pb2 as pb

MAX_DECISIONS_PER_GAME = 2000  # bounds the stream's own gRPC deadline
NOTICES = ("deal_end", "game_end")  # the two notices, by their field names


class AnswerTimeout(Exception):
    """The decision's deadline passed before the bot answered (the call is cancelled)."""


class StreamEnded(Exception):
    """The bot closed the Play stream instead of answering."""


class Transport(ABC):
    """One bot's decisions and notices on one channel."""

    kind: TransportKind

    def __init__(self, methods: BotMethods, settings: RemoteSettings) -> None:
        self.methods = methods
        self.settings = settings

    @abstractmethod
    async def ask(self, request: bytes, deadline: float) -> bytes:
        """Send one DecisionRequest (bytes) and return the answer's bytes, by `deadline`
        (`time.monotonic`, the event loop's clock)."""

    @abstractmethod
    async def notify(self, notice: str, body: bytes) -> None:
        """Send a notice ("deal_end" or "game_end", its message's bytes) within
        move_timeout; a bot that does not take it is not charged: it is dropped."""

    @abstractmethod
    async def finish_game(self) -> None:
        """The game is over: end what this transport holds open for it."""

    @abstractmethod
    def abandon(self) -> None:
        """Give up the exchange under way (after a fault): nothing of it is read again."""

    def close(self) -> None:
        """The bot is done with."""
        self.abandon()


class StreamTransport(Transport):
    """One Play stream per game. Each decision has its own deadline, kept by one timer
    per bot (`arena.bots.deadline`); when a bot overruns it the stream is cancelled and
    the next decision opens a new one (every request is complete in itself, so a bot
    needs no state across streams). Notices go on the stream, ahead of the next
    message."""

    kind = TransportKind.STREAM
    _FIELDS = {name: field_number(pb.RefereeMessage, name) for name in NOTICES}

    def __init__(self, methods: BotMethods, settings: RemoteSettings) -> None:
        super().__init__(methods, settings)
        self._call: Any = None  # the game's open Play stream, if any
        self._deadline = DecisionDeadline()

    def _open(self) -> Any:
        seconds = MAX_DECISIONS_PER_GAME * (self.settings.move_timeout + 0.05)
        self._call = self.methods.play(timeout=seconds + self.settings.time_bank)
        return self._call

    async def ask(self, request: bytes, deadline: float) -> bytes:
        call = self._call or self._open()
        clock = self._deadline
        clock.start(deadline)
        try:
            try:
                await _write(call, wrap_decision(request))
                answer = await call.read()  # raises the status of a call the bot ended
            finally:
                expired = clock.finish()
        except asyncio.CancelledError:
            if not expired:
                raise  # the referee itself is being cancelled
            raise AnswerTimeout from None
        if answer is grpc.aio.EOF:
            self._call = None
            raise StreamEnded
        return answer

    async def notify(self, notice: str, body: bytes) -> None:
        call = self._call or self._open()
        try:
            async with asyncio.timeout(self.settings.move_timeout):
                await _write(call, field(self._FIELDS[notice], body))
        except (TimeoutError, grpc.RpcError):
            self.abandon()

    async def finish_game(self) -> None:
        """End the game's stream from our side and wait for the bot to end its side, so
        that it has read every notice before its match ends."""
        call, self._call = self._call, None
        if call is not None:
            await call.done_writing()
            while await call.read() is not grpc.aio.EOF:
                pass  # a well-behaved bot sends nothing more

    def abandon(self) -> None:
        if self._call is not None:
            self._call.cancel()
        self._call = None

    def close(self) -> None:
        self.abandon()
        self._deadline.close()


class UnaryTransport(Transport):
    """One Decide call per decision, its gRPC deadline the decision's; a notice is one
    short Notify call."""

    kind = TransportKind.UNARY
    _FIELDS = {name: field_number(pb.Notice, name) for name in NOTICES}

    async def ask(self, request: bytes, deadline: float) -> bytes:
        return await self.methods.decide(request, timeout=max(0.001, deadline - time.monotonic()))

    async def notify(self, notice: str, body: bytes) -> None:
        with contextlib.suppress(grpc.RpcError):
            await self.methods.notify(
                field(self._FIELDS[notice], body), timeout=self.settings.move_timeout
            )

    async def finish_game(self) -> None:
        """Nothing is held open between unary calls."""

    def abandon(self) -> None:
        """A unary call that failed has ended already."""


TRANSPORTS: dict[TransportKind, type[Transport]] = {
    TransportKind.STREAM: StreamTransport,
    TransportKind.UNARY: UnaryTransport,
}


def make_transport(methods: BotMethods, settings: RemoteSettings) -> Transport:
    return TRANSPORTS[settings.transport](methods, settings)


async def _write(call: Any, message: bytes) -> None:
    """Write on a stream; nothing when the call has already ended (its next read
    raises the status the bot ended it with)."""
    with contextlib.suppress(asyncio.InvalidStateError):
        await call.write(message)
