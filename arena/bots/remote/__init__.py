"""External bots over gRPC: the referee's side of protos/arena/v1/bot.proto."""
