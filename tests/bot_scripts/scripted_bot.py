"""A test bot that plays the first legal action, and misbehaves once when told to.

    python tests/bot_scripts/scripted_bot.py --fault KIND [--at N] [--name NAME] [--record FILE]

KIND is one of: none, timeout (answers 2 s late), slow (answers 0.7 s late), flood
(writes 4 MiB to stdout), illegal (answers a card nobody may
play), garbage (answers bytes that are not a DecisionReply), exit (the process exits),
oversize (a 2 MB answer), wrong-id (echoes another decision_id), always-illegal (every
answer illegal), refuse (refuses the handshake), silent (never listens), spawn (starts
a double-forked grandchild that sleeps and writes its pid to --pidfile, to test that
it is ended with the match). Faults of the handshake and notices: hello-hang (Hello
never answers), hello-garbage (Hello answers bytes that are not a HelloReply),
hello-oversize (a 2 MB HelloReply), old-protocol (speaks protocol version 99),
no-grpc (listens on the socket but answers every connection with garbage, not gRPC),
notify-hang (asks for notices, then never acknowledges one nor ends its Play stream).
lie-timeout and lie-oversize end the call at once with the status DEADLINE_EXCEEDED or
RESOURCE_EXHAUSTED, as if the referee's deadline or size limit had struck.
The fault happens at the decision whose decision_id is N (default 3): decision ids run
on through a restart, so a restarted bot does not fault again. With --record, every
request's raw bytes are appended to FILE (length-prefixed) for tests to inspect.

It serves raw bytes (identity serializers) so that it can send what a real SDK would
never send.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import struct
import subprocess
import sys
import threading
import time
from concurrent import futures

import grpc

from arena.wire.v1 import bot_pb2 as pb

parser = argparse.ArgumentParser()
parser.add_argument("--fault", default="none")
parser.add_argument("--at", type=int, default=3)
parser.add_argument("--name", default="scripted")
parser.add_argument("--record", default="")
parser.add_argument("--pidfile", default="")
args = parser.parse_args()
if args.fault == "spawn" and not args.pidfile:
    parser.error("--fault spawn needs --pidfile")


# A double fork by the shell (fast, so the answer stays in time): the backgrounded
# `setsid` child outlives the `sh` that started it and writes its own pid.
SPAWN = 'setsid sh -c \'echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 600\' "$1" &'


def record(data: bytes) -> None:
    if args.record:
        with open(args.record, "ab") as f:
            f.write(struct.pack(">I", len(data)) + data)


LYING_STATUSES = {
    "lie-timeout": grpc.StatusCode.DEADLINE_EXCEEDED,
    "lie-oversize": grpc.StatusCode.RESOURCE_EXHAUSTED,
}


def answer(request: pb.DecisionRequest, context) -> bytes:
    fault = args.fault
    hit = request.decision_id == args.at
    action = request.legal[0]
    reply_id = request.decision_id
    if fault == "always-illegal" or (fault == "illegal" and hit):
        action = pb.Action(type="play", card="ZZ")
    elif hit and fault == "timeout":
        time.sleep(2.0)
    elif hit and fault == "garbage":
        return b"\xff\xfe\xfd not a protobuf message"
    elif hit and fault == "exit":
        sys.stderr.write("scripted bot: exiting on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    elif hit and fault == "oversize":
        return pb.DecisionReply(
            decision_id=reply_id, action=pb.Action(type="play", card="x" * (2 << 20))
        ).SerializeToString()
    elif hit and fault == "wrong-id":
        reply_id += 1000
    elif hit and fault == "flood":
        chunk = "x" * 65535 + "\n"
        for _ in range(64):  # 4 MiB of output, more than the referee keeps
            sys.stdout.write(chunk)
        sys.stdout.flush()
    elif hit and fault in LYING_STATUSES:
        context.abort(LYING_STATUSES[fault], "made up by the bot")
    elif hit and fault == "slow":
        time.sleep(0.7)
    elif hit and fault == "spawn":
        # A separate program double-forks: forking this gRPC process can hang the child.
        subprocess.run(["sh", "-c", SPAWN, "sh", args.pidfile], timeout=10)
        sys.stderr.write("scripted bot: spawned a grandchild\n")
        sys.stderr.flush()
        for _ in range(500):  # answer once the grandchild is surely there (bounded)
            if os.path.exists(args.pidfile):
                break
            time.sleep(0.01)
    return pb.DecisionReply(decision_id=reply_id, action=action).SerializeToString()


def hello(data: bytes, context) -> bytes:
    request = pb.HelloRequest.FromString(data)
    error = "this bot refuses on purpose" if args.fault == "refuse" else ""
    if args.fault == "hello-hang":
        time.sleep(600)
    if args.fault == "hello-garbage":
        return b"\xff\xfe\xfd not a HelloReply"
    return pb.HelloReply(
        name="x" * (2 << 20) if args.fault == "hello-oversize" else args.name,
        version="test",
        protocol_version=99 if args.fault == "old-protocol" else request.protocol_version,
        error=error,
        notices=args.fault == "notify-hang",
    ).SerializeToString()


def decide(data: bytes, context) -> bytes:
    record(data)
    return answer(pb.DecisionRequest.FromString(data), context)


def play(requests, context):
    for data in requests:
        message = pb.RefereeMessage.FromString(data)
        if message.WhichOneof("body") == "decision":
            record(message.decision.SerializeToString())
            yield answer(message.decision, context)
    if args.fault == "notify-hang":
        time.sleep(600)  # never end our side of the stream


def notify(data: bytes, context) -> bytes:
    if args.fault == "notify-hang":
        time.sleep(600)
    return b""


def no_grpc(address: str) -> None:
    """Listen where told, but answer every connection with bytes that are not HTTP/2."""
    import socket

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(address.removeprefix("unix:"))
    server.listen(8)
    while True:
        connection, _ = server.accept()
        with contextlib.suppress(OSError):
            connection.sendall(b"HELLO? this is not gRPC\r\n" * 100)
        connection.close()


def main() -> None:
    if args.fault == "silent":
        time.sleep(600)
        return
    if args.fault == "no-grpc":
        no_grpc(os.environ["ARENA_BOT_ADDRESS"])
        return
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=4),
        options=[("grpc.max_send_message_length", 8 << 20)],
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
    server.add_insecure_port(os.environ["ARENA_BOT_ADDRESS"])
    server.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()


if __name__ == "__main__":
    main()
