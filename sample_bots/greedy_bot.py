"""A heuristic bot for Trix and Trianon: the usual table advice, one decision at a time.

It keeps no state between decisions: everything it uses is rebuilt from `turn.view`
(the seat's hand and this deal's public events), exactly as an external process would
see it, so it never imports the rules engine. Every decision is a few list scans over
at most 52 cards, well under a millisecond.

The Trix heuristics, by decision:

- contract: a small linear model per contract estimates this hand's score in it; the
  King picks the contract whose estimate beats that contract's average the most, so
  good hands are spent where they gain most and the rest is left for later hands.
- expose: only when the exposed card is very likely to end up with someone else.
- trick contracts: duck under the winning card (with the highest card that still
  loses), drop own penalty cards under higher cards, shed penalty cards and high
  cards when void, and lead the card least likely to win the trick.
- Trix contract: play cards that open the way to more of one's own cards (Jacks with
  company first), keep cards that only help others, never block oneself.

The Trianon heuristics (TRIANON.md), by decision:

- bid: a linear model per kind of strain estimates the tricks the hand takes as
  declarer (winners counted down from the top of each suit, trump length, second
  cards, stopped suits, voids); each (level, strain) above the highest bid is worth
  its value when made less 40 or 50 a trick short for each opponent, weighted by the
  chance of each number of tricks; the best is bid when it beats passing. After two
  passes a pass makes a Trianon round, which a hand of low cards and voids prefers.
- raise: keep, unless another contract is clearly (by 20 points) better.
- declarer play: draw trumps while commanding them, cash masters (short suits first),
  then set up the longest suit; win second or third to a trick only when sure to.
- defence: the two defenders score alike, so the other defender's trick is ours
  too: leave it, win tricks from the declarer when sure to (or with a card only one
  unseen card beats), cash masters, give the other defender its ruffs.
- Trianon round: as in No Tricks, duck with the highest card that still loses, throw
  the most dangerous card when void, lead the card least likely to win, short suits
  first.
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb, erf, sqrt
from typing import Any

from arena.sdk import Bot, Turn, serve

RANKS = "23456789TJQKA"
SUITS = "CDHS"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
TWO, FIVE, NINE, TEN, JACK, QUEEN, KING, ACE = 0, 3, 7, 8, 9, 10, 11, 12

# A card is an int, suit * 13 + rank, so a higher int is a higher card within a suit.
CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
CARD: dict[str, int] = {code: i for i, code in enumerate(CODES)}
KH = HEARTS * 13 + KING
AH = HEARTS * 13 + ACE

KING_OF_HEARTS, DIAMONDS_C, QUEENS_C, NO_TRICKS, TRIX = (
    "king-of-hearts",
    "diamonds",
    "queens",
    "no-tricks",
    "trix",
)


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    return card % 13


def by_suit(cards: list[int]) -> list[list[int]]:
    """The cards split into the four suits, each low to high."""
    suits: list[list[int]] = [[], [], [], []]
    for card in sorted(cards):
        suits[card // 13].append(card)
    return suits


# --------------------------------------------------------------------------- contract


def hand_features(hand: list[int]) -> dict[str, int]:
    """The few facts about a hand that the contract estimates read."""
    suits = [[rank_of(c) for c in hand if suit_of(c) == s] for s in range(4)]
    ranks = [rank_of(c) for c in hand]
    hearts, diamonds = suits[HEARTS], suits[DIAMONDS]
    kh = KING in hearts
    shortest_side = min(len(suits[s]) for s in (CLUBS, DIAMONDS, SPADES))
    return {
        "aces": ranks.count(ACE),
        "kings": ranks.count(KING),
        "queens": ranks.count(QUEEN),
        "jacks": ranks.count(JACK),
        "high": sum(1 for r in ranks if r >= QUEEN),
        "tens_nines": sum(1 for r in ranks if r in (NINE, TEN)),
        "voids": sum(1 for s in suits if not s),
        "singletons": sum(1 for s in suits if len(s) == 1),
        "hearts": len(hearts),
        "kh": int(kh),
        "kh_bare": int(kh and len(hearts) == 1),
        "kh_shortest_side": min(shortest_side, 3) if kh else 0,
        "bare_queens": sum(1 for s in suits if QUEEN in s and sum(r < QUEEN for r in s) < 2),
        "diamonds": len(diamonds),
        "high_diamonds": sum(1 for r in diamonds if r >= TEN),
        "low_diamonds": sum(1 for r in diamonds if r <= FIVE),
        "jack_distance": sum(abs(r - JACK) for r in ranks),
    }


# Per contract: (this bot's average score in it as King, intercept, weights). A linear
# estimate of the King's score from the hand, fitted by least squares on 15,000 random
# hands, each played by this bot in all five contracts against three random players
# (a tenth to a half of the variance explained; the rest is the other hands). What
# the weights say is the usual advice: in King of Hearts the KH is an asset when it can
# be exposed and thrown away (a side suit to void), a liability bare or with long side
# suits; Queens wants queens with low cards below them, and voids; Diamonds fears high
# diamonds; No Tricks fears every high card and likes short suits; Trix likes cards
# close to their Jack.
CONTRACT_MODELS: dict[str, tuple[float, float, dict[str, float]]] = {
    KING_OF_HEARTS: (
        2.6,
        -21.6,
        {
            "kh": 105.7,
            "kh_bare": -40.4,
            "kh_shortest_side": -20.9,
            "hearts": 6.6,
            "high": -4.4,
            "voids": -7.1,
        },
    ),
    DIAMONDS_C: (
        -18.9,
        -16.8,
        {
            "high": -3.5,
            "voids": 13.3,
            "singletons": 6.6,
            "diamonds": 5.0,
            "high_diamonds": -11.4,
            "low_diamonds": 3.4,
        },
    ),
    QUEENS_C: (
        3.2,
        4.6,
        {
            "aces": -9.2,
            "kings": -5.8,
            "queens": 16.3,
            "bare_queens": -22.6,
            "voids": 14.8,
            "singletons": 6.4,
        },
    ),
    NO_TRICKS: (
        -26.4,
        20.2,
        {
            "aces": -13.4,
            "kings": -11.1,
            "queens": -8.9,
            "jacks": -7.2,
            "tens_nines": -4.7,
            "voids": 17.0,
            "singletons": 8.4,
        },
    ),
    TRIX: (149.4, 285.6, {"jack_distance": -2.7}),
}

# Without doubling (T-9 `doubling: false`) holding the KH or queens gains nothing.
NO_DOUBLING_MODELS: dict[str, tuple[float, float, dict[str, float]]] = {
    KING_OF_HEARTS: (
        -8.0,
        -11.6,
        {
            "kh": 9.0,
            "kh_bare": -5.5,
            "kh_shortest_side": -1.3,
            "hearts": 3.2,
            "high": -2.8,
            "voids": -0.9,
        },
    ),
    QUEENS_C: (
        -9.9,
        2.1,
        {
            "aces": -5.6,
            "kings": -3.8,
            "queens": -3.8,
            "bare_queens": -2.4,
            "voids": 8.2,
            "singletons": 4.0,
        },
    ),
}


def contract_gain(contract: str, features: dict[str, int], doubling: bool = True) -> float:
    """How much better than this bot's average the hand should score in `contract`."""
    model = (not doubling and NO_DOUBLING_MODELS.get(contract)) or CONTRACT_MODELS[contract]
    average, intercept, weights = model
    return intercept + sum(w * features[name] for name, w in weights.items()) - average


def choose_contract(
    view: dict[str, Any], legal: list[dict[str, Any]], doubling: bool = True
) -> dict[str, Any]:
    """The King's contract: the one where this hand beats that contract's average by
    the most. The contracts not chosen are left to later hands of the kingdom, which
    will on average score the average; so a hand is spent where it gains most, and
    the contract it would do worst in is left for later (the last one is forced)."""
    features = hand_features([CARD[c] for c in view["hand"]])
    return max(legal, key=lambda a: contract_gain(a["contract"], features, doubling))


# --------------------------------------------------------------------------- expose


def kh_exposure_safe(hand: list[int]) -> bool:
    """Expose KH only when it is well guarded: many hearts, or a void or short side suit
    to throw it on. It is only lost when hearts are led, and hearts may only be led by
    a player holding nothing else (T-3.4): a holder with few hearts and long side suits
    is the one who ends up leading them, or following a heart lead with a bare KH.
    (Measured against random play: these hands lose their own KH in under 1 deal in
    10, and exposing pays off while that chance is below 1 in 2; a bare KH in a
    balanced hand is lost about 1 deal in 3.)"""
    suits = by_suit(hand)
    hearts = len(suits[HEARTS])
    shortest = min(len(suits[s]) for s in (CLUBS, DIAMONDS, SPADES))
    return (
        hearts >= 4
        or shortest == 0
        or (hearts == 3 and shortest <= 2)
        or (hearts == 2 and shortest <= 1)
    )


def queen_exposure_safe(hand: list[int], queen: int) -> bool:
    """Expose a queen only when it is protected: at least two lower cards of its suit
    to duck with until an ace or king falls on the suit, or until the queen can be
    thrown on another suit. (Measured against random play: a queen with two lower
    cards is lost to its holder about 1 deal in 10, with three 1 in 25, a bare queen
    1 in 2; exposing pays off while that chance is below 1 in 2.)"""
    suit = suit_of(queen)
    low = sum(1 for c in hand if suit_of(c) == suit and rank_of(c) < QUEEN)
    return low >= 2


def choose_exposure(view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """The exposure to make: the safe cards among those allowed, by default none."""
    hand = [CARD[c] for c in view["hand"]]
    exposable = {CARD[c] for option in legal for c in option["cards"]}
    if view["contract"] == KING_OF_HEARTS:
        wanted = {KH} if KH in exposable and kh_exposure_safe(hand) else set()
    else:
        wanted = {q for q in exposable if queen_exposure_safe(hand, q)}
    for option in legal:
        if {CARD[c] for c in option["cards"]} == wanted:
            return option
    return next(o for o in legal if not o["cards"])


# --------------------------------------------------------------------------- tricks


class Table:
    """What the seat knows in a trick contract, rebuilt from the view each decision.

    (Plain classes rather than dataclasses, so that the file also loads by path with
    importlib without being registered in sys.modules.)
    """

    __slots__ = ("seat", "contract", "hand", "trick", "unseen", "voids", "exposed")

    def __init__(self, view: dict[str, Any]) -> None:
        contract = view["contract"]
        hand = [CARD[c] for c in view["hand"]]
        plays = [(e["seat"], CARD[e["card"]]) for e in view["events"] if e["type"] == "play"]
        voids: list[set[int]] = [set(), set(), set(), set()]
        for start in range(0, len(plays), 4):
            trick = plays[start : start + 4]
            leader, first = trick[0]
            led = suit_of(first)
            if contract == KING_OF_HEARTS and led == HEARTS:  # T-3.4: only hearts left
                voids[leader].update((CLUBS, DIAMONDS, SPADES))
            for seat, card in trick[1:]:
                if suit_of(card) != led:
                    voids[seat].add(led)
        self.seat: int = view["seat"]
        self.contract: str = contract
        self.hand = hand
        self.trick = [(t["seat"], CARD[t["card"]]) for t in view["trick"]]  # leader first
        self.unseen = set(range(52)).difference(hand, (c for _, c in plays))  # others hold
        self.voids = voids  # per seat, the suits it is known to lack
        self.exposed = [{CARD[c] for c in cards} for cards in view["exposed"]]

    def penalty(self, card: int) -> int:
        """What taking `card` costs in this contract (the trick itself aside)."""
        if self.contract == KING_OF_HEARTS:
            return 75 if card == KH else 0
        if self.contract == QUEENS_C:
            return 25 if rank_of(card) == QUEEN else 0
        if self.contract == DIAMONDS_C:
            return 10 if suit_of(card) == DIAMONDS else 0
        return 0

    def others(self) -> list[int]:
        return [s for s in range(4) if s != self.seat]

    def followers(self) -> list[int]:
        """The seats still to play to the current trick after this one."""
        return [(self.seat + k) % 4 for k in range(1, 4 - len(self.trick))]

    def may_follow(self, seat: int, suit: int) -> bool:
        return suit not in self.voids[seat]

    def unseen_in(self, suit: int) -> list[int]:
        return [c for c in self.unseen if suit_of(c) == suit]

    def hand_in(self, suit: int) -> list[int]:
        return [c for c in self.hand if suit_of(c) == suit]

    def height(self, card: int) -> int:
        """The card's rank among the cards of its suit still out: the played cards
        above it no longer beat it."""
        played_above = sum(
            1
            for c in range(card + 1, (suit_of(card) + 1) * 13)
            if c not in self.unseen and c not in self.hand
        )
        return rank_of(card) + played_above


def play_trick_card(view: dict[str, Any], legal: list[int]) -> int:
    """The card to play in a trick contract: follow, discard or lead."""
    table = Table(view)
    if not table.trick:
        return lead(table, legal)
    led = suit_of(table.trick[0][1])
    if suit_of(legal[0]) == led:  # the legal cards are all of the suit led, or none is
        return follow(table, legal)
    return discard(table, legal)


def follow(table: Table, cards: list[int]) -> int:
    """Follow suit: drop an own penalty card under a higher card, else duck with the
    highest card that still loses; if every card wins, shed the highest one when
    winning anyway (last to play, or nobody left can beat it), else the lowest."""
    led = suit_of(table.trick[0][1])
    best = max(c for _, c in table.trick if suit_of(c) == led)
    below = [c for c in cards if c < best]
    if below:
        return max(below, key=lambda c: (table.penalty(c), c))
    safe = [c for c in cards if table.penalty(c) == 0] or cards
    lowest = min(safe)
    if not beatable(table, lowest, led):
        return max(safe)
    return lowest


def beatable(table: Table, card: int, suit: int) -> bool:
    """Could a seat still to play to this trick put a higher card of `suit` on it?"""
    higher = any(c > card for c in table.unseen_in(suit))
    return higher and any(table.may_follow(s, suit) for s in table.followers())


def discard(table: Table, cards: list[int]) -> int:
    """Void in the suit led: throw the card that is most dangerous to keep."""
    lengths = [len(table.hand_in(s)) for s in range(4)]
    return max(cards, key=lambda c: (discard_value(table, c, lengths), c))


def discard_value(table: Table, card: int, lengths: list[int]) -> float:
    """How much we want to be rid of `card`: penalty cards first, then cards that may
    win tricks later (high for what is left of their suit), short suits first."""
    suit, rank = suit_of(card), rank_of(card)
    value = table.height(card) + (1.5 if lengths[suit] == 1 else 0.0)
    if table.contract == KING_OF_HEARTS:
        if card == KH:
            return 1000
        if card == AH and KH in table.unseen:  # the ace catches the KH
            value += 20
    elif table.contract == QUEENS_C:
        if rank == QUEEN:
            return 1000 + (100 if card in table.exposed[table.seat] else 0)
        if rank > QUEEN and suit * 13 + QUEEN in table.unseen:  # would catch a queen
            value += 8
    elif table.contract == DIAMONDS_C and suit == DIAMONDS:
        value += 4
    return value


def lead(table: Table, cards: list[int]) -> int:
    """Lead the card with the least expected cost: the chance it wins the trick times
    what that trick would cost, with small nudges that make later tricks safer."""
    lengths = [len(table.hand_in(s)) for s in range(4)]
    return min(cards, key=lambda c: (lead_cost(table, c, lengths), c))


def win_chance(table: Table, card: int) -> float:
    """A rough chance that `card`, led, wins its trick: when nobody can follow it
    surely does; else the share of the suit's unseen cards below it, per follower."""
    suit = suit_of(card)
    out = table.unseen_in(suit)
    followers = [s for s in table.others() if table.may_follow(s, suit)]
    higher = sum(1 for c in out if c > card)
    if not out or not followers or not higher:
        return 1.0
    share = (len(out) - higher) / len(out)
    return share ** min(3, len(followers), len(out))


def lead_cost(table: Table, card: int, lengths: list[int]) -> float:
    """Expected cost of leading `card` (see `lead`)."""
    suit, rank = suit_of(card), rank_of(card)
    chance = win_chance(table, card)
    voids = sum(1 for s in table.others() if suit in table.voids[s])
    contract = table.contract
    tie = 0.01 * rank
    if contract == NO_TRICKS:
        return 15 * chance + 0.3 * lengths[suit] / 13 + tie
    if contract == DIAMONDS_C:
        out = len(table.unseen_in(DIAMONDS))
        if suit == DIAMONDS:
            taken = 10 * (1 + min(3, out))
            return chance * taken - (1 - chance) * 4 + tie
        return chance * (3 + 10 * voids * (out > 0)) + tie
    if contract == QUEENS_C:
        queens_out = sum(1 for s in range(4) if s * 13 + QUEEN in table.unseen)
        cost = chance * (3 + 25 * voids * (queens_out > 0) * 0.5)
        if rank == QUEEN:
            cost += 25 * chance
        elif rank > QUEEN and suit * 13 + QUEEN in table.unseen:
            cost += 25 * 0.4
        return cost + tie
    return king_of_hearts_lead_cost(table, card, chance, voids, lengths) + tie


def king_of_hearts_lead_cost(
    table: Table, card: int, chance: float, voids: int, lengths: list[int]
) -> float:
    """Leading in King of Hearts: the KH falls on the trick when its holder is void in
    the suit led. If the holder is known (it exposed the KH), a suit it is void in is
    worth leading with a card that will not win, to make it drop the KH on someone
    else; with the KH in our own hand, short side suits are led first, to become void
    and throw it away."""
    suit = suit_of(card)
    cost = 2 * chance
    if KH in table.unseen:
        holder = next((s for s in table.others() if KH in table.exposed[s]), -1)
        if holder >= 0:
            drop = 0.8 if suit in table.voids[holder] else 0.0
            cost += chance * 75 * drop - (1 - chance) * 10 * drop
        else:
            cost += chance * 75 * 0.4 * voids / 3
        if suit == HEARTS and card > KH:  # the ace may catch the king
            cost += 75 * 0.4
    if card == KH:
        cost += 75 * chance
    if KH in table.hand and suit != HEARTS:
        cost += 0.5 * lengths[suit]
    return cost


# --------------------------------------------------------------------------- Trix


def trix_value(card: int, hand: set[int]) -> float:
    """How good it is to lay `card` now in the Trix contract.

    A card that opens the way to more of our own cards further along its row is worth
    laying (a Jack with company most of all: play Jacks early), so that we are not left
    passing. A card that opens nothing of ours can wait: it stays playable (nobody else
    holds it), so keeping it banks a future move, and it keeps blocked the other
    players' cards beyond it. The next card, when it is not ours, is a gift to someone.
    (Weights tuned on single Trix deals against random play: about 151 points a deal
    against 143 without the blocking term and 125 on average.)
    """
    suit, rank = suit_of(card), rank_of(card)
    base = suit * 13
    if rank == JACK:
        directions = (range(rank + 1, 13), range(rank - 1, -1, -1))
    elif rank > JACK:
        directions = (range(rank + 1, 13),)
    else:
        directions = (range(rank - 1, -1, -1),)
    ours = theirs = gifts = follow_ups = 0
    for ranks in directions:
        for i, r in enumerate(ranks):
            if base + r in hand:
                ours += 1
                follow_ups += i == 0
            else:
                theirs += 1
                gifts += i == 0
    jack = 5.0 if rank == JACK and ours else 0.0
    return 10 * ours + follow_ups + jack - 3 * gifts - 0.6 * theirs


def play_trix_card(view: dict[str, Any], legal: list[int]) -> int:
    """The card to lay in the Trix contract (see `trix_value`)."""
    hand = {CARD[c] for c in view["hand"]}
    return max(legal, key=lambda c: (trix_value(c, hand), -c))


# --------------------------------------------------------------------------- Trianon
#
# Trianon (TRIANON.md) is played with the same card ints: the 36-card deck is the cards
# of rank six and up. Bids are handled as (tricks, strain) tuples, which compare as the
# bids do (N-3.2).

STRAINS = ("C", "S", "D", "H", "SS", "NT")  # low to high (N-3.1)
STRAIN_TRUMP = (CLUBS, SPADES, DIAMONDS, HEARTS, -1, -1)  # -1: no trump (N-4.3)
SANS_SOUCI = 4  # the strain index of sans souci; sans atout is 5
SIX = 4  # the lowest rank of the 36-card deck (N-1.3)
TRIANON_DECK = frozenset(s * 13 + r for s in range(4) for r in range(SIX, 13))
MIN_BID = 4  # the lowest bid; a made bid scores 30 or 40 a trick above it (N-5.2)
SQRT2 = sqrt(2.0)


def parse_bid(code: str) -> tuple[int, int]:
    """A bid code ("7H", "10NT", "5SS") as (tricks, strain index)."""
    strain = code[-2:] if code[-2:] in ("SS", "NT") else code[-1]
    return int(code[: -len(strain)]), STRAINS.index(strain)


def bid_value(bid: tuple[int, int]) -> int:
    """What the bid scores when made (N-5.2): 30 a trick above 4, 40 in SS and NT."""
    tricks, strain = bid
    return (tricks - MIN_BID) * (40 if strain >= SANS_SOUCI else 30)


def highest_bid(events: list[dict[str, Any]]) -> tuple[int, int] | None:
    """The highest bid of this deal so far: each bid beats the ones before it."""
    high = None
    for event in events:
        if event["type"] in ("bid", "raise"):
            high = parse_bid(event["bid"])
    return high


def order_key(card: int, sans_souci: bool) -> int:
    """The card's strength within its suit: the rank, except that in sans souci the
    court cards and the ace drop below the six (N-1.5: 10 9 8 7 6 A K Q J)."""
    rank = rank_of(card)
    return rank - 9 if sans_souci and rank > TEN else rank


def _expected_longest(out: int) -> float:
    """How many rounds of a suit it takes, on average, until both opponents are out of
    it, when they hold `out` of its cards (split at random between their two hands of
    12): after that our remaining cards of the suit are all masters."""
    others = 24
    ways = [comb(out, x) * comb(others - out, 12 - x) for x in range(out + 1)]
    return sum(w * max(x, out - x) for x, w in enumerate(ways)) / comb(others, 12)


EXPECTED_LONGEST = tuple(_expected_longest(out) for out in range(10))


def card_tricks(keys: list[int], top: int) -> list[float]:
    """The trick each card of one suit should bring, from the strength keys of the
    cards, strongest first.

    Going down from our best card: a card is a trick when every card above it is ours
    (A K: two), half a trick when one card above it is missing and we hold a smaller
    card more to wait with (K x, A Q x), a quarter when two are missing (Q x x)."""
    length = len(keys)
    tricks = []
    for k, key in enumerate(keys):
        missing = top - key - k  # outstanding cards above this one
        if missing == 0:
            tricks.append(1.0)
        elif missing == 1 and length >= k + 2:
            tricks.append(0.5)
        elif missing == 2 and length >= k + 3:
            tricks.append(0.25)
        else:
            tricks.append(0.0)
    return tricks


class SuitFacts:
    """What the trick estimates read about one suit of a hand, in one rank order."""

    __slots__ = ("length", "honours", "early", "as_trumps", "seconds")

    def __init__(self, cards: list[int], sans_souci: bool) -> None:
        top = TEN if sans_souci else ACE  # the strength key of the best card of a suit
        keys = sorted((order_key(c, sans_souci) for c in cards), reverse=True)
        tricks = card_tricks(keys, top)
        self.length = len(keys)
        self.honours = sum(tricks)  # its sure and likely winners
        self.early = sum(tricks[:2])  # those of the first two rounds, before any ruff
        # As trumps every card the opponents cannot match wins too: those played after
        # the opponents' trumps are out (sans souci has no trumps).
        self.as_trumps = 0.0
        if not sans_souci:
            rounds = EXPECTED_LONGEST[9 - len(keys)]
            self.as_trumps = sum(
                max(t, min(1.0, max(0.0, k + 1 - rounds))) for k, t in enumerate(tricks)
            )
        self.seconds = keys.count(top - 1)  # kings (nines in sans souci)


def trick_features(suits: list[SuitFacts], trump: int) -> dict[str, float]:
    """The facts about a hand that the trick estimates read (trump -1: none)."""
    features = dict.fromkeys(
        ("trump_tricks", "trumps", "early_side", "honours", "seconds", "stopped", "voids"), 0.0
    )
    for suit, facts in enumerate(suits):
        if suit == trump:
            features["trump_tricks"] = facts.as_trumps
            features["trumps"] = facts.length
        else:
            features["early_side"] += facts.early
            features["voids"] += facts.length == 0
        features["honours"] += facts.honours
        features["seconds"] += facts.seconds
        features["stopped"] += facts.honours > 0 or facts.length >= 4
    return features


# Per kind of strain: (intercept, weights), a linear estimate of the tricks this bot
# takes as declarer, fitted by least squares on 4,000 random deals, each hand played
# in all six strains by this bot against two defenders of this bot (73% of the
# variance explained with trumps, 45% without; the rest is the other hands). What
# the weights say: with trumps, every trump counts more than half a trick and sure
# trump tricks as much again, side winners count in the first two rounds only (then
# they get ruffed); without trumps, only winners and stopped suits count (the
# defenders run the others), and a void is a suit they run.
TRICK_MODELS: dict[str, tuple[float, dict[str, float]]] = {
    "trump": (
        -1.34,
        {
            "trump_tricks": 0.57,
            "trumps": 0.62,
            "early_side": 0.83,
            "seconds": 0.24,
            "stopped": 0.27,
        },
    ),
    "sans-souci": (-0.31, {"honours": 0.70, "seconds": 0.39, "stopped": 0.60, "voids": -0.36}),
    "sans-atout": (-0.29, {"honours": 0.78, "seconds": 0.38, "stopped": 0.54, "voids": -0.44}),
}


def strain_kind(strain: int) -> str:
    return (
        "trump" if strain < SANS_SOUCI else "sans-souci" if strain == SANS_SOUCI else "sans-atout"
    )


def estimate_all(hand: list[int]) -> list[float]:
    """The tricks this hand should take as declarer in each strain, clubs to sans
    atout (see TRICK_MODELS)."""
    suits = by_suit(hand)
    normal = [SuitFacts(cards, False) for cards in suits]
    sans_souci = [SuitFacts(cards, True) for cards in suits]
    estimates = []
    for strain in range(len(STRAINS)):
        intercept, weights = TRICK_MODELS[strain_kind(strain)]
        facts = sans_souci if strain == SANS_SOUCI else normal
        features = trick_features(facts, STRAIN_TRUMP[strain])
        estimates.append(intercept + sum(w * features[name] for name, w in weights.items()))
    return estimates


# How far the tricks actually taken stray from the estimate (the standard deviation of
# the fit's residuals): trumps keep a hand's tricks much more predictable.
TRICK_SPREAD = {"trump": 0.95, "sans-souci": 1.55, "sans-atout": 1.52}
# What passing is taken to gain when its outcome is open (see `pass_value`). Measured
# against two copies of this bot, bidding down to -20 gains about 18 points a game
# over bidding only what is expected to gain; asking the bid to be at most the
# estimated tricks (no EV) loses about 30.
BID_THRESHOLD = -20.0
RAISE_EDGE = 20.0  # a raise must be expected to gain this much more than the bid held


def level_gains(strain: int, estimate: float) -> list[float]:
    """What holding each level (index: tricks, 0..12) of `strain` should gain on each
    opponent: made, the bid's value (N-5.2); failed, each opponent scores 40 (50 in SS
    and NT) for every trick short (N-5.3). The tricks taken are read as normal around
    the estimate (spread TRICK_SPREAD); the expected shortfall at level n is the sum
    over k < n of the chance of taking at most k tricks."""
    spread = TRICK_SPREAD[strain_kind(strain)] * SQRT2
    per_trick = 40 if strain >= SANS_SOUCI else 30
    short_value = 50 if strain >= SANS_SOUCI else 40
    gains = [0.0]
    short = 0.0
    for tricks in range(1, 13):
        fewer = 0.5 * (1.0 + erf((tricks - 0.5 - estimate) / spread))  # P(taken < tricks)
        short += fewer
        gains.append((1.0 - fewer) * (tricks - MIN_BID) * per_trick - short * short_value)
    return gains


def best_bid(
    estimates: list[float], above: tuple[int, int] | None
) -> tuple[float, tuple[int, int]]:
    """The bid higher than `above` that should gain most, with its expected gain, over
    every strain and level of at least 5 tricks (a made 4 scores nothing), given the
    trick estimates of each strain: each level weighs the bid's value against the
    chance and cost of falling short."""
    best = (float("-inf"), (MIN_BID, 0))
    for strain, estimate in enumerate(estimates):
        low = MIN_BID + 1  # the lowest level of this strain that is worth bidding
        if above is not None:
            low = max(low, above[0] + (strain <= above[1]))
        if low <= 12:
            gains = level_gains(strain, estimate)
            tricks = max(range(low, 13), key=gains.__getitem__)
            best = max(best, (gains[tricks], (tricks, strain)))
    return best


def trianon_gain(hand: list[int]) -> float:
    """What a Trianon round (N-6) should gain this hand on each opponent: high cards
    take tricks that cost points, voids and singletons let it shed them. A linear fit
    on 6,000 Trianon rounds played by this bot (half the variance explained)."""
    pips = sum(rank_of(c) - SIX for c in hand)  # 0 for a six .. 8 for an ace
    lengths = [len(cards) for cards in by_suit(hand)]
    return 253.7 - 5.48 * pips + 48.7 * lengths.count(0) + 17.9 * lengths.count(1)


def pass_value(view: dict[str, Any], hand: list[int]) -> float:
    """What passing should gain on each opponent. When the other two have passed
    without a bid, passing makes the deal a Trianon round (N-3.5): worth
    `trianon_gain`. Otherwise what follows is unknown; a hand with winners then loses a
    little on average (an opponent's contract, or a Trianon round it takes tricks in),
    which BID_THRESHOLD stands for."""
    events = view["events"]
    if len(events) == 2 and all(e["type"] == "pass" for e in events):
        return trianon_gain(hand)
    return BID_THRESHOLD


def choose_bid(view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Bid the contract expected to gain most when it beats the highest bid so far and
    is expected to gain more than passing, else pass. A weak hand passes: if everyone
    does, the deal is a Trianon, where few high cards is exactly what scores."""
    hand = [CARD[c] for c in view["hand"]]
    gain, bid = best_bid(estimate_all(hand), highest_bid(view["events"]))
    if gain > pass_value(view, hand):
        return find_bid(legal, bid)
    return legal[0]  # pass


def choose_raise(view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Keep the bid: it was chosen as the best the hand supports, and a higher one is
    riskier. Raise only when the hand clearly supports a better contract (by
    RAISE_EDGE): the auction ended below what the bidding chose, or changed it."""
    hand = [CARD[c] for c in view["hand"]]
    held = highest_bid(view["events"])
    if held is None:
        return legal[0]
    estimates = estimate_all(hand)
    held_gain = level_gains(held[1], estimates[held[1]])[held[0]]
    gain, bid = best_bid(estimates, held)
    if gain > held_gain + RAISE_EDGE:
        return find_bid(legal, bid)
    return legal[0]  # keep


def find_bid(legal: list[dict[str, Any]], bid: tuple[int, int]) -> dict[str, Any]:
    """The legal action making `bid` (a bid or a raise), else the first (pass, keep)."""
    code = f"{bid[0]}{STRAINS[bid[1]]}"
    return next((option for option in legal if option.get("bid") == code), legal[0])


class TrianonTable:
    """What the seat knows during Trianon play, rebuilt from the view each decision."""

    __slots__ = ("seat", "declarer", "trump", "sans_souci", "hand", "trick", "unseen", "voids")

    def __init__(self, view: dict[str, Any]) -> None:
        hand = [CARD[c] for c in view["hand"]]
        plays = [(e["seat"], CARD[e["card"]]) for e in view["events"] if e["type"] == "play"]
        voids: list[set[int]] = [set(), set(), set()]
        for start in range(0, len(plays), 3):
            trick = plays[start : start + 3]
            led = suit_of(trick[0][1])
            for seat, card in trick[1:]:
                if suit_of(card) != led:
                    voids[seat].add(led)
        self.seat: int = view["seat"]
        self.declarer: int = view["declarer"]  # -1 in a Trianon round
        self.trump = SUITS.index(view["trump"]) if view["trump"] else -1
        self.sans_souci: bool = view["bid"].endswith("SS")
        self.hand = hand
        self.trick = [(t["seat"], CARD[t["card"]]) for t in view["trick"]]  # leader first
        self.unseen = TRIANON_DECK.difference(hand, (c for _, c in plays))  # others hold
        self.voids = voids  # per seat, the suits it is known to lack

    def key(self, card: int) -> int:
        return order_key(card, self.sans_souci)

    def beats(self, card: int, best: int) -> bool:
        """Does `card` beat `best`, the card winning the trick so far (N-4.3)?"""
        if suit_of(card) == suit_of(best):
            return self.key(card) > self.key(best)
        return suit_of(card) == self.trump

    def winner(self) -> tuple[int, int]:
        """The seat winning the current trick so far, and its card."""
        seat, best = self.trick[0]
        for s, card in self.trick[1:]:
            if self.beats(card, best):
                seat, best = s, card
        return seat, best

    def followers(self) -> list[int]:
        """The seats still to play to the current trick after this one."""
        return [(self.seat + k) % 3 for k in range(1, 3 - len(self.trick))]

    def others(self) -> list[int]:
        return [s for s in range(3) if s != self.seat]

    def friendly(self, seat: int) -> bool:
        """Whether a trick won by `seat` is good for us: the two defenders score alike
        (N-5.3: each gets the same for every trick the declarer falls short), so to a
        defender the other defender's tricks are as good as its own."""
        if seat == self.seat:
            return True
        return self.declarer >= 0 and self.declarer not in (seat, self.seat)

    def mine_in(self, suit: int) -> list[int]:
        return [c for c in self.hand if suit_of(c) == suit]

    def unseen_in(self, suit: int) -> list[int]:
        return [c for c in self.unseen if suit_of(c) == suit]

    def higher_out(self, card: int) -> int:
        """How many cards the others may hold that beat `card` in its suit."""
        key = self.key(card)
        return sum(1 for c in self.unseen_in(suit_of(card)) if self.key(c) > key)

    def may_follow(self, seat: int, suit: int) -> bool:
        return suit not in self.voids[seat] and any(suit_of(c) == suit for c in self.unseen)

    def may_be_void(self, seat: int, suit: int) -> bool:
        """Known void, or surely so: nobody else has a card of the suit left."""
        return suit in self.voids[seat] or not self.unseen_in(suit)

    def may_ruff(self, seat: int, suit: int) -> bool:
        """Could `seat` trump a lead of `suit` (void in it, trumps maybe left)?"""
        trump = self.trump
        return (
            trump >= 0
            and suit != trump
            and self.may_be_void(seat, suit)
            and self.may_follow(seat, trump)
        )

    def could_beat(self, seat: int, card: int, led: int) -> bool:
        """Could `seat`, still to play, beat `card` if it wins the trick so far?"""
        suit = suit_of(card)
        key = self.key(card)
        if suit == led:
            if self.may_follow(seat, suit) and any(self.key(c) > key for c in self.unseen_in(suit)):
                return True
            return self.may_ruff(seat, suit)
        # a trump on another suit: beaten only by a higher trump from a void hand
        return (
            self.may_be_void(seat, led)
            and self.may_follow(seat, suit)
            and any(self.key(c) > key for c in self.unseen_in(suit))
        )

    def master(self, card: int) -> bool:
        """Nothing the others hold beats `card` in its suit."""
        return self.higher_out(card) == 0


def play_trianon_card(view: dict[str, Any], legal: list[int]) -> int:
    """The card to play: dodge tricks in a Trianon round, else take or stop them."""
    table = TrianonTable(view)
    if table.declarer < 0:
        return dodge(table, legal)
    if not table.trick:
        if table.declarer == table.seat:
            return declarer_lead(table, legal)
        return defender_lead(table, legal)
    return contest(table, legal)


# ----------------------------------------------------------------- Trianon round (N-6)


def dodge(table: TrianonTable, cards: list[int]) -> int:
    """In a Trianon round every trick costs (150, 105, 70, 35 for 0..3 tricks), as in
    No Tricks: duck with the highest card that still loses, win (when forced) with the
    highest card, throw the most dangerous card when void, lead the safest card."""
    if not table.trick:
        return min(cards, key=lambda c: (lead_risk(table, c), c))
    led = suit_of(table.trick[0][1])
    if suit_of(cards[0]) != led:  # the legal cards are all of the suit led, or none is
        return max(cards, key=lambda c: (danger(table, c), c))
    best = max(c for _, c in table.trick if suit_of(c) == led)
    below = [c for c in cards if c < best]
    if below:
        return max(below)
    lowest = min(cards)
    if not any(table.could_beat(s, lowest, led) for s in table.followers()):
        return max(cards)  # the trick is ours whatever we play: spend the highest card
    return lowest


def lead_risk(table: TrianonTable, card: int) -> float:
    """How bad leading `card` is in a Trianon round: its chance to win the trick, and a
    little for the length of its suit, so that short suits go first and leave voids
    to shed high cards on. (Against copies of itself this lead gains about 2 points a
    Trianon round over the bare chance.)"""
    return lead_win_chance(table, card) + 0.05 * len(table.mine_in(suit_of(card)))


def lead_win_chance(table: TrianonTable, card: int) -> float:
    """A rough chance that `card`, led, wins its trick: sure when nobody can follow;
    else the share of the suit's unseen cards below it, once per follower."""
    suit = suit_of(card)
    out = table.unseen_in(suit)
    followers = [s for s in table.others() if table.may_follow(s, suit)]
    higher = table.higher_out(card)
    if not out or not followers or not higher:
        return 1.0
    return ((len(out) - higher) / len(out)) ** min(len(followers), len(out))


def danger(table: TrianonTable, card: int) -> float:
    """How much we want to be rid of `card` when void in a Trianon round: cards that
    few unseen cards beat will win tricks later; a last card of a suit makes a void
    that lets us shed more."""
    suit = suit_of(card)
    lower = sum(1 for c in table.unseen_in(suit) if c < card)
    short = 2.0 if len(table.mine_in(suit)) == 1 else 0.0
    return lower - table.higher_out(card) + short


# ----------------------------------------------------------------- contracts (N-4, N-5)


def cheapest(table: TrianonTable, cards: list[int]) -> int:
    """The weakest of some cards that all do the job: side suits before trumps."""
    return min(cards, key=lambda c: (suit_of(c) == table.trump, table.key(c), c))


def keep_value(table: TrianonTable, card: int) -> float:
    """How much a card is worth keeping: trumps, then cards few unseen cards beat;
    a declarer without trumps keeps its long suits (their small cards become winners),
    and with trumps left a singleton is worth giving up, to ruff the suit later."""
    suit = suit_of(card)
    value = 0.1 * table.key(card) + 10 * max(0, 3 - table.higher_out(card))
    if suit == table.trump:
        value += 100
    length = len(table.mine_in(suit))
    if table.declarer == table.seat and table.trump < 0 and length >= 4:
        value += 5
    if table.trump >= 0 and suit != table.trump and length == 1 and table.mine_in(table.trump):
        value -= 3
    return value


def shed(table: TrianonTable, cards: list[int]) -> int:
    """A card that is not meant to win: the smallest of the suit led, or when void the
    card least worth keeping."""
    led = suit_of(table.trick[0][1]) if table.trick else -1
    if suit_of(cards[0]) == led:
        return min(cards, key=lambda c: (table.key(c), c))
    return min(cards, key=lambda c: (keep_value(table, c), c))


def contest(table: TrianonTable, cards: list[int]) -> int:
    """Second or third to a trick in a contract. The declarer wants every trick; a
    defender wants the trick won by either defender. Leave a trick that is already
    safe for our side; win it when we can be sure to, with the cheapest card that no
    opponent still to play can beat; else, following suit, play a card that only one
    unseen card beats (it wins, or it costs the opponent its top card: measured, it
    costs the declarer about 0.04 tricks a deal when defenders do it); else play small."""
    led = suit_of(table.trick[0][1])
    seat, best = table.winner()
    threats = [s for s in table.followers() if not table.friendly(s)]
    if table.friendly(seat) and not any(table.could_beat(s, best, led) for s in threats):
        return shed(table, cards)
    sure = [
        c
        for c in cards
        if table.beats(c, best) and not any(table.could_beat(s, c, led) for s in threats)
    ]
    if sure:
        return cheapest(table, sure)
    wins = [
        c for c in cards if table.beats(c, best) and suit_of(c) == led and table.higher_out(c) <= 1
    ]
    if wins:
        return max(wins, key=table.key)
    return shed(table, cards)


def sequence_lead(table: TrianonTable, suit_cards: list[int]) -> int:
    """The card to lead from a suit we do not command: the top of two touching cards
    just below the master (K Q against the ace: the king drives the ace out and makes
    the queen a master), else the smallest card."""
    ordered = sorted(suit_cards, key=table.key, reverse=True)
    if len(ordered) >= 2 and table.higher_out(ordered[0]) == 1:
        if table.higher_out(ordered[1]) == 1:  # nothing missing between the two
            return ordered[0]
    return ordered[-1]


def declarer_lead(table: TrianonTable, cards: list[int]) -> int:
    """The declarer leads: draw trumps while it commands them (or has many more than
    the opponents), so that its side winners are not ruffed; then cash masters the
    opponents cannot ruff, short suits first (measured: better than long suits first,
    most of all in sans souci); then lead from the longest side suit to set up its
    small cards."""
    trump = table.trump
    opponents = table.others()
    if trump >= 0:
        mine = table.mine_in(trump)
        out = table.unseen_in(trump)
        if mine and out and any(table.may_follow(s, trump) for s in opponents):
            top = max(mine, key=table.key)
            if table.master(top):
                return top
            if len(mine) >= len(out) + 2:
                return min(mine, key=table.key)
    masters = [
        c
        for c in cards
        if table.master(c) and not any(table.may_ruff(s, suit_of(c)) for s in opponents)
    ]
    side = [c for c in masters if suit_of(c) != trump]
    if side or masters:
        pool = side or masters
        return min(pool, key=lambda c: (len(table.mine_in(suit_of(c))), -table.key(c), c))
    return lead_from_longest(table, cards, lambda s: any(table.may_ruff(o, s) for o in opponents))


def lead_from_longest(table: TrianonTable, cards: list[int], avoid: Callable[[int], bool]) -> int:
    """Lead from the longest suit that is neither trumps nor to be avoided (when there
    is one), by `sequence_lead`."""
    suits = sorted({suit_of(c) for c in cards})
    preferred = [s for s in suits if s != table.trump and not avoid(s)]
    pool = preferred or [s for s in suits if s != table.trump] or suits
    suit = max(pool, key=lambda s: (len(table.mine_in(s)), -s))
    return sequence_lead(table, [c for c in cards if suit_of(c) == suit])


def defender_lead(table: TrianonTable, cards: list[int]) -> int:
    """A defender leads: cash masters the declarer cannot ruff; give the other defender
    a ruff when it is void and the declarer is not; else lead from a long suit the
    declarer cannot ruff."""
    declarer = table.declarer
    partner = next(s for s in table.others() if s != declarer)
    masters = [c for c in cards if table.master(c) and not table.may_ruff(declarer, suit_of(c))]
    if masters:
        return max(masters, key=lambda c: (suit_of(c) != table.trump, table.key(c), c))
    for suit in sorted({suit_of(c) for c in cards}):
        if table.may_ruff(partner, suit) and not table.may_be_void(declarer, suit):
            return min((c for c in cards if suit_of(c) == suit), key=table.key)
    return lead_from_longest(table, cards, lambda s: table.may_ruff(declarer, s))


# --------------------------------------------------------------------------- the bot


class GreedyBot(Bot):
    """Plays Trix and Trianon by rules of thumb; see the module docstring."""

    name = "greedy"
    version = "1.0"
    games = ("trix", "trianon")

    def act(self, turn: Turn) -> dict[str, Any]:
        legal = turn.legal
        if len(legal) == 1:
            return legal[0]
        view = turn.view
        if turn.game["game"] == "trianon":
            return act_trianon(turn.kind, view, legal)
        if turn.kind == "contract":
            doubling = turn.game["options"].get("doubling", "true") != "false"
            return choose_contract(view, legal, doubling)
        if turn.kind == "expose":
            return choose_exposure(view, legal)
        if turn.kind != "play":
            return legal[0]
        cards = [CARD[a["card"]] for a in legal]
        if view["contract"] == TRIX:
            card = play_trix_card(view, cards)
        else:
            card = play_trick_card(view, cards)
        return legal[cards.index(card)]


def act_trianon(kind: str, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A Trianon decision: a bid, the declarer's keep-or-raise, or a card."""
    if kind == "bid":
        return choose_bid(view, legal)
    if kind == "raise":
        return choose_raise(view, legal)
    if kind != "play":
        return legal[0]
    cards = [CARD[a["card"]] for a in legal]
    return legal[cards.index(play_trianon_card(view, cards))]


if __name__ == "__main__":
    serve(GreedyBot())
