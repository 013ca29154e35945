"""Helpers to set up hand-made Trix deals and play them by simple per-seat plans."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.cards import parse_card, parse_cards
from arena.games import trix
from tests.support.walks import until_over


def hands(*seats: str) -> tuple[int, ...]:
    """Four hands from space-separated card codes, seat 0 first."""
    return tuple(parse_cards(s.split()) for s in seats)


def contract_action(name: str) -> int:
    return trix.CONTRACT_BASE + trix.CONTRACTS.index(name)


def expose_action(codes: str = "") -> int:
    return trix.EXPOSE_BASE | parse_cards(codes.split())


def play_plan(
    state: trix.TrixState,
    priorities: Mapping[int, str],
    exposures: Mapping[int, str] | None = None,
    until_deal_ends: bool = True,
) -> None:
    """Play the current deal: each seat plays the first legal card of its priority list
    (then its first legal card), passes when it must, exposes what `exposures` says."""
    exposures = exposures or {}
    order = {seat: [parse_card(c) for c in codes.split()] for seat, codes in priorities.items()}
    deal = state.deal_index
    for _ in until_over(state):
        if state.deal_index != deal and until_deal_ends:
            break
        seat, legal = state.to_move, state.legal
        if state.kind == trix.KIND_EXPOSE:
            action = expose_action(exposures.get(seat, ""))
        elif state.kind == trix.KIND_PLAY:
            action = next((c for c in order.get(seat, []) if c in legal), legal[0])
        else:
            action = legal[0]
        trix.apply(state, action)


def play_cards(state: trix.TrixState, codes: Sequence[str]) -> None:
    """Apply plays given as card codes, in order (each must be legal)."""
    for code in codes:
        trix.apply(state, parse_card(code))
