"""The interface every game engine offers the code that drives games.

A game is a stateless object (`Game`) plus a mutable state it creates. The driver asks
the state whose turn it is (`state.to_move`, -1 when the game is over) and what kind of
decision it is (`state.kind`), asks the game for the legal actions and for the seat's
observation, and applies one action. Actions are small ints private to each game; the
game turns them into replay events (`action_event`) and back (`parse_event`), so the
driver, the wire layer and storage never need to know any game's rules.

Engines are pure: no I/O, no clock, and no randomness but the seed they are given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from arena.errors import IllegalAction

Action = int
Event = dict[str, Any]

PUBLIC = -1
"""The seat `observe` is given for a spectator's view (T-8, N-8): what anyone watching
the table sees, every seat's public record and no seat's hand, nor any legal actions
(they would tell a hand). For watching a game still being played."""


class SummaryKind(StrEnum):
    """What a league table counts of an entrant's deals under each label."""

    MEAN_SCORE = "mean-score"  # the mean deal score (Trix, per contract)
    DECLARED = "declared"  # the deals it declared, made and failed (Trianon, per strain)


@dataclass(frozen=True)
class DealSummary:
    """What a league table shows of each entrant's deals, declared by its game, so that
    the tables, the store and the web pages know no game's contracts: every deal is
    filed under one label (`Game.deal_label`), and the table shows, per label, what
    `kind` counts. `noun` names a label ("contract", "strain": the heading of the
    column and the prefix of its CSV columns); `labels` are every label the table has
    a column for, in the game's order; `short` abbreviates a label in text tables (a
    label it does not name is shown as it is). With `every_game`, every finished game
    plays every label (Trix: each King plays all five contracts), so a bot checked by
    `arena check-bot` must meet each of them."""

    kind: SummaryKind
    noun: str
    labels: tuple[str, ...]
    short: Mapping[str, str] = field(default_factory=dict)
    every_game: bool = False

    def abbreviation(self, label: str) -> str:
        """`label` as a text table shows it."""
        return self.short.get(label, label)


class GameState(Protocol):
    """What the driver reads from a state; everything else is private to the engine."""

    to_move: int  # seat to decide, or -1 when the game is over
    kind: str  # decision kind for `to_move`: e.g. "contract", "expose", "play", "pass"
    legal: list[Action]  # the legal actions, in the game's documented order
    deal_index: int  # 0-based index of the current deal; grows when a deal ends
    events: list[Any]  # the current deal's events so far (the replay's event index)
    automatic: int  # events the engine made itself, without a decision (T-2.5)
    seed: str


class Game(Protocol):
    """A registered game (`trix`, `trianon`): its rules as functions over its state."""

    name: str
    seats: int
    decision_kinds: tuple[str, ...]
    deal_summary: DealSummary  # what a league table shows of the deals (`deal_label`)
    unasked: Mapping[str, str]  # decision kind -> why a seat may go a whole game unasked

    def parse_options(self, raw: Mapping[str, Any]) -> Any:
        """Validate rule options (strings from a CLI, or TOML values) into the game's options."""

    def options_dict(self, options: Any) -> dict[str, Any]:
        """The options as they are recorded in a replay."""

    def new_game(self, seed: str, options: Any) -> GameState:
        """A new game at its first decision, fully determined by (seed, options)."""

    def apply(self, state: GameState, action: Action) -> None:
        """Play `action` for `state.to_move`; raise IllegalAction if it is not legal."""

    def apply_legal(self, state: GameState, action: Action) -> None:
        """`apply` without the legality check, for a caller that has made it already."""

    def observe(self, state: GameState, seat: int) -> Any:
        """Everything `seat` may know, and nothing more: the one place hidden state leaves.
        `seat` PUBLIC gives a spectator's view: an empty hand and no legal actions."""

    def last_deal_copy(self, state: GameState) -> GameState:
        """An independent copy of `state` whose game ends when its current deal ends, so
        that `observe` after the deal's last event shows the table as the deal left it
        (its scores) rather than the next deal's start (a replay viewer's last step)."""

    def view_dict(self, view: Any) -> dict[str, Any]:
        """A view as plain JSON-able data with card codes (for the wire and for humans)."""

    # `view_dict` key by key: (key, the view fields it is made from, view -> value), in
    # `view_dict`'s order, so that the viewer's frames make again only what changed.
    view_parts: tuple[tuple[str, tuple[str, ...], Any], ...]

    def action_event(self, action: Action) -> Event:
        """The action as a replay event without its seat, e.g. {"type": "play", "card": "4C"}."""

    def describe_action(self, action: Action) -> str:
        """A short human form of an action for messages ("QS", "pass", "queens")."""

    def parse_event(self, event: Mapping[str, Any]) -> Action:
        """The inverse of `action_event`; raise IllegalAction if it names no action."""

    def deal_records(self, state: GameState) -> list[dict[str, Any]]:
        """The finished (and current) deals as replay `deals` entries."""

    def deal_record(self, state: GameState, index: int) -> dict[str, Any]:
        """One deal (0-based) as a replay `deals` entry."""

    def deal_contract(self, record: Mapping[str, Any]) -> str:
        """What a replay deal was played as (a Trix contract, a Trianon bid or "trianon")."""

    def deal_declarer(self, record: Mapping[str, Any]) -> tuple[int, bool | None]:
        """The seat that declared a deal's contract and whether it was made ((-1, None)
        when the game has no declarer)."""

    def deal_label(self, record: Mapping[str, Any]) -> str:
        """The label a replay deal is counted under in league tables (`deal_summary`):
        one of `deal_summary.labels`, or another word for a deal no column counts (a
        Trianon round nobody bid)."""

    def seat_asked_every_kind(self, seed: str, options: Any) -> int | None:
        """A seat that, whatever it plays, is asked every decision kind in the game dealt
        from `seed` when the other seats take the first legal action; None when no seat
        is (or the game cannot tell). `arena check-bot` seats the bot there first."""

    def result(self, state: GameState) -> tuple[list[int], list[int]]:
        """Totals and ranks (1 is best) of a finished game."""


S = TypeVar("S")


def replay_events(
    state: Any,
    events: Iterable[tuple[int, Action]],
    apply: Callable[[Any, Action], None],
    describe: Callable[[Action], str],
) -> None:
    """Play a deal's `(seat, action)` events on `state` by the rules (`state_from_deal`
    of each game); IllegalAction naming the event when one is not the turn of its seat
    or not legal there."""
    for seat, action in events:
        if seat != state.to_move:
            raise IllegalAction(
                f"state_from_deal: event {(seat, describe(action))!r} is not the "
                f"turn of seat {seat}, but of seat {state.to_move}"
            )
        apply(state, action)


def copy_slotted_state(state: S, lists: tuple[str, ...]) -> S:
    """An independent copy of a state with `__slots__` (each game's `copy_state`):
    every slot is shared except the `lists`, which are copied, and `records`, whose
    last entry holds the current deal's events list itself and is rebuilt over the
    copy's own. Slots not named in `lists` must hold values never changed in place."""
    cls = type(state)
    new = cls.__new__(cls)
    for name in cls.__slots__:  # type: ignore[attr-defined]
        setattr(new, name, getattr(state, name))
    for name in lists:
        setattr(new, name, getattr(state, name)[:])
    records = state.records  # type: ignore[attr-defined]
    if records:
        new.records = records[:-1] + [{**records[-1], "events": new.events}]  # type: ignore[attr-defined]
    else:
        new.records = []  # type: ignore[attr-defined]
    return new
