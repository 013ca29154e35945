"""What a Trianon hand is worth in tricks, strain by strain: the reading of a bid.

A bid is no hard fact about a hand (it may be a bluff or a mistake), but it says
something: a seat that bid eight hearts likely holds hearts. `sampling.py` weighs the
deals it draws by it (a bidder's sampled hand should reach about the tricks it bid, a
seat that passed before any bid should not reach five in any strain), and it is public
so that a bot can bid by the same estimate, or read the others' bids the same way.

The estimate is the usual counting of a hand: trumps by length and top cards, side
suits by their first two winners (later ones get ruffed); without trumps, winners and
stopped suits, and voids cost. It came with the sampler bot, which bids by it in its
playouts, and moved here with the deal sampler that reads bids by it.
"""

from __future__ import annotations

from arena.cards import SUIT_MASK, cards_of
from arena.games import trianon

# The expected longest holding of the two opponents when they hold `out` cards of a
# suit between them, roughly: once that many rounds are played, our cards are masters.
_LONGEST = tuple(0.0 if out == 0 else out / 2 + 0.6 for out in range(10))


def _suit_facts(hand: int, suit: int, sans_souci: bool) -> tuple[int, float, float, int]:
    """(length, winners, winners as trumps, seconds) of one suit of a hand: going down
    from the top, a card is a winner when every card above it is ours, half one with
    one missing above and a card to wait with, a quarter with two missing."""
    cards = cards_of(hand & SUIT_MASK[suit])
    length = len(cards)
    if sans_souci:
        keys = sorted((trianon.SANS_SOUCI_KEY[c] for c in cards), reverse=True)
        top = 8
    else:
        keys = sorted((c % 13 for c in cards), reverse=True)
        top = 12
    winners = 0.0
    as_trumps = 0.0
    rounds = _LONGEST[9 - length]
    for k, key in enumerate(keys):
        missing = top - key - k
        t = (
            1.0
            if missing == 0
            else 0.5
            if missing == 1 and length >= k + 2
            else (0.25 if missing == 2 and length >= k + 3 else 0.0)
        )
        winners += t
        as_trumps += max(t, min(1.0, max(0.0, k + 1 - rounds)))
    seconds = keys.count(top - 1)
    return length, winners, as_trumps, seconds


def trick_estimates(hand: int) -> list[float]:
    """The tricks a hand should take as declarer in each strain, clubs to sans atout:
    trumps count by length and winners, side suits by their first two winners (later
    ones get ruffed); without trumps winners and stopped suits count, voids cost."""
    normal = [_suit_facts(hand, s, False) for s in range(4)]
    souci = [_suit_facts(hand, s, True) for s in range(4)]
    out = []
    for strain in range(6):
        trump = trianon.STRAIN_TRUMP[strain]
        if trump >= 0:
            est = -1.34
            for s, (length, winners, as_trumps, seconds) in enumerate(normal):
                if s == trump:
                    est += 0.57 * as_trumps + 0.62 * length
                else:
                    est += 0.83 * min(winners, 2.0)
                est += 0.24 * seconds + 0.27 * (winners > 0 or length >= 4)
        else:
            facts = souci if strain == trianon.SANS_SOUCI else normal
            a, b, c, d = (-0.31, 0.70, 0.39, 0.60) if strain == 4 else (-0.29, 0.78, 0.38, 0.54)
            void_cost = 0.36 if strain == 4 else 0.44
            est = a
            for length, winners, _, seconds in facts:
                est += b * winners + c * seconds + d * (winners > 0 or length >= 4)
                est -= void_cost * (length == 0)
        out.append(est)
    return out
