"""A bot that plays a uniformly random legal action, seeded by the game (replays repeat).

    python -m arena.strategies.uniform

The package's copy of `sample_bots/random_bot.py` (same bot, same name "random-py",
same moves): the benchmarks (`arena bench referee`, `arena bench league`) start this
one, since an installed arena has no sample_bots/ folder. The sample stays a complete
bot of its own, the smallest example of the SDK to copy from; this module is not named
random.py so that it never shadows the standard library's module.
"""

from __future__ import annotations

from arena.sdk import Bot, Turn, serve


class RandomBot(Bot):
    """A uniformly random legal action, from the SDK's seeded `turn.random_index`."""

    name = "random-py"
    games = ("trix", "trianon")

    def act(self, turn: Turn) -> int:
        return turn.random_index(len(turn.request.legal))


def main() -> None:
    """Serve the random bot (ARENA_BOT_ADDRESS says where)."""
    serve(RandomBot())


if __name__ == "__main__":
    main()
