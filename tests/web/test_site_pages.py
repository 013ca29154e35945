"""The league site's pages over a real league database (arena/web): every page
renders, unknown things answer 404 saying what exists, the table is `arena table`'s,
and nothing about a game still being played shows a hidden card (T-8, N-8)."""

from __future__ import annotations

import html
import re
import socket
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from arena.cli import app
from arena.games import get_game
from arena.league.reports.table import COLUMNS, cell, league_rows
from arena.league.store import league_id_by_name, open_existing
from arena.web.app import make_app
from tests.support.site_league import build_site_db, live_match


@pytest.fixture(scope="module")
def site_db(tmp_path_factory) -> Path:
    return build_site_db(tmp_path_factory.mktemp("site"))


def _client(db: Path, live_hands: bool = False) -> TestClient:
    return TestClient(make_app(db, live_hands), base_url="http://127.0.0.1")


@pytest.mark.slow
def test_every_page_of_the_site_renders(site_db) -> None:
    client = _client(site_db)
    db = open_existing(site_db)
    games = [row["id"] for row in db.query("SELECT id FROM games ORDER BY id")]
    db.close()
    urls = ["/", "/league/trix-site", "/league/trianon-site", "/league/trix-site/faults",
            "/league/trianon-site/faults", "/league/trix-site/match/0",
            "/league/trianon-site/match/0", f"/game/{games[0]}", f"/game/{games[-1]}",
            f"/game/{games[0]}/deal/1.json", "/api/version", "/static/site.css"]  # fmt: skip
    for entrant in ("greedy", "random", "first", "random-2", "illegal"):
        urls.append(f"/league/trix-site/entrant/{entrant}")
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, (url, response.text[-500:])
    index = client.get("/").text
    assert "trix-site" in index and "trianon-site" in index and "greedy" in index
    match = client.get("/league/trix-site/match/0").text
    assert re.search(r'id="match-played">Played in [0-9.]+ s\.', match)


def test_what_the_site_does_not_hold_answers_404_saying_what_does(site_db) -> None:
    client = _client(site_db)
    cases = {
        "/league/nope": "leagues: trix-site, trianon-site",
        "/league/trix-site/entrant/nobody": "no entrant 'nobody' in league 'trix-site'; "
        "entrants: greedy, random, first, random-2, illegal",
        "/league/trix-site/match/99": "no stored match 99",
        "/game/99999": "no stored game 99999",
        "/game/1/deal/99.json": "no deal 99",
    }
    for url, said in cases.items():
        response = client.get(url)
        text = html.unescape(response.text)
        assert response.status_code == 404 and said in text, (url, text)


def test_the_league_page_holds_every_cell_of_arena_table(site_db) -> None:
    page = _client(site_db).get("/league/trix-site").text
    db = open_existing(site_db)
    rows = league_rows(db, league_id_by_name(db, "trix-site")[0])
    db.close()
    summary = get_game("trix").deal_summary
    for row in rows:
        line = page[page.index(f'data-entrant="{row["name"]}"') :].split("</tr>")[0]
        for key, _ in COLUMNS:
            if key not in ("place", "name"):
                text = cell(key, row[key], summary).replace("'", "&#39;")
                assert text in line, (row["name"], key)
    assert "5 of 5 matches stored: the league is finished" in page
    assert "0123456789abcdef0123456789abcdef" in page  # over: the deal key may be known


CARD = re.compile(r"""["'>]([2-9TJQKA][CDHS])["'<]""")


def _cards_shown(text: str) -> set[str]:
    """The card codes a page shows as cards (a quoted string, or an element's whole
    text): not the contract abbreviations of the table (`KH -12.5`), nor the rule
    option that names a card (Trix's `first_king_card`, held by nobody in particular),
    nor the table's key that spells those abbreviations out (`<abbr>KH</abbr>`)."""
    text = re.sub(r'<p class="hint" id="table-key">.*?</p>', "", text, flags=re.S)
    return set(CARD.findall(re.sub(r'"first_king_card":\s*".."', "", text)))


def _cards_in(data: object) -> set[str]:
    """Every card code among the strings of a viewer's data, but for the rule options
    (Trix's `first_king_card` names a card, not one anybody holds)."""
    if isinstance(data, dict):
        return set().union(*(_cards_in(v) for k, v in data.items() if k != "options"))
    if isinstance(data, list):
        return set().union(*(_cards_in(v) for v in data))
    return {data} if isinstance(data, str) and re.fullmatch(r"[2-9TJQKA][CDHS]", data) else set()


def _hidden_now(state) -> set[str]:
    """The cards no spectator may see: those still in a hand, not exposed."""
    game = get_game("trix")
    hidden: set[str] = set()
    for seat in range(game.seats):
        view = game.view_dict(game.observe(state, seat))
        hidden |= set(view["hand"])
        exposed = {c for cards in view["exposed"] for c in cards}
    return hidden - exposed


PAGES = ("/", "/league/trix-site", "/league/trix-site/match/100",
         "/league/trix-site/match/100/live", "/api/version")  # fmt: skip


def _pages(client: TestClient) -> str:
    return "\n".join(client.get(url).text for url in PAGES)


def _deal_data(client: TestClient, deal: int) -> object | None:
    response = client.get(f"/league/trix-site/match/100/live/deal/{deal}.json")
    return response.json() if response.status_code == 200 else None


@pytest.mark.slow
def test_no_page_about_a_game_in_progress_shows_a_hidden_card(tmp_path) -> None:
    """T-8.1: a spectator sees the cards played and exposed, never a hand. In the last
    rotation the game is watched as a spectator sees it; in an earlier one nothing of
    its cards is shown (a later rotation replays its deals); --live-hands shows all."""
    db_path = build_site_db(tmp_path)
    _, state = live_match(db_path, rotation=3, steps=70)  # deal 2 of the last rotation
    hidden = _hidden_now(state)
    assert len(hidden) > 20 and state.deal_index == 1
    public = _client(db_path)
    pages = _pages(public)
    assert "Watch the game being played" in pages and not _cards_shown(pages) & hidden
    now = _cards_in(_deal_data(public, 2))
    events = get_game("trix").deal_records(state)[-1]["events"]
    played = {e["card"] for e in events if e["type"] == "play"}
    assert played and played <= now  # the cards played are shown, no hidden one
    assert not now & hidden
    organiser = _client(db_path, live_hands=True)
    assert hidden <= _cards_in(_deal_data(organiser, 2))  # the opt-in shows every hand

    _, state = live_match(db_path, rotation=0, steps=70)  # an earlier rotation
    pages = _pages(public)
    assert "Rotation 1 of 4" in pages and "Watch the game" not in pages
    assert _cards_shown(pages) == set()  # not even the cards played
    assert _deal_data(public, 1) is None and _deal_data(public, 2) is None


def test_serve_and_report_refuse_what_cannot_work_saying_what_to_do(site_db, tmp_path) -> None:
    runner = CliRunner()
    missing = runner.invoke(app, ["serve", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code == 2 and "no database at" in missing.output
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        busy = runner.invoke(app, ["serve", "--db", str(site_db), "--port", port])
    assert busy.exit_code == 2 and "give another --port" in busy.output
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep me")
    refused = runner.invoke(app, ["report", "--db", str(site_db), "--out", str(other)])
    assert refused.exit_code == 2 and "nothing else is written over" in refused.output
    assert (other / "mine.txt").read_text() == "keep me"


@pytest.mark.slow
def test_a_report_is_written_whole_and_an_old_one_replaced(site_db, tmp_path) -> None:
    out = tmp_path / "site"
    first = CliRunner().invoke(app, ["report", "--db", str(site_db), "--out", str(out)])
    assert first.exit_code == 0 and first.output.strip().endswith("index.html")
    games = sorted(p.name for p in out.glob("game-*.html"))
    (out / "stale.html").write_text("from an older report")
    again = CliRunner().invoke(
        app, ["report", "--db", str(site_db), "--out", str(out), "--league", "trianon-site"]
    )
    assert again.exit_code == 0
    # issue 27 finding 1: a file the report did not write is kept; its own old pages go
    assert (out / "stale.html").read_text() == "from an older report"
    assert sorted(p.name for p in out.glob("game-*.html")) != games  # one league now
    assert set(p.name for p in out.glob("game-*.html")) < set(games)
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no build folder left
    shown = (out / "index.html").read_text()
    assert "trianon-site" in shown and "trix-site" not in shown


def test_a_match_page_names_each_deals_contract_once_a_rotation(site_db) -> None:
    """Deal by deal, a deal's first row names each rotation's contract (every seat
    played under it) and the seats' cells then hold who held the cards and the score
    only; a cell names its contract itself where the seats' differ."""
    for league in ("trix-site", "trianon-site"):
        page = _client(site_db).get(f"/league/{league}/match/0").text
        table = page.split('id="match-deals"')[1].split("</table>")[0]
        contract_rows = re.findall(r'<tr class="deal-start">.*?</tr>', table, re.S)
        assert contract_rows, league
        for row in contract_rows:
            assert "<td>contract</td>" in row
            assert len(re.findall(r"<small>[^<]+</small>", row)) >= 1, row
        seat_cells = re.findall(r"<td(?: class=\"best\")?><bdi>.*?</td>", table, re.S)
        assert seat_cells and not [c for c in seat_cells if "<small>" in c], league


def test_a_rotations_contract_is_said_once_only_when_every_seat_shares_it() -> None:
    from arena.web.pages import _column_contracts

    def cell(contract: str) -> dict:
        return {"entrant": "a", "contract": contract, "score": 0}

    grid = [[cell("trix"), cell("queens"), None], [cell("trix"), cell("diamonds"), cell("x")]]
    assert _column_contracts(grid) == ["trix", None, None]
