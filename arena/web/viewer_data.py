"""The replay viewer's data for one stored deal, as the script the page loads."""

from __future__ import annotations

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
