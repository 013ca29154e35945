"""Answers correctly but after the move timeout (expected fault: timeout)."""

import time

from _common import reply, serve


def late(request):
    time.sleep(1.5)
    return reply(request)


serve(late)
