"""The greedy bot's Trianon heuristics (docs/rules/trianon.md), by decision:

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

Everything is rebuilt from the seat's view (`turn.view` as a dict) at each decision.
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb, erf, sqrt
from typing import Any

from arena.strategies.greedy.cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    SUITS,
    TEN,
    by_suit,
    make_card,
    parse_card,
    rank_of,
    suit_of,
)

# Trianon (docs/rules/trianon.md) is played with the same card ints: the 36-card deck is
# the cards of rank six and up. Bids are handled as (tricks, strain) tuples, which compare as the
# bids do (N-3.2).

STRAINS = ("C", "S", "D", "H", "SS", "NT")  # low to high (N-3.1)
STRAIN_TRUMP = (CLUBS, SPADES, DIAMONDS, HEARTS, -1, -1)  # -1: no trump (N-4.3)
SANS_SOUCI = 4  # the strain index of sans souci; sans atout is 5
SIX = 4  # the lowest rank of the 36-card deck (N-1.3)
TRIANON_DECK = frozenset(make_card(r, s) for s in range(4) for r in range(SIX, 13))
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
    hand = [parse_card(c) for c in view["hand"]]
    gain, bid = best_bid(estimate_all(hand), highest_bid(view["events"]))
    if gain > pass_value(view, hand):
        return find_bid(legal, bid)
    return legal[0]  # pass


def choose_raise(view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Keep the bid: it was chosen as the best the hand supports, and a higher one is
    riskier. Raise only when the hand clearly supports a better contract (by
    RAISE_EDGE): the auction ended below what the bidding chose, or changed it."""
    hand = [parse_card(c) for c in view["hand"]]
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
        hand = [parse_card(c) for c in view["hand"]]
        plays = [(e["seat"], parse_card(e["card"])) for e in view["events"] if e["type"] == "play"]
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
        self.trick = [(t["seat"], parse_card(t["card"])) for t in view["trick"]]  # leader first
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
