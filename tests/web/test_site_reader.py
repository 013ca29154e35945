"""The league site's pages as a reader needs them (issue 28, items 9-17), checked on
the pages the server and the report make; tests/browser/test_reader.py checks what
only a browser shows (layout, focus, hover, contrast, axe-core)."""

from __future__ import annotations

import collections
import hashlib
import html
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.league.store import league_id_by_name, open_existing, site_reads
from arena.web.app import make_app
from arena.web.charts import rating_chart
from arena.web.links import Links
from arena.web.report import write_report
from tests.support.hostile_names import LEAGUE, build_hostile_db
from tests.support.site_league import build_site_db


@pytest.fixture(scope="module")
def site_db(tmp_path_factory) -> Path:
    return build_site_db(tmp_path_factory.mktemp("site"))


def _client(db: Path) -> TestClient:
    return TestClient(make_app(db), base_url="http://127.0.0.1")


def test_item_9_the_page_says_who_leads_and_how_sure(site_db) -> None:
    page = html.unescape(_client(site_db).get("/league/trix-site").text)
    places = re.findall(r'class="num place"[^>]*>([^<]+)<', page)
    standing = re.search(r'<p id="standing">(.*?)</p>', page).group(1)
    assert "greedy" in standing  # the first row by rating
    if "-" in places[0]:
        assert "leads by rating" in standing and f"places {places[0]}" in standing
    else:
        assert "is first, separated from the rest" in standing


def test_item_9_a_shared_first_place_is_said_with_its_range() -> None:
    """A leader whose own range is 1-3: the line names it and the three places."""
    from arena.web.pages import _standing

    rows = [{"name": n, "place_range": [1, 3]} for n in ("a", "b", "c")]
    table = [{"row": r, "place": "1-3"} for r in rows]
    table.append({"row": {"name": "d", "place_range": [4, 4]}, "place": "4"})
    assert _standing(table) == {"leader": "a", "place": "1-3", "shared": 3}
    alone = [{"row": {"name": "a", "place_range": [1, 1]}, "place": "1"}]
    assert _standing(alone)["shared"] == 1


def test_item_10_faults_link_entrants_show_the_log_and_say_the_text_once(site_db) -> None:
    page = html.unescape(_client(site_db).get("/league/trix-site/faults").text)
    rows = re.findall(r"<tr data-entrant.*?</tr>", page, flags=re.S)
    assert rows
    for row in rows:
        assert 'href="/league/trix-site/entrant/illegal"' in row
        detail = re.search(r'<pre class="fault-detail" dir="auto">(.*?)</pre>', row, re.S)
        assert detail and row.count("which is not a trix action") == 2  # summary + whole
        assert "; got " not in row  # what the bot sent is in the detail already
        assert "the bot's log" in row and "/logs/" not in row


def test_item_11_a_one_match_league_draws_no_empty_rating_chart(tmp_path) -> None:
    db = build_hostile_db(tmp_path)
    conn = open_existing(db)
    league_id = site_reads.league_summaries(conn)[0]["id"]
    history = site_reads.rating_history(conn, league_id)
    conn.close()
    assert history and {row["match_idx"] for row in history} == {0}
    assert rating_chart(history, sorted({r["entrant"] for r in history})) == ""
    page = _client(db).get(Links().league(LEAGUE))
    assert page.status_code == 200 and "Ratings over the matches" not in page.text


def test_item_11_the_live_page_of_a_stored_match_hands_over_to_its_game(site_db) -> None:
    client = _client(site_db)
    response = client.get("/league/trix-site/match/0/live", follow_redirects=False)
    assert response.status_code == 303
    assert re.fullmatch(r"/game/[0-9]+", response.headers["location"])
    assert client.get(response.headers["location"]).status_code == 200


def test_item_12_the_table_explains_its_abbreviations(site_db) -> None:
    page = _client(site_db).get("/league/trix-site").text
    key = re.search(r'<p class="hint" id="table-key">(.*?)</p>', page, re.S).group(1)
    for short, long in (("D", "diamonds"), ("KH", "king-of-hearts"), ("NT", "no-tricks"),
                        ("Q", "queens"), ("T", "trix")):  # fmt: skip
        assert f'<abbr title="{long}">{short}</abbr> {long}' in key


def test_item_16_chart_lines_are_in_their_legend_colours(site_db) -> None:
    page = _client(site_db).get("/league/trix-site").text
    chart = page[page.index("Ratings over the matches") :]
    chart = chart[: chart.index("</figure>")]
    legend = dict(re.findall(r'background:(#[0-9a-f]{6})"></span><bdi>([^<]+)</bdi>', chart))
    legend = {name: hue for hue, name in legend.items()}
    lines = dict(re.findall(r'data-entrant="([^"]+)">.*?stroke="(#[0-9a-f]{6})"', chart))
    assert len(lines) == 5 and lines == {name: legend[name] for name in lines}


def test_item_16_matches_are_counted_from_1_on_every_page(site_db) -> None:
    """`arena play` says "match 1" for its first match: so do the pages, while the
    address keeps the database's index (match 1 lives at /match/0)."""
    client = _client(site_db)
    league = html.unescape(client.get("/league/trix-site").text)
    shown = sorted(int(n) for n in re.findall(r">match (\d+)</a>", league))
    assert shown == [1, 2, 3, 4, 5]  # the five stored matches, never "match 0"
    assert "<h1>Match 1 " in client.get("/league/trix-site/match/0").text
    chart = league[league.index("Ratings over the matches") :]
    assert 'class="axis">match 1<' in chart[: chart.index("</figure>")]
    faults = html.unescape(client.get("/league/trix-site/faults").text)
    numbers = {int(n) for n in re.findall(r"view match (\d+) deal", faults)}
    assert numbers and min(numbers) >= 1  # the illegal bot's faults, matches 2 to 5
    conn = open_existing(site_db)
    league_id = league_id_by_name(conn, "trix-site")[0]
    game = site_reads.league_game_ids(conn, league_id)[0]
    conn.close()
    assert ">match 1</a> of" in client.get(f"/game/{game}").text


def test_item_16_rotations_are_counted_from_1_on_every_page(site_db) -> None:
    client = _client(site_db)
    conn = open_existing(site_db)
    league_id = league_id_by_name(conn, "trix-site")[0]
    game = site_reads.league_game_ids(conn, league_id)[0]
    conn.close()
    assert "rotation 1" in client.get(f"/game/{game}").text
    match = client.get("/league/trix-site/match/0").text
    assert "rotation 1</a>" in match and "rotation 0" not in match
    docs = (Path(__file__).resolve().parents[2] / "docs" / "web.md").read_text()
    assert "#deal=3&step=17&seat=2" in docs  # the seat documented


@pytest.mark.slow
def test_item_17_the_report_writes_nothing_twice(site_db, tmp_path, monkeypatch) -> None:
    writes: collections.Counter[str] = collections.Counter()
    original = Path.write_text

    def counted(self: Path, *args, **kwargs):
        writes[str(self)] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", counted)
    out = tmp_path / "report"
    write_report(site_db, out)
    assert writes and max(writes.values()) == 1  # no file written over
    digests = collections.Counter(
        hashlib.sha256(p.read_bytes()).hexdigest() for p in (out / "data").iterdir()
    )
    assert max(digests.values()) == 1  # no game's data in two files
    pages = list(out.glob("game-*.html"))
    used = {p.name: set(re.findall(r"data/game-[0-9]+\.js", p.read_text())) for p in pages}
    # each game page reads its own game's one data file, and every data file is used
    assert all(urls == {f"data/{name[:-5]}.js"} for name, urls in used.items()), used
    assert {u for urls in used.values() for u in urls} == {
        f"data/{p.name}" for p in (out / "data").iterdir()
    }
