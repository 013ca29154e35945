"""How `games.replay` holds a replay: zstandard over a compact binary form of the
deals, and the one place that writes or reads it (docs/leagues.md, "Storage").

A replay as JSON is about 48 KB for a 4-kingdom Trix game, nearly all of it events
such as `{"seat":1,"type":"play","card":"6H"}`: 38 bytes for a fact that fits in one
byte. Measured on 80 such games: zstandard alone makes the JSON 4.3 KB (level 9) or
3.8 KB (level 19, 25 ms a game); a dictionary trained on replays gains under 10%
more, since a whole replay repeats itself enough for the compressor to learn from.
The compact form writes each deal's hands as their cards' holders (2 bits a card)
and each play as one byte (the seat, and the card's place among the cards the seat
still holds), then compresses it all with the rest of the replay's JSON: 1.8 KB a
game, packed in about 3.4 ms of CPU (its check included) and read back in 0.9 ms,
what parsing the JSON took (docs/leagues.md, "The compact store").

A stored value is a BLOB whose first byte says how to read the rest:

- 1 (`COMPACT`): zstandard of the replay's "skeleton" (its JSON with every deal's
  "hands" and "events" set to 0) followed by those hands and events as bytes;
- 0 (`PLAIN`): zstandard of the replay's JSON text as it was given, for any replay
  the compact form does not give back exactly (an event shape it does not know, a
  card that is not a card code). Packing always checks that reading back gives the
  very text it was given, so no replay is ever stored changed.

A TEXT value is a replay stored before migration 13, read as it is: a database
being converted (the migration works a batch at a time) reads alike throughout.
The compact text is `json.dumps(replay, separators=(",", ":"))`, what `arena run`
has always stored; `arena replay --format json` prints it parsed and indented, so
it prints the same bytes as before the change.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

import zstandard

from arena.cards import CARD_CODES

PLAIN = 0  # zstandard of the JSON text
COMPACT = 1  # zstandard of the skeleton and the deals as bytes
LEVEL = 9  # zstandard's level: measured by `arena bench store` (docs/benchmarks.md)

_CARD = {code: i for i, code in enumerate(CARD_CODES)}
# event header byte: seat << 6 | code; codes 0..47 play the seat's card of that
# position among the cards it still holds (its dealt hand, in order, less its plays)
_PLAY = 48  # a play of a card the seat does not hold: the card's byte follows
_PASS_LIKE = 52  # {"seat", "type"}: the type follows
_WITH_TEXT = 53  # {"seat", "type", KEY: text}: type, key and text follow
_WITH_CARDS = 54  # {"seat", "type", KEY: [cards]}: type, key, count and cards follow
_OTHER = 55  # anything else: its JSON text follows (the header's seat bits are 0)
# a deal's hands: as lists of card bytes, or (each hand in card order, no card twice,
# at most 3 hands or 4 that hold the whole deck) as each card's holder in 2 bits
_HAND_LISTS, _HOLDERS = 0, 1
_NOBODY = 3

_local = threading.local()  # zstandard's (de)compressors are not shared between threads


def _compressor() -> zstandard.ZstdCompressor:
    if not hasattr(_local, "compressor"):
        _local.compressor = zstandard.ZstdCompressor(level=LEVEL)
        _local.decompressor = zstandard.ZstdDecompressor()
    return _local.compressor


def _decompressor() -> zstandard.ZstdDecompressor:
    _compressor()
    return _local.decompressor


def replay_text(replay: Mapping[str, Any]) -> str:
    """The replay's JSON as the games table has always held it (compact separators)."""
    return json.dumps(replay, separators=(",", ":"))


def pack_replay(replay: Mapping[str, Any]) -> bytes:
    """The BLOB to store in `games.replay` for `replay` (an `arena-replay/1` dict)."""
    return pack_text(replay_text(replay), replay)


def pack_text(text: str, replay: Mapping[str, Any] | None = None) -> bytes:
    """The BLOB for a replay's stored JSON `text` (`replay` is `text` parsed, when the
    caller has it): compact when that gives back `text` exactly, else plain."""
    compressor = _compressor()
    try:
        parsed = json.loads(text) if replay is None else replay
        body = _compact(parsed)
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError):
        body = None
    if body is not None:
        blob = bytes([COMPACT]) + compressor.compress(body)
        if unpack_text(blob) == text:
            return blob
    return bytes([PLAIN]) + compressor.compress(text.encode())


def with_players(blob: bytes, players: list[str]) -> bytes:
    """`blob` (a packed replay) as the same replay under other `players` (the benches'
    big leagues store a few played games under many tables): the compact form's
    skeleton alone is written again, some 50 times faster than packing the replay."""
    if blob[:1] != bytes([COMPACT]):
        return pack_replay({**unpack_replay(blob), "players": players})
    data = _decompressor().decompress(blob[1:])
    head = _Reader(data, 0)
    size = head.uint()
    skeleton = json.loads(data[head.at : head.at + size])
    skeleton["players"] = players
    text = json.dumps(skeleton, separators=(",", ":")).encode()
    out = bytearray()
    _put_uint(out, len(text))
    return bytes([COMPACT]) + _compressor().compress(bytes(out) + text + data[head.at + size :])


def unpack_text(value: bytes | str) -> str:
    """A stored replay's JSON text, exactly as it was packed (a TEXT value of before
    migration 13 is that text already)."""
    if isinstance(value, str):
        return value
    kind, data = value[0], _decompressor().decompress(value[1:])
    if kind == PLAIN:
        return data.decode()
    if kind == COMPACT:
        return replay_text(_expand(data))
    raise ValueError(f"a stored replay of unknown encoding {kind} (a newer arena wrote it)")


def unpack_replay(value: bytes | str) -> dict[str, Any]:
    """A stored replay as the `arena-replay/1` dict it was packed from."""
    if isinstance(value, bytes) and value[:1] == bytes([COMPACT]):
        return _expand(_decompressor().decompress(value[1:]))
    return json.loads(unpack_text(value))


# --- the compact form -------------------------------------------------------------


def _compact(replay: Mapping[str, Any]) -> bytes | None:
    """Skeleton JSON and the deals' bytes, or None when a deal is not of the form."""
    out = bytearray()
    strings: dict[str, int] = {}
    deals = replay["deals"]
    if not isinstance(deals, list):
        return None
    skeleton_deals = []
    for deal in deals:
        if not isinstance(deal, dict) or not {"hands", "events"} <= deal.keys():
            return None
        held = _put_hands(out, deal["hands"])
        if held is None or not _put_events(out, deal["events"], strings, held):
            return None
        skeleton_deals.append({**deal, "hands": 0, "events": 0})
    skeleton = json.dumps({**replay, "deals": skeleton_deals}, separators=(",", ":")).encode()
    head = bytearray()
    _put_uint(head, len(skeleton))
    return bytes(head) + skeleton + bytes(out)


def _put_hands(out: bytearray, hands: Any) -> list[list[int]] | None:
    """Write a deal's hands; the cards each seat holds (None: not of the form)."""
    if not isinstance(hands, list) or not all(
        isinstance(hand, list) and all(_is_card(c) for c in hand) for hand in hands
    ):
        return None
    held = [[_CARD[c] for c in hand] for hand in hands]
    _put_uint(out, len(held))
    holders: list[int | None] = [None] * len(CARD_CODES)
    for seat, cards in enumerate(held):
        for card in cards:
            holders[card] = seat if holders[card] is None else -1
    in_order = all(cards == sorted(cards) for cards in held) and -1 not in holders
    if in_order and (len(held) <= 3 or (len(held) == 4 and None not in holders)):
        holders = [_NOBODY if seat is None else seat for seat in holders]
        out.append(_HOLDERS)
        for i in range(0, len(holders), 4):
            four = holders[i : i + 4]
            out.append(four[0] | four[1] << 2 | four[2] << 4 | four[3] << 6)
    else:
        out.append(_HAND_LISTS)
        for cards in held:
            _put_uint(out, len(cards))
            out.extend(cards)
    return held


def _put_events(
    out: bytearray, events: Any, strings: dict[str, int], held: list[list[int]]
) -> bool:
    if not isinstance(events, list):
        return False
    _put_uint(out, len(events))
    for event in events:
        if not isinstance(event, dict):
            return False
        _put_event(out, event, strings, held)
    return True


def _put_event(
    out: bytearray, event: dict[str, Any], strings: dict[str, int], held: list[list[int]]
) -> None:
    keys = list(event)
    seat, kind = event.get("seat"), event.get("type")
    known = (
        keys[:2] == ["seat", "type"]
        and type(seat) is int
        and 0 <= seat <= 3
        and isinstance(kind, str)
        and len(keys) <= 3
    )
    value = event[keys[2]] if known and len(keys) == 3 else None
    if known and kind == "play" and keys[2:] == ["card"] and _is_card(value):
        card = _CARD[value]
        cards = held[seat] if seat < len(held) else []
        position = cards.index(card) if card in cards else _PLAY
        if position < _PLAY:
            out.append(seat << 6 | position)
            del cards[position]
        else:
            out.extend((seat << 6 | _PLAY, card))
    elif known and len(keys) == 2:
        out.append(seat << 6 | _PASS_LIKE)
        _put_string(out, kind, strings)
    elif known and isinstance(value, str):
        out.append(seat << 6 | _WITH_TEXT)
        for text in (kind, keys[2], value):
            _put_string(out, text, strings)
    elif known and isinstance(value, list) and all(_is_card(c) for c in value):
        out.append(seat << 6 | _WITH_CARDS)
        _put_string(out, kind, strings)
        _put_string(out, keys[2], strings)
        _put_uint(out, len(value))
        out.extend(_CARD[c] for c in value)
    else:
        out.append(_OTHER)
        _put_string(out, json.dumps(event, separators=(",", ":")), strings)


def _is_card(value: Any) -> bool:
    return isinstance(value, str) and value in _CARD


def _put_uint(out: bytearray, n: int) -> None:
    """LEB128: seven bits a byte, low first, the high bit set on all but the last."""
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)


def _put_string(out: bytearray, text: str, strings: dict[str, int]) -> None:
    """A string by its number in the order first met; a new one's UTF-8 follows it."""
    number = strings.get(text)
    if number is not None:
        _put_uint(out, number)
        return
    strings[text] = len(strings)
    _put_uint(out, len(strings) - 1)
    data = text.encode()
    _put_uint(out, len(data))
    out.extend(data)


class _Reader:
    """Reads back what the `_put_*` functions wrote."""

    def __init__(self, data: bytes, at: int) -> None:
        self.data, self.at, self.strings = data, at, []

    def uint(self) -> int:
        n = shift = 0
        while True:
            byte = self.data[self.at]
            self.at += 1
            n |= (byte & 0x7F) << shift
            if byte < 0x80:
                return n
            shift += 7

    def cards(self, count: int) -> list[str]:
        """`count` card bytes, as card codes."""
        start = self.at
        self.at += count
        return [CARD_CODES[b] for b in self.data[start : self.at]]

    def string(self) -> str:
        number = self.uint()
        if number < len(self.strings):
            return self.strings[number]
        size = self.uint()
        text = self.data[self.at : self.at + size].decode()
        self.at += size
        self.strings.append(text)
        return text


def _expand(data: bytes) -> dict[str, Any]:
    """The replay `_compact` was given, from what it wrote."""
    head = _Reader(data, 0)
    size = head.uint()
    replay = json.loads(data[head.at : head.at + size])
    reader = _Reader(data, head.at + size)
    for deal in replay["deals"]:
        held = _hands(reader)
        deal["hands"] = [[CARD_CODES[c] for c in cards] for cards in held]
        deal["events"] = [_event(reader, held) for _ in range(reader.uint())]
    return replay


def _hands(reader: _Reader) -> list[list[int]]:
    count, form = reader.uint(), reader.data[reader.at]
    reader.at += 1
    if form == _HAND_LISTS:
        held = []
        for _ in range(count):
            size = reader.uint()
            held.append(list(reader.data[reader.at : reader.at + size]))
            reader.at += size
        return held
    held = [[] for _ in range(count)]
    packed = reader.data[reader.at : reader.at + len(CARD_CODES) // 4]
    reader.at += len(packed)
    for i, byte in enumerate(packed):
        for j in range(4):
            seat = byte >> (2 * j) & 3
            if seat != _NOBODY or count == 4:
                held[seat].append(4 * i + j)
    return held


def _event(reader: _Reader, held: list[list[int]]) -> dict[str, Any]:
    header = reader.data[reader.at]
    reader.at += 1
    seat, code = header >> 6, header & 0x3F
    if code < _PLAY:
        return {"seat": seat, "type": "play", "card": CARD_CODES[held[seat].pop(code)]}
    if code == _PLAY:
        reader.at += 1
        return {"seat": seat, "type": "play", "card": CARD_CODES[reader.data[reader.at - 1]]}
    if code == _PASS_LIKE:
        return {"seat": seat, "type": reader.string()}
    if code == _WITH_TEXT:
        kind, key = reader.string(), reader.string()
        return {"seat": seat, "type": kind, key: reader.string()}
    if code == _WITH_CARDS:
        kind, key = reader.string(), reader.string()
        return {"seat": seat, "type": kind, key: reader.cards(reader.uint())}
    if code == _OTHER:
        return json.loads(reader.string())
    raise ValueError(f"a stored replay event of unknown code {code}")
