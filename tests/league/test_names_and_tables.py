"""Issue 27 findings 9, 10, 12 and 14: names compared in NFC form, emoji sequences
accepted, long seeds shown cut, text tables aligned by display width, `compare` of two
entrants that never met, and the lines above a table that say how to go on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.errors import ConfigError
from arena.league.definition.config import load_league
from arena.league.reports.formats import display_width
from tests.support.tiny_league import TINY

runner = CliRunner()


def _league(folder: Path, names: list[str], extra: str = "", seed: str = "3") -> Path:
    head = TINY.split("[[entrant]]", 1)[0].format(name="names", extra=extra, rounds="")
    head = head.replace("seed = 3", f"seed = {json.dumps(seed)}")
    if "rounds" not in extra and "matches" not in extra:
        head = head.replace("[rules]", "rounds = 1\n[rules]")
    bots = ["builtin:random", "builtin:first"]
    body = "".join(
        f"[[entrant]]\nname = {json.dumps(n, ensure_ascii=False)}\n"
        f"bot = {json.dumps(bots[i % 2])}\n"
        for i, n in enumerate(names)
    )
    path = folder / "names.toml"
    path.write_text(head + body)
    return path


def test_finding_9_names_are_compared_in_nfc_form(tmp_path: Path) -> None:
    path = _league(tmp_path, ["caf\u00e9", "cafe\u0301", "b", "c"])
    with pytest.raises(ConfigError, match="appears twice.*NFC"):
        load_league(path)
    single = load_league(_league(tmp_path, ["cafe\u0301", "a", "b", "c"]))
    assert single.entrants[0].name == "caf\u00e9"


@pytest.mark.parametrize("name", ["👩‍💻", "👨‍👩‍👧‍👦 team", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "❤️"])
def test_finding_9_emoji_sequences_are_names(tmp_path: Path, name: str) -> None:
    config = load_league(_league(tmp_path, [name, "a", "b", "c"]))
    assert config.entrants[0].name == name


@pytest.mark.parametrize("bad", ["a\u202eb", "a\u200bb", "a\nb"])
def test_finding_9_other_invisible_characters_are_still_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ConfigError, match="control character"):
        load_league(_league(tmp_path, [bad, "a", "b", "c"]))


def test_finding_9_a_long_seed_is_shown_cut_and_tables_align_by_width(tmp_path: Path) -> None:
    names = ["日本語の名前", "👩‍💻", "עברית", "plain"]
    league = _league(tmp_path, names, seed="s" * 500_000)
    db = tmp_path / "a.db"
    result = runner.invoke(app, ["run", str(league), "--db", str(db)])
    assert result.exit_code == 0, result.output
    table = runner.invoke(app, ["table", "--db", str(db)]).stdout.splitlines()
    assert len(table[0]) < 200 and "(500,000 characters)" in table[0]
    rule = next(i for i, line in enumerate(table) if line.startswith("-----"))
    rows = [line for line in table[rule + 1 :] if line.strip()]
    assert len(rows) == 4
    ends = set()
    for line in rows:  # the rating column (right-aligned) ends at one display column
        name = next(n for n in names if n in line)
        after = line[line.index(name) + len(name) :]
        rating = after.split()[0]
        end = line.index(name) + len(name) + after.index(rating) + len(rating)
        ends.add(display_width(line[:end]))
    assert len(ends) == 1, table


@pytest.fixture(scope="module")
def idle_db(tmp_path_factory) -> Path:
    """A finished balanced league of five entrants with one match: one never played."""
    folder = tmp_path_factory.mktemp("idle")
    league = _league(folder, ["a", "b", "c", "d", "e"],
                     extra='schedule = "balanced"\nmatches = 1')  # fmt: skip
    league.write_text(league.read_text().replace('schedule = "round-robin"\n', ""))
    db = folder / "a.db"
    result = runner.invoke(app, ["run", str(league), "--db", str(db)])
    assert result.exit_code == 0, result.output
    return db


def _idle(db: Path) -> tuple[str, str]:
    rows = json.loads(runner.invoke(app, ["table", "--db", str(db), "--format", "json"]).stdout)
    idle = next(r["name"] for r in rows if r["matches"] == 0)
    played = next(r["name"] for r in rows if r["matches"] > 0)
    return idle, played


def test_finding_10_compare_says_two_entrants_never_met(idle_db: Path) -> None:
    idle, played = _idle(idle_db)
    shown = runner.invoke(app, ["compare", idle, played, "--db", str(idle_db)])
    assert shown.exit_code == 0 and "never met" in shown.stdout and "+0.00" not in shown.stdout
    data = runner.invoke(app, ["compare", idle, played, "--db", str(idle_db), "--format", "json"])
    result = json.loads(data.stdout)
    assert result["margin"] is None and result["matches"] == 0


def test_finding_12_a_finished_league_says_how_newcomers_get_to_play(idle_db: Path) -> None:
    idle, _ = _idle(idle_db)
    lines = runner.invoke(app, ["table", "--db", str(idle_db)]).stdout.splitlines()
    assert "the league is finished" in lines[1]
    assert f"{idle} played no match: raise `matches`" in lines[1]


def test_finding_14_a_play_session_table_is_not_garbled(tmp_path: Path) -> None:
    db = tmp_path / "play.db"
    bots = ["builtin:random", "builtin:first", "builtin:random", "builtin:first"]
    played = runner.invoke(app, ["play", *bots, "--games", "1", "--db", str(db)])
    assert played.exit_code == 0, played.output
    lines = runner.invoke(app, ["table", "--db", str(db)]).stdout.splitlines()
    assert "`arena run 'arena play'`" not in lines[1]
    assert "stored by `arena play`" in lines[1] or "matches stored" in lines[1]
