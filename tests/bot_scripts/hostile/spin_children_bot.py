"""Spins every core it can: children in sessions of their own, each spinning with two
threads too, for argv[1] seconds (bounded), from its start; then serves and answers."""

import os
import sys
import threading
import time

from _common import report, serve


def spin(end: float) -> None:
    while time.monotonic() < end:
        pass


def spinners(seconds: float) -> None:
    end = time.monotonic() + seconds
    for _ in range(2 * (os.cpu_count() or 1)):
        if os.fork() == 0:
            os.setsid()
            for _ in range(2):
                threading.Thread(target=spin, args=(end,), daemon=True).start()
            spin(end)
            os._exit(0)
    report("spinning")


spinners(float(sys.argv[1]))
serve()
