"""Trix: four players, four kingdoms of five contracts (docs/rules/trix.md).

The state is mutable and made of ints so that a full 20-deal game costs a few
milliseconds; `apply` is the only way to change it and `observe` the only way hidden
cards leave it (T-8). The legal actions are recomputed once per transition and kept on
the state, so asking for them is free.

Actions are ints: a card (0..51) is a play, `PASS` a pass in the Trix contract,
`CONTRACT_BASE + c` the choice of contract c, and `EXPOSE_BASE | mask` the exposure of
the cards in `mask` (T-5; an empty mask exposes nothing). The documented order of legal
actions, whose first entry is the referee's fallback, is: contracts in `CONTRACTS` order;
exposures by ascending mask, so exposing nothing comes first; cards by suit (clubs,
diamonds, hearts, spades) and rank, low to high.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from arena.cards import (
    CARD_CODES,
    FULL_DECK,
    HEARTS,
    JACK,
    KING,
    QUEEN,
    SUIT_MASK,
    SUIT_TABLES,
    Card,
    CardSet,
    cards_of,
    codes_of,
    make_card,
    parse_card,
    parse_cards,
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

SEATS = 4
DEALS_PER_KINGDOM = 5
MAX_TIEBREAK_DEALS = 4  # T-7.3

# T-2.6, in the replay's spelling and the documented order of legal actions.
CONTRACTS = ("king-of-hearts", "diamonds", "queens", "no-tricks", "trix")
KING_OF_HEARTS, DIAMONDS_C, QUEENS, NO_TRICKS, TRIX = range(5)
ALL_CONTRACTS = (1 << 5) - 1

PASS: Action = 52
CONTRACT_BASE: Action = 53
EXPOSE_BASE: Action = 1 << 52

KH: Card = make_card(KING, HEARTS)
KH_BIT: CardSet = 1 << KH
QUEENS_MASK: CardSet = sum(1 << make_card(QUEEN, s) for s in range(4))
JACKS_MASK: CardSet = sum(1 << make_card(JACK, s) for s in range(4))
HEARTS_MASK: CardSet = SUIT_MASK[HEARTS]
DIAMONDS_MASK: CardSet = SUIT_MASK[1]

# T-4, T-5.3, T-6.6
KH_PENALTY = -75
DIAMOND_PENALTY = -10
QUEEN_PENALTY = -25
TRICK_PENALTY = -15
TRIX_PLACES = (200, 150, 100, 50)

# Decision kinds, as the driver and the wire see them.
KIND_CONTRACT, KIND_EXPOSE, KIND_PLAY, KIND_PASS, KIND_OVER = (
    "contract",
    "expose",
    "play",
    "pass",
    "",
)

_PHASE_TRICKS, _PHASE_TRIX = 0, 1
_CARD_BIT = tuple(1 << c for c in range(52))
_NEXT_SEAT = (1, 2, 3, 0)  # T-1.2
_SUIT_SHIFT = (0, 13, 26, 39)  # a suit's cards, shifted down to 13 bits


def _row_next(card: Card) -> CardSet:
    """T-6.3: the cards a row card makes playable (a Jack both ways, others outwards)."""
    rank = card % 13
    if rank == JACK:
        return (1 << (card + 1)) | (1 << (card - 1))
    if JACK < rank < 12:
        return 1 << (card + 1)
    if 0 < rank < JACK:
        return 1 << (card - 1)
    return 0


ROW_NEXT: tuple[CardSet, ...] = tuple(_row_next(c) for c in range(52))
"""Per card, the cards laying it on its row makes playable next (T-6.3): public, so a
bot reading a Trix contract's passes (T-6.4) follows the rows as the engine does."""


@dataclass(frozen=True)
class TrixOptions:
    """The rule options of T-9, validated."""

    doubling: bool = True
    kingdoms: int = 4
    tiebreak: str = "none"
    first_king_card: str = "7H"
    partners: bool = False


def _parse_bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
        return value.lower() in ("true", "yes", "1")
    raise ConfigError(f"rule option {key!r} must be true or false, not {reprlib.repr(value)}")


def _whole_number(value: Any) -> int | None:
    """`value` as a whole number: an int, a float with no fraction (2.0), or ASCII digits
    as text (" 2 ", as `--rules kingdoms=2` gives it); None for anything else (booleans,
    2.7, NaN, infinity), which is refused rather than cut to its whole part."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return None


def parse_options(raw: Mapping[str, Any] | None = None) -> TrixOptions:
    """Validate T-9 options; every error names the option and what is allowed."""
    raw = dict(raw or {})
    known = TrixOptions.__dataclass_fields__
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ConfigError(
            f"unknown Trix rule option {reprlib.repr(unknown[0])}; the options are: "
            + ", ".join(known)
        )
    out = TrixOptions()
    kw: dict[str, Any] = {}
    for key in ("doubling", "partners"):
        if key in raw:
            kw[key] = _parse_bool(key, raw[key])
    if "kingdoms" in raw:
        kingdoms = _whole_number(raw["kingdoms"])
        if kingdoms is None or not 1 <= kingdoms <= 4:
            raise ConfigError(
                "rule option 'kingdoms' must be 1, 2, 3 or 4 (a whole number, or its digits "
                f"as text), not {reprlib.repr(raw['kingdoms'])}"
            )
        kw["kingdoms"] = kingdoms
    if "tiebreak" in raw:
        if raw["tiebreak"] not in ("none", "king-of-hearts"):
            raise ConfigError(
                "rule option 'tiebreak' must be 'none' or 'king-of-hearts', "
                f"not {reprlib.repr(raw['tiebreak'])}"
            )
        kw["tiebreak"] = raw["tiebreak"]
    if "first_king_card" in raw:
        try:
            parse_card(raw["first_king_card"])
        except CardError as err:
            value = raw["first_king_card"]  # the card error quotes it whole: cut a long one
            short = len(repr(value)) <= 20
            said = str(err) if short else f"{reprlib.repr(value)} is not a card code"
            raise ConfigError(f"rule option 'first_king_card': {said}") from None
        kw["first_king_card"] = raw["first_king_card"]
    return TrixOptions(**{**out.__dict__, **kw})


class TrixView(NamedTuple):
    """What one seat may know (T-8.1), built only by `observe`.

    Cards are ints and sets of cards are masks; `view_dict` turns it into codes.
    """

    seat: int
    deal: int  # deal number, 1-based (tie-break deals continue the count, T-7.3)
    king: int
    first_king: int
    contract: int  # index into CONTRACTS, -1 while the King is choosing
    contracts_left: int  # mask over CONTRACTS the King has not chosen in this kingdom
    hand: CardSet
    exposed: tuple[CardSet, ...]  # per seat, the cards it exposed (T-5.2)
    events: tuple[tuple[int, Action], ...]  # this deal's decisions so far, in order
    trick: tuple[tuple[int, Card], ...]  # the current trick: (seat, card), leader first
    tricks_won: tuple[int, ...]  # per seat, tricks taken this deal
    rows: CardSet  # Trix contract: cards laid on the four rows
    finished: tuple[int, ...]  # Trix contract: seats in the order they went out
    deal_scores: tuple[tuple[int, ...], ...]  # the scores of every finished deal
    totals: tuple[int, ...]  # per seat, before the current deal
    to_move: int
    kind: str  # the decision `to_move` faces ("" when the game is over)
    legal: tuple[Action, ...]  # the legal actions when `seat` is to move, else ()
    options: TrixOptions

    @property
    def cards_left(self) -> tuple[int, ...]:
        """Cards each seat still holds: 13 less the cards it played this deal (public).

        In a trick contract every seat has played one card per finished trick, plus
        its card in the current one; only the Trix contract needs the events counted."""
        if self.contract != TRIX:
            done = 13 - sum(self.tricks_won)
            left = [done, done, done, done]
            for seat, _card in self.trick:
                left[seat] -= 1
            return tuple(left)
        left = [13, 13, 13, 13]
        for seat, action in self.events:
            if action < 52:
                left[seat] -= 1
        return tuple(left)


class TrixState:
    """A Trix game in progress. Read it through `Trix`; change it only with `Trix.apply`."""

    __slots__ = (
        "seed",
        "options",
        "to_move",
        "kind",
        "legal",
        "deal_index",
        "deal_count",
        "first_king",
        "king",
        "contract",
        "contracts_left",
        "phase",
        "hands",
        "dealt",
        "exposed",
        "events",
        "expose_queue",
        "trick",
        "led",
        "leader",
        "taken",
        "tricks_won",
        "tricks_played",
        "playable",
        "rows",
        "finished",
        "deal_scores",
        "totals",
        "records",
        "tiebreak_deals",
        "automatic",
    )

    def __init__(self, seed: str, options: TrixOptions) -> None:
        self.seed = seed
        self.options = options
        self.to_move = -1
        self.kind = KIND_OVER
        self.legal: tuple[Action, ...] = ()
        self.deal_index = 0
        self.deal_count = options.kingdoms * DEALS_PER_KINGDOM  # T-2.1
        self.first_king = -1
        self.king = -1
        self.contract = -1
        self.contracts_left = ALL_CONTRACTS
        self.phase = _PHASE_TRICKS
        self.hands = [0, 0, 0, 0]
        self.dealt: tuple[CardSet, ...] = (0, 0, 0, 0)
        self.exposed = [0, 0, 0, 0]
        self.events: list[tuple[int, Action]] = []
        self.expose_queue: list[int] = []
        self.trick: list[tuple[int, Card]] = []
        self.led = -1
        self.leader = -1
        self.taken = [0, 0, 0, 0]
        self.tricks_won = [0, 0, 0, 0]
        self.tricks_played = 0
        self.playable: CardSet = 0
        self.rows: CardSet = 0
        self.finished: list[int] = []
        self.deal_scores: list[tuple[int, ...]] = []
        self.totals = [0, 0, 0, 0]
        self.records: list[dict[str, Any]] = []  # one per deal begun: king, hands, events
        self.tiebreak_deals = 0
        self.automatic = 0  # contracts played without asking (T-2.5)

    @property
    def over(self) -> bool:
        return self.to_move < 0


@lru_cache(maxsize=256)
def deal_hands(seed: str, deal_index: int) -> tuple[CardSet, ...]:
    """T-2.2: deal `deal_index` (0-based) of the game `seed`; seat s gets 13s..13s+12."""
    deck = shuffled_order("trix", seed, deal_index, 52)
    bit = _CARD_BIT.__getitem__  # unrolled: a deal is dealt 20 times a game
    return (
        sum(map(bit, deck[0:13])),
        sum(map(bit, deck[13:26])),
        sum(map(bit, deck[26:39])),
        sum(map(bit, deck[39:52])),
    )


_bits = cards_of


def _subsets(mask: CardSet) -> list[CardSet]:
    """Every subset of `mask`, ascending (the empty set first)."""
    cards = [1 << c for c in _bits(mask)]
    subsets = [0]
    for bit in cards:
        subsets += [s | bit for s in subsets]
    return sorted(subsets)


def new_game(seed: str, options: TrixOptions | None = None) -> TrixState:
    """A game at its first decision, fully determined by (seed, options) (T-2.2)."""
    state = TrixState(str(seed), options or TrixOptions())
    _start_deal(state)
    return state


def new_deal(
    hands: tuple[CardSet, ...] | list[CardSet],
    king: int,
    options: TrixOptions | None = None,
    contracts_left: int = ALL_CONTRACTS,
) -> TrixState:
    """A one-deal game from given hands with a given King (tests, puzzles, analysis).

    The King chooses among `contracts_left` (a mask over CONTRACTS); the game ends
    after this deal (and any tie-break deals, which are dealt from the seed as usual).
    """
    hands = tuple(hands)
    if len(hands) != SEATS or sum(h.bit_count() for h in hands) != 52:
        raise ConfigError("new_deal needs four hands that together hold the 52 cards")
    _dealt_hands(hands, "new_deal")
    state = TrixState("custom", options or TrixOptions())
    state.deal_count = 1
    state.first_king = king
    state.contracts_left = contracts_left
    _start_deal(state, hands)
    return state


def state_from_deal(
    hands: tuple[CardSet, ...] | list[CardSet],
    king: int,
    events: tuple[tuple[int, Action], ...] | list[tuple[int, Action]] = (),
    options: TrixOptions | None = None,
    contracts_left: int = ALL_CONTRACTS,
    *,
    first_king: int | None = None,
    deal_index: int = 0,
    deal_scores: tuple[tuple[int, ...], ...] | list[tuple[int, ...]] = (),
    totals: tuple[int, ...] | list[int] | None = None,
) -> TrixState:
    """The state of a deal part-way through: `hands` as dealt, King `king`, and the
    deal's `events` so far (as `TrixView.events` holds them) replayed by the rules.

    For a player's own analysis of a deal whose hidden hands it has guessed (search
    bots sample the others' hands consistent with their view, T-8, and play the deal
    on from here): with the keyword arguments copied from the seat's view, `observe`
    of the result for that seat equals the view the guess was made from.
    `contracts_left` is the King's choice at the deal's start, before this deal's
    contract (a mask over CONTRACTS; one contract left is played without asking,
    T-2.5, exactly as in a game). `deal_index`, `first_king`, `deal_scores` and
    `totals` only set what the view reports. The game ends when this deal ends: no
    further deal, and no tie-break deal (T-7.3) is started.

    Raises ConfigError for hands that are not a deal, and IllegalAction when an event
    is not legal at its turn (the guessed hands cannot have produced these events).
    """
    hands = _dealt_hands(hands, "state_from_deal")
    if king not in range(SEATS):
        raise ConfigError(f"state_from_deal: the King must be seat 0..3, not {king!r}")
    state = TrixState("custom", options or TrixOptions())
    state.deal_index = deal_index
    state.deal_count = deal_index + 1
    state.tiebreak_deals = MAX_TIEBREAK_DEALS  # this deal is the last one
    state.first_king = king if first_king is None else first_king
    state.contracts_left = contracts_left
    state.deal_scores = [tuple(s) for s in deal_scores]
    state.totals = list(totals) if totals is not None else [0, 0, 0, 0]
    state.dealt = hands
    state.hands = list(hands)
    _begin_deal(state, hands, king)
    events = list(events)
    made = len(state.events)  # the contract played without asking (T-2.5)
    if events[:made] != state.events[: len(events[:made])]:
        raise IllegalAction(
            f"state_from_deal: the deal's first events {events[:made]!r} are not the "
            f"{state.events!r} the rules made"
        )
    replay_events(state, events[made:], apply, describe_action)
    return state


def _dealt_hands(hands: Any, caller: str) -> tuple[CardSet, ...]:
    """`hands` as a tuple, when they are a deal: four disjoint hands of 13 cards;
    ConfigError naming `caller` otherwise."""
    hands = tuple(hands)
    if (
        len(hands) != SEATS
        or any(h.bit_count() != 13 for h in hands)
        or (hands[0] | hands[1] | hands[2] | hands[3]) != FULL_DECK
    ):
        raise ConfigError(f"{caller} needs four disjoint hands of 13 cards")
    return hands


def copy_state(state: TrixState) -> TrixState:
    """An independent copy of `state`: playing on either never changes the other.

    For search over states a player built itself (`state_from_deal`): one replay of
    the deal, then a copy per line of play to try, instead of a replay per line."""
    return copy_slotted_state(state, _COPIED_LISTS)


def last_deal_copy(state: TrixState) -> TrixState:
    """A copy of `state` whose game ends when its current deal ends, whatever the deal
    count or the totals: `observe` after the deal's last event then shows the deal as
    it ended (every card played, its scores) instead of the next deal's start, which
    is what a replay viewer shows as the deal's last step."""
    new = copy_state(state)
    new.deal_count = new.deal_index + 1
    new.tiebreak_deals = MAX_TIEBREAK_DEALS  # no tie-break deal either (T-7.3)
    return new


# The state's lists that play changes in place: a copy needs its own.
_COPIED_LISTS = (
    "hands",
    "exposed",
    "events",
    "expose_queue",
    "trick",
    "taken",
    "tricks_won",
    "finished",
    "deal_scores",
    "totals",
)


def _start_deal(state: TrixState, hands: tuple[CardSet, ...] | None = None) -> None:
    i = state.deal_index
    if hands is None:
        hands = deal_hands(state.seed, i)
    state.dealt = hands
    state.hands = list(hands)
    if i == 0 and state.first_king < 0:  # T-2.3
        bit = 1 << parse_card(state.options.first_king_card)
        state.first_king = next(s for s in range(SEATS) if hands[s] & bit)
    if i < state.deal_count:  # T-2.4: kingdoms pass in turn order
        king = (state.first_king + i // DEALS_PER_KINGDOM) % SEATS
        if i % DEALS_PER_KINGDOM == 0 and i > 0:  # deal 0 starts from the state's own
            state.contracts_left = ALL_CONTRACTS
    else:  # T-7.3: extra King of Hearts deals
        king = (state.first_king + state.tiebreak_deals) % SEATS
        state.tiebreak_deals += 1
        state.contracts_left = 1 << KING_OF_HEARTS
    _begin_deal(state, hands, king)


def _begin_deal(state: TrixState, hands: tuple[CardSet, ...], king: int) -> None:
    """A deal's start once its hands and King are known: reset the deal's state, record
    it, and ask the King for a contract (or play the last one, T-2.5)."""
    i = state.deal_index
    state.king = king
    state.contract = -1
    state.exposed = [0, 0, 0, 0]
    state.events = []
    state.trick = []
    state.taken = [0, 0, 0, 0]
    state.tricks_won = [0, 0, 0, 0]
    state.tricks_played = 0
    state.rows = 0
    state.finished = []
    state.records.append(
        {"number": i + 1, "king": king, "hands": hands, "events": state.events, "scores": None}
    )
    left = tuple(CONTRACT_BASE + c for c in range(5) if state.contracts_left >> c & 1)
    state.to_move = king
    if len(left) == 1:  # T-2.5: the last contract is played without asking
        state.kind = KIND_CONTRACT
        state.legal = left
        state.automatic += 1
        _choose_contract(state, left[0] - CONTRACT_BASE)
    else:
        state.kind = KIND_CONTRACT
        state.legal = left


def _choose_contract(state: TrixState, contract: int) -> None:
    state.events.append((state.king, CONTRACT_BASE + contract))
    state.contract = contract
    state.contracts_left &= ~(1 << contract)
    if state.options.doubling and contract in (KING_OF_HEARTS, QUEENS):  # T-5.1
        exposable = KH_BIT if contract == KING_OF_HEARTS else QUEENS_MASK
        state.expose_queue = [
            s
            for s in ((state.king + k) % SEATS for k in range(SEATS))
            if state.hands[s] & exposable
        ]
    else:
        state.expose_queue = []
    _next_expose_or_play(state)


def _exposable(state: TrixState) -> CardSet:
    return KH_BIT if state.contract == KING_OF_HEARTS else QUEENS_MASK


def _next_expose_or_play(state: TrixState) -> None:
    if state.expose_queue:
        seat = state.expose_queue.pop(0)
        state.to_move = seat
        state.kind = KIND_EXPOSE
        state.legal = tuple(
            EXPOSE_BASE | m for m in _subsets(state.hands[seat] & _exposable(state))
        )
        return
    king = state.king
    if state.contract == TRIX:  # T-6.1, T-6.2
        state.phase = _PHASE_TRIX
        state.playable = JACKS_MASK
        _trix_turn(state, king)
    else:  # T-3.1
        state.phase = _PHASE_TRICKS
        state.leader = king
        _lead_turn(state, king)


def _lead_turn(state: TrixState, seat: int) -> None:
    hand = state.hands[seat]
    if state.contract == KING_OF_HEARTS and hand & ~HEARTS_MASK:  # T-3.4
        hand &= ~HEARTS_MASK
    state.to_move = seat
    state.kind = KIND_PLAY
    state.legal = _bits(hand)


def _trix_turn(state: TrixState, seat: int) -> None:
    """T-6.3..T-6.5: the next seat still holding cards plays a row card or passes."""
    hands = state.hands
    while not hands[seat]:
        seat = (seat + 1) % SEATS
    state.to_move = seat
    legal = hands[seat] & state.playable
    if legal:
        state.kind = KIND_PLAY
        state.legal = _bits(legal)
    else:
        state.kind = KIND_PASS
        state.legal = (PASS,)


def apply(state: TrixState, action: Action) -> None:
    """Play `action` for the seat to move; raise IllegalAction (state unchanged) if illegal."""
    if action not in state.legal:
        raise IllegalAction(
            f"{describe_action(action)} is not legal for seat {state.to_move} "
            f"({state.kind or 'game over'}); legal: "
            + ", ".join(describe_action(a) for a in state.legal)
        )
    apply_legal(state, action)


def apply_legal(state: TrixState, action: Action) -> None:
    """`apply` for a caller that has already checked `action in state.legal` (the referee)."""
    seat = state.to_move
    if action < 52:
        bit = _CARD_BIT[action]
        hands = state.hands
        hands[seat] ^= bit
        entry = (seat, action)
        state.events.append(entry)
        if state.phase:  # _PHASE_TRIX
            _play_to_row(state, seat, action, bit)
            return
        # The hot path of the whole arena: a card added to a trick that is not yet full.
        trick = state.trick
        trick.append(entry)
        played = len(trick)
        if played < SEATS:
            if played == 1:
                led = state.led = action // 13
            else:
                led = state.led
            nxt = state.to_move = _NEXT_SEAT[seat]
            hand = hands[nxt]
            follow = hand & SUIT_MASK[led]  # T-3.2
            state.legal = SUIT_TABLES[led][follow >> _SUIT_SHIFT[led]] if follow else _bits(hand)
            return
        _complete_trick(state, trick)
    elif action == PASS:  # T-6.4
        state.events.append((seat, PASS))
        _trix_turn(state, (seat + 1) % SEATS)
    elif action < EXPOSE_BASE:
        _choose_contract(state, action - CONTRACT_BASE)
    else:  # T-5.1
        state.exposed[seat] = action & FULL_DECK
        state.events.append((seat, action))
        _next_expose_or_play(state)


def _complete_trick(state: TrixState, trick: list[tuple[int, Card]]) -> None:
    """T-3.3: the highest card of the suit led wins (a higher int is a higher card)."""
    (winner, best), (s1, c1), (s2, c2), (s3, c3) = trick
    led = state.led
    if c1 > best and c1 // 13 == led:
        winner, best = s1, c1
    if c2 > best and c2 // 13 == led:
        winner, best = s2, c2
    if c3 > best and c3 // 13 == led:
        winner = s3
    state.taken[winner] |= _CARD_BIT[trick[0][1]] | _CARD_BIT[c1] | _CARD_BIT[c2] | _CARD_BIT[c3]
    state.tricks_won[winner] += 1
    state.trick = []
    state.tricks_played += 1
    if state.tricks_played == 13:  # T-3.5
        _end_deal(state, _score_tricks(state))
        return
    # T-3.1: the winner leads; T-3.4: no heart lead in King of Hearts unless only hearts.
    state.leader = state.to_move = winner
    hand = state.hands[winner]
    if state.contract == KING_OF_HEARTS and hand & ~HEARTS_MASK:
        hand &= ~HEARTS_MASK
    state.legal = _bits(hand)


def _play_to_row(state: TrixState, seat: int, card: Card, bit: CardSet) -> None:
    """T-6.1, T-6.3: a Jack opens its row; a row grows one rank up or down."""
    state.rows |= bit
    state.playable = (state.playable & ~bit) | ROW_NEXT[card]
    hands = state.hands
    if not hands[seat]:
        state.finished.append(seat)
        if len(state.finished) == SEATS - 1:  # T-6.5, T-6.6
            last = next(s for s in range(SEATS) if hands[s])
            scores = [0, 0, 0, 0]
            for place, s in enumerate(state.finished + [last]):
                scores[s] = TRIX_PLACES[place]
            _end_deal(state, scores)
            return
    _trix_turn(state, (seat + 1) % SEATS)


def _penalty_with_exposure(
    state: TrixState, scores: list[int], cards: CardSet, penalty: int
) -> None:
    """T-4.1/T-4.3 with T-5.3/T-5.4 for each penalty card in `cards`."""
    for card in _bits(cards):
        bit = 1 << card
        taker = next(s for s in range(SEATS) if state.taken[s] & bit)
        exposer = next((s for s in range(SEATS) if state.exposed[s] & bit), -1)
        if exposer < 0:
            scores[taker] += penalty
        else:
            scores[taker] += 2 * penalty
            if exposer != taker:
                scores[exposer] -= penalty


def _score_tricks(state: TrixState) -> list[int]:
    scores = [0, 0, 0, 0]
    contract = state.contract
    if contract == KING_OF_HEARTS:
        _penalty_with_exposure(state, scores, KH_BIT, KH_PENALTY)
    elif contract == QUEENS:
        _penalty_with_exposure(state, scores, QUEENS_MASK, QUEEN_PENALTY)
    elif contract == DIAMONDS_C:  # T-4.2
        for s in range(SEATS):
            scores[s] = DIAMOND_PENALTY * (state.taken[s] & DIAMONDS_MASK).bit_count()
    else:  # T-4.4
        for s in range(SEATS):
            scores[s] = TRICK_PENALTY * state.tricks_won[s]
    return scores


def ranking_units(state_or_options: TrixState | TrixOptions, totals: list[int]) -> list[int]:
    """The totals of the units that are ranked: seats, or teams 0+2 and 1+3 (T-9)."""
    options = getattr(state_or_options, "options", state_or_options)
    if options.partners:
        return [totals[0] + totals[2], totals[1] + totals[3]]
    return list(totals)


def rank_totals(totals: list[int]) -> list[int]:
    """T-7.2: 1 is best; equal totals share the better place (10, 5, 5, 0 -> 1, 2, 2, 4)."""
    return [1 + sum(1 for other in totals if other > t) for t in totals]


def _end_deal(state: TrixState, scores: list[int]) -> None:
    scores_t = tuple(scores)
    state.deal_scores.append(scores_t)
    state.records[-1]["scores"] = scores_t
    for s in range(SEATS):
        state.totals[s] += scores[s]
    state.deal_index += 1
    if state.deal_index < state.deal_count or _tiebreak_needed(state):
        _start_deal(state)
    else:
        state.to_move = -1
        state.kind = KIND_OVER
        state.legal = ()


def _tiebreak_needed(state: TrixState) -> bool:
    """T-7.3: another King of Hearts deal while the highest total is shared."""
    if state.options.tiebreak != "king-of-hearts" or state.tiebreak_deals >= MAX_TIEBREAK_DEALS:
        return False
    units = ranking_units(state, state.totals)
    return units.count(max(units)) >= 2


def result(state: TrixState) -> tuple[list[int], list[int]]:
    """Totals per seat and ranks per seat (with partners, both seats carry the team's rank)."""
    totals = list(state.totals)
    unit_ranks = rank_totals(ranking_units(state, totals))
    if state.options.partners:
        return totals, [unit_ranks[s % 2] for s in range(SEATS)]
    return totals, unit_ranks


def observe(state: TrixState, seat: int) -> TrixView:
    """T-8.1: the seat's own hand and the public record of the deal; nothing else.
    For `seat` PUBLIC, a spectator's view: the public record alone (no hand, no legal
    actions).

    Built positionally, copying the state's public parts into tuples, so that a view
    never changes after it was taken.
    """
    to_move = state.to_move
    return _new_view(
        TrixView,
        (
            seat,
            state.deal_index + 1 if to_move >= 0 else state.deal_index,
            state.king,
            state.first_king,
            state.contract,
            state.contracts_left,
            state.hands[seat] if seat != PUBLIC else 0,
            tuple(state.exposed),
            tuple(state.events),
            tuple(state.trick),
            tuple(state.tricks_won),
            state.rows,
            tuple(state.finished),
            tuple(state.deal_scores),
            tuple(state.totals),
            to_move,
            state.kind,
            state.legal if to_move == seat != PUBLIC else (),
            state.options,
        ),
    )


_new_view = tuple.__new__


def describe_action(action: Action) -> str:
    """A short human form: a card code, 'pass', a contract name or 'expose QS QH'."""
    event = action_event(action)
    if event["type"] == "play":
        return event["card"]
    if event["type"] == "contract":
        return event["contract"]
    if event["type"] == "expose":
        return "expose " + (" ".join(event["cards"]) or "nothing")
    return event["type"]


def action_event(action: Action) -> Event:
    """The replay event of an action, without its seat."""
    if 0 <= action < 52:
        return {"type": "play", "card": CARD_CODES[action]}
    if action == PASS:
        return {"type": "pass"}
    if CONTRACT_BASE <= action < CONTRACT_BASE + len(CONTRACTS):
        return {"type": "contract", "contract": CONTRACTS[action - CONTRACT_BASE]}
    if action & EXPOSE_BASE and not action & ~(EXPOSE_BASE | FULL_DECK):
        return {"type": "expose", "cards": codes_of(action & FULL_DECK)}
    raise IllegalAction(f"{action!r} is not a Trix action")


def parse_event(event: Mapping[str, Any]) -> Action:
    """The action of a replay (or wire) event; IllegalAction if it names none."""
    kind = event.get("type")
    try:
        if kind == "play":
            return parse_card(event.get("card", ""))
        if kind == "pass":
            return PASS
        if kind == "contract":
            return CONTRACT_BASE + CONTRACTS.index(event.get("contract", ""))
        if kind == "expose":
            return EXPOSE_BASE | parse_cards(event.get("cards", []))
    except (CardError, ValueError) as err:
        raise IllegalAction(f"not a Trix action: {dict(event)!r}: {err}") from None
    raise IllegalAction(
        f"not a Trix action: {dict(event)!r}; types are contract, expose, play, pass"
    )


def view_dict(view: TrixView) -> dict[str, Any]:
    """The view as JSON-able data with card codes and contract names."""
    return {
        "seat": view.seat,
        "deal": view.deal,
        "king": view.king,
        "first_king": view.first_king,
        "contract": CONTRACTS[view.contract] if view.contract >= 0 else "",
        "contracts_left": [CONTRACTS[c] for c in range(5) if view.contracts_left >> c & 1],
        "hand": codes_of(view.hand),
        "exposed": [codes_of(m) for m in view.exposed],
        "events": [_event_dict(s, a) for s, a in view.events],
        "trick": [{"seat": s, "card": CARD_CODES[c]} for s, c in view.trick],
        "tricks_won": list(view.tricks_won),
        "rows": codes_of(view.rows),
        "finished": list(view.finished),
        "cards_left": list(view.cards_left),
        "deal_scores": [list(s) for s in view.deal_scores],
        "totals": list(view.totals),
        "to_move": view.to_move,
        "kind": view.kind,
        "legal": [action_event(a) for a in view.legal],
        "options": options_dict(view.options),
    }


def options_dict(options: TrixOptions) -> dict[str, Any]:
    return dict(options.__dict__)


# `view_dict` key by key, each with the view fields it is made from: the viewer's frames
# (arena/play/replay_frames.py) make again only the keys whose fields changed since the
# step before, rather than every key of four views at each of a game's ~1,100 steps.
# tests/play/test_replay_frames.py checks that these give `view_dict` exactly.
VIEW_PARTS: tuple[tuple[str, tuple[str, ...], Any], ...] = (
    ("seat", ("seat",), lambda v: v.seat),
    ("deal", ("deal",), lambda v: v.deal),
    ("king", ("king",), lambda v: v.king),
    ("first_king", ("first_king",), lambda v: v.first_king),
    ("contract", ("contract",), lambda v: CONTRACTS[v.contract] if v.contract >= 0 else ""),
    (
        "contracts_left",
        ("contracts_left",),
        lambda v: [CONTRACTS[c] for c in range(5) if v.contracts_left >> c & 1],
    ),
    ("hand", ("hand",), lambda v: codes_of(v.hand)),
    ("exposed", ("exposed",), lambda v: [codes_of(m) for m in v.exposed]),
    ("events", ("events",), lambda v: [_event_dict(s, a) for s, a in v.events]),
    ("trick", ("trick",), lambda v: [{"seat": s, "card": CARD_CODES[c]} for s, c in v.trick]),
    ("tricks_won", ("tricks_won",), lambda v: list(v.tricks_won)),
    ("rows", ("rows",), lambda v: codes_of(v.rows)),
    ("finished", ("finished",), lambda v: list(v.finished)),
    (
        "cards_left",
        ("contract", "tricks_won", "trick", "events"),
        lambda v: list(v.cards_left),
    ),
    ("deal_scores", ("deal_scores",), lambda v: [list(s) for s in v.deal_scores]),
    ("totals", ("totals",), lambda v: list(v.totals)),
    ("to_move", ("to_move",), lambda v: v.to_move),
    ("kind", ("kind",), lambda v: v.kind),
    ("legal", ("legal",), lambda v: [action_event(a) for a in v.legal]),
    ("options", ("options",), lambda v: options_dict(v.options)),
)


# Play events are made once and shared by every replay: most events are plays, and a
# replay is built for every game. Replay event dicts must therefore never be mutated;
# the referee copies an event before it marks it (`"auto"`).
_PLAY_EVENTS = tuple(
    tuple({"seat": seat, "type": "play", "card": CARD_CODES[c]} for c in range(52))
    for seat in range(SEATS)
)


def _event_dict(seat: int, action: Action) -> Event:
    if action < 52:
        return _PLAY_EVENTS[seat][action]
    return {"seat": seat, **action_event(action)}


def _all_events() -> dict[tuple[int, Action], Event]:
    """Every (seat, action) a Trix deal can record, as its shared replay event: the
    actions are finite (52 cards, a pass, 5 contracts, the subsets of the King of Hearts
    and of the Queens), so a replay is built by look-ups alone."""
    exposures = {EXPOSE_BASE | m for m in _subsets(KH_BIT) + _subsets(QUEENS_MASK)}
    actions = [*range(52), PASS, *range(CONTRACT_BASE, CONTRACT_BASE + 5), *sorted(exposures)]
    return {
        (seat, action): _PLAY_EVENTS[seat][action] if action < 52 else _event_dict(seat, action)
        for seat in range(SEATS)
        for action in actions
    }


_EVENTS = _all_events()


def _record_dict(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "number": record["number"],
        "king": record["king"],
        "hands": [codes_of(h) for h in record["hands"]],
        "events": list(map(_EVENTS.__getitem__, record["events"])),
        "scores": list(record["scores"]) if record["scores"] is not None else None,
    }


def deal_records(state: TrixState) -> list[dict[str, Any]]:
    """The deals begun so far in the replay's `deals` shape (scores None if unfinished)."""
    return [_record_dict(r) for r in state.records]


def deal_record(state: TrixState, index: int) -> dict[str, Any]:
    """One deal (0-based index) in the replay's `deals` shape."""
    return _record_dict(state.records[index])


def deal_contract(record: Mapping[str, Any]) -> str:
    """The contract of a replay deal record (its first event)."""
    return record["events"][0]["contract"]


def seat_asked_every_kind(seed: str, options: TrixOptions) -> int | None:
    """A seat that, whatever it plays, is asked every kind of decision in this game.

    The game is played out with every seat taking the first legal action. A seat's
    first decision in a deal another seat is King of comes after nothing but the
    others' first-legal moves (the King's contract, exposures, leads), so it is the
    same whatever the bot does: if those first decisions include an `expose` and a
    `pass`, the bot meets them; `contract` it meets as King of its own kingdom, and
    `play` in every deal."""
    state = new_game(seed, options)
    first: dict[tuple[int, int], str] = {}  # (deal index, seat) -> its first decision
    while state.to_move >= 0:
        first.setdefault((state.deal_index, state.to_move), state.kind)
        apply_legal(state, state.legal[0])
    kings = [record["king"] for record in deal_records(state)]
    for seat in range(SEATS):
        kinds = {kind for (deal, who), kind in first.items() if who == seat and kings[deal] != seat}
        if {KIND_EXPOSE, KIND_PASS} <= kinds and seat in kings:
            return seat
    return None


# What a league table shows (T-2.5: every King plays all five contracts), and the text
# table's abbreviations of the contracts.
DEAL_SUMMARY = DealSummary(
    kind=SummaryKind.MEAN_SCORE,
    noun="contract",
    labels=CONTRACTS,
    short={"king-of-hearts": "KH", "diamonds": "D", "queens": "Q", "no-tricks": "NT", "trix": "T"},
    every_game=True,
)

# Why a seat may go a whole game without being asked a kind (for `arena check-bot`).
UNASKED = {
    KIND_EXPOSE: (
        "never held a card it may expose (KH in King of Hearts, a queen in Queens): not a fault"
    ),
    KIND_PASS: "always had a card it could lay out in the Trix contract: not a fault",
    KIND_CONTRACT: "was never King: not a fault",
}


class Trix:
    """The Trix game as the driver sees it (see `arena.games.base.Game`)."""

    name = "trix"
    seats = SEATS
    decision_kinds = (KIND_CONTRACT, KIND_EXPOSE, KIND_PLAY, KIND_PASS)
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
    deal_label = staticmethod(deal_contract)  # a deal is counted under its contract
    seat_asked_every_kind = staticmethod(seat_asked_every_kind)

    @staticmethod
    def deal_declarer(record: Mapping[str, Any]) -> tuple[int, bool | None]:
        """Trix has no declarer: the King chooses, and nothing is made or failed."""
        return -1, None


GAME = Trix()
