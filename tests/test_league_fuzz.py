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
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.errors import ConfigError
from arena.league.config import LEAGUE_KEYS, LIMIT_KEYS, RATING_KEYS, LeagueConfig, load_league

TRIX_RULES = ("doubling", "kingdoms", "tiebreak", "first_king_card", "partners")
TRIANON_RULES = ("target", "max_deals")
ENTRANT_KEYS = ("name", "bot")
EXAMPLES = 250
PER_READ_SECONDS = 5  # one read of a league file (a megabyte at most) takes milliseconds
WHOLE_TEST_SECONDS = 25
_started: list[float] = []

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


def table(keys: tuple[str, ...] | set[str]) -> st.SearchStrategy[dict[str, Any]]:
    """A table of some of `keys` (and now and then an unknown one), any values."""
    known = st.dictionaries(st.sampled_from(sorted(keys)), values, max_size=len(keys))
    unknown = st.dictionaries(st.text(min_size=1, max_size=10), values, max_size=1)
    return st.builds(lambda a, b: {**b, **a}, known, st.one_of(st.just({}), unknown))


league_table = st.builds(
    lambda extra, game, name: {"name": name, "game": game, **extra},
    table(LEAGUE_KEYS),
    st.one_of(st.sampled_from(["trix", "trianon"]), values),
    st.one_of(st.sampled_from(["l", "spring-cup"]), values),
)
entrant = st.builds(
    lambda extra, name, bot: {"name": name, "bot": bot, **extra},
    table(ENTRANT_KEYS),
    st.one_of(st.sampled_from([f"e{i}" for i in range(1, 7)]), values),
    st.one_of(st.sampled_from(["builtin:random", "builtin:first", "python bot.py"]), values),
)
documents = st.fixed_dictionaries(
    {},
    optional={
        "league": st.one_of(league_table, values),
        "rules": st.one_of(table(TRIX_RULES), table(TRIANON_RULES), values),
        "limits": st.one_of(table(LIMIT_KEYS), values),
        "ratings": st.one_of(table(RATING_KEYS), values),
        "entrant": st.one_of(st.lists(entrant, min_size=0, max_size=7), values),
    },
)
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


FOLDER = Path(tempfile.mkdtemp(prefix="arena-league-fuzz-"))


@settings(
    max_examples=EXAMPLES,
    deadline=None,  # timed by the alarm and the whole-test bound instead
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
@given(st.one_of(documents.map(toml_document), documents.map(toml_document), garbage))
def test_a_league_file_is_a_config_or_a_config_error(text: str | bytes) -> None:
    if not _started:
        _started.append(time.monotonic())
    assert time.monotonic() - _started[0] < WHOLE_TEST_SECONDS, "the fuzz test ran too long"
    path = FOLDER / "fuzz.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with alarm(PER_READ_SECONDS):
        try:
            config = load_league(path)
        except ConfigError as err:
            message = str(err)
            assert message.startswith(f"{path}: "), message
            assert "\n" not in message and len(message) < 600, message
            return
    assert isinstance(config, LeagueConfig)
    assert config.locked_settings()  # what a resume compares can be made of it
    for number in (config.limits.move_timeout, config.ratings.mu, config.ratings.sigma):
        assert math.isfinite(number)
