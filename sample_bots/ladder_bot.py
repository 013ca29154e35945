"""Deprecated name of sample_bots/mixed_bot.py, kept as an alias.

    python sample_bots/ladder_bot.py --p 0.8 [--name NAME]     (still works)

League files in the wild name this script, so it stays: it serves the mixed bot
(`arena.strategies.mixed`, through its old module name, which says once on stderr that
the name is deprecated) and plays the same games for the same seed.
"""

from arena.strategies.ladder import main

if __name__ == "__main__":
    main()
