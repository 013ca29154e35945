"""Replays as text a person can read: one line a deal, then the final table.

Works from the replay document alone (`arena-replay/1`), so it serves stored games,
files and games just played alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games import get_game


def _seat_label(players: list[str], seat: int) -> str:
    return f"{seat}:{players[seat]}"


def deal_line(replay: Mapping[str, Any], deal: Mapping[str, Any]) -> str:
    """One deal: number, King, contract, exposures, faults, and the deal's scores."""
    players = replay["players"]
    events = deal["events"]
    contract = get_game(replay["game"]).deal_contract(deal)
    role, leader = ("King", deal["king"]) if "king" in deal else ("Dealer", deal["dealer"])
    exposed = [
        f"{' '.join(e['cards'])} by {e['seat']}"
        for e in events
        if e.get("type") == "expose" and e.get("cards")
    ]
    autos = sum(1 for e in events if "auto" in e)
    scores = deal.get("scores") or []
    parts = [
        f"Deal {deal['number']:>2}",
        f"{role} {_seat_label(players, leader):<14}",
        f"{contract:<15}",
        "".join(f"{s:>6}" for s in scores),
    ]
    if exposed:
        parts.append("  exposed " + ", ".join(exposed))
    if autos:
        parts.append(f"  ({autos} fallback moves)")
    return "  ".join(parts)


def final_table(replay: Mapping[str, Any]) -> list[str]:
    """Seats ordered by rank, with totals."""
    players = replay["players"]
    order = sorted(range(len(players)), key=lambda s: (replay["ranks"][s], s))
    width = max(len(p) for p in players)
    lines = [f"{'place':<6}{'seat':<6}{'player':<{width + 2}}{'total':>7}"]
    for seat in order:
        lines.append(
            f"{replay['ranks'][seat]:<6}{seat:<6}{players[seat]:<{width + 2}}"
            f"{replay['totals'][seat]:>7}"
        )
    return lines


def replay_text(replay: Mapping[str, Any]) -> str:
    """The whole game: header, deal-by-deal summary, faults and final table."""
    players = replay["players"]
    options = ", ".join(f"{k}={v}" for k, v in replay.get("options", {}).items())
    head = [
        f"{replay['game'].capitalize()} game, seed {replay['seed']!r} ({options})",
        "Seats: " + ", ".join(_seat_label(players, s) for s in range(len(players))),
        f"{'':>46}" + "".join(f"{'s' + str(s):>6}" for s in range(len(players))),
    ]
    body = [deal_line(replay, d) for d in replay["deals"]]
    faults = [
        f"fault: seat {f['seat']} deal {f['deal']} {f['kind']}: {f['detail']}"
        for f in replay.get("faults", [])
    ]
    return "\n".join(head + body + faults + [""] + final_table(replay))
