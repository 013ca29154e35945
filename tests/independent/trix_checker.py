"""Independent replay checker for Trix (`arena-replay/1`).

This module is a second, independent implementation of the Trix rules, written from
the rule book (`docs/rules/trix.md`, rules T-1 .. T-10) alone. It imports nothing
from the engine and uses only the standard library. It replays every deal of a
recorded game and reports every place where the record disagrees with the rules.

Public entry point: :func:`check_replay`. Command line (run from the repo root)::

    python -m tests.independent.trix_checker FILE_OR_DIR...

Messages name the deal by its 1-based position in ``deals`` and the event by its
0-based index in that deal's ``events`` list, and cite the rule that is broken.

Reading of the rule book where it leaves room (see also the format notes in the
docstrings below):

* Inside one deal, the first event that breaks the rules (wrong seat, card not held,
  illegal card, ...) stops the replay of that deal: what follows can no longer be
  judged, and that deal's scores are then not recomputed.
* Extra tie-break deals (T-7.3) carry a ``contract`` event by their King with the
  contract ``king-of-hearts`` (the format records the contract for every deal).
* Missing option keys take their T-9 default, but are reported: the format records
  every option. Unknown keys anywhere in the record are reported too.
"""

from __future__ import annotations

import sys

# --------------------------------------------------------------------------- cards

RANKS = "23456789TJQKA"  # T-1.3 / T-1.4, low to high
SUITS = "CDHS"  # T-1.4
DECK = tuple(rank + suit for suit in SUITS for rank in RANKS)  # T-1.3: 52 cards
RANK_VALUE = {rank: value for value, rank in enumerate(RANKS, start=2)}  # 2 .. 14 (ace)
JACK = RANK_VALUE["J"]
SUIT_NAMES = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}

KING_OF_HEARTS = "king-of-hearts"
DIAMONDS = "diamonds"
QUEENS = "queens"
NO_TRICKS = "no-tricks"
TRIX = "trix"
CONTRACTS = (KING_OF_HEARTS, DIAMONDS, QUEENS, NO_TRICKS, TRIX)  # T-2.6
TRICK_CONTRACTS = (KING_OF_HEARTS, DIAMONDS, QUEENS, NO_TRICKS)  # T-3

TRIX_PLACE_POINTS = (200, 150, 100, 50)  # T-6.6
MAX_TIEBREAK_DEALS = 4  # T-7.3

DEFAULT_OPTIONS = {  # T-9
    "doubling": True,
    "kingdoms": 4,
    "tiebreak": "none",
    "first_king_card": "7H",
    "partners": False,
}

REPLAY_KEYS = {"format", "game", "options", "seed", "players", "deals", "totals", "ranks", "faults"}
DEAL_KEYS = {"number", "king", "hands", "events", "scores"}
EVENT_KEYS = {  # keys besides "seat", "type" (and the optional "auto")
    "contract": {"contract"},
    "expose": {"cards"},
    "play": {"card"},
    "pass": set(),
}
FAULT_KEYS = {"seat", "deal", "kind", "detail"}


def is_card(code: object) -> bool:
    """True when `code` is a card code per T-1.4 (rank then suit, e.g. ``TD``)."""
    return isinstance(code, str) and len(code) == 2 and code[0] in RANKS and code[1] in SUITS


def suit_of(card: str) -> str:
    """The suit letter of a card code (T-1.4)."""
    return card[1]


def rank_of(card: str) -> int:
    """The rank of a card as a number, 2 .. 14 with the ace high (T-1.3)."""
    return RANK_VALUE[card[0]]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_seat(value: object) -> bool:
    return _is_int(value) and 0 <= value <= 3  # T-1.1


def _is_score_list(value: object) -> bool:
    return isinstance(value, list) and len(value) == 4 and all(_is_int(v) for v in value)


def _cards_text(cards) -> str:
    return " ".join(sorted(cards, key=lambda c: (SUITS.index(c[1]), rank_of(c)))) or "none"


# ----------------------------------------------------------------- trick contracts


def legal_trick_cards(hand: list[str], trick: list[str], contract: str) -> list[str]:
    """Cards of `hand` that may be played to the current `trick` (cards so far, in order).

    T-3.2: follow the suit led if able, otherwise any card.
    T-3.4: in King of Hearts no heart may be led unless the hand holds only hearts.
    """
    if trick:
        led = suit_of(trick[0])
        followers = [card for card in hand if suit_of(card) == led]
        return followers or list(hand)
    if contract == KING_OF_HEARTS:
        non_hearts = [card for card in hand if suit_of(card) != "H"]
        return non_hearts or list(hand)
    return list(hand)


def trick_winner(trick: list[str], leader: int) -> int:
    """Seat that wins a complete trick led by `leader` (T-3.3: highest card of the suit led)."""
    led = suit_of(trick[0])
    best = max(
        (i for i, card in enumerate(trick) if suit_of(card) == led),
        key=lambda i: rank_of(trick[i]),
    )
    return (leader + best) % 4


def exposable_cards(hand: list[str], contract: str) -> list[str]:
    """Cards of `hand` its holder may expose (T-5.1): ``KH`` in King of Hearts, queens in Queens."""
    if contract == KING_OF_HEARTS:
        return [card for card in hand if card == "KH"]
    if contract == QUEENS:
        return [card for card in hand if card[0] == "Q"]
    return []


def score_trick_deal(
    contract: str, taken: list[list[str]], tricks: list[int], exposed: dict[str, int]
) -> list[int]:
    """Scores of a trick-contract deal.

    `taken[s]` are the cards seat s took in tricks, `tricks[s]` the number of tricks it
    won, `exposed` maps each exposed card to its exposer.
    T-4.1 King of Hearts -75 for ``KH``; T-4.2 Diamonds -10 a diamond; T-4.3 Queens -25 a
    queen; T-4.4 No Tricks -15 a trick. T-5.3: an exposed card taken by another seat
    costs the taker double and gives the exposer the plain value; T-5.4: the exposer
    who takes his own exposed card pays double and nobody gains.
    """
    scores = [0, 0, 0, 0]
    if contract == NO_TRICKS:
        return [-15 * n for n in tricks]
    for seat in range(4):
        for card in taken[seat]:
            if contract == KING_OF_HEARTS and card == "KH":
                value = 75
            elif contract == QUEENS and card[0] == "Q":
                value = 25
            elif contract == DIAMONDS and suit_of(card) == "D":
                value = 10
            else:
                continue
            exposer = exposed.get(card)
            if exposer is None:
                scores[seat] -= value
            elif exposer == seat:
                scores[seat] -= 2 * value  # T-5.4
            else:
                scores[seat] -= 2 * value  # T-5.3
                scores[exposer] += value
    return scores


# -------------------------------------------------------------------- trix contract


def legal_trix_cards(hand: list[str], rows: dict[str, tuple[int, int]]) -> list[str]:
    """Cards of `hand` playable in Trix (T-6.3).

    `rows` maps each started suit to its (lowest, highest) rank on the table. A Jack
    starts its row; otherwise a card one rank above the top or one below the bottom
    of a started row of its suit may be played (T-6.1).
    """
    legal = []
    for card in hand:
        suit, rank = suit_of(card), rank_of(card)
        row = rows.get(suit)
        if row is None:
            if rank == JACK:
                legal.append(card)
        elif rank in (row[0] - 1, row[1] + 1):
            legal.append(card)
    return legal


def place_trix_card(rows: dict[str, tuple[int, int]], card: str) -> None:
    """Put a legal Trix card on its row (T-6.1); `card` must be legal for `rows`."""
    suit, rank = suit_of(card), rank_of(card)
    low, high = rows.get(suit, (rank, rank))
    rows[suit] = (min(low, rank), max(high, rank))


def score_trix_deal(finish_order: list[int]) -> list[int]:
    """Trix deal scores from the seats in the order they emptied their hands (T-6.6).

    The first three seats get +200, +150, +100; the seat left holding cards +50.
    """
    last = [seat for seat in range(4) if seat not in finish_order]
    scores = [0, 0, 0, 0]
    for seat, points in zip(list(finish_order) + last, TRIX_PLACE_POINTS, strict=True):
        scores[seat] = points
    return scores


# --------------------------------------------------------------------- the ranking


def team_totals(totals: list[int]) -> list[int]:
    """Team totals with the partners option: seats 0+2 and 1+3 (T-9)."""
    return [totals[0] + totals[2], totals[1] + totals[3]]


def compute_ranks(totals: list[int], partners: bool) -> list[int]:
    """Rank of each seat, 1 best, equal totals sharing the better place (T-7.2).

    With partners both seats of a team carry the team's rank (1 or 2).
    """
    if partners:
        teams = team_totals(totals)
        team_rank = [1 + sum(1 for other in teams if other > mine) for mine in teams]
        return [team_rank[seat % 2] for seat in range(4)]
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]


def tied_for_first(totals: list[int], partners: bool) -> bool:
    """True while two or more seats (with partners: both teams) share the highest total (T-7.3)."""
    values = team_totals(totals) if partners else list(totals)
    return values.count(max(values)) >= 2


# ------------------------------------------------------------------- deal replay


class _DealError(Exception):
    """The first event of a deal that breaks the rules; the deal's replay stops there."""


def _event_problem(event: object) -> str | None:
    """What is wrong with the shape of one event, or None."""
    if not isinstance(event, dict):
        return "event is not an object"
    kind = event.get("type")
    if kind not in EVENT_KEYS:
        return f"unknown event type {kind!r}"
    if not _is_seat(event.get("seat")):
        return f"bad seat {event.get('seat')!r} (T-1.1)"
    required = {"seat", "type"} | EVENT_KEYS[kind]
    missing = required - event.keys()
    if missing:
        return f"{kind} event lacks {', '.join(sorted(missing))}"
    extra = event.keys() - required - {"auto"}
    if extra:
        return f"{kind} event has unknown keys {', '.join(sorted(extra))}"
    if "auto" in event and not isinstance(event["auto"], str):
        return f"'auto' must be a fault kind string, not {event['auto']!r}"
    if kind == "contract" and event["contract"] not in CONTRACTS:
        return f"unknown contract {event['contract']!r} (T-2.6)"
    if kind == "play" and not is_card(event["card"]):
        return f"bad card code {event['card']!r} (T-1.4)"
    if kind == "expose":
        cards = event["cards"]
        if not isinstance(cards, list) or not all(is_card(card) for card in cards):
            return f"expose cards must be a list of card codes, not {cards!r} (T-1.4)"
        if len(set(cards)) != len(cards):
            return f"expose cards repeat a card: {cards} (T-5.1)"
    return None


def hands_problems(hands: object) -> list[str]:
    """Why `hands` is not a deal of the whole deck, 13 cards to each seat (T-1.3, T-2.2)."""
    if not isinstance(hands, list) or len(hands) != 4:
        return ["hands must be a list of 4 hands (T-1.1)"]
    problems = []
    seen: dict[str, int] = {}
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list):
            problems.append(f"seat {seat}'s hand is not a list")
            continue
        if len(hand) != 13:
            problems.append(f"seat {seat} is dealt {len(hand)} cards, not 13 (T-2.2)")
        for card in hand:
            if not is_card(card):
                problems.append(f"seat {seat} is dealt a bad card code {card!r} (T-1.4)")
            elif card in seen:
                problems.append(
                    f"{card} is dealt twice (seats {seen[card]} and {seat}) (T-1.3, T-2.2)"
                )
            else:
                seen[card] = seat
    missing = [card for card in DECK if card not in seen]
    if missing:
        problems.append(f"cards missing from the deal: {_cards_text(missing)} (T-1.3, T-2.2)")
    return problems


class _DealReplay:
    """Replays the events of one deal against the rules.

    After :meth:`run`, ``errors`` holds the disagreements found, ``contract`` the
    contract chosen (None when no valid contract event) and ``scores`` the deal's
    scores recomputed from the events (None when the replay stopped on an error).
    """

    def __init__(self, number, king, hands, events, allowed, doubling, tiebreak_deal):
        self.number = number
        self.king = king
        self.hands = [list(hand) for hand in hands]
        self.events = events
        self.allowed = allowed
        self.doubling = doubling
        self.tiebreak_deal = tiebreak_deal
        self.pos = 0
        self.errors: list[str] = []
        self.contract: str | None = None
        self.scores: list[int] | None = None

    # -- events

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

    def _play_of(self, index: int, event: dict, seat: int, duty: str, rule: str) -> str:
        """The card of a play event; it must be a play of a card `seat` holds."""
        if event["type"] != "play":
            raise _DealError(
                f"{self._at(index)}: seat {seat} sent a '{event['type']}' event, "
                f"but should {duty} ({rule})"
            )
        card = event["card"]
        if card not in self.hands[seat]:
            raise _DealError(
                f"{self._at(index)}: seat {seat} played {card} but does not hold it "
                f"(T-2.2, T-3.2, T-6.3)"
            )
        return card

    # -- phases

    def run(self) -> None:
        try:
            self._choose_contract()
            exposed = self._exposures()
            if self.contract == TRIX:
                self.scores = self._play_trix()
            else:
                self.scores = self._play_tricks(exposed)
            if self.pos < len(self.events):
                rule = "T-6.5" if self.contract == TRIX else "T-3.5"
                raise _DealError(
                    f"{self._at(self.pos)}: the deal is over, but "
                    f"{len(self.events) - self.pos} more event(s) follow ({rule})"
                )
        except _DealError as error:
            self.errors.append(str(error))
            self.scores = None

    def _choose_contract(self) -> None:
        """T-2.5: the King chooses a contract not yet chosen in his kingdom (T-7.3: tie-break
        deals are King of Hearts)."""
        rule = "T-7.3" if self.tiebreak_deal else "T-2.5"
        index, event = self._next(self.king, "choose the contract", rule)
        if event["type"] != "contract":
            raise _DealError(
                f"{self._at(index)}: the first event must be the King's contract, "
                f"not a '{event['type']}' event ({rule})"
            )
        self.contract = event["contract"]
        if self.contract not in self.allowed:
            if self.tiebreak_deal:
                why = "a tie-break deal is King of Hearts"
            else:
                why = "it was already chosen in this kingdom"
            self.errors.append(
                f"{self._at(index)}: King seat {self.king} chose {self.contract}, "
                f"but {why} ({rule})"
            )

    def _exposures(self) -> dict[str, int]:
        """T-5.1: with doubling, in King of Hearts / Queens each seat holding an exposable
        card is asked once, in turn order from the King; it exposes a subset of them."""
        exposed: dict[str, int] = {}
        if not self.doubling or self.contract not in (KING_OF_HEARTS, QUEENS):
            return exposed
        for step in range(4):
            seat = (self.king + step) % 4
            may = exposable_cards(self.hands[seat], self.contract)
            if not may:
                continue
            duty = f"decide whether to expose {_cards_text(may)}"
            index, event = self._next(seat, duty, "T-5.1")
            if event["type"] != "expose":
                raise _DealError(
                    f"{self._at(index)}: seat {seat} sent a '{event['type']}' event, "
                    f"but should {duty} (T-5.1)"
                )
            for card in event["cards"]:
                if card not in may:
                    raise _DealError(
                        f"{self._at(index)}: seat {seat} exposed {card}, but may only "
                        f"expose {_cards_text(may)} (T-5.1)"
                    )
                exposed[card] = seat
        return exposed

    def _play_tricks(self, exposed: dict[str, int]) -> list[int]:
        """T-3: 13 tricks; the King leads the first, each winner the next (T-3.1, T-3.5)."""
        taken: list[list[str]] = [[], [], [], []]
        tricks = [0, 0, 0, 0]
        leader = self.king
        for trick_number in range(1, 14):
            trick: list[str] = []
            for step in range(4):
                seat = (leader + step) % 4
                duty = f"play card {step + 1} of trick {trick_number}"
                index, event = self._next(seat, duty, "T-3.1")
                card = self._play_of(index, event, seat, duty, "T-3.2")
                hand = self.hands[seat]
                if card not in legal_trick_cards(hand, trick, self.contract):
                    if trick:
                        led = suit_of(trick[0])
                        raise _DealError(
                            f"{self._at(index)}: seat {seat} played {card} but holds a "
                            f"{SUIT_NAMES[led]} (T-3.2)"
                        )
                    raise _DealError(
                        f"{self._at(index)}: seat {seat} led {card} in King of Hearts but "
                        f"holds a card that is not a heart (T-3.4)"
                    )
                hand.remove(card)
                trick.append(card)
            leader = trick_winner(trick, leader)
            taken[leader].extend(trick)
            tricks[leader] += 1
        return score_trick_deal(self.contract, taken, tricks, exposed)

    def _play_trix(self) -> list[int]:
        """T-6: the King moves first, then turn order; seats with empty hands are skipped;
        a seat with a legal card must play one, else passes; the deal ends when three
        seats have emptied their hands (T-6.2 .. T-6.5)."""
        rows: dict[str, tuple[int, int]] = {}
        finished: list[int] = []
        seat = self.king
        while len(finished) < 3:
            hand = self.hands[seat]
            if hand:
                legal = legal_trix_cards(hand, rows)
                duty = "play a card" if legal else "pass"
                index, event = self._next(seat, f"{duty} in Trix", "T-6.2, T-6.5")
                if event["type"] == "pass":
                    if legal:
                        raise _DealError(
                            f"{self._at(index)}: seat {seat} passed but holds playable "
                            f"{_cards_text(legal)} (T-6.4)"
                        )
                else:
                    card = self._play_of(index, event, seat, f"{duty} in Trix", "T-6.3")
                    if card not in legal:
                        raise _DealError(
                            f"{self._at(index)}: seat {seat} played {card}, which does not "
                            f"fit a row (playable: {_cards_text(legal)}) (T-6.3)"
                        )
                    hand.remove(card)
                    place_trix_card(rows, card)
                    if not hand:
                        finished.append(seat)
            seat = (seat + 1) % 4
        return score_trix_deal(finished)


# ----------------------------------------------------------------- whole replay


def _read_options(options: object, errors: list[str]) -> dict:
    """The rule options (T-9), defaults filled in; bad or missing values are reported."""
    result = dict(DEFAULT_OPTIONS)
    if not isinstance(options, dict):
        errors.append("options must be an object (T-9)")
        return result
    for key in sorted(options.keys() - DEFAULT_OPTIONS.keys()):
        errors.append(f"options: unknown option {key!r} (T-9)")
    checks = {
        "doubling": lambda v: isinstance(v, bool),
        "kingdoms": lambda v: _is_int(v) and 1 <= v <= 4,
        "tiebreak": lambda v: v in ("none", KING_OF_HEARTS),
        "first_king_card": is_card,
        "partners": lambda v: isinstance(v, bool),
    }
    for key, valid in checks.items():
        if key not in options:
            errors.append(f"options: {key} is not recorded (T-9 default {DEFAULT_OPTIONS[key]!r})")
        elif not valid(options[key]):
            errors.append(f"options: bad value {options[key]!r} for {key} (T-9)")
        else:
            result[key] = options[key]
    return result


def _first_king(deals: list, card: str, errors: list[str]) -> int | None:
    """T-2.3: the seat holding `card` in the first deal's hands is the first King."""
    if not deals or not isinstance(deals[0], dict):
        return None
    hands = deals[0].get("hands")
    if isinstance(hands, list):
        for seat, hand in enumerate(hands[:4]):
            if isinstance(hand, list) and card in hand:
                return seat
    errors.append(f"deal 1: nobody holds {card}, so the first King is unknown (T-2.3)")
    return None


def check_replay(replay: dict) -> list[str]:
    """Check one `arena-replay/1` Trix game against the rule book; return every disagreement.

    An empty list means the replay is accepted. Checked: the format keys; every deal's
    hands (T-2.2), King (T-2.3, T-2.4, T-7.3), contract (T-2.5), exposures (T-5.1),
    turns and plays (T-3, T-6) and scores (T-4, T-5.3, T-5.4, T-6.6); the number of
    deals (T-2.1, T-9 kingdoms) and tie-break deals (T-7.3); totals (T-7.1); ranks
    (T-7.2, partners option); the faults list.
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
    if replay.get("game") != "trix":
        errors.append(f"game is {replay.get('game')!r}, not 'trix'")
    if not isinstance(replay.get("seed"), str):
        errors.append("seed must be a string")
    players = replay.get("players")
    if not (
        isinstance(players, list) and len(players) == 4 and all(isinstance(p, str) for p in players)
    ):
        errors.append("players must be a list of 4 names (T-1.1)")
    options = _read_options(replay.get("options"), errors)
    _check_faults(replay.get("faults"), errors)

    deals = replay.get("deals")
    if not isinstance(deals, list):
        errors.append("deals must be a list")
        deals = []
    regular = 5 * options["kingdoms"]
    first_king = _first_king(deals, options["first_king_card"], errors)

    used: dict[int, set[str]] = {}
    deal_scores: list[list[int] | None] = []
    for position, deal in enumerate(deals):
        number = position + 1
        deal_scores.append(
            _check_deal(number, deal, position, regular, first_king, used, options, errors)
        )

    if len(deals) < regular:
        errors.append(
            f"the game has {len(deals)} deals, but {options['kingdoms']} kingdom(s) "
            f"of 5 deals make {regular} (T-2.1, T-9)"
        )
        return errors
    if any(scores is None for scores in deal_scores):
        errors.append("totals, ranks and tie-break deals not checked: some deal scores are bad")
        return errors

    _check_tiebreak(deal_scores, regular, options, errors)
    sums = [sum(scores[seat] for scores in deal_scores) for seat in range(4)]
    totals = replay.get("totals")
    if not _is_score_list(totals):
        errors.append(f"totals must be a list of 4 integers, not {totals!r}")
    elif totals != sums:
        errors.append(f"totals are {totals}, but the deal scores add up to {sums} (T-7.1)")
    ranks = replay.get("ranks")
    expected = compute_ranks(sums, options["partners"])
    if ranks != expected:
        how = "team totals" if options["partners"] else "totals"
        errors.append(
            f"ranks are {ranks}, but {how} from the deals {sums} give {expected} "
            f"(T-7.2{', T-9 partners' if options['partners'] else ''})"
        )
    return errors


def _check_faults(faults: object, errors: list[str]) -> None:
    """`faults` must be a list of {"seat", "deal", "kind", "detail"} objects."""
    if not isinstance(faults, list):
        errors.append("faults must be a list")
        return
    for i, fault in enumerate(faults):
        if not isinstance(fault, dict) or not FAULT_KEYS <= fault.keys():
            errors.append(f"faults[{i}] must be an object with keys seat, deal, kind, detail")
        elif not isinstance(fault["kind"], str):
            errors.append(f"faults[{i}]: kind must be a string")


def _check_deal(number, deal, position, regular, first_king, used, options, errors):
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

    tiebreak_deal = position >= regular
    if tiebreak_deal:
        extra = position - regular
        king = None if first_king is None else (first_king + extra) % 4
        allowed = {KING_OF_HEARTS}
        king_rule = "T-7.3"
    else:
        kingdom = position // 5
        king = None if first_king is None else (first_king + kingdom) % 4
        allowed = set(CONTRACTS) - used.setdefault(kingdom, set())
        king_rule = "T-2.3, T-2.4"
    if king is None:
        king = deal.get("king")  # cannot know better; use the record
    elif deal.get("king") != king:
        errors.append(
            f"{where}: King is recorded as {deal.get('king')!r}, "
            f"but should be seat {king} ({king_rule})"
        )

    scores = deal.get("scores")
    if not _is_score_list(scores):
        errors.append(f"{where}: scores must be a list of 4 integers, not {scores!r}")
        scores = None

    problems = hands_problems(deal.get("hands"))
    errors.extend(f"{where}: {problem}" for problem in problems)
    events = deal.get("events")
    if not isinstance(events, list):
        errors.append(f"{where}: events must be a list")
    if problems or not isinstance(events, list) or not _is_seat(king):
        errors.append(f"{where}: play not checked")
        return scores

    replay = _DealReplay(
        number, king, deal["hands"], events, allowed, options["doubling"], tiebreak_deal
    )
    replay.run()
    errors.extend(replay.errors)
    if replay.contract is not None and not tiebreak_deal:
        used[position // 5].add(replay.contract)
    if replay.scores is not None and scores is not None and replay.scores != scores:
        rule = "T-6.6" if replay.contract == TRIX else "T-4, T-5.3, T-5.4"
        errors.append(
            f"{where}: scores are {scores}, but the {replay.contract} deal "
            f"as played scores {replay.scores} ({rule})"
        )
    return scores


def _check_tiebreak(deal_scores, regular, options, errors) -> None:
    """T-7.3: with the tie-break option, one extra King of Hearts deal while the highest
    total is shared, at most 4; without it, no extra deal."""
    present = len(deal_scores) - regular
    if options["tiebreak"] != KING_OF_HEARTS:
        if present:
            errors.append(
                f"deal {regular + 1}: {present} deal(s) beyond the {regular} regular "
                f"deals, but the tiebreak option is {options['tiebreak']!r} (T-7.3)"
            )
        return
    running = [sum(scores[seat] for scores in deal_scores[:regular]) for seat in range(4)]
    required = 0
    while required < MAX_TIEBREAK_DEALS and tied_for_first(running, options["partners"]):
        if required >= present:
            errors.append(
                f"the highest total is shared after deal {regular + required} "
                f"({running}), but tie-break deal {regular + required + 1} is "
                f"missing (T-7.3)"
            )
            return
        scores = deal_scores[regular + required]
        running = [running[seat] + scores[seat] for seat in range(4)]
        required += 1
    if present > required:
        why = (
            "at most 4 are played"
            if required == MAX_TIEBREAK_DEALS
            else f"no tie for first remains after deal {regular + required}"
        )
        errors.append(
            f"deal {regular + required + 1}: an extra deal is recorded, but {why} (T-7.3)"
        )


# ------------------------------------------------------------------ command line


def main(argv: list[str] | None = None) -> int:
    """Check every replay named (files, or directories searched for ``*.json``)."""
    from tests.independent.cli import run_checker

    return run_checker(check_replay, "tests.independent.trix_checker", argv)


if __name__ == "__main__":
    sys.exit(main())


def _think_errors(think) -> list[str]:
    """The optional `think` key: per seat, null (a bot inside the referee) or the wall
    and CPU milliseconds of each decision it was asked, two lists of one length, every
    time a number of at least 0 (CPU may be null: the bot had no cgroup)."""
    if not isinstance(think, list) or len(think) != 4:
        return ["think is not a list of 4 seats"]
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
