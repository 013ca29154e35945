"""What every hostile bot shares: a raw-bytes gRPC bot server and a way to report.

A hostile bot plays the first legal action until its decision comes (decision id
`AT`), then does its one bad thing from `on_decision`. Serving raw bytes lets a bot
send what no SDK would. `report` writes a line to the bot's log (its stdout), the only
channel a sandboxed bot has to tell the tests what it managed or failed to do.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from collections.abc import Callable
from concurrent import futures

import grpc

from arena.wire.v1 import bot_pb2 as pb

AT = 3  # the decision id at which a hostile bot misbehaves
Hook = Callable[[pb.DecisionRequest], bytes | None]


def report(text: str) -> None:
    """One line in the bot's log, for the test to read."""
    sys.stdout.write(f"HOSTILE {text}\n")
    sys.stdout.flush()


def reply(request: pb.DecisionRequest, action: pb.Action | None = None) -> bytes:
    chosen = action if action is not None else request.legal[0]
    return pb.DecisionReply(decision_id=request.decision_id, action=chosen).SerializeToString()


def serve(on_decision: Hook | None = None, address: str | None = None) -> None:
    """Serve the arena.v1.Bot service until killed; `on_decision` may answer instead."""

    def answer(request: pb.DecisionRequest) -> bytes:
        if on_decision is not None and request.decision_id == AT:
            custom = on_decision(request)
            if custom is not None:
                return custom
        return reply(request)

    def hello(data: bytes, context) -> bytes:
        request = pb.HelloRequest.FromString(data)
        return pb.HelloReply(
            name=os.path.basename(sys.argv[0]).removesuffix(".py"),
            version="hostile",
            protocol_version=request.protocol_version,
        ).SerializeToString()

    def decide(data: bytes, context) -> bytes:
        return answer(pb.DecisionRequest.FromString(data))

    def play(requests, context):
        for data in requests:
            message = pb.RefereeMessage.FromString(data)
            if message.WhichOneof("body") == "decision":
                yield answer(message.decision)

    server = start_raw_server(hello, decide, play, lambda data, context: b"", address)
    while server is not None:  # held: a collected server stops serving
        time.sleep(3600)


def start_raw_server(hello, decide, play, notify, address: str | None = None) -> grpc.Server:
    """The arena.v1.Bot service from four handlers that take and return raw bytes
    (identity serializers: they see every message exactly as it came)."""
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=4),
        options=[("grpc.max_send_message_length", 64 << 20)],
    )
    handlers = {
        "Hello": grpc.unary_unary_rpc_method_handler(hello),
        "Decide": grpc.unary_unary_rpc_method_handler(decide),
        "Play": grpc.stream_stream_rpc_method_handler(play),
        "Notify": grpc.unary_unary_rpc_method_handler(notify),
    }
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("arena.v1.Bot", handlers),)
    )
    server.add_insecure_port(address or os.environ["ARENA_BOT_ADDRESS"])
    server.start()
    return server


PAGE = 4096


def touch(view, size: int) -> None:
    """Write a byte into every page of a mapping, so that each is really held."""
    for offset in range(0, size, PAGE):
        view[offset] = 1


def hoard(hold: Callable[[int], object], size_mb: int, children: int = 6) -> None:
    """Fork `children` processes that each hold `size_mb` MB the way `hold` does and
    then wait; report how much they held in all; end them; raise when any was ended
    before it held its share (what a limit on the bot as a whole does)."""
    started: list[tuple[int, int]] = []
    for _ in range(children):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: memory only, then wait to be ended
            try:
                os.close(read)
                kept = hold(size_mb << 20)
                os.write(write, b"1")
                time.sleep(60)
                del kept
            finally:
                os._exit(0)
        os.close(write)
        started.append((pid, read))
    held = 0
    for _pid, read in started:
        ready, _, _ = select.select([read], [], [], 15)
        held += bool(ready) and os.read(read, 1) == b"1"
        os.close(read)
    for pid, _read in started:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
    report(f"hoard held {held * size_mb} MB in {held} of {children} children")
    if held < children:
        raise MemoryError(f"{children - held} of {children} children were ended first")
