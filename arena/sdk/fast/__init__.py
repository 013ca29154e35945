"""The fast level of the SDK: the rules engines' own states, int actions and constants,
for a bot that plays thousands of moves a decision (a search bot).

The friendly level (`arena.sdk.state`, `arena.sdk.deal`) speaks in the dicts of
`turn.legal` and card codes, which costs a few microseconds a move. Here a card is an
int (suit * 13 + rank, clubs, diamonds, hearts, spades; rank 0 is the two), a set of
cards an int mask, an action a small int, and a deal the engine's mutable state, played
on in place. The modules:

- `cards`: the card ints and masks every game shares;
- `trix`, `trianon`: each game's engine, as much of it as a bot needs, each name
  documented there.

A sampled deal's engine state is `deal.engine_state` (`SeatState.sample_deal`), and
the seat's view as ints is `SeatState.engine_view`. These names are the SDK's promise:
anything else in `arena.games` may change without notice. Nothing here gives a bot
more than its seat may know: an engine state a bot holds is one it sampled itself.
"""
