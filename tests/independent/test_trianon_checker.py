"""Tests of the independent Trianon replay checker (tests/independent/trianon_checker.py).

A small random legal player, written here with the checker's own helpers, makes valid
replays; every mutation of such a replay that breaks a rule must be caught. The helpers
themselves are pinned by hand-made cases and the worked checks W-1 .. W-5 of the rule
book (N-10).
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from . import trianon_checker as tc

# ------------------------------------------------------------- a random legal game


def _deal_hands(rng: random.Random) -> list[list[str]]:
    deck = list(tc.DECK)
    rng.shuffle(deck)
    return [sorted(deck[12 * seat : 12 * seat + 12]) for seat in range(3)]


def play_deal(
    rng, number, hands, script=None, dealer=None, ss_normal_order=False, ignore_trump=False
):
    """One deal played by random legal players: ``(deal object, info)``.

    `script` fixes the bidding: ``(calls, decision)`` with calls a list of bid codes or
    None (pass) in speaking order, and decision ``"keep"`` or a raise bid code.
    `dealer` overrides the dealer (to make a wrong record); `ss_normal_order` makes a
    wrong record that ranks sans souci tricks in the normal order, `ignore_trump` one
    that gives trump tricks to the highest card of the suit led.
    """
    dealer = tc.dealer_of(number) if dealer is None else dealer
    calls = list(script[0]) if script else None
    bidding = tc.Bidding(dealer)
    events = []
    while not bidding.over:
        seat = bidding.to_speak
        if calls is not None:
            call = calls.pop(0)
        else:
            higher = tc.bids_above(bidding.highest)[:10]
            call = None if not higher or rng.random() < 0.5 else rng.choice(higher)
        if call is None:
            events.append({"seat": seat, "type": "pass"})
        else:
            events.append({"seat": seat, "type": "bid", "bid": call})
        bidding.call(call)
    assert not calls, "script has calls left over"
    declarer, contract = bidding.declarer, None
    if declarer is not None:
        contract = bidding.last_bid[declarer]
        higher = tc.bids_above(contract)[:8]
        if script:
            decision = script[1]
        else:
            decision = rng.choice(higher) if higher and rng.random() < 0.3 else "keep"
        if decision == "keep":
            events.append({"seat": declarer, "type": "keep"})
        else:
            events.append({"seat": declarer, "type": "raise", "bid": decision})
            contract = decision
    trump, sans_souci = tc.trump_of(contract), tc.is_sans_souci(contract)
    held = [list(hand) for hand in hands]
    leader = dealer if declarer is None else (declarer + 1) % 3
    tricks = [0, 0, 0]
    ss_differs = trump_differs = False
    for _ in range(12):
        trick: list[str] = []
        for step in range(3):
            seat = (leader + step) % 3
            card = rng.choice(tc.legal_cards(held[seat], trick))
            held[seat].remove(card)
            trick.append(card)
            events.append({"seat": seat, "type": "play", "card": card})
        right = tc.trick_winner(trick, leader, trump, sans_souci)
        wrong = tc.trick_winner(trick, leader, None if ignore_trump else trump, False)
        if sans_souci and right != wrong:
            ss_differs = True
        if trump and right != wrong:
            trump_differs = True
        leader = wrong if (ss_normal_order or ignore_trump) else right
        tricks[leader] += 1
    scores = tc.deal_score(declarer, contract, tricks)
    deal = {"number": number, "dealer": dealer, "hands": hands, "events": events, "scores": scores}
    info = {
        "declarer": declarer,
        "contract": contract,
        "tricks": tricks,
        "made": declarer is not None and tricks[declarer] >= tc.parse_bid(contract)[0],
        "ss_differs": ss_differs,
        "trump_differs": trump_differs,
    }
    return deal, info


def make_game(seed, target=500, max_deals=200, scripts=None, **wrong):
    """A whole replay of random legal play, and the info of each deal.

    `scripts` fixes the bidding of the first deals; `wrong` passes ``dealer_shift``,
    ``ss_normal_order`` or ``ignore_trump`` to make a record that breaks the rules.
    """
    rng = random.Random(seed)
    deals, infos = [], []
    totals = [0, 0, 0]
    shift = wrong.get("dealer_shift", 0)
    while len(deals) < max_deals and max(totals) < target:
        number = len(deals) + 1
        script = scripts[len(deals)] if scripts and len(deals) < len(scripts) else None
        deal, info = play_deal(
            rng,
            number,
            _deal_hands(rng),
            script=script,
            dealer=(tc.dealer_of(number) + shift) % 3,
            ss_normal_order=wrong.get("ss_normal_order", False),
            ignore_trump=wrong.get("ignore_trump", False),
        )
        deals.append(deal)
        infos.append(info)
        totals = [t + s for t, s in zip(totals, deal["scores"], strict=True)]
    replay = {
        "format": "arena-replay/1",
        "game": "trianon",
        "options": {"target": target, "max_deals": max_deals},
        "seed": str(seed),
        "players": ["a", "b", "c"],
        "deals": deals,
        "totals": totals,
        "ranks": tc.compute_ranks(totals),
        "faults": [],
    }
    return replay, infos


def _rich(infos) -> bool:
    contracts = [i for i in infos if i["contract"] is not None]
    return (
        any(i["made"] for i in contracts)
        and any(not i["made"] for i in contracts)
        and any(i["contract"] is None for i in infos)
        and any(tc.is_sans_souci(i["contract"]) for i in contracts)
    )


@pytest.fixture(scope="module")
def rich():
    """A valid game holding a made and a failed contract, a Trianon round and sans souci."""
    for seed in range(500):
        replay, infos = make_game(seed)
        if _rich(infos):
            assert tc.check_replay(replay) == []
            return replay, infos
    raise AssertionError("no rich game found")


def _fix_totals(replay):
    """Recompute totals and ranks from the deal scores (so only the deal itself is wrong)."""
    totals = [sum(d["scores"][s] for d in replay["deals"]) for s in range(3)]
    replay["totals"] = totals
    replay["ranks"] = tc.compute_ranks(totals)


def _assert_caught(replay, *needles):
    errors = tc.check_replay(replay)
    assert any(all(needle in error for needle in needles) for error in errors), errors
    return errors


def _first_index(infos, predicate):
    for index, info in enumerate(infos):
        if predicate(info):
            return index
    raise AssertionError("no such deal")


def _one_deal_game(calls, decision="keep", seed=0):
    return make_game(seed, max_deals=1, scripts=[(calls, decision)])


# --------------------------------------------------------------- helper functions


def test_deck_is_36_distinct_codes():
    assert len(set(tc.DECK)) == 36
    assert all(tc.is_card(card) for card in tc.DECK)
    assert not tc.is_card("5H") and not tc.is_card("10H") and not tc.is_card("KX")


def test_bid_codes_and_order():
    assert tc.parse_bid("4C") == (4, "C")
    assert tc.parse_bid("12NT") == (12, "NT")
    assert tc.parse_bid("7SS") == (7, "SS")
    for bad in ("3H", "13C", "04H", "7X", "7 H", "H7", 7, None, "7ss"):
        assert not tc.is_bid(bad), bad
    assert tc.beats("8S", "7SS") and tc.beats("7SS", "4C")  # N-3.2 example
    assert tc.beats("7NT", "7SS") and tc.beats("7SS", "7H") and tc.beats("7H", "7D")
    assert tc.beats("7D", "7S") and tc.beats("7S", "7C") and tc.beats("8C", "7NT")
    assert not tc.beats("7H", "7H") and not tc.beats("7C", "7S")
    assert len(tc.ALL_BIDS) == 54 and tc.bids_above("12NT") == []
    assert tc.bids_above("11NT") == ["12C", "12S", "12D", "12H", "12SS", "12NT"]
    assert tc.bids_above(None)[:2] == ["4C", "4S"]


def test_dealer_rotation():
    assert [tc.dealer_of(n) for n in range(1, 8)] == [0, 1, 2, 0, 1, 2, 0]


def test_follow_suit_no_duty_to_trump():
    hand = ["6C", "KH", "AH", "9S"]
    assert tc.legal_cards(hand, ["TC"]) == ["6C"]
    assert sorted(tc.legal_cards(hand, ["TD"])) == sorted(hand)  # may discard, need not trump
    assert sorted(tc.legal_cards(hand, [])) == sorted(hand)


def test_trick_winner():
    assert tc.trick_winner(["TC", "AH", "JC"], leader=2, trump=None, sans_souci=False) == 1
    assert tc.trick_winner(["TC", "AH", "JC"], leader=2, trump="H", sans_souci=False) == 0
    assert tc.trick_winner(["6H", "AH", "KC"], leader=0, trump="H", sans_souci=False) == 1
    assert tc.trick_winner(["6C", "7S", "8S"], leader=1, trump="S", sans_souci=False) == 0
    # Sans souci: the six beats the court cards, the ten is highest.
    assert tc.trick_winner(["JS", "6S", "AS"], leader=0, trump=None, sans_souci=True) == 1
    assert tc.trick_winner(["JS", "6S", "AS"], leader=0, trump=None, sans_souci=False) == 2
    assert tc.trick_winner(["QD", "KD", "JD"], leader=0, trump=None, sans_souci=True) == 1
    assert tc.trick_winner(["9D", "TD", "AH"], leader=0, trump=None, sans_souci=True) == 1
    assert tc.trump_of("7H") == "H" and tc.trump_of("7SS") is None
    assert tc.trump_of("7NT") is None and tc.trump_of(None) is None and tc.trump_of("5S") == "S"


def test_worked_checks_w1_to_w5():
    # W-1: bid 7 hearts, declarer takes 8 tricks.
    assert tc.score_contract(1, "7H", 8) == [0, 90, 0]
    # W-2: bid 6 sans souci, declarer takes 4.
    assert tc.score_contract(0, "6SS", 4) == [0, 100, 100]
    # W-3: Trianon with tricks 0 / 5 / 7.
    assert tc.score_trianon([0, 5, 7]) == [150, 0, 0]
    # W-4: sans souci, spades led: 6S, AS, TS is won by TS.
    assert tc.trick_winner(["6S", "AS", "TS"], leader=1, trump=None, sans_souci=True) == 0
    # W-5: hearts trumps, clubs led: AC, 6H, 7H is won by 7H.
    assert tc.trick_winner(["AC", "6H", "7H"], leader=0, trump="H", sans_souci=False) == 2


def test_contract_scores():
    assert tc.score_contract(2, "4C", 12) == [0, 0, 0]  # a made 4 scores nothing
    assert tc.score_contract(2, "5NT", 5) == [0, 0, 40]
    assert tc.score_contract(2, "12NT", 12) == [0, 0, 320]
    assert tc.score_contract(0, "12C", 12) == [240, 0, 0]
    assert tc.score_contract(0, "6D", 4) == [0, 80, 80]  # N-5.3 example
    assert tc.score_contract(1, "4NT", 0) == [200, 0, 200]
    assert tc.score_contract(1, "9S", 8) == [40, 0, 40]
    assert tc.deal_score(None, None, [1, 2, 9]) == [105, 70, 0]
    assert tc.deal_score(None, None, [3, 4, 5]) == [35, 0, 0]
    assert tc.deal_score(0, "5H", [5, 4, 3]) == [30, 0, 0]


def test_ranks():
    assert tc.compute_ranks([10, 5, 5]) == [1, 2, 2]
    assert tc.compute_ranks([7, 7, 7]) == [1, 1, 1]
    assert tc.compute_ranks([0, 5, 10]) == [3, 2, 1]
    assert tc.compute_ranks([5, 5, 10]) == [2, 2, 1]


def test_bidding_state():
    b = tc.Bidding(dealer=0)
    assert b.to_speak == 1
    b.call(None)
    assert b.to_speak == 2
    b.call(None)
    assert b.to_speak == 0  # the dealer still speaks after two passes
    b.call("5H")
    assert b.over and b.declarer == 0

    b = tc.Bidding(dealer=2)
    assert b.to_speak == 0
    for call in ("4C", "4H", None):  # seats 0, 1, 2
        b.call(call)
    assert b.to_speak == 0
    b.call("5C")
    assert b.to_speak == 1
    b.call(None)  # seats 2 and 1 passed, seat 0 holds the bid
    assert b.over and b.declarer == 0 and b.last_bid[0] == "5C"

    b = tc.Bidding(dealer=0)
    b.call(None)  # seat 1 passes and is skipped from now on
    b.call("4C")
    b.call("4D")
    assert b.to_speak == 2
    b.call("4H")
    assert b.to_speak == 0
    b.call(None)
    assert b.over and b.declarer == 2

    b = tc.Bidding(dealer=1)
    for call in (None, None, None):
        b.call(call)
    assert b.over and b.declarer is None


# --------------------------------------------------------------- valid replays


@pytest.mark.parametrize("seed", range(8))
def test_random_legal_games_are_accepted(seed):
    replay, infos = make_game(seed)
    assert max(replay["totals"]) >= 500
    assert tc.check_replay(replay) == []


@pytest.mark.parametrize("seed", range(4))
def test_games_ended_by_max_deals_are_accepted(seed):
    replay, _ = make_game(seed, target=10**6, max_deals=4)
    assert len(replay["deals"]) == 4
    assert tc.check_replay(replay) == []


def test_low_target_game_is_accepted():
    replay, _ = make_game(3, target=100)
    assert tc.check_replay(replay) == []


def test_rich_game_and_json_round_trip(rich):
    replay, infos = rich
    assert tc.check_replay(json.loads(json.dumps(replay))) == []
    assert [d["dealer"] for d in replay["deals"]] == [n % 3 for n in range(len(infos))]


@pytest.mark.parametrize(
    ("calls", "decision"),
    [
        ([None, None, "5H"], "keep"),  # dealer bids after two passes
        (["5H", None, None], "7NT"),  # declarer decided at once; raise to any strain
        (["7H", None, None], "7NT"),
        (["7H", None, None], "8C"),
        (["12NT", None, None], "keep"),
        (["4C", "4S", "5C", None, "6C", None], "keep"),
        ([None, "4SS", None], "5SS"),
        ([None, "4C", "4D", "4H", None], "keep"),  # the passer is skipped
        ([None, None, None], None),
    ],
)
def test_scripted_bidding_is_accepted(calls, decision):
    replay, infos = _one_deal_game(calls, decision)
    assert tc.check_replay(replay) == []


# ------------------------------------------------------------------ bidding mutations


def test_bid_not_higher_is_caught(rich):
    for lower in (False, True):
        replay = copy.deepcopy(rich[0])
        for index, deal in enumerate(replay["deals"]):
            bids = [(i, e) for i, e in enumerate(deal["events"]) if e["type"] == "bid"]
            if len(bids) >= 2:
                (_, first), (i, second) = bids[0], bids[1]
                if lower:
                    if first["bid"] == "4C":
                        continue
                    second["bid"] = tc.ALL_BIDS[tc.ALL_BIDS.index(first["bid"]) - 1]
                else:
                    second["bid"] = first["bid"]
                _assert_caught(replay, f"deal {index + 1} event {i}:", "does not beat", "(N-3.2")
                break
        else:
            raise AssertionError("no deal with two bids")


def test_passer_bidding_again_is_caught(rich):
    replay = copy.deepcopy(rich[0])
    for index, deal in enumerate(replay["deals"]):
        events = deal["events"]
        calls = [i for i, e in enumerate(events) if e["type"] in ("bid", "pass")]
        first_pass = next(i for i in calls if events[i]["type"] == "pass")
        later = [i for i in calls if i > first_pass]
        if later:
            j = later[0]
            so_far = [e["bid"] for e in events[:j] if e["type"] == "bid"]
            highest = max(so_far, key=tc.bid_key) if so_far else None
            passer = events[first_pass]["seat"]
            events.insert(j, {"seat": passer, "type": "bid", "bid": tc.bids_above(highest)[0]})
            _assert_caught(replay, f"deal {index + 1} event {j}:", "may not bid again", "(N-3.3)")
            return
    raise AssertionError("no deal to mutate")


def test_wrong_first_speaker_is_caught(rich):
    replay = copy.deepcopy(rich[0])
    deal = replay["deals"][1]  # dealer 1: seat 2 speaks first
    deal["events"][0], deal["events"][1] = deal["events"][1], deal["events"][0]
    if deal["events"][0]["seat"] == deal["events"][1]["seat"]:
        pytest.fail("seed gives a deal whose first two events share a seat")
    _assert_caught(replay, "deal 2 event 0:", "should bid or pass (N-3.3)")


def test_missing_raise_or_keep_is_caught(rich):
    replay = copy.deepcopy(rich[0])
    index = _first_index(rich[1], lambda i: i["contract"] is not None)
    events = replay["deals"][index]["events"]
    i = next(i for i, e in enumerate(events) if e["type"] in ("raise", "keep"))
    del events[i]
    _assert_caught(replay, f"deal {index + 1} event {i}:", "raise or keep", "(N-3.4)")


def test_second_raise_or_keep_is_caught(rich):
    replay = copy.deepcopy(rich[0])
    index = _first_index(rich[1], lambda i: i["contract"] is not None)
    events = replay["deals"][index]["events"]
    i = next(i for i, e in enumerate(events) if e["type"] in ("raise", "keep"))
    events.insert(i + 1, {"seat": events[i]["seat"], "type": "keep"})
    _assert_caught(replay, f"deal {index + 1} event {i + 1}:", "lead trick 1 (N-4.1)")


def test_declarer_asked_again_is_caught():
    replay, _ = _one_deal_game(["5H", None, None], "keep")
    assert tc.check_replay(replay) == []
    events = replay["deals"][0]["events"]
    events.insert(3, {"seat": 1, "type": "pass"})  # the engine would ask seat 1 again
    _assert_caught(replay, "deal 1 event 3:", "sent a 'pass' event", "(N-3.4)")
    replay, _ = _one_deal_game(["5H", None, None], "keep")
    replay["deals"][0]["events"][3] = {"seat": 1, "type": "bid", "bid": "6H"}
    _assert_caught(replay, "deal 1 event 3:", "sent a 'bid' event", "(N-3.4)")


def test_raise_not_higher_is_caught():
    for decision, bad in (("7NT", "7D"), ("8C", "7H"), ("keep", "12NT")):
        calls = ["12NT" if bad == "12NT" else "7H", None, None]
        replay, _ = _one_deal_game(calls, decision)
        assert tc.check_replay(replay) == []
        replay["deals"][0]["events"][3] = {"seat": 1, "type": "raise", "bid": bad}
        _assert_caught(replay, "deal 1 event 3:", "does not beat its last bid", "(N-3.2, N-3.4)")


def test_dealer_skipped_after_two_passes_is_caught():
    replay, _ = _one_deal_game([None, None, None], None)
    assert tc.check_replay(replay) == []
    del replay["deals"][0]["events"][2]  # the dealer's pass: play starts at once
    _assert_caught(replay, "deal 1 event 2:", "during the bidding", "(N-3.3)")


def test_raise_or_keep_in_a_trianon_round_is_caught(rich):
    replay = copy.deepcopy(rich[0])
    index = _first_index(rich[1], lambda i: i["contract"] is None)
    deal = replay["deals"][index]
    deal["events"].insert(3, {"seat": deal["dealer"], "type": "keep"})
    _assert_caught(replay, f"deal {index + 1} event 3:", "sent a 'keep' event", "(N-6.1)")


# --------------------------------------------------------------------- play mutations


def test_not_following_suit_is_caught(rich):
    replay = copy.deepcopy(rich[0])
    for index, deal in enumerate(replay["deals"]):
        plays = [(i, e) for i, e in enumerate(deal["events"]) if e["type"] == "play"]
        for n, (i, event) in enumerate(plays):
            if n % 3 == 0:
                continue
            led = plays[n - n % 3][1]["card"][1]
            if event["card"][1] != led:
                continue  # this seat could not follow suit anyway
            later = [
                e for _, e in plays[n + 1 :] if e["seat"] == event["seat"] and e["card"][1] != led
            ]
            if later:
                event["card"], later[0]["card"] = later[0]["card"], event["card"]
                _assert_caught(replay, f"deal {index + 1} event {i}:", "holds a", "(N-4.2)")
                return
    raise AssertionError("no play to mutate")


def test_wrong_trick_winner_leading_is_caught(rich):
    replay = copy.deepcopy(rich[0])
    deal = replay["deals"][0]
    events = deal["events"]
    start = next(i for i, e in enumerate(events) if e["type"] == "play") + 3  # trick 2
    events[start : start + 3] = events[start + 1 : start + 3] + events[start : start + 1]
    _assert_caught(replay, f"deal 1 event {start}:", "should lead trick 2", "(N-4.1, N-4.3)")


def test_wrong_first_leader_is_caught(rich):
    for kind, rule in ((lambda i: i["contract"] is None, "N-6.1"), (lambda i: i["made"], "N-4.1")):
        replay = copy.deepcopy(rich[0])
        index = _first_index(rich[1], kind)
        events = replay["deals"][index]["events"]
        start = next(i for i, e in enumerate(events) if e["type"] == "play")
        events[start : start + 3] = events[start + 1 : start + 3] + events[start : start + 1]
        _assert_caught(replay, f"deal {index + 1} event {start}:", f"lead trick 1 ({rule})")


@pytest.mark.parametrize(
    ("wrong", "flag"), [("ss_normal_order", "ss_differs"), ("ignore_trump", "trump_differs")]
)
def test_trick_winner_misapplied_is_caught(wrong, flag):
    """A record that ranks sans souci tricks in the normal order, or ignores trumps."""
    for seed in range(300):
        replay, infos = make_game(seed, **{wrong: True})
        bad = [n for n, info in enumerate(infos) if info[flag]]
        if bad:
            errors = tc.check_replay(replay)
            assert any(e.startswith(f"deal {bad[0] + 1}") for e in errors), errors
            clean = [n for n in range(len(infos)) if n not in bad]
            assert not any(e.startswith(f"deal {n + 1}:") for n in clean for e in errors)
            assert not any(e.startswith(f"deal {n + 1} ") for n in clean for e in errors)
            return
    raise AssertionError("no game with a trick that the misapplied rule decides")


def test_playing_a_card_not_held_is_caught(rich):
    replay = copy.deepcopy(rich[0])
    events = replay["deals"][0]["events"]
    i = next(i for i, e in enumerate(events) if e["type"] == "play")
    seat = events[i]["seat"]
    events[i]["card"] = replay["deals"][0]["hands"][(seat + 1) % 3][0]
    _assert_caught(replay, f"deal 1 event {i}:", "does not hold", "(N-2.1, N-4.2)")


def test_missing_and_extra_plays_are_caught(rich):
    replay = copy.deepcopy(rich[0])
    replay["deals"][0]["events"].pop()
    _assert_caught(replay, "deal 1:", "events end", "should play card 3 of trick 12")
    replay = copy.deepcopy(rich[0])
    events = replay["deals"][1]["events"]
    events.append(dict(events[-1]))
    _assert_caught(replay, f"deal 2 event {len(events) - 1}:", "(N-4.4)")


# -------------------------------------------------------------------- score mutations


@pytest.mark.parametrize(
    ("kind", "needle"),
    [
        ("made", "made with"),
        ("failed", "failed with"),
        ("trianon", "Trianon round with tricks"),
    ],
)
def test_wrong_deal_score_is_caught(rich, kind, needle):
    replay, infos = copy.deepcopy(rich[0]), rich[1]
    predicates = {
        "made": lambda i: i["made"],
        "failed": lambda i: i["contract"] is not None and not i["made"],
        "trianon": lambda i: i["contract"] is None,
    }
    rules = {"made": "(N-5.1, N-5.2)", "failed": "(N-5.1, N-5.3)", "trianon": "(N-6.2)"}
    index = _first_index(infos, predicates[kind])
    info, deal = infos[index], replay["deals"][index]
    if kind == "made":
        deal["scores"][info["declarer"]] += 30
    elif kind == "failed":
        deal["scores"][(info["declarer"] + 1) % 3] -= 40
    else:
        deal["scores"][0] += 35
    _fix_totals(replay)
    _assert_caught(replay, f"deal {index + 1}: scores are", needle, rules[kind])


def test_declarer_scoring_in_failed_contract_is_caught(rich):
    replay, infos = copy.deepcopy(rich[0]), rich[1]
    index = _first_index(infos, lambda i: i["contract"] is not None and not i["made"])
    replay["deals"][index]["scores"][infos[index]["declarer"]] = 30
    _fix_totals(replay)
    _assert_caught(replay, f"deal {index + 1}: scores are", "(N-5.1, N-5.3)")


def test_wrong_totals_are_caught(rich):
    replay = copy.deepcopy(rich[0])
    replay["totals"][1] += 10
    errors = _assert_caught(replay, "totals are", "(N-7.1)")
    assert len(errors) == 1, errors


def test_wrong_ranks_are_caught(rich):
    replay = copy.deepcopy(rich[0])
    replay["ranks"] = [1, 2, 3] if replay["ranks"] != [1, 2, 3] else [3, 2, 1]
    errors = _assert_caught(replay, "ranks are", "(N-7.2)")
    assert len(errors) == 1, errors


def test_tied_ranks_must_share_the_better_place():
    for seed in range(100):
        replay, infos = make_game(seed, max_deals=1)
        if infos[0]["contract"] is not None and not infos[0]["made"]:
            break  # a failed contract: the two defenders tie
    else:
        raise AssertionError("no failed contract found")
    declarer = infos[0]["declarer"]
    expected = [3 if seat == declarer else 1 for seat in range(3)]
    assert replay["ranks"] == expected and tc.check_replay(replay) == []
    replay["ranks"] = [
        3 if seat == declarer else 1 + (seat == (declarer + 2) % 3) for seat in range(3)
    ]
    _assert_caught(replay, "ranks are", f"give {expected} (N-7.2)")


# ---------------------------------------------------------------------- game mutations


def test_deal_after_target_is_caught(rich):
    replay = copy.deepcopy(rich[0])
    number = len(replay["deals"]) + 1
    deal, _ = play_deal(random.Random(5), number, _deal_hands(random.Random(6)))
    replay["deals"].append(deal)
    _fix_totals(replay)
    _assert_caught(replay, f"deal {number}: 1 deal(s) recorded after the game ended", "(N-7.1)")


def test_deal_after_max_deals_is_caught():
    replay, _ = make_game(1, target=10**6, max_deals=3)
    deal, _ = play_deal(random.Random(5), 4, _deal_hands(random.Random(6)))
    replay["deals"].append(deal)
    _fix_totals(replay)
    _assert_caught(replay, "deal 4: 1 deal(s) recorded after the game ended", "(N-7.3)")


def test_missing_deal_is_caught(rich):
    replay = copy.deepcopy(rich[0])
    count = len(replay["deals"])
    replay["deals"].pop()
    _fix_totals(replay)
    _assert_caught(replay, f"deal {count} is missing", "(N-7.1, N-7.3)")
    replay, _ = make_game(2, target=10**6, max_deals=3)
    replay["deals"].pop()
    _fix_totals(replay)
    _assert_caught(replay, "deal 3 is missing", "(N-7.1, N-7.3)")


def test_wrong_dealer_is_caught(rich):
    replay = copy.deepcopy(rich[0])
    replay["deals"][1]["dealer"] = 2
    errors = _assert_caught(replay, "deal 2: dealer is recorded as 2", "(N-2.2)")
    assert len(errors) == 1, errors
    shifted, _ = make_game(0, dealer_shift=1)  # a whole record dealt from the wrong seat
    _assert_caught(shifted, "deal 1: dealer is recorded as 1", "(N-2.2)")
    _assert_caught(shifted, "deal 1 event 0:", "(N-3.3)")


def test_wrong_deal_number_is_caught(rich):
    replay = copy.deepcopy(rich[0])
    replay["deals"][2]["number"] = 2
    _assert_caught(replay, "deal 3: numbered 2, expected 3")


def test_bad_hands_are_caught(rich):
    replay = copy.deepcopy(rich[0])
    hands = replay["deals"][1]["hands"]
    hands[0][0] = hands[1][0]
    _assert_caught(replay, "deal 2:", "dealt twice")
    _assert_caught(replay, "deal 2:", "missing")
    replay = copy.deepcopy(rich[0])
    replay["deals"][0]["hands"][2].append("5H")
    _assert_caught(replay, "deal 1:", "dealt 13 cards, not 12")
    _assert_caught(replay, "deal 1:", "bad card code '5H'")


def test_bad_format_keys_are_caught(rich):
    replay = copy.deepcopy(rich[0])
    replay["format"] = "arena-replay/2"
    replay["game"] = "trix"
    del replay["seed"]
    replay["faults"] = [{"seat": 1}]
    replay["options"] = {"target": 0, "colour": "red"}
    replay["players"] = ["a", "b", "c", "d"]
    errors = tc.check_replay(replay)
    for needle in (
        "format is",
        "game is",
        "'seed'",
        "faults[0]",
        "bad value 0 for target",
        "max_deals is not recorded",
        "unknown option 'colour'",
        "players must be",
    ):
        assert any(needle in e for e in errors), (needle, errors)


def test_bad_codes_in_events_are_caught(rich):
    replay = copy.deepcopy(rich[0])
    replay["deals"][0]["events"][0] = {"seat": 1, "type": "bid", "bid": "3H"}
    _assert_caught(replay, "deal 1 event 0:", "bad bid code '3H'")
    replay = copy.deepcopy(rich[0])
    events = replay["deals"][0]["events"]
    i = next(i for i, e in enumerate(events) if e["type"] == "play")
    events[i]["card"] = "TH0"
    _assert_caught(replay, f"deal 1 event {i}:", "bad card code")


def test_auto_key_is_allowed_but_other_keys_are_not(rich):
    replay = copy.deepcopy(rich[0])
    replay["deals"][0]["events"][0]["auto"] = "timeout"
    replay["deals"][0]["events"][7]["auto"] = "illegal"
    replay["faults"] = [{"seat": 1, "deal": 1, "kind": "timeout", "detail": "late"}]
    assert tc.check_replay(replay) == []
    replay["deals"][0]["events"][7]["note"] = "x"
    _assert_caught(replay, "deal 1 event 7:", "unknown keys")


# ---------------------------------------------------------------- command line


def test_command_line(tmp_path, rich, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(rich[0]))
    assert tc.main([str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip().endswith("1 replays checked, 0 disagreements")

    bad = copy.deepcopy(rich[0])
    bad["totals"][0] += 5
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.json").write_text(json.dumps(bad))
    assert tc.main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "bad.json: totals are" in out
    assert out.strip().endswith("2 replays checked, 1 disagreements")


def test_command_line_as_module(tmp_path, rich):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(rich[0]))
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-m", "tests.independent.trianon_checker", str(path)],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,  # subprocess.run kills the checker if it runs over
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 replays checked, 0 disagreements" in result.stdout
