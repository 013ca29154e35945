"""The league site in a real browser: the table sorts, pages link up, a live page
follows a running league without a reload, and the static report works from file://."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.errors import ConfigError, SchemaError
from arena.league.reports.table import league_rows
from arena.league.store import game_replay, league_id_by_name, open_existing, site_reads
from arena.web.report import write_report
from tests.browser.conftest import served
from tests.browser.test_viewer import step_through_deal
from tests.support.site_league import build_site_db, live_match

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
THINKER = ROOT / "tests" / "bot_scripts" / "thinker_bot.py"


def _rows(db: Path, league: str) -> list[dict]:
    conn = open_existing(db)
    try:
        return league_rows(conn, league_id_by_name(conn, league)[0])
    finally:
        conn.close()


def _entrants(page) -> list[str]:
    """The table's entrants, top to bottom, as the page shows them now."""
    return page.eval_on_selector_all(
        "#league-table tbody tr", "rows => rows.map(r => r.dataset.entrant)"
    )


def _column(page, index: int) -> list[str]:
    return page.eval_on_selector_all(
        "#league-table tbody tr",
        f"rows => rows.map(r => r.cells[{index}].getAttribute('data-sort'))",
    )


def test_the_league_table_sorts_by_any_column(page, server, site_db) -> None:
    page.goto(f"{server}/league/trix-site")
    rows = _rows(site_db, "trix-site")
    names = page.eval_on_selector_all(
        "#league-table tbody tr", "r => r.map(x => x.dataset.entrant)"
    )
    assert names == [r["name"] for r in rows]  # best first, as `arena table`
    headers = page.eval_on_selector_all("#league-table thead th", "h => h.map(x => x.textContent)")
    assert "margin/game" in headers and "think ms cpu/wall" in headers  # every column
    margin = headers.index("margin/game")
    page.click(f"#league-table thead th:nth-child({margin + 1})")
    ascending = [float(v) for v in _column(page, margin)]
    assert ascending == sorted(r["duplicate_margin"] for r in rows)
    page.click(f"#league-table thead th:nth-child({margin + 1})")
    assert [float(v) for v in _column(page, margin)] == sorted(ascending, reverse=True)
    name = headers.index("name")
    page.click(f"#league-table thead th:nth-child({name + 1})")
    shown = page.eval_on_selector_all(
        "#league-table tbody tr", "r => r.map(x => x.dataset.entrant)"
    )
    assert shown == sorted((r["name"] for r in rows), key=str.lower)


def test_an_entrant_page_opens_from_the_table(page, server, site_db) -> None:
    page.goto(f"{server}/league/trix-site")
    page.click('#league-table tr[data-entrant="illegal"] a')
    page.wait_for_selector("#per-contract")
    assert page.text_content("h1").startswith("illegal")
    assert page.locator("#entrant-faults tbody tr").count() > 0  # it faulted at every game
    contracts = page.eval_on_selector_all(
        "#per-contract tbody tr td:first-child", "t => t.map(x => x.textContent)"
    )
    assert set(contracts) == {"king-of-hearts", "diamonds", "queens", "no-tricks", "trix"}
    assert (
        page.locator("#entrant-games tbody tr").count() == _rows(site_db, "trix-site")[-1]["games"]
    )
    page.goto(f"{server}/league/trianon-site/entrant/greedy")
    assert page.text_content("#per-contract thead").strip().startswith("strain")


LIVE_LEAGUE = """
[league]
name = "live"
game = "trix"
seed = 9
schedule = "round-robin"
rounds = 2

[rules]
kingdoms = 1

[[entrant]]
name = "thinker"
bot = "python {thinker} 0.004"

[[entrant]]
name = "first"
bot = "builtin:first"

[[entrant]]
name = "random"
bot = "builtin:random"

[[entrant]]
name = "greedy"
bot = "builtin:greedy"

[[entrant]]
name = "random-2"
bot = "builtin:random"
"""


def _stored(db: Path) -> int:
    """Matches stored so far; 0 while the run is still making the database (the file is
    there a moment before its tables are, and a reader refuses it until they are)."""
    try:
        conn = open_existing(db)
    except (ConfigError, SchemaError):
        return 0
    try:
        return conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    finally:
        conn.close()


def test_a_live_page_follows_a_running_league_without_a_reload(page, tmp_path) -> None:
    league = tmp_path / "live.toml"
    league.write_text(LIVE_LEAGUE.format(thinker=THINKER))
    db = tmp_path / "live.db"
    run = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "run", str(league), "--db", str(db), "--workers", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while (not db.exists() or _stored(db) < 1) and time.monotonic() < deadline:
            assert run.poll() is None, run.stderr.read().decode()
            time.sleep(0.1)
        with served(db) as url:
            page.goto(f"{url}/league/live")
            page.evaluate("window.loadedOnce = true")  # gone if the page were reloaded
            first = page.locator("ul.matches li").count()
            assert page.locator("#in-flight li").count() == 1  # one worker: one match
            page.wait_for_function(
                f"() => document.querySelectorAll('ul.matches li').length > {first}",
                timeout=20_000,
            )
            assert page.evaluate("window.loadedOnce") is True
            stored = _stored(db)
            assert page.locator("ul.matches li").count() >= min(stored, 20) - 1
            page.goto("about:blank")  # no poll of the server once it is ended
    finally:
        if run.poll() is None:
            run.send_signal(signal.SIGINT)
            try:
                run.wait(timeout=30)
            except subprocess.TimeoutExpired:
                run.kill()
                run.wait(timeout=10)


def test_the_static_report_works_from_file(page, site_db, tmp_path) -> None:
    index = write_report(site_db, tmp_path / "report")
    page.goto(index.as_uri())
    assert page.locator("#leagues tbody tr").count() == 2
    page.click('#leagues tr[data-league="trix-site"] a')
    page.wait_for_selector("#league-table")
    assert page.url.startswith("file://")
    page.click('#league-table tr[data-entrant="greedy"] a')
    page.wait_for_selector("#entrant-games")
    page.click("#entrant-games tbody tr:first-child a")
    page.wait_for_selector("[data-card]")  # the viewer loaded the deal's frames
    assert json.loads(page.text_content("#game-outline"))["game"] == "trix"
    html = "".join(p.read_text() for p in (tmp_path / "report").rglob("*.html"))
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")  # nothing online
    assert "https://" not in html


def _stored_game(db: Path, league: str) -> tuple[int, dict]:
    """The first stored game of `league` with a fault in it (the Trix league's illegal
    entrant faults in every game), or else its first game: id and replay."""
    conn = open_existing(db)
    try:
        league_id = league_id_by_name(conn, league)[0]
        ids = site_reads.league_game_ids(conn, league_id)
        replays = {game_id: game_replay(conn, game_id) for game_id in ids[:4]}
    finally:
        conn.close()
    game_id = next((i for i, r in replays.items() if r["faults"]), ids[0])
    return game_id, replays[game_id]


def test_the_served_viewer_shows_each_stored_game_as_its_replay(page, server, site_db) -> None:
    """`arena serve`'s game page, stepped through a whole deal of each game, shows at
    every step what the engine's views hold (tests/browser/test_viewer.py checks)."""
    for league, deal in (("trix-site", 1), ("trianon-site", 1)):
        game_id, replay = _stored_game(site_db, league)
        steps = step_through_deal(page, f"{server}/game/{game_id}", replay, deal)
        assert steps > 10


def test_a_fault_links_to_the_viewer_at_its_decision(page, server) -> None:
    """The faults page filters, and each fault opens the viewer at the decision that
    faulted: the step shows the fallback's badge with the fault's kind."""
    page.goto(f"{server}/league/trix-site/faults")
    total = page.locator("#faults tbody tr").count()
    assert total > 0
    page.select_option('[data-filter="entrant"]', "illegal")
    assert page.locator("#faults tbody tr:not([hidden])").count() == total  # all its own
    page.fill('[data-filter="text"]', "no such words")
    assert page.locator("#faults tbody tr:not([hidden])").count() == 0
    page.fill('[data-filter="text"]', "")
    row = page.locator("#faults tbody tr").nth(2)
    kind = row.get_attribute("data-kind")
    row.locator("a.view").click()
    page.wait_for_selector(".fault-badge")
    assert page.get_attribute(".fault-badge", "data-kind") == kind
    assert "step=" in page.evaluate("location.hash")  # the address now names the step


def test_the_game_being_played_is_watched_as_a_spectator_and_followed(page, tmp_path) -> None:
    """The live game page (the match's last rotation) shows no hand, only the cards
    played; it opens at the latest step, and moves on by itself as the game does."""
    db = build_site_db(tmp_path)
    _, state = live_match(db, rotation=3, steps=40)
    with served(db) as url:
        page.goto(f"{url}/league/trix-site/match/100")
        page.click("#watch-live")
        page.wait_for_selector("#step-label[data-step]")
        label = page.locator("#step-label")
        first = (int(label.get_attribute("data-deal")), int(label.get_attribute("data-step")))
        assert first[0] == state.deal_index + 1 and first[1] > 0  # the latest step
        assert page.locator(".hand .card[data-card]").count() == 0  # every hand face down
        assert page.locator(".hand .card.back").count() > 0
        live_match(db, rotation=3, steps=60)  # the worker writes the game's progress
        page.wait_for_function(
            "([d, s]) => { const l = document.getElementById('step-label');"
            " return l && (Number(l.dataset.deal) > d || Number(l.dataset.step) > s); }",
            arg=list(first), timeout=20_000,
        )  # fmt: skip
        assert page.locator(".hand .card[data-card]").count() == 0
        page.goto("about:blank")  # no poll of the server once it is ended
