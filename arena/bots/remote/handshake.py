"""Start-up of an external bot, in one place: wait for it to listen, open the channel,
shake hands. Every way that fails is a `BotStartError` whose message says what went
wrong, where, within which limit, and (for a bot the referee started) its exit and
the last lines of its log.

The same path serves a bot's first start, a restart after a crash, and a bot that is
already running (`grpc:`), which is greeted anew for every match and seat: a bot must
answer every Hello as if it were the first.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from arena.bots.process import BotProcess, wait_for_socket
from arena.bots.remote.channel import BotMethods, bot_methods, open_channel, rpc_text
from arena.errors import ArenaError
from arena.games.base import Game
from arena.play.faults import FaultKind, truncate
from arena.wire.codec import options_text
from arena.wire.protocol import PROTOCOL_VERSION
from arena.wire.v1 import bot_pb2 as pb

NAME_LIMIT = 64  # characters kept of a bot's name and version from the handshake


class BotStartError(ArenaError):
    """A bot could not be started or refused the handshake; the message says why."""

    kind = FaultKind.START_FAILURE


@dataclass
class Connection:
    """A bot that has shaken hands: its channel and what its HelloReply said."""

    channel: grpc.aio.Channel
    methods: BotMethods
    address: str
    name: str
    version: str
    notices: bool  # HelloReply.notices: send it DealEnd and GameEnd


async def connect(
    spec: str,
    address: str,
    process: BotProcess | None,
    game: Game,
    options: Mapping[str, Any],
    startup_timeout: float,
) -> Connection:
    """Wait for the bot (started already, if `process`) to listen, then shake hands,
    all within `startup_timeout`; BotStartError says what failed."""
    deadline = time.monotonic() + startup_timeout

    def problem(what: str) -> str:  # `address` as it is when the problem is found
        return start_problem(spec, address, process, startup_timeout, what)

    if process is not None:
        if not wait_for_socket(process.socket_path, process, startup_timeout):
            raise BotStartError(problem("did not start listening"))
        try:
            address = process.ready_address()
        except (OSError, ValueError) as err:
            raise BotStartError(problem(f"offered an untrusted socket ({err})")) from None
    channel = open_channel(address)
    methods = bot_methods(channel)
    try:
        reply = await _hello(channel, methods, game, options, deadline, spec, problem)
    except BaseException:
        await channel.close()
        raise
    return Connection(
        channel,
        methods,
        address,
        printable(reply.name, NAME_LIMIT) or spec,
        printable(reply.version, NAME_LIMIT),
        reply.notices,
    )


async def _hello(
    channel: grpc.aio.Channel,
    methods: BotMethods,
    game: Game,
    options: Mapping[str, Any],
    deadline: float,
    spec: str,
    problem: Callable[[str], str],
) -> pb.HelloReply:
    """The Hello call and the checks of its reply."""
    request = pb.HelloRequest(
        protocol_version=PROTOCOL_VERSION,
        game=game.name,
        seats=game.seats,
        options=options_text(options),
    )
    try:
        async with asyncio.timeout_at(max(time.monotonic() + 0.05, deadline)):
            await channel.channel_ready()
        answer = await methods.hello(
            request.SerializeToString(), timeout=max(0.05, deadline - time.monotonic())
        )
        reply = pb.HelloReply.FromString(answer)
    except DecodeError as err:
        raise BotStartError(
            problem(f"failed the handshake (answered bytes that are not a HelloReply: {err})")
        ) from None
    except TimeoutError:
        raise BotStartError(problem("could not be reached")) from None
    except grpc.RpcError as err:
        raise BotStartError(problem(f"failed the handshake ({rpc_text(err)})")) from None
    if reply.error:
        raise BotStartError(f"bot {spec!r} refused to play: {reply.error}")
    if reply.protocol_version != PROTOCOL_VERSION:
        raise BotStartError(
            f"bot {spec!r} speaks arena protocol {reply.protocol_version}, the referee "
            f"speaks {PROTOCOL_VERSION}: rebuild it from protos/arena/v1/bot.proto"
        )
    return reply


def start_problem(
    spec: str, address: str, process: BotProcess | None, startup_timeout: float, what: str
) -> str:
    """What went wrong at start-up, for the fault detail and the CLI's error line."""
    text = f"bot {spec!r} {what} at {address} within {startup_timeout} s (startup_timeout)"
    if process is not None:
        if not process.alive():
            text += f"; it {process.exit_description()}"
        text += f"; its log: {process.log_path}"
        tail = log_tail(process.log_path)
        if tail:
            text += "\n--- last lines of the log ---\n" + tail
    return text


def log_tail(path: Path, lines: int = 15) -> str:
    """The last lines of a bot's log, each made printable."""
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
