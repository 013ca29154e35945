"""Issue 33, a person at the table (arena/bots/human.py, docs/human.md), without a
browser: the `human` spec and where it is refused, a person's seat as the referee
sees it (answers, time outs, leaving, a closed table), the frames made from the very
request a bot in the seat would get, and whole games of both games played through it
(a script answering in the page's place) refereed, written and stored like any other.
The pages themselves are tests/web/test_table_server.py and tests/browser/test_table.py."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from arena.bots.human import HumanPlayer, HumanSeat, HumanTable, human_name, is_human_spec
from arena.bots.sessions import SessionRequest, play_session
from arena.bots.spec import check_spec, make_player, seat_names
from arena.cli import app
from arena.errors import ConfigError
from arena.games import get_game
from arena.league.definition.config import load_league
from arena.league.running.play_run import play_games
from arena.league.store import game_replay, open_existing
from arena.play.faults import BotFault, FaultKind
from arena.sdk.views import view_from_dict
from arena.web.app import make_app
from tests.independent import trianon_checker, trix_checker
from tests.support.tiny_league import TINY

runner = CliRunner()


# ---- the spec -------------------------------------------------------------------------


def test_human_specs_and_their_names() -> None:
    assert is_human_spec("human") and is_human_spec(" human:ana ")
    assert not is_human_spec("humane") and not is_human_spec("builtin:human")
    assert human_name("human") == "human" and human_name("human:ana b") == "ana b"
    for bad in ("human:", "human:  ", "human:a\x07b", "human:" + "x" * 41):
        with pytest.raises(ConfigError, match="a person's name"):
            human_name(bad)
    assert seat_names(["human", "human", "human:ana", "builtin:first"]) == [
        "human", "human#2", "ana", "first"
    ]  # fmt: skip


def test_a_person_never_sits_in_a_league_a_ladder_or_a_duel(tmp_path) -> None:
    with pytest.raises(ConfigError, match="never rated"):
        check_spec("human:ana")
    with pytest.raises(ConfigError, match="seats a person"):
        make_player("human")
    league = tmp_path / "people.toml"
    league.write_text(
        TINY.format(name="people", extra="", rounds="rounds = 1").replace(
            'bot = "builtin:first"', 'bot = "human:ana"', 1
        )
    )
    with pytest.raises(ConfigError, match="never rated"):
        load_league(league)
    result = runner.invoke(app, ["duel", "human", "builtin:random", "--opponents", "builtin:first"])
    assert result.exit_code == 2 and "seats a person" in result.output


def test_a_session_seats_people_only_at_its_table_and_never_in_matches() -> None:
    specs = ("human", "builtin:first", "builtin:first", "builtin:first")
    with pytest.raises(ConfigError, match="only `arena play` seats people"):
        next(play_session(SessionRequest(specs=specs)))
    with pytest.raises(ConfigError, match="--matches with a person"):
        next(play_session(SessionRequest(specs=specs, matches=1, humans=HumanTable(specs))))
    result = runner.invoke(app, ["play", *specs, "--matches", "1"])
    assert result.exit_code == 2 and "--matches with a person" in result.output
    assert "human seat" not in result.output  # refused before a link is given
    result = runner.invoke(app, ["play", "human", "builtin:first", "builtin:first"])
    assert result.exit_code == 2 and "needs 4 bots" in result.output
    result = runner.invoke(app, ["play", *specs, "--human-move-timeout", "0"])
    assert result.exit_code == 2


# ---- a seat, as the referee waits on it -----------------------------------------------


def _seat(timeout: float | None = None, leave: float = 5.0) -> HumanSeat:
    return HumanSeat(0, "ana", timeout=timeout, leave_seconds=leave)


def test_an_answer_posted_to_the_decision_waiting_is_the_answer() -> None:
    seat = _seat()
    seat.ask(1, {"legal": [{"type": "pass"}]})
    assert not seat.post(2, {"type": "pass"})  # not the decision asked
    threading.Timer(0.05, lambda: seat.post(1, {"type": "pass"})).start()
    assert seat.answer(1) == {"type": "pass"}
    assert not seat.post(1, {"type": "pass"})  # answered already
    assert seat.snapshot()["version"] == 1


def test_a_decision_not_answered_in_time_is_a_timeout() -> None:
    seat = _seat(timeout=0.1)
    seat.ask(1, {})
    assert 0 <= seat.snapshot()["time_left_ms"] <= 100
    with pytest.raises(BotFault) as raised:
        seat.answer(1)
    assert raised.value.kind == FaultKind.TIMEOUT
    assert not seat.post(1, {"type": "pass"})  # too late: the fallback is played


def test_a_person_whose_page_went_away_has_left_and_one_never_come_has_not() -> None:
    seat = _seat(leave=0.1)
    seat.ask(1, {})
    assert not seat.left()  # no page yet: the game waits for it
    seat.arrive()
    seat.depart()
    with pytest.raises(BotFault) as raised:
        seat.answer(1)
    assert raised.value.kind == FaultKind.CRASH and "left the table" in raised.value.detail
    seat.ask(2, {})  # gone: the next decision is a fault at once, not another wait
    started = time.monotonic()
    with pytest.raises(BotFault):
        asyncio.run(seat.answer_async(2))
    assert time.monotonic() - started < 1
    seat.arrive()  # the link opened again: the seat is taken back
    assert not seat.left()


def test_a_closed_table_ends_every_wait() -> None:
    seat = _seat()
    seat.ask(1, {})
    threading.Timer(0.05, seat.close).start()
    with pytest.raises(BotFault, match="table closed"):
        seat.answer(1)
    assert not seat.post(1, {"type": "pass"}) and seat.snapshot()["closed"]


def test_seat_secrets_are_long_distinct_and_found_only_whole() -> None:
    table = HumanTable(["human", "builtin:first", "human:ben"])
    secrets = [seat.secret for seat in table.seats.values()]
    assert len(set(secrets)) == 2 and all(len(s) == 32 for s in secrets)
    assert table.seat_of(secrets[1]) is table.seats[2]
    assert table.seat_of(secrets[1][:-1]) is None and table.seat_of("") is None


# ---- whole games, a script answering in the page's place -------------------------------


def _answering(table: HumanTable, pick: Any = lambda legal: legal[-1]) -> threading.Thread:
    """A thread that answers every seat's decisions as a page would, until closed."""

    def run() -> None:
        while not all(seat.closed for seat in table.seats.values()):
            for seat in table.seats.values():
                frame = seat.snapshot()
                if frame.get("decision") and frame.get("legal"):
                    seat.post(frame["decision"], pick(frame["legal"]))
            time.sleep(0.002)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(
    ("game", "specs", "rules", "checker"),
    [
        ("trix", ("builtin:greedy", "human", "builtin:random", "human:ben"), {"kingdoms": "1"},
         trix_checker),
        ("trianon", ("human:ana", "builtin:greedy", "builtin:random"), {"max_deals": "2"},
         trianon_checker),
    ],
)  # fmt: skip
def test_whole_games_are_refereed_written_and_stored_like_any(
    tmp_path: Path, monkeypatch, game, specs, rules, checker
) -> None:
    asked: list[tuple[Any, Any]] = []  # (the referee's view, the request's turn)
    request_of = HumanPlayer._request

    def recorded(self, view, legal, decision):
        turn = request_of(self, view, legal, decision)
        if decision:
            asked.append((view, turn))
        return turn

    monkeypatch.setattr(HumanPlayer, "_request", recorded)
    table = HumanTable(specs)
    request = SessionRequest(specs=specs, game=game, rules=rules, humans=table)
    answering = _answering(table)
    try:
        run = play_games(request, show=lambda *a: None, replays=tmp_path, db=tmp_path / "a.db")
    finally:
        table.close()
        answering.join(timeout=10)
    assert run.faults == 0 and "stored 1 game" in run.stored
    replay = json.loads((tmp_path / "game-0001.json").read_text())
    assert checker.check_replay(replay) == []
    names = seat_names(specs)
    assert replay["players"] == names
    db = open_existing(tmp_path / "a.db")
    try:
        assert game_replay(db, 1)["players"] == names
    finally:
        db.close()
    viewer = TestClient(make_app(tmp_path / "a.db"), base_url="http://127.0.0.1")
    assert viewer.get("/game/1").status_code == 200  # the site's viewer replays it
    assert viewer.get("/game/1/deal/1.json").json()["deal"] == 1
    # what the page was given is exactly the seat's view, through the bot's request
    engine = get_game(game)
    assert asked
    for view, turn in asked:
        rebuilt = view_from_dict(
            game, turn.view, turn.kind, legal=turn.legal, options=turn.game["options"]
        )
        assert rebuilt == view
        assert [engine.parse_event(a) for a in turn.legal] == list(view.legal)


def test_the_seat_is_shown_every_move_and_the_end(tmp_path: Path) -> None:
    specs = ("builtin:first", "builtin:first", "human")
    table = HumanTable(specs)
    seat = table.seats[2]
    answering = _answering(table, pick=lambda legal: legal[0])
    try:
        (played,) = list(
            play_session(
                SessionRequest(specs=specs, game="trianon", rules={"max_deals": "1"}, humans=table)
            )
        )
    finally:
        table.close()
        answering.join(timeout=10)
    frame = seat.snapshot()
    assert frame["state"] == "over" and frame["result"]["totals"] == played.result.totals
    assert frame["deal_end"]["number"] == 1 and "hands" not in frame["deal_end"]
    events = sum(len(d["events"]) for d in played.result.replay["deals"])
    assert seat.version >= events  # a frame after every move, and one at each decision


def test_arena_play_prints_each_link_and_opens_the_first(monkeypatch, tmp_path: Path) -> None:
    """Nobody comes to the pages: each decision times out, the fallbacks are played, and
    the game ends like any other, its faults reported."""
    import webbrowser

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    result = runner.invoke(
        app,
        [
            "play",
            "builtin:first",
            "human:ana",
            "human",
            "--game",
            "trianon",
            "--rules",
            "max_deals=1",
            "--human-move-timeout",
            "0.1",
            "--open",
            "--json",
            "--replays",
            str(tmp_path),
        ],  # fmt: skip
    )
    assert result.exit_code == 0, result.output
    links = re.findall(
        r"^human seat (\d) \((\w+)\): (http://127\.0\.0\.1:\d+/seat/[\w-]{32})$",
        result.stderr,
        re.M,
    )
    assert [(seat, name) for seat, name, _ in links] == [("1", "ana"), ("2", "human")]
    assert opened == [links[0][2]]
    played = json.loads(result.stdout.splitlines()[0])
    assert played["players"] == ["first", "ana", "human"]
    assert {f["kind"] for f in played["fault_details"]} == {"timeout"}
    assert played["faults"] == 10  # five a seat, then --max-faults' fallbacks
    assert trianon_checker.check_replay(json.loads((tmp_path / "game-0001.json").read_text())) == []


def test_a_session_with_a_person_is_stored_unrated(tmp_path: Path) -> None:
    """`arena play --db` with a human seat stores its games (`rate_by = "none"`), and
    nobody at that table is rated: no rating history, every player at the prior in the
    table however it is read, `arena upgrade --rerate` leaves it so, and the table says
    why. The same session with bots only, in the same database, is rated."""
    from arena.league.reports.table import feeding_line, league_rows
    from arena.league.standings.rerate import older_feedings
    from arena.league.store import league_id_by_name, league_record, load_outcomes
    from arena.league.store.reads import latest_ratings

    db_path = tmp_path / "a.db"
    for league, specs in (
        ("people", ("human", "builtin:greedy", "builtin:random", "builtin:first")),
        ("bots", ("builtin:sampler:5", "builtin:greedy", "builtin:random", "builtin:first")),
    ):
        table = HumanTable(specs)
        request = SessionRequest(
            specs=specs, game="trix", rules={"kingdoms": "1"}, games=2, humans=table or None
        )
        answering = _answering(table, pick=lambda legal: legal[0])
        try:
            play_games(request, show=lambda *a: None, db=db_path, league=league)
        finally:
            table.close()
            answering.join(timeout=10)
    assert older_feedings(db_path, rerate=True) == []  # `none` is never re-rated
    db = open_existing(db_path)
    try:
        people, _ = league_id_by_name(db, "people")
        bots, _ = league_id_by_name(db, "bots")
        assert league_record(db, people)[1]["rate_by"] == "none"
        assert len(load_outcomes(db, people)) == 2  # stored, both games
        assert latest_ratings(db, people) == []
        for outcomes in (None, {}):  # the stored ratings, and rated again from the games
            rows = league_rows(db, people, outcomes or None)
            assert {(r["mu"], r["sigma"], r["rating"]) for r in rows} == {(25.0, 8.333, 0.0)}
        assert {r["entrant"] for r in latest_ratings(db, bots)} == {
            "sampler:5", "greedy", "random", "first"
        }  # fmt: skip
        assert len({r["mu"] for r in league_rows(db, bots)}) > 1
    finally:
        db.close()
    assert "a person played at this table" in feeding_line("none")
    result = runner.invoke(app, ["table", "--db", str(db_path), "--league", "people"])
    assert result.exit_code == 0 and "rate_by = 'none'" in result.output, result.output
    site = TestClient(make_app(db_path), base_url="http://127.0.0.1")
    page = site.get("/league/people")
    assert page.status_code == 200 and "a person played at this table" in page.text
    assert site.get("/league/people/entrant/human").status_code == 200
