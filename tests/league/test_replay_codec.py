"""Every replay comes back from the store byte for byte (arena/league/store/replay_codec.py):
played games of both games, the same with their events and hands disturbed in the
ways the compact form must notice, and any JSON at all."""

from __future__ import annotations

import copy
import json
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.bots.builtin import FirstBot, RandomBot
from arena.games import get_game
from arena.league.store.replay_codec import (
    COMPACT,
    PLAIN,
    pack_replay,
    pack_text,
    replay_text,
    unpack_replay,
    unpack_text,
    with_players,
)
from arena.play.referee import play_game

GAMES = {"trix": {"kingdoms": 1}, "trianon": {"target": 150}}
names = st.text(min_size=1, max_size=12)


@cache
def played(game_name: str, seed: str, first: int, names: tuple[str, ...]) -> dict:
    """A full game between built-in bots (seat `first` plays the fallback move)."""
    game = get_game(game_name)
    players = [FirstBot() if seat == first else RandomBot() for seat in range(game.seats)]
    options = game.parse_options(GAMES[game_name])
    return play_game(game, players, seed, options, names=names[: game.seats]).replay


def round_trips(replay: dict) -> bytes:
    """Pack `replay`; check every way back gives its stored text and dict exactly."""
    text = replay_text(replay)
    blob = pack_replay(replay)
    assert unpack_text(blob) == text
    assert pack_text(text) == blob
    back = unpack_replay(blob)
    assert back == replay and replay_text(back) == text
    assert json.dumps(back, indent=1) == json.dumps(json.loads(text), indent=1)  # `arena replay`
    return blob


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game_name=st.sampled_from(sorted(GAMES)),
    seed=st.text(max_size=8),
    first=st.integers(0, 3),
    players=st.lists(names, min_size=4, max_size=4),
)
def test_played_replays_round_trip_compact(
    game_name: str, seed: str, first: int, players: list[str]
) -> None:
    replay = played(game_name, seed, first, tuple(players))
    blob = round_trips(replay)
    assert blob[0] == COMPACT  # a played game is always of the compact form
    assert len(blob) < len(replay_text(replay))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_name=st.sampled_from(sorted(GAMES)), others=st.lists(names, min_size=4, max_size=4))
def test_a_replay_under_other_players_is_the_replay_packed_with_them(
    game_name: str, others: list[str]
) -> None:
    replay = played(game_name, "renamed", 0, ("a", "b", "c", "d"))
    players = others[: len(replay["players"])]
    blob = with_players(pack_replay(replay), players)
    assert unpack_text(blob) == replay_text({**replay, "players": players})
    assert blob == pack_replay({**replay, "players": players})
    spaced = pack_text(json.dumps(replay))  # kept plain (spaces): renamed the slow way
    assert spaced[0] == PLAIN
    assert unpack_text(with_players(spaced, players)) == replay_text({**replay, "players": players})


def _disturb(replay: dict, data: st.DataObject) -> dict:
    """`replay` with one deal's hands or events changed the way nothing played makes."""
    replay = copy.deepcopy(replay)
    deal = data.draw(st.sampled_from(replay["deals"]))
    change = data.draw(st.integers(0, 7))
    events, hands = deal["events"], deal["hands"]
    spot = data.draw(st.integers(0, len(events) - 1))
    if change == 0:  # a hand out of order
        hands[0].reverse()
    elif change == 1:  # a card twice
        hands[1].append(hands[0][0])
    elif change == 2:  # a card that is not a card code
        hands[0][0] = data.draw(st.text(max_size=3))
    elif change == 3:  # a play of a card nobody holds, or held by another seat
        events.insert(spot, {"seat": 0, "type": "play", "card": hands[1][-1]})
    elif change == 4:  # a seat beyond the header's two bits, or not an int
        events[spot]["seat"] = data.draw(st.sampled_from([4, -1, True, 1.0, "1", None]))
    elif change == 5:  # keys in another order, or one more
        event = events[spot]
        events[spot] = {"type": event.get("type"), **event, "extra": data.draw(names)}
    elif change == 6:  # an event that is not an object
        events[spot] = data.draw(st.sampled_from([[1, 2], "play", 3, None]))
    else:  # a deal without events, and hands that are not lists
        deal["hands"] = data.draw(st.sampled_from([None, "AS", [["AS", 3]]]))
    return replay


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_name=st.sampled_from(sorted(GAMES)), data=st.data())
def test_disturbed_replays_round_trip(game_name: str, data: st.DataObject) -> None:
    round_trips(_disturb(played(game_name, "disturbed", 0, ("a", "b", "c", "d")), data))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None)
@given(value=json_values, indent=st.sampled_from([None, 1]))
def test_any_json_text_round_trips(value: object, indent: int | None) -> None:
    """A stored text of any shape (even one not written by `replay_text`) comes back."""
    text = json.dumps(value, indent=indent)
    assert unpack_text(pack_text(text)) == text


def test_text_of_before_the_migration_reads_as_it_is() -> None:
    replay = played("trix", "old", 0, ("a", "b", "c", "d"))
    text = replay_text(replay)
    assert unpack_text(text) == text and unpack_replay(text) == replay


def test_a_text_the_compact_form_would_change_is_kept_plain() -> None:
    """Stored with spaces (json.dumps's default separators), the text is not what the
    compact form gives back, so it is kept as it is."""
    text = json.dumps(played("trix", "spaces", 0, ("a", "b", "c", "d")))
    blob = pack_text(text)
    assert blob[0] == PLAIN and unpack_text(blob) == text
