"""A bot of known strength, as a script: the heuristic bot's move with probability P,
else a random one.

    python sample_bots/mixed_bot.py --p 0.8 [--name NAME]

The bot is `arena.strategies.mixed` (`python -m arena.strategies.mixed --p 0.8` is
the same bot), a part of the package because `arena bench rating` plays it in process;
its docstring says how the random moves are drawn.
"""

from arena.strategies.mixed import main

if __name__ == "__main__":
    main()
