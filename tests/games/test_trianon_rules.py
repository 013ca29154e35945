"""One test per numbered rule of docs/rules/trianon.md, and the worked checks W-1..W-5.

Each test is named after its rule (`test_n3_2_...` is rule N-3.2) and plays hand-made
deals through `new_deal`, so that every trick's outcome can be worked out by hand.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

import pytest

from arena.bots.builtin import make_builtin
from arena.cards import CARD_CODES, card_code, codes_of, parse_card, parse_cards, shuffled_deck
from arena.errors import ArenaError, ConfigError, IllegalAction
from arena.games import trianon
from arena.games.trianon import (
    ACTIONS,
    BID_BASE,
    BID_CODES,
    DECK,
    DECK_MASK,
    GAME,
    KEEP,
    KIND_BID,
    KIND_PLAY,
    KIND_RAISE,
    PASS,
    TrianonOptions,
    apply,
    new_deal,
    new_game,
    observe,
    parse_options,
    result,
    view_dict,
)
from arena.play.referee import play_game
from tests.support.walks import spectator_sees_no_hidden_card, until_over

# --- Helpers ---------------------------------------------------------------------------

_BY_NAME = {trianon.describe_action(a): a for a in ACTIONS}  # "bid 7H", "pass", "AS", ...


def hands(*seats: str) -> tuple[int, ...]:
    """Three hands from space-separated card codes, seat 0 first."""
    return tuple(parse_cards(s.split()) for s in seats)


def suit(ranks: str, s: str) -> str:
    """`suit("6789", "C")` is "6C 7C 8C 9C"."""
    return " ".join(r + s for r in ranks)


def act(state: trianon.TrianonState, *names: str) -> None:
    """Apply actions named as `describe_action` names them: "bid 7H", "pass", "keep",
    "raise 8H", or a card code; each must be legal."""
    for name in names:
        apply(state, _BY_NAME[name])


def contract(
    deal: tuple[int, ...], declarer: int, bid: str, raise_to: str | None = None
) -> trianon.TrianonState:
    """A deal where `declarer` speaks first (its right-hand seat deals), bids `bid`, the
    other two pass, and it keeps (or raises to `raise_to`): the state at the first lead."""
    state = new_deal(deal, dealer=(declarer + 2) % 3)
    act(state, f"bid {bid}", "pass", "pass", f"raise {raise_to}" if raise_to else "keep")
    assert state.kind == KIND_PLAY and state.declarer == declarer
    return state


def all_pass(deal: tuple[int, ...], dealer: int) -> trianon.TrianonState:
    state = new_deal(deal, dealer=dealer)
    act(state, "pass", "pass", "pass")
    return state


def play_plan(state: trianon.TrianonState, priorities: Mapping[int, str]) -> None:
    """Play the deal out: each seat plays the first legal card of its priority list,
    else its first legal card."""
    order = {seat: [parse_card(c) for c in codes.split()] for seat, codes in priorities.items()}
    for _ in until_over(state):
        legal = state.legal
        apply(state, next((c for c in order.get(state.to_move, []) if c in legal), legal[0]))


def winners(state: trianon.TrianonState, *tricks: str) -> list[int]:
    """Play tricks given as "c1 c2 c3" (in playing order); the seat winning each one."""
    out = []
    for trick in tricks:
        before = list(state.tricks_won)
        act(state, *trick.split())
        out.append(next(s for s in range(3) if state.tricks_won[s] != before[s]))
    return out


def finish(state: trianon.TrianonState) -> None:
    for _ in until_over(state):
        apply(state, state.legal[0])


def codes(actions) -> list[str]:
    return [trianon.describe_action(a) for a in actions]


# Seat 0 holds the 6, 7, 8 of every suit; seat 1 the A, K, Q; seat 2 the 10, 9, J. So any
# trick in one suit compares a low card, a court card and a middle card (N-1.4, N-1.5).
LADDER = hands(
    " ".join(suit("678", s) for s in "CDHS"),
    " ".join(suit("AKQ", s) for s in "CDHS"),
    " ".join(suit("T9J", s) for s in "CDHS"),
)
LADDER_CODES = [" ".join(codes_of(h)) for h in LADDER]

# Seat 0 holds every club: seats 1 and 2 can never follow a club lead; hearts are split
# 6 8 9 10 J (seat 1) and 7 Q K A (seat 2) (N-4.2, N-4.3, W-5).
TRUMPS = hands(
    suit("6789TJQKA", "C") + " 6D 7D 8D",
    "6H 8H 9H TH JH 9D TD JD QD 6S 7S 8S",
    "7H QH KH AH KD AD 9S TS JS QS KS AS",
)

# Seat 0: every club and the three other aces; seats 1 and 2 void in clubs. In clubs or
# sans atout, whoever declares, seat 0 wins the first trick (it leads, or it holds the
# ace of the suit led) and then leads only winners: it takes all 12 tricks.
ALL_TWELVE = hands(
    suit("6789TJQKA", "C") + " AD AH AS",
    suit("6789TJQK", "H") + " " + suit("6789", "D"),
    suit("6789TJQK", "S") + " " + suit("TJQK", "D"),
)

# The same with the tens in place of the aces: the top cards in sans souci (N-1.5).
ALL_TWELVE_SS = hands(
    suit("6789TJQKA", "C") + " TD TH TS",
    suit("6789JQKA", "H") + " " + suit("6789", "D"),
    suit("6789JQKA", "S") + " " + suit("JQKA", "D"),
)

# Each seat holds one whole suit and three diamonds; seat 2 the three highest diamonds.
# The dealer, seat 1, holds the clubs (N-6.2, W-3).
TRIANON_DEAL = hands(
    suit("6789TJQKA", "H") + " 9D TD JD",
    suit("6789TJQKA", "C") + " 6D 7D 8D",
    suit("6789TJQKA", "S") + " QD KD AD",
)

# W-1: seat 0 holds 6H..KH, three low diamonds and 6S; seat 1 holds AH.
W1_DEAL = hands(
    suit("6789TJQK", "H") + " 6D 7D 8D 6S",
    "AH " + suit("6789TJQK", "C") + " 9D TD JD",
    "AC " + suit("789TJQKA", "S") + " QD KD AD",
)

# W-2: seat 0 holds every club and 6D 7D 8D; seat 1 the hearts and 9D TD JD.
W2_DEAL = hands(
    suit("6789TJQKA", "C") + " 6D 7D 8D",
    suit("6789TJQKA", "H") + " 9D TD JD",
    suit("6789TJQKA", "S") + " QD KD AD",
)


# --- N-1 Table and cards ---------------------------------------------------------------


def test_n1_1_exactly_three_seats() -> None:
    assert GAME.seats == 3 and GAME.name == "trianon"
    assert len(new_game("s").hands) == 3
    with pytest.raises(ArenaError, match="needs 3 players"):
        play_game(GAME, [make_builtin("first")] * 4, "s", TrianonOptions())
    with pytest.raises(ConfigError):
        new_deal(LADDER + (0,), dealer=0)
    replay = play_game(GAME, [make_builtin("random") for _ in range(3)], "s", TrianonOptions())
    assert all(len(d["hands"]) == 3 for d in replay.replay["deals"])
    assert len(replay.totals) == 3


def test_n1_2_turn_order_goes_to_the_next_seat() -> None:
    state = new_deal(LADDER, dealer=2)
    seen = []
    for name in ("bid 4C", "bid 4S", "bid 4D", "bid 4H"):
        seen.append(state.to_move)
        act(state, name)
    assert seen == [0, 1, 2, 0]
    act(state, "pass", "pass", "keep")  # seats 1 and 2 pass: seat 0 declares 4H
    for _ in range(4):  # four tricks: within each, the seats follow in turn order
        leader = state.to_move
        order = []
        for _ in range(3):
            order.append(state.to_move)
            apply(state, state.legal[0])
        assert order == [leader, (leader + 1) % 3, (leader + 2) % 3]


def test_n1_3_a_36_card_deck() -> None:
    assert [card_code(c) for c in DECK] == [r + s for s in "CDHS" for r in "6789TJQKA"]
    assert DECK_MASK.bit_count() == 36
    for i in range(5):
        dealt = trianon.deal_hands(f"n1.3-{i}", 0)
        assert dealt[0] | dealt[1] | dealt[2] == DECK_MASK
        assert all(h.bit_count() == 12 for h in dealt)
    with pytest.raises(IllegalAction):
        trianon.parse_event({"type": "play", "card": "5C"})  # not a Trianon card
    with pytest.raises(ConfigError):  # a hand with a two in it is not a Trianon hand
        new_deal(hands("2C " + LADDER_CODES[0][3:], LADDER_CODES[1], LADDER_CODES[2]), 0)


def test_n1_4_normal_rank_order_trumps_included() -> None:
    # Sans atout by seat 2: seat 0 leads. A beats 10 beats 6; K beats 10 beats 8.
    state = contract(LADDER, 2, "4NT")
    assert winners(state, "6S AS TS", "KD TD 8D") == [1, 1]
    # Hearts trumps: the same order within the trump suit, A above 10 above 6.
    state = contract(LADDER, 2, "4H")
    assert winners(state, "6H AH TH") == [1]
    # Seat 1 leads on: Q above J above 7, then K above 9 above 8.
    assert winners(state, "QC JC 7C", "KS 9S 8S") == [1, 1]


def test_n1_5_sans_souci_rank_order() -> None:
    # 10 9 8 7 6 A K Q J, high to low.
    state = contract(LADDER, 2, "4SS")  # seat 0 leads
    assert winners(
        state,
        "6S AS JS",  # 6 > A > J: seat 0
        "7D KD 9D",  # 9 > 7 > K: seat 2
        "TC 8C AC",  # 10 > 8 > A: seat 2
        "JH 6H QH",  # 6 > Q > J: seat 0
        "8S KS 9S",  # 9 > 8 > K: seat 2
    ) == [0, 2, 2, 0, 2]
    order = sorted(range(4, 13), key=lambda r: trianon.SANS_SOUCI_KEY[r], reverse=True)
    assert "".join("23456789TJQKA"[r] for r in order) == "T9876AKQJ"


# --- N-2 Deals -------------------------------------------------------------------------


def test_n2_1_deals_depend_only_on_seed_and_index() -> None:
    deal = trianon.deal_hands.__wrapped__
    first = deal("seed-a", 3)
    assert first == deal("seed-a", 3)
    assert first != deal("seed-a", 4) and first != deal("seed-b", 3)
    # Seat s gets positions 12s..12s+11 of the shuffle of the 36-card deck.
    order = shuffled_deck("trianon", "seed-a", 3, 36)
    assert sorted(order) == list(range(36))
    for s in range(3):
        assert first[s] == sum(1 << DECK[p] for p in order[12 * s : 12 * s + 12])
    # Whatever is played, the same seed deals every seat the same hands.
    a = new_game("same", parse_options({"max_deals": 3, "target": 10**6}))
    finish(a)
    replay = play_game(GAME, [make_builtin("random") for _ in range(3)], "same", a.options).replay
    assert [tuple(parse_cards(h) for h in d["hands"]) for d in replay["deals"]] == [
        r["hands"] for r in a.records
    ]


def test_n2_2_seat_0_deals_first_then_the_next_seat() -> None:
    state = new_game("n2.2", parse_options({"max_deals": 7, "target": 10**6}))
    first_speakers = []
    for _ in until_over(state):
        if not state.events:
            first_speakers.append(state.to_move)
        apply(state, state.legal[0])
    assert [r["dealer"] for r in state.records] == [0, 1, 2, 0, 1, 2, 0]
    assert first_speakers == [1, 2, 0, 1, 2, 0, 1]


# --- N-3 Bidding -----------------------------------------------------------------------


def test_n3_1_bids_are_4_to_12_tricks_and_a_strain() -> None:
    assert len(BID_CODES) == 54
    assert BID_CODES[:6] == ("4C", "4S", "4D", "4H", "4SS", "4NT")
    assert BID_CODES[-1] == "12NT"
    state = new_deal(LADDER, dealer=0)
    assert state.kind == KIND_BID
    strains = ("C", "S", "D", "H", "SS", "NT")  # low to high
    assert codes(state.legal) == ["pass"] + [f"bid {n}{s}" for n in range(4, 13) for s in strains]
    for bad in ("3C", "13NT", "7X", "7", "H7", "", None):
        with pytest.raises(IllegalAction):
            trianon.parse_event({"type": "bid", "bid": bad})
    # The strain names the trump: a suit, or none in sans souci and sans atout.
    trumps = {bid: contract(LADDER, 0, bid).trump for bid in ("4C", "4S", "4D", "4H", "4SS")}
    assert trumps == {"4C": 0, "4S": 3, "4D": 1, "4H": 2, "4SS": -1}
    assert contract(LADDER, 0, "4NT").trump == -1


def test_n3_2_higher_number_or_same_number_and_higher_strain() -> None:
    state = new_deal(LADDER, dealer=2)
    act(state, "bid 4C", "bid 7SS")
    legal = codes(state.legal)
    assert legal[:4] == ["pass", "bid 7NT", "bid 8C", "bid 8S"]  # 8S > 7SS
    assert "bid 7H" not in legal and "bid 7SS" not in legal
    with pytest.raises(IllegalAction):
        act(state, "bid 7H")
    act(state, "bid 8S")
    assert codes(state.legal)[1] == "bid 8D"
    assert BID_CODES.index("8S") > BID_CODES.index("7SS") > BID_CODES.index("4C")


def test_n3_3_dealers_left_speaks_first_passers_are_skipped() -> None:
    state = new_deal(LADDER, dealer=0)
    speakers = []
    for name in ("bid 4C", "pass", "bid 4S", "bid 5C", "bid 5S", "pass"):
        speakers.append(state.to_move)
        assert state.legal[0] == PASS  # each may pass ...
        assert state.legal[1:] == tuple(range(BID_BASE + state.high + 1, BID_BASE + 54))
        act(state, name)  # ... or bid higher than the highest so far
    # Seat 2 passed at once and was never asked again; seat 1 bid, then passed.
    assert speakers == [1, 2, 0, 1, 0, 1]
    assert state.kind == KIND_RAISE and state.to_move == 0


def test_n3_4_two_passed_and_the_third_bid_declares_and_may_raise_once() -> None:
    # The first speaker bids, the others pass: it declares at once and decides once.
    state = new_deal(LADDER, dealer=2)
    act(state, "bid 7H", "pass", "pass")
    assert state.kind == KIND_RAISE and state.to_move == 0 == state.declarer
    assert codes(state.legal)[:4] == ["keep", "raise 7SS", "raise 7NT", "raise 8C"]
    assert len(state.legal) == 1 + 54 - BID_CODES.index("7SS")
    with pytest.raises(IllegalAction):
        act(state, "raise 7H")  # not higher than its own bid
    act(state, "raise 8H")
    assert state.kind == KIND_PLAY and BID_CODES[state.contract] == "8H"
    assert [e["type"] for e in trianon.deal_record(state, 0)["events"]] == [
        "bid", "pass", "pass", "raise",
    ]  # fmt: skip
    # The first two pass: the third may still bid, and then declares at once.
    state = new_deal(LADDER, dealer=2)
    act(state, "pass", "pass", "bid 5D")
    assert state.kind == KIND_RAISE and state.declarer == 2 == state.to_move
    act(state, "keep")
    assert BID_CODES[state.contract] == "5D" and state.kind == KIND_PLAY
    # A bid that was overcalled, then a pass: the last bidder declares its last bid.
    state = new_deal(LADDER, dealer=0)
    act(state, "bid 4C", "bid 5C", "pass", "pass")
    assert state.declarer == 2 and state.kind == KIND_RAISE
    act(state, "keep")
    assert BID_CODES[state.contract] == "5C"
    # 12NT: the others may only pass, and the declarer may only keep.
    state = new_deal(LADDER, dealer=1)
    act(state, "bid 12NT")
    assert state.legal == (PASS,)
    act(state, "pass")
    assert state.legal == (PASS,)
    act(state, "pass")
    assert state.kind == KIND_RAISE and state.legal == (KEEP,)


def test_n3_5_all_three_pass_is_a_trianon() -> None:
    state = new_deal(LADDER, dealer=1)
    act(state, "pass", "pass")
    assert state.to_move == 1 and len(state.legal) == 55  # the dealer may still bid
    act(state, "pass")
    assert state.kind == KIND_PLAY and state.to_move == 1  # N-6.1: the dealer leads
    assert state.declarer == -1 and state.contract == -1 and state.trump == -1
    assert state.events == [(2, PASS), (0, PASS), (1, PASS)]  # no keep, no raise
    finish(state)
    assert trianon.deal_contract(trianon.deal_record(state, 0)) == "trianon"


# --- N-4 Play --------------------------------------------------------------------------


def test_n4_1_left_of_declarer_leads_then_each_trick_winner() -> None:
    for declarer in range(3):
        state = contract(LADDER, declarer, "4NT")
        assert state.to_move == (declarer + 1) % 3 and not state.trick
        for _ in until_over(state):
            before = list(state.tricks_won)
            for _ in range(3):
                apply(state, state.legal[-1])
            if state.to_move < 0:
                break
            winner = next(s for s in range(3) if state.tricks_won[s] != before[s])
            assert state.to_move == winner and not state.trick


def test_n4_2_follow_suit_else_any_card_no_duty_to_trump() -> None:
    state = contract(TRUMPS, 2, "4H")  # hearts trumps; seat 0 leads
    act(state, "AC")
    assert state.legal == tuple(trianon.cards_of(state.hands[1]))  # void in clubs: any card
    assert len(state.legal) == 12
    act(state, "9D")  # no duty to trump
    assert len(state.legal) == 12
    act(state, "AS")  # nor to overtrump or to win
    assert state.tricks_won == [1, 0, 0] and state.to_move == 0
    act(state, "6D")
    assert codes(state.legal) == ["TD", "JD", "QD"]  # holds diamonds: must follow
    with pytest.raises(IllegalAction):
        act(state, "6H")
    act(state, "TD")
    assert codes(state.legal) == ["KD", "AD"]


def test_n4_3_highest_trump_else_highest_card_of_the_suit_led() -> None:
    state = contract(TRUMPS, 2, "4H")  # hearts trumps; seat 0 leads
    assert winners(
        state,
        "AC TH 7H",  # two trumps on a club lead: the higher trump, seat 1
        "6S 9S KC",  # no trump: the highest spade, not the higher club (seat 2)
        "KD 6D 9D",  # seat 2 leads diamonds and wins with the king
    ) == [1, 2, 2]
    for no_trump in ("4NT", "4SS"):  # no trump suit: a heart on a club lead never wins
        state = contract(TRUMPS, 2, no_trump)
        assert winners(state, "AC JH AH") == [0]
        assert state.trump == -1


def test_n4_4_all_twelve_tricks_are_played() -> None:
    state = contract(ALL_TWELVE, 0, "4C")
    for _ in range(12):  # four tricks make the contract; play goes on to twelve
        apply(state, state.legal[0])
    assert state.tricks_won[0] == 4 and state.kind == KIND_PLAY and not state.deal_scores
    finish(state)
    assert sum(state.tricks_won) == 12 and state.tricks_won[0] == 12
    assert len([a for _, a in state.records[0]["events"] if a < 52]) == 36


# --- N-5 Scoring a contract ------------------------------------------------------------


W1_PLAN = {0: "6D 6S 6H 7H 8H 9H TH JH QH KH 7D 8D", 1: "JD AH 6C", 2: "QD 7S AC 8S"}


def test_n5_1_made_when_taking_at_least_the_bid() -> None:
    outcomes = {}
    for bid in ("7H", "8H", "9H"):
        state = contract(W1_DEAL, 0, bid)
        play_plan(state, W1_PLAN)
        assert state.tricks_won[0] == 8
        outcomes[bid] = state.deal_scores[0]
    assert outcomes == {"7H": (90, 0, 0), "8H": (120, 0, 0), "9H": (0, 40, 40)}


def test_n5_2_made_scores_30_per_trick_bid_above_four_40_in_sans() -> None:
    scores = {}
    for bid in ("4C", "5C", "7C", "12C", "4NT", "7NT", "12NT"):
        state = contract(ALL_TWELVE, 0, bid)
        finish(state)
        assert state.tricks_won[0] == 12  # overtricks score nothing
        scores[bid] = state.deal_scores[0][0]
    state = contract(ALL_TWELVE_SS, 0, "7SS")
    finish(state)
    assert state.tricks_won[0] == 12
    scores["7SS"] = state.deal_scores[0][0]
    assert scores == {
        "4C": 0, "5C": 30, "7C": 90, "12C": 240, "4NT": 0, "7NT": 120, "12NT": 320, "7SS": 120,
    }  # fmt: skip


def test_n5_3_failed_defenders_score_40_per_trick_short_50_in_sans() -> None:
    # Seat 1 declares; seat 0 takes all twelve tricks.
    cases = {"5C": ALL_TWELVE, "5NT": ALL_TWELVE, "5SS": ALL_TWELVE_SS, "12NT": ALL_TWELVE}
    scores = {}
    for bid, deal in cases.items():
        state = contract(deal, 1, bid)
        finish(state)
        assert state.tricks_won == [12, 0, 0]
        scores[bid] = state.deal_scores[0]
    assert scores == {
        "5C": (200, 0, 200), "5NT": (250, 0, 250), "5SS": (250, 0, 250), "12NT": (600, 0, 600),
    }  # fmt: skip


# --- N-6 The Trianon -------------------------------------------------------------------


def test_n6_1_trianon_dealer_leads_no_trump_normal_order() -> None:
    state = all_pass(TRIANON_DEAL, dealer=1)
    assert state.to_move == 1
    assert winners(state, "6C AS AH") == [1]  # no trump: only clubs can win a club lead
    state = all_pass(LADDER, dealer=0)
    assert state.to_move == 0
    assert winners(state, "6S AS TS") == [1]  # normal order: the ace, not the ten
    finish(state)
    assert sum(state.tricks_won) == 12


def trianon_plan(clubs_first: int) -> trianon.TrianonState:
    """TRIANON_DEAL with dealer 1: seat 1 leads `clubs_first` clubs (it wins each), then
    6D (seat 2 wins with a higher diamond), and seat 2 then wins every trick it leads.
    Seat 0 never wins: tricks are (0, clubs_first, 12 - clubs_first)."""
    state = all_pass(TRIANON_DEAL, dealer=1)
    play_plan(
        state,
        {
            0: "6H 7H 8H 9H TH",
            1: " ".join(suit("6789T"[:clubs_first], "C").split() + ["6D"]),
            2: "QD KD 6S 7S 8S",
        },
    )
    return state


def test_n6_2_trianon_scores_by_own_tricks() -> None:
    seen = {}
    for k in range(6):
        state = trianon_plan(k)
        assert state.tricks_won == [0, k, 12 - k]
        seen[k] = state.deal_scores[0]
    assert seen == {
        0: (150, 150, 0),
        1: (150, 105, 0),
        2: (150, 70, 0),
        3: (150, 35, 0),
        4: (150, 0, 0),
        5: (150, 0, 0),
    }
    assert trianon.score_trianon([4, 4, 4]) == [0, 0, 0]


# --- N-7 End of game -------------------------------------------------------------------


def test_n7_1_ends_after_the_deal_in_which_a_seat_reaches_the_target() -> None:
    assert parse_options({}).target == 500
    exact = []
    for seed in range(12):
        options = parse_options({"target": 150, "max_deals": 50})
        state = new_game(f"n7.1-{seed}", options)
        finish(state)
        totals = [0, 0, 0]
        for scores in state.deal_scores[:-1]:
            totals = [t + s for t, s in zip(totals, scores, strict=True)]
            assert max(totals) < 150, "the game went on after a seat reached the target"
        assert max(state.totals) >= 150 and len(state.deal_scores) < 50
        if max(state.totals) == 150:
            exact.append(seed)
    # Reaching the target exactly ends the game too: these seeds' games end on 150.
    assert exact == [1, 4, 6, 7]


def test_n7_2_ranked_by_total_equal_totals_share_a_place() -> None:
    assert trianon.rank_totals([10, 5, 5]) == [1, 2, 2]
    assert trianon.rank_totals([0, 0, 0]) == [1, 1, 1]
    assert trianon.rank_totals([5, 7, 7]) == [3, 1, 1]
    assert trianon.rank_totals([5, 7, 6]) == [3, 1, 2]
    state = trianon_plan(5)  # W-3: 150, 0, 0
    assert result(state) == ([150, 0, 0], [1, 2, 2])
    state = trianon_plan(1)
    assert result(state) == ([150, 105, 0], [1, 2, 3])


def test_n7_3_max_deals_ends_the_game() -> None:
    assert parse_options({}).max_deals == 200
    state = new_game("n7.3", parse_options({"max_deals": 3, "target": 10**9}))
    finish(state)
    assert len(state.deal_scores) == 3 and state.to_move == -1
    totals, ranks = result(state)
    assert totals == [sum(d[s] for d in state.deal_scores) for s in range(3)]
    assert ranks == trianon.rank_totals(totals)


# --- N-8 What each player may know -----------------------------------------------------


def test_n8_1_observation_holds_own_hand_and_the_public_record_only() -> None:
    state = new_deal(TRUMPS, dealer=1)
    view = view_dict(observe(state, 0))  # during the bidding
    assert (view["declarer"], view["bid"], view["trump"], view["legal"]) == (-1, "", "", [])
    assert view_dict(observe(state, 2))["legal"][0] == {"type": "pass"}
    act(state, "bid 4D", "bid 4H", "pass", "pass", "keep", "9D", "KD")
    view = observe(state, 2)
    assert view.hand == state.hands[2]
    as_dict = view_dict(view)
    assert list(as_dict) == [
        "seat", "deal", "dealer", "declarer", "bid", "trump", "hand", "events", "trick",
        "tricks_won", "cards_left", "deal_scores", "totals", "to_move", "kind", "legal",
        "options",
    ]  # fmt: skip
    assert as_dict["events"][:5] == [
        {"seat": 2, "type": "bid", "bid": "4D"},
        {"seat": 0, "type": "bid", "bid": "4H"},
        {"seat": 1, "type": "pass"},
        {"seat": 2, "type": "pass"},
        {"seat": 0, "type": "keep"},
    ]
    assert (as_dict["declarer"], as_dict["bid"], as_dict["trump"]) == (0, "4H", "H")
    assert as_dict["trick"] == [{"seat": 1, "card": "9D"}, {"seat": 2, "card": "KD"}]
    assert as_dict["cards_left"] == [12, 11, 11] and as_dict["tricks_won"] == [0, 0, 0]
    assert (as_dict["dealer"], as_dict["deal"], as_dict["to_move"]) == (1, 1, 0)
    assert as_dict["totals"] == [0, 0, 0] and as_dict["deal_scores"] == []
    assert as_dict["options"] == {"target": 500, "max_deals": 200}
    seen = (
        set(as_dict["hand"])
        | {e.get("card") for e in as_dict["events"]}
        | {t["card"] for t in as_dict["trick"]}
        | {e.get("card") for e in as_dict["legal"]}
    )
    for other in (0, 1):
        assert not set(codes_of(state.hands[other])) & seen
    assert observe(state, 0).legal == state.legal and observe(state, 2).legal == ()
    # Never a future deal: later deals come from the seed, and the view does not depend
    # on it (a game whose later deals all differ gives the same view).
    game = new_game("n8.1")
    twin = copy.deepcopy(game)
    twin.seed = "another seed"
    assert trianon.deal_hands(twin.seed, 1) != trianon.deal_hands(game.seed, 1)
    for seat in range(3):
        assert observe(twin, seat) == observe(game, seat)


def test_n8_1_a_spectators_view_holds_no_card_of_an_unplayed_hand() -> None:
    """N-8.1 from the outside: a spectator (observe(state, PUBLIC), for watching a game
    in progress) sees the public record every seat sees, and no seat's unplayed cards,
    at every decision of a whole game."""
    decisions = spectator_sees_no_hidden_card(GAME, "n8.1 spectator", parse_options({}))
    assert decisions > 50


# --- N-9 Rule options ------------------------------------------------------------------


def test_n9_options_validated_with_clear_errors() -> None:
    assert parse_options({}) == TrianonOptions() == TrianonOptions(500, 200)
    assert parse_options(None) == TrianonOptions()
    assert parse_options({"target": "300", "max_deals": 7}) == TrianonOptions(300, 7)
    for raw, word in (
        ({"target": 0}, "target"),
        ({"target": -5}, "target"),
        ({"target": "many"}, "target"),
        ({"target": True}, "target"),
        ({"max_deals": 2.5}, "max_deals"),
        ({"max_deals": "0"}, "max_deals"),
        ({"max_deals": None}, "max_deals"),
        ({"kingdoms": 2}, "kingdoms"),
    ):
        with pytest.raises(ConfigError, match=word):
            parse_options(raw)
    assert trianon.options_dict(parse_options({"target": 9})) == {"target": 9, "max_deals": 200}


# --- N-10 Worked checks ----------------------------------------------------------------


def test_w1_seven_hearts_eight_tricks() -> None:
    state = contract(W1_DEAL, 0, "7H")
    play_plan(state, W1_PLAN)
    # Seat 2 wins JD's trick with QD and leads 7S; seat 1, void in spades, trumps with AH
    # over seat 0's 6S. Seat 0 trumps seat 1's club lead with 6H and leads its seven
    # other hearts: eight tricks. Its 7D and 8D lose to seat 1's diamonds.
    assert state.tricks_won == [8, 3, 1]
    assert state.deal_scores == [(90, 0, 0)]


def test_w2_six_sans_souci_four_tricks() -> None:
    state = contract(W2_DEAL, 0, "6SS")  # seat 1 leads
    play_plan(
        state,
        {
            # Seat 1 leads seven hearts, then JD, which seat 0's 6D beats (6 > Q > J).
            0: "6C 7C 8C 9C TC JC 8D 6D QC KC AC 7D",
            1: "6H 7H 8H 9H TH JH QH JD KH AH",
            2: "6S 7S 8S 9S TS JS QS QD KD AD",
        },
    )
    # Seat 0 wins JD's trick and three club leads, then leads 7D into seat 1's 9D.
    assert state.tricks_won == [4, 8, 0]
    assert state.deal_scores == [(0, 100, 100)]


def test_w3_trianon_0_5_7() -> None:
    state = trianon_plan(5)
    assert state.tricks_won == [0, 5, 7]
    assert state.deal_scores == [(150, 0, 0)]


def test_w4_sans_souci_spades_led_6s_as_ts() -> None:
    state = contract(LADDER, 2, "4SS")  # seat 0 leads
    assert winners(state, "6S AS TS") == [2]  # TS
    assert state.records[0]["events"][-3:] == [
        (0, parse_card("6S")), (1, parse_card("AS")), (2, parse_card("TS")),
    ]  # fmt: skip


def test_w5_hearts_trumps_clubs_led_ac_6h_7h() -> None:
    state = contract(TRUMPS, 2, "4H")  # seat 0 leads
    assert winners(state, "AC 6H 7H") == [2]  # 7H
    assert CARD_CODES[state.records[0]["events"][-1][1]] == "7H"
