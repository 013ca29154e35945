"""The ladder site's author side (issue: authors sign in, upload, promote, withdraw):
signing in with a token that never shows up again, the session cookie's flags, the
form token on every form, uploads through the form and the API refused as the CLI
refuses them (zip slip, links out, past the cap), another author's versions and
logs out of reach, sign-in attempts limited, and names that are attacks escaped."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path

import pytest
from openapi_schema_validator import OAS31Validator
from starlette.testclient import TestClient

from arena.cards import codes_of
from arena.ladder.book import author_revoke, open_ladder, request_test, writing
from arena.ladder.book import submit as cli_submit
from arena.ladder.runner import run_ladder
from arena.league.store.ladder_reads import version_rows
from arena.league.store.ladder_writes import set_states
from arena.web.hardening import FORMS_CSP
from arena.web.ladder import api
from arena.web.ladder.app import make_ladder_app
from arena.web.ladder.authors.throttle import SignInLimits, Window
from arena.web.ladder.openapi import document, openapi_path
from tests.ladder.ladder_support import RANDOM_BOT, versions
from tests.support.ladder_authors import AUTHORS, author_ladder, bot_tar, tar_of, zip_of
from tests.support.site_league import live_match

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture
def ladder(tmp_path):
    return author_ladder(tmp_path)


def client(ladder, https: bool = False, **kwargs) -> TestClient:
    base = "https://127.0.0.1" if https else "http://127.0.0.1"
    app = make_ladder_app(ladder.db, **kwargs)
    return TestClient(app, base_url=base, raise_server_exceptions=False, follow_redirects=False)


def authored(db: Path) -> dict[str, dict]:
    """The versions authors submitted (the house bots left out)."""
    return {name: v for name, v in versions(db).items() if not v["house"]}


def csrf_of(page: str) -> str:
    found = CSRF.search(page)
    assert found, "the page has no form token"
    return found.group(1)


def signed_in(ladder, token: str, **kwargs) -> TestClient:
    browser = client(ladder, **kwargs)
    page = browser.get("/login")
    answer = browser.post("/login", data={"token": token, "csrf": csrf_of(page.text)})
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"] == "/author"
    return browser


def upload(browser: TestClient, data: bytes, bot: str = "webbot", command: str = "python bot.py"):
    form = csrf_of(browser.get("/author").text)
    return browser.post(
        "/author/submissions",
        data={"bot": bot, "command": command, "csrf": form},
        files={"archive": ("bot.tar.gz", data, "application/gzip")},
    )


# -- signing in ---------------------------------------------------------------------


def test_signing_in_sets_a_strict_httponly_expiring_cookie_that_holds_no_token(ladder) -> None:
    browser = client(ladder)
    page = browser.get("/login")
    assert page.status_code == 200 and 'type="password"' in page.text
    assert 'method="post" action="/login"' in page.text
    answer = browser.post("/login", data={"token": ladder.alice, "csrf": csrf_of(page.text)})
    cookie = answer.headers["set-cookie"]
    flags = [flag.strip().lower() for flag in cookie.split(";")]
    assert "httponly" in flags and "samesite=strict" in flags
    assert any(flag.startswith("max-age=") for flag in flags)
    assert "secure" not in flags  # served over http here: a Secure cookie would never come back
    secret = ladder.alice.rpartition(".")[2]
    assert secret not in cookie and secret not in answer.text
    home = browser.get("/author")
    assert home.status_code == 200 and secret not in home.text
    assert "signed in as" in home.text and "alice" in home.text


def test_over_https_the_cookie_is_secure(ladder) -> None:
    browser = client(ladder, https=True)
    page = browser.get("/login")
    answer = browser.post("/login", data={"token": ladder.alice, "csrf": csrf_of(page.text)})
    assert "secure" in [f.strip().lower() for f in answer.headers["set-cookie"].split(";")]


def test_a_wrong_token_signs_nobody_in_and_is_not_shown_back(ladder) -> None:
    browser = client(ladder)
    page = browser.get("/login")
    wrong = "alice." + "A" * 43
    answer = browser.post("/login", data={"token": wrong, "csrf": csrf_of(page.text)})
    assert answer.status_code == 401
    assert "not valid for this ladder" in answer.text and wrong not in answer.text
    assert browser.get("/author").headers["location"] == "/login"


def test_a_token_in_the_address_is_refused_and_signs_nobody_in(ladder) -> None:
    browser = client(ladder)
    answer = browser.get("/login", params={"token": ladder.alice})
    assert answer.status_code == 400
    assert ladder.alice not in answer.text
    assert browser.get("/author").status_code == 303


def test_forms_without_or_with_another_sessions_token_are_refused(ladder) -> None:
    browser = client(ladder)
    browser.get("/login")
    assert browser.post("/login", data={"token": ladder.alice}).status_code == 403
    other = client(ladder)
    foreign = csrf_of(other.get("/login").text)
    answer = browser.post("/login", data={"token": ladder.alice, "csrf": foreign})
    assert answer.status_code == 403 and "form" in answer.text
    assert browser.get("/author").status_code == 303  # still nobody signed in

    alice = signed_in(ladder, ladder.alice)
    assert upload(alice, bot_tar()).status_code == 303
    for path in ("/author/withdraw", "/author/promote"):
        for token in (None, foreign, "x" * 43):
            data = {"version": "webbot@1", **({"csrf": token} if token else {})}
            assert alice.post(path, data=data).status_code == 403, (path, token)
    no_token = alice.post(
        "/author/submissions",
        data={"bot": "other", "command": "python bot.py"},
        files={"archive": ("a.tar.gz", bot_tar(), "application/gzip")},
    )
    assert no_token.status_code == 403
    assert set(versions(ladder.db)) >= {"webbot@1"} and "other@1" not in versions(ladder.db)
    assert versions(ladder.db)["webbot@1"]["state"] == "checking"  # nothing withdrawn


def test_sign_out_ends_the_session_even_for_a_copied_cookie(ladder) -> None:
    alice = signed_in(ladder, ladder.alice)
    copied = dict(alice.cookies)
    form = csrf_of(alice.get("/author").text)
    assert alice.post("/logout", data={"csrf": form}).status_code == 303
    assert alice.get("/author").status_code == 303
    thief = client(ladder)
    thief.cookies.update(copied)
    assert thief.get("/author").status_code == 303  # the same app: it remembers the sign-out


def test_a_revoked_author_is_signed_out_at_once(ladder) -> None:
    alice = signed_in(ladder, ladder.alice)
    assert alice.get("/author").status_code == 200
    author_revoke(ladder.db, None, "alice")
    assert alice.get("/author").status_code == 303


def test_sign_in_attempts_are_limited_per_address_and_per_author(ladder) -> None:
    limits = SignInLimits(per_address=Window(6, 600.0), per_author=Window(3, 600.0))
    browser = client(ladder, limits=limits)
    form = csrf_of(browser.get("/login").text)
    for _ in range(3):
        wrong = browser.post("/login", data={"token": "alice." + "B" * 43, "csrf": form})
        assert wrong.status_code == 401
    held = browser.post("/login", data={"token": ladder.alice, "csrf": form})
    assert held.status_code == 429 and "try again in" in held.text
    assert int(held.headers["retry-after"]) > 0
    # another author from the same address may still try, until the address's limit
    other = ladder.mallory
    assert browser.post("/login", data={"token": other, "csrf": form}).status_code == 303
    browser = client(ladder, limits=limits)
    form = csrf_of(browser.get("/login").text)
    for _ in range(2):
        browser.post("/login", data={"token": "nobody." + "C" * 43, "csrf": form})
    assert browser.post("/login", data={"token": other, "csrf": form}).status_code == 429


# -- the author's page: upload, promote, withdraw -------------------------------------


def test_an_upload_through_the_form_is_stored_once_and_waits_for_the_gate(ladder) -> None:
    alice = signed_in(ladder, ladder.alice)
    answer = upload(alice, bot_tar())
    assert answer.status_code == 303
    home = alice.get("/author")
    assert "webbot@1 submitted" in home.text and "the gate checks it next" in home.text
    assert 'data-entrant="webbot@1"' in home.text
    again = upload(alice, bot_tar())
    assert again.status_code == 303
    assert "identical to webbot@1" in alice.get("/author").text
    assert [v for v in versions(ladder.db) if v.startswith("webbot")] == ["webbot@1"]


@pytest.mark.parametrize(
    ("archive", "said"),
    [
        (tar_of({"../evil.py": b"x"}), "../evil.py"),
        (tar_of({"bot.py": b"x"}, links={"out": "/etc/passwd"}), "out"),
        (zip_of({"../../evil.py": b"x"}), "evil.py"),
        (b"this is not an archive", "archive"),
    ],
    ids=["zip-slip-tar", "link-out", "zip-slip-zip", "not-an-archive"],
)
def test_uploads_the_cli_refuses_are_refused_through_the_form_saying_why(
    ladder, archive, said
) -> None:
    alice = signed_in(ladder, ladder.alice)
    answer = upload(alice, archive)
    assert answer.status_code == 400
    error = re.search(r'id="form-error"[^>]*>(.*?)</p>', answer.text, re.S)
    assert error and said in error.group(1).replace("&#39;", "'")
    assert not authored(ladder.db)
    store = ladder.db.parent / "ladder-files"
    assert not store.exists() or not [p for p in store.iterdir() if not p.name.startswith(".")]


def test_an_upload_past_the_cap_is_refused_with_the_cap(ladder) -> None:
    alice = signed_in(ladder, ladder.alice)
    big = tar_of({"bot.py": b"x", "blob": os.urandom(2 << 20)})  # 2 MiB that do not pack
    answer = upload(alice, big)
    assert answer.status_code == 413 and "1 MiB" in answer.text
    assert not authored(ladder.db)


def test_promote_and_withdraw_from_the_page(ladder, tmp_path) -> None:
    alice = signed_in(ladder, ladder.alice)
    assert upload(alice, bot_tar()).status_code == 303
    form = csrf_of(alice.get("/author").text)
    refused = alice.post("/author/promote", data={"version": "webbot@1", "csrf": form})
    assert refused.status_code == 400 and "only a candidate or a retired" in refused.text
    done = alice.post("/author/withdraw", data={"version": "webbot@1", "csrf": form})
    assert done.status_code == 303
    assert "withdrawn: webbot@1" in alice.get("/author").text
    assert versions(ladder.db)["webbot@1"]["state"] == "withdrawn"


def test_another_authors_versions_logs_and_files_are_out_of_reach(ladder, tmp_path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "bot.py").write_text("secret strategy")
    cli_submit(ladder.db, None, token=ladder.mallory, bot="hers", source=folder,
               command="python bot.py")  # fmt: skip
    alice = signed_in(ladder, ladder.alice)
    assert alice.get("/author/logs/hers/1").status_code == 404
    assert "hers" not in alice.get("/author").text
    form = csrf_of(alice.get("/author").text)
    for path in ("/author/withdraw", "/author/promote"):
        answer = alice.post(path, data={"version": "hers@1", "csrf": form})
        assert answer.status_code == 401, path
    assert versions(ladder.db)["hers@1"]["state"] == "checking"
    mallory = signed_in(ladder, ladder.mallory)
    own = mallory.get("/author/logs/hers/1")
    assert own.status_code == 200 and "bot.py" in own.text
    assert client(ladder).get("/author/logs/hers/1").headers["location"] == "/login"


def test_every_author_text_is_escaped_on_the_author_pages(ladder) -> None:
    mallory = signed_in(ladder, ladder.mallory)
    command = 'python bot.py "<img src=x onerror=alert(1)>"'
    assert upload(mallory, bot_tar(), bot="evil", command=command).status_code == 303
    for path in ("/author", "/", "/author/logs/evil/1", "/bot/evil"):
        page = mallory.get(path)
        assert page.status_code == 200, path
        assert "<script>alert(1)" not in page.text and "<img src=x" not in page.text, path
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page.text), path  # no inline
        assert page.headers["content-security-policy"] == FORMS_CSP


# -- the API's write side ----------------------------------------------------------------


SUBMISSIONS = "/api/v1/submissions"
WITHDRAW = "/api/v1/versions/{name}/{number}/withdraw"
TESTS = "/api/v1/test-matches"


def documented(path: str, response, method: str = "post") -> dict:
    """`response` validated against the API document's answer for its status."""
    spec = document(api.ROUTES, api.PREFIX)
    answers = spec["paths"][path][method]["responses"]
    assert str(response.status_code) in answers, (path, response.status_code)
    schema = answers[str(response.status_code)]["content"]["application/json"]["schema"]
    body = response.json()
    OAS31Validator({**schema, "components": spec["components"]}).validate(body)
    return body


def api_upload(browser: TestClient, data: bytes, token: str | None, **fields: str):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    form = {"bot": "apibot", "command": "python bot.py", **fields}
    answer = browser.post(
        SUBMISSIONS,
        data=form,
        files={"archive": ("bot.tar.gz", data, "application/gzip")},
        headers=headers,
    )
    documented(SUBMISSIONS, answer)
    return answer


def test_the_api_takes_a_submission_with_a_bearer_token(ladder) -> None:
    api = client(ladder)
    first = api_upload(api, bot_tar(), ladder.alice)
    assert first.status_code == 201, first.text
    assert first.json()["version"] == "apibot@1" and first.json()["new"] is True
    same = api_upload(api, bot_tar(), ladder.alice)
    assert same.status_code == 200 and same.json()["new"] is False
    assert api_upload(api, bot_tar(extra="#2"), ladder.alice, ladder="spring").status_code == 201
    other = api_upload(api, bot_tar(extra="#3"), ladder.alice, ladder="autumn")
    assert other.status_code == 400 and "spring" in other.json()["error"]
    withdrawn = api.post("/api/v1/versions/apibot/1/withdraw",
                         headers={"Authorization": f"Bearer {ladder.alice}"})  # fmt: skip
    assert (
        withdrawn.status_code == 200 and "withdrawn" in documented(WITHDRAW, withdrawn)["message"]
    )


def test_the_api_refuses_a_missing_wrong_or_other_authors_token_and_a_cookie(ladder) -> None:
    api = client(ladder)
    for token in (None, "alice." + "Z" * 43, "garbage"):
        answer = api_upload(api, bot_tar(), token)
        assert answer.status_code == 401 and answer.headers["www-authenticate"].startswith("Bearer")
    alice = signed_in(ladder, ladder.alice)  # a session cookie does not authorise the API
    assert api_upload(alice, bot_tar(), None).status_code == 401
    assert api_upload(api, bot_tar(), ladder.mallory, bot="hers").status_code == 201
    stolen = api.post("/api/v1/versions/hers/1/withdraw",
                      headers={"Authorization": f"Bearer {ladder.alice}"})  # fmt: skip
    assert stolen.status_code == 401 and documented(WITHDRAW, stolen)["error"]
    assert versions(ladder.db)["hers@1"]["state"] == "checking"


def test_the_api_refuses_what_the_cli_refuses(ladder) -> None:
    api = client(ladder)
    slip = api_upload(api, tar_of({"../x.py": b"x"}), ladder.alice)
    assert slip.status_code == 400 and "../x.py" in slip.json()["error"]
    big = api_upload(api, tar_of({"blob": os.urandom(2 << 20)}), ladder.alice)
    assert big.status_code == 413
    bad_name = api_upload(api, bot_tar(), ladder.alice, bot="a@2")
    assert bad_name.status_code == 400 and "BOT@N" in bad_name.json()["error"]
    missing = api.post("/api/v1/submissions", data={"bot": "x", "command": "python bot.py"},
                       headers={"Authorization": f"Bearer {ladder.alice}"})  # fmt: skip
    assert missing.status_code == 400 and documented(SUBMISSIONS, missing)["error"]
    assert not authored(ladder.db)


def test_authors_in_fixture_are_what_the_tests_expect() -> None:
    assert "<script>" in AUTHORS[1]  # the second author's name is an attack


def test_the_store_is_beside_the_database(ladder) -> None:
    api = client(ladder)
    assert api_upload(api, bot_tar(), ladder.alice).status_code == 201
    stored = [
        p for p in (ladder.db.parent / "ladder-files").iterdir() if not p.name.startswith(".")
    ]
    assert len(stored) == 1 and (stored[0] / "bot.py").is_file()
    assert Path(stored[0]).stat().st_mode & 0o222 == 0  # read-only, as the CLI stores it


def test_every_write_route_served_is_in_the_document(ladder) -> None:
    app = make_ladder_app(ladder.db)
    served = {
        openapi_path(route.path)
        for route in app.routes
        if route.path.startswith(api.PREFIX) and "POST" in (getattr(route, "methods", None) or ())
    }
    spec = document(api.ROUTES, api.PREFIX)
    assert served == {path for path, item in spec["paths"].items() if "post" in item}


# -- test matches: asked for on the page or the API, watched from the author's seat --------


def _two_active_versions(ladder, tmp_path) -> None:
    """alice's webbot@1 and otherbot@1, both active (as if the gate had passed them)."""
    for bot in ("webbot", "otherbot"):
        folder = tmp_path / bot
        folder.mkdir()
        (folder / "bot.py").write_text(RANDOM_BOT.format(name=bot))
        cli_submit(ladder.db, None, token=ladder.alice, bot=bot, source=folder,
                   command="python bot.py")  # fmt: skip
    with writing(ladder.db) as db:
        ids = [v["id"] for v in version_rows(db, open_ladder(db, None).id)
               if v["entrant"] in ("webbot@1", "otherbot@1")]  # fmt: skip
        set_states(db, [(i, "active", "passed the gate") for i in ids])


TEST_FORM = {"version": "webbot@1", "opponent-1": "greedy@1", "opponent-2": "random@1",
             "opponent-3": "otherbot@1"}  # fmt: skip


@pytest.mark.slow
def test_a_test_match_asked_on_the_page_is_played_unrated_and_shown_from_the_authors_seat(
    ladder, tmp_path
) -> None:
    _two_active_versions(ladder, tmp_path)
    alice = signed_in(ladder, ladder.alice)
    home = alice.get("/author").text
    assert 'action="/author/tests"' in home and 'name="opponent-3"' in home
    form = {**TEST_FORM, "csrf": csrf_of(home)}
    assert alice.post("/author/tests", data={**TEST_FORM}).status_code == 403  # no form token
    asked = alice.post("/author/tests", data=form)
    assert asked.status_code == 303
    assert "test match 1 queued: webbot@1 against" in alice.get("/author").text
    table_before = alice.get("/api/v1/table").json()
    run_ladder(ladder.db, workers=1, matches=0)  # no rated match: the test match alone
    test = alice.get("/author/tests/1")
    assert test.status_code == 200 and "stored" in test.text
    games = re.findall(r'href="/author/tests/1/game/(\d+)"', test.text)
    assert len(games) == 4  # one seat-rotated match of Trix
    assert alice.get("/api/v1/table").json() == table_before  # nothing rated changed
    for game in games:
        page = alice.get(f"/author/tests/1/game/{game}")
        assert page.status_code == 200 and "your bot's view" in page.text
        outline = json.loads(re.search(r'id="game-outline">(.*?)</script>', page.text).group(1))
        seat = outline["seats_shown"]
        assert outline["players"][seat] == "webbot@1"
        deal = alice.get(f"/author/tests/1/game/{game}/deal/1.json").json()
        assert deal["observers"] == [seat]  # the author's seat's view, nobody else's
        assert client(ladder).get(f"/game/{game}").status_code == 404  # not on the public site
    mallory = signed_in(ladder, ladder.mallory)
    for path in (
        "/author/tests/1",
        f"/author/tests/1/game/{games[0]}",
        f"/author/tests/1/game/{games[0]}/deal/1.json",
        "/author/tests/1/live",
    ):
        assert mallory.get(path).status_code == 404, path
    assert alice.get("/author/tests/1/live").status_code == 404  # stored: nothing in flight
    assert client(ladder).get("/author/tests/1").headers["location"] == "/login"


def test_test_matches_through_the_api_and_its_limit(ladder, tmp_path) -> None:
    _two_active_versions(ladder, tmp_path)
    api = client(ladder)
    bearer = {"Authorization": f"Bearer {ladder.alice}"}
    body = {"version": "webbot@1", "opponents": ["greedy@1", "random@1", "otherbot@1"]}
    for number in range(1, 11):
        asked = api.post(TESTS, json=body, headers=bearer)
        assert asked.status_code == 201, asked.text
        assert documented(TESTS, asked)["id"] == number
    over = api.post(TESTS, json=body, headers=bearer)
    assert over.status_code == 400 and "per_hour = 10" in documented(TESTS, over)["error"]
    mine = api.get(f"{TESTS}?limit=4", headers=bearer)
    page = documented(TESTS, mine, "get")
    assert [t["id"] for t in page["items"]] == [10, 9, 8, 7] and page["next_cursor"] == "4"
    theirs = api.get(TESTS, headers={"Authorization": f"Bearer {ladder.mallory}"})
    assert documented(TESTS, theirs, "get")["items"] == []
    assert api.get(TESTS).status_code == 401
    wrong = api.post(TESTS, json={"version": "webbot@1", "opponents": ["greedy@1"]},
                     headers={"Authorization": f"Bearer {ladder.mallory}"})  # fmt: skip
    assert wrong.status_code == 401  # another author's version: refused as a wrong token
    for bad in (b"[1, 2]", b"not json", b"{" * 20000):
        refused = api.post(TESTS, content=bad, headers=bearer)
        assert refused.status_code in (400, 413) and documented(TESTS, refused)["error"]


@pytest.mark.parametrize("rotation", [0, 3])
def test_a_test_match_in_flight_is_shown_from_the_authors_seat_in_its_last_rotation(
    ladder, tmp_path, rotation
) -> None:
    """A test match being played: its page says how far it is; its game is watched
    from the author's seat alone, and only in the last of its 4 rotations (a later
    rotation replays the same deals)."""
    _two_active_versions(ladder, tmp_path)
    request_test(ladder.db, None, token=ladder.alice, spec="webbot@1",
                 opponents=["greedy@1", "random@1", "otherbot@1"])  # fmt: skip
    with sqlite3.connect(ladder.db) as con:  # as a run that gave it out as match 100
        con.execute("UPDATE test_matches SET state = 'playing', idx = 100")
    entrants = ("greedy@1", "webbot@1", "random@1", "otherbot@1")
    _, state = live_match(ladder.db, rotation, 9, league="spring", entrants=entrants)
    alice = signed_in(ladder, ladder.alice)
    page = alice.get("/author/tests/1")
    assert f"rotation {rotation + 1} of 4" in page.text
    live = alice.get("/author/tests/1/live")
    deal = alice.get("/author/tests/1/live/deal/1.json")
    if rotation < 3:
        assert live.status_code == 404 and "last rotation" in live.text
        assert deal.status_code == 404
        return
    assert 'href="/author/tests/1/live"' in page.text
    assert live.status_code == 200
    frames = deal.json()
    assert frames["observers"] == [1]  # webbot@1's seat
    for code in codes_of(state.hands[1]):
        assert f'"{code}"' in deal.text  # the author's bot's hand is shown
    shown = re.sub(r'"first_king_card":\s*"\w\w"', "", deal.text + live.text)  # a rule, no hand
    for seat in (0, 2, 3):  # no card another seat still holds reaches the page
        for code in codes_of(state.hands[seat]):
            assert f'"{code}"' not in shown, (seat, code)
    mallory = signed_in(ladder, ladder.mallory)
    assert mallory.get("/author/tests/1/live").status_code == 404
