"""Every decision of real games, as the referee asked it: for the SDK's simulation tests
and the sampler's.

A game is played through the referee by SDK bots inside `SdkPlayer`, which hands each
bot the very DecisionRequest bytes a bot over gRPC gets, with every decision asked
(forced ones too, so that a Trix `pass` is asked at all). For each decision the
recorder keeps the engine's view the referee built (`observe`) and the request's bytes,
so a test can build the bot's `Turn` from the request and compare what the SDK makes
of it with what the engine knows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from arena.bots.local import SdkPlayer
from arena.games import get_game
from arena.play.referee import Decision, GameStart, RefereeSettings, play_game
from arena.sdk import Bot, Turn
from arena.strategies.greedy import GreedyBot

Recorded = tuple[Any, bytes]  # (the engine's view at the decision, the request's bytes)


class RandomBot(Bot):
    """A seeded uniformly random legal action."""

    name = "random"
    games = ("trix", "trianon")

    def act(self, turn: Turn) -> int:
        return turn.random_index(len(turn.request.legal))


class RecordingPlayer:
    """A referee player running an SDK bot through the wire, keeping every decision."""

    wants_notices = False

    def __init__(self, bot: Bot, log: list[Recorded]) -> None:
        self.inner = SdkPlayer(bot)
        self.inner.record = True
        self.name = bot.name
        self.log = log

    def start_game(self, start: GameStart) -> None:
        self.inner.start_game(start)

    def act(self, decision: Decision) -> int:
        view = decision.view
        action = self.inner.act(decision)
        self.log.append((view, self.inner.requests[-1]))
        return action

    def end_deal(self, seat: int, deal: Mapping[str, Any]) -> None:
        pass

    def end_game(self, seat: int, replay: Mapping[str, Any]) -> None:
        pass


def record_game(
    game_name: str, seed: str, options: Mapping[str, Any], greedy: Sequence[bool] = ()
) -> list[Recorded]:
    """Every decision of one game, at every seat, in the order asked; seat s is played
    by the greedy bot where `greedy[s]`, else by the random bot."""
    game = get_game(game_name)
    log: list[Recorded] = []
    bots = [
        GreedyBot() if s < len(greedy) and greedy[s] else RandomBot() for s in range(game.seats)
    ]
    players = [RecordingPlayer(bot, log) for bot in bots]
    play_game(
        game, players, seed, game.parse_options(options), settings=RefereeSettings(ask_forced=True)
    )
    return log


@cache
def short_game(game_name: str, seed: str) -> tuple[Recorded, ...]:
    """A short game of random bots (Trix: one kingdom; Trianon: to 300), recorded once
    per test session."""
    options = {"kingdoms": 1} if game_name == "trix" else {"target": 300}
    return tuple(record_game(game_name, seed, options))
