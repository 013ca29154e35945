"""`arena play` in one call: a session of games or matches between bot specs
(`arena.bots.sessions.play_session`), each game's replay written when asked, and the
whole session stored as a league when a database is given (`play_db.PlayRecorder`).

The command prints; this plays, writes and stores, and counts what it will say.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from arena.bots.sessions import GamePlayed, MatchPlayed, SessionRequest, play_session
from arena.errors import ConfigError
from arena.league.running.play_db import PlayRecorder
from arena.play.replays import ReplayWriter
from arena.play.series import SeriesTotals

Shown = Callable[[GamePlayed | MatchPlayed, Path | None], None]
"""Told of each game (with the path its replay was written to) and match as it ends."""


@dataclass
class PlayRun:
    """What a session played: its deal key, the match series' sums, the faults, and
    where it was stored."""

    key: str
    series: SeriesTotals = field(default_factory=SeriesTotals)
    faults: int = 0
    faulty_games: int = 0
    overloads: int = 0  # timeouts the machine caused: shown, not charged to the bots
    stored: str = ""  # the recorder's closing line, when the session went to a database


def play_games(
    request: SessionRequest,
    *,
    show: Shown,
    replays: Path | None = None,
    db: Path | None = None,
    league: str | None = None,
) -> PlayRun:
    """Play `request`, telling `show` of every game and match as it ends; write each
    game's replay into `replays`, and store the session in `db` as the league `league`
    (a fresh name when None; a league named again deals on from its own key). The
    database is opened, and a named league checked, before any bot starts."""
    if league is not None and db is None:
        raise ConfigError(
            f"--league {league} names the league --db stores the games in: give --db PATH too"
        )
    writer = ReplayWriter(replays) if replays is not None else None
    recorder = PlayRecorder(db, request, league) if db is not None else None
    try:
        if recorder is not None:
            request = dataclasses.replace(request, deal_key=recorder.deal_key)
        run = PlayRun(request.key)
        with closing(play_session(request)) as session:
            for played in session:
                if isinstance(played, MatchPlayed):
                    run.series.add(played.names, played.totals, played.games)
                    show(played, None)
                else:
                    # a timeout the machine caused is shown, never counted against a bot
                    charged = [f for f in played.result.faults if not f.overload]
                    run.faults += len(charged)
                    run.faulty_games += bool(charged)
                    run.overloads += len(played.result.faults) - len(charged)
                    show(played, writer.write(played.result.replay) if writer else None)
                if recorder is not None:
                    recorder.add(played)
        if recorder is not None:
            run.stored = recorder.summary()
        return run
    finally:
        if recorder is not None:
            recorder.close()
