"""`arena play --db PATH`: the games of a play session, stored as a league.

So that `arena games`, `arena faults`, `arena replay GAME_ID` and `arena table` work
after a plain `arena play` too, a session is stored as a league of its own: named
`play-YYYYMMDD-HHMMSS` (local time, with `-2`, `-3`, ... when that name is taken) or
`--league NAME`, its entrants the session's players by seat. With `--games N` each game
is a match of one game; with `--matches N` each seat-rotated match is a match of its
rotations. Each is stored in one transaction as it ends, through the same store as a
league run (`arena.league.store`), and rated as a league's matches are (TrueSkill with
the default parameters and feeding), so the table, the margins and the fault reports
read it like any league. A session with a person at the table (a `human` seat) is
stored with `rate_by = "none"`: nobody at that table is rated (a person never is, and
the bots' ratings would be fed by the person's play), every reader of the ratings
(`Rater`) keeps each player at the prior, and the table says why.

The store needs a league's locked settings: the session's are its game, seed, rule
options and players, under the schedule name "play". A later session that names the
same league adds its games to it, and is refused (before any bot starts) when its game,
seed or rules differ, and at its first game when its players do.
"""

from __future__ import annotations

import time
from dataclasses import fields
from pathlib import Path

import sqlite_utils

from arena.bots.confinement.sandbox import SandboxMode
from arena.bots.human import is_human_spec
from arena.bots.remote.settings import RemoteSettings
from arena.bots.sessions import GamePlayed, MatchPlayed, SessionRequest
from arena.errors import ConfigError
from arena.games import get_game
from arena.league.definition.config import (
    RATE_BY_DEFAULT,
    Entrant,
    LeagueConfig,
    Limits,
    RateBy,
    Ratings,
)
from arena.league.definition.records import PlayedGame, PlayedMatch
from arena.league.definition.schedule import Schedule
from arena.league.standings.ratings import MatchOutcome, Rater, rate_prefix
from arena.league.store import (
    append_ratings,
    ensure_league,
    entrant_names,
    league_id_by_name,
    load_outcomes,
    open_db,
    replace_ratings,
    store_match,
    stored_deal_key,
    stored_match_indexes,
)
from arena.play.matches import Rotations

PLAY_SCHEDULE = Schedule.PLAY  # the schedule a play session's league is stored with
SOURCE = Path("arena play")  # what the league's `file` records, and errors name


class PlayRecorder:
    """Stores a play session's games in a league database, each match as it ends.

    Made before the session starts, so that a database that cannot be opened, or a
    league of that name that holds another game, seed or rules, is refused before
    any bot is started."""

    def __init__(self, db_path: Path, request: SessionRequest, league: str | None = None) -> None:
        self.db_path = db_path
        self.request = request
        self.game = get_game(request.game)
        self.options = self.game.parse_options(request.rules)
        self.db: sqlite_utils.Database = open_db(db_path)
        self.name = league if league else _fresh_name(self.db)
        self.games = 0
        self.people = any(is_human_spec(spec) for spec in request.specs)  # never rated
        self._league_id = 0
        self._rater: Rater | None = None
        self._outcomes: dict[int, MatchOutcome] = {}
        self._next_rated = 0
        self._next_index = 0
        self._pending: list[GamePlayed] = []  # the games of the match under way
        self.deal_key = request.key  # a new league's: the session's (given, or fresh)
        stored = _stored_entrants(self.db, self.name)
        if stored is not None:
            league_id = league_id_by_name(self.db, self.name)[0]
            if not request.deal_key:  # a league named again deals from its own key
                self.deal_key = stored_deal_key(self.db, league_id)
            ensure_league(self.db, self._config(stored))  # refuses other settings now

    def add(self, played: GamePlayed | MatchPlayed) -> None:
        """Store a game (seats fixed: a match of its own) or, at a match's end, the
        match's games; ignores nothing else."""
        if isinstance(played, MatchPlayed):
            games, self._pending = self._pending, []
            self._store(played.seed, played.names, games, played.seconds)
        elif played.match:
            self._pending.append(played)
        else:
            players = tuple(played.result.replay["players"])
            self._store(played.seed, players, [played], played.seconds)

    def _store(
        self, seed: str, entrants: tuple[str, ...], games: list[GamePlayed], seconds: float
    ) -> None:
        if self._rater is None:
            self._open(entrants)
        assert self._rater is not None
        match = PlayedMatch(
            self._next_index,
            seed,
            tuple(entrants),
            tuple(
                PlayedGame(
                    max(g.rotation, 0),
                    tuple(g.result.replay["players"]),
                    g.result.replay,
                    g.result.decisions,
                )
                for g in games
            ),
            seconds,
        )
        store_match(self.db, self._league_id, match)
        self._next_index += 1
        self.games += len(games)
        self._outcomes[match.index] = match.outcome()
        self._next_rated, rows = rate_prefix(self._outcomes, self._rater, self._next_rated)
        if rows:
            append_ratings(self.db, self._league_id, rows)

    def _open(self, entrants: tuple[str, ...]) -> None:
        """The league, made (or checked, when it is stored already) at the first game,
        when the players' names are known, and rated up to what is stored."""
        config = self._config(entrants)
        stored = _stored_entrants(self.db, self.name)
        if stored is not None and tuple(stored) != tuple(entrants):
            raise ConfigError(
                f"league {self.name!r} in {self.db_path} has the players "
                f"{', '.join(stored)}, but this session's are {', '.join(entrants)}: give "
                "another --league name (or none, for a new one)"
            )
        self._league_id = ensure_league(self.db, config)
        rater = Rater(config.ratings, list(entrants), config.rate_by, config.forfeit_faults)
        self._outcomes = load_outcomes(self.db, self._league_id)
        self._next_rated, rows = rate_prefix(self._outcomes, rater)
        replace_ratings(self.db, self._league_id, rows)
        self._rater = rater
        indexes = stored_match_indexes(self.db, self._league_id)
        self._next_index = max(indexes) + 1 if indexes else 0

    def _config(self, entrants: list[str] | tuple[str, ...]) -> LeagueConfig:
        """A league config for this session: what the store locks, and the limits the
        session plays with."""
        request = self.request
        remote = request.remote
        return LeagueConfig(
            path=SOURCE,
            name=self.name,
            game=self.game.name,
            seed=request.seed,
            deal_key=self.deal_key,
            schedule=PLAY_SCHEDULE,
            rounds=1,
            matches=0,
            candidates=(),
            rotations=Rotations.CYCLIC,
            rate_by=RateBy.NONE if self.people else RATE_BY_DEFAULT,
            forfeit_faults=1,
            rules=dict(request.rules),
            limits=Limits(
                **{f.name: getattr(remote, f.name) for f in fields(RemoteSettings)},
                max_faults=request.referee.max_faults,
                sandbox=SandboxMode.ON
                if request.sandbox is not None and request.sandbox.enabled
                else SandboxMode.OFF,
            ),
            ratings=Ratings(),
            entrants=tuple(
                Entrant(name, spec) for name, spec in zip(entrants, request.specs, strict=False)
            ),
            options=self.options,
        )

    def summary(self) -> str:
        """The line `arena play` ends with: where the games went and how to read them."""
        where = f"--db {self.db_path} --league {self.name}"
        return (
            f"stored {self.games} game{'s' if self.games != 1 else ''} in league "
            f"{self.name!r} of {self.db_path}: `arena games {where}`, `arena faults {where}`, "
            f"`arena table {where}` (its deal key: `arena league key {where}`)"
        )

    def close(self) -> None:
        self.db.close()


def _stored_entrants(db: sqlite_utils.Database, name: str) -> list[str] | None:
    """The entrants of the stored league called `name`; None when there is none."""
    try:
        league_id, _ = league_id_by_name(db, name)
    except ConfigError:
        return None
    return entrant_names(db, league_id)


def _fresh_name(db: sqlite_utils.Database) -> str:
    """`play-YYYYMMDD-HHMMSS`, or with `-2`, `-3`, ... when a league has that name."""
    base = "play-" + time.strftime("%Y%m%d-%H%M%S")
    name, n = base, 1
    while _stored_entrants(db, name) is not None:
        n += 1
        name = f"{base}-{n}"
    return name
