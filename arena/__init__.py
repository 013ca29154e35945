"""Trix Arena: a referee for card-game bot competitions.

Its folders are its layers, bottom to top: `errors`, `cards`, `games` (pure rules),
`wire` (the protocol), `sdk` (writing a bot), `strategies` (bots the arena ships),
`play` (the referee, matches, replays), `bots` (players: built-in, processes, sandbox,
gRPC), `league`, `bench`, `cli`. Nothing imports a layer above its own
(docs/architecture.md; tests/test_layers.py checks it).
"""

from arena.wire import runtime as grpc_runtime

grpc_runtime.choose()  # before anything imports grpc: see arena/wire/runtime.py

__version__ = "0.1.0"
