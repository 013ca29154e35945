"""The greedy bot: `GreedyBot` hands each decision to the heuristics of its game and
kind (trix.py, trianon.py), with the legal actions and the view the SDK decoded."""

from __future__ import annotations

from typing import Any

from arena.sdk import Bot, Turn
from arena.strategies.greedy.cards import parse_card
from arena.strategies.greedy.trianon import choose_bid, choose_raise, play_trianon_card
from arena.strategies.greedy.trix import (
    TRIX,
    choose_contract,
    choose_exposure,
    play_trick_card,
    play_trix_card,
)


class GreedyBot(Bot):
    """Plays Trix and Trianon by rules of thumb; see `arena.strategies.greedy`."""

    name = "greedy"
    version = "1.0"
    games = ("trix", "trianon")

    def act(self, turn: Turn) -> dict[str, Any]:
        legal = turn.legal
        if len(legal) == 1:
            return legal[0]
        return ACTS[turn.game["game"]](turn, legal)


def act_trix(turn: Turn, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A Trix decision: the King's contract, an exposure, or a card."""
    view = turn.view
    if turn.kind == "contract":
        doubling = turn.game["options"].get("doubling", "true") != "false"
        return choose_contract(view, legal, doubling)
    if turn.kind == "expose":
        return choose_exposure(view, legal)
    if turn.kind != "play":
        return legal[0]
    cards = [parse_card(a["card"]) for a in legal]
    if view["contract"] == TRIX:
        card = play_trix_card(view, cards)
    else:
        card = play_trick_card(view, cards)
    return legal[cards.index(card)]


def act_trianon(turn: Turn, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A Trianon decision: a bid, the declarer's keep-or-raise, or a card."""
    kind, view = turn.kind, turn.view
    if kind == "bid":
        return choose_bid(view, legal)
    if kind == "raise":
        return choose_raise(view, legal)
    if kind != "play":
        return legal[0]
    cards = [parse_card(a["card"]) for a in legal]
    return legal[cards.index(play_trianon_card(view, cards))]


# Each game's heuristics, by the game's registered name (`GreedyBot.games`).
ACTS = {"trix": act_trix, "trianon": act_trianon}
