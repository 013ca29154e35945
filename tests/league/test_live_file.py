"""The live file of a match in flight (arena/league/workers/live.py): what the web pages read
while a worker plays, holding every hand, so the organiser's alone."""

from __future__ import annotations

import stat
import time
import types

from arena.games import get_game
from arena.league.workers import live as live_module
from arena.league.workers.live import LiveMatch, live_folder, read_live
from arena.league.workers.worker import _private_paths


def _live(tmp_path) -> tuple[LiveMatch, object]:
    game = get_game("trix")
    options = game.parse_options({"kingdoms": 1})
    names = [["a", "b", "c", "d"], ["d", "a", "b", "c"]]
    live = LiveMatch(
        tmp_path / "x.db",
        game,
        "lg",
        idx=3,
        rotation_names=names,
        seed="seed",
        options=game.options_dict(options),
    )
    return live, game.new_game("seed", options)


def test_the_live_file_follows_each_rotation_and_each_playing_of_the_match(tmp_path) -> None:
    live, state = _live(tmp_path)
    for playing in range(2):  # the second: played again after an overload
        live.restart()
        for rotation in range(2):
            live.next_game()
            live(state)
            doc = read_live(tmp_path / "x.db", "lg", 3)
            assert doc["rotation"] == rotation and doc["rotations"] == 2, playing
            assert doc["players"] == [["a", "b", "c", "d"], ["d", "a", "b", "c"]][rotation]
    path = live.path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it holds every hand
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    live.close()
    assert not path.exists() and read_live(tmp_path / "x.db", "lg", 3) is None


def test_the_live_file_is_rewritten_at_most_twice_a_second(tmp_path, monkeypatch) -> None:
    clock = [1000.0]  # the live file's clock, moved by hand: the test times nothing
    fake = types.SimpleNamespace(monotonic=lambda: clock[0], time=time.time)
    monkeypatch.setattr(live_module, "time", fake)
    live, state = _live(tmp_path)
    live.restart()
    live.next_game()
    live(state)
    written = live.path.stat().st_mtime_ns
    game = get_game("trix")
    game.apply_legal(state, state.legal[0])
    live(state)  # at once after the first: skipped
    assert live.path.stat().st_mtime_ns == written
    assert read_live(tmp_path / "x.db", "lg", 3)["deals"][0]["events"] == []
    clock[0] += live_module.WRITE_EVERY
    live(state)  # half a second later: written
    assert len(read_live(tmp_path / "x.db", "lg", 3)["deals"][0]["events"]) == 1


def test_no_bot_is_shown_the_live_files(tmp_path) -> None:
    hidden = _private_paths(str(tmp_path / "x.db"), str(tmp_path / "logs" / "run"))
    assert live_folder(tmp_path / "x.db") in hidden
