"""Fast playout policies on full-information engine states, to the end of the deal.

A playout is the inner loop of the search: it plays every seat of a sampled deal with
a cheap rule of thumb, through the engine's `apply_legal` (the SDK's fast level,
`arena.sdk.fast`; every choice is taken from `state.legal`, so it is legal by
construction), until the deal is scored. The rules
read the state's own fields (hands, trick, rows), which is fair: the state is one of
the sampler's guesses, never the referee's. They are the usual table advice, kept to a
few bit operations per move, since a decision runs a few hundred playouts:

- Trix trick contracts: duck under the winning card with the highest card that still
  loses, dropping an own penalty card when it can; when it must win, win high if last
  to play; when void, throw penalty cards, then high cards; lead a sure loser (the
  worst one first), else low, never a penalty card when there is a choice. "Sure to
  lose" reads the other hands, as a full-information state allows: a later seat that
  must follow suit holds only higher cards of it (T-3.2).
- Trix contract: lay the card that opens the way to most of one's own cards, the next
  one above all, and opens least to the others (the greedy bot's weights).
- Trianon contracts: leave a trick the own side holds unless the last player can
  take it; else win it with the cheapest card the last player cannot beat (trumping
  when void), or play low; lead masters (the declarer its master trumps first), else
  a low side card.
- Trianon round: as No Tricks.
- Trianon bidding (only in the search's "what if I pass" playouts): the bid of most
  value that `trick_estimates` reaches, or pass.

A little noise in the choices keeps the playouts from all taking one line.
"""

from __future__ import annotations

from collections.abc import Callable

from arena.sdk.estimates import trick_estimates
from arena.sdk.fast import trianon, trix
from arena.sdk.fast.cards import JACK, QUEEN, SUIT_MASK, cards_of

_TRIX_APPLY = trix.apply_legal
_TRIANON_APPLY = trianon.apply_legal

KH = trix.KH
KH_BIT = trix.KH_BIT
QUEENS = trix.QUEENS_MASK
DIAMONDS = trix.DIAMONDS_MASK
HEARTS = trix.HEARTS_MASK


def _penalties(contract: int, exposed: list[int]) -> tuple[int, ...]:
    """What taking each card costs in a trick contract (T-4, T-5.3 doubles it)."""
    out = [0] * 52
    if contract == trix.KING_OF_HEARTS:
        out[KH] = 75
    elif contract == trix.QUEENS:
        for s in range(4):
            out[s * 13 + QUEEN] = 25
    elif contract == trix.DIAMONDS_C:
        for r in range(13):
            out[13 + r] = 10
    for mask in exposed:
        for card in cards_of(mask):
            out[card] *= 2
    return tuple(out)


def trix_expose(state: trix.TrixState) -> int:
    """Expose only well-guarded cards (the usual advice): the KH with four hearts or a
    short side suit to throw it on; a queen with two smaller cards of its suit."""
    seat = state.to_move
    hand = state.hands[seat]
    legal = state.legal
    if state.contract == trix.KING_OF_HEARTS:
        hearts = (hand & HEARTS).bit_count()
        shortest = min((hand & SUIT_MASK[s]).bit_count() for s in (0, 1, 3))
        if hearts >= 4 or shortest == 0 or (hearts == 3 and shortest <= 2):
            return legal[-1]
        return legal[0]
    wanted = 0
    for s in range(4):
        q = s * 13 + QUEEN
        if hand >> q & 1 and (hand & ((1 << q) - 1) & SUIT_MASK[s]).bit_count() >= 2:
            wanted |= 1 << q
    return trix.EXPOSE_BASE | wanted


def _floor(hands: list[int], seat: int, suit: int, after: int) -> int:
    """The lowest card of `suit` that the `after` seats playing after `seat` surely put
    above it: a seat holding the suit must follow (T-3.2), with at least its lowest
    card of it, so any lower card of ours loses the trick for sure. -1 if none."""
    floor = -1
    mask = SUIT_MASK[suit]
    for _ in range(after):
        seat = _NEXT[seat]
        held = hands[seat] & mask
        if held:
            low = (held & -held).bit_length() - 1
            if low > floor:
                floor = low
    return floor


_NEXT = (1, 2, 3, 0)


def trick_card(
    state: trix.TrixState, legal: tuple[int, ...], pen: tuple[int, ...], rnd: Callable[[], float]
) -> int:
    """A card in a trick contract (see the module docstring). The state holds every
    hand, so "this card surely loses" is known: a later seat that must follow suit
    with higher cards only."""
    trick = state.trick
    seat = state.to_move
    hands = state.hands
    if not trick:  # lead a sure loser, the worst first; else low, never a penalty card
        floors = [-2, -2, -2, -2]
        best_card = legal[0]
        best = 1e9
        for c in legal:
            suit = c // 13
            if floors[suit] == -2:
                floors[suit] = _floor(hands, seat, suit, 3)
            if c < floors[suit]:
                v = -100 * pen[c] - c % 13 + rnd()
            else:
                v = 100 + c % 13 + 20 * pen[c] + 3 * rnd()
            if v < best:
                best, best_card = v, c
        return best_card
    led = state.led
    if legal[0] // 13 == led:  # follow suit
        top = -1
        for _, c in trick:
            if c // 13 == led and c > top:
                top = c
        top = max(top, _floor(hands, seat, led, 3 - len(trick)))
        below = [c for c in legal if c < top]
        if below:  # duck: an own penalty card first, else the highest that loses
            return (
                max(below, key=pen.__getitem__)
                if pen[below[-1]] < max(pen[c] for c in below)
                else below[-1]
            )
        if len(trick) == 3:  # last to play and winning anyway: win high, cheaply
            safe = [c for c in legal if not pen[c]]
            return safe[-1] if safe else legal[-1]
        return legal[0]
    # void: shed the worst card, penalty cards first
    best_card = legal[0]
    best = -1.0
    for c in legal:
        v = 100 * pen[c] + c % 13 + rnd()
        if v > best:
            best, best_card = v, c
    return best_card


def _row_tables() -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per card: (the row's cards it leads on to as a 13-bit rank mask, the next one(s)
    as a mask), for T-6.3: a Jack leads both ways, a card above it up, below it down."""
    out = []
    for card in range(52):
        r = card % 13
        if r == JACK:
            beyond, nxt = 0x1FFF & ~(1 << r), (1 << (r + 1)) | (1 << (r - 1))
        elif r > JACK:
            beyond, nxt = (0x1FFF >> (r + 1)) << (r + 1), (1 << (r + 1)) if r < 12 else 0
        else:
            beyond, nxt = (1 << r) - 1, (1 << (r - 1)) if r > 0 else 0
        out.append((beyond, nxt))
    return tuple(out)


_ROW_BEYOND = _row_tables()
_ROW_NOISE = 0.5  # ties broken at random; more noise measured no better


def row_card(state: trix.TrixState, legal: tuple[int, ...], rnd: Callable[[], float]) -> int:
    """T-6.3: lay the card that opens the way to most of one's own cards, the next one
    above all, and least to the others' (a card that opens nothing of ours can wait:
    it stays playable, and keeps the cards beyond it blocked)."""
    hand = state.hands[state.to_move]
    best_card = legal[0]
    best = -1e9
    for c in legal:
        beyond, nxt = _ROW_BEYOND[c]
        row = hand >> (13 * (c // 13)) & 0x1FFF
        ours = (row & beyond).bit_count()
        theirs = beyond.bit_count() - ours
        mine_next = (row & nxt).bit_count()
        gifts = nxt.bit_count() - mine_next
        v = 10 * ours + mine_next - 3 * gifts - 0.6 * theirs + _ROW_NOISE * rnd()
        if c % 13 == JACK and ours:
            v += 5
        if v > best:
            best, best_card = v, c
    return best_card


def play_trix_deal(state: trix.TrixState, rnd: Callable[[], float]) -> tuple[int, ...]:
    """Play the rest of the current Trix deal with the policy; its scores."""
    deal = state.deal_index
    apply = _TRIX_APPLY
    pen: tuple[int, ...] | None = None
    while state.deal_index == deal and state.to_move >= 0:
        legal = state.legal
        if len(legal) == 1:
            apply(state, legal[0])
            continue
        kind = state.kind
        if kind == "play":
            if state.contract == trix.TRIX:
                apply(state, row_card(state, legal, rnd))
            else:
                if pen is None:
                    pen = _penalties(state.contract, state.exposed)
                apply(state, trick_card(state, legal, pen, rnd))
        elif kind == "expose":
            apply(state, trix_expose(state))
        else:  # a contract choice: only at the root, but keep playouts total
            apply(state, legal[int(rnd() * len(legal))])
    return state.deal_scores[deal]


# --------------------------------------------------------------------------- Trianon


def _winner(state: trianon.TrianonState) -> tuple[int, int]:
    trick = state.trick
    key = state.rank_key
    trump = state.trump
    seat, best = trick[0]
    suit = best // 13
    for s, c in trick[1:]:
        cs = c // 13
        if cs == suit:
            if key[c] > key[best]:
                seat, best = s, c
        elif cs == trump:
            seat, best, suit = s, c, trump
    return seat, best


def trianon_card(
    state: trianon.TrianonState, legal: tuple[int, ...], rnd: Callable[[], float]
) -> int:
    seat = state.to_move
    key = state.rank_key
    trick = state.trick
    declarer = state.declarer
    if declarer < 0:  # N-6: a Trianon round, every trick costs
        if not trick:
            return min(legal, key=lambda c: key[c] % 13 + 2 * rnd())
        _, best = _winner(state)
        led = state.led
        if legal[0] // 13 == led:
            below = [c for c in legal if key[c] < key[best]]
            if below:
                return max(below, key=key.__getitem__)
            if len(trick) == 2:
                return max(legal, key=key.__getitem__)
            return min(legal, key=key.__getitem__)
        return max(legal, key=lambda c: key[c] % 13 + rnd())
    trump = state.trump
    hands = state.hands
    if not trick:
        others = 0
        for s in range(3):
            if s != seat:
                others |= hands[s]
        masters = []
        for c in legal:
            higher = False
            for o in cards_of(others & SUIT_MASK[c // 13]):
                if key[o] > key[c]:
                    higher = True
                    break
            if not higher:
                masters.append(c)
        if masters:  # trumps first while the others hold some, to keep side winners
            if trump >= 0 and others & SUIT_MASK[trump]:
                trumps = [c for c in masters if c // 13 == trump]
                if trumps and seat == declarer:
                    return trumps[0]
            return masters[int(rnd() * len(masters))]
        return min(legal, key=lambda c: (c // 13 == trump, key[c] % 13 + 3 * rnd()))
    wseat, best = _winner(state)
    led = state.led
    # the seat still to play after this one, if any, and whether it is on our side
    last = -1 if len(trick) == 2 else (seat + 1) % 3
    ours = wseat == seat or (declarer != seat and wseat != declarer)
    last_ours = last >= 0 and (declarer != seat and last != declarer)
    if ours and (last < 0 or last_ours or not _can_beat(hands[last], best, led, trump, key)):
        return _lowest(legal, trump, key)
    beating = [c for c in legal if _beats(c, best, trump, key)]
    if last >= 0 and not last_ours:  # win only with a card the last player cannot beat
        safe = [c for c in beating if not _can_beat(hands[last], c, led, trump, key)]
        if safe:
            return min(safe, key=lambda c: (c // 13 == trump, key[c] % 13))
        return _lowest(legal, trump, key)
    if beating:
        return min(beating, key=lambda c: (c // 13 == trump, key[c] % 13))
    return _lowest(legal, trump, key)


def _beats(card: int, best: int, trump: int, key: tuple[int, ...]) -> bool:
    """Does `card` beat `best`, the card winning the trick (N-4.3)?"""
    suit = card // 13
    if suit == best // 13:
        return key[card] > key[best]
    return suit == trump


def _can_beat(hand: int, best: int, led: int, trump: int, key: tuple[int, ...]) -> bool:
    """Could a player holding `hand` beat `best` on a trick led in `led`?"""
    follow = hand & SUIT_MASK[led]
    cards = cards_of(follow) if follow else cards_of(hand)
    for c in cards:
        if _beats(c, best, trump, key):
            return True
    return False


def _lowest(legal: tuple[int, ...], trump: int, key: tuple[int, ...]) -> int:
    """The card least worth keeping: the lowest, side suits before trumps."""
    return min(legal, key=lambda c: (c // 13 == trump, key[c] % 13))


def play_trianon_deal(state: trianon.TrianonState, rnd: Callable[[], float]) -> tuple[int, ...]:
    """Play the rest of the current Trianon deal's card play with the policy (the
    bidding must be over); its scores."""
    deal = state.deal_index
    apply = _TRIANON_APPLY
    while state.deal_index == deal and state.to_move >= 0:
        legal = state.legal
        if len(legal) == 1:
            apply(state, legal[0])
        elif state.kind == "play":
            apply(state, trianon_card(state, legal, rnd))
        else:  # bidding: the continuation is chosen by the search (search.py)
            apply(state, legal[0])
    return state.deal_scores[deal]


# --------------------------------------------------------------------------- bidding


def bid_policy(state: trianon.TrianonState) -> int:
    """A bidder for playouts (the other seats, after the seat passes): the bid of most
    value among those its trick estimate reaches, higher than the bid so far; else pass."""
    legal = state.legal
    low = legal[1] - trianon.BID_BASE if len(legal) > 1 else trianon.NUM_BIDS
    estimates = trick_estimates(state.hands[state.to_move])
    best, best_value = trianon.PASS, 0.0
    for strain, est in enumerate(estimates):
        tricks = int(est - 0.3)
        if tricks < 5:
            continue
        bid = (min(tricks, 12) - 4) * 6 + strain
        if bid < low:
            continue
        value = (tricks - 4) * (40 if strain >= 4 else 30)
        if value > best_value:
            best, best_value = trianon.BID_BASE + bid, value
    return best


def policy_action(state: trix.TrixState | trianon.TrianonState, rnd: Callable[[], float]) -> int:
    """The playout policy's own choice at any decision: the search's answer when its
    time ran out before it could compare the actions."""
    legal = state.legal
    if len(legal) == 1:
        return legal[0]
    kind = state.kind
    if isinstance(state, trix.TrixState):
        if kind == "play":
            if state.contract == trix.TRIX:
                return row_card(state, legal, rnd)
            return trick_card(state, legal, _penalties(state.contract, state.exposed), rnd)
        if kind == "expose":
            return trix_expose(state)
        return legal[0]
    if kind == "play":
        return trianon_card(state, legal, rnd)
    if kind == "bid":
        return bid_policy(state)
    return legal[0]
