"""The inputs table: every malformed league file and flag tried, and what it must give.

Each row of tests/data/league_inputs.toml (its header says how a row is written) is one
test: a league file built from the row is refused by `load_league` with a one-line
`ConfigError` that names the file and holds the row's fragment (and `arena run` shows
it as one `error:` line, before any database is made), or is accepted; an `arena`
command line is refused, warned about or accepted. A new key gets its rows here: a test
below fails while some key of some table has none.
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import re
import resource
import tomllib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.bots.confinement import sandbox
from arena.cli import app
from arena.errors import ConfigError
from arena.games import get_game
from arena.league.definition.config import (
    LEAGUE_KEYS,
    LIMIT_KEYS,
    RATING_KEYS,
    RATING_RANGES,
    RATING_RATIO,
    Ratings,
    load_league,
)
from arena.league.definition.records import GameOutcome, MatchOutcome
from arena.league.standings.ratings import Rater
from arena.league.store import ensure_league, open_db

TABLE = Path(__file__).resolve().parents[1] / "data" / "league_inputs.toml"
CASES: list[dict[str, Any]] = tomllib.loads(TABLE.read_text())["case"]
SOURCES = ("league", "rules", "limits", "ratings", "entrants", "entrants_count", "padded", "remove",
           "file", "raw_hex", "pad_to", "target", "argv", "game")  # fmt: skip
PRETENDS = ("hard_limits", "machine_memory_mb")
OUTCOMES = ("refused", "accepted", "warned", "usage")
runner = CliRunner()


def _values() -> dict[str, str]:
    """This machine's figures some rows name (so no row hard-codes a machine)."""
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    memory = sandbox.machine_memory_mb()
    cores = os.cpu_count() or 1
    return {
        "@NOFILE_HARD_PLUS_1@": str(nofile + 1),
        "@NOFILE_HARD@": str(nofile),
        "@MEMORY_MB_PLUS_1@": str(memory + 1),
        "@MEMORY_MB@": str(memory),
        "@CORES_PLUS_1@": str(cores + 1),
        "@CORES@": str(cores),
        "@DEEP_NESTING@": "a = " + "[" * 100_000 + "]" * 100_000,
        "@LONG_KEY@": "x" * 5000,
    }


def _fill(text: str) -> str:
    for token, value in _values().items():
        text = text.replace(token, value)
    return text


def league_text(case: dict[str, Any], runnable: bool = False) -> str:
    """The league file of a row: the base league with the row's lines in its tables."""
    if "file" in case:
        return _fill(case["file"])
    game = case.get("game", "trix")
    count = case.get("entrants_count", get_game(game).seats)
    entrants = case.get("entrants")
    if entrants is None:
        entrants = "".join(
            f'[[entrant]]\nname = "e{i}"\nbot = "builtin:random"\n\n' for i in range(1, count + 1)
        )
    elif case.get("padded"):  # only the row's own entrant is wrong
        entrants += "".join(
            f'\n[[entrant]]\nname = "pad{i}"\nbot = "builtin:random"\n' for i in range(1, count)
        )
    rules = case.get("rules", "kingdoms = 1" if runnable else "")
    text = (
        f'[league]\nname = "inputs"\ngame = "{game}"\n{case.get("league", "")}\n\n'
        f"[rules]\n{rules}\n\n[limits]\n{case.get('limits', '')}\n\n"
        f"[ratings]\n{case.get('ratings', '')}\n\n{entrants}"
    )
    for line in case.get("remove", []):
        assert line + "\n" in text, (case["name"], line)
        text = text.replace(line + "\n", "", 1)
    return _fill(text)


def write_case(case: dict[str, Any], folder: Path) -> Path:
    path = folder / "inputs.toml"
    target = case.get("target")
    if target == "missing":
        return path
    if target == "directory":
        path.mkdir()
        return path
    if "raw_hex" in case:
        path.write_bytes(bytes.fromhex(case["raw_hex"]))
        return path
    text = league_text(case)
    if "pad_to" in case:
        size = len(text.encode())
        text += "#" + "x" * (case["pad_to"] - size - 2) + "\n"
        assert len(text.encode()) == case["pad_to"]
    path.write_text(text)
    return path


def pretend(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel's hard limits and the machine's memory a row pretends to have."""
    hard = case.get("hard_limits", {})
    if hard:
        real = resource.getrlimit
        by_resource = {}
        for key, value in hard.items():
            _words, _name, which = sandbox.KERNEL_LIMITS[key]
            unit = 1 << 20 if key.endswith("_mb") else 1
            limit = resource.RLIM_INFINITY if value == "unlimited" else value * unit
            by_resource[which] = (limit, limit)
        monkeypatch.setattr(
            sandbox.resource, "getrlimit", lambda which: by_resource.get(which) or real(which)
        )
    if "machine_memory_mb" in case:
        monkeypatch.setattr(sandbox, "machine_memory_mb", lambda: case["machine_memory_mb"])


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if "argv" not in c], ids=lambda c: c["name"])
def test_league_file_input(case, tmp_path, monkeypatch) -> None:
    pretend(case, monkeypatch)
    path = write_case(case, tmp_path)
    if case.get("accepted"):
        config = load_league(path)
        for dotted, expected in case.get("check", {}).items():
            value: Any = config
            for part in dotted.split("."):
                value = getattr(value, part)
            assert value == expected, (dotted, value)
        return
    with pytest.raises(ConfigError) as err:
        load_league(path)
    message = str(err.value)
    assert message.startswith(f"{path}: "), message  # names the file first
    assert _fill(case["refused"]) in message, message
    assert "\n" not in message and len(message) < 600, message  # one line, however large
    db = tmp_path / "never.db"
    result = runner.invoke(app, ["run", str(path), "--db", str(db)])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {message}\n", result.output
    assert not db.exists()  # refused before the database is made


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if "argv" in c], ids=lambda c: c["name"])
def test_command_line_input(case, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    league = tmp_path / "league.toml"
    league.write_text(league_text({"name": "base"}, runnable=True))
    argv = [
        _fill(arg).replace("@LEAGUE@", str(league)).replace("@DB@", str(tmp_path / "a.db"))
        for arg in case["argv"]
    ]
    result = runner.invoke(app, argv + (["--logs", str(tmp_path)] if argv[0] != "run" else []))
    if "usage" in case:
        assert result.exit_code == 2, result.output
        words = " ".join(result.output.translate({ord(c): " " for c in "│╭╮╰╯─"}).split())
        assert case["usage"] in words, words
        return
    if "refused" in case:
        assert result.exit_code == 2, result.output
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        assert _fill(case["refused"]) in lines[0], lines[0]
        return
    assert result.exit_code == 0, result.output
    if "warned" in case:
        warning = _fill(case["warned"])
        assert warning in result.stderr, result.stderr
        assert result.stderr.splitlines()[0] == warning  # one line, before the run's own
    if "quiet" in case:
        assert case["quiet"] not in result.stderr, result.stderr


def test_every_row_is_well_formed() -> None:
    """Unique names, one outcome each, and no field the tests above would ignore."""
    names = [case["name"] for case in CASES]
    assert len(names) == len(set(names)) >= 60
    for case in CASES:
        assert sum(key in case for key in OUTCOMES) == 1, case["name"]
        known = {"name", "check", "quiet", *SOURCES, *PRETENDS, *OUTCOMES}
        assert set(case) <= known, (case["name"], set(case) - known)


def test_every_key_of_every_table_has_a_row() -> None:
    """The table grows with the keys: each key of [league], [limits], [ratings],
    [[entrant]] and both games' [rules] is set by some row."""
    snippets = {
        table: "\n".join(
            f"{case.get(table, '')}\n{case.get('file', '')}" for case in CASES
        )
        for table in ("league", "limits", "ratings", "rules")
    }
    wanted = {
        "league": LEAGUE_KEYS,
        "limits": LIMIT_KEYS,
        "ratings": RATING_KEYS,
        "rules": {*_options("trix"), *_options("trianon")},
    }
    for table, keys in wanted.items():
        missing = {k for k in keys if not re.search(rf"^{k} =", snippets[table], re.M)}
        missing -= {"name", "game"} if table == "league" else set()  # in every base file
        assert not missing, (table, missing)
    entrant_rows = "\n".join(str(case.get("entrants", "")) for case in CASES)
    assert re.search(r"^name = ", entrant_rows, re.M) and re.search(r"^bot = ", entrant_rows, re.M)
    flags = {arg for case in CASES for arg in case.get("argv", []) if arg.startswith("--")}
    assert {"--move-timeout", "--startup-timeout", "--time-bank", "--workers"} <= flags


@pytest.mark.slow
def test_the_ratings_ranges_rate_tied_matches_at_every_corner() -> None:
    """TrueSkill rates (finitely, without a math domain error) matches of ties and of
    clear orders at every corner of what a league file may set: the extremes of
    `RATING_RANGES` with sigma and tau at `RATING_RATIO` betas. Widen a bound past what
    was measured and a corner fails here."""
    low_dp, high_dp = RATING_RANGES["draw_probability"][:2]
    corners = []
    for mu in RATING_RANGES["mu"][:2]:
        for beta in RATING_RANGES["beta"][:2]:
            top = min(RATING_RATIO * beta, RATING_RANGES["sigma"][1])
            for sigma in {max(RATING_RANGES["sigma"][0], 1e-9 * beta), top}:
                for tau in {0.0, min(RATING_RATIO * beta, RATING_RANGES["tau"][1])}:
                    for dp in (low_dp, high_dp):
                        corners.append(Ratings(mu, sigma, beta, tau, dp))
    names = ["a", "b", "c", "d", "e"]
    draws = random.Random(5)
    for params in corners:
        rater = Rater(params, names, "game", forfeit=1)
        for idx in range(12):
            table = draws.sample(names, 4)
            tied = {n: 0 for n in table}
            ordered = {n: draws.randrange(-100, 100) for n in table}
            games = [
                GameOutcome(r, totals, {n: 0 for n in table})
                for r, totals in enumerate([tied, ordered, tied, {**tied, table[0]: 1}])
            ]
            rater.apply(MatchOutcome(idx, table, games))
        for rating in rater.ratings.values():
            assert math.isfinite(rating.mu) and math.isfinite(rating.sigma), params


def test_a_league_stored_with_a_key_its_schedule_ignores_resumes_once_it_is_removed(
    tmp_path, monkeypatch
) -> None:
    """Files could once carry `matches` and `candidates` in a round robin (the docs'
    own example did), and the database locked their values. Such a key is refused now;
    the file without it must still resume the stored league, so the locked settings
    leave out what the schedule does not read."""
    path = tmp_path / "old.toml"
    path.write_text(league_text({"name": "base"}))
    config = load_league(path)
    old = dataclasses.replace(config, matches=30, candidates=("e1",))
    locked = {**config.locked_settings(), "matches": 30, "candidates": ["e1"]}
    db = open_db(tmp_path / "arena.db")
    try:
        with monkeypatch.context() as patch:  # as the arena of then stored it
            patch.setattr(type(old), "locked_settings", lambda self: locked)
            first = ensure_league(db, old)
        assert ensure_league(db, config) == first
        with pytest.raises(ConfigError, match="seed"):  # what the schedule reads stays locked
            ensure_league(db, dataclasses.replace(config, seed="other"))
    finally:
        db.close()


def _options(game: str) -> dict[str, Any]:
    engine = get_game(game)
    return engine.options_dict(engine.parse_options({}))
