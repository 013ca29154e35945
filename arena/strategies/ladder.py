"""Deprecated name of the mixed bot (`arena.strategies.mixed`), kept as an alias.

    python -m arena.strategies.ladder --p 0.8 [--name NAME]     (still works)

League files in the wild name this module, so it stays: importing or running it says
once on stderr that the name is deprecated, and it re-exports the mixed bot
(`LadderBot` is `MixedBot`), which plays the same games for the same seed.
docs/bots.md ("Renamed bots") lists the old names and the new.
"""

from __future__ import annotations

import sys

from arena.strategies.mixed import DEPRECATION, MixedBot, main

LadderBot = MixedBot
"""The bot's old name: the same class."""

__all__ = ["LadderBot", "MixedBot", "main"]

print(DEPRECATION, file=sys.stderr)

if __name__ == "__main__":
    main()
