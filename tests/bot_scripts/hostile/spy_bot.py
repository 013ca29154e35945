"""A spy: a bot that plays legally and keeps the raw bytes of everything it is sent.

    python tests/bot_scripts/hostile/spy_bot.py FILE [--notices]

Every message the referee sends is appended to FILE as it arrived, before any parsing,
with the bot's own answers in between, as records `tag (1 byte) + length (4 bytes, big
endian) + bytes`. Tags: H a HelloRequest, D a DecisionRequest (unary Decide), M a
RefereeMessage (Play stream), N a Notice (unary Notify), A the DecisionReply the spy
sent back. A test decodes the file on its own and checks that no message told the
spy's seat a card it could not know at that moment (docs/rules/trix.md T-8,
docs/rules/trianon.md N-8).

With --notices it asks for end-of-deal and end-of-game notices, so those are checked
too. It answers a legal action chosen at random, seeded by the request itself, so
that its games vary (exposures, bids) and repeat.
"""

from __future__ import annotations

import random
import signal
import struct
import sys
import threading

from _common import start_raw_server

from arena.wire.v1 import bot_pb2 as pb

PATH = sys.argv[1]
NOTICES = "--notices" in sys.argv[2:]
_lock = threading.Lock()


def keep(tag: bytes, data: bytes) -> None:
    with _lock, open(PATH, "ab") as f:
        f.write(tag + struct.pack(">I", len(data)) + data)


def answer(request: pb.DecisionRequest) -> bytes:
    rng = random.Random(f"{request.game.seed}/{request.game.seat}/{request.decision_id}")
    reply = pb.DecisionReply(
        decision_id=request.decision_id, action=rng.choice(list(request.legal))
    ).SerializeToString()
    keep(b"A", reply)
    return reply


def hello(data: bytes, context) -> bytes:
    keep(b"H", data)
    request = pb.HelloRequest.FromString(data)
    return pb.HelloReply(
        name="spy", version="1", protocol_version=request.protocol_version, notices=NOTICES
    ).SerializeToString()


def decide(data: bytes, context) -> bytes:
    keep(b"D", data)
    return answer(pb.DecisionRequest.FromString(data))


def play(requests, context):
    for data in requests:
        keep(b"M", data)
        message = pb.RefereeMessage.FromString(data)
        if message.WhichOneof("body") == "decision":
            yield answer(message.decision)


def notify(data: bytes, context) -> bytes:
    keep(b"N", data)
    return b""


def main() -> None:
    server = start_raw_server(hello, decide, play, notify)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    server.stop(0)


if __name__ == "__main__":
    main()
