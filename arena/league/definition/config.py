"""League files (TOML): read, validate, and say exactly what is wrong and where.

Every error names the file, the table, the key, the value and what is allowed, so an
organiser can fix a league file without reading code. What cannot work is refused here,
once, in the main process: not later, as a fault charged to a bot, a traceback in a
worker, or a league that cannot resume.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any, TypedDict

from arena.bots.confinement.sandbox import (
    ARENA_CEILINGS,
    DERIVED_LIMITS,
    SMALLEST_CPUS,
    Sandbox,
    SandboxLimits,
    SandboxMode,
)
from arena.bots.remote.settings import (
    CLOCKS,
    DEFAULT_GAME_TIME,
    Clock,
    RemoteSettings,
    TransportKind,
    number_problem,
    seconds_problem,
)
from arena.errors import ConfigError
from arena.games import GAMES, get_game
from arena.games.base import Game
from arena.league.definition.names import nfc, shows
from arena.league.definition.schedule import SCHEDULES, Schedule
from arena.play.deal_keys import deal_key_problem, normal_key
from arena.play.matches import Rotations


class RateBy(StrEnum):
    """What TrueSkill is fed (docs/ratings.md): each match's duplicate margins (the
    default), or ranks of a whole match, each game, or each deal. NONE: nothing, every
    player stays at the prior: an `arena play --db` session with a person at the table
    is stored so (docs/human.md), as a person is never rated; no league file may say it."""

    MARGIN = "margin"
    MATCH = "match"
    DEAL = "deal"
    GAME = "game"
    NONE = "none"


ROTATIONS = tuple(Rotations)
RATE_BY = tuple(b for b in RateBy if b is not RateBy.NONE)  # what a league file may say
RATE_BY_DEFAULT = RateBy.MARGIN  # chosen by `arena bench rating` (docs/ratings.md)
TRANSPORTS = tuple(TransportKind)
SANDBOX_MODES = tuple(SandboxMode)

LEAGUE_KEYS = {
    "name",
    "game",
    "seed",
    "schedule",
    "rounds",
    "matches",
    "candidates",
    "rotations",
    "rate_by",
    "forfeit_faults",
    "deal_key",
}
SANDBOX_LIMIT_KEYS = tuple(f.name for f in fields(SandboxLimits))
LIMIT_KEYS = {
    "move_timeout",
    "startup_timeout",
    "max_faults",
    "time_bank",
    "transport",
    "sandbox",
    "game_time",
    "clock",
    *SANDBOX_LIMIT_KEYS,
}
RATING_KEYS = {"mu", "sigma", "beta", "tau", "draw_probability"}
CLUSTER_KEYS = {"address"}
TOP_KEYS = {"league", "rules", "limits", "ratings", "entrant", "cluster"}
CLUSTER_ADDRESS = re.compile(
    r"(?:(?:tcp|tls)://)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})"
)

# Sizes a league may have (docs/leagues.md, "Ranges and sizes"): past them it could not
# finish, or its schedule could not even be drawn, in any reasonable time.
MAX_FILE_BYTES = 1 << 20  # 1 MiB: settings and one [[entrant]] table per bot
MAX_ENTRANTS = 1_000
MAX_ROUNDS = 10_000
MAX_MATCHES = 100_000
MAX_GAMES = 1_000_000  # about 100 hours at 160 games a minute (docs/benchmarks.md)
MAX_DRAWS = 1_000_000  # matches x entrants of balanced and gauntlet: 30-54 s to draw
MAX_FAULTS = 100_000  # max_faults and forfeit_faults: more than any game has decisions
FAULTS_WHAT = f"a whole number of at least 1 and at most {MAX_FAULTS:,}"

# The keys only some schedules read, and what each does: in a file whose schedule does
# not read it, the key is refused (it would silently do nothing).
SCHEDULE_KEYS = {
    "rounds": (Schedule.ROUND_ROBIN,),
    "matches": (Schedule.BALANCED, Schedule.GAUNTLET),
    "candidates": (Schedule.GAUNTLET,),
}
KEY_DOES = {
    "rounds": "rounds is how many times round-robin plays every table",
    "matches": "matches is how many matches balanced and gauntlet play",
    "candidates": "candidates names the entrants under test in a gauntlet",
}
SCHEDULE_READS = {
    Schedule.ROUND_ROBIN: "round-robin plays every table `rounds` times",
    Schedule.BALANCED: "balanced plays `matches` tables chosen for balance",
    Schedule.GAUNTLET: "gauntlet plays `matches` matches of the `candidates` against the field",
}

# TrueSkill's parameters (docs/ratings.md). Its updates are scale-free, so what matters
# is the ratios: with sigma or tau above 100 x beta, or a draw probability below 0.001,
# its pure-Python updates were measured to fail (a negative variance) on tied ranks.
RATING_RANGES = {
    "mu": (-1e6, 1e6, "a number from -1000000 to 1000000"),
    "sigma": (0.001, 1e6, "a positive number from 0.001 to 1000000"),
    "beta": (0.001, 1e6, "a positive number from 0.001 to 1000000"),
    "tau": (0.0, 1e6, "a number from 0 to 1000000"),
    "draw_probability": (0.001, 0.999, "a probability from 0.001 to 0.999"),
}
RATING_RATIO = 100  # sigma and tau at most this many betas


@dataclass(frozen=True)
class Entrant:
    name: str
    bot: str  # a bot spec; relative paths in a command resolve against `base_dir`


@dataclass(frozen=True)
class Ratings:
    """TrueSkill parameters (docs/ratings.md, "Parameters", says why these defaults)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 0.0  # a bot does not drift between games; a new version is a new entrant
    draw_probability: float = 0.02


@dataclass(frozen=True)
class Limits(RemoteSettings):
    """A league's `[limits]`: each bot's limits (`RemoteSettings`' fields, defined once
    there and shared with `arena play`'s options), and the league's own: faults before a
    bot forfeits its seat's decisions, whether bots are sandboxed, and their resources."""

    max_faults: int = 5
    sandbox: SandboxMode = SandboxMode.ON  # off: started bots run with the resource limits only
    bot: SandboxLimits = field(default_factory=SandboxLimits)

    def sandbox_settings(self, hidden: tuple[Path, ...] = ()) -> Sandbox:
        """How this league confines its started bots."""
        return Sandbox(enabled=self.sandbox == SandboxMode.ON, limits=self.bot, hidden=hidden)


class LockedSettings(TypedDict, total=False):
    """The settings a league is stored with (`leagues.settings`, JSON): what fixes its
    schedule, rules and ratings, so a resume that changed one is refused. Keys a
    schedule does not read are left out, and `history` is there once a league grew;
    a database of an older arena may lack later keys."""

    game: str
    seed: str
    schedule: str
    rounds: int
    matches: int
    candidates: list[str]
    rotations: str
    rate_by: str
    forfeit_faults: int
    rules: dict[str, Any]
    entrants: list[str]
    ratings: dict[str, float]
    history: list[dict[str, Any]]  # the sizes a grown league had (store.schema.history_of)


@dataclass(frozen=True)
class LeagueConfig:
    path: Path
    name: str
    game: str
    seed: str
    schedule: Schedule
    rounds: int
    matches: int
    candidates: tuple[str, ...]
    rotations: Rotations
    rate_by: RateBy
    forfeit_faults: int
    rules: dict[str, Any]
    limits: Limits
    ratings: Ratings
    entrants: tuple[Entrant, ...]
    options: Any = field(compare=False, default=None)  # the game's parsed rule options
    # The secret the deals come from (arena/play/deal_keys.py): the file's, if it gives
    # one; `arena run` puts the stored key here before any match is played. Never in
    # `locked_settings`, which tables and reports show.
    deal_key: str = field(default="", repr=False)
    # The Dask scheduler that plays the matches (`[cluster] address`, docs/cluster.md);
    # "" for worker processes on this machine. Where matches are played changes no result.
    cluster: str = ""

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def engine(self) -> Game:
        """The league's game engine (a dict lookup in the registry of games)."""
        return get_game(self.game)

    def rule_options(self) -> dict[str, Any]:
        """The league's rule options as plain data (the game's `options_dict`)."""
        return self.engine.options_dict(self.options)

    def locked_settings(self) -> LockedSettings:
        """The settings a stored league was scheduled and rated with: changing any of them
        would change the schedule, the rules or the ratings, so a resume refuses it."""
        settings: LockedSettings = {
            "game": self.game,
            "seed": self.seed,
            "schedule": self.schedule,
            "rounds": self.rounds,
            "matches": self.matches,
            "candidates": list(self.candidates),
            "rotations": self.rotations,
            "rate_by": self.rate_by,
            "forfeit_faults": self.forfeit_faults,
            "rules": self.rule_options(),
            "entrants": [e.name for e in self.entrants],
            "ratings": dict(self.ratings.__dict__),
        }
        # A key the schedule does not read changes nothing, and a file may no longer
        # carry it: a league stored when files could is resumed without it.
        for key, schedules in SCHEDULE_KEYS.items():
            if self.schedule not in schedules:
                del settings[key]
        return settings


class TableReader:
    """Typed reads from one TOML table, with errors that name file, table and key."""

    def __init__(self, path: Path, table: str, data: Any, allowed: set[str]) -> None:
        self.path, self.table = path, table
        if not isinstance(data, dict):
            self.fail("", f"must be a table ([{table}])")
        unknown = sorted(set(data) - allowed)
        if unknown:
            key = unknown[0]
            if not key.isidentifier() or len(key) > 40:  # one line, and a short one
                key = shown(key)
            self.fail(key, "is not a known key; known keys: " + ", ".join(sorted(allowed)))
        self.data = data

    def fail(self, key: str, problem: str) -> None:
        where = f"[{self.table}] {key}".strip() if self.table else key
        raise ConfigError(f"{self.path}: {where} {problem}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any, what: str) -> Any:
        value = self.data.get(key, default)
        if value is None:
            self.fail(key, f"is required: {what}")
        ok = isinstance(value, kind) and not (isinstance(value, bool) and bool not in _tuple(kind))
        if not ok:
            self.fail(key, f"must be {what}, not {shown(value)}")
        return value

    def text(self, key: str, default: str | None, what: str) -> str:
        """A string with something in it besides spaces."""
        value = self.get(key, str, default, what)
        if not value.strip():
            self.fail(key, f"must not be empty: {what}")
        return value

    def choice(self, key: str, choices: tuple[str, ...], default: str | None) -> str:
        value = self.data.get(key, default)
        if value is None:
            self.fail(key, f"is required: one of {', '.join(choices)}")
        if value not in choices:
            self.fail(key, f"must be one of {', '.join(choices)}; got {shown(value)}")
        return str(value)  # plain text: a default may be an enum member

    def checked(self, key: str, default: float, problem: Any) -> float:
        """A number `problem(value)` finds nothing wrong with (finite, in its range)."""
        value = self.data.get(key, default)
        said = problem(value)
        if said:
            self.fail(key, said)
        return float(value)

    def number(self, key: str, default: float, low: float, high: float, what: str) -> float:
        return self.checked(key, default, lambda v: number_problem(v, low, high, what))

    def integer(self, key: str, default: int, low: int, what: str, high: int | None = None) -> int:
        value = self.get(key, int, default, what)
        if value < low or (high is not None and value > high):
            self.fail(key, f"must be {what}; got {shown(value)}")
        return value


def shown(value: Any, limit: int = 80) -> str:
    """`repr(value)`, cut to `limit` characters: an error line quotes what it was given,
    and a league file may hold a megabyte in one string."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def bot_spec_problem(spec: str, base_dir: Path | None = None) -> str | None:
    """What is wrong with a bot spec that can be told without running it
    (`arena.bots.spec.check_spec`: also a command that cannot be split into
    arguments); None when nothing is."""
    from arena.bots.spec import check_spec

    try:
        check_spec(spec, base_dir)
    except ConfigError as err:
        return str(err)
    return None


ENTRANT_NAME_LIMIT = 64  # characters, as a bot's name from its handshake


def check_entrant_name(name: str, what: str = "entrant") -> str | None:
    """What is wrong with an `[[entrant]]` name, or with `what`'s (None when nothing
    is). A name is printed in every table (text, markdown, CSV), report, page heading
    and log folder: a newline, an escape sequence, a direction override (U+202E turns the
    text beside it around) or a `|` in it would break a table's rows or columns or
    mislead the reader, surrounding or nothing but spaces would make two names look
    alike or show nothing, and a name of dots alone (`..`) is no page address."""
    if not name.strip():
        return f"must not be empty: give the {what} a name its table can show"
    if not name.strip("."):
        return f"{shown(name)} must not be dots alone: a web address cannot hold it"
    if name != name.strip():
        return f"{shown(name)} must not begin or end with spaces"
    bad = next((ch for ch in name if not shows(ch)), None)
    if bad is not None:
        return f"{shown(name)} must be printable text: it holds the control character {bad!r}"
    if "|" in name:
        return f"{shown(name)} must not hold '|': it separates a markdown table's columns"
    if len(name) > ENTRANT_NAME_LIMIT:
        return f"{shown(name)} must be at most {ENTRANT_NAME_LIMIT} characters; it has {len(name)}"
    return None


def workers_warning(workers: int | None, cores: int | None = None) -> str | None:
    """One line to show before a run whose `--workers` exceed the machine's cores
    (`os.cpu_count()` unless `cores` is given), else None. Allowed, but every bot then
    shares a core with others, and an innocent bot may time out."""
    cores = cores if cores is not None else os.cpu_count() or 1
    if workers is None or workers <= cores:
        return None
    return (
        f"warning: --workers {workers} is more than this machine's {cores} cores: bots "
        "will share cores and may time out through no fault of their own "
        f"(--workers {cores} or fewer avoids it)"
    )


def schedule_size(
    schedule: str, entrants: int, seats: int, *, rounds: int, matches: int, rotations: str
) -> tuple[int, str]:
    """How many games a schedule plays, and the sum that says so (for its messages)."""
    per_match = seats if rotations == Rotations.CYCLIC else math.factorial(seats)
    if schedule == Schedule.ROUND_ROBIN:
        tables = math.comb(entrants, seats)
        games = tables * rounds * per_match
        how = (
            f"{tables:,} tables of {seats} from {entrants} entrants x {rounds} rounds "
            f"x {per_match} games a match ({rotations} rotations)"
        )
        return games, how
    return matches * per_match, f"{matches:,} matches x {per_match} games ({rotations} rotations)"


def _read_league_text(path: Path, what: str = "league file") -> str:
    """The league file's text: a regular file of at most `MAX_FILE_BYTES` of UTF-8
    (so a FIFO, /dev/zero or a stray binary is refused rather than read forever)."""
    try:
        if not path.is_file():
            if not path.exists():
                raise ConfigError(f"{path}: no such {what}")
            raise ConfigError(f"{path}: is not a regular file; a {what} is a TOML file")
        with path.open("rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the {what}: {err}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(
            f"{path}: is larger than {MAX_FILE_BYTES:,} bytes (1 MiB), the most a league file "
            "may be: it holds settings and one [[entrant]] table per bot"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: is not UTF-8 text, as TOML must be ({err})") from None


def load_league(path: str | Path) -> LeagueConfig:
    """Read and validate a league file; ConfigError says what to fix.

    Everything that cannot work is refused here, before a database is opened or a bot
    started, naming the file, the table, the key, the value and what is allowed:
    wrong types, NaN and infinity, numbers out of their ranges, limits the kernel
    cannot grant, keys the schedule does not read, and leagues too large to finish."""
    path = Path(path)
    data = read_toml(path)
    top = TableReader(path, "", data, TOP_KEYS)
    if "league" not in data:
        top.fail("[league]", "is required: a [league] table with at least name and game")
    league = TableReader(path, "league", data["league"], LEAGUE_KEYS)
    table = _league_table(league)
    game = get_game(table.game)
    options = read_rules(path, top, data.get("rules", {}), game)
    limits = read_limits(path, data.get("limits", {}))
    address = _cluster_address(path, data.get("cluster", {}))
    ratings = read_ratings(path, data.get("ratings", {}))
    entrants = _entrants(path, top, data.get("entrant", []), game.seats, table.game)
    _check_candidates(league, table, {e.name for e in entrants})
    _check_size(league, table, len(entrants), game.seats)
    return LeagueConfig(
        path=path.resolve(),
        name=table.name,
        game=table.game,
        seed=str(table.seed),
        schedule=Schedule(table.schedule),
        rounds=table.rounds,
        matches=table.matches,
        candidates=tuple(table.candidates),
        rotations=table.rotations,
        rate_by=table.rate_by,
        forfeit_faults=table.forfeit,
        rules=dict(data.get("rules", {})),
        limits=limits,
        ratings=ratings,
        entrants=tuple(entrants),
        options=options,
        deal_key=table.deal_key,
        cluster=address,
    )


def read_toml(path: Path, what: str = "league file") -> dict[str, Any]:
    """The league file's TOML, or a ConfigError saying why it cannot be read."""
    text = _read_league_text(path, what)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    except RecursionError:
        raise ConfigError(f"{path}: arrays or tables nested too deeply to be read") from None


@dataclass(frozen=True)
class _LeagueTable:
    """The `[league]` table, checked key by key."""

    name: str
    game: str
    seed: int | str
    schedule: str
    rounds: int
    matches: int
    candidates: list[str]
    rotations: Rotations
    rate_by: RateBy
    forfeit: int
    deal_key: str


def _league_table(league: TableReader) -> _LeagueTable:
    """The `[league]` table's keys, each checked alone (and the keys the schedule does
    not read refused)."""
    name = nfc(league.text("name", None, "the league's name (a string)"))
    problem = check_entrant_name(name, "league")
    if problem:
        league.fail("name", problem)
    game_name = league.choice("game", tuple(GAMES), None)
    seed = league.get("seed", (int, str), 1, "an integer or a string")
    if isinstance(seed, str) and not seed.strip():
        league.fail("seed", "must not be empty: an integer or a string (the default is 1)")
    schedule = league.choice("schedule", SCHEDULES, Schedule.ROUND_ROBIN)
    for key, schedules in SCHEDULE_KEYS.items():
        if key in league.data and schedule not in schedules:
            league.fail(
                key,
                f"does nothing with schedule = {schedule!r}: {KEY_DOES[key]}, and "
                f"{SCHEDULE_READS[schedule]}. Remove it, or choose a schedule that reads it",
            )
    rounds = league.integer(
        "rounds", 1, 1, f"a whole number of at least 1 and at most {MAX_ROUNDS:,}", MAX_ROUNDS
    )
    matches = 0
    if schedule in (Schedule.BALANCED, Schedule.GAUNTLET):
        if "matches" not in league.data:
            league.fail("matches", f"is required with schedule = {schedule!r}: how many matches")
        matches = league.integer(
            "matches", 0, 1, f"a whole number of matches from 1 to {MAX_MATCHES:,}", MAX_MATCHES
        )
    candidates = league.get("candidates", list, [], "a list of entrant names")
    for candidate in candidates:
        if not isinstance(candidate, str):
            league.fail("candidates", f"must be a list of entrant names; got {shown(candidate)}")
    candidates = [nfc(c) for c in candidates]
    rotations = Rotations(league.choice("rotations", ROTATIONS, Rotations.CYCLIC))
    rate_by = RateBy(league.choice("rate_by", RATE_BY, RATE_BY_DEFAULT))
    forfeit = league.integer("forfeit_faults", 1, 1, FAULTS_WHAT, MAX_FAULTS)
    deal_key = league.get("deal_key", str, "", "a string of hex digits")
    if "deal_key" in league.data:
        problem = deal_key_problem(deal_key)
        if problem:
            league.fail("deal_key", problem)
        deal_key = normal_key(deal_key)
    return _LeagueTable(
        name=name,
        game=game_name,
        seed=seed,
        schedule=schedule,
        rounds=rounds,
        matches=matches,
        candidates=candidates,
        rotations=rotations,
        rate_by=rate_by,
        forfeit=forfeit,
        deal_key=deal_key,
    )


def read_rules(path: Path, top: TableReader, rules_data: Any, game: Game) -> Any:
    """The `[rules]` table, parsed by the game itself."""
    if not isinstance(rules_data, dict):
        top.fail("[rules]", "must be a table of the game's rule options")
    try:
        return game.parse_options(rules_data)
    except ConfigError as err:
        raise ConfigError(f"{path}: [rules] {err}") from None


def _cluster_address(path: Path, data: Any) -> str:
    """The `[cluster]` table's scheduler address ("" when there is none)."""
    cluster = TableReader(path, "cluster", data, CLUSTER_KEYS)
    address = cluster.get("address", str, "", "a Dask scheduler's address, tcp://HOST:PORT")
    if "address" in cluster.data:
        problem = cluster_address_problem(address)
        if problem:
            cluster.fail("address", problem)
    return address


def _entrants(
    path: Path, top: TableReader, raw_entrants: Any, seats: int, game_name: str
) -> list[Entrant]:
    """The `[[entrant]]` tables: each name and bot spec checked, names unique, enough
    of them for a table, and not too many."""
    if not isinstance(raw_entrants, list) or not raw_entrants:
        top.fail("[[entrant]]", "is required: one [[entrant]] table per bot, with name and bot")
    if len(raw_entrants) > MAX_ENTRANTS:
        top.fail(
            "[[entrant]]",
            f"tables: at most {MAX_ENTRANTS:,} entrants in a league, this file has "
            f"{len(raw_entrants):,}",
        )
    entrants = []
    for i, raw in enumerate(raw_entrants, start=1):
        ent = TableReader(path, f"entrant {i}", raw, {"name", "bot"})
        entrant = Entrant(
            nfc(ent.get("name", str, None, "the entrant's name (a string)")),
            ent.get("bot", str, None, "a bot spec: builtin:NAME, grpc:... or a command"),
        )
        problem = check_entrant_name(entrant.name)
        if problem:
            ent.fail("name", problem)
        problem = bot_spec_problem(entrant.bot, path.parent)
        if problem:
            ent.fail("bot", f"of {shown(entrant.name)}: {problem}")
        entrants.append(entrant)
    seen: set[str] = set()
    for entrant_name in (e.name for e in entrants):
        if entrant_name in seen:
            top.fail(
                "[[entrant]]",
                f"names must be unique; {shown(entrant_name)} appears twice (names are "
                "compared in Unicode's NFC form, so one written with a combining accent and "
                "one with the accented letter are the same name)",
            )
        seen.add(entrant_name)
    if len(entrants) < seats:
        top.fail(
            "[[entrant]]",
            f"tables: {game_name} needs at least {seats} entrants, this file has {len(entrants)}",
        )
    return entrants


def _check_candidates(league: TableReader, table: _LeagueTable, names: set[str]) -> None:
    """A gauntlet's candidates: entrants, each named once, and some when it needs them."""
    candidates = table.candidates
    for candidate in candidates:
        if candidate not in names:
            league.fail("candidates", f"names {shown(candidate)}, which is not an entrant")
    if table.schedule == Schedule.GAUNTLET and not candidates:
        league.fail("candidates", "is required with schedule = 'gauntlet'")
    if len(set(candidates)) < len(candidates):
        repeated = next(c for c in candidates if candidates.count(c) > 1)
        league.fail("candidates", f"must not repeat a name; {shown(repeated)} appears twice")


def _check_size(league: TableReader, table: _LeagueTable, entrants: int, seats: int) -> None:
    """A league small enough to draw its schedule and to finish (`MAX_GAMES`,
    `MAX_DRAWS`)."""
    schedule, matches = table.schedule, table.matches
    games, how = schedule_size(
        schedule, entrants, seats, rounds=table.rounds, matches=matches, rotations=table.rotations
    )
    if games > MAX_GAMES:
        league.fail(
            "schedule",
            f"= {schedule!r} would play {games:,} games ({how}), more than the "
            f"{MAX_GAMES:,} a league may play: "
            + (
                "lower rounds, or use schedule = 'balanced' with fewer matches"
                if schedule == Schedule.ROUND_ROBIN
                else "lower matches, or use rotations = 'cyclic'"
            ),
        )
    if schedule != Schedule.ROUND_ROBIN and matches * entrants > MAX_DRAWS:
        league.fail(
            "matches",
            f"x entrants must be at most {MAX_DRAWS:,} with schedule = {schedule!r} (each "
            "match is drawn looking at every entrant, so larger schedules take too long to "
            f"draw); this file has {matches:,} x {entrants:,} = {matches * entrants:,}",
        )


def cluster_address_problem(address: str) -> str | None:
    """Why `address` is not a Dask scheduler's address (tcp://HOST:PORT, tls://HOST:PORT
    or HOST:PORT), or None."""
    match = CLUSTER_ADDRESS.fullmatch(address)
    if match is None or not 1 <= int(match.group(2)) <= 65535:
        return (
            f"must be a Dask scheduler's address, tcp://HOST:PORT (as `dask scheduler` "
            f"prints it); got {shown(address)}"
        )
    return None


def read_limits(path: Path, data: Any) -> Limits:
    """The `[limits]` table: the time limits (`seconds_problem`, the CLI's own checks),
    the fault limit, and the sandbox limits, refused above what the kernel can grant."""
    lim = TableReader(path, "limits", data, LIMIT_KEYS)
    defaults = SandboxLimits()
    bot = SandboxLimits(
        **{
            key: (
                lim.number(  # a float field (cpus): fractions of a core allowed
                    key,
                    getattr(defaults, key),
                    SMALLEST_CPUS,
                    ARENA_CEILINGS[key][0],
                    f"a number from {SMALLEST_CPUS}",
                )
                if isinstance(getattr(defaults, key), float)
                else lim.integer(key, getattr(defaults, key), 1, "a whole number >= 1")
            )
            for key in SANDBOX_LIMIT_KEYS
            if key in lim.data or key not in DERIVED_LIMITS  # those: a default of their own
        }
    )
    try:
        bot.check(set(lim.data))
    except ConfigError as err:
        raise ConfigError(f"{path}: [limits] {err}") from None
    return Limits(
        move_timeout=lim.checked("move_timeout", 1.0, lambda v: seconds_problem("move_timeout", v)),
        startup_timeout=lim.checked(
            "startup_timeout", 10.0, lambda v: seconds_problem("startup_timeout", v)
        ),
        max_faults=lim.integer("max_faults", 5, 1, FAULTS_WHAT, MAX_FAULTS),
        time_bank=lim.checked("time_bank", 0.0, lambda v: seconds_problem("time_bank", v)),
        transport=TransportKind(lim.choice("transport", TRANSPORTS, TransportKind.STREAM)),
        sandbox=SandboxMode(lim.choice("sandbox", SANDBOX_MODES, SandboxMode.ON)),
        game_time=lim.checked(
            "game_time", DEFAULT_GAME_TIME, lambda v: seconds_problem("game_time", v)
        ),
        clock=Clock(lim.choice("clock", CLOCKS, Clock.WALL)),
        bot=bot,
    )


def read_ratings(path: Path, data: Any) -> Ratings:
    """The `[ratings]` table: TrueSkill's parameters, finite, in `RATING_RANGES`, and
    sigma and tau at most `RATING_RATIO` betas."""
    rat = TableReader(path, "ratings", data, RATING_KEYS)
    defaults = Ratings()
    values = {
        key: rat.number(key, getattr(defaults, key), low, high, what)
        for key, (low, high, what) in RATING_RANGES.items()
    }
    for key in ("sigma", "tau"):
        if values[key] > RATING_RATIO * values["beta"]:
            rat.fail(
                key,
                f"must be at most {RATING_RATIO} x beta ({RATING_RATIO * values['beta']:g} "
                f"with beta = {values['beta']:g}): TrueSkill's updates fail on tied ranks "
                f"beyond it; got {values[key]:g}",
            )
    return Ratings(**values)
