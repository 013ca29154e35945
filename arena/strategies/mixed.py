"""The mixed bot, of known strength: the heuristic bot's move with probability P, else a
random one.

    python -m arena.strategies.mixed --p 0.8 [--name NAME]
    python sample_bots/mixed_bot.py --p 0.8 [--name NAME]      (the same bot)
    builtin:mixed:0.8                                          (the same, in process)

A row of these (say P = 0.6, 0.7, 0.8, 0.9) has a true order known in advance, so a
league of them measures how fast a rating tells close bots apart (`arena bench rating`,
which plays `MixedBot` in process through `arena.bots.mixed`). It was called the
ladder bot (`arena.strategies.ladder`, `sample_bots/ladder_bot.py`); those names still
work, saying once that they are deprecated (docs/bots.md).

Every choice comes from the bot seed (GameInfo.seed), the seat and the decision's
number (as the SDK's `turn.rng` does) and also from P. P is mixed in so that two bots
of different P do not draw the same random numbers when they hold the same seat in
different rotations of a match: shared numbers would make their results move together
and flatter the measurement. Everything stays a function of the game, so a league
replays exactly.
Plays Trix and Trianon (the heuristic bot plays both).
"""

from __future__ import annotations

import argparse
import hashlib
import random
from typing import Any

from arena.sdk import Bot, Turn, serve
from arena.strategies.greedy import GreedyBot

DEPRECATION = (
    "deprecated: the ladder bot is now the mixed bot: use python -m arena.strategies.mixed, "
    "sample_bots/mixed_bot.py or builtin:mixed:P (the same games); "
    "arena.strategies.ladder and sample_bots/ladder_bot.py still work for now"
)
"""The one line the old names (`arena.strategies.ladder`, `sample_bots/ladder_bot.py`)
print on stderr when they are loaded."""


class MixedBot(Bot):
    """Greedy with probability `p`, uniformly random over the legal actions otherwise."""

    version = "1.0"
    games = ("trix", "trianon")

    def __init__(self, p: float, name: str | None = None) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be a probability (0 to 1), not {p}")
        self.p = p
        self.name = name or f"mixed-{p:g}"
        self.greedy = GreedyBot()

    def random_choice(self, seed: str, seat: int, decision_id: int, legal: int) -> int | None:
        """The index of the random move to play, or None for the heuristic move: a pure
        function of the bot seed, the seat, the decision's number and p. The text hashed
        keeps the bot's first name, "ladder/": stored leagues replay only while it does."""
        text = f"ladder/{self.p!r}/{seed}/{seat}/{decision_id}".encode()
        rng = random.Random(int.from_bytes(hashlib.sha256(text).digest(), "big"))
        coin, pick = rng.random(), rng.random()
        return None if coin < self.p else int(pick * legal)

    def act(self, turn: Turn) -> Any:
        info = turn.request.game
        index = self.random_choice(info.seed, info.seat, turn.decision_id, len(turn.request.legal))
        return self.greedy.act(turn) if index is None else index


def main(argv: list[str] | None = None) -> None:
    """Serve a `MixedBot` from the command line's `--p` and `--name`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=float, required=True, help="chance of the heuristic move")
    parser.add_argument("--name", default=None, help="the bot's name (default mixed-P)")
    args = parser.parse_args(argv)
    try:
        bot = MixedBot(args.p, args.name)
    except ValueError as err:
        parser.error(str(err))
    serve(bot)


if __name__ == "__main__":
    main()
