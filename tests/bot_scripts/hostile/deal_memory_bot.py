"""A deal rememberer: it records every hand it sees and says when one comes back.

    python tests/bot_scripts/hostile/deal_memory_bot.py

In a seat-rotated match every rotation deals the same cards, and the hands are shown to
every seat at the end of each deal (rules/trix.md T-8.2): a process that played one
rotation would know every hand of the next, worth 166 points a game to a bot that used
it. This one logs a line per hand it sees, with its process's own mark and the game
(`hand PROCESS GAME CARDS`): its own hand at its first decision of each game and every
hand of each deal's end notice. A test reads the lines back and checks that no hand
reached one process in two games.
"""

from __future__ import annotations

import secrets

from _common import report

from arena.sdk import Bot, serve

PROCESS = secrets.token_hex(6)


class DealMemory(Bot):
    name = "deal-memory"
    games = ("trix", "trianon")

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}  # hand -> the game it was first seen in
        self.game = ""

    def act(self, turn):
        game = turn.game["game_id"]
        if game != self.game:
            self.game = game
            self.saw(" ".join(sorted(turn.view["hand"])), game)
        return 0

    def on_deal_end(self, deal, game) -> None:
        for hand in deal["hands"]:
            self.saw(" ".join(sorted(hand)), game["game_id"])

    def saw(self, hand: str, game: str) -> None:
        if self.seen.setdefault(hand, game) != game:
            report(f"memory: seen again in {game}, first in {self.seen[hand]}")
        report(f"hand {PROCESS} {game} {hand}")


if __name__ == "__main__":
    serve(DealMemory())
