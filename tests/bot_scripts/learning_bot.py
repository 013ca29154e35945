"""An SDK bot that asks for notices and writes each one as a JSON line to argv[1]."""

import json
import sys

from arena.sdk import Bot, serve


class Learner(Bot):
    name = "learner"

    def act(self, turn):
        return 0

    def on_deal_end(self, deal, game):
        with open(sys.argv[1], "a") as f:
            f.write(json.dumps({"deal_end": deal, "seat": game["seat"]}) + "\n")

    def on_game_end(self, totals, ranks, game):
        with open(sys.argv[1], "a") as f:
            f.write(json.dumps({"game_end": {"totals": totals, "ranks": ranks}}) + "\n")


if __name__ == "__main__":
    serve(Learner())
