"""Replays (`arena-replay/1`): built from a finished game, checked when read back,
and written to files whole or not at all.

A replay is everything needed to re-check a game without the engine (the hands as
dealt, every event, the scores; docs/replays.md), so one document serves stored games,
files and games just played alike.
"""

from __future__ import annotations

import errno
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.games import GAMES
from arena.games.base import Game, GameState

REPLAY_FORMAT = "arena-replay/1"
REPLAY_KEYS = {"game": str, "players": list, "deals": list, "totals": list, "ranks": list}


def build_replay(
    game: Game,
    state: GameState,
    seed: str,
    options: Any,
    *,
    names: Sequence[str],
    auto: Mapping[tuple[int, int], str],
    faults: Sequence[Any],
) -> dict[str, Any]:
    """The `arena-replay/1` document of a finished game; `auto` marks the fallback
    events by (deal index, event index), `faults` are `arena.play.faults.Fault`s."""
    deals = game.deal_records(state)
    for (deal_index, event_index), kind in auto.items():
        events = deals[deal_index]["events"]
        events[event_index] = {**events[event_index], "auto": kind}  # events may be shared
    totals, ranks = game.result(state)
    return {
        "format": REPLAY_FORMAT,
        "game": game.name,
        "options": game.options_dict(options),
        "seed": seed,
        "players": list(names),
        "deals": deals,
        "totals": totals,
        "ranks": ranks,
        "faults": [f.as_dict() for f in faults],
    }


def check_replay(replay: Any) -> None:
    """ConfigError saying what is missing when `replay` is not an `arena-replay/1`
    document (a JSON file of something else, another format, an unknown game)."""
    if not isinstance(replay, Mapping):
        raise ConfigError(
            f"not an arena-replay/1 replay: a JSON {type(replay).__name__}, not an object"
        )
    if replay.get("format") != REPLAY_FORMAT:
        found = f"is {replay['format']!r}" if "format" in replay else "is missing"
        raise ConfigError(f'not an arena-replay/1 replay: its "format" {found}')
    for key, kind in REPLAY_KEYS.items():
        if not isinstance(replay.get(key), kind):
            raise ConfigError(f"not a whole arena-replay/1 replay: no {kind.__name__} {key!r}")
    if replay["game"] not in GAMES:
        raise ConfigError(f"the replay's game {replay['game']!r} is not one of {', '.join(GAMES)}")


def read_replay(path: Path) -> dict[str, Any]:
    """A replay file, checked (ConfigError names the file and what is wrong)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ConfigError(f"cannot read replay {path}: {err}") from None
    try:
        check_replay(data)
    except ConfigError as err:
        raise ConfigError(
            f"{path}: {err}; give a replay file that `arena play --replays` wrote"
        ) from None
    return data


def replay_folder(path: Path) -> Path:
    """The `--replays` folder, made before any game is played (ConfigError when it cannot
    be: a file of that name, no permission), so a run never fails after its games."""
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--replays {path} is a file, not a folder: give a folder's path")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(f"cannot make the --replays folder {path}: {err}") from None
    return path


REPLAY_NAME = re.compile(r"game-(\d+)\.json")


class ReplayWriter:
    """A run's replays, written into a folder as `game-NNNN.json` and numbered on after
    the highest number already there, so a second run into the same folder keeps the
    first run's files. No file is ever replaced, even by another run writing there at
    the same moment: each replay is written whole under a temporary name and then
    linked to its own name, which fails if that name is taken (the next one is tried)."""

    def __init__(self, folder: Path) -> None:
        self.folder = replay_folder(folder)
        taken = [int(m.group(1)) for p in folder.iterdir() if (m := REPLAY_NAME.fullmatch(p.name))]
        self.next = max(taken, default=0) + 1

    def write(self, replay: Mapping[str, Any]) -> Path:
        """Write one replay; its path."""
        while True:
            path = self.folder / f"game-{self.next:04d}.json"
            self.next += 1
            if _write_new(path, replay):
                return path


def write_replay(directory: Path, index: int, replay: Mapping[str, Any]) -> Path:
    """`DIR/game-NNNN.json`, written whole or not at all; ConfigError if that file exists
    (it is never replaced)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"game-{index:04d}.json"
    if not _write_new(path, replay):
        raise ConfigError(f"{path} exists already: a replay file is never replaced")
    return path


def _write_new(path: Path, replay: Mapping[str, Any]) -> bool:
    """Write `replay` to `path` unless that name is taken (False then). The data goes to
    a temporary file first, removed again whatever happens (a full disk included), so
    no `.tmp` file is left behind and `path` is either whole or absent."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(replay, separators=(",", ":")))
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise
            return _create_new(path, tmp.read_bytes())  # a file system without hard links
        return True
    except OSError as err:
        raise ConfigError(f"cannot write the replay {path}: {err}") from None
    finally:
        tmp.unlink(missing_ok=True)


def _create_new(path: Path, data: bytes) -> bool:
    try:
        with open(path, "xb") as out:
            out.write(data)
    except FileExistsError:
        return False
    return True
