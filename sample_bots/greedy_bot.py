"""The heuristic bot for Trix and Trianon, as a script: `python sample_bots/greedy_bot.py`.

The bot itself is `arena.strategies.greedy` (the heuristics are described there, in
trix.py and trianon.py), a part of the package because the arena plays it too (the
ladder of `arena bench rating`); `python -m arena.strategies.greedy` serves the same
bot. It is written with the SDK alone and plays from `turn.view`, like any external bot.
"""

from arena.sdk import serve
from arena.strategies.greedy import GreedyBot

if __name__ == "__main__":
    serve(GreedyBot())
