"""A heuristic bot for Trix and Trianon: the usual table advice, one decision at a time.

It keeps no state between decisions: everything it uses is rebuilt from `turn.view`
(the seat's hand and this deal's public events), exactly as an external process would
see it, so it never imports the rules engine (`arena.games`); its cards are
`arena.cards`' ints. Every decision is a few list scans over at most 52 cards, well
under a millisecond.

- `cards.py`: the card helpers the heuristics read (the encoding of `arena.cards`);
- `trix.py`: the Trix heuristics (contract choice, exposure, trick contracts, Trix);
- `trianon.py`: the Trianon heuristics (bidding, raise, declarer play, defence,
  Trianon round);
- `bot.py`: `GreedyBot`, which hands each decision to them by game and kind.

`python -m arena.strategies.greedy` serves it as an external bot (as
`sample_bots/greedy_bot.py` does); `arena.strategies.mixed` and the in-process mixed
bots of `arena bench rating` play its moves.
"""

from arena.strategies.greedy.bot import GreedyBot

__all__ = ["GreedyBot"]
