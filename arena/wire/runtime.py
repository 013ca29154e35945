"""gRPC core's I/O path for every process of the arena: set before grpc is imported.

gRPC core reads `GRPC_EXPERIMENTS` once, when the `grpc` module loads. Its newer
EventEngine client and listener cost this project's traffic (one small message each
way per decision, over a unix socket) about a quarter more CPU on each side and add
thread hand-offs to every message. Measured here with grpcio 1.85, an echo over a
Play-style stream: 380-395 us round trip and about 300 us of CPU on each side with the
defaults; 230-290 us and 195-230 us with the EventEngine client and listener off
(gRPC's long-standing iomgr path). A league is CPU-bound, so that is games per minute.

Tried here without a measurable gain (each against the same echo, client and server
CPU per message): GRPC_POLL_STRATEGY=poll; also turning off event_engine_callback_cq,
event_engine_fork or event_engine_for_all_other_endpoints; pollset_alternative,
tcp_rcv_lowat, ph2_client/ph2_server, the optimization_0N experiments; the channel
options grpc.enable_retries=0, grpc.minimal_stack=1 and grpc.http2.bdp_probe=0; and
pinning client and server to one core (slower) or to one each (within the noise).

`arena/__init__.py` calls `choose()`, so any import of the arena (the referee, the
SDK inside a bot, even in the sandbox whose environment is cleared) comes first.
A value the user has set is kept: `GRPC_EXPERIMENTS=` (empty) restores gRPC's own
defaults. Bots started by the referee are given the referee's value (arena/bots/process.py
passes it into the sandbox too); it is harmless to bots not built on gRPC core (such as
@grpc/grpc-js).
"""

from __future__ import annotations

import os

VARIABLE = "GRPC_EXPERIMENTS"
ARENA_DEFAULT = "-event_engine_client,-event_engine_listener"


def choose() -> None:
    """Put the arena's default in the environment unless one is set already."""
    os.environ.setdefault(VARIABLE, ARENA_DEFAULT)
