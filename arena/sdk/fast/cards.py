"""Cards as ints and sets of cards as int masks (the layout of `arena.cards`).

A card is `suit * 13 + rank`: suits clubs 0, diamonds 1, hearts 2, spades 3; ranks
0 (the two) to 12 (the ace), so within a suit a higher int is a higher card in the
normal order. A set of cards is an int with bit `card` set for each card, so following
suit is one `&`: `hand & SUIT_MASK[led] or hand`.

- `Card`, `CardSet`: the two int types, named.
- `SUITS` ("CDHS"), `RANKS` ("23456789TJQKA"), `CLUBS`, `DIAMONDS`, `HEARTS`, `SPADES`,
  `TWO`, `TEN`, `JACK`, `QUEEN`, `KING`, `ACE`: suits and ranks as ints.
- `SUIT_MASK[suit]`: the 13 cards of a suit; `FULL_DECK`: all 52.
- `make_card(rank, suit)`, `suit_of(card)`, `rank_of(card)`.
- `cards_of(mask)`: the cards of a mask, ascending (a tuple); `mask_of(cards)`.
- `card_code(card)` ("QS") and `parse_card(code)`; `codes_of(mask)` and
  `parse_cards(codes)` for sets; `CARD_CODES[card]` is `card_code` as a table.
"""

from arena.cards import (
    ACE,
    CARD_CODES,
    CLUBS,
    DIAMONDS,
    FULL_DECK,
    HEARTS,
    JACK,
    KING,
    QUEEN,
    RANKS,
    SPADES,
    SUIT_MASK,
    SUITS,
    TEN,
    TWO,
    Card,
    CardSet,
    card_code,
    cards_of,
    codes_of,
    make_card,
    mask_of,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)

__all__ = [
    "ACE",
    "CARD_CODES",
    "CLUBS",
    "DIAMONDS",
    "FULL_DECK",
    "HEARTS",
    "JACK",
    "KING",
    "QUEEN",
    "RANKS",
    "SPADES",
    "SUITS",
    "SUIT_MASK",
    "TEN",
    "TWO",
    "Card",
    "CardSet",
    "card_code",
    "cards_of",
    "codes_of",
    "make_card",
    "mask_of",
    "parse_card",
    "parse_cards",
    "rank_of",
    "suit_of",
]
