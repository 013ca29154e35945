"""External bots over gRPC: the referee's side of protos/arena/v1/bot.proto.

`player` (the seat: a game's life cycle and restarts), `handshake` (start-up),
`transports` (one class per wire mode), `faults` (what a failure is charged as),
`channel` (the one way to open a channel and the method paths), `settings`.
"""

from arena.bots.remote.handshake import BotStartError
from arena.bots.remote.player import RemotePlayer
from arena.bots.remote.settings import RemoteSettings, TransportKind

__all__ = ["BotStartError", "RemotePlayer", "RemoteSettings", "TransportKind"]
