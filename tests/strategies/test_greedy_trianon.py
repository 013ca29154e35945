"""The greedy bot (arena.strategies.greedy) in Trianon: legal, clearly better than random,
sensible bids."""

from __future__ import annotations

from arena.bots.builtin import RandomBot
from arena.bots.local import SdkPlayer
from arena.games import get_game
from arena.play.referee import RefereeSettings, play_game
from arena.sdk import Turn
from arena.strategies.greedy import GreedyBot
from arena.wire.v1 import bot_pb2 as pb
from tests.support.greedy_matches import pooled_matches

GAME = get_game("trianon")
OPTIONS = GAME.parse_options({})
BOT = GreedyBot()


def test_greedy_beats_random_over_seat_rotated_trianon_matches() -> None:
    seeds = [f"greedy-trianon-{match}" for match in range(8)]
    greedy, random, faults = pooled_matches(GAME, OPTIONS, seeds, lambda: BOT)
    assert faults == 0
    assert len(greedy) == 24
    assert sum(greedy) / len(greedy) > sum(random) / len(random) + 150


def test_greedy_answers_every_trianon_decision_legally() -> None:
    for seed in ("forced-1", "forced-2"):
        players = [SdkPlayer(BOT), SdkPlayer(BOT), RandomBot()]
        result = play_game(GAME, players, seed, OPTIONS, settings=RefereeSettings(ask_forced=True))
        assert result.faults == []


def _bid_turn(hand: list[str], legal: list[pb.Action]) -> Turn:
    request = pb.DecisionRequest(
        decision_id=1,
        game=pb.GameInfo(game="trianon", seat=1, seed="t", players=["a", "b", "c"]),
        kind="bid",
        observation=pb.Observation(
            seat=1,
            deal=1,
            dealer=0,
            hand=hand,
            declarer=-1,
            cards_left=[12, 12, 12],
            tricks_won=[0, 0, 0],
            totals=[0, 0, 0],
        ),
        legal=legal,
    )
    return Turn(request)


BIDS = [pb.Action(type="pass")] + [
    pb.Action(type="bid", bid=f"{n}{s}")
    for n in range(4, 13)
    for s in ("C", "S", "D", "H", "SS", "NT")
]


def test_a_weak_hand_passes() -> None:
    weak = ["6C", "7C", "8D", "6D", "7H", "8H", "6S", "7S", "9C", "9D", "8S", "6H"]
    turn = _bid_turn(weak, BIDS)
    assert turn.answer(BOT.act(turn)).type == "pass"


def test_long_trumps_bid_their_suit_and_a_strong_hand_bids_high() -> None:
    # Eight hearts and nothing outside: hearts as trumps, not sans atout.
    long_hearts = ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6C", "7C", "6D", "7D"]
    turn = _bid_turn(long_hearts, BIDS)
    answer = turn.answer(BOT.act(turn))
    assert answer.type == "bid" and answer.bid.endswith("H") and not answer.bid.endswith("SH")
    assert int(answer.bid[:-1]) >= 7
    assert answer.bid == "8H"  # exactly: the level the fitted trick model gives today
    # Seven top hearts and four aces and kings outside: a high contract.
    strong = ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "AS", "KS", "AD", "AC", "KC"]
    turn = _bid_turn(strong, BIDS)
    answer = turn.answer(BOT.act(turn))
    assert answer.type == "bid" and int(answer.bid.rstrip("CSDHNT")) >= 9
    assert answer.bid == "11NT"  # exactly, as above
