"""`SeatState`: the seat's view as a state a bot can simulate from (`turn.state()`).

A bot that searches needs two things the request does not give it directly: the view
as something the rules engine can play from, and whole deals that agree with it. A
`SeatState` is the first, and it draws the second: `sample_deal` deals the cards the
seat cannot see at random, consistent with everything its view proves (cards played
and exposed, suits it saw a seat fail to follow, the Trix contract's passes, who was
asked to expose; in Trianon the bids and raises shape the hands, softly), and the
engine replays the deal's events on every draw, so a deal the rules would reject is
never handed out. The sampling is `sampling.py` over `beliefs.py`.

It holds the engine's view of the seat (`observe`'s, rebuilt exactly from the request:
`views.py`) and nothing else, so it knows only what the seat may know; every other
hand in a sampled `Deal` is a guess.
"""

from __future__ import annotations

import random
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING, Any

from arena.cards import codes_of
from arena.games import trianon, trix
from arena.sdk.beliefs import Beliefs, beliefs_of
from arena.sdk.deal import Deal
from arena.sdk.sampling import sample_state
from arena.sdk.views import view_from_dict

if TYPE_CHECKING:
    from arena.sdk.turn import Turn

# Each game's engine, by the type of its view.
ENGINES: dict[type, ModuleType] = {trix.TrixView: trix, trianon.TrianonView: trianon}


class SeatState:
    """One seat's decision as a state: what it knows, and deals that agree with it.

    - `game`, `seat`, `deal` (the deal's number, from 1), `to_move` (the seat itself
      at a decision), `kind`: as the turn gives them.
    - `legal`: the legal actions, the dicts of `turn.legal`; `actions`: the same as the
      engine's ints (the fast level), in the same order.
    - `hand`: the seat's cards, as card codes.
    - `view`: what the seat sees, as plain data (this game's keys of `turn.view`).
    - `beliefs`: what the view proves about the hidden hands (`arena.sdk.beliefs`).
    - `sample_deal(rng)`, `sample_deals(n, rng)`: whole deals at this decision.
    - `engine_view`: the engine's view itself (`TrixView`, `TrianonView`: ints and
      card masks), for the fast level.
    """

    def __init__(self, engine_view: Any, legal: list[dict[str, Any]] | None = None) -> None:
        """The state of an engine view (`observe`'s, or `views.view_from_dict`'s).
        `legal` is the view's legal actions as dicts when the caller has them already
        (a turn's `legal`), so that they are the very same objects."""
        try:
            self._engine = ENGINES[type(engine_view)]
        except KeyError:
            raise TypeError(f"not a game's view: {type(engine_view).__name__}") from None
        self.engine_view = engine_view
        if legal is not None:
            self.__dict__["legal"] = legal

    @classmethod
    def of_turn(cls, turn: Turn) -> SeatState:
        """The state of a turn: its view rebuilt as the engine's (`turn.state()`)."""
        info = turn.game
        legal = turn.legal
        view = view_from_dict(
            info["game"], turn.view, turn.kind, legal=legal, options=info["options"]
        )
        return cls(view, legal)

    def __repr__(self) -> str:
        return f"<SeatState of {self.game}: seat {self.seat}, deal {self.deal}, {self.kind}>"

    @property
    def game(self) -> str:
        return self._engine.GAME.name

    @property
    def seat(self) -> int:
        return self.engine_view.seat

    @property
    def deal(self) -> int:
        return self.engine_view.deal

    @property
    def to_move(self) -> int:
        return self.engine_view.to_move

    @property
    def kind(self) -> str:
        return self.engine_view.kind

    @property
    def actions(self) -> tuple[int, ...]:
        return self.engine_view.legal

    @cached_property
    def legal(self) -> list[dict[str, Any]]:
        event = self._engine.action_event
        return [event(a) for a in self.engine_view.legal]

    @cached_property
    def hand(self) -> list[str]:
        return codes_of(self.engine_view.hand)

    @cached_property
    def view(self) -> dict[str, Any]:
        return self._engine.view_dict(self.engine_view)

    @cached_property
    def beliefs(self) -> Beliefs:
        return beliefs_of(self.engine_view)

    def sample_deal(self, rng: random.Random, *, deadline: float | None = None) -> Deal:
        """One whole deal at this decision that the seat cannot tell from the real one:
        the other hands drawn at random from `rng`, consistent with everything the view
        proves. In Trianon, draws are redrawn a few times to fit the bidding; with
        `deadline` (a `time.perf_counter()` value) no redraw starts after it."""
        return Deal(sample_state(self.engine_view, self.beliefs, rng, deadline))

    def sample_deals(self, n: int, rng: random.Random) -> list[Deal]:
        """`n` deals drawn one after another by `sample_deal`."""
        return [self.sample_deal(rng) for _ in range(n)]
