"""The fast level for Trix (docs/rules/trix.md): the engine's state, actions and rules.

**Actions** are ints: a card 0..51 is a play; `PASS` a pass in the Trix contract
(T-6.4); `CONTRACT_BASE + c` the King's choice of contract `c`, an index into
`CONTRACTS` (`KING_OF_HEARTS`, `DIAMONDS_C`, `QUEENS`, `NO_TRICKS`, `TRIX`);
`EXPOSE_BASE | mask` the exposure of the cards of `mask` (T-5; `EXPOSE_BASE` alone
exposes nothing). `action_event(a)` is an action as the dict of `turn.legal`,
`parse_event(d)` the way back, `describe_action(a)` a short text ("QS", "queens").
The decision kinds are `KIND_CONTRACT`, `KIND_EXPOSE`, `KIND_PLAY`, `KIND_PASS`.

**A state** (`TrixState`) is a deal in play, every hand known: a sampled deal's
`engine_state`. Change it only with `apply(state, action)` (which checks the action is
legal, raising IllegalAction) or `apply_legal` (which trusts the caller: an action
taken from `state.legal`); both play in place. `copy_state(state)` is an independent
copy, the way to try several lines from one state. Read, and never write, these fields:

- `to_move` (the seat to decide, -1 once the deal is over), `kind`, `legal` (a tuple
  of actions in the documented order, so `legal[0]` is the referee's fallback);
- `hands` (per seat, the cards held now, a mask) and `dealt` (as dealt);
- `king`, `contract` (an index into `CONTRACTS`, -1 while the King chooses),
  `contracts_left` (a mask over `CONTRACTS` the King has not yet chosen);
- `exposed` (per seat, the cards it exposed), `events` (this deal's `(seat, action)`
  pairs so far), `trick` (the current trick's `(seat, card)` pairs, leader first),
  `led` (the suit led, valid while `trick` is not empty), `tricks_won` (per seat);
- in the Trix contract: `rows` (the cards laid out), `playable` (the cards that may be
  laid next), `finished` (the seats in the order they ran out of cards);
- `deal_index` (0-based), `deal_scores` (every finished deal's scores: once a sampled
  deal is over, its last entry is this deal's), `totals` (per seat, before this deal),
  `options` (`TrixOptions`: `doubling`, `partners`, ...).

`observe(state, seat)` is any seat's view of a state (a `TrixView`, the type of
`SeatState.engine_view`), for a policy written for views; `state_from_deal` and
`new_deal` make a state from hands a bot chose itself.

**Constants**: `SEATS`; the cards `KH` (and `KH_BIT`), `QUEENS_MASK`, `JACKS_MASK`,
`HEARTS_MASK`, `DIAMONDS_MASK`; `ROW_NEXT[card]`, the cards laying `card` on its row
makes playable (T-6.3); the scores `KH_PENALTY`, `QUEEN_PENALTY`, `DIAMOND_PENALTY`,
`TRICK_PENALTY` and `TRIX_PLACES` (T-4, T-6.6).
"""

from arena.games.trix import (
    CONTRACT_BASE,
    CONTRACTS,
    DIAMOND_PENALTY,
    DIAMONDS_C,
    DIAMONDS_MASK,
    EXPOSE_BASE,
    HEARTS_MASK,
    JACKS_MASK,
    KH,
    KH_BIT,
    KH_PENALTY,
    KIND_CONTRACT,
    KIND_EXPOSE,
    KIND_PASS,
    KIND_PLAY,
    KING_OF_HEARTS,
    NO_TRICKS,
    PASS,
    QUEEN_PENALTY,
    QUEENS,
    QUEENS_MASK,
    ROW_NEXT,
    SEATS,
    TRICK_PENALTY,
    TRIX,
    TRIX_PLACES,
    TrixOptions,
    TrixState,
    TrixView,
    action_event,
    apply,
    apply_legal,
    copy_state,
    describe_action,
    new_deal,
    observe,
    parse_event,
    state_from_deal,
)

__all__ = [
    "CONTRACTS",
    "CONTRACT_BASE",
    "DIAMONDS_C",
    "DIAMONDS_MASK",
    "DIAMOND_PENALTY",
    "EXPOSE_BASE",
    "HEARTS_MASK",
    "JACKS_MASK",
    "KH",
    "KH_BIT",
    "KH_PENALTY",
    "KIND_CONTRACT",
    "KIND_EXPOSE",
    "KIND_PASS",
    "KIND_PLAY",
    "KING_OF_HEARTS",
    "NO_TRICKS",
    "PASS",
    "QUEENS",
    "QUEENS_MASK",
    "QUEEN_PENALTY",
    "ROW_NEXT",
    "SEATS",
    "TRICK_PENALTY",
    "TRIX",
    "TRIX_PLACES",
    "TrixOptions",
    "TrixState",
    "TrixView",
    "action_event",
    "apply",
    "apply_legal",
    "copy_state",
    "describe_action",
    "new_deal",
    "observe",
    "parse_event",
    "state_from_deal",
]
