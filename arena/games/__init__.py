"""Pure rules engines, one module per game, and the registry of games by name: the
driver only ever looks games up here."""

from __future__ import annotations

from arena.errors import ConfigError
from arena.games.base import Game
from arena.games.trianon import GAME as TRIANON_GAME
from arena.games.trix import GAME as TRIX_GAME

GAMES: dict[str, Game] = {TRIX_GAME.name: TRIX_GAME, TRIANON_GAME.name: TRIANON_GAME}


def get_game(name: str) -> Game:
    """The game registered as `name`; ConfigError listing the known games otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise ConfigError(
            f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}"
        ) from None
