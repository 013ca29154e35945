"""Seat-rotated matches of a bot (the greedy bot, arena.strategies.greedy) against
built-in bots, in process through the real wire encoding (`SdkPlayer`), for the Trix and
Trianon tests alike."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arena.bots.builtin import FirstBot, RandomBot
from arena.bots.local import SdkPlayer
from arena.games.base import Game
from arena.play.referee import RefereeSettings, play_game


def rotated_match(
    game: Game,
    options: Any,
    seed: str,
    bot: Any,
    opponent: type[FirstBot] = RandomBot,
    settings: RefereeSettings | None = None,
) -> tuple[list[int], list[int], int, list[dict[str, Any]]]:
    """One game per seat on one seed, `bot` in each seat in turn (rotation r: seat s gets
    bot (s + r) % seats, bot 0 being `bot`): its totals, the other bots' totals, the
    number of faults and the replays."""
    seats = game.seats
    greedy: list[int] = []
    others: list[int] = []
    faults, replays = 0, []
    for rotation in range(seats):
        bots = [SdkPlayer(bot)] + [opponent() for _ in range(seats - 1)]
        players = [bots[(seat + rotation) % seats] for seat in range(seats)]
        result = play_game(game, players, seed, options, settings=settings)
        faults += len(result.faults)
        replays.append(result.replay)
        for seat, total in enumerate(result.totals):
            (greedy if (seat + rotation) % seats == 0 else others).append(total)
    return greedy, others, faults, replays


def pooled_matches(
    game: Game, options: Any, seeds: Iterable[str], new_bot: Any
) -> tuple[list[int], list[int], int]:
    """`rotated_match` on every seed (a fresh bot from `new_bot()` for each), pooled:
    the bot's totals, its opponents' totals and the faults."""
    greedy: list[int] = []
    others: list[int] = []
    faults = 0
    for seed in seeds:
        g, o, f, _ = rotated_match(game, options, seed, new_bot())
        greedy += g
        others += o
        faults += f
    return greedy, others, faults
