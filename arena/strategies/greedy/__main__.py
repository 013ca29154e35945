"""`python -m arena.strategies.greedy`: the greedy bot as an external bot process."""

from arena.sdk import serve
from arena.strategies.greedy.bot import GreedyBot

if __name__ == "__main__":
    serve(GreedyBot())
