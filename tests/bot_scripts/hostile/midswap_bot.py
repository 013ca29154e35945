"""Plays, then at its decision swaps its socket for a link to another bot's socket
(argument 1) and exits, so that the referee's reconnect would reach the other bot
(expected fault: crash; the other bot must never be reached)."""

import os
import sys

from _common import report, serve


def swap(request):
    path = os.environ["ARENA_BOT_ADDRESS"].removeprefix("unix:")
    os.unlink(path)
    os.symlink(sys.argv[1], path)
    report(f"swapped {path} for a link to {sys.argv[1]}")
    os._exit(3)


serve(swap)
