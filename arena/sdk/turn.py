"""One decision as a bot sees it: the request decoded on first use, and the answer
built from whatever the bot returns (a legal dict, an index, a card code)."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from arena.wire.messages import action_dict, action_message, game_dict, observation_dict
from arena.wire.v1 import bot_pb2 as pb


class _once:  # noqa: N801 (used as a decorator, like functools.cached_property)
    """`functools.cached_property` without its lock (Python 3.11 takes one on every
    first access, which was a third of a random bot's turn). A turn belongs to one
    handler call, so there is nothing to lock against."""

    def __init__(self, compute: Any) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __get__(self, turn: Any, owner: Any = None) -> Any:
        if turn is None:
            return self
        value = turn.__dict__[self.name] = self.compute(turn)  # shadows this from now on
        return value


class Turn:
    """One decision put to the bot: what kind, the legal actions, and what it may know.

    - `kind`: "contract", "expose", "play" or "pass" (Trix); "bid", "raise", "play" (Trianon).
    - `legal`: the legal actions as dicts shaped like replay events, e.g.
      `{"type": "play", "card": "4C"}`, in the documented order. Return one of them.
    - `view`: the observation as a dict (hand, events, trick, contract, King, exposed
      cards, scores, ...: docs/bots.md), built on first use.
    - `game`: game, game_id, seat, seed, players, options.
    - `rng`: a random source seeded from the bot seed (`game["seed"]`), the seat and
      the decision's number, so a seeded bot replays identically, even without state;
      `random_index(n)` is a cheaper seeded choice of one index.
    """

    def __init__(self, request: pb.DecisionRequest) -> None:
        self.request = request
        self.kind: str = request.kind
        self.time_ms: int = request.time_ms
        self.time_bank_ms: int = request.time_bank_ms
        self.decision_id: int = request.decision_id

    @_once
    def legal(self) -> list[dict[str, Any]]:
        return [action_dict(a) for a in self.request.legal]

    @_once
    def view(self) -> dict[str, Any]:
        return observation_dict(self.request.observation)

    @_once
    def game(self) -> dict[str, Any]:
        return game_dict(self.request.game)

    @_once
    def _seed_bits(self) -> int:
        info = self.request.game
        text = f"{info.seed}/{info.seat}/{self.decision_id}".encode()
        return int.from_bytes(hashlib.sha256(text).digest(), "big")

    @_once
    def rng(self) -> random.Random:
        return random.Random(self._seed_bits)

    def random_index(self, n: int) -> int:
        """A seeded, uniform index below `n`: `rng.randrange(n)` without building a
        random source (which costs more than the rest of a simple bot's turn)."""
        return self._seed_bits % n

    def answer(self, choice: Any) -> pb.Action:
        """The bot's choice as an Action message: a legal dict, an index, or a card code."""
        if isinstance(choice, pb.Action):
            return choice
        if isinstance(choice, int) and not isinstance(choice, bool):
            return self.request.legal[choice]
        if isinstance(choice, str):  # a card code, for plays
            return pb.Action(type="play", card=choice)
        if isinstance(choice, dict):
            legal = self.__dict__.get("legal")
            if legal is not None:
                for i, option in enumerate(legal):
                    if option is choice:
                        return self.request.legal[i]
            return action_message(choice)
        raise TypeError(f"act() must return one of turn.legal, not {type(choice).__name__}")
