"""The referee's one way to open a channel to a bot, and the bot's methods on it.

Every channel caps what the bot may send (MAX_REPLY_BYTES) and never retries a call.
The method paths come from the generated descriptors (`arena.wire.protocol.METHODS`);
requests and answers travel as bytes, since requests are built by `arena.wire.codec`
and answers are parsed by the player, to say what came back when it is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc

from arena.wire.protocol import MAX_REPLY_BYTES, MAX_REQUEST_BYTES, METHODS

CHANNEL_OPTIONS = (
    ("grpc.max_receive_message_length", MAX_REPLY_BYTES),
    ("grpc.max_send_message_length", MAX_REQUEST_BYTES),
    ("grpc.enable_retries", 0),
)


@dataclass(frozen=True)
class BotMethods:
    """The Bot service's four methods on one channel, bytes in and bytes out."""

    hello: Any
    decide: Any
    play: Any
    notify: Any


def open_channel(address: str) -> grpc.aio.Channel:
    """A channel to the bot at `address`, on this thread's event loop."""
    return grpc.aio.insecure_channel(address, options=list(CHANNEL_OPTIONS))


def bot_methods(channel: grpc.aio.Channel) -> BotMethods:
    return BotMethods(
        hello=channel.unary_unary(METHODS["Hello"]),
        decide=channel.unary_unary(METHODS["Decide"]),
        play=channel.stream_stream(METHODS["Play"]),
        notify=channel.unary_unary(METHODS["Notify"]),
    )


def rpc_text(err: grpc.RpcError) -> str:
    """A failed call's details, short."""
    details = err.details() if hasattr(err, "details") else str(err)
    return (details or str(err))[:300]
