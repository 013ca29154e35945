"""The greedy bot's Trix heuristics, by decision:

- contract: a small linear model per contract estimates this hand's score in it; the
  King picks the contract whose estimate beats that contract's average the most, so
  good hands are spent where they gain most and the rest is left for later hands.
- expose: only when the exposed card is very likely to end up with someone else.
- trick contracts: duck under the winning card (with the highest card that still
  loses), drop own penalty cards under higher cards, shed penalty cards and high
  cards when void, and lead the card least likely to win the trick.
- Trix contract: play cards that open the way to more of one's own cards (Jacks with
  company first), keep cards that only help others, never block oneself.

Everything is rebuilt from the seat's view (`turn.view` as a dict) at each decision.
"""

from __future__ import annotations

from typing import Any

from arena.strategies.greedy.cards import (
    ACE,
    AH,
    CLUBS,
    DIAMONDS,
    FIVE,
    HEARTS,
    JACK,
    KH,
    KING,
    NINE,
    QUEEN,
    SPADES,
    TEN,
    by_suit,
    make_card,
    parse_card,
    rank_of,
    suit_of,
)

KING_OF_HEARTS, DIAMONDS_C, QUEENS_C, NO_TRICKS, TRIX = (
    "king-of-hearts",
    "diamonds",
    "queens",
    "no-tricks",
    "trix",
)


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
    features = hand_features([parse_card(c) for c in view["hand"]])
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
    hand = [parse_card(c) for c in view["hand"]]
    exposable = {parse_card(c) for option in legal for c in option["cards"]}
    if view["contract"] == KING_OF_HEARTS:
        wanted = {KH} if KH in exposable and kh_exposure_safe(hand) else set()
    else:
        wanted = {q for q in exposable if queen_exposure_safe(hand, q)}
    for option in legal:
        if {parse_card(c) for c in option["cards"]} == wanted:
            return option
    return next(o for o in legal if not o["cards"])


# --------------------------------------------------------------------------- tricks


class Table:
    """What the seat knows in a trick contract, rebuilt from the view each decision."""

    __slots__ = ("seat", "contract", "hand", "trick", "unseen", "voids", "exposed")

    def __init__(self, view: dict[str, Any]) -> None:
        contract = view["contract"]
        hand = [parse_card(c) for c in view["hand"]]
        plays = [(e["seat"], parse_card(e["card"])) for e in view["events"] if e["type"] == "play"]
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
        self.trick = [(t["seat"], parse_card(t["card"])) for t in view["trick"]]  # leader first
        self.unseen = set(range(52)).difference(hand, (c for _, c in plays))  # others hold
        self.voids = voids  # per seat, the suits it is known to lack
        self.exposed = [{parse_card(c) for c in cards} for cards in view["exposed"]]

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
        if rank > QUEEN and make_card(QUEEN, suit) in table.unseen:  # would catch a queen
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
        queens_out = sum(1 for s in range(4) if make_card(QUEEN, s) in table.unseen)
        cost = chance * (3 + 25 * voids * (queens_out > 0) * 0.5)
        if rank == QUEEN:
            cost += 25 * chance
        elif rank > QUEEN and make_card(QUEEN, suit) in table.unseen:
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
    hand = {parse_card(c) for c in view["hand"]}
    return max(legal, key=lambda c: (trix_value(c, hand), -c))
