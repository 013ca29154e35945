"""A bot that thinks SECONDS on every decision, then plays the first legal action.

    python tests/bot_scripts/thinker_bot.py SECONDS [--spin] [--first N]

It writes `asked N` to its log at each decision, for tests of the per-game budget
(`game_time`) and the clocks: it sleeps SECONDS (no CPU), or with --spin computes for
them (CPU all the way); with --first N only at its first N decisions.
"""

import sys
import time

from arena.sdk import Bot, serve

SECONDS = float(sys.argv[1])
SPIN = "--spin" in sys.argv[2:]
FIRST = int(sys.argv[sys.argv.index("--first") + 1]) if "--first" in sys.argv else 10**9


class Thinker(Bot):
    name = "thinker"
    games = ("trix", "trianon")

    def __init__(self) -> None:
        self.asked = 0

    def act(self, turn):
        self.asked += 1
        print(f"asked {self.asked}", flush=True)
        if self.asked > FIRST:
            return 0
        if SPIN:
            end = time.thread_time() + SECONDS
            while time.thread_time() < end:
                pass
        else:
            time.sleep(SECONDS)
        return 0


if __name__ == "__main__":
    serve(Thinker())
