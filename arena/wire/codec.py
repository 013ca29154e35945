"""Engine views and actions to and from `arena.v1` protobuf bytes, fast.

A decision request carries the seat's whole observation, so a stateless bot can play
from it alone; a deal's history grows to some 60 events. Building those as protobuf
objects costs about 4 us each here, which would make the referee slower than the wire.
So requests are assembled as bytes: protobuf's wire format lets a message be written
as the concatenation of its fields, and each event, legal action, trick card and score
line is encoded once and cached. What goes into a request is only ever taken from the
view that `game.observe` built (docs/rules/trix.md T-8): this module re-encodes, it never looks at
the state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from arena.cards import CARD_CODES, cards_of, codes_of
from arena.errors import IllegalAction
from arena.games.base import Action, Game
from arena.games.trianon import BID_CODES, TrianonView
from arena.games.trix import CONTRACTS, TrixView
from arena.wire.messages import action_dict, action_message
from arena.wire.protocol import field_number
from arena.wire.v1 import bot_pb2 as pb

# Field numbers of the messages built as bytes, from the generated descriptors.
_OBS = {
    name: field_number(pb.Observation, name)
    for name in (
        "hand",
        "events",
        "trick",
        "cards_left",
        "tricks_won",
        "deal_scores",
        "exposed",
        "rows",
        "finished",
    )
}
_OBS_HAND, _OBS_EVENTS, _OBS_TRICK = _OBS["hand"], _OBS["events"], _OBS["trick"]
_OBS_CARDS_LEFT, _OBS_TRICKS_WON = _OBS["cards_left"], _OBS["tricks_won"]
_OBS_DEAL_SCORES, _OBS_EXPOSED = _OBS["deal_scores"], _OBS["exposed"]
_OBS_ROWS, _OBS_FINISHED = _OBS["rows"], _OBS["finished"]
_REQ_GAME = field_number(pb.DecisionRequest, "game")
_REQ_OBSERVATION = field_number(pb.DecisionRequest, "observation")
_REQ_LEGAL = field_number(pb.DecisionRequest, "legal")
_EVENT_ACTION = field_number(pb.Event, "action")
_MSG_DECISION = field_number(pb.RefereeMessage, "decision")
_DECISION_ID_TAG = bytes([field_number(pb.DecisionRequest, "decision_id") << 3 | 0])  # varint
_DEAL_END_GAME = field_number(pb.DealEnd, "game")

ActionKey = tuple[str, str, str, tuple[str, ...], str]
_SMALL_VARINTS = tuple(bytes([value]) for value in range(0x80))


def _varint(value: int) -> bytes:
    if value < 0x80:
        return _SMALL_VARINTS[value]
    if value < 0x4000:  # a request's length, a decision id: two bytes
        return bytes((value & 0x7F | 0x80, value >> 7))
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    """One length-delimited field (a sub-message, string or bytes) as wire bytes."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def options_text(options: Mapping[str, Any]) -> dict[str, str]:
    """Rule options as the text map of the wire (true/false in lower case)."""
    return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()}


def game_info(
    game: str,
    game_id: str,
    seat: int,
    *,
    seed: str,
    players: Sequence[str],
    options: Mapping[str, Any],
) -> pb.GameInfo:
    return pb.GameInfo(
        game=game,
        game_id=game_id,
        seat=seat,
        seed=seed,
        players=list(players),
        options=options_text(options),
    )


def game_info_bytes(info: pb.GameInfo) -> bytes:
    """GameInfo as the `game` field of a DecisionRequest (made once per game and seat)."""
    return field(_REQ_GAME, info.SerializeToString())


def wrap_decision(request: bytes) -> bytes:
    """A DecisionRequest's bytes as a RefereeMessage for the Play stream."""
    return field(_MSG_DECISION, request)


class _Encodings(dict):
    """Encoded bytes by key, made by `encode(key)` on the first look-up of a key (a hit
    is a plain dict look-up); emptied when it outgrows `limit`, so it stays small."""

    def __init__(self, encode: Callable[[Any], bytes], limit: int = 4096) -> None:
        super().__init__()
        self.encode = encode
        self.limit = limit

    def __missing__(self, key: Any) -> bytes:
        if len(self) >= self.limit:
            self.clear()
        encoded = self[key] = self.encode(key)
        return encoded


class WireCodec:
    """The encodings of one game's actions and views, cached for the life of a process."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._action: dict[Action, bytes] = {}
        self._by_bytes: dict[bytes, Action] = {}
        self._legal: dict[Action, bytes] = {}
        self._event: dict[tuple[int, Action], bytes] = {}
        self._scores: dict[tuple[int, ...], bytes] = {}
        self._observation: Callable[[Any], bytes] = OBSERVATION_FIELDS[game.name]
        self._deal_end: tuple[Any, bytes] = (None, b"")
        self._seen_events: tuple[tuple, bytes] = ((), b"")
        self._seen_scores: tuple[Any, bytes] = (None, b"")
        # kind, time_ms and time_bank_ms change rarely: the request head is encoded once
        # per combination (the bound is for a time bank that keeps shrinking)
        self._head = _Encodings(
            lambda key: pb.DecisionRequest(
                kind=key[0], time_ms=key[1], time_bank_ms=key[2]
            ).SerializeToString(),
            limit=256,
        )

    def action_bytes(self, action: Action) -> bytes:
        """The serialized Action message of an engine action."""
        encoded = self._action.get(action)
        if encoded is None:
            encoded = action_message(self.game.action_event(action)).SerializeToString()
            self._action[action] = encoded
            self._by_bytes[encoded] = action
        return encoded

    def legal_bytes(self, legal: Iterable[Action]) -> bytes:
        cache = self._legal
        out = []
        for action in legal:
            encoded = cache.get(action)
            if encoded is None:
                encoded = cache[action] = field(_REQ_LEGAL, self.action_bytes(action))
            out.append(encoded)
        return b"".join(out)

    def events_bytes(self, events: Iterable[tuple[int, Action]]) -> bytes:
        """Repeated Event fields (field 4 of an Observation)."""
        cache = self._event
        out = []
        for item in events:
            encoded = cache.get(item)
            if encoded is None:
                seat, action = item
                event = pb.Event(seat=seat).SerializeToString() + field(
                    _EVENT_ACTION, self.action_bytes(action)
                )
                encoded = cache[item] = field(_OBS_EVENTS, event)
            out.append(encoded)
        return b"".join(out)

    def scores_bytes(self, deal_scores: Iterable[Sequence[int]]) -> bytes:
        cache = self._scores
        out = []
        for scores in deal_scores:
            key = tuple(scores)
            encoded = cache.get(key)
            if encoded is None:
                encoded = cache[key] = field(
                    _OBS_DEAL_SCORES, pb.Scores(scores=key).SerializeToString()
                )
            out.append(encoded)
        return b"".join(out)

    def observation_bytes(self, view: Any) -> bytes:
        """The Observation message of a view.

        A deal's events only grow, so the encoding of the events seen at the previous
        decision is kept and only the new ones are added (after checking that the
        earlier ones are unchanged)."""
        events = view.events
        seen, seen_bytes = self._seen_events
        if len(events) >= len(seen) and events[: len(seen)] == seen:
            events_part = seen_bytes + self.events_bytes(events[len(seen) :])
        else:
            events_part = self.events_bytes(events)
        self._seen_events = (events, events_part)
        scores = self._seen_scores
        if scores[0] != view.deal_scores:
            scores = self._seen_scores = (view.deal_scores, self.scores_bytes(view.deal_scores))
        return self._observation(view) + events_part + scores[1]

    def decision_bytes(
        self,
        view: Any,
        legal: Sequence[Action],
        decision_id: int,
        game_info: bytes,
        *,
        time_ms: int,
        time_bank_ms: int = 0,
    ) -> bytes:
        """A serialized DecisionRequest. `game_info` is `game_info_bytes(...)`, made once."""
        return (
            _DECISION_ID_TAG
            + _varint(decision_id)
            + self._head[view.kind, time_ms, time_bank_ms]
            + game_info
            + field(_REQ_OBSERVATION, self.observation_bytes(view))
            + self.legal_bytes(legal)
        )

    def parse_answer(self, action: pb.Action) -> Action:
        """The engine action a bot's answer names; IllegalAction if it names none.

        Most bots send back one of the request's own Action messages, whose bytes are
        in the cache; anything else is read field by field."""
        known = self._by_bytes.get(action.SerializeToString())
        if known is not None:
            return known
        try:
            return self.game.parse_event(action_dict(action))
        except (IllegalAction, KeyError, TypeError, ValueError) as err:
            raise IllegalAction(str(err)) from None

    def deal_end_bytes(self, info: bytes, record: Mapping[str, Any]) -> bytes:
        """A DealEnd notice (T-8.2) as bytes; `info` is the serialized GameInfo.

        Every seat is sent the same deal, so its encoding is kept for the next seat.
        """
        cached_record, body = self._deal_end
        if cached_record is not record:
            message = pb.DealEnd(
                number=record["number"],
                hands=[pb.Cards(cards=h) for h in record["hands"]],
                scores=record["scores"] or [],
                king=record.get("king", 0),
                dealer=record.get("dealer", 0),
            )
            for event in record["events"]:
                message.events.add(seat=event["seat"], action=action_message(event))
            body = message.SerializeToString()
            self._deal_end = (record, body)
        return field(_DEAL_END_GAME, info) + body


_TRICK_CARD = {
    (seat, card): field(
        _OBS_TRICK, pb.TrickCard(seat=seat, card=CARD_CODES[card]).SerializeToString()
    )
    for seat in range(4)
    for card in range(52)
}
_HAND_CARD = tuple(field(_OBS_HAND, CARD_CODES[card].encode()) for card in range(52))
_ROW_CARD = tuple(field(_OBS_ROWS, CARD_CODES[card].encode()) for card in range(52))
# A hand's and the rows' repeated fields, by card set: a seat's hand changes only when it
# plays, so most decisions find theirs here (one look-up, not a field per card).
_HAND = _Encodings(lambda mask: b"".join(map(_HAND_CARD.__getitem__, cards_of(mask))))
_ROWS = _Encodings(lambda mask: b"".join(map(_ROW_CARD.__getitem__, cards_of(mask))))
_PACKED = _Encodings(lambda key: field(key[0], b"".join(map(_varint, key[1]))))


def _packed(number: int, values: Sequence[int]) -> bytes:
    """A packed repeated unsigned field (cards left, tricks won, seats gone out), cached
    by value: a deal has few distinct ones."""
    return _PACKED[number, tuple(values)]


# One seat's exposed cards (field 14), and the four seats' together.
_EXPOSED = _Encodings(
    lambda mask: field(_OBS_EXPOSED, pb.Cards(cards=codes_of(mask)).SerializeToString())
)
_EXPOSED_BY_SEAT = _Encodings(lambda masks: b"".join(map(_EXPOSED.__getitem__, masks)))


def _deal_head(key: tuple) -> bytes:
    seat, deal, king, first_king, contract, contracts_left, totals = key
    return pb.Observation(
        seat=seat,
        deal=deal,
        totals=totals,
        king=king,
        first_king=first_king,
        contract=CONTRACTS[contract] if contract >= 0 else "",
        contracts_left=[CONTRACTS[c] for c in range(5) if contracts_left >> c & 1],
        declarer=-1,
    ).SerializeToString()


_DEAL_HEAD = _Encodings(_deal_head)


def _trix_observation(view: TrixView) -> bytes:
    """The Trix fields of an Observation other than events and deal_scores, as bytes.

    The fields that stay the same through a deal (seat, deal, King, contract, totals)
    are encoded once per deal and seat; only the rest is built per decision."""
    head = _DEAL_HEAD[
        view.seat,
        view.deal,
        view.king,
        view.first_king,
        view.contract,
        view.contracts_left,
        view.totals,
    ]
    body = (
        _HAND[view.hand]
        + _packed(_OBS_CARDS_LEFT, view.cards_left)
        + _packed(_OBS_TRICKS_WON, view.tricks_won)
        + (_ROWS[view.rows] if view.rows else b"")
        + (_packed(_OBS_FINISHED, view.finished) if view.finished else b"")
    )
    trick = b"".join([_TRICK_CARD[item] for item in view.trick])
    return head + body + trick + _EXPOSED_BY_SEAT[view.exposed]


def _trianon_observation(view: TrianonView) -> bytes:
    """The Trianon fields of an Observation other than events and deal_scores (N-8.1)."""
    body = pb.Observation(
        seat=view.seat,
        deal=view.deal,
        hand=codes_of(view.hand),
        cards_left=view.cards_left,
        tricks_won=view.tricks_won,
        totals=view.totals,
        dealer=view.dealer,
        declarer=view.declarer,
        bid=BID_CODES[view.contract] if view.contract >= 0 else "",
        trump="CDHS"[view.trump] if view.trump >= 0 else "",
    ).SerializeToString()
    return body + b"".join([_TRICK_CARD[item] for item in view.trick])


# Per game: a view's Observation fields other than events and deal_scores, as bytes.
OBSERVATION_FIELDS: dict[str, Callable[[Any], bytes]] = {
    "trix": _trix_observation,
    "trianon": _trianon_observation,
}
