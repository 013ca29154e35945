"""A ladder run from the commands a person types (docs/ladder.md): three authors, six
versions, one refused by the gate, one promoted on evidence and the version it replaced
retired, a weaker candidate retired by the test, one suspended by its own crashes; the
table, the versions and the histories read back as JSON with their contract fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ladder.ladder_support import (
    CRASH_AT_START,
    CRASHING_LATER,
    GREEDY_BOT,
    RANDOM_BOT,
    arena,
    bot_folder,
    ladder_file,
    ok,
    versions,
)

pytestmark = pytest.mark.slow

VERSION_FIELDS = {"bot", "version", "author", "state", "sha256", "games", "reason"}
TABLE_FIELDS = {"place", "bot", "version", "author", "rating", "mu", "sigma", "games"}


def _run(db: Path, matches: int) -> str:
    return ok("ladder", "run", "--db", str(db), "--workers", "2", "--matches", str(matches))


def test_three_authors_six_versions(tmp_path: Path) -> None:
    path = ladder_file(tmp_path, placement=1, max_games=80)
    # Every table a pairable candidate can have is a promotion pair (the default is half):
    # the same tests reach their verdicts without the rated tables between their pairs.
    text = path.read_text().replace("[matchmaking]\n", "[matchmaking]\nshare_promotion = 1.0\n")
    assert "share_promotion = 1.0" in text
    path.write_text(text)
    db = tmp_path / "arena.db"
    ok("ladder", "init", str(path))
    tokens = {
        name: ok("ladder", "author", "add", name, "--db", str(db)).strip()
        for name in ("ann", "bo", "cy")
    }
    assert all("\n" not in t and t.startswith(f"{n}.") for n, t in tokens.items())

    def submit(author: str, bot: str, folder: Path) -> str:
        env = {"ARENA_TOKEN": tokens[author]}
        return ok(
            "ladder",
            "submit",
            bot,
            str(folder),
            "--command",
            "python bot.py",
            "--db",
            str(db),
            env=env,
        )

    submit("ann", "rnd", bot_folder(tmp_path, "a1", RANDOM_BOT.format(name="rnd")))
    submit("bo", "grd", bot_folder(tmp_path, "b1", GREEDY_BOT))
    submit("cy", "crs", bot_folder(tmp_path, "c1", CRASH_AT_START))
    flag = tmp_path / "crash-now"
    submit("cy", "late", bot_folder(tmp_path, "c2", CRASHING_LATER.format(flag=flag)))
    _run(db, 4)
    states = {name: v["state"] for name, v in versions(db).items()}
    assert states["crs@1"] == "refused"
    assert states["rnd@1"] == states["grd@1"] == states["late@1"] == "active"

    submit("ann", "rnd", bot_folder(tmp_path, "a2", GREEDY_BOT))  # better: promoted
    submit("bo", "grd", bot_folder(tmp_path, "b2", RANDOM_BOT.format(name="weak")))  # worse
    for _ in range(12):
        _run(db, 6)
        states = {name: v["state"] for name, v in versions(db).items()}
        if states["rnd@2"] != "candidate" and states["grd@2"] != "candidate":
            break
    assert states["rnd@2"] == "active", versions(db)["rnd@2"]
    assert states["rnd@1"] == "retired"
    assert states["grd@2"] == "retired" and states["grd@1"] == "active"
    assert "promoted on evidence" in versions(db)["rnd@2"]["reason"]
    assert "not better on evidence" in versions(db)["grd@2"]["reason"]

    flag.write_text("crash")
    for _ in range(6):
        _run(db, 3)
        if versions(db)["late@1"]["state"] == "suspended":
            break
    late = versions(db)["late@1"]
    assert late["state"] == "suspended" and "crashed" in late["reason"]

    every = versions(db)
    assert len([v for v in every.values() if not v["house"]]) == 6
    for version in every.values():
        assert VERSION_FIELDS <= set(version)
    table = json.loads(ok("ladder", "table", "--db", str(db), "--format", "json"))
    assert {r["entrant"] for r in table} == {"greedy@1", "random@1", "rnd@2", "grd@1"}
    for row in table:
        assert TABLE_FIELDS <= set(row)
    assert [r["rating"] for r in table] == sorted((r["rating"] for r in table), reverse=True)

    matches = json.loads(
        ok("ladder", "matches", "--db", str(db), "--format", "json", "--limit", "0")
    )
    refused = {"crs@1"}
    for match in matches:
        assert not refused & set(match["entrants"]), "a refused version never plays"
        authors = [every[e]["author"] if not every[e]["house"] else e for e in match["entrants"]]
        assert len(set(authors)) == len(authors), f"an author twice at a table: {match}"
    history = json.loads(ok("ladder", "history", "rnd", "--db", str(db), "--format", "json"))
    assert [v["state"] for v in history] == ["retired", "active"]
    assert history[0]["ratings"] and history[1]["ratings"]
    code, out, err = arena("ladder", "history", "rnd", "--db", str(db))
    assert code == 0 and "promoted on evidence" in out
    # Every rating is solved from all the matches, so rnd@1's moved after its last match:
    # the text shows the rating now beside the last one it played for, when they differ.
    rating_lines = [line for line in out.splitlines() if line.startswith("  rating:")]
    assert len(rating_lines) == 2
    for version, line in zip(history, rating_lines, strict=True):
        last, now = version["ratings"][-1]["mu"], every[version["entrant"]]["mu"]
        assert f"-> {last:.2f}," in line
        assert (f"now mu {now:.2f}," in line) == (f"{now:.2f}" != f"{last:.2f}"), line
