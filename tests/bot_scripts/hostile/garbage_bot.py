"""Answers with bytes that are not a protobuf message (expected fault: protocol)."""

from _common import serve

serve(lambda request: b"\xff\xfe\xfd\xfc not a DecisionReply")
