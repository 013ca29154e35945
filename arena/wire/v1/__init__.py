"""Generated gRPC code for protos/arena/v1/bot.proto (package arena.v1): do not edit.

Regenerate with `make proto`; tests/wire/test_proto_sync.py fails when this folder and the
proto disagree.
"""
