"""The ladder's JSON API (`arena ladder serve`, /api/v1) over a small real ladder:
every response is validated against the OpenAPI document the server serves (which
must itself be valid OpenAPI 3.1 and describe every route), every list pages to its
end with its cursor, the filters keep exactly what they name, and the fields agree
with `arena ladder table` and `versions`, whose JSON is a contract."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate as validate_spec
from starlette.testclient import TestClient

from arena.web.ladder import api
from arena.web.ladder.app import make_ladder_app
from arena.web.ladder.openapi import openapi_path
from tests.ladder.ladder_support import ok
from tests.support.site_ladder import HOSTILE_BOT, build_ladder_db


@pytest.fixture(scope="module")
def ladder_db(tmp_path_factory) -> Path:
    return build_ladder_db(tmp_path_factory.mktemp("ladder-site"))


@pytest.fixture(scope="module")
def client(ladder_db) -> TestClient:
    return TestClient(
        make_ladder_app(ladder_db), base_url="http://127.0.0.1", raise_server_exceptions=False
    )


@pytest.fixture(scope="module")
def spec(client) -> dict:
    return client.get("/api/v1/openapi.json").json()


def _check(spec: dict, path: str, response) -> object:
    """`response` validated against the document's schema for `path` and its status."""
    assert response.headers["content-type"].startswith("application/json"), path
    operation = spec["paths"][path]["get"]
    schema = operation["responses"][str(response.status_code)]["content"]["application/json"]
    body = response.json()
    OAS31Validator({**schema["schema"], "components": spec["components"]}).validate(body)
    return body


def _walk(client: TestClient, spec: dict, path: str, url: str) -> list[dict]:
    """Every item of a list, page after page, each page validated."""
    items, cursor, pages = [], None, 0
    while True:
        sep = "&" if "?" in url else "?"
        page = _check(spec, path, client.get(url + (f"{sep}cursor={cursor}" if cursor else "")))
        items += page["items"]
        cursor, pages = page["next_cursor"], pages + 1
        assert pages < 200
        if cursor is None:
            return items


def test_the_document_is_valid_openapi_and_describes_every_route(spec) -> None:
    validate_spec(spec)
    assert spec["openapi"].startswith("3.1")
    described = {
        path
        for path, item in spec["paths"].items()
        if "get" in item and "security" not in item["get"]
    }
    served = {"/api/v1" + openapi_path(r.path) for r in api.ROUTES}
    assert described == served
    writes = {path for path, item in spec["paths"].items() if "post" in item}
    assert writes == {"/api/v1/submissions", "/api/v1/versions/{name}/{number}/promote",
                      "/api/v1/versions/{name}/{number}/withdraw",
                      "/api/v1/test-matches"}  # fmt: skip
    for route in api.ROUTES:
        operation = spec["paths"]["/api/v1" + openapi_path(route.path)]["get"]
        named = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
        assert named == set(route.params), route.path


def test_every_route_answers_as_the_document_says(client, spec) -> None:
    """Each route with every parameter it takes, a 404 and a 400 of each."""
    v1 = "/api/v1"
    game = client.get(f"{v1}/games?limit=1").json()["items"][0]["id"]
    hostile = quote(HOSTILE_BOT, safe="")
    calls = [
        ("/ladder", "/ladder"),
        ("/table", "/table?limit=2"),
        ("/bots", "/bots?limit=3&cursor=1"),
        ("/bots/{name}", "/bots/alpha"),
        ("/bots/{name}", f"/bots/{hostile}"),
        ("/bots/{name}", "/bots/greedy"),
        ("/versions", "/versions?bot=alpha&state=candidate"),
        ("/versions/{name}/{number}", "/versions/alpha/2"),
        ("/versions/{name}/{number}", f"/versions/{hostile}/1"),
        ("/matches", "/matches?bot=alpha&opponent=greedy&since=0&until=2026-12-31T00:00:00Z"),
        ("/matches", "/matches?version=alpha@2&limit=1"),
        ("/queue", "/queue"),
        ("/games", "/games?version=alpha@1&opponent=greedy@1&limit=2"),
        ("/games/{game_id}", f"/games/{game}"),
        ("/faults", "/faults?bot=illegal&limit=2"),
    ]
    for path, url in calls:
        response = client.get(v1 + url)
        assert response.status_code == 200, (url, response.text)
        _check(spec, v1 + path, response)
    missing = [("/bots/{name}", "/bots/nobody"), ("/versions/{name}/{number}", "/versions/alpha/9"),
               ("/games/{game_id}", "/games/999999")]  # fmt: skip
    for path, url in missing:
        response = client.get(v1 + url)
        assert response.status_code == 404, url
        assert _check(spec, v1 + path, response)["error"]
    for path, url in [("/matches", "/matches?limit=501"), ("/versions", "/versions?state=x")]:
        response = client.get(v1 + url)
        assert response.status_code == 400
        assert _check(spec, v1 + path, response)["error"]


def test_every_list_pages_to_its_end_without_a_repeat(client, spec, ladder_db) -> None:
    stored = json.loads(ok("ladder", "matches", "--db", str(ladder_db), "--limit", "0",
                           "--format", "json"))  # fmt: skip
    matches = _walk(client, spec, "/api/v1/matches", "/api/v1/matches?limit=3")
    assert [m["match"] for m in matches] == [m["match"] for m in stored]  # newest first
    games = _walk(client, spec, "/api/v1/games", "/api/v1/games?limit=7")
    ids = [g["id"] for g in games]
    assert ids == sorted(ids, reverse=True) and len(ids) == len(set(ids))
    assert sorted(ids) == sorted(g for m in matches for g in m["games"])
    faults = _walk(client, spec, "/api/v1/faults", "/api/v1/faults?limit=3")
    assert faults and len({f["id"] for f in faults}) == len(faults)
    for path in ("/table", "/bots", "/versions"):
        whole = client.get(f"/api/v1{path}?limit=500").json()["items"]
        assert _walk(client, spec, f"/api/v1{path}", f"/api/v1{path}?limit=2") == whole


def test_the_filters_keep_exactly_what_they_name(client, spec) -> None:
    every = _walk(client, spec, "/api/v1/matches", "/api/v1/matches?limit=500")

    def kept(query: str) -> list[int]:
        return [m["match"] for m in _walk(client, spec, "/api/v1/matches",
                                          f"/api/v1/matches?limit=4&{query}")]  # fmt: skip

    def expected(test) -> list[int]:
        return [m["match"] for m in every if test(m["entrants"])]

    assert kept("version=alpha@2") == expected(lambda e: "alpha@2" in e)
    assert kept("bot=alpha") == expected(lambda e: "alpha@1" in e or "alpha@2" in e)
    assert kept("bot=alpha&opponent=greedy") == expected(
        lambda e: ("alpha@1" in e or "alpha@2" in e) and "greedy@1" in e
    )
    assert kept("version=alpha@1&opponent=random@1") == expected(
        lambda e: "alpha@1" in e and "random@1" in e
    )
    assert kept("version=alpha@2") and kept("version=alpha@2") != kept("bot=alpha")
    assert kept("since=4000000000") == [] and kept("until=2000-01-01") == []
    assert kept("since=2000-01-01T00:00:00%2B02:00") == [m["match"] for m in every]
    games = _walk(client, spec, "/api/v1/games", "/api/v1/games?limit=5&version=alpha@2")
    assert games and all("alpha@2" in g["players"] for g in games)
    faults = _walk(client, spec, "/api/v1/faults", "/api/v1/faults?version=illegal@1")
    assert faults and {f["entrant"] for f in faults} == {"illegal@1"}
    assert _walk(client, spec, "/api/v1/faults", "/api/v1/faults?bot=alpha") == []


def test_the_table_and_the_versions_are_the_commands_own(client, ladder_db) -> None:
    table = json.loads(ok("ladder", "table", "--db", str(ladder_db), "--format", "json"))
    assert client.get("/api/v1/table").json()["items"] == table
    places = [row["place_range"] for row in table]
    assert any(first != last for first, last in places)  # a tied place, as the command ties it
    command = json.loads(ok("ladder", "versions", "--db", str(ladder_db), "--format", "json"))
    served = client.get("/api/v1/versions?limit=500").json()["items"]
    contract = ("bot", "version", "author", "state", "sha256", "games", "reason", "entrant",
                "house", "faults")  # fmt: skip
    assert [{k: v[k] for k in contract} for v in served] == [
        {k: v[k] for k in contract} for v in command
    ]


def test_a_bot_shows_its_promotion_test_as_it_stands(client) -> None:
    alpha = client.get("/api/v1/bots/alpha").json()
    assert [v["state"] for v in alpha["version_list"]] == ["active", "candidate"]
    (test,) = alpha["promotion_tests"]
    assert (test["candidate"], test["active"]) == ("alpha@2", "alpha@1")
    assert test["decision"] == "continue" and test["pairs"] == len(test["evidence"]) >= 2
    assert (test["state"], test["running"]) == ("candidate", True)
    assert test["games"] == 4 * test["pairs"] and test["lower"] < test["llr"] < test["upper"]
    assert alpha["current"] == "alpha@1"
    assert {o["opponent"] for o in alpha["opponents"]} >= {"greedy@1"}
    version = client.get("/api/v1/versions/alpha/2").json()
    assert version["promotion_test"] == test and version["ratings"]


def test_a_game_is_its_replay(client, ladder_db) -> None:
    game = client.get("/api/v1/games?limit=1").json()["items"][0]
    replay = client.get(f"/api/v1/games/{game['id']}").json()
    assert replay["format"] == "arena-replay/1" and replay["players"] == game["players"]
    assert replay["deals"] and replay["deals"][0]["hands"]
