"""Issue 33.5, "play against this bot" (arena/web/table/, docs/human.md#from-the-web-site):
the form on a league entrant's page (`arena serve`) and a ladder version's page
(`arena ladder serve`), refused without the session's token or with an opponent that
is not a built-in, a bot the site cannot start explained instead of offered, at most
N games at once (503 and Retry-After past it), a whole game played through the seat's
pages holding only that seat's view, and nothing of it in the league's database, its
table or its ratings."""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from arena.cli import app as cli_app
from arena.league.definition.config import load_league
from arena.web.app import make_app
from arena.web.hardening import FORMS_CSP
from arena.web.ladder.app import make_ladder_app
from arena.web.table.opponents import launch_problem
from arena.web.table.site_games import OPPONENTS, Opponent, SiteGames
from tests.browser.table_harness import leaks
from tests.independent import trix_checker
from tests.support.site_ladder import HOSTILE_BOT, build_ladder_db
from tests.support.tiny_league import TINY, digest, tiny_db
from tests.web.test_site_hardening import _Inline

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
TWO = ["builtin:greedy", "builtin:random"]  # the Trix table's other seats


@pytest.fixture(scope="module")
def league_db(tmp_path_factory) -> Path:
    """The tiny league (built-ins, one kingdom), its entrant b then said to be a bot at
    a network address and c a command whose file is not here, as a league could have
    stored them."""
    db = tiny_db(tmp_path_factory.mktemp("play-against"))
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE entrants SET bot = 'grpc:127.0.0.1:9' WHERE name = 'b'")
        conn.execute("UPDATE entrants SET bot = 'python gone/bot.py' WHERE name = 'c'")
    conn.close()
    return db


def _client(app: Any) -> TestClient:
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def _form(client: TestClient, path: str) -> tuple[str, str]:
    """(the page, its form's token)."""
    page = client.get(path)
    assert page.status_code == 200, page.text[:300]
    found = CSRF.search(page.text)
    assert found, "no form on " + path
    return page.text, found.group(1)


def _play(client: TestClient, action: str, token: str, others: list[str] = TWO) -> Any:
    return client.post(action, data={"csrf": token, "opponent": others}, follow_redirects=False)


def test_the_entrant_page_offers_the_game_and_the_form_is_guarded(league_db) -> None:
    games = SiteGames(2)
    with _client(make_app(league_db, games=games)) as client:
        page, token = _form(client, "/league/tiny/entrant/a")
        assert 'id="play-button"' in page and ">play against this bot<" in page
        assert page.count('<select name="opponent">') == 2  # Trix: the two free seats
        assert "A game of Trix (kingdoms=1) in your browser" in page
        assert {o for o in OPPONENTS} == set(re.findall(r'<option value="([^"]+)"', page))
        inline = _Inline()
        inline.feed(page)
        assert inline.found == []
        response = client.get("/league/tiny/entrant/a")
        assert response.headers["content-security-policy"] == FORMS_CSP
        assert response.headers["x-frame-options"] == "DENY"
        action = "/league/tiny/entrant/a/play"
        # no token, another token, an empty one: 403, no game
        for data in ({"opponent": TWO}, {"csrf": token[:-1] + "x", "opponent": TWO},
                     {"csrf": "", "opponent": TWO}):  # fmt: skip
            refused = client.post(action, data=data, follow_redirects=False)
            assert refused.status_code == 403, data
        fresh = _client(make_app(league_db, games=games))  # another visitor: no session
        assert _play(fresh, action, token).status_code == 403
        # only built-ins, one per free seat
        for others in (["python evil.py", "builtin:random"], ["grpc:10.0.0.1:1", "builtin:first"],
                       ["builtin:mixed:0.5", "builtin:first"], ["builtin:greedy"],
                       ["builtin:greedy"] * 3, ["human", "builtin:first"]):  # fmt: skip
            refused = _play(client, action, token, others)
            assert refused.status_code == 400, others
            assert "pick 2 opponents from the built-in bots" in refused.text
        assert games.running() == 0
        # two games at once, the third refused with Retry-After
        seats = [_play(client, action, token) for _ in range(2)]
        assert [s.status_code for s in seats] == [303, 303]
        links = [s.headers["location"] for s in seats]
        assert all(re.fullmatch(r"/seat/[\w-]{32}", link) for link in links)
        assert len(set(links)) == 2
        busy = _play(client, action, token)
        assert busy.status_code == 503 and busy.headers["retry-after"] == "60"
        assert "the most it plays at once" in busy.text
        assert busy.headers["content-security-policy"] == FORMS_CSP
        frame = client.get(links[0] + "/state.json?after=0").json()
        assert frame["seat"] == 0 and frame["name"] == "visitor"
        assert frame["players"] == ["visitor", "a", "greedy", "random"]
        assert frame["options"]["kingdoms"] == "1"  # the league's rules
    assert games.running() == 0  # the server stopped: its games ended


def test_a_bot_the_site_cannot_start_is_explained_not_offered(league_db) -> None:
    with _client(make_app(league_db, games=SiteGames(1))) as client:
        for entrant, why in (("b", "network address"), ("c", "files are not on this server")):
            page = client.get(f"/league/tiny/entrant/{entrant}")
            assert page.status_code == 200
            assert 'id="play-why"' in page.text and why in page.text, entrant
            assert "play-button" not in page.text
            token = CSRF.search(client.get("/league/tiny/entrant/a").text).group(1)
            refused = _play(client, f"/league/tiny/entrant/{entrant}/play", token)
            assert refused.status_code == 409 and why in refused.text
        assert client.post("/league/tiny/entrant/zz/play", data={}).status_code == 404
    plain = _client(make_app(league_db))  # a server offering no games shows no form
    page = plain.get("/league/tiny/entrant/a")
    assert 'id="play"' not in page.text and "csrf" not in page.text
    assert "form-action 'none'" in page.headers["content-security-policy"]
    assert plain.post("/league/tiny/entrant/a/play", data={}).status_code == 404


def _whole_game(client: TestClient, link: str) -> list[dict[str, Any]]:
    """Play the seat's every decision (its first legal action) through its page's own
    requests, to the game's end; every frame the page was sent."""
    frames: list[dict[str, Any]] = []
    version = 0
    for _ in range(5000):
        frame = client.get(f"{link}/state.json?after={version}").json()
        frames.append(frame)
        version = frame["version"]
        if frame["state"] == "over" or frame["closed"]:
            return frames
        if frame["decision"] and frame["legal"]:
            answer = {"decision": frame["decision"], "action": frame["legal"][0]}
            assert client.post(f"{link}/act", json=answer).status_code == 200
    raise AssertionError("the game did not end in 5,000 frames")


def test_a_whole_game_shows_only_the_seat_and_reaches_no_table(league_db, tmp_path) -> None:
    before = digest(league_db)
    table_before = (
        CliRunner().invoke(cli_app, ["table", "--db", str(league_db), "--format", "json"]).output
    )
    games = SiteGames(1, replays=tmp_path / "replays")
    with _client(make_app(league_db, games=games)) as client:
        _, token = _form(client, "/league/tiny/entrant/d")
        link = _play(client, "/league/tiny/entrant/d/play", token).headers["location"]
        frames = _whole_game(client, link)
        end = time.monotonic() + 30
        while games.running() and time.monotonic() < end:
            time.sleep(0.05)
    (replay_path,) = sorted((tmp_path / "replays").glob("game-*.json"))
    replay = json.loads(replay_path.read_text())
    assert trix_checker.check_replay(replay) == []
    assert replay["players"] == ["visitor", "d", "greedy", "random"]
    assert frames[-1]["state"] == "over" and frames[-1]["result"]["totals"] == replay["totals"]
    assert sum(1 for f in frames if f["legal"]) >= 13  # a card of every trick at least
    # the page was sent its own seat's view alone: no card it could not see
    assert not [leaks(replay, 0, frame) for frame in frames if leaks(replay, 0, frame)]
    # nothing of it in the league's database: not a byte, so no table, rating or result
    assert digest(league_db) == before
    table_after = (
        CliRunner().invoke(cli_app, ["table", "--db", str(league_db), "--format", "json"]).output
    )
    assert table_after == table_before


def test_a_ladder_version_offers_its_game_from_its_upload(tmp_path) -> None:
    """A version whose command was uploaded (tests/bot_scripts' illegal bot: its every
    answer a fault) is started from its folder with the ladder's limits; a version the
    gate refused is explained, not offered."""
    db = build_ladder_db(tmp_path, matches=1)
    games = SiteGames(1)
    with _client(make_ladder_app(db, games=games)) as client:
        page = client.get("/bot/alpha/version/1")
        assert 'id="play-button"' in page.text
        refused = client.get(f"/bot/{quote(HOSTILE_BOT, safe='')}/version/1")
        assert refused.status_code == 200 and 'id="play-why"' in refused.text
        assert "this version is refused" in refused.text and "play-button" not in refused.text
        _, token = _form(client, "/bot/illegal/version/1")
        assert _play(client, "/bot/illegal/version/1/play", token, ["python x.py", TWO[0]]
                     ).status_code == 400  # fmt: skip
        seat = _play(client, "/bot/illegal/version/1/play", token)
        assert seat.status_code == 303
        link = seat.headers["location"]
        frame = client.get(f"{link}/state.json?after=0").json()
        for _ in range(50):  # the bot's process started, then the game: a decision comes
            if frame.get("decision") or frame["closed"]:
                break
            frame = client.get(f"{link}/state.json?after={frame['version']}").json()
        assert frame["decision"] and frame["legal"] and not frame["closed"], frame
        assert frame["players"] == ["visitor", "illegal@1", "greedy", "random"]
        busy = _play(client, "/bot/illegal/version/1/play", token)
        assert busy.status_code == 503 and busy.headers["retry-after"] == "60"
    assert games.running() == 0


def test_a_game_nobody_comes_to_or_that_goes_on_too_long_is_ended() -> None:
    """The seat's page never opened (or a game past its time): the table is closed, so
    every decision of the seat is a fault, the fallbacks finish the game, and its place
    is free again."""
    opponent = Opponent("first", "builtin:first", "trix", {"kingdoms": 1})
    for limits in ({"open_seconds": 0.3}, {"game_seconds": 0.3}):
        games = SiteGames(1, **limits)
        try:
            seat = games.start(opponent, TWO)
            if "game_seconds" in limits:
                seat.arrive()  # a page came and stays: only the game's length ends it
            end = time.monotonic() + 20
            while games.running() and time.monotonic() < end:
                time.sleep(0.05)
            assert games.running() == 0, limits
            assert seat.closed and seat.snapshot()["state"] == "over"
            games.start(opponent, TWO)  # a place again
        finally:
            games.close()


def test_a_bot_that_does_not_start_is_said_without_the_servers_words(tmp_path) -> None:
    """The visitor's page says the bot could not be started, never the error's words
    (they name the organiser's folders and commands), and the game's place is free."""
    path = tmp_path / "secret-folder" / "league.toml"
    path.parent.mkdir()
    path.write_text(
        TINY.format(name="t", rounds="rounds = 1", extra="") + '[limits]\nsandbox = "off"\n'
        "startup_timeout = 2.0\n"
    )
    config = load_league(path)
    spec = f"{sys.executable} {tmp_path / 'secret-folder' / 'exits.py'}"
    (tmp_path / "secret-folder" / "exits.py").write_text("raise SystemExit(3)\n")
    games = SiteGames(1)
    try:
        seat = games.start(Opponent("exits", spec, "trix", {"kingdoms": 1}, config), TWO)
        end = time.monotonic() + 30
        while games.running() and time.monotonic() < end:
            time.sleep(0.05)
        frame = seat.snapshot()
        assert games.running() == 0 and frame["closed"]
        assert frame["notice"] == (
            "The game could not be played: the bot could not be started on this server."
        )
    finally:
        games.close()


def test_a_form_too_large_or_of_another_kind_is_refused(league_db) -> None:
    with _client(make_app(league_db, games=SiteGames(1))) as client:
        _, token = _form(client, "/league/tiny/entrant/a")
        action = "/league/tiny/entrant/a/play"
        big = client.post(action, data={"csrf": token, "opponent": TWO, "pad": "x" * 5000})
        many = client.post(action, data={"csrf": token, "opponent": TWO * 5})
        multipart = client.post(
            action, data={"csrf": token, "opponent": TWO}, files={"f": ("f", b"x")}
        )
        for refused in (big, many, multipart):
            assert refused.status_code == 400 and "could not be read" in refused.text
        assert _play(client, action, token).status_code == 303  # the same form, as sent


def test_which_bots_the_site_can_start(tmp_path) -> None:
    path = tmp_path / "league.toml"
    path.write_text(TINY.format(name="t", rounds="rounds = 1", extra=""))
    (tmp_path / "mine.py").write_text("")
    config = load_league(path)
    can = [
        "builtin:greedy",
        "builtin:sampler:50",
        "python mine.py --fast",
        "python -m arena.strategies.greedy",
        "python -m arena.strategies.mixed x.json",
    ]
    said = {
        "python gone.py": "files are not on this server",
        "no-such-program-here --x": "program is not on this server",
        "python 'unclosed": "command cannot be read",
        "grpc:10.0.0.1:50051": "network address",
        "human:ana": "a person played this seat",
    }  # fmt: skip
    assert [launch_problem(spec, config) for spec in can] == [None] * len(can)
    for spec, why in said.items():
        assert why in (launch_problem(spec, config) or ""), spec
    assert "league's file is not on this server" in (launch_problem("python mine.py", None) or "")
    assert launch_problem("builtin:first", None) is None
