"""The engine's view of a seat, rebuilt from a turn's request.

A request carries the seat's observation as the wire encodes it (`turn.view`: card
codes, contract and bid names). The SDK's simulation (`state.py`) works on the engine's
own view instead, ints and card masks, because that is what the rules engine replays a
sampled deal from. `view_from_dict` turns one into the other, exactly: it is the value
the referee's `observe` made before the wire encoded it (tests/sdk checks it at every
decision of real games), so a bot inside the referee, handed that view directly, and the
same bot over the wire decide from identical inputs.
"""

from __future__ import annotations

from typing import Any

from arena.cards import parse_card, parse_cards
from arena.games import trianon, trix


def view_from_dict(
    game: str, data: dict[str, Any], kind: str, *, legal: list[dict[str, Any]], options: Any
) -> Any:
    """The engine's view of the seat to move, rebuilt from the SDK's `turn.view` dict
    (card codes and names) and the turn's kind and legal actions (`turn.legal`):
    the same value the referee's `observe` made. `game` is `turn.game["game"]` and
    `options` is `turn.game["options"]`."""
    return VIEWS_FROM_DICT[game](data, kind, legal, options)


def _trix_view(data: dict[str, Any], kind: str, legal: list[dict[str, Any]], options: Any) -> Any:
    """A Trix view from its SDK dict (`view_from_dict`)."""
    seat = data["seat"]
    opts = trix.parse_options(options)
    contract = trix.CONTRACTS.index(data["contract"]) if data["contract"] else -1
    left = sum(1 << trix.CONTRACTS.index(c) for c in data["contracts_left"])
    return trix.TrixView(
        seat=seat,
        deal=data["deal"],
        king=data["king"],
        first_king=data["first_king"],
        contract=contract,
        contracts_left=left,
        hand=parse_cards(data["hand"]),
        exposed=tuple(parse_cards(c) for c in data["exposed"]) or (0, 0, 0, 0),
        events=tuple((e["seat"], trix.parse_event(e)) for e in data["events"]),
        trick=tuple((t["seat"], parse_card(t["card"])) for t in data["trick"]),
        tricks_won=tuple(data["tricks_won"]),
        rows=parse_cards(data["rows"]),
        finished=tuple(data["finished"]),
        deal_scores=tuple(tuple(s) for s in data["deal_scores"]),
        totals=tuple(data["totals"]),
        to_move=seat,
        kind=kind,
        legal=tuple(trix.parse_event(a) for a in legal),
        options=opts,
    )


def _trianon_view(
    data: dict[str, Any], kind: str, legal: list[dict[str, Any]], options: Any
) -> Any:
    """A Trianon view from its SDK dict (`view_from_dict`)."""
    seat = data["seat"]
    opts = trianon.parse_options(options)
    return trianon.TrianonView(
        seat=seat,
        deal=data["deal"],
        dealer=data["dealer"],
        declarer=data["declarer"],
        contract=trianon.parse_bid(data["bid"]) if data["bid"] else -1,
        trump="CDHS".index(data["trump"]) if data["trump"] else -1,
        hand=parse_cards(data["hand"]),
        events=tuple((e["seat"], trianon.parse_event(e)) for e in data["events"]),
        trick=tuple((t["seat"], parse_card(t["card"])) for t in data["trick"]),
        tricks_won=tuple(data["tricks_won"]),
        deal_scores=tuple(tuple(s) for s in data["deal_scores"]),
        totals=tuple(data["totals"]),
        to_move=seat,
        kind=kind,
        legal=tuple(trianon.parse_event(a) for a in legal),
        options=opts,
    )


# Each game's view from its SDK dict, by the game's registered name.
VIEWS_FROM_DICT = {trix.GAME.name: _trix_view, trianon.GAME.name: _trianon_view}
