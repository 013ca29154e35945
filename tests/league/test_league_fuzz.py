"""League files at random: `load_league` returns a config or raises `ConfigError`.

Hypothesis writes league files with every key of every table given valid and invalid
values (wrong types, NaN and infinity, huge numbers, empty strings, odd unicode,
nested arrays and tables), unknown keys, missing tables, and now and then plain
garbage. Whatever the file, reading it must end in a `LeagueConfig` or a one-line
`ConfigError` naming the file: never another exception (a traceback for the user),
and never a hang (each read is stopped by an alarm after a few seconds, and the whole
test is bounded in time).
"""

from __future__ import annotations

import json
import math
import signal
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.errors import ConfigError
from arena.games import GAMES, get_game
from arena.league.definition.config import (
    LEAGUE_KEYS,
    LIMIT_KEYS,
    RATING_KEYS,
    LeagueConfig,
    load_league,
)

RULES = {  # each game's rule options, from the engine itself
    name: tuple(get_game(name).options_dict(get_game(name).parse_options({}))) for name in GAMES
}
SEATS = {name: get_game(name).seats for name in GAMES}
EXAMPLES = 150
PER_READ_SECONDS = 5  # one read of a league file (a megabyte at most) takes milliseconds
WHOLE_TEST_SECONDS = 25

# -- values -------------------------------------------------------------------------

plausible_text = st.sampled_from(
    ["", " ", "trix", "trianon", "round-robin", "balanced", "gauntlet", "cyclic", "all",
     "deal", "match", "game", "stream", "unary", "on", "off", "none", "king-of-hearts",
     "7H", "7h", "true", "false", "yes", "1", "4", " 2 ", "2.7", "²", "٣", "e1", "e2",
     "builtin:random", "builtin:first", "builtin:nope", "grpc:", "grpc:host", "grpc:h:1",
     "grpc:unix:", "python 'unclosed", "python bot.py \\", "python bot.py\x00",
     "python -m arena.strategies.uniform", "名前", "🃏", "\u200b", "\ufeff", "a\nb"]
)  # fmt: skip
numbers = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, 1, 2, 3, 4, 5, 1000, 1001, 10**9, 2**63, -1, 100_000, 1_000_000]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, 1e9, 1e-9, 0.0, -0.0, 0.5, 2.7, 1e300]),
)
scalars = st.one_of(numbers, st.booleans(), plausible_text, st.text(max_size=30))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=3),
    ),
    max_leaves=8,
)


VALID: dict[str, list[Any]] = {  # values each key accepts: most keys of an example get one
    # [league]
    "name": ["l", "spring cup", "名前"], "game": ["trix", "trianon"], "seed": [1, "s", -7],
    "schedule": ["round-robin", "balanced", "gauntlet"], "rounds": [1, 2], "matches": [1, 5],
    "candidates": [["e1"], ["e1", "e2"]], "rotations": ["cyclic", "all"],
    "rate_by": ["margin", "deal", "match", "game"], "forfeit_faults": [1, 3],
    # [rules]
    "doubling": [True, False, "no"], "kingdoms": [1, 4, "2", 3.0], "partners": [False, "yes"],
    "tiebreak": ["none", "king-of-hearts"], "first_king_card": ["7H", "QS"],
    "target": [500, "300"], "max_deals": [200, 1000],
    # [limits]
    "move_timeout": [1.0, 0.5, 3600], "startup_timeout": [10.0, 600], "max_faults": [5],
    "time_bank": [0.0, 1.5], "transport": ["stream", "unary"], "sandbox": ["on", "off"],
    "processes": [256], "open_files": [1024], "file_size_mb": [64], "cpu_seconds": [600],
    "memory_mb": [1024, 512], "address_space_mb": [4096], "tmp_mb": [64], "cpus": [1.0, 0.5],
    # [ratings]
    "mu": [25.0, 0], "sigma": [8.3, 1], "beta": [4.1, 1], "tau": [0.0, 0.1],
    "draw_probability": [0.02, 0.5],
    # [[entrant]]
    "bot": ["builtin:random", "builtin:first", "python bot.py", "grpc:127.0.0.1:5"],
}  # fmt: skip
ABSENT = object()


def mostly(common: st.SearchStrategy[Any], rare: st.SearchStrategy[Any], odds: int = 7):
    """`common` `odds` times in `odds + 1`, else `rare` (one_of would not weigh them)."""
    return st.sampled_from([True] * odds + [False]).flatmap(lambda c: common if c else rare)


def value_of(key: str) -> st.SearchStrategy[Any]:
    """Mostly a value `key` accepts, else anything (an example then has a key or two
    wrong, so that the checks of every table, not only the first, are reached)."""
    return mostly(st.sampled_from(VALID[key]) if key in VALID else values, values, odds=9)


def table(keys: tuple[str, ...] | set[str]) -> st.SearchStrategy[dict[str, Any]]:
    """A table of some of `keys`, and now and then an unknown one."""
    known = st.fixed_dictionaries({}, optional={k: value_of(k) for k in sorted(keys)})
    unknown = st.dictionaries(st.text(min_size=1, max_size=10), values, min_size=1, max_size=1)
    return st.builds(lambda a, b: {**b, **a}, known, mostly(st.just({}), unknown, odds=15))


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly `strategy`; else the table is missing, or not a table at all."""
    return mostly(strategy, st.one_of(st.just(ABSENT), values), odds=15)


SCHEDULE_KEYS = {"round-robin": (), "balanced": ("matches",), "gauntlet": ("matches", "candidates")}
COMMON_LEAGUE_KEYS = sorted(LEAGUE_KEYS - {"name", "game", "schedule", "rounds", "matches",
                                           "candidates"})  # fmt: skip


def coherent_league(game: str, schedule: str) -> st.SearchStrategy[dict[str, Any]]:
    """A [league] table whose schedule has the keys it needs and none it ignores."""
    optional = {k: value_of(k) for k in COMMON_LEAGUE_KEYS}
    if schedule == "round-robin":
        optional["rounds"] = value_of("rounds")
    required = {k: value_of(k) for k in SCHEDULE_KEYS[schedule]}
    return st.fixed_dictionaries(
        {"name": value_of("name"), "game": mostly(st.just(game), values, odds=15),
         "schedule": st.just(schedule), **required},
        optional=optional,
    )  # fmt: skip


def document(game: str) -> st.SearchStrategy[dict[str, Any]]:
    """A league file's tables: mostly a league of `game` that could work, with a key or
    two given anything; now and then keys of the wrong schedule or game, too few
    entrants, a table missing or not a table."""
    league = mostly(
        st.sampled_from(sorted(SCHEDULE_KEYS)).flatmap(lambda s: coherent_league(game, s)),
        table(LEAGUE_KEYS),
    )
    other = next(name for name in GAMES if name != game)
    entrants = mostly(
        st.lists(entrant, min_size=SEATS[game], max_size=7, unique_by=lambda e: str(e["name"])),
        st.lists(entrant, max_size=7),
    )
    return st.builds(
        lambda **tables: {k: v for k, v in tables.items() if v is not ABSENT},
        league=maybe(league),
        rules=maybe(mostly(table(RULES[game]), table(RULES[other]))),
        limits=maybe(table(LIMIT_KEYS)),
        ratings=maybe(table(RATING_KEYS)),
        entrant=maybe(entrants),
    )


entrant = st.builds(
    lambda extra, name, bot: {**extra, "name": name, "bot": bot},
    table(()),
    mostly(st.sampled_from([f"e{i}" for i in range(1, 8)]), values, odds=15),
    value_of("bot"),
)
documents = st.sampled_from(sorted(GAMES)).flatmap(document)
garbage = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200),  # written as it is: most of it is not UTF-8
    st.integers(1, 5000).map(lambda n: "a = " + "[" * n + "]" * n),
    st.integers(1, 5000).map(lambda n: "a = " + "{b = " * n + "1" + "}" * n),
)

# -- writing TOML (the standard library reads it, but does not write it) ---------------


def toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes, plus DEL, which TOML wants escaped too."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{toml_string(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_document(doc: dict[str, Any]) -> str:
    """`doc` as a league file: tables as [tables], a list of tables as [[entrant]]s,
    anything else (a table given a plain value) as a top-level key, first."""
    plain, sections = [], []
    for key, value in doc.items():
        if key == "entrant" and isinstance(value, list) and all(isinstance(v, dict) for v in value):
            for item in value:
                body = "".join(f"{toml_string(k)} = {toml_value(v)}\n" for k, v in item.items())
                sections.append(f"[[entrant]]\n{body}")
        elif isinstance(value, dict):
            body = "".join(f"{toml_string(k)} = {toml_value(v)}\n" for k, v in value.items())
            sections.append(f"[{key}]\n{body}")
        else:
            plain.append(f"{key} = {toml_value(value)}\n")
    return "".join(plain) + "\n" + "\n".join(sections)


# -- the test -----------------------------------------------------------------------


class Hung(Exception):
    pass


@contextmanager
def alarm(seconds: int):
    def ring(*_: Any) -> None:
        raise Hung(f"load_league took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def read(path: Path, text: str | bytes) -> LeagueConfig | None:
    """Write `text` to `path` and read it as a league file: a config, or None after a
    one-line ConfigError naming the file; anything else fails the test."""
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with alarm(PER_READ_SECONDS):
        try:
            config = load_league(path)
        except ConfigError as err:
            message = str(err)
            assert message.startswith(f"{path}: "), message
            assert "\n" not in message and len(message) < 600, message
            return None
    assert isinstance(config, LeagueConfig)
    assert config.locked_settings()  # what a resume compares can be made of it
    for number in (config.limits.move_timeout, config.ratings.mu, config.ratings.sigma):
        assert math.isfinite(number)
    return config


@settings(
    max_examples=EXAMPLES,
    deadline=None,  # a slow read is caught by the alarm, a slow test by the bound below
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
@given(text=st.one_of(documents.map(toml_document), documents.map(toml_document), garbage))
def read_any_league_file(folder: Path, text: str | bytes) -> None:
    read(folder / "fuzz.toml", text)


@pytest.mark.slow
def test_a_league_file_is_a_config_or_a_config_error(tmp_path) -> None:
    started = time.monotonic()
    read_any_league_file(tmp_path)
    assert time.monotonic() - started < WHOLE_TEST_SECONDS


ODD_VALUES = [
    math.nan, math.inf, -math.inf, -0.0, 0, -1, 1, 2.0, 2.7, 1e300, 10**30, 2**63, True,
    False, "", " ", "0", "2", " 2 ", "2.7", "²", "٣", "nan", "inf", "\x00", "\u200b", "名前",
    "a\nb", "x" * 5000, [], [1, "a"], [["e1"]], {}, {"a": {"b": [math.nan]}},
]  # fmt: skip
ODD_KEYS = ["", " ", "a\nb", "x" * 5000, "名前", "\x00", "[x]", "name ", "Name"]


def base_document(game: str, key: str) -> dict[str, Any]:
    """A league of `game` that loads, with the schedule that reads `key`."""
    league: dict[str, Any] = {"name": "odd", "game": game}
    if key in ("matches", "candidates"):
        league |= {"schedule": "gauntlet", "matches": 2, "candidates": ["e1"]}
    entrants = [{"name": f"e{i}", "bot": "builtin:random"} for i in range(1, SEATS[game] + 1)]
    return {"league": league, "rules": {}, "limits": {}, "ratings": {}, "entrant": entrants}


@pytest.mark.slow
def test_every_key_of_every_table_given_every_odd_value(tmp_path) -> None:
    """The sweep random examples cannot promise: each key of each table (both games'
    rules) set to each of `ODD_VALUES`, and each of `ODD_KEYS` added to each table,
    the rest of the file valid."""
    started = time.monotonic()
    assert read(tmp_path / "base.toml", toml_document(base_document("trix", "name")))
    tried = 0
    for game in sorted(GAMES):
        tables = {"league": LEAGUE_KEYS, "rules": RULES[game], "limits": LIMIT_KEYS,
                  "ratings": RATING_KEYS, "entrant": ("name", "bot")}  # fmt: skip
        for table_name, keys in tables.items():
            for key in sorted(keys):
                for value in ODD_VALUES:
                    doc = base_document(game, key)
                    where = doc["entrant"][0] if table_name == "entrant" else doc[table_name]
                    where[key] = value
                    read(tmp_path / "odd.toml", toml_document(doc))
                    tried += 1
            for key in ODD_KEYS:  # a key no table knows
                doc = base_document(game, "name")
                where = doc["entrant"][0] if table_name == "entrant" else doc[table_name]
                where[key] = 1
                assert read(tmp_path / "odd.toml", toml_document(doc)) is None, key
    assert tried > 2000
    assert time.monotonic() - started < WHOLE_TEST_SECONDS
