"""A seed guesser: it knows everything public about its league and tries to find the
game seed, and so every hand, from the documented deal function.

    python tests/bot_scripts/hostile/seed_guess_bot.py LEAGUE_SEED

Match i of a league used to be dealt from the public seed `LEAGUE_SEED/i`, and the
seed a bot is given was a hash of that: at its first decision of each game the bot tries
the first 200 public seeds, compares both what it was given (the bot seed) and what it
holds (its hand, dealt by the engine from the candidate) and reports `seed: recovered`
with the seed, or `seed: not recovered`. A bot that recovers it knows every hand.
"""

from __future__ import annotations

import sys

from _common import report

from arena.games import get_game
from arena.play.referee import bot_seed
from arena.sdk import Bot, serve

LEAGUE_SEED = sys.argv[1]
TRIED = 200


class SeedGuesser(Bot):
    name = "seed-guesser"
    games = ("trix", "trianon")

    def __init__(self) -> None:
        self.tried_for: str | None = None

    def act(self, turn):
        info = turn.game
        if self.tried_for != info["game_id"]:
            self.tried_for = info["game_id"]
            report(self.guess(info, turn.view))
        return 0

    def guess(self, info, view) -> str:
        game = get_game(info["game"])
        options = game.parse_options(info["options"])
        hand = sorted(view["hand"])
        for i in range(TRIED):
            candidate = f"{LEAGUE_SEED}/{i}"
            if bot_seed(candidate) == info["seed"]:
                return f"seed: recovered {candidate} (from the bot seed)"
            dealt = game.deal_record(game.new_game(candidate, options), 0)["hands"]
            if sorted(dealt[info["seat"]]) == hand:
                return f"seed: recovered {candidate} (from the hand)"
        return "seed: not recovered"


if __name__ == "__main__":
    serve(SeedGuesser())
