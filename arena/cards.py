"""Cards as ints and sets of cards as bitmasks.

Following python-chess, a card is a plain int and a set of cards is an int mask, so the
rules engine can follow suit with one `&` (`hand & SUIT_MASK[led] or hand`). Codes on
every interface are docs/rules/trix.md T-1.4: rank then suit, ranks `23456789TJQKA`, suits `CDHS`.

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


def _suit_tables() -> tuple[list[tuple[Card, ...]], ...]:
    """For each suit, the cards of every 13-bit rank mask, low to high (built once)."""
    tables = []
    for suit in range(4):
        base = 13 * suit
        table: list[tuple[Card, ...]] = [()]
        for m in range(1, 1 << 13):
            high = m.bit_length() - 1
            table.append(table[m ^ (1 << high)] + (base + high,))
        tables.append(table)
    return tuple(tables)


SUIT_TABLES = _suit_tables()
_CLUBS_T, _DIAMONDS_T, _HEARTS_T, _SPADES_T = SUIT_TABLES


def cards_of(mask: CardSet) -> tuple[Card, ...]:
    """The cards of `mask`, low to high (the documented order of legal actions).

    Four table look-ups instead of a bit loop: this is the engine's hottest helper.
    """
    return (
        _CLUBS_T[mask & 0x1FFF]
        + _DIAMONDS_T[mask >> 13 & 0x1FFF]
        + _HEARTS_T[mask >> 26 & 0x1FFF]
        + _SPADES_T[mask >> 39 & 0x1FFF]
    )


def iter_cards(mask: CardSet) -> Iterator[Card]:
    return iter(cards_of(mask))


class _SuitCodes(dict):
    """The codes of one suit's cards for each 13-bit rank mask, made on first use
    (all 4 x 8192 up front would cost some 40 ms at every import)."""

    def __init__(self, suit: int) -> None:
        super().__init__()
        self.cards = SUIT_TABLES[suit]

    def __missing__(self, ranks: int) -> tuple[str, ...]:
        codes = self[ranks] = tuple(map(CARD_CODES.__getitem__, self.cards[ranks]))
        return codes


_CLUBS_C, _DIAMONDS_C, _HEARTS_C, _SPADES_C = (_SuitCodes(suit) for suit in range(4))


def codes_of(mask: CardSet) -> list[str]:
    """The codes of `mask`'s cards, low to high (replays, observations, messages)."""
    return [
        *_CLUBS_C[mask & 0x1FFF],
        *_DIAMONDS_C[mask >> 13 & 0x1FFF],
        *_HEARTS_C[mask >> 26 & 0x1FFF],
        *_SPADES_C[mask >> 39 & 0x1FFF],
    ]


def parse_cards(codes: Iterable[str]) -> CardSet:
    return mask_of(parse_card(code) for code in codes)


def count(mask: CardSet) -> int:
    return mask.bit_count()


def shuffled_deck(game: str, seed: str, deal_index: int, size: int) -> list[int]:
    """A deal's shuffle: a pure function of (game, seed, deal index), the same everywhere.

    T-2.2 (docs/rules/trix.md) and N-2.1 (docs/rules/trianon.md) make each deal's
    shuffle depend only on the game seed and the deal's index, so every rotation of a
    match sees the same hands.
    Definition, so that any language can re-derive a deal: take SHAKE-256 of the UTF-8
    text `"{game}/{seed}/{deal_index}"`, 4 bytes per position; position i's key is the
    top 24 bits of bytes 4i..4i+3 read big-endian; the deck is the positions 0..size-1
    sorted by (key, position). Two equal 24-bit keys among 52 happen about once in
    12,000 deals and then only order those two cards by position.
    """
    return list(shuffled_order(game, seed, deal_index, size))


def shuffled_order(game: str, seed: str, deal_index: int, size: int) -> bytes:
    """`shuffled_deck` as bytes (one position per byte), for the engines' deal loops."""
    # Each 4-byte group becomes (key << 8 | position): the sort is then one C call.
    keyed = bytearray(hashlib.shake_256(f"{game}/{seed}/{deal_index}".encode()).digest(4 * size))
    keyed[3::4] = _POSITIONS[:size]
    fmt = _FORMATS.get(size) or _FORMATS.setdefault(size, f">{size}I")
    return struct.pack(fmt, *sorted(struct.unpack(fmt, keyed)))[3::4]


_POSITIONS = bytes(range(256))
_FORMATS: dict[int, str] = {}


def seeded_rng(*parts: object) -> random.Random:
    """A private random source derived from `parts` (for seeded bots, never for deals)."""
    text = "/".join(str(p) for p in parts)
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest(), "big"))
