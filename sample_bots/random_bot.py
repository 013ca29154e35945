"""A bot that plays a uniformly random legal action, seeded by the game (replays repeat).

A complete bot in a few lines, to copy from; `arena.strategies.uniform` is the same bot
inside the package, which the benchmarks start (`python -m arena.strategies.uniform`).
"""

from arena.sdk import Bot, serve


class RandomBot(Bot):
    name = "random-py"
    games = ("trix", "trianon")

    def act(self, turn):
        return turn.random_index(len(turn.request.legal))


if __name__ == "__main__":
    serve(RandomBot())
