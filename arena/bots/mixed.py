"""The mixed bot (`arena.strategies.mixed`) inside the referee's process, for speed
(`builtin:mixed:P`).

`arena bench rating` plays thousands of games, so the in-process player skips the wire:
it draws the random-or-heuristic coin with the bot's own `random_choice`, and for a
heuristic move hands the heuristic bot the view as `game.view_dict` builds it (the same
data an external bot decodes from its request). A test checks that it makes exactly
the decisions of the external bot's code fed through the real wire encoding.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

from arena.games import get_game
from arena.games.base import Action, Game
from arena.play.referee import Decision, GameStart
from arena.strategies.mixed import MixedBot
from arena.wire.codec import options_text


class _Turn:
    """What the heuristic bot reads of an SDK `Turn`, built from the engine's view."""

    def __init__(self, game: Game, decision: Decision, info: dict[str, Any]) -> None:
        self.kind = decision.kind
        self.game = info
        self._game = game
        self._decision = decision

    @cached_property
    def legal(self) -> list[dict[str, Any]]:
        return [self._game.action_event(a) for a in self._decision.legal]

    @cached_property
    def view(self) -> dict[str, Any]:
        return self._game.view_dict(self._decision.view)


class MixedPlayer:
    """An in-process player making the decisions of `python -m arena.strategies.mixed --p P`
    (`sample_bots/mixed_bot.py --p P`)."""

    wants_notices = False

    def __init__(self, p: float, name: str | None = None) -> None:
        self.bot = MixedBot(p, name)
        self.name = self.bot.name
        self._game: Game | None = None
        self._info: dict[str, Any] = {}
        self._decision_id = 0

    def start_game(self, start: GameStart) -> None:
        self._game = get_game(start.game)
        self._info = {
            "game": start.game,
            "game_id": start.seed,
            "seat": start.seat,
            "seed": start.seed,
            "players": list(start.players),
            "options": options_text(start.options),
        }
        self._decision_id = 0

    def act(self, decision: Decision) -> Action:
        assert self._game is not None
        self._decision_id += 1
        info = self._info
        index = self.bot.random_choice(
            info["seed"], info["seat"], self._decision_id, len(decision.legal)
        )
        if index is not None:
            return decision.legal[index]
        turn = _Turn(self._game, decision, info)
        answer = self.bot.greedy.act(turn)
        for i, option in enumerate(turn.legal):
            if option is answer:
                return decision.legal[i]
        return self._game.parse_event(answer)

    def end_deal(self, seat: int, deal: Mapping[str, Any]) -> None:
        pass

    def end_game(self, seat: int, replay: Mapping[str, Any]) -> None:
        pass


def mixed_player(p: float, name: str | None = None) -> MixedPlayer:
    """An in-process mixed bot (see the module docstring)."""
    return MixedPlayer(p, name)
