"""The replay viewer's data for one stored deal: JSON that the served page fetches
(same origin only), or, in the static report, the script a page opened from file://
loads (where it may not fetch): one script a game, its deals' frames packed."""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import orjson

from arena.play.replay_frames import SeatsShown, deal_frames, game_frames
from arena.play.replay_frames import deal_script as frames_script


def deal_script(replay: Mapping[str, Any], deal: int) -> str:
    """`ArenaViewer.load(N, {...})` for deal `deal` (from 1) of a stored game: every
    seat's view at every step (the game is over, its match stored)."""
    return frames_script(deal_frames(replay, deal, "all"))


def frames_json(doc: Mapping[str, Any]) -> str:
    """One deal's frames as the JSON the served viewer fetches (ASCII, compact)."""
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=True)


def deal_json(replay: Mapping[str, Any], deal: int) -> str:
    """Deal `deal` (from 1) of a stored game as JSON: what `deal_script` wraps."""
    return frames_json(deal_frames(replay, deal, "all"))


PACK_FORMAT = "arena-frames-pack/1"  # in the report's script name space: see game_pack


def game_pack(replay: Mapping[str, Any], game_id: int, seats_shown: SeatsShown = "all") -> str:
    """The static report's script of a stored game: `ArenaViewer.loadPacked(ID, "...")`,
    the string being base85 (RFC 1924's alphabet: no quote, backslash or slash) of the
    gzip of the JSON list of every deal's arena-frames/1 document (`game_frames`), each
    with its `frames` turned into columns (`columns`), which the viewer unpacks
    (DecompressionStream), turns back into frames and expands as it does a fetched
    deal. A game's frames are ~440 KB of JSON, ~36 KB packed (the views repeat from
    step to step; columns put alike values together, 12% smaller than frames packed as
    they are, and an answer that is the event the views' list holds next is its index
    there, 11% more); one file a game rather than one a deal keeps a report of 10,000
    games to 10,000 data files. The same game packs to the same bytes (the gzip header
    has no time). gzip's level 7: 1.7 KB a game smaller than its default 6 for 1.5 ms of
    CPU more; 8 and 9 save 0.9 KB more for 7-9 ms (a big report's time)."""
    return pack_frames(game_frames(replay, seats_shown), game_id)


def pack_frames(docs: list[dict[str, Any]], game_id: int) -> str:
    """`game_pack` of a game's frames, already made (`game_frames`)."""
    docs = [{**doc, "frames": columns(doc)} for doc in docs]
    packed = b85encode(gzip.compress(orjson.dumps(docs), compresslevel=7, mtime=0))
    return f'ArenaViewer.loadPacked({int(game_id)}, "{packed.decode()}");\n'


_B85 = np.frombuffer(
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~",
    dtype=np.uint8,
)  # RFC 1924's alphabet, base64.b85encode's


def b85encode(data: bytes) -> bytes:
    """`base64.b85encode(data)`, the same bytes, computed on arrays: the standard one
    loops in Python over every four bytes (1.5 ms of a game's 36 KB, 0.2 ms here, in a
    report that packs every game)."""
    pad = -len(data) % 4
    words = np.frombuffer(data + bytes(pad), dtype=">u4").astype(np.uint32)
    digits = np.empty((len(words), 5), dtype=np.uint8)
    for place in range(4, -1, -1):  # the last digit first: each word in base 85
        words, digits[:, place] = np.divmod(words, 85)
    out = _B85[digits].tobytes()
    return out[: len(out) - pad]


def columns(doc: Mapping[str, Any]) -> dict[str, list[Any]]:
    """A deal's frames as one list per key, None where a frame has not the key (no
    frame holds a None): `c`, `v`, `answer`, `auto`, `fault`, `end`. An `answer` equal
    to the first observer's event list's item at that step's length (the event the
    decision adds) is that index instead (an answer is otherwise an object)."""
    frames = doc["frames"]
    events = (doc.get("prefix") or {}).get("events", [[]])[0]
    length, answers = 0, []
    for frame in frames:
        length = (
            frame.get("v", {}).get("0", {}).get("events", frame.get("c", {}).get("events", length))
        )
        answer = frame.get("answer")
        same = answer is not None and length < len(events) and events[length] == answer
        answers.append(length if same else answer)
    keys = sorted({key for frame in frames for key in frame})
    out = {key: [frame.get(key) for frame in frames] for key in keys}
    if "answer" in out:
        out["answer"] = answers
    return out


def rows(columns: Mapping[str, list[Any]], prefix: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The frames of `columns` (what the viewer does in JavaScript)."""
    events = (prefix or {}).get("events", [[]])[0]
    count = max((len(values) for values in columns.values()), default=0)
    frames = [
        {key: values[i] for key, values in columns.items() if values[i] is not None}
        for i in range(count)
    ]
    for frame in frames:
        if isinstance(frame.get("answer"), int):
            frame["answer"] = events[frame["answer"]]
    return frames


def unpack(script: str) -> list[dict[str, Any]]:
    """The deals' arena-frames/1 documents of a `game_pack` script, as the viewer
    unpacks them."""
    packed = script[script.index('"') + 1 : script.rindex('"')]
    docs = json.loads(gzip.decompress(base64.b85decode(packed)))
    return [{**doc, "frames": rows(doc["frames"], doc["prefix"])} for doc in docs]
