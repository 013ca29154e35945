"""The match a worker is playing, as a file the web pages read while it is played.

A league stores a match only when all its rotations are over, so a watcher of
`arena serve` would see nothing of a match in flight. The worker therefore keeps a
small file per match in flight beside the database (`<db>.live/`), rewritten at most
twice a second: the game being played (its seed, its options, the deals so far). It
holds every hand, so it is the organiser's alone: written with mode 0600, in a folder
no bot is shown (arena/league/workers/worker.py hides it from the sandbox), and never served
as it is: the site builds a spectator's view of it through the engine's `observe`
(arena/web/live_view.py). The worker removes it when the match is over."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.games.base import Game, GameState

WRITE_EVERY = 0.5  # seconds between rewrites: a live page refreshes within two seconds


def live_folder(db_path: str | Path) -> Path:
    """The folder of a league database's live files."""
    db = Path(db_path).resolve()
    return db.with_name(db.name + ".live")


def live_path(db_path: str | Path, league: str, idx: int) -> Path:
    """The live file of match `idx` of `league` (named by a hash: any league name)."""
    digest = hashlib.sha256(league.encode()).hexdigest()[:16]
    return live_folder(db_path) / f"{digest}-{idx}.json"


def read_live(db_path: str | Path, league: str, idx: int) -> dict[str, Any] | None:
    """The live file of a match in flight, or None (not started, over, or half
    written: a reader retries at the next refresh)."""
    try:
        return json.loads(live_path(db_path, league, idx).read_text())
    except (OSError, ValueError):
        return None


def live_stamp(db_path: str | Path) -> float:
    """The newest live file's time (0 when none): live pages poll it."""
    with contextlib.suppress(OSError):
        return max((entry.stat().st_mtime for entry in os.scandir(live_folder(db_path))), default=0)
    return 0.0


class LiveMatch:
    """Keeps match `idx`'s live file while a worker plays it: `restart` before each
    playing of the match, `next_game` before each game (the rotations in order), the
    instance as the referee's `watch`, `close` at the end (the file is removed)."""

    def __init__(
        self,
        db_path: str | Path,
        game: Game,
        league: str,
        *,
        idx: int,
        rotation_names: Sequence[Sequence[str]],
        seed: str,
        options: dict[str, Any],
    ) -> None:
        self.path = live_path(db_path, league, idx)
        self.game = game
        self.header = {
            "league": league,
            "match": idx,
            "game": game.name,
            "rotations": len(rotation_names),
            "seed": seed,
            "options": options,
        }
        self.rotation_names = [list(names) for names in rotation_names]
        self.rotation = -1
        self.last = 0.0

    def restart(self) -> None:
        """The match begins (again, when the machine made a bot late): its first
        rotation comes next."""
        self.rotation = -1

    def next_game(self) -> None:
        """The next rotation's game begins."""
        self.rotation += 1
        self.last = 0.0

    def __call__(self, state: GameState) -> None:
        now = time.monotonic()
        if now - self.last < WRITE_EVERY and state.to_move >= 0:
            return
        self.last = now
        doc = {
            **self.header,
            "rotation": self.rotation,
            "players": self.rotation_names[self.rotation],
            "deals": self.game.deal_records(state),
            "over": state.to_move < 0,
            "updated_at": time.time(),
        }
        self._write(json.dumps(doc, separators=(",", ":")))

    def _write(self, text: str) -> None:
        """Whole or not at all (a temporary file renamed over it), the owner's alone."""
        with contextlib.suppress(OSError):  # a full disk must not stop the match
            self.path.parent.mkdir(mode=0o700, exist_ok=True)
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(text)
            os.replace(tmp, self.path)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()
