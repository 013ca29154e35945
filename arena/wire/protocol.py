"""The protocol's constants, read from the generated code wherever it holds them.

Method paths, the protocol version and message field numbers come from the descriptors
protoc generated from protos/arena/v1/bot.proto, so the hand-written parts of the wire
(the byte encoder in `codec`, the referee's calls, the benchmarks) cannot drift from
the contract. The limits below are rules of the protocol that the proto cannot state.
"""

from __future__ import annotations

from typing import Any

from arena.wire.v1 import bot_pb2 as pb

PROTOCOL_VERSION: int = pb.PROTOCOL_VERSION_CURRENT
ADDRESS_VARIABLE = "ARENA_BOT_ADDRESS"  # where a started bot must listen
MAX_REPLY_BYTES = 64 * 1024  # every message a bot sends; a DecisionReply is a few dozen bytes
MAX_REQUEST_BYTES = 1 << 20  # every message the referee sends

SERVICE = pb.DESCRIPTOR.services_by_name["Bot"]
METHODS: dict[str, str] = {m.name: f"/{SERVICE.full_name}/{m.name}" for m in SERVICE.methods}
"""The gRPC path of every method by name, e.g. METHODS["Decide"] == "/arena.v1.Bot/Decide"."""


def field_number(message: Any, name: str) -> int:
    """The field number of `message`'s field `name` (KeyError if there is none)."""
    return message.DESCRIPTOR.fields_by_name[name].number
