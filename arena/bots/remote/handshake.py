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
import re
import sys
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
from arena.wire.protocol import ADDRESS_VARIABLE, PROTOCOL_VERSION
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
    *,
    game: Game,
    options: Mapping[str, Any],
    startup_timeout: float,
    since: float | None = None,
) -> Connection:
    """Wait for the bot (started already, if `process`) to listen, then shake hands,
    all within `startup_timeout`; BotStartError says what failed. `since` (a
    `time.monotonic()` before its launch) starts the wait to listen earlier: bots
    launched together wait out one startup_timeout together, not one each in turn."""
    now = time.monotonic()
    deadline = now + startup_timeout
    listen_by = deadline if since is None else min(deadline, since + startup_timeout)

    def problem(what: str) -> str:  # `address` as it is when the problem is found
        return start_problem(spec, address, process, startup_timeout, what)

    if process is not None:
        if not wait_for_socket(process.socket_path, process, max(0.0, listen_by - now)):
            raise BotStartError(not_listening(spec, process, startup_timeout))
        try:
            address = process.ready_address()
        except (OSError, ValueError) as err:
            raise BotStartError(problem(f"offered an untrusted socket ({err})")) from None
    channel = open_channel(address)
    methods = bot_methods(channel)
    try:
        reply = await _hello(
            channel, methods, game, options=options, deadline=deadline, spec=spec, problem=problem
        )
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
    *,
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
    text = f"bot {spec!r} {what} at {address}"
    if process is not None and process.bot_address != address:
        text += f" ({ADDRESS_VARIABLE}={process.bot_address} as the bot saw it)"
    text += f" within {startup_timeout} s (startup_timeout)"
    if process is not None:
        if not process.alive():
            text += f"; it {process.exit_description()}"
        text += _log_part(process)
    return text


def not_listening(spec: str, process: BotProcess, startup_timeout: float) -> str:
    """A started bot whose socket never appeared: it ended first (how, and how soon),
    or it ran the whole startup_timeout without listening where it was told."""
    given = f"{ADDRESS_VARIABLE}={process.bot_address}"
    if process.alive():
        text = (
            f"bot {spec!r} did not listen on ${ADDRESS_VARIABLE} within {startup_timeout} s "
            f"(startup_timeout): it is still running, but nothing listens at {given}, the "
            f"address it was given; a bot must listen on ${ADDRESS_VARIABLE}"
        )
    else:
        text = (
            f"bot {spec!r} {process.end_description()}, before it listened on "
            f"${ADDRESS_VARIABLE} ({given} as the bot saw it)"
        )
    return text + _log_part(process)


def _log_part(process: BotProcess) -> str:
    """The log's path, an explanation of a failure the log shows that has a known
    cause, and the log's last lines."""
    text = f"; its log: {process.log_path}"
    tail = log_tail(process.log_path)
    hint = missing_module_hint(tail)
    if hint:
        text += f"; {hint}"
    if tail:
        text += "\n--- last lines of the log ---\n" + tail
    return text


_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^']+)'")


def missing_module_hint(log: str) -> str:
    """What to do about a Python bot that stopped on an import its interpreter cannot
    make (the last `ModuleNotFoundError` in its log); "" when there is none."""
    found = _MISSING_MODULE.findall(log)
    if not found:
        return ""
    module = found[-1]
    if module.split(".")[0] == "arena":
        return (
            f"its Python cannot import the arena (No module named {module!r}): start a "
            "Python bot as `python FILE` (or `python -m MODULE`), which runs it on the "
            f"arena's own interpreter ({sys.executable}), or install the arena into the "
            "interpreter the bot runs on"
        )
    return (
        f"its Python has no module {module!r}: install it into the interpreter the bot "
        f"runs on (for `python FILE`, the arena's own: {sys.executable} -m pip install ...)"
    )


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
