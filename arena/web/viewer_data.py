"""The replay viewer's data for one stored deal: JSON that the served page fetches
(same origin only), or, in the static report, the script a page opened from file://
loads (where it may not fetch)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from arena.play.replay_frames import deal_frames, game_frames
from arena.play.replay_frames import deal_script as frames_script


def deal_script(replay: Mapping[str, Any], deal: int) -> str:
    """`ArenaViewer.load(N, {...})` for deal `deal` (from 1) of a stored game: every
    seat's view at every step (the game is over, its match stored)."""
    return frames_script(deal_frames(replay, deal, "all"))


def game_scripts(replay: Mapping[str, Any]) -> list[str]:
    """Every deal's script of a stored game, in order, from one pass through the engine
    (`deal_script` per deal would play the game again up to each deal)."""
    return [frames_script(doc) for doc in game_frames(replay, "all")]


def frames_json(doc: Mapping[str, Any]) -> str:
    """One deal's frames as the JSON the served viewer fetches (ASCII, compact)."""
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=True)


def deal_json(replay: Mapping[str, Any], deal: int) -> str:
    """Deal `deal` (from 1) of a stored game as JSON: what `deal_script` wraps."""
    return frames_json(deal_frames(replay, deal, "all"))
