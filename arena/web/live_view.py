"""The match in flight as the site may show it, from the worker's live file.

What may be shown of a game still being played is what a spectator at a real table
sees (`observe(state, PUBLIC)`: cards played, exposed cards, bids, scores). A
seat-rotated match adds a rule of its own: the later rotations replay the same deals,
so anything of an earlier rotation's cards, even the public record, tells the hands
of a game still to come. A watcher who passed it to a bot playing over the network
(`grpc:`) would let it see through the cards. So the cards of a match in flight are
shown for its last rotation only (whose deals no later game replays), as a spectator
sees them; the earlier rotations show how far they are and nothing of their cards.
`--live-hands` (an organiser's own screen) shows every hand of every rotation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.play.replay_frames import deal_frames, game_outline
from arena.web.viewer_data import frames_json


def live_replay(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The live file's game as a replay cut short (the frames' input)."""
    return {
        "format": "arena-replay/1",
        "game": doc["game"],
        "options": doc["options"],
        "seed": doc["seed"],
        "players": doc["players"],
        "deals": doc["deals"],
        "faults": [],
    }


def cards_shown(doc: Mapping[str, Any], live_hands: bool) -> bool:
    """Whether the page may show the cards of the game being played (see above)."""
    return live_hands or doc["rotation"] == doc["rotations"] - 1


def progress(doc: Mapping[str, Any]) -> dict[str, Any]:
    """How far the match is, and nothing of its cards: rotation, deal, decisions."""
    deals = doc["deals"]
    return {
        "rotation": doc["rotation"] + 1,
        "rotations": doc["rotations"],
        "players": doc["players"],
        "deal": len(deals),
        "decisions": len(deals[-1]["events"]) if deals else 0,
        "updated_at": doc.get("updated_at"),
    }


def live_outline(doc: Mapping[str, Any], live_hands: bool) -> dict[str, Any]:
    """The viewer's outline of the game being played (totals and ranks None)."""
    return game_outline(live_replay(doc), "all" if live_hands else "public")


def live_deal_json(doc: Mapping[str, Any], deal: int, live_hands: bool) -> str:
    """Deal `deal` of the game being played as the viewer's JSON (never a script, which
    a page of another origin could run): the spectator's view, or with `live_hands`
    every seat's."""
    frames = deal_frames(live_replay(doc), deal, "all" if live_hands else "public")
    return frames_json(frames)
