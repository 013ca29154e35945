"""One decision as a bot sees it: the request decoded on first use, and the answer
built from whatever the bot returns (a legal dict, an index, a card code).

`state()` and `sample_deals()` are the way into simulation (`arena.sdk.state`); they
load the rules engines the first time a bot calls them, so a bot that never simulates
starts without them.
"""

from __future__ import annotations

import hashlib
import random
from typing import TYPE_CHECKING, Any

from arena.wire.messages import action_dict, action_message, game_dict, observation_dict
from arena.wire.v1 import bot_pb2 as pb

if TYPE_CHECKING:
    from arena.sdk.deal import Deal
    from arena.sdk.state import SeatState


def decision_seed(bot_seed: str, seat: int, decision_id: int) -> int:
    """The seed of one decision's randomness (`Turn.rng`, `Turn.random_index`): the bot
    seed, the seat and the decision's number, nothing else. Public so that a bot run
    inside the referee, which is handed no Turn, draws the numbers its SDK twin draws."""
    text = f"{bot_seed}/{seat}/{decision_id}".encode()
    return int.from_bytes(hashlib.sha256(text).digest(), "big")


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
    - `state()`: the view as a state to simulate from; `sample_deals(n, rng)`: whole
      deals that agree with it (docs/bots.md, "Simulating").
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
        return decision_seed(info.seed, info.seat, self.decision_id)

    @_once
    def rng(self) -> random.Random:
        return random.Random(self._seed_bits)

    def random_index(self, n: int) -> int:
        """A seeded, uniform index below `n`: `rng.randrange(n)` without building a
        random source (which costs more than the rest of a simple bot's turn)."""
        return self._seed_bits % n

    def state(self) -> SeatState:
        """The seat's view as a state a bot can simulate from (`arena.sdk.state`): whose
        turn, the kind, the legal actions, the hand, what is visible, and nothing the
        seat may not know. Built on the first call; every call returns the same one."""
        state = self.__dict__.get("_state")
        if state is None:
            from arena.sdk.state import SeatState  # the engines load here, not at start

            state = self.__dict__["_state"] = SeatState.of_turn(self)
        return state

    def sample_deals(self, n: int, rng: random.Random | None = None) -> list[Deal]:
        """`n` whole deals at this decision, the other hands drawn from `rng` (by default
        `turn.rng`) consistent with everything the view proves: `state().sample_deals`."""
        return self.state().sample_deals(n, self.rng if rng is None else rng)

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
