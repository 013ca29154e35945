"""`Deal`: one whole deal a bot can play on, every hand known: a sampled guess.

`SeatState.sample_deal` (and `turn.sample_deals`) hands a bot deals that its seat
cannot tell from the real one, at the moment of its decision. On a `Deal` the bot lists
the legal actions, applies one, plays on to the deal's end and reads every seat's
score: the rules are the arena's own engine, so a simulated deal is scored exactly as
the referee would score it.

This is the friendly level: actions are the dicts of `turn.legal` (or a card code for
a play), hands are card codes, and `apply` returns a new `Deal`, leaving this one as
it was, so a bot can try every action from one deal without undoing anything. Each
move costs a few microseconds more than the engine's own; a search bot that plays
thousands of moves a decision works on `engine_state` instead, with the int actions
of `arena.sdk.fast` (the fast level), in place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from arena.cards import codes_of
from arena.games import trianon, trix

Policy = Callable[["Deal"], Any]
"""A playout rule: given the deal being played out, the action for `deal.to_move`."""

# Each game's engine, by the type of its state.
ENGINES: dict[type, ModuleType] = {trix.TrixState: trix, trianon.TrianonState: trianon}


class Deal:
    """A deal in play with every hand known, at one seat's decision or later.

    - `to_move`, `kind`: the seat to decide (-1 once the deal is over) and the kind of
      decision, as `turn.kind` names them.
    - `legal`: the legal actions as `turn.legal` gives them (dicts, documented order);
      `actions`: the same as the engine's ints (the fast level), in the same order.
    - `hands`: every seat's cards now, as card codes.
    - `apply(action)`: the deal after `action` (a new Deal; this one is unchanged).
    - `play_out(policy)`: every seat's score at the deal's end, playing on by `policy`.
    - `over`, `scores`: whether the deal has ended, and its scores by seat.
    - `engine_state`: the engine's state itself, for the fast level.

    Only this deal is played: once it ends, the deal is over, even where a real game
    would go on to the next one (a sampled deal's game ends with it).
    """

    __slots__ = ("engine_state", "_engine", "_index")

    def __init__(self, engine_state: Any) -> None:
        """A Deal over an engine state (`trix.TrixState`, `trianon.TrianonState`): the
        deal in play in it is the one this Deal plays."""
        try:
            self._engine = ENGINES[type(engine_state)]
        except KeyError:
            raise TypeError(f"not a game's engine state: {type(engine_state).__name__}") from None
        self.engine_state = engine_state
        self._index = len(engine_state.deal_scores)  # where its score will be recorded

    def __repr__(self) -> str:
        state = self.engine_state
        where = "over" if self.over else f"seat {state.to_move} to {state.kind}"
        return f"<Deal of {self.game}, {where}>"

    @property
    def game(self) -> str:
        """The game's name, as `turn.game["game"]` gives it."""
        return self._engine.GAME.name

    @property
    def over(self) -> bool:
        return len(self.engine_state.deal_scores) > self._index or self.engine_state.to_move < 0

    @property
    def to_move(self) -> int:
        return -1 if self.over else self.engine_state.to_move

    @property
    def kind(self) -> str:
        return "" if self.over else self.engine_state.kind

    @property
    def actions(self) -> tuple[int, ...]:
        return () if self.over else tuple(self.engine_state.legal)

    @property
    def legal(self) -> list[dict[str, Any]]:
        event = self._engine.action_event
        return [event(a) for a in self.actions]

    @property
    def hands(self) -> list[list[str]]:
        """Each seat's cards now (not those it played), as card codes in card order."""
        return [codes_of(hand) for hand in self.engine_state.hands]

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """What `seat` (by default the seat to move) would see here, as plain data: this
        game's keys of `turn.view`, and `to_move`, `kind`, `legal` and `options`. For a
        playout rule written for what a turn shows."""
        engine = self._engine
        state = self.engine_state
        return engine.view_dict(engine.observe(state, state.to_move if seat is None else seat))

    @property
    def scores(self) -> tuple[int, ...]:
        """The deal's score by seat, once it is over (ValueError before)."""
        if not self.over:
            raise ValueError(f"{self!r} is not over: play it out first (play_out)")
        return tuple(self.engine_state.deal_scores[self._index])

    def copy(self) -> Deal:
        """An independent copy: playing on either never changes the other."""
        new = Deal.__new__(Deal)
        new.engine_state = self._engine.copy_state(self.engine_state)
        new._engine = self._engine
        new._index = self._index
        return new

    def apply(self, action: Mapping[str, Any] | str) -> Deal:
        """The deal after the seat to move plays `action`: one of `legal` (a dict shaped
        like it will do), or a card code for a play. A new Deal; this one is unchanged.
        Raises IllegalAction (an `arena.errors.ArenaError`) for an action not legal."""
        new = self.copy()
        new._play(action)
        return new

    def play_out(self, policy: Policy | None = None) -> tuple[int, ...]:
        """Every seat's score once the deal is played to its end from here, each seat
        playing `policy(deal)` (the deal as it stands, which the rule must not keep),
        or the first legal action without a policy (the referee's fallback, and the
        fastest). This deal is unchanged."""
        deal = self.copy()
        state = deal.engine_state
        apply_legal = self._engine.apply_legal
        while not deal.over:
            if policy is None:
                apply_legal(state, state.legal[0])
            else:
                deal._play(policy(deal))
        return deal.scores

    def _play(self, action: Mapping[str, Any] | str) -> None:
        """Play `action` on this very deal (checked by the rules)."""
        if self.over:
            raise ValueError(f"{self!r} is over: no action can be played")
        if isinstance(action, str):
            action = {"type": "play", "card": action}
        elif not isinstance(action, Mapping):
            raise TypeError(
                f"an action is one of deal.legal or a card code, not {type(action).__name__} "
                "(int actions are the fast level: arena.sdk.fast, on deal.engine_state)"
            )
        engine = self._engine
        engine.apply(self.engine_state, engine.parse_event(action))
