"""Protocol messages as plain Python data and back, for the referee and the bot SDK.

Kept apart from the engines so that a bot importing the SDK loads no rules code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.wire.v1 import bot_pb2 as pb


def action_message(event: Mapping[str, Any]) -> pb.Action:
    """A replay-shaped event (with or without its seat) as an Action message."""
    return pb.Action(
        type=event.get("type", ""),
        card=event.get("card", ""),
        contract=event.get("contract", ""),
        cards=event.get("cards", ()),
        bid=event.get("bid", ""),
    )


def action_dict(action: pb.Action) -> dict[str, Any]:
    """An Action as a replay-shaped dict holding only the fields its type uses."""
    out: dict[str, Any] = {"type": action.type}
    if action.card:
        out["card"] = action.card
    if action.contract:
        out["contract"] = action.contract
    if action.type == "expose" or action.cards:
        out["cards"] = list(action.cards)
    if action.bid:
        out["bid"] = action.bid
    return out


def observation_dict(obs: pb.Observation) -> dict[str, Any]:
    """An Observation as plain data, with the keys of the engine's `view_dict`."""
    return {
        "seat": obs.seat,
        "deal": obs.deal,
        "hand": list(obs.hand),
        "events": [{"seat": e.seat, **action_dict(e.action)} for e in obs.events],
        "trick": [{"seat": t.seat, "card": t.card} for t in obs.trick],
        "cards_left": list(obs.cards_left),
        "tricks_won": list(obs.tricks_won),
        "totals": list(obs.totals),
        "deal_scores": [list(s.scores) for s in obs.deal_scores],
        "king": obs.king,
        "first_king": obs.first_king,
        "contract": obs.contract,
        "contracts_left": list(obs.contracts_left),
        "exposed": [list(c.cards) for c in obs.exposed],
        "rows": list(obs.rows),
        "finished": list(obs.finished),
        "dealer": obs.dealer,
        "declarer": obs.declarer,
        "bid": obs.bid,
        "trump": obs.trump,
    }


def game_dict(info: pb.GameInfo) -> dict[str, Any]:
    return {
        "game": info.game,
        "game_id": info.game_id,
        "seat": info.seat,
        "seed": info.seed,
        "players": list(info.players),
        "options": dict(info.options),
    }


def deal_end_dict(deal: pb.DealEnd) -> dict[str, Any]:
    """A DealEnd notice in the shape of a replay deal (hands as dealt, T-8.2)."""
    return {
        "number": deal.number,
        "king": deal.king,
        "dealer": deal.dealer,
        "hands": [list(h.cards) for h in deal.hands],
        "events": [{"seat": e.seat, **action_dict(e.action)} for e in deal.events],
        "scores": list(deal.scores),
    }
