"""Ladder files (TOML): a league file's shape for a competition that never ends.

`[ladder]` (name, game, seed), `[rules]`, `[limits]` and `[ratings]` as in league
files (read by the same code, so the same keys, ranges and messages), and the ladder's
own tables: `[matchmaking]`, `[gate]`, `[promotion]`, `[health]`, `[tests]` and `[[house]]`
entrants (bots the organiser runs to anchor the ratings). Every key of the ladder's
own tables is a field of the setting it fills, read with the range below; an error
names the file, the table, the key, the value and what is allowed (docs/ladder.md).

The file is read by `arena ladder init`, which stores what it read; `arena ladder run`
reads the stored copy back, so a ladder runs as it was set up however the file is
edited afterwards (init it again to change its settings).
"""

from __future__ import annotations

import dataclasses
import math
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from arena.bots.process import command_argv
from arena.errors import ConfigError
from arena.games import GAMES, get_game
from arena.games.base import Game
from arena.ladder.gate import GateSettings
from arena.ladder.health import HealthSettings
from arena.ladder.matchmaking import Policy
from arena.ladder.promotion import PromotionSettings
from arena.ladder.uploads import UploadLimits
from arena.league.definition.config import (
    RATE_BY_DEFAULT,
    ROTATIONS,
    Entrant,
    LeagueConfig,
    Limits,
    Ratings,
    TableReader,
    bot_spec_problem,
    check_entrant_name,
    cluster_address_problem,
    read_limits,
    read_ratings,
    read_rules,
    read_toml,
    shown,
)
from arena.league.definition.names import nfc
from arena.league.definition.schedule import Schedule
from arena.play.deal_keys import deal_key_problem, normal_key
from arena.play.matches import Rotations

TOP_KEYS = {
    "ladder", "rules", "limits", "ratings", "matchmaking", "gate", "promotion", "health",
    "tests", "house", "cluster",
}  # fmt: skip
LADDER_KEYS = {"name", "game", "seed", "rotations", "deal_key"}
MAX_HOUSE = 100

# (low, high, what) of every key of the ladder's own tables, by table and key.
RANGES: dict[str, dict[str, tuple[float, float, str]]] = {
    "matchmaking": {
        "placement_matches": (0, 10_000, "a whole number of matches from 0 to 10,000"),
        "share_fewest": (0, 1, "a share from 0 to 1"),
        "share_uncertain": (0, 1, "a share from 0 to 1"),
        "share_idle": (0, 1, "a share from 0 to 1"),
        "share_promotion": (0, 1, "a share from 0 to 1"),
        "window": (0, 1, "a share of the other free authors, from 0 to 1"),
        "uncertain_pool": (0, 1, "a share of the free versions, from 0 to 1"),
    },
    "gate": {
        "max_mb": (1, 10_240, "a whole number of MiB from 1 to 10,240"),
        "max_files": (1, 1_000_000, "a whole number from 1 to 1,000,000"),
        "max_ratio": (1, 1_000_000, "a whole number from 1 to 1,000,000"),
        "timeout": (1, 86_400, "seconds from 1 to 86,400"),
        "retries": (0, 10, "a whole number from 0 to 10"),
        "validation_games": (0, 1_000, "a whole number of games from 0 to 1,000"),
    },
    "promotion": {
        "delta": (0.001, 1e6, "points a game, above 0"),
        "alpha": (0.0001, 0.5, "a probability from 0.0001 to 0.5"),
        "beta": (0.0001, 0.5, "a probability from 0.0001 to 0.5"),
        "max_games": (1, 1_000_000, "a whole number of games from 1 to 1,000,000"),
        "min_pairs": (2, 10_000, "a whole number of paired matches from 2 to 10,000"),
    },
    "health": {
        "window": (1, 100_000, "a whole number of games from 1 to 100,000"),
        "max_fault_rate": (0, 1, "a share of decisions from 0 to 1"),
        "max_crash_games": (0, 100_000, "a whole number of games (0: never)"),
    },
    "tests": {
        "per_hour": (0, 1_000, "a whole number of test matches from 0 to 1,000 (0: none)"),
    },
}
CHOICES = {("promotion", "mode"): ("auto", "manual")}


@dataclass(frozen=True)
class RequestLimits:
    """`[tests]`: the unrated test matches an author may ask for (docs/ladder.md, "Test
    matches"): at most `per_hour` in any hour (0: the ladder takes none)."""

    per_hour: int = 10


@dataclass(frozen=True)
class HouseBot:
    """A bot the organiser runs: always eligible, owned by no author."""

    name: str
    bot: str  # a bot spec; a command's relative paths resolve against the file's folder


@dataclass(frozen=True)
class LadderConfig:
    path: Path
    name: str
    game: str
    seed: str
    rotations: Rotations
    rules: dict[str, Any]
    limits: Limits
    ratings: Ratings
    matchmaking: Policy
    gate: GateSettings
    uploads: UploadLimits
    promotion: PromotionSettings
    health: HealthSettings
    house: tuple[HouseBot, ...]
    tests: RequestLimits = dataclasses.field(default_factory=RequestLimits)
    options: Any = dataclasses.field(default=None, compare=False)  # the parsed rule options
    deal_key: str = dataclasses.field(default="", repr=False)
    cluster: str = ""
    raw: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False, compare=False)

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def engine(self) -> Game:
        return get_game(self.game)

    def stored(self) -> dict[str, Any]:
        """What `arena ladder init` stores: the file's path and the tables it read."""
        return {"file": str(self.path), "data": self.raw}

    def locked(self) -> dict[str, Any]:
        """What may never change once the ladder has matches: it would change the
        deals, the rules or the meaning of the stored ratings."""
        return {
            "game": self.game,
            "seed": self.seed,
            "schedule": Schedule.LADDER.value,
            "rotations": self.rotations.value,
            "rate_by": RATE_BY_DEFAULT.value,
            "rules": self.engine.options_dict(self.options),
            "ratings": dict(self.ratings.__dict__),
            "entrants": [],
        }

    def league(self, entrants: Sequence[Entrant], deal_key: str) -> LeagueConfig:
        """The league config a match task carries: the ladder's rules and limits, the
        entrants given (versions, by their `BOT@N` names, and house bots) and the
        stored deal key."""
        return LeagueConfig(
            path=self.path,
            name=self.name,
            game=self.game,
            seed=self.seed,
            schedule=Schedule.LADDER,
            rounds=1,
            matches=0,
            candidates=(),
            rotations=self.rotations,
            rate_by=RATE_BY_DEFAULT,
            forfeit_faults=1,
            rules=self.rules,
            limits=self.limits,
            ratings=self.ratings,
            entrants=tuple(entrants),
            options=self.options,
            deal_key=deal_key,
            cluster=self.cluster,
        )


def version_spec(command: str, folder: Path) -> str:
    """A submitted version's bot spec: its command with every path it names in its
    folder made absolute, so it starts from the folder wherever the run is."""
    return shlex.join(command_argv(command, folder))


def load_ladder(path: str | Path) -> LadderConfig:
    """Read and check a ladder file; ConfigError says what to fix."""
    path = Path(path)
    return parse_ladder(path.resolve(), read_toml(path, "ladder file"))


def parse_ladder(path: Path, data: dict[str, Any]) -> LadderConfig:
    """A ladder from its file's tables (`load_ladder`, or what `init` stored)."""
    top = TableReader(path, "", data, TOP_KEYS)
    if "ladder" not in data:
        top.fail("[ladder]", "is required: a [ladder] table with at least name and game")
    table = TableReader(path, "ladder", data["ladder"], LADDER_KEYS)
    name = nfc(table.text("name", None, "the ladder's name (a string)"))
    problem = check_entrant_name(name, "ladder")
    if problem:
        table.fail("name", problem)
    game_name = table.choice("game", tuple(GAMES), None)
    seed = table.get("seed", (int, str), 1, "an integer or a string")
    if isinstance(seed, str) and not seed.strip():
        table.fail("seed", "must not be empty: an integer or a string (the default is 1)")
    rotations = Rotations(table.choice("rotations", ROTATIONS, Rotations.CYCLIC))
    deal_key = table.get("deal_key", str, "", "a string of hex digits")
    if "deal_key" in table.data:
        problem = deal_key_problem(deal_key)
        if problem:
            table.fail("deal_key", problem)
        deal_key = normal_key(deal_key)
    game = get_game(game_name)
    gate_data = data.get("gate", {})
    gate_keys = {f.name for f in fields(GateSettings)} | {f.name for f in fields(UploadLimits)}
    TableReader(path, "gate", gate_data, gate_keys)  # refuses unknown keys once
    cluster = TableReader(path, "cluster", data.get("cluster", {}), {"address"})
    address = cluster.get("address", str, "", "a Dask scheduler's address, tcp://HOST:PORT")
    if "address" in cluster.data:
        problem = cluster_address_problem(address)
        if problem:
            cluster.fail("address", problem)
    return LadderConfig(
        path=path,
        name=name,
        game=game_name,
        seed=str(seed),
        rotations=rotations,
        rules=dict(data.get("rules", {})),
        limits=read_limits(path, data.get("limits", {})),
        ratings=read_ratings(path, data.get("ratings", {})),
        matchmaking=_settings(path, "matchmaking", data.get("matchmaking", {}), Policy),
        gate=_settings(path, "gate", gate_data, GateSettings, partial=True),
        uploads=_settings(path, "gate", gate_data, UploadLimits, partial=True),
        promotion=_settings(path, "promotion", data.get("promotion", {}), PromotionSettings),
        health=_settings(path, "health", data.get("health", {}), HealthSettings),
        house=_house(path, top, data.get("house", []), game.seats),
        tests=_settings(path, "tests", data.get("tests", {}), RequestLimits),
        options=read_rules(path, top, data.get("rules", {}), game),
        deal_key=deal_key,
        cluster=address,
        raw=data,
    )


def _settings(path: Path, table: str, data: Any, kind: type, partial: bool = False) -> Any:
    """A settings dataclass from its table: each key one of its fields, of its
    default's type, in its range (`RANGES`) or among its choices (`CHOICES`)."""
    known = {f.name for f in fields(kind)}
    if partial:  # a table shared by two settings: each reads its own keys
        data = {k: v for k, v in data.items() if k in known} if isinstance(data, dict) else data
    reader = TableReader(path, table, data, known)
    values: dict[str, Any] = {}
    for f in fields(kind):
        default = getattr(kind(), f.name)
        if f.name not in reader.data:
            continue
        if isinstance(default, str):
            values[f.name] = reader.choice(f.name, CHOICES.get((table, f.name), (default,)), None)
            continue
        low, high, what = RANGES.get(table, {}).get(f.name, (0, 1e9, "a number from 0"))
        if isinstance(default, bool):
            values[f.name] = reader.get(f.name, bool, default, "true or false")
        elif isinstance(default, int):
            values[f.name] = reader.integer(f.name, default, int(low), what, int(high))
        else:
            value = reader.get(f.name, (int, float), default, what)
            if not math.isfinite(value) or not low <= value <= high:
                reader.fail(f.name, f"must be {what}; got {shown(value)}")
            values[f.name] = float(value)
    try:
        settings = kind(**values)
    except (ConfigError, ValueError) as err:  # a check across keys, made by the setting itself
        said = str(err) if str(err).startswith(f"[{table}]") else f"[{table}] {err}"
        raise ConfigError(f"{path}: {said}") from None
    return settings


def _house(path: Path, top: TableReader, raw: Any, seats: int) -> tuple[HouseBot, ...]:
    """The `[[house]]` tables: each a name and a bot spec, names unique."""
    if not isinstance(raw, list):
        top.fail("[[house]]", "must be tables, one per house bot, with name and bot")
    if len(raw) > MAX_HOUSE:
        top.fail("[[house]]", f"tables: at most {MAX_HOUSE} house bots; this file has {len(raw)}")
    house: list[HouseBot] = []
    for i, item in enumerate(raw, start=1):
        reader = TableReader(path, f"house {i}", item, {"name", "bot"})
        name = nfc(reader.text("name", None, "the house bot's name (a string)"))
        problem = bot_name_problem(name)
        if problem:
            reader.fail("name", problem)
        bot = reader.text("bot", None, "a bot spec: builtin:NAME, grpc:... or a command")
        problem = bot_spec_problem(bot, path.parent)
        if problem:
            reader.fail("bot", f"of {shown(name)}: {problem}")
        if any(h.name == name for h in house):
            reader.fail("name", f"{shown(name)} appears twice: house bots' names are unique")
        house.append(HouseBot(name, bot))
    del seats  # a ladder with fewer house bots than seats fills its tables with versions
    return tuple(house)


def bot_name_problem(name: str) -> str | None:
    """What is wrong with a ladder bot's name: an entrant's rules, and no `@`, which
    parts a version's name (`BOT@N`)."""
    problem = check_entrant_name(name, "bot")
    if problem:
        return problem
    if "@" in name:
        return f"{shown(name)} must not hold '@': a version is named BOT@N"
    return None
