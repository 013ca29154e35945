"""The league site as an attacker finds it (issue 28, items 1-8): ids of any size, a
foreign `Host`, security headers, a client dripping its headers, deal data included
by another origin, hostile league names, names a web address treats specially, and
the organiser's paths and machines. Each test tries the attack on the application."""

from __future__ import annotations

import html
import logging
import re
import socket
import sqlite3
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin

import pytest
from starlette.testclient import TestClient

from arena.errors import ConfigError
from arena.league.definition.config import load_league
from arena.league.store import league_id_by_name, open_existing
from arena.web.app import make_app
from arena.web.hardening import CSP, HEADER_TIMEOUT, allowed_hosts
from arena.web.links import ReportLinks
from arena.web.report import write_report
from tests.support.hostile_names import ENTRANTS, LEAGUE, build_hostile_db
from tests.support.site_league import build_site_db, live_match

ROOT = Path(__file__).resolve().parents[2]
HUGE = ["9223372036854775808", "9" * 5000, "18446744073709551616", "0" * 40 + "1"]


@pytest.fixture(scope="module")
def site_db(tmp_path_factory) -> Path:
    return build_site_db(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="module")
def names_db(tmp_path_factory) -> Path:
    return build_hostile_db(tmp_path_factory.mktemp("names"))


def _client(db: Path, **kwargs) -> TestClient:
    return TestClient(
        make_app(db, **kwargs), base_url="http://127.0.0.1", raise_server_exceptions=False
    )


def test_item_1_ids_of_any_size_answer_404_without_a_traceback(site_db, caplog) -> None:
    client = _client(site_db)
    caplog.set_level(logging.DEBUG)
    for number in HUGE:
        for url in (f"/game/{number}", f"/league/trix-site/match/{number}",
                    f"/game/{number}/deal/1.json", f"/game/1/deal/{number}.json",
                    f"/league/trix-site/match/{number}/live",
                    f"/league/trix-site/match/0/live/deal/{number}.json"):  # fmt: skip
            response = client.get(url)
            assert response.status_code == 404, (url[:80], response.status_code)
            assert "Not found" in response.text  # the site's own page, not a bare error
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def test_item_1_the_one_not_found_handler_says_what_exists(site_db) -> None:
    """Issue 25.6: `NotFound` raised anywhere is answered by one exception handler."""
    client = _client(site_db)
    response = client.get("/league/nope/faults")
    assert response.status_code == 404
    assert "trix-site, trianon-site" in html.unescape(response.text)
    source = (ROOT / "arena" / "web" / "app.py").read_text()
    assert source.count("except pages.NotFound") == 0 and "pages.NotFound: not_found" in source


def test_item_2_a_foreign_host_is_refused_unless_allowed(site_db) -> None:
    app_default = make_app(site_db)
    for host in ("127.0.0.1", "localhost", "[::1]"):
        ok = TestClient(app_default, base_url=f"http://{host}:8000").get("/")
        assert ok.status_code == 200, host
    for host in ("evil.example", "127.0.0.1.evil.example", "10.0.0.5"):
        refused = TestClient(app_default, base_url=f"http://{host}").get("/league/trix-site")
        assert refused.status_code == 400 and "trix-site" not in refused.text, host
    allowed = make_app(site_db, hosts=allowed_hosts("0.0.0.0", ["arena.example"]))
    assert TestClient(allowed, base_url="http://arena.example").get("/").status_code == 200
    assert TestClient(allowed, base_url="http://evil.example").get("/").status_code == 400
    assert "0.0.0.0" not in allowed_hosts("0.0.0.0")  # every address is no name
    assert "192.168.1.2" in allowed_hosts("192.168.1.2")  # the address listened on
    assert "[fd00::1]" in allowed_hosts("fd00::1")


def _every_response(client: TestClient) -> list:
    game = client.get("/game/1")
    return [client.get(url) for url in ("/", "/league/trix-site", "/league/trix-site/faults",
            "/league/trix-site/entrant/greedy", "/league/trix-site/match/0", "/game/1/deal/1.json",
            "/api/version", "/static/site.css", "/static/viewer.js", "/nowhere", "/game/" + HUGE[1])
            ] + [game]  # fmt: skip


def test_item_3_security_headers_on_every_response(site_db) -> None:
    client = _client(site_db)
    responses = _every_response(client)
    responses.append(TestClient(make_app(site_db), base_url="http://evil.example").get("/"))
    assert {r.status_code for r in responses} == {200, 400, 404}
    for response in responses:
        headers = response.headers
        assert headers["content-security-policy"] == CSP, response.url
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["cross-origin-resource-policy"] == "same-origin"
        assert "no-cache" in headers["cache-control"] or "no-store" in headers["cache-control"]
    script_src = re.search(r"script-src ([^;]*)", CSP).group(1).split()
    assert script_src == ["'self'"]  # no inline script, no eval, no other origin
    assert "frame-ancestors 'none'" in CSP


class _Inline(HTMLParser):
    """The inline scripts and event handlers of a page (what the CSP would block)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        self.found += [f"{tag} {k}" for k in attrs if k.startswith("on")]
        self.found += [f"{tag} {k}" for k, v in attrs.items() if v and "javascript:" in v]
        self._in_script = (
            tag == "script" and "src" not in attrs and (attrs.get("type") != "application/json")
        )

    def handle_data(self, data) -> None:
        if self._in_script and data.strip():
            self.found.append(f"inline script {data[:40]!r}")

    def handle_endtag(self, tag) -> None:
        self._in_script = False


@pytest.mark.slow
def test_item_3_no_page_needs_an_inline_script(site_db, tmp_path) -> None:
    client = _client(site_db)
    pages = [r.text for r in _every_response(client) if "html" in r.headers["content-type"]]
    write_report(site_db, tmp_path / "report")
    pages += [p.read_text() for p in (tmp_path / "report").glob("*.html")]
    assert len(pages) > 10
    for text in pages:
        parser = _Inline()
        parser.feed(text)
        assert parser.found == []


@pytest.mark.slow
def test_item_4_a_client_slow_with_its_headers_is_cut_off(site_db) -> None:
    """A real `arena serve` with `--header-timeout 1`: a connection that sends a header
    byte every 0.3 s is closed by the server, while a prompt request is answered; the
    server logs no traceback. The default limit is the documented one."""
    assert HEADER_TIMEOUT == 10.0
    documented = (ROOT / "docs" / "web.md").read_text()
    assert f"--header-timeout SECONDS`, default {HEADER_TIMEOUT:g}" in documented
    from arena.cli.web import HEADER_TIMEOUT as cli_default

    assert cli_default == HEADER_TIMEOUT
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--db", str(site_db), "--port", str(port),
         "--header-timeout", "1", "--allowed-host", "site.example"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None
                time.sleep(0.1)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as slow:
            request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100
            closed_after = None
            for sent in range(len(request)):  # at most 30 s of dripping
                try:
                    slow.sendall(request[sent : sent + 1])
                except OSError:
                    closed_after = sent
                    break
                slow.settimeout(0.3)
                try:
                    if slow.recv(1024) == b"":
                        closed_after = sent
                        break
                except TimeoutError:
                    continue
            assert closed_after is not None and closed_after < 20  # cut off after about 1 s
        for host, status in (("site.example", 200), ("evil.example", 400)):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as prompt:
                prompt.sendall(f"GET /api/version HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
                assert prompt.recv(1024).startswith(f"HTTP/1.1 {status}".encode()), host
    finally:
        server.terminate()
        output = server.communicate(timeout=10)[0].decode()
    assert "Traceback" not in output


@pytest.mark.slow
def test_item_5_live_deal_data_is_json_never_a_script(tmp_path) -> None:
    db = build_site_db(tmp_path)
    live_match(db, rotation=3, steps=40)
    client = _client(db, live_hands=True)
    script = client.get("/league/trix-site/match/100/live/deal/1.js")
    assert script.status_code == 404  # no script a page of another origin could run
    data = client.get("/league/trix-site/match/100/live/deal/1.json")
    assert data.status_code == 200 and data.headers["content-type"] == "application/json"
    assert data.headers["x-content-type-options"] == "nosniff"
    assert data.headers["cross-origin-resource-policy"] == "same-origin"
    assert data.json()["deal"] == 1 and not data.text.startswith("ArenaViewer")
    page = client.get("/league/trix-site/match/100/live").text
    assert "/live/deal/1.json" in page and 'deal/1.js"' not in page
    assert client.get("/game/1/deal/1.js").status_code == 404
    assert client.get("/game/1/deal/1.json").headers["content-type"] == "application/json"
    # the static report keeps scripts: a page opened from file:// may not fetch
    assert ReportLinks().deal_data(1, 1).endswith(".js")


@pytest.mark.parametrize(
    "name", ["rtl \u202exirt eugael", "esc \x1b[31m", "new\nline", " padded", "..", "", "a|b"]
)
def test_item_6_league_names_are_checked_like_entrant_names(tmp_path, name) -> None:
    path = tmp_path / "bad.toml"
    quoted = name.replace("\\", "\\\\").replace("\n", "\\n").replace("\x1b", "\\u001b")
    path.write_text(
        f'[league]\nname = "{quoted}"\ngame = "trix"\n'
        + "".join(f'[[entrant]]\nname = "e{i}"\nbot = "builtin:random"\n' for i in range(4))
    )
    with pytest.raises(ConfigError) as err:
        load_league(path)
    assert "[league] name" in str(err.value)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)


def _hrefs(text: str) -> list[str]:
    parser = _Links()
    parser.feed(text)
    return parser.hrefs


def test_item_7_names_with_slashes_dots_percents_and_rtl_are_reachable(names_db, tmp_path) -> None:
    client = _client(names_db)
    index = client.get("/").text
    league_href = next(h for h in _hrefs(index) if h.startswith("/league/"))
    league = client.get(league_href)
    assert league.status_code == 200 and html.escape(LEAGUE) in league.text
    seen: set[str] = set()
    todo = [league_href]
    while todo and len(seen) < 200:  # every page reachable from the league's
        href = todo.pop()
        if href in seen:
            continue
        seen.add(href)
        response = client.get(href)
        assert response.status_code == 200, (unquote(href), response.text[-300:])
        todo += [h.split("#")[0] for h in _hrefs(response.text) if h.startswith("/")]
    for entrant in ENTRANTS:
        hits = [h for h in seen if h.endswith("/entrant/" + _quote(entrant))]
        assert hits, entrant
        page = client.get(hits[0]).text
        assert f"<h1><bdi>{html.escape(entrant)}</bdi>" in page
    # the static report: every relative link is a file that is there
    out = tmp_path / "report"
    write_report(names_db, out)
    for page in out.glob("*.html"):
        for href in _hrefs(page.read_text()):
            target = unquote(urljoin("x/" + page.name, href.split("#")[0]))[2:]
            assert (out / target).is_file(), (page.name, href)
    entrant_files = list(out.glob("entrant-*.html"))
    assert len(entrant_files) == len(ENTRANTS)


def _quote(name: str) -> str:
    from urllib.parse import quote

    return quote(name, safe="")


def test_item_8_no_page_shows_the_organisers_paths_or_machines(site_db, tmp_path) -> None:
    db = tmp_path / "unfinished.db"
    db.write_bytes(site_db.read_bytes())
    with sqlite3.connect(db) as conn:  # as if the league had more matches to play
        conn.execute("UPDATE leagues SET scheduled_matches = scheduled_matches + 5")
    conn.close()
    reader = open_existing(db)
    try:
        league_id = league_id_by_name(reader, "trix-site")[0]
        files = [row["file"] for row in reader.query("SELECT file FROM leagues")]
        workers = [m["worker"] for m in reader.query("SELECT worker FROM matches")]
        assert league_id and all(Path(f).is_absolute() for f in files if f)
    finally:
        reader.close()
    client = _client(db)
    text = "\n".join(
        client.get(url).text
        for url in ("/", "/league/trix-site", "/league/trix-site/match/0",
                    "/league/trix-site/match/1", "/league/trix-site/faults",
                    "/league/trix-site/entrant/illegal", "/game/1")
    )  # fmt: skip
    assert "resumes it" in text  # the unfinished league says how to go on
    assert "arena run trix.toml" in html.unescape(text)
    assert str(tmp_path.parent) not in text and str(Path.home()) + "/" not in text
    assert socket.gethostname() not in text
    for worker in workers:
        assert worker and worker not in text
    assert not re.search(r"pid [0-9]+", text)
