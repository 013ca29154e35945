"""A bot that plays a uniformly random legal action, seeded by the game (replays repeat)."""

from arena.sdk import Bot, serve


class RandomBot(Bot):
    name = "random-py"
    games = ("trix", "trianon")

    def act(self, turn):
        return turn.random_index(len(turn.request.legal))


if __name__ == "__main__":
    serve(RandomBot())
