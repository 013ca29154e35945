"""The ladder's commands without a run: init, authors and their tokens, submissions,
the author's levers, freeze; every misuse of a token changes nothing and says so in
one line; the database never holds a token."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.ladder.ladder_support import GREEDY_BOT, RANDOM_BOT, arena, bot_folder, ladder_file, ok

REFUSED = "the token is not valid for this ladder"


@pytest.fixture
def ladder(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A ladder with two authors and a bot each; their tokens."""
    ok("ladder", "init", str(ladder_file(tmp_path)))
    db = tmp_path / "arena.db"
    tokens = {n: ok("ladder", "author", "add", n, "--db", str(db)).strip() for n in ("ann", "bo")}
    for author, bot in (("ann", "alpha"), ("bo", "beta")):
        folder = bot_folder(tmp_path, bot, RANDOM_BOT.format(name=bot))
        ok("ladder", "submit", bot, str(folder), "--command", "python bot.py", "--db", str(db),
           env={"ARENA_TOKEN": tokens[author]})
    return db, tokens


def _dump(db: Path) -> list[tuple]:
    """Every row of the ladder's tables, to show that a refused command changed nothing."""
    with sqlite3.connect(db) as conn:
        return [
            (table, *row)
            for table in ("authors", "ladder_bots", "versions", "version_events", "entrants")
            for row in conn.execute(f"SELECT * FROM {table} ORDER BY rowid")  # noqa: S608
        ]


def test_a_token_is_printed_once_alone_and_only_its_hash_is_stored(
    ladder: tuple[Path, dict[str, str]],
) -> None:
    db, tokens = ladder
    raw = db.read_bytes() + (db.with_name(db.name + "-wal").read_bytes()
                             if db.with_name(db.name + "-wal").exists() else b"")
    for token in tokens.values():
        assert token.encode() not in raw
        secret = token.rpartition(".")[2]
        assert secret.encode() not in raw
    with sqlite3.connect(db) as conn:
        hashes = [h for (h,) in conn.execute("SELECT token_hash FROM authors")]
    assert all(h.startswith("$argon2id$") for h in hashes)


@pytest.mark.parametrize("case", ["wrong", "none", "revoked", "another's"])
def test_a_bad_token_changes_nothing_and_says_so_in_one_line(
    ladder: tuple[Path, dict[str, str]], case: str, tmp_path: Path
) -> None:
    db, tokens = ladder
    token = {
        "wrong": tokens["ann"][:-3] + "xyz",
        "none": "",
        "revoked": tokens["bo"],
        "another's": tokens["bo"],
    }[case]
    if case == "revoked":
        ok("ladder", "author", "revoke", "bo", "--db", str(db))
    before = _dump(db)
    folder = bot_folder(tmp_path, "alpha2", GREEDY_BOT)
    attempts = [
        ("ladder", "submit", "alpha", str(folder), "--command", "python bot.py"),
        ("ladder", "promote", "alpha@1"),
        ("ladder", "withdraw", "alpha"),
    ]
    if case == "revoked":
        attempts.append(("ladder", "submit", "beta", str(folder), "--command", "python bot.py"))
    for args in attempts:
        code, out, err = arena(*args, "--db", str(db), env={"ARENA_TOKEN": token})
        assert code == 2, (args, out, err)
        assert out == ""
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        if case != "another's" or args[1] != "submit":
            assert REFUSED in lines[0]
        else:
            assert "belongs to another author" in lines[0]
        assert token not in err or not token
    assert _dump(db) == before


def test_the_token_option_serves_as_the_variable_does(ladder: tuple[Path, dict[str, str]]) -> None:
    db, tokens = ladder
    said = ok("ladder", "withdraw", "beta@1", "--db", str(db), "--token", tokens["bo"])
    assert "withdrawn: beta@1" in said
    states = {v["entrant"]: v["state"] for v in json.loads(
        ok("ladder", "versions", "--db", str(db), "--format", "json"))}
    assert states["beta@1"] == "withdrawn" and states["alpha@1"] == "checking"


def test_an_identical_upload_is_recognised_and_adds_nothing(
    ladder: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    db, tokens = ladder
    env = {"ARENA_TOKEN": tokens["ann"]}
    import tarfile

    archive = tmp_path / "alpha.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tmp_path / "alpha" / "bot.py", arcname="bot.py")
    before = _dump(db)
    said = ok("ladder", "submit", "alpha", str(archive), "--command", "python bot.py",
              "--db", str(db), env=env)
    assert said.startswith("identical to alpha@1")
    assert _dump(db) == before
    said = ok("ladder", "submit", "alpha", str(tmp_path / "alpha"), "--command",
              "python  bot.py --x", "--db", str(db), env=env)
    assert said.startswith("alpha@2 submitted")  # another command is another version


def test_a_bot_name_belongs_to_its_first_author(
    ladder: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    db, tokens = ladder
    before = _dump(db)
    code, _, err = arena("ladder", "submit", "alpha", str(tmp_path / "beta"), "--command",
                         "python bot.py", "--db", str(db), env={"ARENA_TOKEN": tokens["bo"]})
    assert code == 2 and "belongs to another author" in err
    assert _dump(db) == before


def test_a_frozen_ladder_takes_no_submission(
    ladder: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    db, tokens = ladder
    assert "is frozen" in ok("ladder", "freeze", "--db", str(db))
    code, _, err = arena("ladder", "submit", "alpha", str(bot_folder(tmp_path, "x", GREEDY_BOT)),
                         "--command", "python bot.py", "--db", str(db),
                         env={"ARENA_TOKEN": tokens["ann"]})
    assert code == 2 and "frozen" in err


def test_init_again_takes_new_settings_but_refuses_a_new_seed(tmp_path: Path) -> None:
    path = ladder_file(tmp_path)
    ok("ladder", "init", str(path))
    said = ok("ladder", "init", str(path.rename(tmp_path / "spring.toml")))
    assert "settings taken" in said and "house bot" not in said
    ladder_file(tmp_path, seed="other")
    code, _, err = arena("ladder", "init", str(path))
    assert code == 2 and "seed" in err


def test_a_ladder_and_a_league_share_one_database(tmp_path: Path) -> None:
    from tests.support.tiny_league import tiny_file

    db = tmp_path / "arena.db"
    ok("run", str(tiny_file(tmp_path)), "--db", str(db))
    ok("ladder", "init", str(ladder_file(tmp_path)), "--db", str(db))
    assert "greedy" in ok("ladder", "table", "--db", str(db))
    assert ok("table", "--db", str(db), "--league", "tiny")


@pytest.mark.parametrize(
    ("table", "line", "said"),
    [
        ("matchmaking", "share_fewest = -1", "share_fewest"),
        ("gate", "max_mb = 0", "max_mb"),
        ("promotion", "alpha = 0.9", "alpha"),
        ("promotion", "mode = 'sometimes'", "mode"),
        ("health", "max_fault_rate = 2", "max_fault_rate"),
        ("gate", "colour = 1", "colour"),
    ],
)
def test_a_bad_key_is_refused_naming_file_table_and_key(
    tmp_path: Path, table: str, line: str, said: str
) -> None:
    path = ladder_file(tmp_path)
    path.write_text(path.read_text().replace(f"[{table}]", f"[{table}]\n{line}"))
    code, _, err = arena("ladder", "init", str(path))
    assert code == 2
    assert str(path.name) in err and f"[{table}]" in err and said in err
    assert not (tmp_path / "arena.db").exists()


def test_the_docs_example_and_the_shipped_ladder_file_load(tmp_path: Path) -> None:
    """docs/ladder.md's full example shows every key of the ladder's own tables and is
    accepted; so is leagues/ladder.toml."""
    import re
    from dataclasses import fields

    from arena.ladder.config import RequestLimits, load_ladder
    from arena.ladder.gate import GateSettings
    from arena.ladder.health import HealthSettings
    from arena.ladder.matchmaking import Policy
    from arena.ladder.promotion import PromotionSettings
    from arena.ladder.uploads import UploadLimits

    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "ladder.md").read_text()
    block = page.split("```toml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "sample_bots").mkdir()
    (tmp_path / "sample_bots" / "sampler_bot.py").write_text("")
    (tmp_path / "docs").mkdir()
    path = tmp_path / "docs" / "example.toml"
    path.write_text(block)
    config = load_ladder(path)
    assert [h.name for h in config.house] == ["greedy", "sampler"]
    keys = set(re.findall(r"^(\w+) =", block, re.M))
    kinds = (Policy, GateSettings, UploadLimits, PromotionSettings, HealthSettings, RequestLimits)
    for kind in kinds:
        assert {f.name for f in fields(kind)} <= keys, kind.__name__
    shipped = load_ladder(root / "leagues" / "ladder.toml")
    assert shipped.name == "trix-ladder" and len(shipped.house) == 3
