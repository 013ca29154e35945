"""The ladder's public site (`arena ladder serve`) over a small real ladder whose names
are attacks: every page reachable from the table renders, with every name escaped;
the table ties places as `arena ladder table` does; a bot's page marks its promotions
and shows its promotion test; a version's page its gate report without the
organiser's folders and its faults linking into the viewer; and the attacks: bad
parameters (400 saying why, never a 500), ids of any size, paths that climb out,
foreign hosts, and the cards of a game still being played."""

from __future__ import annotations

import asyncio
import html
import json
import logging
import re
import socket
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, unquote, urljoin, urlsplit
from urllib.request import urlopen

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from arena.cli import app as cli_app
from arena.games import get_game
from arena.web.app import make_app
from arena.web.hardening import FORMS_CSP
from arena.web.ladder.app import make_ladder_app
from tests.ladder.ladder_support import ok
from tests.support.site_ladder import (
    HOSTILE_AUTHOR,
    HOSTILE_BOT,
    HOSTILE_HOUSE,
    LADDER,
    SECRET_FOLDER,
    build_ladder_db,
)
from tests.support.site_league import live_match

HUGE = ["9223372036854775808", "9" * 5000, "0" * 40 + "1"]
HOSTILE = (HOSTILE_AUTHOR, HOSTILE_BOT, HOSTILE_HOUSE, LADDER)


@pytest.fixture(scope="module")
def ladder_db(tmp_path_factory) -> Path:
    return build_ladder_db(tmp_path_factory.mktemp("ladder-site"))


def _client(db: Path, **kwargs) -> TestClient:
    return TestClient(
        make_ladder_app(db, **kwargs), base_url="http://127.0.0.1", raise_server_exceptions=False
    )


@pytest.fixture(scope="module")
def client(ladder_db) -> TestClient:
    return _client(ladder_db)


class _Markup(HTMLParser):
    """A page's links, and whatever in it could run: an `on...` attribute, a
    `javascript:` address, an inline script, an element a name could have made."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.running: list[str] = []
        self._script = False

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        self.running += [f"{tag} {k}" for k in attrs if k.startswith("on")]
        self.running += [f"{tag} {k}" for k, v in attrs.items() if v and "javascript:" in v]
        self.running += [tag] if tag == "img" else []
        self._script = tag == "script" and "src" not in attrs
        self._script &= attrs.get("type") != "application/json"  # data, never run
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])

    def handle_data(self, data) -> None:
        if self._script and data.strip():
            self.running.append(f"inline script {data[:40]!r}")

    def handle_endtag(self, tag) -> None:
        self._script = False


def _crawl(client: TestClient, limit: int = 120) -> dict[str, str]:
    """Every page reachable from the table (at most `limit`), by address: its text."""
    seen: dict[str, str] = {}
    todo = ["/"]
    while todo and len(seen) < limit:
        url = todo.pop(0)
        if url in seen:
            continue
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code, response.text[-300:])
        seen[url] = response.text
        if "html" not in response.headers["content-type"]:
            continue
        parser = _Markup()
        parser.feed(response.text)
        assert parser.running == [], (url, parser.running)
        for href in parser.links:
            target = urljoin(url, html.unescape(href)).split("#")[0]
            if urlsplit(target).netloc == "" and target not in seen:
                todo.append(target)
    return seen


def test_every_page_reachable_from_the_table_renders_with_every_name_escaped(client) -> None:
    pages = _crawl(client)
    kinds = {re.sub(r"[0-9]+", "N", urlsplit(u).path.split("/version")[0].rsplit("/", 1)[0] or "/")
             for u in pages}  # fmt: skip
    assert {"/", "/bot", "/match", "/game"} <= kinds, kinds
    assert any("/version/" in u for u in pages) and any(u.startswith("/matches?") for u in pages)
    assert "/queue" in pages and "/faults" in pages and "/api/v1/openapi.json" in pages
    shown = "\n".join(html.unescape(text) for text in pages.values())
    for name in HOSTILE:
        assert name in shown, name  # shown, as text
        assert all(name not in text for text in pages.values()), name  # never as markup
    assert SECRET_FOLDER not in shown and "organiser-secret" not in shown


def test_the_table_ties_places_as_the_command_does(client, ladder_db) -> None:
    text = ok("ladder", "table", "--db", str(ladder_db))
    places = [line.split()[0] for line in text.splitlines()[2:]]
    page = client.get("/").text
    shown = re.findall(r'<td class="num place">([^<]*)</td>', page)
    assert shown == places and any("-" in p for p in places)
    assert HOSTILE_HOUSE in html.unescape(page) and HOSTILE_HOUSE not in page


def test_a_bots_page_marks_its_promotions_and_shows_its_test(client) -> None:
    page = client.get("/bot/alpha").text
    assert page.count('<g class="mark">') == 1 and "alpha@1 active" in page
    assert re.search(r'<td class="decision">continue</td>', page)
    assert 'id="opponents"' in page and "greedy@1" in page
    versions = re.findall(r'<td class="state">(\w+)</td>', page)
    assert versions == ["active", "candidate"]


def test_a_versions_page_shows_its_gate_report_and_faults_into_the_viewer(client) -> None:
    refused = client.get(f"/bot/{quote(HOSTILE_BOT, safe='')}/version/1")
    assert refused.status_code == 200
    report = re.search(r'<pre id="gate-report"[^>]*>(.*?)</pre>', refused.text, re.S).group(1)
    assert "REFUSED at start" in report and "bot.py not found" in html.unescape(report)
    assert "&lt;b&gt;error&lt;/b&gt;" in report and "/srv" not in report
    illegal = client.get("/bot/illegal/version/1").text
    views = re.findall(r'href="(/game/\d+#deal=\d+&amp;event=\d+)"', illegal)
    assert views, "each fault links into the viewer at its decision"
    assert client.get(html.unescape(views[0]).split("#")[0]).status_code == 200


def test_a_versions_games_filter_by_opponent_and_page(client) -> None:
    every = client.get("/bot/alpha/version/2?limit=500").text
    only = client.get("/bot/alpha/version/2?opponent=greedy@1&limit=500").text
    rows = lambda text: re.findall(r"<tr><td><a href=\"/game/(\d+)\">", text)  # noqa: E731
    assert 0 < len(rows(only)) < len(rows(every))
    for game in rows(only):
        assert "greedy@1" in client.get(f"/api/v1/games/{game}").json()["players"]
    assert 'id="filter"' in only
    first = client.get("/bot/alpha/version/2?limit=1").text
    next_page = re.search(r'id="next-page" href="([^"]+)"', first).group(1)
    second = client.get(html.unescape(next_page)).text
    assert rows(first) and rows(second) and int(rows(second)[0]) < int(rows(first)[0])


def test_the_matches_page_filters_and_pages(client) -> None:
    page = client.get("/matches?version=alpha@2&limit=2").text
    shown = re.findall(r'<tr data-match="(\d+)">', page)
    assert len(shown) == 2 and 'id="filter"' in page
    next_page = html.unescape(re.search(r'id="next-page" href="([^"]+)"', page).group(1))
    assert "version=alpha%402" in next_page and "cursor=" in next_page
    more = re.findall(r'<tr data-match="(\d+)">', client.get(next_page).text)
    assert more and int(more[0]) < int(shown[-1])


BAD = [
    ("limit=0", "limit"), ("limit=501", "limit"), ("limit=abc", "limit"), ("limit=%D9%A3", "limit"),
    ("cursor=-1", "cursor"), ("cursor=" + "9" * 19, "cursor"), ("cursor=1e3", "cursor"),
    ("since=yesterday", "since"), ("since=nan", "since"), ("until=inf", "until"),
    ("since=1e300", "since"), ("until=-5", "until"),
    ("bot=nobody", "no bot named"), ("bot=alpha@1", "version names one"),
    ("version=alpha", "BOT@N"), ("version=alpha@x", "BOT@N"), ("version=alpha@99", "no version"),
    ("opponent=nobody", "no bot named"), ("bot=alpha&bot=alpha", "once"),
    ("colour=red", "unknown parameter"), ("bot=" + "x" * 201, "at most 200"),
    ("bot=a%00b", "printable"),
]  # fmt: skip


@pytest.mark.parametrize(("query", "said"), BAD)
def test_a_bad_parameter_is_a_400_saying_why_never_a_500(client, query, said, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    for base in ("/matches", "/api/v1/matches"):
        response = client.get(f"{base}?{query}")
        assert response.status_code == 400, (base, query, response.text[:200])
        message = response.json()["error"] if "api" in base else html.unescape(response.text)
        assert said in message, (query, message[:300])
    for url in ("/bot/alpha/version/1", "/api/v1/games", "/api/v1/faults"):
        if not query.startswith(("since", "until", "opponent", "bot=alpha@", "version")):
            assert client.get(f"{url}?{query}").status_code == 400, (url, query)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def test_ids_of_any_size_and_names_not_held_answer_404(client, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    for number in HUGE:
        for url in (f"/game/{number}", f"/match/{number}", f"/bot/alpha/version/{number}",
                    f"/game/{number}/deal/1.json", f"/game/1/deal/{number}.json",
                    f"/match/{number}/live", f"/api/v1/games/{number}",
                    f"/api/v1/versions/alpha/{number}"):  # fmt: skip
            assert client.get(url).status_code == 404, url[:80]
    for url in ("/bot/nobody", "/game/999999", "/api/v1/bots/nobody", "/nowhere", "/api/v1"):
        response = client.get(url)
        assert response.status_code == 404, url
    assert "nobody" in client.get("/api/v1/bots/nobody").json()["error"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


TRAVERSALS = [
    "/static/../../pyproject.toml", "/static/%2e%2e/%2e%2e/pyproject.toml",
    "/static/..%2f..%2fpyproject.toml", "/static/%2e%2e%2f%2e%2e%2farena.db",
    "/static/../templates/base.html", "/static/..%5c..%5cpyproject.toml",
    "/bot/..%2F..%2Fetc%2Fpasswd", "/bot/%2e%2e/version/1", "/game/..%2F1",
    "/api/v1/bots/..%2F..%2Fpyproject.toml", "/api/v1/games/..%2F1",
    "/match/1/../../../../../../etc/passwd", "/static/%00", "/faults/..%2f..%2f",
]  # fmt: skip


def _raw_get(app, raw_path: str) -> tuple[int, bytes]:
    """GET `raw_path` exactly as sent (a client would remove its dot segments first)."""
    sent: list[dict] = []
    asked: list[int] = []

    async def receive() -> dict:
        asked.append(1)
        if len(asked) == 1:
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(0.01)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": unquote(raw_path), "raw_path": raw_path.encode(),
        "query_string": b"", "root_path": "", "headers": [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000),
    }  # fmt: skip
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def test_a_path_that_climbs_out_is_refused(client, ladder_db) -> None:
    app = make_ladder_app(ladder_db)
    secret = ladder_db.read_bytes()[:16]
    for url in TRAVERSALS:
        status, body = _raw_get(app, url)
        assert status in (400, 404), (url, status)
        assert b"[build-system]" not in body and b"root:" not in body and b"{%" not in body
        assert secret not in body
    assert _raw_get(app, "/static/site.css")[0] == 200
    # a name that holds `/..` is one segment: its own page, not a step up
    assert client.get(f"/bot/{quote(HOSTILE_BOT, safe='')}").status_code == 200


def test_security_headers_on_every_response_and_foreign_hosts_refused(client, ladder_db) -> None:
    responses = [client.get(url) for url in (
        "/", "/bot/alpha", "/matches?limit=2", "/api/v1/table", "/api/v1/openapi.json",
        "/static/site.css", "/game/1/deal/1.json", "/matches?limit=0", "/api/v1/games?limit=0",
        "/nowhere", "/api/v1/bots/nobody", "/api/version", "/login")]  # fmt: skip
    foreign = TestClient(make_ladder_app(ladder_db), base_url="http://evil.example").get("/")
    responses.append(foreign)
    assert foreign.status_code == 400 and "alpha" not in foreign.text
    assert {r.status_code for r in responses} == {200, 400, 404}
    for response in responses:
        headers = response.headers
        # the league site's policy, but forms may post to the site itself (sign-in, uploads)
        assert headers["content-security-policy"] == FORMS_CSP, response.url
        assert "form-action 'self'" in FORMS_CSP and "script-src 'self';" in FORMS_CSP
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["cross-origin-resource-policy"] == "same-origin"
        assert headers["referrer-policy"] == "no-referrer"


CARD = re.compile(r"""["'>]([2-9TJQKA][CDHS])["'<]""")


def _cards(text: str) -> set[str]:
    """The card codes a response shows, but for the rule option that names a card held
    by nobody in particular (Trix's `first_king_card`)."""
    return set(CARD.findall(re.sub(r'"first_king_card":\s*"..",?', "", text)))


def _hidden(state) -> set[str]:
    """The cards no spectator may see: those still in a hand, not exposed."""
    game = get_game("trix")
    hidden, exposed = set(), set()
    for seat in range(game.seats):
        view = game.view_dict(game.observe(state, seat))
        hidden |= set(view["hand"])
        exposed |= {c for cards in view["exposed"] for c in cards}
    return hidden - exposed


def test_no_response_about_a_game_in_progress_shows_a_hidden_card(tmp_path) -> None:
    """The league site's rule (docs/web.md): a game being played is shown as a
    spectator sees it, and only in its match's last rotation (an earlier rotation's
    deals are replayed by the later ones, so nothing of their cards is shown)."""
    db = build_ladder_db(tmp_path, matches=2)
    entrants = ("greedy@1", "random@1", "first@1", "alpha@1")
    client = _client(db)
    urls = ["/", "/queue", "/match/100", "/match/100/live", "/api/v1/queue",
            "/api/v1/matches?limit=500", "/api/v1/ladder", "/api/version"]  # fmt: skip
    for rotation in (0, 3):
        _, state = live_match(db, rotation, 70, league=LADDER, entrants=entrants)
        hidden = _hidden(state)
        assert len(hidden) > 20 and state.deal_index == 1  # deal 2, its hands half played
        texts = {url: client.get(url) for url in urls}
        assert "match 101" in texts["/queue"].text  # the match in flight is listed
        now = client.get("/match/100/live/deal/2.json")
        if rotation == 0:
            assert set().union(*(_cards(r.text) for r in texts.values())) == set()
            assert texts["/match/100/live"].status_code == 404 and now.status_code == 404
            assert client.get("/match/100/live/deal/1.json").status_code == 404
        else:
            assert texts["/match/100/live"].status_code == 200
            assert not set().union(*(_cards(r.text) for r in texts.values())) & hidden
            played = {e["card"] for e in get_game("trix").deal_records(state)[-1]["events"]
                      if e["type"] == "play"}  # fmt: skip
            assert now.status_code == 200 and played and played <= _cards(now.text)
            assert not _cards(now.text) & hidden


def test_serve_refuses_what_cannot_work_and_answers_on_loopback(ladder_db, tmp_path) -> None:
    runner = CliRunner()
    for args, said in (
        (["--db", str(tmp_path / "none.db")], "none.db"),
        (["--db", str(ladder_db), "--ladder", "autumn"], "no ladder named 'autumn'"),
        (["--db", str(ladder_db), "--host", "not a host!"], "--host"),
    ):
        result = runner.invoke(cli_app, ["ladder", "serve", *args])
        assert result.exit_code == 2 and said in result.output, (args, result.output)


@pytest.mark.slow
def test_a_real_server_answers_and_stops(ladder_db) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "ladder", "serve", "--db", str(ladder_db),
         "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        for _ in range(300):
            try:
                with urlopen(f"http://127.0.0.1:{port}/api/v1/ladder", timeout=2) as response:
                    answer = json.loads(response.read())
                break
            except OSError:
                assert server.poll() is None, server.stdout.read()
                time.sleep(0.1)
        assert answer["name"] == LADDER
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_league_in_the_same_database_is_not_the_ladders_to_show(tmp_path) -> None:
    """One database may hold leagues beside the ladder: the ladder's site shows none of
    their games, matches or faults."""
    from tests.support.tiny_league import tiny_file

    db = build_ladder_db(tmp_path, matches=1)
    ok("run", str(tiny_file(tmp_path)), "--db", str(db))
    client = _client(db)
    ours = {g["id"] for g in client.get("/api/v1/games?limit=500").json()["items"]}
    theirs = max(ours) + 1  # the league's games were stored after the ladder's
    league_site = TestClient(make_app(db), base_url="http://127.0.0.1")
    assert league_site.get(f"/game/{theirs}").status_code == 200  # a game, the league's
    for url in (f"/game/{theirs}", f"/game/{theirs}/deal/1.json", f"/api/v1/games/{theirs}"):
        assert client.get(url).status_code == 404, url
    assert "tiny" not in client.get("/faults").text + client.get("/matches").text


def test_a_test_its_candidate_left_reads_as_stopped_not_as_going_on(tmp_path) -> None:
    """alpha@2 promoted by its author part-way: its test stopped undecided, so the pages
    say where it stopped and the API says it is no longer running."""
    client = _client(build_ladder_db(tmp_path, promote_after=7))
    (test,) = client.get("/api/v1/bots/alpha").json()["promotion_tests"]
    assert test["decision"] == "continue"  # the verdict where it stopped
    assert (test["state"], test["running"]) == ("active", False)
    for url in ("/bot/alpha", "/bot/alpha/version/2"):
        page = client.get(url).text
        assert '<td class="decision">stopped: active</td>' in page, url
        assert '<td class="decision">continue</td>' not in page, url
