"""League files (TOML): read, validate, and say exactly what is wrong and where.

Every error names the file, the key and what is allowed, so an organiser can fix a
league file without reading code.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from arena.bots.remote.settings import TransportKind
from arena.bots.sandbox import Sandbox, SandboxLimits
from arena.errors import ConfigError
from arena.games import GAMES, get_game

SCHEDULES = ("round-robin", "balanced", "gauntlet")
ROTATIONS = ("cyclic", "all")
RATE_BY = ("match", "deal", "game")
RATE_BY_DEFAULT = "deal"  # chosen by `arena bench rating` (docs/ratings.md)
TRANSPORTS = tuple(TransportKind)

LEAGUE_KEYS = {
    "name", "game", "seed", "schedule", "rounds", "matches", "candidates", "rotations",
    "rate_by", "forfeit_faults",
}  # fmt: skip
SANDBOX_LIMIT_KEYS = tuple(f.name for f in fields(SandboxLimits))
LIMIT_KEYS = {
    "move_timeout", "startup_timeout", "max_faults", "time_bank", "transport", "sandbox",
    *SANDBOX_LIMIT_KEYS,
}  # fmt: skip
RATING_KEYS = {"mu", "sigma", "beta", "tau", "draw_probability"}
TOP_KEYS = {"league", "rules", "limits", "ratings", "entrant"}


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
class Limits:
    move_timeout: float = 1.0
    startup_timeout: float = 10.0
    max_faults: int = 5
    time_bank: float = 0.0
    transport: TransportKind = TransportKind.STREAM
    sandbox: str = "on"  # "off": started bots run with the resource limits only
    bot: SandboxLimits = field(default_factory=SandboxLimits)

    def sandbox_settings(self, hidden: tuple[Path, ...] = ()) -> Sandbox:
        """How this league confines its started bots."""
        return Sandbox(enabled=self.sandbox == "on", limits=self.bot, hidden=hidden)


@dataclass(frozen=True)
class LeagueConfig:
    path: Path
    name: str
    game: str
    seed: str
    schedule: str
    rounds: int
    matches: int
    candidates: tuple[str, ...]
    rotations: str
    rate_by: str
    forfeit_faults: int
    rules: dict[str, Any]
    limits: Limits
    ratings: Ratings
    entrants: tuple[Entrant, ...]
    options: Any = field(compare=False, default=None)  # the game's parsed rule options

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    def locked_settings(self) -> dict[str, Any]:
        """The settings a stored league was scheduled and rated with: changing any of them
        would change the schedule, the rules or the ratings, so a resume refuses it."""
        return {
            "game": self.game,
            "seed": self.seed,
            "schedule": self.schedule,
            "rounds": self.rounds,
            "matches": self.matches,
            "candidates": list(self.candidates),
            "rotations": self.rotations,
            "rate_by": self.rate_by,
            "forfeit_faults": self.forfeit_faults,
            "rules": get_game(self.game).options_dict(self.options),
            "entrants": [e.name for e in self.entrants],
            "ratings": dict(self.ratings.__dict__),
        }


class _Reader:
    """Typed reads from one TOML table, with errors that name file, table and key."""

    def __init__(self, path: Path, table: str, data: Any, allowed: set[str]) -> None:
        self.path, self.table = path, table
        if not isinstance(data, dict):
            self.fail("", f"must be a table ([{table}])")
        unknown = sorted(set(data) - allowed)
        if unknown:
            self.fail(unknown[0], "is not a known key; known keys: " + ", ".join(sorted(allowed)))
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
            self.fail(key, f"must be {what}, not {value!r}")
        return value

    def choice(self, key: str, choices: tuple[str, ...], default: str | None) -> str:
        value = self.data.get(key, default)
        if value is None:
            self.fail(key, f"is required: one of {', '.join(choices)}")
        if value not in choices:
            self.fail(key, f"must be one of {', '.join(choices)}; got {value!r}")
        return value

    def number(self, key: str, default: float, low: float, what: str) -> float:
        value = self.get(key, (int, float), default, what)
        if value < low:
            self.fail(key, f"must be {what}; got {value!r}")
        return float(value)

    def integer(self, key: str, default: int, low: int, what: str) -> int:
        value = self.get(key, int, default, what)
        if value < low:
            self.fail(key, f"must be {what}; got {value!r}")
        return value


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def bot_spec_problem(spec: str) -> str | None:
    """What is wrong with a bot spec that can be told without running it
    (`arena.bots.spec.check_spec`); None when nothing is."""
    from arena.bots.spec import check_spec

    try:
        check_spec(spec)
    except ConfigError as err:
        return str(err)
    return None


ENTRANT_NAME_LIMIT = 64  # characters, as a bot's name from its handshake


def check_entrant_name(name: str) -> str | None:
    """What is wrong with an `[[entrant]]` name (None when nothing is). A name is printed
    in every table (text, markdown, CSV), report and log folder: a newline, an escape
    sequence or a `|` in it would break a table's rows or columns, and surrounding or
    nothing but spaces would make two entrants look alike or show nothing."""
    if not name.strip():
        return "must not be empty: give the entrant a name its table can show"
    if name != name.strip():
        return f"{name!r} must not begin or end with spaces"
    bad = next((ch for ch in name if not ch.isprintable()), None)
    if bad is not None:
        return f"{name!r} must be printable text: it holds the control character {bad!r}"
    if "|" in name:
        return f"{name!r} must not hold '|': it separates a markdown table's columns"
    if len(name) > ENTRANT_NAME_LIMIT:
        return f"{name!r} must be at most {ENTRANT_NAME_LIMIT} characters; it has {len(name)}"
    return None


def load_league(path: str | Path) -> LeagueConfig:
    """Read and validate a league file; ConfigError says what to fix."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such league file") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the league file: {err}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    top = _Reader(path, "", data, TOP_KEYS)
    if "league" not in data:
        top.fail("[league]", "is required: a [league] table with at least name and game")
    league = _Reader(path, "league", data["league"], LEAGUE_KEYS)
    name = league.get("name", str, None, "the league's name (a string)")
    if not name.strip():
        league.fail("name", "must not be empty")
    game_name = league.choice("game", tuple(GAMES), None)
    game = get_game(game_name)
    seed = league.get("seed", (int, str), 1, "an integer or a string")
    schedule = league.choice("schedule", SCHEDULES, "round-robin")
    rounds = league.integer("rounds", 1, 1, "a whole number of at least 1")
    matches = league.integer("matches", 0, 0, "a whole number of matches (0 or more)")
    if schedule in ("balanced", "gauntlet") and matches < 1:
        league.fail("matches", f"is required with schedule = {schedule!r}: how many matches")
    candidates = league.get("candidates", list, [], "a list of entrant names")
    rotations = league.choice("rotations", ROTATIONS, "cyclic")
    rate_by = league.choice("rate_by", RATE_BY, RATE_BY_DEFAULT)
    forfeit = league.integer("forfeit_faults", 1, 1, "a whole number of at least 1")

    rules_data = data.get("rules", {})
    if not isinstance(rules_data, dict):
        top.fail("[rules]", "must be a table of the game's rule options")
    try:
        options = game.parse_options(rules_data)
    except ConfigError as err:
        raise ConfigError(f"{path}: [rules] {err}") from None

    lim = _Reader(path, "limits", data.get("limits", {}), LIMIT_KEYS)
    limits = Limits(
        move_timeout=lim.number("move_timeout", 1.0, 0.001, "a positive number of seconds"),
        startup_timeout=lim.number("startup_timeout", 10.0, 0.1, "a number of seconds >= 0.1"),
        max_faults=lim.integer("max_faults", 5, 1, "a whole number of at least 1"),
        time_bank=lim.number("time_bank", 0.0, 0.0, "a number of seconds (0 or more)"),
        transport=TransportKind(lim.choice("transport", TRANSPORTS, TransportKind.STREAM)),
        sandbox=lim.choice("sandbox", ("on", "off"), "on"),
        bot=SandboxLimits(
            **{
                key: lim.integer(key, getattr(SandboxLimits(), key), 1, "a whole number >= 1")
                for key in SANDBOX_LIMIT_KEYS
            }
        ),
    )
    rat = _Reader(path, "ratings", data.get("ratings", {}), RATING_KEYS)
    defaults = Ratings()
    ratings = Ratings(
        mu=rat.number("mu", defaults.mu, -1e9, "a number"),
        sigma=rat.number("sigma", defaults.sigma, 1e-9, "a positive number"),
        beta=rat.number("beta", defaults.beta, 1e-9, "a positive number"),
        tau=rat.number("tau", defaults.tau, 0.0, "a number (0 or more)"),
        draw_probability=rat.number(
            "draw_probability", defaults.draw_probability, 1e-6, "a probability above 0"
        ),
    )
    if ratings.draw_probability >= 1:
        rat.fail("draw_probability", "must be below 1")

    raw_entrants = data.get("entrant", [])
    if not isinstance(raw_entrants, list) or not raw_entrants:
        top.fail("[[entrant]]", "is required: one [[entrant]] table per bot, with name and bot")
    entrants = []
    for i, raw in enumerate(raw_entrants, start=1):
        ent = _Reader(path, f"entrant {i}", raw, {"name", "bot"})
        entrant = Entrant(
            ent.get("name", str, None, "the entrant's name (a string)"),
            ent.get("bot", str, None, "a bot spec: builtin:NAME, grpc:... or a command"),
        )
        problem = check_entrant_name(entrant.name)
        if problem:
            ent.fail("name", problem)
        problem = bot_spec_problem(entrant.bot)
        if problem:
            ent.fail("bot", f"of {entrant.name!r}: {problem}")
        entrants.append(entrant)
    names = [e.name for e in entrants]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        top.fail("[[entrant]]", f"names must be unique; {duplicate!r} appears twice")
    if len(entrants) < game.seats:
        top.fail(
            "[[entrant]]",
            f"tables: {game_name} needs at least {game.seats} entrants, "
            f"this file has {len(entrants)}",
        )
    for candidate in candidates:
        if candidate not in names:
            league.fail("candidates", f"names {candidate!r}, which is not an entrant")
    if schedule == "gauntlet" and not candidates:
        league.fail("candidates", "is required with schedule = 'gauntlet'")
    repeated = next((c for c in candidates if candidates.count(c) > 1), None)
    if repeated is not None:
        league.fail("candidates", f"must not repeat a name; {repeated!r} appears twice")
    return LeagueConfig(
        path=path.resolve(),
        name=name,
        game=game_name,
        seed=str(seed),
        schedule=schedule,
        rounds=rounds,
        matches=matches,
        candidates=tuple(candidates),
        rotations=rotations,
        rate_by=rate_by,
        forfeit_faults=forfeit,
        rules=dict(rules_data),
        limits=limits,
        ratings=ratings,
        entrants=tuple(entrants),
        options=options,
    )
