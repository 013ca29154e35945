"""Tests of the independent Trix replay checker (tests/independent/trix_checker.py).

A small random legal player, written here with the checker's own helpers, makes valid
replays (one kingdom, to keep them short); every mutation of such a replay that breaks
a rule must be caught. The helpers themselves are pinned by hand-made cases and the
worked checks W-1 .. W-4 of the rule book (T-10).
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from . import trix_checker as tc

# ------------------------------------------------------------- a random legal game


def _deal_hands(rng: random.Random) -> list[list[str]]:
    deck = list(tc.DECK)
    rng.shuffle(deck)
    return [sorted(deck[13 * seat : 13 * seat + 13]) for seat in range(4)]


def _play_deal(rng, number, king, contract, hands, doubling):
    """One deal played by random legal players: the replay's deal object."""
    events = [{"seat": king, "type": "contract", "contract": contract}]
    held = [list(hand) for hand in hands]
    exposed: dict[str, int] = {}
    if doubling and contract in (tc.KING_OF_HEARTS, tc.QUEENS):
        for step in range(4):
            seat = (king + step) % 4
            may = tc.exposable_cards(held[seat], contract)
            if may:
                chosen = [card for card in may if rng.random() < 0.5]
                events.append({"seat": seat, "type": "expose", "cards": chosen})
                exposed.update({card: seat for card in chosen})
    if contract == tc.TRIX:
        rows: dict[str, tuple[int, int]] = {}
        finished: list[int] = []
        seat = king
        for _ in range(1000):  # bounded: 52 plays, at most 3 passes or skips per play
            if len(finished) == 3:
                break
            if held[seat]:
                legal = tc.legal_trix_cards(held[seat], rows)
                if legal:
                    card = rng.choice(legal)
                    held[seat].remove(card)
                    tc.place_trix_card(rows, card)
                    events.append({"seat": seat, "type": "play", "card": card})
                    if not held[seat]:
                        finished.append(seat)
                else:
                    events.append({"seat": seat, "type": "pass"})
            seat = (seat + 1) % 4
        else:
            raise AssertionError("the Trix deal is not over after 1000 turns")
        scores = tc.score_trix_deal(finished)
    else:
        taken: list[list[str]] = [[], [], [], []]
        tricks = [0, 0, 0, 0]
        leader = king
        for _ in range(13):
            trick: list[str] = []
            for step in range(4):
                seat = (leader + step) % 4
                card = rng.choice(tc.legal_trick_cards(held[seat], trick, contract))
                held[seat].remove(card)
                trick.append(card)
                events.append({"seat": seat, "type": "play", "card": card})
            leader = tc.trick_winner(trick, leader)
            taken[leader].extend(trick)
            tricks[leader] += 1
        scores = tc.score_trick_deal(contract, taken, tricks, exposed)
    return {"number": number, "king": king, "hands": hands, "events": events, "scores": scores}


def make_game(
    seed, kingdoms=1, doubling=True, partners=False, tiebreak="none", first_king_card="7H"
):
    """A whole valid replay of random legal play."""
    rng = random.Random(seed)
    options = {
        "doubling": doubling,
        "kingdoms": kingdoms,
        "tiebreak": tiebreak,
        "first_king_card": first_king_card,
        "partners": partners,
    }
    deals = []
    first_hands = _deal_hands(rng)
    first_king = next(s for s in range(4) if first_king_card in first_hands[s])
    hands = first_hands
    for kingdom in range(kingdoms):
        king = (first_king + kingdom) % 4
        left = list(tc.CONTRACTS)
        for _ in range(5):
            hands = hands or _deal_hands(rng)
            contract = left.pop(rng.randrange(len(left)))
            deals.append(_play_deal(rng, len(deals) + 1, king, contract, hands, doubling))
            hands = None
    totals = [sum(d["scores"][s] for d in deals) for s in range(4)]
    extra = 0
    while tiebreak == "king-of-hearts" and extra < 4 and tc.tied_for_first(totals, partners):
        king = (first_king + extra) % 4
        deal = _play_deal(rng, len(deals) + 1, king, tc.KING_OF_HEARTS, _deal_hands(rng), doubling)
        deals.append(deal)
        totals = [t + s for t, s in zip(totals, deal["scores"], strict=True)]
        extra += 1
    return {
        "format": "arena-replay/1",
        "game": "trix",
        "options": options,
        "seed": str(seed),
        "players": ["a", "b", "c", "d"],
        "deals": deals,
        "totals": totals,
        "ranks": tc.compute_ranks(totals, partners),
        "faults": [],
    }


@pytest.fixture(scope="module")
def game():
    replay = make_game(1)
    assert tc.check_replay(replay) == []
    return replay


def _deal_with(replay, contract):
    for index, deal in enumerate(replay["deals"]):
        if deal["events"][0]["contract"] == contract:
            return index, deal
    raise AssertionError(f"no {contract} deal")


def _fix_totals(replay):
    """Recompute totals and ranks from the deal scores (so only the deal itself is wrong)."""
    totals = [sum(d["scores"][s] for d in replay["deals"]) for s in range(4)]
    replay["totals"] = totals
    replay["ranks"] = tc.compute_ranks(totals, replay["options"]["partners"])


def _assert_caught(replay, *needles):
    errors = tc.check_replay(replay)
    assert any(all(needle in error for needle in needles) for error in errors), errors
    return errors


# --------------------------------------------------------------- helper functions


def test_deck_is_52_distinct_codes():
    assert len(set(tc.DECK)) == 52
    assert all(tc.is_card(card) for card in tc.DECK)
    assert not tc.is_card("10H") and not tc.is_card("1H") and not tc.is_card("KX")


def test_follow_suit_and_heart_lead():
    hand = ["2C", "KH", "AH", "5S"]
    assert tc.legal_trick_cards(hand, ["9C"], tc.QUEENS) == ["2C"]
    assert sorted(tc.legal_trick_cards(hand, ["9D"], tc.QUEENS)) == sorted(hand)
    assert tc.legal_trick_cards(hand, [], tc.KING_OF_HEARTS) == ["2C", "5S"]
    assert tc.legal_trick_cards(["KH", "AH"], [], tc.KING_OF_HEARTS) == ["KH", "AH"]
    assert sorted(tc.legal_trick_cards(hand, [], tc.DIAMONDS)) == sorted(hand)


def test_trick_winner_highest_of_suit_led():
    assert tc.trick_winner(["TC", "AH", "JC", "2C"], leader=3) == 1  # JC by seat 3+2
    assert tc.trick_winner(["2D", "AS", "AH", "AC"], leader=1) == 1


def test_trix_rows():
    rows: dict[str, tuple[int, int]] = {}
    assert tc.legal_trix_cards(["JH", "QH", "TS", "JS"], rows) == ["JH", "JS"]
    tc.place_trix_card(rows, "JH")
    assert sorted(tc.legal_trix_cards(["QH", "TH", "9H", "KH"], rows)) == ["QH", "TH"]
    tc.place_trix_card(rows, "TH")
    assert sorted(tc.legal_trix_cards(["QH", "9H", "8H"], rows)) == ["9H", "QH"]


def test_worked_checks_w1_to_w4():
    # W-1: seat 1 exposes QS; seat 3 takes it with its QH, and QD later.
    taken = [[], [], [], ["QS", "QH", "2C", "3C", "QD", "4C", "5C", "6C"]]
    assert tc.score_trick_deal(tc.QUEENS, taken, [0, 0, 0, 2], {"QS": 1}) == [0, 25, 0, -100]
    # W-2: KH exposed and taken by seat 2.
    taken = [[], [], ["KH", "2H", "3H", "4H"], []]
    assert tc.score_trick_deal(tc.KING_OF_HEARTS, taken, [0, 0, 1, 0], {"KH": 2}) == [0, 0, -150, 0]
    # W-3: No Tricks, 5 and 8 tricks.
    assert tc.score_trick_deal(tc.NO_TRICKS, [[], [], [], []], [5, 8, 0, 0], {}) == [
        -75,
        -120,
        0,
        0,
    ]
    # W-4: Trix, out in order 2, 0, 3.
    assert tc.score_trix_deal([2, 0, 3]) == [150, 50, 200, 100]


def test_diamonds_and_plain_kh():
    taken = [["2D", "KD", "3C", "4C"], ["KH", "5C", "6C", "7C"], [], []]
    assert tc.score_trick_deal(tc.DIAMONDS, taken, [1, 1, 0, 0], {}) == [-20, 0, 0, 0]
    assert tc.score_trick_deal(tc.KING_OF_HEARTS, taken, [1, 1, 0, 0], {}) == [0, -75, 0, 0]
    assert tc.score_trick_deal(tc.KING_OF_HEARTS, taken, [1, 1, 0, 0], {"KH": 3}) == [
        0,
        -150,
        0,
        75,
    ]


def test_ranks():
    assert tc.compute_ranks([10, 5, 5, 0], partners=False) == [1, 2, 2, 4]
    assert tc.compute_ranks([7, 7, 7, 7], partners=False) == [1, 1, 1, 1]
    assert tc.compute_ranks([10, 5, -20, 0], partners=True) == [2, 1, 2, 1]
    assert tc.compute_ranks([10, 5, -5, 0], partners=True) == [1, 1, 1, 1]
    assert tc.tied_for_first([3, 3, 1, 0], partners=False)
    assert not tc.tied_for_first([3, 2, 2, 0], partners=False)
    assert tc.tied_for_first([3, 2, -3, -2], partners=True)


# --------------------------------------------------------------- valid replays


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("doubling", [True, False])
@pytest.mark.parametrize("partners", [False, True])
def test_random_legal_games_are_accepted(seed, doubling, partners):
    replay = make_game(seed, doubling=doubling, partners=partners)
    assert len(replay["deals"]) == 5
    assert tc.check_replay(replay) == []


def test_full_game_without_doubling_sums_to_zero():
    replay = make_game(7, kingdoms=4, doubling=False)
    assert tc.check_replay(replay) == []
    assert len(replay["deals"]) == 20
    assert sum(replay["totals"]) == 0  # W-5
    kings = [deal["king"] for deal in replay["deals"]]
    assert kings == [kings[0]] * 5 + [(kings[0] + j) % 4 for j in (1, 2, 3) for _ in range(5)]


def test_json_round_trip_is_accepted(game):
    assert tc.check_replay(json.loads(json.dumps(game))) == []


# ------------------------------------------------------------------ mutations


def test_not_following_suit_is_caught(game):
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.DIAMONDS)
    plays = [(i, e) for i, e in enumerate(deal["events"]) if e["type"] == "play"]
    for n, (i, event) in enumerate(plays):
        if n % 4 == 0:
            continue
        led = plays[n - n % 4][1]["card"][1]
        if event["card"][1] != led:
            continue  # this seat could not follow suit anyway
        later = [
            (j, e) for j, e in plays[n + 1 :] if e["seat"] == event["seat"] and e["card"][1] != led
        ]
        if later:
            _, other = later[0]
            event["card"], other["card"] = other["card"], event["card"]
            _assert_caught(replay, f"deal {index + 1} event {i}:", "holds a", "(T-3.2)")
            return
    raise AssertionError("no play to mutate")


def test_heart_lead_in_king_of_hearts_is_caught(game):
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.KING_OF_HEARTS)
    plays = [(i, e) for i, e in enumerate(deal["events"]) if e["type"] == "play"]
    for n in range(0, 52, 4):
        i, lead = plays[n]
        if lead["card"][1] == "H":
            continue
        hearts_later = [
            e for _, e in plays[n + 1 :] if e["seat"] == lead["seat"] and e["card"][1] == "H"
        ]
        if hearts_later:
            lead["card"], hearts_later[0]["card"] = hearts_later[0]["card"], lead["card"]
            _assert_caught(replay, f"deal {index + 1} event {i}:", "(T-3.4)")
            return
    raise AssertionError("no lead to mutate")


def test_pass_while_holding_a_playable_trix_card_is_caught(game):
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.TRIX)
    i = next(i for i, e in enumerate(deal["events"]) if e["type"] == "play")
    deal["events"][i] = {"seat": deal["events"][i]["seat"], "type": "pass"}
    _assert_caught(replay, f"deal {index + 1} event {i}:", "passed", "(T-6.4)")


def test_illegal_trix_card_is_caught(game):
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.TRIX)
    first = next(i for i, e in enumerate(deal["events"]) if e["type"] == "play")
    seat = deal["events"][first]["seat"]
    bad = next(c for c in deal["hands"][seat] if c[0] != "J")
    deal["events"][first]["card"] = bad
    _assert_caught(replay, f"deal {index + 1} event {first}:", "(T-6.3)")


def test_trix_pass_by_wrong_seat_is_caught(game):
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.TRIX)
    events = deal["events"]
    i = next(i for i, e in enumerate(events) if e["type"] == "play")
    events.insert(i, {"seat": (events[i]["seat"] + 1) % 4, "type": "pass"})
    _assert_caught(replay, f"deal {index + 1} event {i}:", "(T-6.2, T-6.5)")


def test_wrong_deal_score_is_caught(game):
    replay = copy.deepcopy(game)
    for index, deal in enumerate(replay["deals"]):
        deal["scores"][index % 4] += 25 if index % 2 else -25
    _fix_totals(replay)
    errors = tc.check_replay(replay)
    assert len(errors) == 5, errors
    for index in range(5):
        assert any(e.startswith(f"deal {index + 1}: scores are") for e in errors), errors


def test_scores_moved_between_seats_are_caught(game):
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.TRIX)
    deal["scores"] = deal["scores"][1:] + deal["scores"][:1]
    _fix_totals(replay)
    _assert_caught(replay, f"deal {index + 1}: scores are", "(T-6.6)")


def test_wrong_totals_are_caught(game):
    replay = copy.deepcopy(game)
    replay["totals"][1] += 10
    errors = _assert_caught(replay, "totals are", "(T-7.1)")
    assert len(errors) == 1, errors


def test_wrong_ranks_are_caught(game):
    replay = copy.deepcopy(game)
    replay["ranks"] = [1, 2, 3, 4] if replay["ranks"] != [1, 2, 3, 4] else [4, 3, 2, 1]
    _assert_caught(replay, "ranks are", "(T-7.2")


def test_partner_ranks_are_checked():
    replay = make_game(2, partners=True)
    assert tc.check_replay(replay) == []
    replay["ranks"] = tc.compute_ranks(replay["totals"], partners=False)
    if replay["ranks"] == tc.compute_ranks(replay["totals"], partners=True):
        pytest.fail("seed gives equal per-seat and team ranks; pick another")
    _assert_caught(replay, "ranks are", "T-9 partners")


def test_missing_expose_event_is_caught(game):
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.QUEENS)
    events = deal["events"]
    i = next(i for i, e in enumerate(events) if e["type"] == "expose")
    del events[i]
    _assert_caught(replay, f"deal {index + 1} event {i}:", "(T-5.1)")


def test_expose_events_in_wrong_order_are_caught(game):
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.QUEENS)
    events = deal["events"]
    exposes = [i for i, e in enumerate(events) if e["type"] == "expose"]
    if len(exposes) < 2:
        pytest.fail("seed has a single queens holder; pick another")
    a, b = exposes[0], exposes[1]
    events[a], events[b] = events[b], events[a]
    _assert_caught(replay, f"deal {index + 1} event {a}:", "(T-5.1)")


def test_exposing_a_card_not_held_is_caught(game):
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.KING_OF_HEARTS)
    events = deal["events"]
    i = next(i for i, e in enumerate(events) if e["type"] == "expose")
    events[i]["cards"] = ["QH"]
    _assert_caught(replay, f"deal {index + 1} event {i}:", "exposed QH", "(T-5.1)")


def test_expose_without_doubling_is_caught():
    replay = make_game(4, doubling=False)
    index, deal = _deal_with(replay, tc.KING_OF_HEARTS)
    holder = next(s for s in range(4) if "KH" in deal["hands"][s])
    deal["events"].insert(1, {"seat": holder, "type": "expose", "cards": []})
    _assert_caught(replay, f"deal {index + 1} event 1:")


def test_playing_a_card_not_held_is_caught(game):
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.NO_TRICKS)
    events = deal["events"]
    i = next(i for i, e in enumerate(events) if e["type"] == "play")
    seat = events[i]["seat"]
    other = next(c for c in deal["hands"][(seat + 1) % 4])
    events[i]["card"] = other
    _assert_caught(replay, f"deal {index + 1} event {i}:", "does not hold")


def test_wrong_leader_is_caught(game):
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.NO_TRICKS)
    events = deal["events"]
    # Swap the order of the second and third play of trick 1: wrong seat on turn.
    events[2], events[3] = events[3], events[2]
    _assert_caught(replay, f"deal {index + 1} event 2:", "(T-3.1)")


def test_missing_and_extra_plays_are_caught(game):
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.QUEENS)
    deal["events"].pop()
    _assert_caught(replay, f"deal {index + 1}:", "events end", "(T-3.1)")
    replay = copy.deepcopy(game)
    index, deal = _deal_with(replay, tc.TRIX)
    deal["events"].append(dict(deal["events"][-1]))
    _assert_caught(replay, f"deal {index + 1} event", "(T-6.5)")


def test_wrong_king_is_caught(game):
    replay = copy.deepcopy(game)
    replay["deals"][2]["king"] = (replay["deals"][2]["king"] + 1) % 4
    _assert_caught(replay, "deal 3: King is recorded", "(T-2.3, T-2.4)")
    replay = copy.deepcopy(game)
    for deal in replay["deals"]:  # whole record shifted to another King
        deal["king"] = (deal["king"] + 1) % 4
        deal["events"][0]["seat"] = deal["king"]
    _assert_caught(replay, "deal 1 event 0:", "(T-2.5)")


def test_repeated_contract_is_caught(game):
    replay = copy.deepcopy(game)
    replay["deals"][4]["events"][0]["contract"] = replay["deals"][0]["events"][0]["contract"]
    _assert_caught(replay, "deal 5 event 0:", "already chosen", "(T-2.5)")


def test_missing_contract_event_is_caught(game):
    replay = copy.deepcopy(game)
    del replay["deals"][1]["events"][0]
    _assert_caught(replay, "deal 2 event 0:", "contract")


def test_bad_hands_are_caught(game):
    replay = copy.deepcopy(game)
    hands = replay["deals"][1]["hands"]
    hands[0][0] = hands[1][0]
    _assert_caught(replay, "deal 2:", "dealt twice")
    _assert_caught(replay, "deal 2:", "missing")


def test_missing_deal_is_caught(game):
    replay = copy.deepcopy(game)
    replay["deals"].pop()
    _assert_caught(replay, "(T-2.1, T-9)")


def test_bad_format_keys_are_caught(game):
    replay = copy.deepcopy(game)
    replay["format"] = "arena-replay/2"
    replay["game"] = "trianon"
    del replay["seed"]
    replay["faults"] = [{"seat": 1}]
    errors = tc.check_replay(replay)
    for needle in ("format is", "game is", "'seed'", "faults[0]"):
        assert any(needle in e for e in errors), (needle, errors)


def test_auto_key_is_allowed_but_other_keys_are_not(game):
    replay = copy.deepcopy(game)
    replay["deals"][0]["events"][5]["auto"] = "timeout"
    replay["faults"] = [{"seat": 0, "deal": 1, "kind": "timeout", "detail": "late"}]
    assert tc.check_replay(replay) == []
    replay["deals"][0]["events"][5]["note"] = "x"
    _assert_caught(replay, "deal 1 event 5:", "unknown keys")


# ------------------------------------------------------------------ tie-breaks


def _tied_game(partners=False):
    for seed in range(3000):
        replay = make_game(seed, partners=partners, tiebreak="king-of-hearts")
        if len(replay["deals"]) > 5:
            return replay
    raise AssertionError("no tied game found")


@pytest.mark.parametrize("partners", [False, True])
def test_tiebreak_deals(partners):
    replay = _tied_game(partners)
    assert tc.check_replay(replay) == []
    extra = replay["deals"][5]
    assert extra["events"][0]["contract"] == tc.KING_OF_HEARTS

    missing = copy.deepcopy(replay)
    del missing["deals"][5:]
    _fix_totals(missing)
    _assert_caught(missing, "tie-break deal 6 is missing", "(T-7.3)")

    off = copy.deepcopy(replay)
    off["options"]["tiebreak"] = "none"
    _assert_caught(off, "deal 6:", "tiebreak option is 'none'", "(T-7.3)")

    wrong_contract = copy.deepcopy(replay)
    wrong_contract["deals"][5]["events"][0]["contract"] = tc.DIAMONDS
    _assert_caught(wrong_contract, "deal 6 event 0:", "(T-7.3)")


def test_tiebreak_deal_without_tie_is_caught():
    replay = make_game(0, tiebreak="king-of-hearts")
    assert len(replay["deals"]) == 5 and tc.check_replay(replay) == []
    rng = random.Random(99)
    king = replay["deals"][0]["king"]
    deal = _play_deal(rng, 6, king, tc.KING_OF_HEARTS, _deal_hands(rng), True)
    replay["deals"].append(deal)
    _fix_totals(replay)
    _assert_caught(replay, "deal 6:", "no tie for first remains", "(T-7.3)")


# ---------------------------------------------------------------- command line


def test_command_line(tmp_path, game, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(game))
    assert tc.main([str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip().endswith("1 replays checked, 0 disagreements")

    bad = copy.deepcopy(game)
    bad["totals"][0] += 5
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.json").write_text(json.dumps(bad))
    assert tc.main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "bad.json: totals are" in out
    assert out.strip().endswith("2 replays checked, 1 disagreements")


def test_command_line_as_module(tmp_path, game):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game))
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-m", "tests.independent.trix_checker", str(path)],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,  # subprocess.run kills the checker if it runs over
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 replays checked, 0 disagreements" in result.stdout
