"""The fast level for Trianon (docs/rules/trianon.md): the engine's state, actions and
rules.

**Actions** are ints: a card (one of the 36 of `DECK_MASK`, six to ace) is a play;
`PASS` a pass in the bidding, `KEEP` the declarer keeping its bid (N-3.4); `BID_BASE + b`
the bid `b` and `RAISE_BASE + b` the declarer raising to `b`, where
`b = (tricks - 4) * 6 + strain` (`NUM_BIDS` of them) and the strains, low to high, are
`STRAINS` ("C", "S", "D", "H", "SS", "NT"; `SANS_SOUCI` is 4, `SANS_ATOUT` 5): a higher
`b` is a higher bid. `bid_tricks(b)`, `bid_strain(b)`, `BID_CODES[b]` ("8H") and
`parse_bid(code)` read a bid; `STRAIN_TRUMP[strain]` is its trump suit (-1: none).
`action_event(a)` is an action as the dict of `turn.legal`, `parse_event(d)` the way
back, `describe_action(a)` a short text ("QS", "bid 8H"). The decision kinds are
`KIND_BID`, `KIND_RAISE`, `KIND_PLAY`.

**A state** (`TrianonState`) is a deal in play, every hand known: a sampled deal's
`engine_state`. Change it only with `apply(state, action)` (which checks the action is
legal, raising IllegalAction) or `apply_legal` (which trusts the caller: an action
taken from `state.legal`); both play in place. `copy_state(state)` is an independent
copy. Read, and never write, these fields:

- `to_move` (the seat to decide, -1 once the deal is over), `kind`, `legal` (a tuple
  of actions in the documented order: pass, keep or the lowest card first);
- `hands` (per seat, the cards held now, a mask) and `dealt` (as dealt);
- `dealer`; `high` (the highest bid so far, -1 if none); `declarer` (-1 while the
  bidding goes on, and in a Trianon round); `contract` (the bid played, -1 until the
  declarer decided); `trump` (-1: none);
- `events` (this deal's `(seat, action)` pairs so far), `trick` (the current trick's
  `(seat, card)` pairs, leader first), `led` (the suit led), `tricks_won` (per seat);
- `rank_key`: per card, its rank for comparing two cards of one suit in this deal,
  `NORMAL_KEY` or, in sans souci (N-1.5), `SANS_SOUCI_KEY`;
- `deal_index` (0-based), `deal_scores` (every finished deal's scores: once a sampled
  deal is over, its last entry is this deal's), `totals`, `options` (`TrianonOptions`).

`observe(state, seat)` is any seat's view of a state (a `TrianonView`, the type of
`SeatState.engine_view`); `state_from_deal` and `new_deal` make a state from hands a
bot chose itself.

**Scores**: `score_contract(b, declarer, tricks_won)` is a deal played in bid `b`
(N-5), `score_trianon(tricks_won)` a round nobody bid (N-6). **Constants**: `SEATS`,
`HAND_SIZE`, `TRICKS`, `DECK_MASK`.
"""

from arena.games.trianon import (
    BID_BASE,
    BID_CODES,
    DECK_MASK,
    HAND_SIZE,
    KEEP,
    KIND_BID,
    KIND_PLAY,
    KIND_RAISE,
    NORMAL_KEY,
    NUM_BIDS,
    PASS,
    RAISE_BASE,
    SANS_ATOUT,
    SANS_SOUCI,
    SANS_SOUCI_KEY,
    SEATS,
    STRAIN_TRUMP,
    STRAINS,
    TRICKS,
    TrianonOptions,
    TrianonState,
    TrianonView,
    action_event,
    apply,
    apply_legal,
    bid_strain,
    bid_tricks,
    copy_state,
    describe_action,
    new_deal,
    observe,
    parse_bid,
    parse_event,
    score_contract,
    score_trianon,
    state_from_deal,
)

__all__ = [
    "BID_BASE",
    "BID_CODES",
    "DECK_MASK",
    "HAND_SIZE",
    "KEEP",
    "KIND_BID",
    "KIND_PLAY",
    "KIND_RAISE",
    "NORMAL_KEY",
    "NUM_BIDS",
    "PASS",
    "RAISE_BASE",
    "SANS_ATOUT",
    "SANS_SOUCI",
    "SANS_SOUCI_KEY",
    "SEATS",
    "STRAINS",
    "STRAIN_TRUMP",
    "TRICKS",
    "TrianonOptions",
    "TrianonState",
    "TrianonView",
    "action_event",
    "apply",
    "apply_legal",
    "bid_strain",
    "bid_tricks",
    "copy_state",
    "describe_action",
    "new_deal",
    "observe",
    "parse_bid",
    "parse_event",
    "score_contract",
    "score_trianon",
    "state_from_deal",
]
