"""Write a bot in a few lines: subclass `Bot`, answer `act`, call `serve`.

    from arena.sdk import Bot, serve

    class Lowest(Bot):
        name = "lowest"

        def act(self, turn):
            return turn.legal[0]          # one of the legal actions, by value

    if __name__ == "__main__":
        serve(Lowest())

`serve` listens where the referee says (the environment variable ARENA_BOT_ADDRESS,
`unix:PATH` or `127.0.0.1:PORT`) and answers Hello, Decide, Play and Notify of
protos/arena/v1/bot.proto. A bot started by the referee with `python` runs on the
arena's own interpreter, so this import works without activating anything.
"""

from arena.sdk.bot import Bot
from arena.sdk.server import serve
from arena.sdk.turn import Turn

__all__ = ["Bot", "Turn", "serve"]
