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

gRPC core also writes its own log lines to stderr (`I1201 ... fork_posix.cc:71] Other
threads are currently calling into gRPC, skipping fork() handlers`, `E... add_port.cc`),
which would land among the arena's output on the user's terminal. `choose()` sets
`GRPC_VERBOSITY=NONE` unless the user set one (measured with grpcio 1.85: `ERROR`
still lets gRPC's error lines through, `NONE` none of them; gRPC's complaint about an
unknown `GRPC_EXPERIMENTS` name comes before it reads the verbosity, so it still
shows). `GRPC_VERBOSITY=INFO` (or `DEBUG`, `ERROR`) shows them again. A bot's output
goes to its log, not the terminal, so a bot the referee starts is given the user's
level or `ERROR` (`bot_verbosity`): a failed bind or a broken channel stays in the
log, where a start failure's message quotes it.
"""

from __future__ import annotations

import os

VARIABLE = "GRPC_EXPERIMENTS"
ARENA_DEFAULT = "-event_engine_client,-event_engine_listener"

VERBOSITY = "GRPC_VERBOSITY"
QUIET = "NONE"  # what the arena's own processes use when the user set no level
BOT_VERBOSITY = "ERROR"  # what started bots use when the user set no level
QUIETED = "ARENA_GRPC_QUIETED"  # "1": GRPC_VERBOSITY is the arena's QUIET, not the user's


def choose() -> None:
    """Put the arena's defaults in the environment unless the user set them: the I/O
    path, and gRPC core's log lines off. Processes the arena starts (workers, bots)
    inherit the environment; `QUIETED` tells them the level is the arena's, so a bot
    is given `BOT_VERBOSITY` rather than silence."""
    os.environ.setdefault(VARIABLE, ARENA_DEFAULT)
    if VERBOSITY not in os.environ:
        os.environ[VERBOSITY] = QUIET
        os.environ[QUIETED] = "1"
    elif os.environ[VERBOSITY] != QUIET:
        os.environ.pop(QUIETED, None)  # set anew by whoever started this process


def bot_verbosity() -> str:
    """GRPC_VERBOSITY for a bot the referee starts: the user's, or `ERROR` when the
    user set none."""
    if os.environ.get(QUIETED) == "1":
        return BOT_VERBOSITY
    return os.environ.get(VERBOSITY) or BOT_VERBOSITY
