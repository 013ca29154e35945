from arena.sdk import Bot, serve


class Lowest(Bot):
    name = "lowest"
    games = ("trix", "trianon")  # the README's bot plays Trix alone

    def act(self, turn):
        return turn.legal[0]  # one of turn.legal, by value (or its index)


if __name__ == "__main__":
    serve(Lowest())
