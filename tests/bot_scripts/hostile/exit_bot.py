"""Exits mid-game at its decision (expected fault: crash; restarted once)."""

import os

from _common import report, serve


def leave(request):
    report("exiting mid-game")
    os._exit(3)


serve(leave)
