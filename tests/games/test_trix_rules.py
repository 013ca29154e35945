"""One test per numbered rule of docs/rules/trix.md, and the worked checks W-1..W-5.

Each test is named after its rule (`test_t3_2_...` is rule T-3.2).
"""

from __future__ import annotations

import copy
import random

import pytest

from arena.cards import (
    CARD_CODES,
    FULL_DECK,
    card_code,
    codes_of,
    parse_card,
    parse_cards,
    shuffled_deck,
)
from arena.errors import ArenaError, CardError, ConfigError, IllegalAction
from arena.games import get_game, trix
from arena.games.trix import (
    CONTRACTS,
    GAME,
    KIND_CONTRACT,
    KIND_EXPOSE,
    KIND_PASS,
    KIND_PLAY,
    PASS,
    TrixOptions,
    apply,
    new_deal,
    new_game,
    observe,
    parse_options,
    result,
)
from arena.play.referee import play_game
from tests.support.trix_scenarios import (
    contract_action,
    expose_action,
    hands,
    play_cards,
    play_plan,
)
from tests.support.walks import spectator_sees_no_hidden_card, until_over

NO_DOUBLING = TrixOptions(doubling=False)


def only(contract: str) -> int:
    return 1 << CONTRACTS.index(contract)


def finish_game(state: trix.TrixState) -> None:
    for _ in until_over(state):
        apply(state, state.legal[0])


def play_deal_first(state: trix.TrixState) -> None:
    deal = state.deal_index
    for _ in until_over(state):
        if state.deal_index != deal:
            break
        apply(state, state.legal[0])


# Hands where each seat holds one whole suit: seat 0 clubs, 1 diamonds, 2 hearts, 3 spades.
SUITED = hands(
    " ".join(r + "C" for r in "23456789TJQKA"),
    " ".join(r + "D" for r in "23456789TJQKA"),
    " ".join(r + "H" for r in "23456789TJQKA"),
    " ".join(r + "S" for r in "23456789TJQKA"),
)

# Queens held by seats 1 (QS), 2 (QC) and 3 (QH, QD); seat 1 holds no heart (W-1, T-5.1).
QUEENS_DEAL = hands(
    "2H 3H 4H 5H 6H 7H 2C 3C 4C 5C 6C 7C 8C",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    "8H 9H TH JH KH AH QC 2D 3D 4D 5D 6D 7D",
    "QH 8D 9D TD JD QD KD AD 9C TC JC KC AC",
)

# A mixed deal used for trick-play rules.
MIXED = hands(
    "TC QC KC 6D 7D JD KD 3H 5H 7H AH 5S KS",
    "2C 6C 7C 2D 3D 4D 5D TD 9H JH KH 2S TS",
    "4C 5C 8C JC AC 9D AD 2H 4H TH 6S 7S JS",
    "3C 9C 8D QD 6H 8H QH 3S 4S 8S 9S QS AS",
)


# --- T-1 Table and cards -------------------------------------------------------------


def test_t1_1_exactly_four_seats() -> None:
    game = get_game("trix")
    assert game.seats == 4
    state = new_game("s")
    assert len(state.hands) == 4
    from arena.bots.builtin import make_builtin

    with pytest.raises(ArenaError, match="needs 4 players"):
        play_game(game, [make_builtin("first")] * 3, "s", TrixOptions())


def test_t1_2_turn_order_goes_to_the_next_seat() -> None:
    state = new_deal(MIXED, king=1, options=NO_DOUBLING, contracts_left=only("diamonds"))
    seen = []
    for _ in range(4):
        seen.append(state.to_move)
        apply(state, state.legal[0])
    assert seen == [1, 2, 3, 0]


def test_t1_3_ace_high_and_no_trump() -> None:
    # Seat 0 leads 2C; seat 1 plays AS (cannot follow); seat 2 plays 3C; seat 3 plays AC.
    deal = hands(
        "2C 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
        "3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2H 3H",
        "AC 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2D",
    )
    state = new_deal(deal, king=0, options=NO_DOUBLING, contracts_left=only("no-tricks"))
    play_cards(state, ["2C", "AS", "3C", "AC"])
    assert state.tricks_won == [0, 0, 0, 1]  # the ace of the suit led wins; AS is no trump
    # T-1.3's rank order as the engine holds it: T between 9 and J, A above K.
    assert parse_card("TD") > parse_card("9D") and parse_card("AD") > parse_card("KD")


def test_t1_4_card_codes() -> None:
    assert len(CARD_CODES) == 52 and len(set(CARD_CODES)) == 52
    assert card_code(parse_card("KH")) == "KH"
    assert card_code(parse_card("TD")) == "TD"
    assert [card_code(c) for c in range(13)][:3] == ["2C", "3C", "4C"]
    for bad in ("10D", "kh", "1H", "KX", "", "KHH"):
        with pytest.raises(CardError):
            parse_card(bad)
    assert codes_of(FULL_DECK) == list(CARD_CODES)


# --- T-2 Game structure --------------------------------------------------------------


def test_t2_1_a_game_is_four_kingdoms_of_five_deals() -> None:
    state = new_game("t2.1")
    finish_game(state)
    assert len(state.deal_scores) == 20
    kings = [r["king"] for r in state.records]
    assert [kings[i * 5 : i * 5 + 5] for i in range(4)] == [[k] * 5 for k in kings[::5]]


def test_t2_2_deals_depend_only_on_seed_and_index() -> None:
    first = trix.deal_hands.__wrapped__("seed-a", 3)
    assert first == trix.deal_hands.__wrapped__("seed-a", 3)
    assert first != trix.deal_hands.__wrapped__("seed-a", 4)
    assert first != trix.deal_hands.__wrapped__("seed-b", 3)
    assert all(h.bit_count() == 13 for h in first)
    assert first[0] | first[1] | first[2] | first[3] == FULL_DECK
    # Seat s gets positions 13s..13s+12 of the shuffle of the 52-card deck.
    order = shuffled_deck("trix", "seed-a", 3, 52)
    assert sorted(order) == list(range(52))
    for s in range(4):
        assert first[s] == sum(1 << p for p in order[13 * s : 13 * s + 13])
    # Whatever is played, a game with the same seed deals every seat the same hands.
    a, b = new_game("same"), new_game("same")
    finish_game(a)
    from arena.bots.builtin import RandomBot

    game = get_game("trix")
    replay = play_game(game, [RandomBot() for _ in range(4)], "same", TrixOptions()).replay
    assert [r["hands"] for r in a.records] == [
        tuple(parse_cards(h) for h in d["hands"]) for d in replay["deals"]
    ]
    assert b.dealt == a.records[0]["hands"]


def test_t2_3_first_king_holds_the_seven_of_hearts() -> None:
    for seed in ("k1", "k2", "k3", "k4", "k5"):
        state = new_game(seed)
        holder = next(s for s in range(4) if state.dealt[s] >> parse_card("7H") & 1)
        assert state.king == holder == state.first_king
        other = new_game(seed, parse_options({"first_king_card": "2C"}))
        assert other.king == next(s for s in range(4) if other.dealt[s] & 1)


def test_t2_4_kingdoms_pass_in_turn_order() -> None:
    state = new_game("t2.4")
    finish_game(state)
    k = state.first_king
    assert [r["king"] for r in state.records] == [(k + i // 5) % 4 for i in range(20)]


def test_t2_5_each_contract_once_per_kingdom_last_one_not_asked() -> None:
    state = new_game("t2.5")
    asked = []
    for _ in until_over(state):
        if state.kind == KIND_CONTRACT:
            asked.append(len(state.legal))
            apply(state, state.legal[-1])  # choose in reverse order
        else:
            apply(state, state.legal[0])
    assert asked == [5, 4, 3, 2] * 4  # the fifth contract is played without asking
    for k in range(4):
        kingdom = state.records[k * 5 : k * 5 + 5]
        chosen = [r["events"][0] for r in kingdom]
        assert sorted(a - trix.CONTRACT_BASE for _, a in chosen) == [0, 1, 2, 3, 4]
        assert all(seat == kingdom[0]["king"] for seat, _ in chosen)
    s2 = new_game("t2.5b")
    apply(s2, contract_action("queens"))
    play_deal_first(s2)
    assert s2.kind == KIND_CONTRACT and s2.deal_index == 1  # the kingdom's second choice
    with pytest.raises(IllegalAction):
        apply(s2, contract_action("queens"))  # already chosen in this kingdom


def test_t2_6_the_five_contracts() -> None:
    assert CONTRACTS == ("king-of-hearts", "diamonds", "queens", "no-tricks", "trix")
    state = new_game("t2.6")
    assert [trix.action_event(a)["contract"] for a in state.legal] == list(CONTRACTS)


# --- T-3 Trick contracts -------------------------------------------------------------


def test_t3_1_king_leads_then_each_trick_winner_leads() -> None:
    state = new_deal(MIXED, king=2, options=NO_DOUBLING, contracts_left=only("diamonds"))
    assert state.to_move == 2 and state.kind == KIND_PLAY and not state.trick
    for _ in until_over(state):
        before = state.tricks_won.copy()
        for _ in range(4):
            apply(state, state.legal[0])
        if state.to_move < 0:
            break
        winner = next(s for s in range(4) if state.tricks_won[s] != before[s])
        assert state.to_move == winner and not state.trick


def test_t3_2_must_follow_suit_else_any_card() -> None:
    state = new_deal(MIXED, king=0, options=NO_DOUBLING, contracts_left=only("diamonds"))
    play_cards(state, ["TC"])  # seat 1 holds clubs: only clubs are legal
    assert codes_of(sum(1 << c for c in state.legal)) == ["2C", "6C", "7C"]
    with pytest.raises(IllegalAction):
        apply(state, parse_card("2D"))
    fresh = new_deal(SUITED, king=0, options=NO_DOUBLING, contracts_left=only("diamonds"))
    play_cards(fresh, ["2C"])
    assert len(fresh.legal) == 13  # seat 1 holds no club: any card


def test_t3_3_highest_card_of_the_suit_led_wins() -> None:
    state = new_deal(MIXED, king=0, options=NO_DOUBLING, contracts_left=only("diamonds"))
    play_cards(state, ["KC", "7C", "AC", "9C"])
    assert state.tricks_won == [0, 0, 1, 0]
    assert state.to_move == 2
    play_cards(state, ["9D", "QD", "KD", "TD"])  # seat 2 leads; seat 0's KD is highest
    assert state.tricks_won == [1, 0, 1, 0] and state.to_move == 0


def test_t3_4_no_heart_lead_in_king_of_hearts_unless_only_hearts() -> None:
    state = new_deal(MIXED, king=0, options=NO_DOUBLING, contracts_left=only("king-of-hearts"))
    assert not any(c // 13 == 2 for c in state.legal)  # seat 0 holds other suits
    with pytest.raises(IllegalAction):
        apply(state, parse_card("3H"))
    # Every later lead too, before any heart is played: seat 0 wins TC 2C 4C 3C.
    play_cards(state, ["TC", "2C", "4C", "3C"])
    assert state.to_move == 0 and not state.trick
    assert parse_card("3H") in trix.cards_of(state.hands[0])
    assert not any(c // 13 == 2 for c in state.legal)
    with pytest.raises(IllegalAction):
        apply(state, parse_card("3H"))
    # ... and after a heart was played (seat 3, out of clubs, discards 6H): the rule
    # knows no "hearts broken".
    play_cards(state, ["QC", "6C", "5C", "9C", "KC", "7C", "8C", "6H"])
    assert state.to_move == 0 and not any(c // 13 == 2 for c in state.legal)
    with pytest.raises(IllegalAction):
        apply(state, parse_card("3H"))
    # Other contracts do not restrict leads.
    other = new_deal(MIXED, king=0, options=NO_DOUBLING, contracts_left=only("queens"))
    assert parse_card("3H") in other.legal
    # A hand of hearts only may lead hearts.
    suited = new_deal(SUITED, king=2, options=NO_DOUBLING, contracts_left=only("king-of-hearts"))
    assert len(suited.legal) == 13 and all(c // 13 == 2 for c in suited.legal)


def test_t3_5_all_thirteen_tricks_are_played() -> None:
    # King of Hearts: seat 2 (hearts only) leads KH at once; the deal still runs 13 tricks.
    state = new_deal(SUITED, king=2, options=NO_DOUBLING, contracts_left=only("king-of-hearts"))
    play_cards(state, ["KH", "2S", "2C", "2D"])
    assert state.deal_scores == [] and state.to_move == 2
    play_deal_first(state)
    assert sum(state.tricks_won) == 13
    assert len([e for e in state.records[0]["events"] if e[1] < 52]) == 52


# --- T-4 Scoring of the trick contracts ------------------------------------------------


def test_t4_1_king_of_hearts_taker_scores_minus_75() -> None:
    state = new_deal(SUITED, king=2, options=NO_DOUBLING, contracts_left=only("king-of-hearts"))
    play_deal_first(state)
    assert state.deal_scores == [(0, 0, -75, 0)]  # seat 2 leads hearts and takes its own KH


def test_t4_2_diamonds_minus_10_each() -> None:
    state = new_deal(SUITED, king=1, options=NO_DOUBLING, contracts_left=only("diamonds"))
    play_deal_first(state)  # seat 1 leads diamonds, nobody follows: it takes all 13
    assert state.deal_scores == [(0, -130, 0, 0)]


def test_t4_3_queens_minus_25_each() -> None:
    state = new_deal(SUITED, king=0, options=NO_DOUBLING, contracts_left=only("queens"))
    play_deal_first(state)  # seat 0 takes every trick, and so every queen
    assert state.deal_scores == [(-100, 0, 0, 0)]


def test_t4_4_no_tricks_minus_15_per_trick() -> None:
    state = new_deal(SUITED, king=3, options=NO_DOUBLING, contracts_left=only("no-tricks"))
    play_deal_first(state)
    assert state.deal_scores == [(0, 0, 0, -195)]


def test_t4_5_fixed_totals_per_trick_contract() -> None:
    totals = {c: set() for c in ("king-of-hearts", "diamonds", "queens", "no-tricks")}
    for seed in range(12):
        state = new_game(f"t4.5-{seed}", NO_DOUBLING)
        finish_game(state)
        for record in state.records:
            name = CONTRACTS[record["events"][0][1] - trix.CONTRACT_BASE]
            if name in totals:
                totals[name].add(sum(record["scores"]))
    assert totals == {
        "king-of-hearts": {-75},
        "diamonds": {-130},
        "queens": {-100},
        "no-tricks": {-195},
    }


# --- T-5 Doubling ----------------------------------------------------------------------


def test_t5_1_holders_asked_in_turn_order_from_the_king() -> None:
    # Queens held by seats 3 (QD QH), 1 (QS) and 2 (QC); King is seat 2.
    deal = QUEENS_DEAL
    state = new_deal(deal, king=2, contracts_left=only("queens"))
    asked = []
    while state.kind == KIND_EXPOSE:
        asked.append((state.to_move, len(state.legal)))
        apply(state, state.legal[0])
    assert asked == [(2, 2), (3, 4), (1, 2)]  # any subset: 2^(queens held)
    assert state.kind == KIND_PLAY and state.to_move == 2
    # Cards that may not be exposed are refused.
    state = new_deal(deal, king=2, contracts_left=only("queens"))
    with pytest.raises(IllegalAction):
        apply(state, expose_action("QH"))  # seat 2 does not hold QH


def test_t5_2_exposed_cards_are_public() -> None:
    state = new_deal(SUITED, king=0, contracts_left=only("king-of-hearts"))
    assert state.to_move == 2 and state.kind == KIND_EXPOSE
    apply(state, expose_action("KH"))
    for seat in range(4):
        view = observe(state, seat)
        assert view.exposed[2] == parse_cards(["KH"])
        assert (2, expose_action("KH")) in view.events


def test_t5_3_exposed_card_taken_by_another_doubles_and_pays_the_exposer() -> None:
    # Seat 2 holds KH and other hearts; seat 0 leads a club... make seat 1 take KH.
    deal = hands(
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2H",
        "AC 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
        "KH AD 3H 4H 5H 6H 7H 8H 9H TH JH QH AH",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    )
    state = new_deal(deal, king=0, contracts_left=only("king-of-hearts"))
    apply(state, expose_action("KH"))  # seat 2 is the only holder
    # Seat 0 leads 2C; seat 1 wins with AC; seat 2 (no club) discards KH; seat 3 a spade.
    play_cards(state, ["2C", "AC", "KH", "2S"])
    play_deal_first(state)
    assert state.deal_scores == [(0, -150, 75, 0)]


def test_t5_4_exposer_taking_own_card_scores_double_and_nobody_gains() -> None:
    # W-2 is this rule's worked check; here a Queens case.
    deal = hands(
        "QC 3C 4C 5C 6C 7C 8C 9C TC JC 2C KC AC",
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    )
    state = new_deal(deal, king=0, contracts_left=only("queens"))
    apply(state, expose_action("QC"))
    for _ in range(3):
        apply(state, expose_action(""))
    play_plan(state, {0: "QC"})  # seat 0 leads QC and takes it (nobody else has clubs)
    # Seat 0 takes every trick (only clubs are led): QC doubled (-50) plus the other
    # three queens (-25 each), and no one gains.
    assert state.deal_scores == [(-125, 0, 0, 0)]


def test_t5_5_exposing_changes_no_play_restriction() -> None:
    for contract in ("king-of-hearts", "queens"):
        with_doubling = new_deal(MIXED, king=0, contracts_left=only(contract))
        while with_doubling.kind == KIND_EXPOSE:  # expose everything that may be exposed
            apply(with_doubling, with_doubling.legal[-1])
        without = new_deal(MIXED, king=0, options=NO_DOUBLING, contracts_left=only(contract))
        for _ in until_over(without):
            assert with_doubling.legal == without.legal
            apply(with_doubling, without.legal[0])
            apply(without, without.legal[0])


# --- T-6 The Trix contract -------------------------------------------------------------


def test_t6_1_rows_start_with_jacks_and_grow_one_rank() -> None:
    state = new_deal(SUITED, king=0, contracts_left=only("trix"))
    assert [card_code(c) for c in state.legal] == ["JC"]
    apply(state, parse_card("JC"))
    for expected in (["JD"], ["JH"], ["JS"]):
        assert [card_code(c) for c in state.legal] == expected
        apply(state, state.legal[0])
    assert [card_code(c) for c in state.legal] == ["TC", "QC"]
    apply(state, parse_card("QC"))
    assert state.rows >> parse_card("QC") & 1


def test_t6_2_the_king_moves_first() -> None:
    state = new_deal(SUITED, king=3, contracts_left=only("trix"))
    assert state.to_move == 3 and state.kind == KIND_PLAY


def test_t6_3_legal_cards_are_jacks_or_next_to_a_row_end() -> None:
    state = new_deal(SUITED, king=0, contracts_left=only("trix"))
    play_cards(state, ["JC", "JD", "JH", "JS", "TC", "QD"])
    # Seat 2: hearts row is J only: TH or QH.
    assert sorted(card_code(c) for c in state.legal) == ["QH", "TH"]
    with pytest.raises(IllegalAction):
        apply(state, parse_card("9H"))
    play_cards(state, ["TH", "QS"])
    assert sorted(card_code(c) for c in state.legal) == ["9C", "QC"]


def _row_playable(rows: int) -> set[int]:
    """T-6.3, computed here from the rows alone: a Jack, or next to a row's end."""
    playable = set()
    for suit in range(4):
        jack = suit * 13 + 9
        if not rows >> jack & 1:
            playable.add(jack)
            continue
        low = high = jack
        while low - 1 >= suit * 13 and rows >> (low - 1) & 1:
            low -= 1
        while high + 1 < suit * 13 + 13 and rows >> (high + 1) & 1:
            high += 1
        if low > suit * 13:
            playable.add(low - 1)
        if high < suit * 13 + 12:
            playable.add(high + 1)
    return playable


def test_t6_4_pass_only_without_a_legal_card() -> None:
    passes = 0
    for i in range(20):
        state = new_deal(trix.deal_hands("t6.4", i), king=i % 4, contracts_left=only("trix"))
        for _ in until_over(state):
            hand = set(trix.cards_of(state.hands[state.to_move]))
            can_play = hand & _row_playable(state.rows)
            if can_play:
                assert state.kind == KIND_PLAY and set(state.legal) == can_play
                with pytest.raises(IllegalAction):
                    apply(state, PASS)
            else:
                assert state.kind == KIND_PASS and state.legal == (PASS,)
                passes += 1
            apply(state, state.legal[0])
    # Each pass above was checked against _row_playable; the count pins how many the
    # 20 seeded deals of first-legal play hold (any change of deal or play moves it).
    assert passes == 279


def test_t6_5_empty_hands_are_skipped_and_three_out_ends_the_deal() -> None:
    state = new_deal(SUITED, king=2, contracts_left=only("trix"))
    turns = []
    for _ in until_over(state):
        turns.append(state.to_move)
        apply(state, state.legal[0])
    # Each seat plays its own suit every turn; nobody passes, 2 then 3 then 0 go out.
    assert turns == [2, 3, 0, 1] * 12 + [2, 3, 0]
    assert state.finished == [2, 3, 0]
    assert state.hands[1].bit_count() == 1
    # W-4's deal: seat 2 goes out early, then seat 0; the turn passes over them to the
    # next seat in turn order that still holds cards, until seat 3 goes out third.
    state = new_deal(MIXED, king=0, contracts_left=only("trix"))
    skipped = 0
    for _ in until_over(state):
        seat = state.to_move
        assert state.hands[seat], "a seat without cards is never asked"
        apply(state, state.legal[0])
        if state.to_move < 0:
            break
        nxt = next(s % 4 for s in range(seat + 1, seat + 5) if state.hands[s % 4])
        assert state.to_move == nxt
        skipped += nxt != (seat + 1) % 4
    # Seat 2 goes out (6S) and seat 0 two turns later (5S), before seat 1 moves again;
    # from then on only seats 1 and 3 hold cards, and each of the three turns left before
    # seat 3 goes out (1 passes, 3 plays 4S, 1 passes) passes over an empty seat.
    assert state.finished == [2, 0, 3] and skipped == 3


def test_t6_6_places_score_200_150_100_50() -> None:
    state = new_deal(SUITED, king=2, contracts_left=only("trix"))
    finish_game(state)
    assert state.deal_scores == [(100, 50, 200, 150)]


def test_t6_7_someone_can_always_move() -> None:
    # Over many random Trix deals a seat with cards either plays or passes, and the
    # deal ends with three seats out (no deal is ever stuck).
    from arena.cards import seeded_rng

    for i in range(40):
        state = new_deal(trix.deal_hands("t6.7", i), king=i % 4, contracts_left=only("trix"))
        rng = seeded_rng("t6.7", i)
        steps = 0
        while state.to_move >= 0:
            assert state.hands[state.to_move], "a seat without cards is never asked"
            assert state.legal
            apply(state, rng.choice(state.legal))
            steps += 1
            assert steps < 52 * 4
        assert len(state.finished) == 3


# --- T-7 End of game and ranking -------------------------------------------------------


def test_t7_1_result_is_the_sum_of_deal_scores() -> None:
    state = new_game("t7.1")
    finish_game(state)
    totals, ranks = result(state)
    assert totals == [sum(d[s] for d in state.deal_scores) for s in range(4)]
    assert ranks == [1 + sum(t > x for t in totals) for x in totals]  # T-7.2


def test_t7_2_equal_totals_share_the_better_place() -> None:
    assert trix.rank_totals([10, 5, 5, 0]) == [1, 2, 2, 4]
    assert trix.rank_totals([0, 0, 0, 0]) == [1, 1, 1, 1]
    assert trix.rank_totals([-5, 7, 7, 7]) == [4, 1, 1, 1]


def _tied_game(options: TrixOptions) -> trix.TrixState:
    """A No Tricks deal (suited hands, King seat 0) after which seat 0 has taken every
    trick and seats 1, 2 and 3 tie at the top with 0."""
    state = new_deal(SUITED, king=0, options=options, contracts_left=only("no-tricks"))
    return state


def test_t7_3_tiebreak_adds_king_of_hearts_deals_while_the_top_is_shared() -> None:
    options = parse_options({"tiebreak": "king-of-hearts", "doubling": "false"})
    # No Tricks with suited hands: the King (seat 0) takes all 13 tricks; seats 1..3 tie
    # at 0 for first place, so tie-break deals follow, each a King of Hearts deal.
    state = _tied_game(options)
    finish_game(state)
    extra = state.records[1:]
    assert 1 <= len(extra) <= 4  # the rule's bound (T-7.3)
    # After the No Tricks deal the totals are [-195, 0, 0, 0]. Extra deal 2 (King seat 0)
    # gives KH to seat 2: [-195, 0, -75, 0], seats 1 and 3 still share the top; extra
    # deal 3 (King seat 1) gives KH to seat 1: [-195, -75, -75, 0], seat 3 alone on top,
    # so the tie-break ends after exactly two extra deals.
    assert len(extra) == 2 and state.tiebreak_deals == 2
    assert state.deal_scores == [(-195, 0, 0, 0), (0, 0, -75, 0), (0, -75, 0, 0)]
    assert [r["number"] for r in extra] == list(range(2, 2 + len(extra)))
    assert [r["king"] for r in extra] == [(0 + i) % 4 for i in range(len(extra))]
    assert all(r["events"][0][1] == contract_action("king-of-hearts") for r in extra)
    # The stop, worked out here from the deal scores: the top is shared after every
    # deal but the last.
    running = [0, 0, 0, 0]
    shared = []
    for scores in state.deal_scores:
        running = [t + s for t, s in zip(running, scores, strict=True)]
        shared.append(running.count(max(running)) >= 2)
    assert shared == [True, True, False] and running == state.totals == [-195, -75, -75, 0]
    # Without the option the tie stands.
    plain = _tied_game(NO_DOUBLING)
    finish_game(plain)
    assert len(plain.records) == 1 and result(plain)[1] == [4, 1, 1, 1]


def _play_deal_keeping_the_top_shared(state: trix.TrixState, rng) -> trix.TrixState:
    """The current deal played out by random legal moves, retried (bounded) until it
    ends with the highest total still shared: the state after that deal."""
    deal = state.deal_index
    for _ in range(200):
        trial = copy.deepcopy(state)
        for _ in range(300):  # a King of Hearts deal makes at most 1 + 4 + 52 moves
            if trial.to_move < 0 or trial.deal_index != deal:
                break
            apply(trial, rng.choice(trial.legal))
        assert trial.deal_index == deal + 1
        if trial.totals.count(max(trial.totals)) >= 2:
            return trial
    pytest.fail(f"no play of deal {deal + 1} keeps the tie for first")


def test_t7_3_at_most_four_extra_deals() -> None:
    # The tie for first persists through every extra deal: after the 4th the game is
    # over and the tie stands (T-7.3), without a 5th extra deal.
    rng = random.Random("t7.3")
    options = parse_options({"tiebreak": "king-of-hearts", "doubling": "false"})
    state = _tied_game(options)
    play_deal_first(state)
    assert state.totals == [-195, 0, 0, 0]
    for extra in range(4):
        assert state.to_move >= 0, f"the game ended after {extra} extra deals, tie unbroken"
        assert state.deal_index == 1 + extra and state.contract == trix.KING_OF_HEARTS
        state = _play_deal_keeping_the_top_shared(state, rng)
    assert state.to_move < 0 and state.kind == trix.KIND_OVER
    assert len(state.records) == 5 and state.tiebreak_deals == 4
    totals, ranks = result(state)
    # The tie stands: seats 1 and 3 share first place with 0 (T-7.2's ranks, worked out
    # here from the totals).
    assert totals == [-345, 0, -150, 0]
    assert ranks == [1 + sum(t > x for t in totals) for x in totals] == [4, 1, 3, 1]


# --- T-8 What each player may know -----------------------------------------------------


def test_t8_1_observation_holds_own_hand_and_public_record_only() -> None:
    state = new_deal(MIXED, king=0, options=NO_DOUBLING, contracts_left=only("diamonds"))
    play_cards(state, ["TC", "2C"])
    view = observe(state, 1)
    assert view.hand == state.hands[1]
    as_dict = trix.view_dict(view)
    seen = (
        set(as_dict["hand"])
        | {e.get("card") for e in as_dict["events"]}
        | {t["card"] for t in as_dict["trick"]}
        | {c for cards in as_dict["exposed"] for c in cards}
        | set(as_dict["rows"])
        | {e.get("card") for e in as_dict["legal"]}
    )
    for seat in (0, 2, 3):
        assert not set(codes_of(state.hands[seat])) & seen
    assert as_dict["contract"] == "diamonds" and as_dict["king"] == 0
    assert as_dict["cards_left"] == [12, 12, 13, 13]
    assert observe(state, 2).legal == tuple(state.legal) and observe(state, 1).legal == ()


def test_t8_1_a_spectators_view_holds_no_card_of_an_unplayed_hand() -> None:
    """T-8.1 from the outside: a spectator (observe(state, PUBLIC), for watching a game
    in progress) sees the public record every seat sees, and no seat's unplayed cards
    but the exposed ones (T-5.2), at every decision of a whole game."""
    decisions = spectator_sees_no_hidden_card(GAME, "t8.1 spectator", parse_options({}))
    assert decisions > 1000


def test_t8_2_hands_as_dealt_revealed_only_after_the_deal() -> None:
    class Recorder:
        name = "recorder"
        wants_notices = True

        def __init__(self) -> None:
            self.log: list[tuple[int, bool, dict]] = []  # (deal number, is the notice, data)

        def start_game(self, start) -> None:
            pass

        def act(self, decision):
            view = trix.view_dict(decision.view)
            self.log.append((view["deal"], False, view))
            return decision.legal[0]

        def end_deal(self, seat, deal) -> None:
            self.log.append((deal["number"], True, deal))

        def end_game(self, seat, replay) -> None:
            pass

    bots = [Recorder() for _ in range(4)]
    options = parse_options({"kingdoms": 1})
    play_game(get_game("trix"), bots, "t8.2", options)
    dealt = [[codes_of(h) for h in trix.deal_hands("t8.2", i)] for i in range(5)]
    # The same game on the engine alone (every seat plays its first legal action): a seat
    # is asked exactly where it had a choice, the referee plays forced moves itself.
    asked = [[0] * 5 for _ in range(4)]  # [seat][deal]
    engine = new_game("t8.2", options)
    for _ in until_over(engine):
        if len(engine.legal) > 1:
            asked[engine.to_move][engine.deal_index] += 1
        apply(engine, engine.legal[0])
    for seat, bot in enumerate(bots):
        # At the end of each deal every seat is shown the four hands as dealt, and only
        # then: after its last decision in that deal, before its first in the next.
        assert [d["hands"] for _, notice, d in bot.log if notice] == dealt
        order = [(number, notice) for number, notice, _ in bot.log]
        expected = [(n + 1, False) for n in range(5) for _ in range(asked[seat][n])]
        assert order == sorted(expected + [(n + 1, True) for n in range(5)])
        assert all(asked[seat])  # so each deal's notice follows decisions of that deal
        # During a deal a view shows no card but the seat's own hand as dealt and the
        # cards played or exposed so far.
        for number, notice, view in bot.log:
            if notice:
                continue
            allowed = set(dealt[number - 1][seat])
            for event in view["events"]:
                allowed |= {event.get("card")} | set(event.get("cards", ()))
            shown = {key: value for key, value in view.items() if key != "options"}
            assert _card_codes_in(shown) <= allowed  # (options name a card: first_king_card)


def _card_codes_in(data) -> set[str]:
    """Every card code anywhere in JSON-like `data`."""
    if isinstance(data, str):
        return {data} & set(CARD_CODES)
    if isinstance(data, dict):
        data = list(data.values())
    if isinstance(data, (list, tuple)):
        return set().union(*map(_card_codes_in, data))
    return set()


# --- T-9 Rule options -----------------------------------------------------------------


def test_t9_options_validated_with_clear_errors() -> None:
    assert parse_options({}) == TrixOptions()
    assert parse_options({"doubling": "false", "kingdoms": "2"}) == TrixOptions(
        doubling=False, kingdoms=2
    )
    for raw, word in (
        ({"kingdoms": 5}, "kingdoms"),
        ({"doubling": "maybe"}, "doubling"),
        ({"tiebreak": "coin"}, "tiebreak"),
        ({"first_king_card": "XX"}, "first_king_card"),
        ({"trumps": "hearts"}, "trumps"),
    ):
        with pytest.raises(ConfigError, match=word):
            parse_options(raw)


def test_t9_doubling_off_asks_no_exposures() -> None:
    state = new_game("t9", NO_DOUBLING)
    for _ in until_over(state):
        assert state.kind != KIND_EXPOSE
        apply(state, state.legal[0])


def test_t9_kingdoms_option_shortens_the_game() -> None:
    state = new_game("t9k", parse_options({"kingdoms": 1}))
    finish_game(state)
    assert len(state.records) == 5 and {r["king"] for r in state.records} == {state.first_king}


def test_t9_partners_rank_teams() -> None:
    options = parse_options({"partners": True})
    state = new_game("t9p", options)
    finish_game(state)
    totals, ranks = result(state)
    team = [totals[0] + totals[2], totals[1] + totals[3]]
    expected = [1, 1] if team[0] == team[1] else ([1, 2] if team[0] > team[1] else [2, 1])
    assert ranks == [expected[0], expected[1], expected[0], expected[1]]


# --- T-10 Worked checks ---------------------------------------------------------------


def test_w1_queens_with_doubling() -> None:
    deal = QUEENS_DEAL
    state = new_deal(deal, king=0, contracts_left=only("queens"))
    play_plan(
        state,
        {0: "2H 2C 3C", 1: "QS 2S 3S", 2: "8H 2D QC", 3: "QH QD 9C"},
        exposures={1: "QS"},
    )
    events = state.records[0]["events"]
    assert [trix.action_event(a)["card"] for _, a in events if a < 52][:4] == [
        "2H",
        "QS",
        "8H",
        "QH",
    ]
    scores = state.deal_scores[0]
    assert scores[1] == 25 and scores[3] == -100
    assert scores == (0, 25, -25, -100)  # seat 2 later takes its own QC


def test_w2_king_of_hearts_exposed_and_taken_by_its_exposer() -> None:
    state = new_deal(SUITED, king=2, contracts_left=only("king-of-hearts"))
    apply(state, expose_action("KH"))
    play_plan(state, {2: "KH"})
    assert state.deal_scores == [(0, 0, -150, 0)]


def test_w3_no_tricks_five_and_eight() -> None:
    deal = hands(
        "AC KC QC JC TC 2D 3D 4D 5D 6D 7S 8S 9S",
        "7D 8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S",
        "2C 3C 4C 5C 6C 7C 8C 9C TS JS QS KS AS",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    )
    state = new_deal(deal, king=0, options=NO_DOUBLING, contracts_left=only("no-tricks"))
    play_plan(state, {0: "AC KC QC JC TC 2D", 1: "2S 3S 4S 5S 6S"})
    assert state.tricks_won == [5, 8, 0, 0]
    assert state.deal_scores == [(-75, -120, 0, 0)]


def test_w4_trix_places_by_going_out_order() -> None:
    deal = hands(
        "TC QC KC 6D 7D JD KD 3H 5H 7H AH 5S KS",
        "2C 6C 7C 2D 3D 4D 5D TD 9H JH KH 2S TS",
        "4C 5C 8C JC AC 9D AD 2H 4H TH 6S 7S JS",
        "3C 9C 8D QD 6H 8H QH 3S 4S 8S 9S QS AS",
    )
    state = new_deal(deal, king=0, contracts_left=only("trix"))
    finish_game(state)
    # Seat 1 is left holding 2S: it passed (its row ended at 4S) and seat 3 then went
    # out third with 3S, which ends the deal (T-6.5).
    assert state.finished == [2, 0, 3] and codes_of(state.hands[1]) == ["2S"]
    assert state.deal_scores == [(150, 50, 200, 100)]


def test_w5_full_game_without_doubling_sums_to_zero() -> None:
    for seed in range(10):
        state = new_game(f"w5-{seed}", NO_DOUBLING)
        finish_game(state)
        assert len(state.deal_scores) == 20
        assert sum(state.totals) == 0 == 4 * (-75 - 130 - 100 - 195 + 500)


def test_decision_kinds_are_the_four_of_the_interface() -> None:
    kinds = set()
    for seed in range(3):
        state = new_game(f"kinds-{seed}")
        for _ in until_over(state):
            kinds.add(state.kind)
            apply(state, state.legal[0])
    assert kinds == {KIND_CONTRACT, KIND_EXPOSE, KIND_PLAY, KIND_PASS}
