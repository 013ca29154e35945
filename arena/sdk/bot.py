"""The class a Python bot subclasses."""

from __future__ import annotations

from typing import Any

from arena.sdk.turn import Turn


class Bot:
    """Subclass and override `act`. `name` and `version` are what the bot says of itself
    in its handshake: `arena check-bot` prints them and its log keeps them, but tables
    name a seat from its spec (docs/bots.md, "A bot's name"), never from the bot."""

    name = "bot"
    version = "1.0"
    games: tuple[str, ...] = ("trix",)  # the games this bot can play

    def act(self, turn: Turn) -> Any:
        """Return one of `turn.legal` (a dict), its index, or a card code for a play."""
        raise NotImplementedError

    def on_deal_end(self, deal: dict[str, Any], game: dict[str, Any]) -> None:
        """A deal ended; `deal` holds the hands as dealt, events and scores. Optional:
        a bot that overrides this (or on_game_end) is sent the notices."""

    def on_game_end(self, totals: list[int], ranks: list[int], game: dict[str, Any]) -> None:
        """A game ended. Optional."""
