"""Answers with a card nobody may play (expected fault: illegal)."""

from _common import reply, serve

from arena.wire.v1 import bot_pb2 as pb

serve(lambda request: reply(request, pb.Action(type="play", card="ZZ")))
