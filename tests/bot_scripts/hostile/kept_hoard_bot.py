"""Forks children that each hold private memory (argv[1] MB each, argv[2] of them) and
keeps them for its whole life, so that an entrant's rotation slots, and several such
entrants at once, hold more together than each slot's limit lets one slot hold. At
every later decision it checks its children, and fails the decision when a limit ended
one (expected fault: a crash that names a memory limit, charged to this bot alone).

Each of its processes is larger than a calm bot's (a child holds the interpreter's
pages as well as its share), so a limit reached by all the bots of a run ends one of
the hoarders' processes, never a calm bot's."""

import mmap
import os
import select
import sys
import time

from _common import AT, reply, report, start_raw_server, touch

from arena.wire.v1 import bot_pb2 as pb

SIZE_MB = int(sys.argv[1])
CHILDREN = int(sys.argv[2]) if len(sys.argv) > 2 else 2
kept: list[int] = []


def hold_forever() -> mmap.mmap:
    """The child: hold SIZE_MB of private memory, say so, and wait to be ended."""
    size = SIZE_MB << 20
    held = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    touch(held, size)
    return held


def hoard() -> None:
    """Fork the children; raise when one was ended before it held its share."""
    for _ in range(CHILDREN):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(read)
                held = hold_forever()
                os.write(write, b"1")
                while held is not None:
                    time.sleep(3600)
            finally:
                os._exit(0)
        os.close(write)
        kept.append(pid)
        ready, _, _ = select.select([read], [], [], 15)
        done = bool(ready) and os.read(read, 1) == b"1"
        os.close(read)
        if not done:
            report(f"hoard: child {len(kept)} of {CHILDREN} was ended before it held its share")
            raise MemoryError("a child was ended before it held its share")
    report(f"hoard kept {CHILDREN * SIZE_MB} MB in {CHILDREN} children")


def check() -> None:
    """Raise when a kept child is gone (a memory limit ended it)."""
    for pid in kept:
        try:
            ended = os.waitpid(pid, os.WNOHANG)[0]
        except ChildProcessError:  # reaped at an earlier check
            ended = pid
        if ended:
            report("hoard: a kept child was ended")
            raise MemoryError("a kept child was ended")


def answer(request: pb.DecisionRequest) -> bytes:
    check()
    if request.decision_id == AT and not kept:
        hoard()
    return reply(request)


def hello(data: bytes, context) -> bytes:
    request = pb.HelloRequest.FromString(data)
    return pb.HelloReply(
        name="kept_hoard_bot", version="hostile", protocol_version=request.protocol_version
    ).SerializeToString()


def decide(data: bytes, context) -> bytes:
    return answer(pb.DecisionRequest.FromString(data))


def play(requests, context):
    for data in requests:
        message = pb.RefereeMessage.FromString(data)
        if message.WhichOneof("body") == "decision":
            yield answer(message.decision)


server = start_raw_server(hello, decide, play, lambda data, context: b"")
while server is not None:  # held: a collected server stops serving
    time.sleep(3600)
