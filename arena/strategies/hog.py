"""A CPU hog that plays: the bot `arena bench fairness` puts among calm bots.

    python -m arena.strategies.hog [--seconds S]

At its start it forks a child per core into a session of its own, each spinning with
two threads as well, for S seconds (default 600, bounded), and it spins a thread of its
own; it answers every decision with the first legal action. Without a limit per bot it
takes every core of the machine; with its cgroup (docs/sandbox.md) it has its quota and
its weight, no more. It is not a bot to learn from: it is the neighbour to measure
against.
"""

from __future__ import annotations

import argparse
import os
import threading
import time

from arena.sdk import Bot, serve


def _spin(end: float) -> None:
    while time.monotonic() < end:
        pass


def start_spinning(seconds: float) -> None:
    """Children in sessions of their own (two threads each, and the child itself), and
    a thread here, all spinning until `seconds` from now."""
    end = time.monotonic() + seconds
    for _ in range(os.cpu_count() or 1):
        if os.fork() == 0:
            os.setsid()
            for _ in range(2):
                threading.Thread(target=_spin, args=(end,), daemon=True).start()
            _spin(end)
            os._exit(0)
    threading.Thread(target=_spin, args=(end,), daemon=True).start()


class HogBot(Bot):
    name = "hog"
    games = ("trix", "trianon")

    def act(self, turn):
        return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0)
    args = parser.parse_args()
    start_spinning(min(max(args.seconds, 0.0), 3600.0))
    serve(HogBot())


if __name__ == "__main__":
    main()
