"""Trix Arena: a referee for card-game bot competitions.

Layers, bottom to top (nothing imports upwards): `cards` and `errors`; the pure game
rules in `arena.games`; the referee that drives a game between players; replays; the CLI.
"""

from arena.wire import runtime as grpc_runtime

grpc_runtime.choose()  # before anything imports grpc: see arena/grpc_runtime.py

__version__ = "0.1.0"
