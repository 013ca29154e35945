"""Independent replay checker for Trianon (`arena-replay/1`).

This module is a second, independent implementation of the Trianon rules, written from
the rule book (`docs/rules/trianon.md`, rules N-1 .. N-9) alone. It imports nothing
from the engine and uses only the standard library. It replays every deal of a
recorded game and reports every place where the record disagrees with the rules.

Public entry point: :func:`check_replay`. Command line (run from the repo root)::

    python -m tests.independent.trianon_checker FILE_OR_DIR...

Messages name the deal by its 1-based position in ``deals`` and the event by its
0-based index in that deal's ``events`` list, and cite the rule that is broken.

Reading of the rule book where it leaves room:

* Bidding (N-3.3) as the engine runs it: the seat after the dealer speaks first, then
  the next seat in turn order that has not passed. After each call: three passes make
  a Trianon round (N-3.5); two passes and a bid by the third seat make that seat the
  declarer at once, without asking it again. So when the first two seats pass, the
  dealer still speaks.
* The declarer then sends exactly one ``raise`` (any bid that beats its last bid,
  N-3.2, strain free) or ``keep`` event (N-3.4). After a bid of 12 sans atout nothing
  is higher, so only ``keep`` is legal. A Trianon round has no such event.
* Inside one deal, the first event that breaks the rules (wrong seat, card not held,
  illegal call or card, ...) stops the replay of that deal: what follows can no longer
  be judged, and that deal's scores are then not recomputed.
* The end of the game (N-7.1, N-7.3) and the totals are judged from the recorded deal
  scores; each deal's recorded scores are checked against the rules on their own.
* Missing option keys take their N-9 default, but are reported: the format records
  every option. Unknown keys anywhere in the record are reported too.
"""

from __future__ import annotations

import re
import sys

# --------------------------------------------------------------------------- cards

SEATS = 3  # N-1.1
TRICKS = 12  # N-2.1, N-4.4
RANKS = "6789TJQKA"  # N-1.3 / N-1.4, low to high
SANS_SOUCI_RANKS = "JQKA6789T"  # N-1.5, low to high: the court cards drop below the six
SUITS = "CDHS"
DECK = tuple(rank + suit for suit in SUITS for rank in RANKS)  # N-1.3: 36 cards
SUIT_NAMES = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}

# --------------------------------------------------------------------------- bids

STRAINS = ("C", "S", "D", "H", "SS", "NT")  # N-3.1, low to high
STRAIN_NAMES = {
    "C": "clubs",
    "S": "spades",
    "D": "diamonds",
    "H": "hearts",
    "SS": "sans souci",
    "NT": "sans atout",
}
MIN_BID, MAX_BID = 4, 12  # N-3.1
_BID_RE = re.compile(r"([1-9][0-9]?)(C|S|D|H|SS|NT)")

TRIANON_POINTS = (150, 105, 70, 35)  # N-6.2: for 0, 1, 2, 3 tricks; 4 or more score 0

DEFAULT_OPTIONS = {"target": 500, "max_deals": 200}  # N-9

REPLAY_KEYS = {"format", "game", "options", "seed", "players", "deals", "totals", "ranks", "faults"}
DEAL_KEYS = {"number", "dealer", "hands", "events", "scores"}
EVENT_KEYS = {  # keys besides "seat", "type" (and the optional "auto")
    "bid": {"bid"},
    "pass": set(),
    "raise": {"bid"},
    "keep": set(),
    "play": {"card"},
}
FAULT_KEYS = {"seat", "deal", "kind", "detail"}


def is_card(code: object) -> bool:
    """True when `code` is a card code (N-1.3): rank ``6789TJQKA`` then suit ``CDHS``."""
    return isinstance(code, str) and len(code) == 2 and code[0] in RANKS and code[1] in SUITS


def suit_of(card: str) -> str:
    """The suit letter of a card code."""
    return card[1]


def card_power(card: str, sans_souci: bool = False) -> int:
    """Rank of a card inside its suit, higher is stronger: N-1.4, or N-1.5 in sans souci."""
    return (SANS_SOUCI_RANKS if sans_souci else RANKS).index(card[0])


def parse_bid(code: object) -> tuple[int, str] | None:
    """``(tricks, strain)`` of a bid code such as ``7H`` or ``12NT``; None if not a bid."""
    if not isinstance(code, str):
        return None
    match = _BID_RE.fullmatch(code)
    if not match:
        return None
    tricks = int(match.group(1))
    if not MIN_BID <= tricks <= MAX_BID:
        return None
    return tricks, match.group(2)


def is_bid(code: object) -> bool:
    """True when `code` is a bid code (N-3.1): 4 .. 12 then C, S, D, H, SS or NT."""
    return parse_bid(code) is not None


def bid_key(code: str) -> tuple[int, int]:
    """A sort key of a valid bid: number first, then strain (N-3.2)."""
    tricks, strain = parse_bid(code)
    return tricks, STRAINS.index(strain)


def beats(bid: str, other: str | None) -> bool:
    """True when `bid` beats `other` (N-3.2); every bid beats no bid."""
    return other is None or bid_key(bid) > bid_key(other)


ALL_BIDS = tuple(f"{n}{strain}" for n in range(MIN_BID, MAX_BID + 1) for strain in STRAINS)


def bids_above(other: str | None) -> list[str]:
    """Every bid that beats `other`, lowest first (N-3.2)."""
    return [bid for bid in ALL_BIDS if beats(bid, other)]


def trump_of(contract: str | None) -> str | None:
    """The trump suit of a contract, None in sans atout, sans souci and the Trianon (N-4.3)."""
    if contract is None:
        return None
    strain = parse_bid(contract)[1]
    return strain if strain in SUITS else None


def is_sans_souci(contract: str | None) -> bool:
    return contract is not None and parse_bid(contract)[1] == "SS"


def _bid_text(code: str) -> str:
    tricks, strain = parse_bid(code)
    return f"{code} ({tricks} {STRAIN_NAMES[strain]})"


# ---------------------------------------------------------------------------- play


def legal_cards(hand: list[str], trick: list[str]) -> list[str]:
    """Cards of `hand` that may be played to `trick` (cards so far, in order).

    N-4.2: follow the suit led if able, otherwise any card (no duty to trump).
    """
    if trick:
        led = suit_of(trick[0])
        followers = [card for card in hand if suit_of(card) == led]
        if followers:
            return followers
    return list(hand)


def trick_winner(trick: list[str], leader: int, trump: str | None, sans_souci: bool) -> int:
    """Seat that wins a complete trick led by `leader` (N-4.3).

    The highest trump if the trick holds one, else the highest card of the suit led;
    rank order N-1.5 when `sans_souci`, else N-1.4.
    """
    suit = suit_of(trick[0])
    if trump is not None and any(suit_of(card) == trump for card in trick):
        suit = trump
    best = max(
        (i for i, card in enumerate(trick) if suit_of(card) == suit),
        key=lambda i: card_power(trick[i], sans_souci),
    )
    return (leader + best) % SEATS


def score_contract(declarer: int, contract: str, taken: int) -> list[int]:
    """Deal scores of a contract (N-5): `taken` is the number of tricks of the declarer.

    Made (N-5.2): the declarer scores 30 a trick bid above four (40 in sans atout or
    sans souci). Failed (N-5.3): each defender scores 40 a trick short (50 in sans
    atout or sans souci); the declarer scores nothing.
    """
    tricks, strain = parse_bid(contract)
    high = strain in ("SS", "NT")
    scores = [0] * SEATS
    if taken >= tricks:
        scores[declarer] = (40 if high else 30) * (tricks - 4)
    else:
        for seat in range(SEATS):
            if seat != declarer:
                scores[seat] = (50 if high else 40) * (tricks - taken)
    return scores


def score_trianon(tricks: list[int]) -> list[int]:
    """Deal scores of a Trianon round from each seat's tricks (N-6.2)."""
    return [TRIANON_POINTS[n] if n < len(TRIANON_POINTS) else 0 for n in tricks]


def deal_score(declarer: int | None, contract: str | None, tricks: list[int]) -> list[int]:
    """Deal scores from the tricks of each seat: a contract (N-5) or a Trianon round (N-6)."""
    if contract is None:
        return score_trianon(tricks)
    return score_contract(declarer, contract, tricks[declarer])


def dealer_of(number: int) -> int:
    """Dealer of deal `number` (1-based): seat 0 deals first, then turn order (N-2.2)."""
    return (number - 1) % SEATS


def compute_ranks(totals: list[int]) -> list[int]:
    """Rank of each seat, 1 best, equal totals sharing the better place (N-7.2)."""
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]


class Bidding:
    """The state of the bidding of one deal (N-3.3 .. N-3.5), as the engine runs it.

    ``to_speak`` is the seat whose call is awaited, None once the bidding is over;
    then ``declarer`` is the declarer, or None for a Trianon round.
    """

    def __init__(self, dealer: int):
        self.dealer = dealer
        self.passed: set[int] = set()
        self.last_bid: dict[int, str] = {}
        self.highest: str | None = None
        self.to_speak: int | None = (dealer + 1) % SEATS
        self.declarer: int | None = None

    @property
    def over(self) -> bool:
        return self.to_speak is None

    def legal_calls(self) -> list[str | None]:
        """The calls open to the seat to speak: None (pass) and every higher bid."""
        return [None, *bids_above(self.highest)]

    def call(self, bid: str | None) -> None:
        """Record a legal call by ``to_speak``: a bid code, or None for a pass."""
        seat = self.to_speak
        if bid is None:
            self.passed.add(seat)
        else:
            self.last_bid[seat] = bid
            self.highest = bid
        if len(self.passed) == SEATS:
            self.to_speak = None  # N-3.5: a Trianon round
            return
        if len(self.passed) == SEATS - 1:
            (last,) = set(range(SEATS)) - self.passed
            if last in self.last_bid:
                self.declarer = last  # N-3.4: declarer at once
                self.to_speak = None
                return
        nxt = (seat + 1) % SEATS
        while nxt in self.passed:
            nxt = (nxt + 1) % SEATS
        self.to_speak = nxt


# ------------------------------------------------------------------- deal replay


class _DealError(Exception):
    """The first event of a deal that breaks the rules; the deal's replay stops there."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_seat(value: object) -> bool:
    return _is_int(value) and 0 <= value < SEATS  # N-1.1


def _is_score_list(value: object) -> bool:
    return isinstance(value, list) and len(value) == SEATS and all(_is_int(v) for v in value)


def _cards_text(cards) -> str:
    return " ".join(sorted(cards, key=lambda c: (SUITS.index(c[1]), RANKS.index(c[0])))) or "none"


def _event_problem(event: object) -> str | None:
    """What is wrong with the shape of one event, or None."""
    if not isinstance(event, dict):
        return "event is not an object"
    kind = event.get("type")
    if kind not in EVENT_KEYS:
        return f"unknown event type {kind!r}"
    if not _is_seat(event.get("seat")):
        return f"bad seat {event.get('seat')!r} (N-1.1)"
    required = {"seat", "type"} | EVENT_KEYS[kind]
    missing = required - event.keys()
    if missing:
        return f"{kind} event lacks {', '.join(sorted(missing))}"
    extra = event.keys() - required - {"auto"}
    if extra:
        return f"{kind} event has unknown keys {', '.join(sorted(extra))}"
    if "auto" in event and not isinstance(event["auto"], str):
        return f"'auto' must be a fault kind string, not {event['auto']!r}"
    if kind in ("bid", "raise") and not is_bid(event["bid"]):
        return f"bad bid code {event['bid']!r} (N-3.1)"
    if kind == "play" and not is_card(event["card"]):
        return f"bad card code {event['card']!r} (N-1.3)"
    return None


def hands_problems(hands: object) -> list[str]:
    """Why `hands` is not a deal of the whole deck, 12 cards to each seat (N-1.3, N-2.1)."""
    if not isinstance(hands, list) or len(hands) != SEATS:
        return ["hands must be a list of 3 hands (N-1.1)"]
    problems = []
    seen: dict[str, int] = {}
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list):
            problems.append(f"seat {seat}'s hand is not a list")
            continue
        if len(hand) != TRICKS:
            problems.append(f"seat {seat} is dealt {len(hand)} cards, not 12 (N-2.1)")
        for card in hand:
            if not is_card(card):
                problems.append(f"seat {seat} is dealt a bad card code {card!r} (N-1.3)")
            elif card in seen:
                problems.append(
                    f"{card} is dealt twice (seats {seen[card]} and {seat}) (N-1.3, N-2.1)"
                )
            else:
                seen[card] = seat
    missing = [card for card in DECK if card not in seen]
    if missing:
        problems.append(f"cards missing from the deal: {_cards_text(missing)} (N-1.3, N-2.1)")
    return problems


class _DealReplay:
    """Replays the events of one deal against the rules.

    After :meth:`run`, ``errors`` holds the disagreements found, ``declarer`` and
    ``contract`` the outcome of the bidding (both None for a Trianon round),
    ``tricks`` the tricks each seat took and ``scores`` the deal's scores recomputed
    from the events (None when the replay stopped on an error).
    """

    def __init__(self, number: int, dealer: int, hands: list, events: list):
        self.number = number
        self.dealer = dealer
        self.hands = [list(hand) for hand in hands]
        self.events = events
        self.pos = 0
        self.errors: list[str] = []
        self.declarer: int | None = None
        self.contract: str | None = None
        self.tricks: list[int] | None = None
        self.scores: list[int] | None = None

    def _at(self, index: int) -> str:
        return f"deal {self.number} event {index}"

    def _next(self, seat: int, duty: str, rule: str) -> tuple[int, dict]:
        """Take the next event, which must be a well-formed event by `seat`."""
        if self.pos >= len(self.events):
            raise _DealError(
                f"deal {self.number}: the events end after {len(self.events)} events, "
                f"but seat {seat} should {duty} ({rule})"
            )
        index, event = self.pos, self.events[self.pos]
        self.pos += 1
        problem = _event_problem(event)
        if problem:
            raise _DealError(f"{self._at(index)}: {problem}")
        if event["seat"] != seat:
            raise _DealError(
                f"{self._at(index)}: seat {event['seat']} acts ({event['type']}), "
                f"but seat {seat} should {duty} ({rule})"
            )
        return index, event

    def run(self) -> None:
        try:
            self._bidding()
            self._decision()
            self._play()
            if self.pos < len(self.events):
                raise _DealError(
                    f"{self._at(self.pos)}: all 12 tricks are played, but "
                    f"{len(self.events) - self.pos} more event(s) follow (N-4.4)"
                )
            self.scores = deal_score(self.declarer, self.contract, self.tricks)
        except _DealError as error:
            self.errors.append(str(error))
            self.scores = None

    def _bidding(self) -> None:
        """N-3.3: bids and passes from the seat after the dealer, skipping passers."""
        bidding = Bidding(self.dealer)
        while not bidding.over:
            seat = bidding.to_speak
            if self.pos < len(self.events):
                event = self.events[self.pos]
                other = event.get("seat") if isinstance(event, dict) else None
                if (
                    other != seat
                    and other in bidding.passed
                    and isinstance(event, dict)
                    and event.get("type") == "bid"
                ):
                    raise _DealError(
                        f"{self._at(self.pos)}: seat {other} bids {event.get('bid')!r}, but "
                        f"it has passed and may not bid again; seat {seat} should "
                        f"bid or pass (N-3.3)"
                    )
            index, event = self._next(seat, "bid or pass", "N-3.3")
            if event["type"] == "pass":
                bidding.call(None)
            elif event["type"] == "bid":
                bid = event["bid"]
                if not beats(bid, bidding.highest):
                    raise _DealError(
                        f"{self._at(index)}: seat {seat} bids {_bid_text(bid)}, which does "
                        f"not beat the highest bid so far {_bid_text(bidding.highest)} "
                        f"(N-3.2, N-3.3)"
                    )
                bidding.call(bid)
            else:
                raise _DealError(
                    f"{self._at(index)}: seat {seat} sent a '{event['type']}' event during "
                    f"the bidding, but should bid or pass (N-3.3)"
                )
        self.declarer = bidding.declarer
        if self.declarer is not None:
            self.contract = bidding.last_bid[self.declarer]

    def _decision(self) -> None:
        """N-3.4: the declarer raises its last bid once, or keeps it; none in a Trianon."""
        if self.declarer is None:
            return
        seat, last = self.declarer, self.contract
        duty = f"raise or keep its bid {last} as declarer"
        index, event = self._next(seat, duty, "N-3.4")
        if event["type"] == "keep":
            return
        if event["type"] != "raise":
            raise _DealError(
                f"{self._at(index)}: declarer seat {seat} sent a '{event['type']}' event, "
                f"but should {duty} (N-3.4)"
            )
        bid = event["bid"]
        if not beats(bid, last):
            raise _DealError(
                f"{self._at(index)}: declarer seat {seat} raises to {_bid_text(bid)}, which "
                f"does not beat its last bid {_bid_text(last)} (N-3.2, N-3.4)"
            )
        self.contract = bid

    def _play(self) -> None:
        """N-4 / N-6.1: 12 tricks; the first led by the seat after the declarer, in a
        Trianon round by the dealer; each trick's winner leads the next."""
        if self.declarer is None:
            leader, lead_rule = self.dealer, "N-6.1"
        else:
            leader, lead_rule = (self.declarer + 1) % SEATS, "N-4.1"
        trump, sans_souci = trump_of(self.contract), is_sans_souci(self.contract)
        tricks = [0] * SEATS
        for trick_number in range(1, TRICKS + 1):
            trick: list[str] = []
            for step in range(SEATS):
                seat = (leader + step) % SEATS
                if step == 0:
                    duty, rule = f"lead trick {trick_number}", lead_rule
                else:
                    duty, rule = f"play card {step + 1} of trick {trick_number}", "N-1.2, N-4.1"
                index, event = self._next(seat, duty, rule)
                if event["type"] != "play":
                    raise _DealError(
                        f"{self._at(index)}: seat {seat} sent a '{event['type']}' event, "
                        f"but should {duty} ({rule})"
                    )
                card = event["card"]
                hand = self.hands[seat]
                if card not in hand:
                    raise _DealError(
                        f"{self._at(index)}: seat {seat} played {card} but does not hold it "
                        f"(N-2.1, N-4.2)"
                    )
                if card not in legal_cards(hand, trick):
                    led = suit_of(trick[0])
                    raise _DealError(
                        f"{self._at(index)}: seat {seat} played {card} on a {SUIT_NAMES[led]} "
                        f"lead but holds a {SUIT_NAMES[led]} (N-4.2)"
                    )
                hand.remove(card)
                trick.append(card)
            leader = trick_winner(trick, leader, trump, sans_souci)
            lead_rule = "N-4.1, N-4.3"
            tricks[leader] += 1
        self.tricks = tricks


# ----------------------------------------------------------------- whole replay


def _read_options(options: object, errors: list[str]) -> dict:
    """The rule options (N-9), defaults filled in; bad or missing values are reported."""
    result = dict(DEFAULT_OPTIONS)
    if not isinstance(options, dict):
        errors.append("options must be an object (N-9)")
        return result
    for key in sorted(options.keys() - DEFAULT_OPTIONS.keys()):
        errors.append(f"options: unknown option {key!r} (N-9)")
    for key, default in DEFAULT_OPTIONS.items():
        if key not in options:
            errors.append(f"options: {key} is not recorded (N-9 default {default!r})")
        elif not (_is_int(options[key]) and options[key] >= 1):
            errors.append(f"options: bad value {options[key]!r} for {key} (N-9)")
        else:
            result[key] = options[key]
    return result


def _check_faults(faults: object, errors: list[str]) -> None:
    """`faults` must be a list of {"seat", "deal", "kind", "detail"} objects."""
    if not isinstance(faults, list):
        errors.append("faults must be a list")
        return
    for i, fault in enumerate(faults):
        if not isinstance(fault, dict) or not FAULT_KEYS <= fault.keys():
            errors.append(f"faults[{i}] must be an object with keys seat, deal, kind, detail")
            continue
        if not _is_seat(fault["seat"]):
            errors.append(f"faults[{i}]: bad seat {fault['seat']!r} (N-1.1)")
        if not isinstance(fault["kind"], str):
            errors.append(f"faults[{i}]: kind must be a string")


def check_replay(replay: dict) -> list[str]:
    """Check one `arena-replay/1` Trianon game against the rule book; return every disagreement.

    An empty list means the replay is accepted. Checked: the format keys and options
    (N-9); every deal's number, dealer (N-2.2), hands (N-1.3, N-2.1), bidding (N-3.3),
    declarer and its raise/keep (N-3.4), Trianon round (N-3.5, N-6.1), turns and
    plays (N-4.1, N-4.2, N-4.4) and scores (N-4.3, N-5, N-6.2); the end of the game
    (N-7.1, N-7.3); totals; ranks (N-7.2); the faults list.
    """
    errors: list[str] = []
    if not isinstance(replay, dict):
        return ["replay is not a JSON object"]
    for key in sorted(REPLAY_KEYS - replay.keys()):
        errors.append(f"replay lacks the key {key!r}")
    for key in sorted(replay.keys() - REPLAY_KEYS - {"think"}):
        errors.append(f"replay has an unknown key {key!r}")
    if "think" in replay:
        errors += _think_errors(replay["think"])
    if replay.get("format") != "arena-replay/1":
        errors.append(f"format is {replay.get('format')!r}, not 'arena-replay/1'")
    if replay.get("game") != "trianon":
        errors.append(f"game is {replay.get('game')!r}, not 'trianon'")
    if not isinstance(replay.get("seed"), str):
        errors.append("seed must be a string")
    players = replay.get("players")
    if not (
        isinstance(players, list)
        and len(players) == SEATS
        and all(isinstance(p, str) for p in players)
    ):
        errors.append("players must be a list of 3 names (N-1.1)")
    options = _read_options(replay.get("options"), errors)
    _check_faults(replay.get("faults"), errors)

    deals = replay.get("deals")
    if not isinstance(deals, list):
        errors.append("deals must be a list")
        deals = []
    deal_scores = [_check_deal(position + 1, deal, errors) for position, deal in enumerate(deals)]
    if any(scores is None for scores in deal_scores):
        errors.append("end of game, totals and ranks not checked: some deal scores are bad")
        return errors

    _check_end(deal_scores, options, errors)
    sums = [sum(scores[seat] for scores in deal_scores) for seat in range(SEATS)]
    totals = replay.get("totals")
    if not _is_score_list(totals):
        errors.append(f"totals must be a list of 3 integers, not {totals!r}")
    elif totals != sums:
        errors.append(f"totals are {totals}, but the deal scores add up to {sums} (N-7.1)")
    ranks = replay.get("ranks")
    expected = compute_ranks(sums)
    if ranks != expected:
        errors.append(
            f"ranks are {ranks}, but totals {sums} from the deals give {expected} (N-7.2)"
        )
    return errors


def _check_deal(number: int, deal: object, errors: list[str]) -> list[int] | None:
    """Check one deal; return its recorded scores if well formed, else None."""
    where = f"deal {number}"
    if not isinstance(deal, dict):
        errors.append(f"{where}: not an object")
        return None
    for key in sorted(DEAL_KEYS - deal.keys()):
        errors.append(f"{where}: lacks the key {key!r}")
    for key in sorted(deal.keys() - DEAL_KEYS):
        errors.append(f"{where}: has an unknown key {key!r}")
    if deal.get("number") != number:
        errors.append(f"{where}: numbered {deal.get('number')!r}, expected {number}")
    dealer = dealer_of(number)
    if deal.get("dealer") != dealer:
        errors.append(
            f"{where}: dealer is recorded as {deal.get('dealer')!r}, but seat {dealer} "
            f"deals deal {number} (N-2.2)"
        )

    scores = deal.get("scores")
    if not _is_score_list(scores):
        errors.append(f"{where}: scores must be a list of 3 integers, not {scores!r}")
        scores = None

    problems = hands_problems(deal.get("hands"))
    errors.extend(f"{where}: {problem}" for problem in problems)
    events = deal.get("events")
    if not isinstance(events, list):
        errors.append(f"{where}: events must be a list")
    if problems or not isinstance(events, list):
        errors.append(f"{where}: bidding and play not checked")
        return scores

    replay = _DealReplay(number, dealer, deal["hands"], events)
    replay.run()
    errors.extend(replay.errors)
    if replay.scores is not None and scores is not None and replay.scores != scores:
        if replay.contract is None:
            what, rule = f"Trianon round with tricks {replay.tricks}", "N-6.2"
        else:
            taken = replay.tricks[replay.declarer]
            made = taken >= parse_bid(replay.contract)[0]
            what = (
                f"contract {_bid_text(replay.contract)} of declarer seat {replay.declarer}, "
                f"{'made' if made else 'failed'} with {taken} tricks"
            )
            rule = "N-5.1, N-5.2" if made else "N-5.1, N-5.3"
        errors.append(
            f"{where}: scores are {scores}, but the {what} scores {replay.scores} ({rule})"
        )
    return scores


def _check_end(deal_scores: list[list[int]], options: dict, errors: list[str]) -> None:
    """N-7.1 / N-7.3: the game ends after the first deal after which a total reaches the
    target, or after `max_deals` deals; no deal may follow and none may be missing."""
    target, max_deals = options["target"], options["max_deals"]
    running = [0] * SEATS
    for position, scores in enumerate(deal_scores):
        number = position + 1
        running = [running[seat] + scores[seat] for seat in range(SEATS)]
        reason = None
        if max(running) >= target:
            leaders = [seat for seat in range(SEATS) if running[seat] >= target]
            reason = (
                f"seat(s) {', '.join(map(str, leaders))} reached the target {target} "
                f"(totals {running}) (N-7.1)"
            )
        elif number >= max_deals:
            reason = f"max_deals is {max_deals} (N-7.3)"
        if reason is not None:
            extra = len(deal_scores) - number
            if extra:
                errors.append(
                    f"deal {number + 1}: {extra} deal(s) recorded after the game ended "
                    f"with deal {number}: {reason}"
                )
            return
    errors.append(
        f"deal {len(deal_scores) + 1} is missing: after {len(deal_scores)} deal(s) the totals "
        f"are {running}, below the target {target}, and max_deals {max_deals} is not "
        f"reached (N-7.1, N-7.3)"
    )


# ------------------------------------------------------------------ command line


def main(argv: list[str] | None = None) -> int:
    """Check every replay named (files, or directories searched for ``*.json``)."""
    from tests.independent.cli import run_checker

    return run_checker(check_replay, "tests.independent.trianon_checker", argv)


if __name__ == "__main__":
    sys.exit(main())


def _think_errors(think) -> list[str]:
    """The optional `think` key: per seat, null (a bot inside the referee) or the wall
    and CPU milliseconds of each decision it was asked, two lists of one length, every
    time a number of at least 0 (CPU may be null: the bot had no cgroup)."""
    if not isinstance(think, list) or len(think) != 3:
        return ["think is not a list of 3 seats"]
    errors = []
    for seat, times in enumerate(think):
        if times is None:
            continue
        if not isinstance(times, dict) or set(times) != {"wall_ms", "cpu_ms"}:
            errors.append(f"think of seat {seat} is not wall_ms and cpu_ms")
            continue
        wall, cpu = times["wall_ms"], times["cpu_ms"]
        if not isinstance(wall, list) or not isinstance(cpu, list) or len(wall) != len(cpu):
            errors.append(f"think of seat {seat}: wall_ms and cpu_ms differ in length")
            continue
        for value in wall + [c for c in cpu if c is not None]:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                errors.append(f"think of seat {seat} holds {value!r}, not a time")
                break
    return errors
