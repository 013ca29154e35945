"""Cards as ints and sets of cards as bitmasks.

Following python-chess, a card is a plain int and a set of cards is an int mask, so the
rules engine can follow suit with one `&` (`hand & SUIT_MASK[led] or hand`). Codes on
every interface are TRIX.md T-1.4: rank then suit, ranks `23456789TJQKA`, suits `CDHS`.

Layout: card = suit * 13 + rank, rank 0 is the two and rank 12 the ace, so within a
suit a higher int is a higher card under the normal order, and ascending ints are the
documented order of legal actions (clubs, diamonds, hearts, spades; low to high).
"""

from __future__ import annotations

import hashlib
import random
import struct
from collections.abc import Iterable, Iterator

from arena.errors import CardError

Card = int
CardSet = int

RANKS = "23456789TJQKA"
SUITS = "CDHS"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)

TWO, TEN, JACK, QUEEN, KING, ACE = 0, 8, 9, 10, 11, 12

SUIT_MASK: tuple[CardSet, ...] = tuple(0x1FFF << (13 * s) for s in range(4))
FULL_DECK: CardSet = (1 << 52) - 1

CARD_CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_CODE_TO_CARD = {code: i for i, code in enumerate(CARD_CODES)}


def make_card(rank: int, suit: int) -> Card:
    """The card of `rank` (0 = two .. 12 = ace) in `suit` (0 = clubs .. 3 = spades)."""
    return suit * 13 + rank


def suit_of(card: Card) -> int:
    return card // 13


def rank_of(card: Card) -> int:
    return card % 13


def card_code(card: Card) -> str:
    """`card_code(parse_card("QS")) == "QS"`."""
    return CARD_CODES[card]


def parse_card(code: str) -> Card:
    """Parse a T-1.4 card code; raise CardError naming the bad code."""
    try:
        return _CODE_TO_CARD[code]
    except (KeyError, TypeError):
        raise CardError(
            f"{code!r} is not a card code: rank {RANKS!r} then suit {SUITS!r}, e.g. 'TD'"
        ) from None


def mask_of(cards: Iterable[Card]) -> CardSet:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def iter_cards(mask: CardSet) -> Iterator[Card]:
    """The cards of `mask`, lowest first (the documented order of legal actions)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cards_of(mask: CardSet) -> list[Card]:
    return list(iter_cards(mask))


def codes_of(mask: CardSet) -> list[str]:
    return [CARD_CODES[c] for c in iter_cards(mask)]


def parse_cards(codes: Iterable[str]) -> CardSet:
    return mask_of(parse_card(code) for code in codes)


def count(mask: CardSet) -> int:
    return mask.bit_count()


def shuffled_deck(game: str, seed: str, deal_index: int, size: int) -> list[int]:
    """A deal's shuffle: a pure function of (game, seed, deal index), the same everywhere.

    TRIX.md T-2.2 and TRIANON.md N-2.1 make each deal's shuffle depend only on the game
    seed and the deal's index, so every rotation of a match sees the same hands. The
    positions 0..size-1 are sorted by 64-bit keys: key i is bytes 8i..8i+7 (big-endian)
    of SHAKE-256 over the UTF-8 text `"{game}/{seed}/{deal_index}"`, ties by position.
    Any language with SHAKE-256 can re-derive a deal; it is also fast (a few us).
    """
    digest = hashlib.shake_256(f"{game}/{seed}/{deal_index}".encode()).digest(8 * size)
    keys = struct.unpack(f">{size}Q", digest)
    return sorted(range(size), key=keys.__getitem__)  # stable: ties keep position order


def seeded_rng(*parts: object) -> random.Random:
    """A private random source derived from `parts` (for seeded bots, never for deals)."""
    text = "/".join(str(p) for p in parts)
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest(), "big"))
