"""Write a bot in a few lines: subclass `Bot`, answer `act`, call `serve`.

    from arena.sdk import Bot, serve

    class Lowest(Bot):
        name = "lowest"

        def act(self, turn):
            return turn.legal[0]          # one of the legal actions, by value

    if __name__ == "__main__":
        serve(Lowest())

`serve` listens where the referee says (the environment variable ARENA_BOT_ADDRESS,
`unix:PATH` or `127.0.0.1:PORT`) and answers Hello, Decide, Play and Notify of
protos/arena/v1/bot.proto. A bot started by the referee with `python` runs on the
arena's own interpreter, so this import works without activating anything.

A bot that simulates gets the arena's own rules (docs/bots.md, "Simulating"):
`turn.state()` is the seat's view as a state (`SeatState`: only what the seat may
know), and `turn.sample_deals(n, rng)` whole deals at this decision (`Deal`), the
hidden hands drawn consistent with everything the view proves. On a deal, actions are
the dicts of `turn.legal` (or card codes), `apply` returns the next deal and
`play_out` plays to the deal's end and gives every seat's score:

    def act(self, turn):                              # both games
        me = turn.state().seat
        deals = turn.sample_deals(8, turn.rng)
        return max(turn.legal, key=lambda action: sum(
            deal.apply(action).play_out()[me] for deal in deals))

    # Trix: the share of deals in which seat 1 holds the King of Hearts
    sum("KH" in deal.hands[1] for deal in turn.sample_deals(50)) / 50

    # Trianon, at a bid: the seat's score if it bids 8H and all then pass and keep
    deal.apply({"type": "bid", "bid": "8H"}).play_out()[me]

A search bot that plays thousands of moves a decision uses the fast level,
`arena.sdk.fast`: the engines' own states (`deal.engine_state`) and int actions
(`turn.state().actions`, in the order of `turn.legal`), played on in place:

    from arena.sdk.fast import trix                   # or trianon

    state = turn.state()
    root = state.sample_deal(turn.rng).engine_state
    line = trix.copy_state(root)                      # a line to try, played in place
    trix.apply_legal(line, state.actions[0])
    while line.to_move >= 0:
        trix.apply_legal(line, line.legal[0])
    line.deal_scores[-1]                              # this deal's scores, by seat

`SeatState` and `Deal` load the rules engines when first used (importing this package
does not), so a bot that never simulates starts as fast as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.sdk.bot import Bot
from arena.sdk.server import serve
from arena.sdk.turn import Turn

if TYPE_CHECKING:
    from arena.sdk.deal import Deal
    from arena.sdk.state import SeatState

__all__ = ["Bot", "Deal", "SeatState", "Turn", "serve"]


def __getattr__(name: str) -> Any:
    """`SeatState` and `Deal` on first use: they load the engines (PEP 562)."""
    if name == "SeatState":
        from arena.sdk.state import SeatState

        return SeatState
    if name == "Deal":
        from arena.sdk.deal import Deal

        return Deal
    raise AttributeError(f"module 'arena.sdk' has no attribute {name!r}")
