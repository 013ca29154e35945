"""A bot that thinks SECONDS on every decision, then plays the first legal action.

    python tests/bots/thinker_bot.py SECONDS

It writes `asked N` to its log at each decision, for tests of the per-game budget
(`game_time`): a bot that uses most of move_timeout on every decision.
"""

import sys
import time

from arena.sdk import Bot, serve

SECONDS = float(sys.argv[1])


class Thinker(Bot):
    name = "thinker"
    games = ("trix", "trianon")

    def __init__(self) -> None:
        self.asked = 0

    def act(self, turn):
        self.asked += 1
        print(f"asked {self.asked}", flush=True)
        time.sleep(SECONDS)
        return 0


if __name__ == "__main__":
    serve(Thinker())
