"""docs/bots.md, "Simulating: the rules from a bot", is true: its bots, written with the
public SDK alone, play legal moves for whole games of both games through the referee,
and its functions do what it says on real turns (issue 32, point 1)."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from arena.bots.local import SdkPlayer
from arena.cards import parse_card, parse_cards
from arena.games import get_game, trianon, trix
from arena.play.referee import play_game
from arena.sdk import Bot, Turn
from arena.wire.codec import WireCodec, game_info, game_info_bytes
from arena.wire.v1 import bot_pb2 as pb
from tests.support.recorded_games import RandomBot, short_game

BOTS_MD = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def section_code() -> list[str]:
    """The Python blocks of the section, in order."""
    text = BOTS_MD.read_text()
    section = text.split("## Simulating: the rules from a bot", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)


@cache
def examples() -> dict[str, Any]:
    """Everything the section's blocks define, each block run as a module would be
    imported (so `serve` is not called)."""
    names: dict[str, Any] = {}
    for code in section_code():
        namespace: dict[str, Any] = {"__name__": "docs_example"}
        exec(compile(code, str(BOTS_MD), "exec"), namespace)  # noqa: S102 (our own docs)
        names.update({k: v for k, v in namespace.items() if not k.startswith("__")})
    return names


def test_the_examples_use_the_public_sdk_alone() -> None:
    blocks = section_code()
    assert len(blocks) >= 4
    for code in blocks:
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.ImportFrom) and node.module.startswith("arena"):
                assert node.module == "arena.sdk" or node.module.startswith("arena.sdk.")
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("arena") for a in node.names)
            if isinstance(node, ast.Attribute):
                assert not node.attr.startswith("_"), node.attr


def _bots() -> list[type[Bot]]:
    found = examples().values()
    return [v for v in found if isinstance(v, type) and issubclass(v, Bot) and v is not Bot]


@pytest.mark.parametrize("game_name", ["trix", "trianon"])
def test_the_bots_play_legal_moves_for_whole_games(game_name: str) -> None:
    """Through the real wire encoding, in the referee's process: an illegal answer or an
    exception would be a fault, and the referee's fallback would be played instead."""
    bots = _bots()
    assert {b.name for b in bots} == {"one-ply", "fast-one-ply"}
    game = get_game(game_name)
    players = [SdkPlayer(bot()) for bot in bots]
    players += [SdkPlayer(RandomBot()) for _ in range(game.seats - len(players))]
    result = play_game(game, players, f"docs-simulation-{game_name}", game.parse_options({}))
    assert result.replay["faults"] == []
    assert len(result.replay["deals"]) >= (20 if game_name == "trix" else 2)
    assert all(record["scores"] is not None for record in result.replay["deals"])


def _turns(game_name: str, seed: str):
    for view, request in short_game(game_name, seed):
        yield view, Turn(pb.DecisionRequest.FromString(request))


def _turn_of(state: Any, seat: int) -> Turn:
    """The turn the referee would hand `seat` at `state` (its request, encoded)."""
    game = get_game("trix")
    info = game_info("trix", "docs", seat, seed="docs", players=["a", "b", "c", "d"],
                     options=game.options_dict(state.options))  # fmt: skip
    view = game.observe(state, seat)
    request = WireCodec(game).decision_bytes(
        view, view.legal, 1, game_info_bytes(info), time_ms=1000
    )
    return Turn(pb.DecisionRequest.FromString(request))


def test_where_is_the_king_of_hearts_follows_an_exposure() -> None:
    where = examples()["where_is_the_king_of_hearts"]
    seen = 0
    for seed in ("sampler-a", "sampler-b"):
        for view, turn in _turns("trix", seed):
            played = {e.get("card") for e in turn.view["events"]}
            exposer = [s for s, cards in enumerate(turn.view["exposed"]) if "KH" in cards]
            if view.kind == "play" and exposer and "KH" not in played:
                shares = where(turn, 10)
                assert sum(shares) == pytest.approx(1.0) and shares[exposer[0]] == 1.0
                seen += 1
    assert seen


def test_where_is_the_king_of_hearts_follows_a_void_in_hearts() -> None:
    """A King of Hearts deal set up so that seat 2 fails to follow a heart lead while the
    KH is still out: seat 3's samples never give it to seat 2, and never to seat 3."""
    cards = lambda codes: parse_cards(codes.split())  # noqa: E731
    hands = [
        cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH AH AC KC"),
        cards("QH KH 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC"),
        cards(" ".join(r + "D" for r in "23456789TJQKA")),
        cards(" ".join(r + "S" for r in "23456789TJQKA")),
    ]
    play = lambda seat, code: (seat, parse_card(code))  # noqa: E731
    events = [
        (0, trix.CONTRACT_BASE + trix.KING_OF_HEARTS),
        play(0, "AC"), play(1, "2C"), play(2, "2D"), play(3, "2S"),
        play(0, "KC"), play(1, "3C"), play(2, "3D"), play(3, "3S"),
        play(0, "2H"), play(1, "QH"), play(2, "4D"), play(3, "4S"),  # seat 2: no heart
        play(1, "4C"), play(2, "5D"),
    ]  # fmt: skip
    options = trix.TrixOptions(doubling=False, kingdoms=1)
    state = trix.state_from_deal(hands, 0, events, options)
    assert state.to_move == 3
    shares = examples()["where_is_the_king_of_hearts"](_turn_of(state, 3), 40)
    assert shares[2] == shares[3] == 0.0 and shares[0] > 0 and shares[1] > 0


def test_bid_value_is_the_bid_then_the_first_legal_actions() -> None:
    bid_value = examples()["bid_value"]
    checked = 0
    for view, turn in _turns("trianon", "sampler-a"):
        if view.kind != "bid" or {"type": "bid", "bid": "7H"} not in turn.legal:
            continue
        value = bid_value(turn, "7H", n=5)
        # again on the fast level, on the same deals (a fresh turn, the same random source)
        again = Turn(turn.request)
        total = 0
        for deal in again.sample_deals(5):
            state = deal.engine_state
            trianon.apply(state, trianon.BID_BASE + trianon.parse_bid("7H"))
            while state.to_move >= 0:
                trianon.apply(state, state.legal[0])
            total += state.deal_scores[-1][view.seat]
        assert value == total / 5
        checked += 1
    assert checked
