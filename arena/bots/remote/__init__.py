"""External bots over gRPC: the referee's side of protos/arena/v1/bot.proto.

`player` (the seat: a game's life cycle and restarts), `handshake` (start-up and
`BotStartError`), `transports` (one class per wire mode), `faults` (what a failure is
charged as), `channel` (the one way to open a channel, and the method paths),
`settings` (a bot's limits; importing it loads no gRPC, so the CLI starts quickly).
"""
