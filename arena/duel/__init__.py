"""`arena duel`: two bots compared on the same deals against the same opponents, pair
after pair, until the sequential test the ladder's promotion reads decides
(docs/duel.md). `tables` plays one side's match; `runner` the duel; `report` says what
it found."""
