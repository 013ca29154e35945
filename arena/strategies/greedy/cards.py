"""The card helpers the heuristics read.

The encoding is `arena.cards`' own, re-exported here: a card is an int, suit * 13 +
rank (rank 0 is the two, 12 the ace), so a higher int is a higher card within a suit,
and the codes on the wire are T-1.4's (docs/rules/trix.md; `parse_card("QS")`). This
module adds only what `arena.cards` lacks: two more rank names, the two hearts the King of Hearts
heuristics watch, and a hand split by suit. (`arena.cards` is pure data helpers: it
imports nothing of the rules engine.)
"""

from __future__ import annotations

from arena.cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JACK,
    KING,
    QUEEN,
    SPADES,
    SUITS,
    TEN,
    make_card,
    parse_card,
    rank_of,
    suit_of,
)

__all__ = [
    "ACE",
    "AH",
    "CLUBS",
    "DIAMONDS",
    "FIVE",
    "HEARTS",
    "JACK",
    "KH",
    "KING",
    "NINE",
    "QUEEN",
    "SPADES",
    "SUITS",
    "TEN",
    "by_suit",
    "make_card",
    "parse_card",
    "rank_of",
    "suit_of",
]

FIVE, NINE = 3, 7  # ranks, as arena.cards' TEN = 8, JACK = 9, ...
KH = make_card(KING, HEARTS)
AH = make_card(ACE, HEARTS)


def by_suit(cards: list[int]) -> list[list[int]]:
    """The cards split into the four suits, each low to high."""
    suits: list[list[int]] = [[], [], [], []]
    for card in sorted(cards):
        suits[suit_of(card)].append(card)
    return suits
