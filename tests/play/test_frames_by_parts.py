"""The viewer's frames made key by key (`view_parts`, only the keys whose view fields
changed) are the frames made from whole `view_dict`s, and `view_parts` is `view_dict`
key by key, for games of both games, every seat, a spectator and one seat, a game with
fallbacks and one still being played; the outline counted on the frames' own pass is
`game_outline`'s; and a game packed for the report unpacks to its frames, its base85
the standard library's."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.bots.builtin import make_builtin
from arena.games import get_game
from arena.play.replay_frames import (
    _frame_documents,
    game_frames,
    game_frames_outline,
    game_outline,
)
from arena.play.seat_view import replay_options, replay_steps
from arena.web.viewer_data import b85encode, columns, game_pack, rows, unpack
from tests.play.test_replay_frames import Faulty, in_progress, played

GAMES = {
    "trix": lambda: played("trix", "parts-trix", {"kingdoms": 2}),
    "trix-faults": lambda: played(
        "trix",
        "parts-faults",
        {"kingdoms": 1},
        [Faulty(every=4)] + [make_builtin("random") for _ in range(3)],
    ),
    "trianon": lambda: played("trianon", "parts-trianon"),
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_view_parts_are_view_dict_key_by_key(name) -> None:
    replay = GAMES[name]()
    game = get_game(replay["game"])
    seen = 0
    for state, _, _ in replay_steps(game, replay, replay_options(game, replay)):
        for seat in [*range(game.seats), -1]:
            view = game.observe(state, seat)
            made = {key: make(view) for key, _, make in game.view_parts}
            whole = game.view_dict(view)
            assert list(made) == list(whole) and made == whole
            seen += 1
    assert seen > 500


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("seats", ["all", "public", 1])
def test_frames_by_parts_are_the_frames_of_whole_views(name, seats) -> None:
    replay = GAMES[name]()
    by_parts = _frame_documents(replay, seats, None, by_parts=True)
    whole = _frame_documents(replay, seats, None, by_parts=False)
    assert len(by_parts) == len(replay["deals"]) > 1
    assert by_parts == whole


def test_a_game_being_played_by_parts_is_its_frames_of_whole_views() -> None:
    replay = in_progress(GAMES["trix"](), 3, 17)
    for seats in ("public", "all", 2):
        assert _frame_documents(replay, seats, None) == _frame_documents(
            replay, seats, None, by_parts=False
        )


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("seats", ["all", "public", 1])
def test_the_outline_counted_on_the_frames_pass_is_the_games_outline(name, seats) -> None:
    replay = GAMES[name]()
    frames, outline = game_frames_outline(replay, seats)
    assert outline == game_outline(replay, seats)
    assert frames == game_frames(replay, seats)
    assert [deal["steps"] for deal in outline["deals"]] == [len(d["frames"]) for d in frames]
    if name == "trix-faults":
        assert len(outline["fallbacks"]) > 3


def test_the_outline_of_a_game_being_played_counted_on_the_frames_pass() -> None:
    replay = in_progress(GAMES["trix"](), 3, 17)
    for seats in ("public", "all", 2):
        assert game_frames_outline(replay, seats)[1] == game_outline(replay, seats)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_packed_game_unpacks_to_its_frames(name) -> None:
    replay = GAMES[name]()
    docs = game_frames(replay)
    script = game_pack(replay, 41)
    assert script.startswith('ArenaViewer.loadPacked(41, "') and script.isascii()
    assert unpack(script) == docs
    assert game_pack(replay, 41) == script  # the same game, the same bytes
    for doc in docs:
        packed = columns(doc)
        assert rows(packed, doc["prefix"]) == doc["frames"]
        assert len(packed["c"]) == len(doc["frames"])
        answers = [a for a in packed["answer"] if a is not None]
        assert sum(isinstance(a, int) for a in answers) > len(answers) / 2  # most by index


@given(st.binary(max_size=600))
def test_the_packs_base85_is_the_standard_librarys(data: bytes) -> None:
    assert b85encode(data) == base64.b85encode(data)  # every length: 0 to 3 bytes padded
