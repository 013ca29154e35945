"""Trianon: three players bid on tricks, then play all twelve (docs/rules/trianon.md).

Built like `arena.games.trix`: the state is mutable and made of ints, `apply` is the only
way to change it and `observe` the only way hidden cards leave it (N-8). The legal
actions are recomputed once per transition and kept on the state as a tuple.

Cards are the 52-card ints of `arena.cards` (card = suit * 13 + rank, rank 0 is the two);
the Trianon deck is the 36 of them whose rank is 6 or more (N-1.3).

Actions are ints:
- a card (one of the 36 deck cards, 0..51) is a play;
- `PASS` (52) is a pass in the bidding; `KEEP` (53) is the declarer keeping its bid;
- `BID_BASE + b` (64..117) is the bid b, and `RAISE_BASE + b` (128..181) the declarer
  raising to the bid b (N-3.4), where b = (tricks - 4) * 6 + strain and the strains are
  numbered low to high: clubs 0, spades 1, diamonds 2, hearts 3, sans souci 4, sans
  atout 5 (N-3.1). So a higher b is a higher bid (N-3.2), and `BID_CODES[b]` is its code:
  tricks then strain, `4C` .. `12NT` (`SS` sans souci, `NT` sans atout).

The documented order of legal actions, whose first entry is the referee's fallback:
- "bid": pass first, then every bid higher than the highest so far, ascending by
  (tricks, strain) with C < S < D < H < SS < NT;
- "raise": keep first, then every bid higher than the declarer's bid, ascending;
- "play": cards in ascending card-int order (clubs, diamonds, hearts, spades; 6 to A),
  whatever the contract's rank order.
So the fallback is: pass, keep, the lowest card.

Bidding, as this engine reads N-3.3 .. N-3.5:
- The seat after the dealer speaks first, then the next seat in turn order that has not
  passed. A seat asked to speak may pass or make any bid higher than the highest so far
  (any bid at all when there is none). A pass is final, even for a seat that bid before.
- After each call: if all three seats have passed, the deal is a Trianon (N-3.5, N-6).
  If two have passed and the third has bid, the third is the declarer at once: it is
  not asked to bid again (its last bid is then always the highest bid).
- So when the first two seats pass, the third (the dealer) still speaks: a bid makes it
  the declarer at once; a pass makes the deal a Trianon. A seat never has to speak while
  its own bid is the highest (the other two would have passed, ending the bidding).
- A bid of 12NT leaves the others only "pass".
- The declarer then decides once (N-3.4), even when nobody bid against it: keep, or
  raise to any bid higher than its bid by N-3.2, which may change the strain (7H may
  become 7SS or 8C). At 12NT "keep" is the only legal action; it is still a decision
  (which the referee plays without asking), so `automatic` stays 0.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from arena.cards import (
    CARD_CODES,
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    SUIT_MASK,
    SUIT_TABLES,
    TEN,
    Card,
    CardSet,
    cards_of,
    codes_of,
    parse_card,
    shuffled_order,
)
from arena.errors import CardError, ConfigError, IllegalAction
from arena.games.base import (
    PUBLIC,
    Action,
    DealSummary,
    Event,
    SummaryKind,
    copy_slotted_state,
    replay_events,
)

SEATS = 3
TRICKS = 12  # N-4.4: all 12 tricks are played
HAND_SIZE = 12

# N-1.3: the 36 cards 6..A of each suit, in ascending card-int order (the deal's order).
LOW_RANK = 4  # the six
DECK: tuple[Card, ...] = tuple(c for c in range(52) if c % 13 >= LOW_RANK)
DECK_MASK: CardSet = sum(1 << c for c in DECK)

# N-3.1: strains low to high, as bid codes spell them.
STRAINS = ("C", "S", "D", "H", "SS", "NT")
SANS_SOUCI, SANS_ATOUT = 4, 5
STRAIN_TRUMP = (CLUBS, SPADES, DIAMONDS, HEARTS, -1, -1)  # N-4.3: no trump in SS and NT
MIN_BID_TRICKS = 4
NUM_BIDS = 9 * len(STRAINS)  # 4..12 tricks
BID_CODES: tuple[str, ...] = tuple(f"{n}{s}" for n in range(4, 13) for s in STRAINS)
_BID_INDEX = {code: b for b, code in enumerate(BID_CODES)}

PASS: Action = 52
KEEP: Action = 53
BID_BASE: Action = 64
RAISE_BASE: Action = 128

# N-5.2, N-5.3, N-6.2
TRICK_VALUE = 30
TRICK_VALUE_SANS = 40  # sans atout or sans souci
SHORT_VALUE = 40
SHORT_VALUE_SANS = 50
TRIANON_SCORES = (150, 105, 70, 35)  # 0, 1, 2, 3 tricks; 4 or more score 0

# Decision kinds, as the driver and the wire see them.
KIND_BID, KIND_RAISE, KIND_PLAY, KIND_OVER = "bid", "raise", "play", ""

_CARD_BIT = tuple(1 << c for c in range(52))
_DECK_BIT = tuple(1 << c for c in DECK)  # position p of the 36-card deck -> its bit
_NEXT_SEAT = (1, 2, 0)  # N-1.2

# Rank keys for comparing two cards of one suit (a state's `rank_key` is one of them, public
# so that a bot's own playouts compare cards as the engine does): N-1.4 is the card int
# itself; N-1.5 puts 10 9 8 7 6 above A K Q J (a rank r <= TEN keeps r, a court card or
# ace drops 9).
NORMAL_KEY: tuple[int, ...] = tuple(range(52))
SANS_SOUCI_KEY: tuple[int, ...] = tuple(r if (r := c % 13) <= TEN else r - 9 for c in range(52))

# Legal actions of the bidding and of the declarer's choice, made once.
_BID_LEGAL: tuple[tuple[Action, ...], ...] = tuple(
    (PASS,) + tuple(BID_BASE + b for b in range(low, NUM_BIDS)) for low in range(NUM_BIDS + 1)
)  # index: the lowest bid still allowed (highest bid so far + 1)
_RAISE_LEGAL: tuple[tuple[Action, ...], ...] = tuple(
    (KEEP,) + tuple(RAISE_BASE + b for b in range(held + 1, NUM_BIDS)) for held in range(NUM_BIDS)
)


def bid_tricks(bid: int) -> int:
    """The number of tricks of bid index `bid` (N-3.1)."""
    return MIN_BID_TRICKS + bid // 6


def bid_strain(bid: int) -> int:
    """The strain of bid index `bid`: an index into STRAINS."""
    return bid % 6


@dataclass(frozen=True)
class TrianonOptions:
    """The rule options of N-9, validated."""

    target: int = 500
    max_deals: int = 200


OPTION_MAXIMA = {  # past these a game could not finish (max_deals) or the value is a typo
    "target": 1_000_000_000,
    "max_deals": 1_000,
}


def _positive_int(key: str, value: Any) -> int:
    """A positive whole number up to `OPTION_MAXIMA[key]`: an int, a float with no
    fraction, or ASCII digits as text; anything else is refused, naming the option."""
    number: int | None = None
    text = value.strip() if isinstance(value, str) else ""
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif text.isascii() and text.isdigit():  # "²" is a digit to isdigit, not to int
        number = int(text)
    if number is None or not 1 <= number <= OPTION_MAXIMA[key]:
        raise ConfigError(
            f"rule option {key!r} must be a positive whole number of at most "
            f"{OPTION_MAXIMA[key]}, not {reprlib.repr(value)}"
        )
    return number


def parse_options(raw: Mapping[str, Any] | None = None) -> TrianonOptions:
    """Validate N-9 options; every error names the option and what is allowed."""
    raw = dict(raw or {})
    known = TrianonOptions.__dataclass_fields__
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ConfigError(
            f"unknown Trianon rule option {reprlib.repr(unknown[0])}; the options are: "
            + ", ".join(known)
        )
    return TrianonOptions(**{key: _positive_int(key, value) for key, value in raw.items()})


class TrianonView(NamedTuple):
    """What one seat may know (N-8.1), built only by `observe`.

    Cards are ints and sets of cards are masks; `view_dict` turns it into codes.
    """

    seat: int
    deal: int  # deal number, 1-based
    dealer: int
    declarer: int  # -1 while bidding goes on, and in a Trianon round
    contract: int  # the contract's bid index, -1 until the declarer has decided (N-3.4)
    trump: int  # the trump suit, -1 when there is none (SS, NT, Trianon, not yet known)
    hand: CardSet
    events: tuple[tuple[int, Action], ...]  # this deal's decisions so far, in order
    trick: tuple[tuple[int, Card], ...]  # the current trick: (seat, card), leader first
    tricks_won: tuple[int, ...]  # per seat, tricks taken this deal
    deal_scores: tuple[tuple[int, ...], ...]  # the scores of every finished deal
    totals: tuple[int, ...]  # per seat, before the current deal
    to_move: int
    kind: str  # the decision `to_move` faces ("" when the game is over)
    legal: tuple[Action, ...]  # the legal actions when `seat` is to move, else ()
    options: TrianonOptions

    @property
    def cards_left(self) -> tuple[int, ...]:
        """Cards each seat still holds: 12 less the cards it played this deal (public)."""
        left = [HAND_SIZE, HAND_SIZE, HAND_SIZE]
        for seat, action in self.events:
            if action < 52:
                left[seat] -= 1
        return tuple(left)


class TrianonState:
    """A Trianon game in progress. Read it through `Trianon`; change it only with `apply`."""

    __slots__ = (
        "seed",
        "options",
        "to_move",
        "kind",
        "legal",
        "deal_index",
        "deal_limit",
        "first_dealer",
        "dealer",
        "hands",
        "dealt",
        "events",
        "passed",
        "has_bid",
        "high",
        "declarer",
        "contract",
        "trump",
        "rank_key",
        "trick",
        "led",
        "tricks_won",
        "tricks_played",
        "deal_scores",
        "totals",
        "records",
        "automatic",
    )

    def __init__(self, seed: str, options: TrianonOptions) -> None:
        self.seed = seed
        self.options = options
        self.to_move = -1
        self.kind = KIND_OVER
        self.legal: tuple[Action, ...] = ()
        self.deal_index = 0
        self.deal_limit = options.max_deals  # N-7.3
        self.first_dealer = 0  # N-2.2
        self.dealer = 0
        self.hands = [0, 0, 0]
        self.dealt: tuple[CardSet, ...] = (0, 0, 0)
        self.events: list[tuple[int, Action]] = []
        self.passed = 0  # mask over seats that have passed this deal (N-3.3)
        self.has_bid = 0  # mask over seats that have bid this deal (N-3.4)
        self.high = -1  # the highest bid so far, -1 if none
        self.declarer = -1
        self.contract = -1
        self.trump = -1
        self.rank_key = NORMAL_KEY
        self.trick: list[tuple[int, Card]] = []
        self.led = -1
        self.tricks_won = [0, 0, 0]
        self.tricks_played = 0
        self.deal_scores: list[tuple[int, ...]] = []
        self.totals = [0, 0, 0]
        self.records: list[dict[str, Any]] = []  # one per deal begun: dealer, hands, events
        self.automatic = 0  # Trianon makes no decision for a player

    @property
    def over(self) -> bool:
        return self.to_move < 0


@lru_cache(maxsize=256)
def deal_hands(seed: str, deal_index: int) -> tuple[CardSet, ...]:
    """N-2.1: deal `deal_index` (0-based) of the game `seed`.

    The shuffle is a permutation of the positions of the 36-card deck (DECK, ascending
    card ints); seat s gets positions 12s..12s+11, whoever deals.
    """
    order = shuffled_order("trianon", seed, deal_index, len(DECK))
    bit = _DECK_BIT.__getitem__
    return tuple(
        sum(map(bit, order[HAND_SIZE * s : HAND_SIZE * s + HAND_SIZE])) for s in range(SEATS)
    )


_bits = cards_of


def new_game(seed: str, options: TrianonOptions | None = None) -> TrianonState:
    """A game at its first decision, fully determined by (seed, options) (N-2.1)."""
    state = TrianonState(str(seed), options or TrianonOptions())
    _start_deal(state)
    return state


def new_deal(
    hands: tuple[CardSet, ...] | list[CardSet],
    dealer: int,
    options: TrianonOptions | None = None,
) -> TrianonState:
    """A one-deal game from given hands with a given dealer (tests, puzzles, analysis)."""
    hands = _dealt_hands(hands, "new_deal")
    if dealer not in range(SEATS):
        raise ConfigError(f"new_deal: the dealer must be seat 0, 1 or 2, not {dealer!r}")
    state = TrianonState("custom", options or TrianonOptions())
    state.deal_limit = 1
    state.first_dealer = dealer
    _start_deal(state, hands)
    return state


def state_from_deal(
    hands: tuple[CardSet, ...] | list[CardSet],
    dealer: int,
    events: tuple[tuple[int, Action], ...] | list[tuple[int, Action]] = (),
    options: TrianonOptions | None = None,
    *,
    deal_index: int = 0,
    deal_scores: tuple[tuple[int, ...], ...] | list[tuple[int, ...]] = (),
    totals: tuple[int, ...] | list[int] | None = None,
) -> TrianonState:
    """The state of a deal part-way through: `hands` as dealt, dealer `dealer`, and the
    deal's `events` so far (as `TrianonView.events` holds them) replayed by the rules.

    For a player's own analysis of a deal whose hidden hands it has guessed (search
    bots sample the others' hands consistent with their view, N-8, and play the deal
    on from here): with the keyword arguments copied from the seat's view, `observe`
    of the result for that seat equals the view the guess was made from.
    `deal_index`, `deal_scores` and `totals` only set what the view reports; the game
    ends when this deal ends, whatever the totals.

    Raises ConfigError for hands that are not a deal, and IllegalAction when an event
    is not legal at its turn (the guessed hands cannot have produced these events).
    """
    hands = _dealt_hands(hands, "state_from_deal")
    if dealer not in range(SEATS):
        raise ConfigError(f"state_from_deal: the dealer must be seat 0, 1 or 2, not {dealer!r}")
    state = TrianonState("custom", options or TrianonOptions())
    state.deal_index = deal_index
    state.deal_limit = deal_index + 1
    state.first_dealer = (dealer - deal_index) % SEATS  # N-2.2, so that this deal's is `dealer`
    state.deal_scores = [tuple(s) for s in deal_scores]
    state.totals = list(totals) if totals is not None else [0, 0, 0]
    _start_deal(state, hands)
    replay_events(state, events, apply, _describe_any)
    return state


def _dealt_hands(hands: Any, caller: str) -> tuple[CardSet, ...]:
    """`hands` as a tuple, when they are a deal: three disjoint hands of 12 cards that
    together hold the deck; ConfigError naming `caller` otherwise."""
    hands = tuple(hands)
    if (
        len(hands) != SEATS
        or any(h.bit_count() != HAND_SIZE for h in hands)
        or (hands[0] | hands[1] | hands[2]) != DECK_MASK
    ):
        raise ConfigError(
            f"{caller} needs three disjoint hands of 12 cards that together hold the "
            "36-card deck (6 to A in each suit)"
        )
    return hands


def copy_state(state: TrianonState) -> TrianonState:
    """An independent copy of `state`: playing on either never changes the other.

    For search over states a player built itself (`state_from_deal`): one replay of
    the deal, then a copy per line of play to try, instead of a replay per line."""
    return copy_slotted_state(state, _COPIED_LISTS)


def last_deal_copy(state: TrianonState) -> TrianonState:
    """A copy of `state` whose game ends when its current deal ends, whatever the deal
    count or the totals: `observe` after the deal's last event then shows the deal as
    it ended (every card played, its scores) instead of the next deal's start, which
    is what a replay viewer shows as the deal's last step."""
    new = copy_state(state)
    new.deal_limit = new.deal_index + 1
    return new


# The state's lists that play changes in place: a copy needs its own.
_COPIED_LISTS = ("hands", "events", "trick", "tricks_won", "deal_scores", "totals")


def _start_deal(state: TrianonState, hands: tuple[CardSet, ...] | None = None) -> None:
    i = state.deal_index
    if hands is None:
        hands = deal_hands(state.seed, i)
    state.dealt = hands
    state.hands = list(hands)
    dealer = state.dealer = (state.first_dealer + i) % SEATS  # N-2.2
    state.events = []
    state.passed = state.has_bid = 0
    state.high = state.declarer = state.contract = state.trump = -1
    state.rank_key = NORMAL_KEY
    state.trick = []
    state.tricks_won = [0, 0, 0]
    state.tricks_played = 0
    state.records.append(
        {"number": i + 1, "dealer": dealer, "hands": hands, "events": state.events, "scores": None}
    )
    state.to_move = _NEXT_SEAT[dealer]  # N-3.3: the seat after the dealer speaks first
    state.kind = KIND_BID
    state.legal = _BID_LEGAL[0]


def apply(state: TrianonState, action: Action) -> None:
    """Play `action` for the seat to move; raise IllegalAction (state unchanged) if illegal."""
    if action not in state.legal:
        raise IllegalAction(
            f"{_describe_any(action)} is not legal for seat {state.to_move} "
            f"({state.kind or 'game over'}); legal: "
            + ", ".join(describe_action(a) for a in state.legal)
        )
    apply_legal(state, action)


def apply_legal(state: TrianonState, action: Action) -> None:
    """`apply` for a caller that has already checked `action in state.legal` (the referee)."""
    seat = state.to_move
    if action < 52:
        entry = (seat, action)
        state.hands[seat] ^= _CARD_BIT[action]
        state.events.append(entry)
        # The hot path: a card added to a trick that is not yet full.
        trick = state.trick
        trick.append(entry)
        played = len(trick)
        if played < SEATS:
            if played == 1:
                state.led = action // 13
            nxt = state.to_move = _NEXT_SEAT[seat]
            hand = state.hands[nxt]
            led = state.led
            follow = hand & SUIT_MASK[led]  # N-4.2
            state.legal = SUIT_TABLES[led][follow >> 13 * led] if follow else _bits(hand)
            return
        _complete_trick(state, trick)
    elif action == PASS or BID_BASE <= action < RAISE_BASE:
        _call(state, seat, action)
    else:  # KEEP or a raise
        _decide(state, seat, action)


def _call(state: TrianonState, seat: int, action: Action) -> None:
    """N-3.3 .. N-3.5: a pass or a bid, then the next speaker or the end of the bidding."""
    state.events.append((seat, action))
    if action == PASS:
        state.passed |= 1 << seat
    else:
        state.high = action - BID_BASE
        state.has_bid |= 1 << seat
    passed = state.passed
    if passed == 0b111:  # N-3.5: all three passed, so nobody bid
        _start_play(state, state.dealer)  # N-6.1: the dealer leads
        return
    if passed.bit_count() == 2:
        third = (0b111 & ~passed).bit_length() - 1
        if state.has_bid >> third & 1:  # N-3.4: two passed and the third has bid
            state.declarer = third
            state.to_move = third
            state.kind = KIND_RAISE
            state.legal = _RAISE_LEGAL[state.high]
            return
    nxt = _NEXT_SEAT[seat]
    while passed >> nxt & 1:  # N-3.3: skip seats that have passed
        nxt = _NEXT_SEAT[nxt]
    state.to_move = nxt
    state.legal = _BID_LEGAL[state.high + 1]


def _decide(state: TrianonState, seat: int, action: Action) -> None:
    """N-3.4: the declarer keeps its bid or raises it; the bid it holds is the contract."""
    state.events.append((seat, action))
    contract = state.high if action == KEEP else action - RAISE_BASE
    state.contract = contract
    strain = contract % 6
    state.trump = STRAIN_TRUMP[strain]
    state.rank_key = SANS_SOUCI_KEY if strain == SANS_SOUCI else NORMAL_KEY  # N-4.3
    _start_play(state, _NEXT_SEAT[seat])  # N-4.1: the player after the declarer leads


def _start_play(state: TrianonState, leader: int) -> None:
    state.to_move = leader
    state.kind = KIND_PLAY
    state.legal = _bits(state.hands[leader])


def _complete_trick(state: TrianonState, trick: list[tuple[int, Card]]) -> None:
    """N-4.3: the highest trump wins, otherwise the highest card of the suit led.

    `suit` is the suit of the card winning so far: a card of that suit wins if its rank
    key is higher; a trump wins when the winning card is not a trump.
    """
    (winner, best), (s1, c1), (s2, c2) = trick
    key = state.rank_key
    trump = state.trump
    suit = state.led
    s = c1 // 13
    if s == suit:
        if key[c1] > key[best]:
            winner, best = s1, c1
    elif s == trump:
        winner, best, suit = s1, c1, trump
    s = c2 // 13
    if s == suit:
        if key[c2] > key[best]:
            winner = s2
    elif s == trump:
        winner = s2
    state.tricks_won[winner] += 1
    state.trick = []
    state.tricks_played += 1
    if state.tricks_played == TRICKS:  # N-4.4
        _end_deal(state, _score(state))
        return
    state.to_move = winner  # N-4.1: the trick's winner leads the next
    state.legal = _bits(state.hands[winner])


def score_contract(contract: int, declarer: int, tricks_won: list[int]) -> list[int]:
    """N-5: the scores of a deal played in `contract` (a bid index) by `declarer`."""
    scores = [0, 0, 0]
    bid = bid_tricks(contract)
    sans = bid_strain(contract) >= SANS_SOUCI
    taken = tricks_won[declarer]
    if taken >= bid:  # N-5.1, N-5.2: only the bid counts
        scores[declarer] = (bid - MIN_BID_TRICKS) * (TRICK_VALUE_SANS if sans else TRICK_VALUE)
    else:  # N-5.3
        short = (bid - taken) * (SHORT_VALUE_SANS if sans else SHORT_VALUE)
        for s in range(SEATS):
            if s != declarer:
                scores[s] = short
    return scores


def score_trianon(tricks_won: list[int]) -> list[int]:
    """N-6.2: each seat scores from its own tricks: 150, 105, 70, 35, then 0."""
    return [TRIANON_SCORES[t] if t < len(TRIANON_SCORES) else 0 for t in tricks_won]


def _score(state: TrianonState) -> list[int]:
    if state.declarer < 0:
        return score_trianon(state.tricks_won)
    return score_contract(state.contract, state.declarer, state.tricks_won)


def rank_totals(totals: list[int]) -> list[int]:
    """N-7.2: 1 is best; equal totals share the better place (10, 5, 5 -> 1, 2, 2)."""
    return [1 + sum(1 for other in totals if other > t) for t in totals]


def _end_deal(state: TrianonState, scores: list[int]) -> None:
    scores_t = tuple(scores)
    state.deal_scores.append(scores_t)
    state.records[-1]["scores"] = scores_t
    totals = state.totals
    for s in range(SEATS):
        totals[s] += scores[s]
    state.deal_index += 1
    # N-7.1: over after the deal in which a seat reaches the target; N-7.3: or max_deals.
    if max(totals) < state.options.target and state.deal_index < state.deal_limit:
        _start_deal(state)
    else:
        state.to_move = -1
        state.kind = KIND_OVER
        state.legal = ()


def result(state: TrianonState) -> tuple[list[int], list[int]]:
    """Totals per seat and ranks per seat (N-7.2)."""
    totals = list(state.totals)
    return totals, rank_totals(totals)


def observe(state: TrianonState, seat: int) -> TrianonView:
    """N-8.1: the seat's own hand and the public record of the deal; nothing else.
    For `seat` PUBLIC, a spectator's view: the public record alone (no hand, no legal
    actions).

    Built positionally, copying the state's public parts into tuples, so that a view
    never changes after it was taken.
    """
    to_move = state.to_move
    return _new_view(
        TrianonView,
        (
            seat,
            state.deal_index + 1 if to_move >= 0 else state.deal_index,
            state.dealer,
            state.declarer,
            state.contract,
            state.trump,
            state.hands[seat] if seat != PUBLIC else 0,
            tuple(state.events),
            tuple(state.trick),
            tuple(state.tricks_won),
            tuple(state.deal_scores),
            tuple(state.totals),
            to_move,
            state.kind,
            state.legal if to_move == seat != PUBLIC else (),
            state.options,
        ),
    )


_new_view = tuple.__new__


# Replay events, made once. Shared event dicts must never be mutated; the referee copies
# an event before it marks it (`"auto"`), and `action_event` hands out copies.
def _make_action_event(action: Action) -> Event | None:
    if action < 52:
        return {"type": "play", "card": CARD_CODES[action]} if DECK_MASK >> action & 1 else None
    if action == PASS:
        return {"type": "pass"}
    if action == KEEP:
        return {"type": "keep"}
    if BID_BASE <= action < BID_BASE + NUM_BIDS:
        return {"type": "bid", "bid": BID_CODES[action - BID_BASE]}
    if RAISE_BASE <= action < RAISE_BASE + NUM_BIDS:
        return {"type": "raise", "bid": BID_CODES[action - RAISE_BASE]}
    return None


_ACTION_EVENTS: tuple[Event | None, ...] = tuple(
    _make_action_event(a) for a in range(RAISE_BASE + NUM_BIDS)
)
ACTIONS: tuple[Action, ...] = tuple(a for a, e in enumerate(_ACTION_EVENTS) if e is not None)
_SEAT_EVENTS: tuple[tuple[Event | None, ...], ...] = tuple(
    tuple(None if e is None else {"seat": seat, **e} for e in _ACTION_EVENTS)
    for seat in range(SEATS)
)


def action_event(action: Action) -> Event:
    """The replay event of an action, without its seat."""
    event = _ACTION_EVENTS[action] if 0 <= action < len(_ACTION_EVENTS) else None
    if event is None:
        raise IllegalAction(f"{action!r} is not a Trianon action")
    return dict(event)


def _describe_any(action: Any) -> str:
    try:
        return describe_action(action)
    except (IllegalAction, TypeError):
        return repr(action)[:80]


def describe_action(action: Action) -> str:
    """A short human form: a card code, 'pass', 'keep', 'bid 7H' or 'raise 8H'.

    Bids carry a word so that the bid 7H is never mistaken for the card 7H.
    """
    event = action_event(action)
    kind = event["type"]
    if kind == "play":
        return event["card"]
    if kind in ("bid", "raise"):
        return f"{kind} {event['bid']}"
    return kind


def parse_bid(code: Any) -> int:
    """The bid index of a bid code such as `7H`, `12NT` or `5SS`; IllegalAction otherwise."""
    try:
        return _BID_INDEX[code]
    except (KeyError, TypeError):
        raise IllegalAction(
            f"{code!r} is not a bid: tricks 4..12 then a strain among "
            f"{', '.join(STRAINS)}, e.g. '7H' or '10NT'"
        ) from None


def parse_event(event: Mapping[str, Any]) -> Action:
    """The action of a replay (or wire) event; IllegalAction if it names none."""
    kind = event.get("type")
    if kind == "play":
        try:
            card = parse_card(event.get("card", ""))
        except CardError as err:
            raise IllegalAction(f"not a Trianon action: {dict(event)!r}: {err}") from None
        if not DECK_MASK >> card & 1:
            raise IllegalAction(
                f"not a Trianon action: {dict(event)!r}: the deck holds 6 to A only (N-1.3)"
            )
        return card
    if kind == "pass":
        return PASS
    if kind == "keep":
        return KEEP
    if kind == "bid":
        return BID_BASE + parse_bid(event.get("bid"))
    if kind == "raise":
        return RAISE_BASE + parse_bid(event.get("bid"))
    raise IllegalAction(
        f"not a Trianon action: {dict(event)!r}; types are bid, pass, raise, keep, play"
    )


def view_dict(view: TrianonView) -> dict[str, Any]:
    """The view as JSON-able data with card codes and bid codes."""
    events = [_SEAT_EVENTS[s][a] for s, a in view.events]
    return {
        "seat": view.seat,
        "deal": view.deal,
        "dealer": view.dealer,
        "declarer": view.declarer,
        "bid": BID_CODES[view.contract] if view.contract >= 0 else "",
        "trump": "CDHS"[view.trump] if view.trump >= 0 else "",
        "hand": codes_of(view.hand),
        "events": events,
        "trick": [{"seat": s, "card": CARD_CODES[c]} for s, c in view.trick],
        "tricks_won": list(view.tricks_won),
        "cards_left": list(view.cards_left),
        "deal_scores": [list(s) for s in view.deal_scores],
        "totals": list(view.totals),
        "to_move": view.to_move,
        "kind": view.kind,
        "legal": [action_event(a) for a in view.legal],
        "options": options_dict(view.options),
    }


def options_dict(options: TrianonOptions) -> dict[str, Any]:
    return dict(options.__dict__)


# `view_dict` key by key, each with the view fields it is made from: the viewer's frames
# (arena/play/replay_frames.py) make again only the keys whose fields changed since the
# step before. tests/play/test_replay_frames.py checks that these give `view_dict` exactly.
VIEW_PARTS: tuple[tuple[str, tuple[str, ...], Any], ...] = (
    ("seat", ("seat",), lambda v: v.seat),
    ("deal", ("deal",), lambda v: v.deal),
    ("dealer", ("dealer",), lambda v: v.dealer),
    ("declarer", ("declarer",), lambda v: v.declarer),
    ("bid", ("contract",), lambda v: BID_CODES[v.contract] if v.contract >= 0 else ""),
    ("trump", ("trump",), lambda v: "CDHS"[v.trump] if v.trump >= 0 else ""),
    ("hand", ("hand",), lambda v: codes_of(v.hand)),
    ("events", ("events",), lambda v: [_SEAT_EVENTS[s][a] for s, a in v.events]),
    ("trick", ("trick",), lambda v: [{"seat": s, "card": CARD_CODES[c]} for s, c in v.trick]),
    ("tricks_won", ("tricks_won",), lambda v: list(v.tricks_won)),
    ("cards_left", ("events",), lambda v: list(v.cards_left)),
    ("deal_scores", ("deal_scores",), lambda v: [list(s) for s in v.deal_scores]),
    ("totals", ("totals",), lambda v: list(v.totals)),
    ("to_move", ("to_move",), lambda v: v.to_move),
    ("kind", ("kind",), lambda v: v.kind),
    ("legal", ("legal",), lambda v: [action_event(a) for a in v.legal]),
    ("options", ("options",), lambda v: options_dict(v.options)),
)


def _record_dict(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "number": record["number"],
        "dealer": record["dealer"],
        "hands": [codes_of(h) for h in record["hands"]],
        "events": [_SEAT_EVENTS[s][a] for s, a in record["events"]],
        "scores": list(record["scores"]) if record["scores"] is not None else None,
    }


def deal_records(state: TrianonState) -> list[dict[str, Any]]:
    """The deals begun so far in the replay's `deals` shape (scores None if unfinished)."""
    return [_record_dict(r) for r in state.records]


def deal_record(state: TrianonState, index: int) -> dict[str, Any]:
    """One deal (0-based index) in the replay's `deals` shape."""
    return _record_dict(state.records[index])


def deal_contract(record: Mapping[str, Any]) -> str:
    """What a replay deal record was played as: the contract's bid code, or "trianon"."""
    contract = ""
    for event in record["events"]:
        kind = event.get("type")
        if kind in ("bid", "raise"):
            contract = event["bid"]
        elif kind == "play":
            break
    return contract or "trianon"


def deal_declarer(record: Mapping[str, Any]) -> tuple[int, bool | None]:
    """The declarer's seat of a replay deal (-1 in a Trianon round) and whether the
    contract was made: failing pays the defenders (N-5.3), making never does (N-5.2)."""
    bidders = [e["seat"] for e in record["events"] if e.get("type") == "bid"]
    if not bidders:
        return -1, None
    declarer = bidders[-1]  # N-3.4: the last to bid is the one the other two passed to
    defenders = [s for i, s in enumerate(record["scores"]) if i != declarer]
    return declarer, all(score == 0 for score in defenders)


def deal_label(record: Mapping[str, Any]) -> str:
    """The strain a replay deal was played in ("H", "SS", "NT", ...), or "trianon" for
    a round nobody bid (N-3.5): what a league table counts declarations under."""
    return deal_contract(record).lstrip("0123456789")


def seat_asked_every_kind(seed: str, options: TrianonOptions) -> int | None:
    """None: a seat is asked to raise only as the declarer (N-3.4), after bidding
    itself, which depends on what it plays, so no seat is sure to meet every kind."""
    return None


# What a league table shows: per strain, the contracts declared, made and failed.
DEAL_SUMMARY = DealSummary(kind=SummaryKind.DECLARED, noun="strain", labels=STRAINS)

# Why a seat may go a whole game without being asked a kind (for `arena check-bot`).
UNASKED = {KIND_RAISE: "never bid, so was never asked to raise: not a fault"}


class Trianon:
    """The Trianon game as the driver sees it (see `arena.games.base.Game`)."""

    name = "trianon"
    seats = SEATS
    decision_kinds = (KIND_BID, KIND_RAISE, KIND_PLAY)
    deal_summary = DEAL_SUMMARY
    unasked = UNASKED

    parse_options = staticmethod(parse_options)
    options_dict = staticmethod(options_dict)
    new_game = staticmethod(new_game)
    new_deal = staticmethod(new_deal)
    state_from_deal = staticmethod(state_from_deal)
    copy_state = staticmethod(copy_state)
    last_deal_copy = staticmethod(last_deal_copy)
    apply = staticmethod(apply)
    apply_legal = staticmethod(apply_legal)
    observe = staticmethod(observe)
    view_dict = staticmethod(view_dict)
    view_parts = VIEW_PARTS
    action_event = staticmethod(action_event)
    parse_event = staticmethod(parse_event)
    describe_action = staticmethod(describe_action)
    deal_records = staticmethod(deal_records)
    deal_record = staticmethod(deal_record)
    result = staticmethod(result)
    deal_contract = staticmethod(deal_contract)
    deal_label = staticmethod(deal_label)
    deal_declarer = staticmethod(deal_declarer)
    seat_asked_every_kind = staticmethod(seat_asked_every_kind)


GAME = Trianon()
