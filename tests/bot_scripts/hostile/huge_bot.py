"""Answers with an 8 MB message (expected fault: oversize)."""

from _common import reply, serve

from arena.wire.v1 import bot_pb2 as pb

serve(lambda request: reply(request, pb.Action(type="play", card="x" * (8 << 20))))
