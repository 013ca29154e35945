"""Issue 33, the table's server (arena/web/table/, docs/human.md): a seat's page and
data only behind its own secret (a wrong or short one answers as any unknown address
does, every secret compared in constant time), the league site's hardening (the
`Host` check, the security headers, no inline script), answers refused unless they
are JSON of the right shape, small, and to the decision waiting, no secret in what the
server prints, and an address that cannot be listened on refused before anything."""

from __future__ import annotations

import json
import socket
import urllib.request

import pytest
from starlette.testclient import TestClient

from arena.bots import human
from arena.bots.human import HumanTable
from arena.errors import ConfigError
from arena.web.hardening import CSP
from arena.web.table.app import make_table_app, seat_path
from arena.web.table.server import serving_table
from tests.web.test_site_hardening import _Inline

SPECS = ["human:ana", "builtin:first", "human:ben", "builtin:first"]


def _client(table: HumanTable, host: str = "127.0.0.1") -> TestClient:
    return TestClient(make_table_app(table), base_url=f"http://{host}")


def test_a_seat_is_reached_by_its_secret_alone() -> None:
    table = HumanTable(SPECS)
    client = _client(table)
    ana = table.seats[0]
    page = client.get(seat_path(ana))
    assert page.status_code == 200 and "ana" in page.text and "ben" not in page.text
    assert f'data-state-url="{seat_path(ana)}/state.json"' in page.text
    nothing = client.get("/seat/nobody-knows-this-one-at-all")
    near = ana.secret[:-1] + ("A" if ana.secret[-1] != "A" else "B")
    for wrong in (near, ana.secret[:8], ana.secret + "x", "", "0" * 200, "..%2F..",
                  table.seats[2].secret[:-2]):  # fmt: skip
        for path in (f"/seat/{wrong}", f"/seat/{wrong}/state.json"):
            response = client.get(path)
            assert response.status_code == 404, path
            assert response.text == nothing.text
        assert client.post(f"/seat/{wrong}/act", json={}).status_code in (404, 405)
    assert client.get("/").status_code == 404


def test_every_secret_is_compared_in_constant_time(monkeypatch) -> None:
    table = HumanTable(SPECS)
    calls: list[tuple[bytes, bytes]] = []
    real = human.secrets.compare_digest

    def counted(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(human.secrets, "compare_digest", counted)
    for token in (table.seats[0].secret, "x" * 32):
        calls.clear()
        table.seat_of(token)
        assert len(calls) == 2  # every seat's, found first or not at all


def test_the_league_sites_hardening() -> None:
    table = HumanTable(SPECS)
    client = _client(table)
    path = seat_path(table.seats[0])
    table.seats[0].publish({"state": "waiting"})  # a frame to answer with at once
    responses = [client.get(path), client.get(f"{path}/state.json"),
                 client.get("/static/table.js"), client.get("/seat/x" * 3)]  # fmt: skip
    responses.append(_client(table, "evil.example").get(path))
    assert [r.status_code for r in responses] == [200, 200, 200, 404, 400]
    for response in responses:
        assert response.headers["content-security-policy"] == CSP
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "no-referrer"
    parser = _Inline()
    parser.feed(responses[0].text)
    assert parser.found == []
    assert "no-store" in responses[1].headers["cache-control"]


def test_frames_wait_for_a_newer_version_and_answers_reach_the_seat() -> None:
    table = HumanTable(SPECS)
    seat = table.seats[2]
    client = _client(table)
    path = seat_path(seat)
    assert client.get(f"{path}/state.json?after=x").status_code == 400
    assert client.get(f"{path}/state.json?after=" + "9" * 13).status_code == 400
    seat.ask(1, {"decision": 1, "legal": [{"type": "pass"}]})
    frame = client.get(f"{path}/state.json?after=0").json()
    assert (frame["version"], frame["decision"], frame["seat"], frame["name"]) == (1, 1, 2, "ben")
    act = f"{path}/act"
    assert (
        client.post(act, content=b"{}", headers={"content-type": "text/plain"}).status_code == 415
    )
    big = json.dumps({"decision": 1, "action": {"type": "x" * 5000}}).encode()
    assert (
        client.post(act, content=big, headers={"content-type": "application/json"}).status_code
        == 413
    )
    for bad in ([], {"decision": 1}, {"decision": True, "action": {"type": "pass"}},
                {"decision": 1, "action": {"type": "pass", "extra": "1"}},
                {"decision": 1, "action": {"type": ["pass"]}},
                {"decision": 1, "action": {"type": "expose", "cards": "QS"}},
                "not json"):  # fmt: skip
        response = client.post(act, content=json.dumps(bad) if bad != "not json" else b"{",
                               headers={"content-type": "application/json"})  # fmt: skip
        assert response.status_code == 400, bad
    assert client.post(act, json={"decision": 2, "action": {"type": "pass"}}).status_code == 409
    assert client.post(act, json={"decision": 1, "action": {"type": "pass"}}).json() == {
        "taken": True
    }
    assert seat.answer(1) == {"type": "pass"}
    assert client.post(act, json={"decision": 1, "action": {"type": "pass"}}).status_code == 409
    assert table.seats[0].version == 0  # ana's seat saw none of it


def test_the_server_prints_no_secret_and_refuses_what_it_cannot_listen_on(capfd) -> None:
    table = HumanTable(SPECS)
    with serving_table(table) as links:
        assert sorted(links) == [0, 2]
        for seat, link in links.items():
            table.seats[seat].publish({"state": "waiting"})
            assert link.endswith(seat_path(table.seats[seat]))
            with urllib.request.urlopen(link, timeout=10) as response:
                assert response.status == 200
            with urllib.request.urlopen(f"{link}/state.json?after=0", timeout=10) as response:
                assert json.loads(response.read())["name"] in ("ana", "ben")
    printed = capfd.readouterr()
    for seat in table.seats.values():
        assert seat.secret not in printed.out + printed.err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with (
            pytest.raises(ConfigError, match="cannot listen"),
            serving_table(HumanTable(SPECS), "127.0.0.1", taken.getsockname()[1]),
        ):
            pass
    with (
        pytest.raises(ConfigError, match="cannot listen"),
        serving_table(HumanTable(SPECS), "no such host \x01"),
    ):
        pass
