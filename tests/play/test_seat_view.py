"""`arena replay GAME --seat S`: what the seat was asked, rebuilt from the replay alone,
is what the bot received over the wire at every decision."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots.local import SdkPlayer
from arena.bots.remote.settings import RemoteSettings
from arena.bots.spec import started_players
from arena.cli import app
from arena.errors import ConfigError
from arena.games import get_game
from arena.play.referee import RefereeSettings, play_game
from arena.play.replays import write_replay
from arena.play.seat_view import seat_decisions
from arena.sdk import Bot
from arena.wire.messages import action_dict, observation_dict
from arena.wire.v1 import bot_pb2 as pb

runner = CliRunner()
HOSTILE = Path(__file__).resolve().parents[1] / "bot_scripts" / "hostile"


class Recorder(Bot):
    """A seeded random bot that keeps every turn as the SDK gave it."""

    name = "recorder"
    games = ("trix", "trianon")

    def __init__(self) -> None:
        self.turns: list[dict] = []

    def act(self, turn):
        self.turns.append(
            {
                "decision": turn.decision_id,
                "kind": turn.kind,
                "view": turn.view,
                "legal": turn.legal,
            }
        )
        choices = 3 if turn.kind in ("bid", "raise") else len(turn.legal)
        return turn.random_index(min(choices, len(turn.legal)))


def _played(game_name: str, seed: str, seat: int, rules: dict | None = None):
    game = get_game(game_name)
    options = game.parse_options(rules or {})
    bots = [Recorder() for _ in range(game.seats)]
    players = [SdkPlayer(bot) for bot in bots]
    result = play_game(game, players, seed, options)
    return result.replay, bots[seat].turns


@pytest.mark.parametrize(
    ("game", "seed", "seat", "rules"),
    [("trix", "seat-view", 2, {"kingdoms": 2}), ("trianon", "seat-view", 1, {"target": 300})],
)
def test_every_view_is_what_the_sdk_bot_received(game, seed, seat, rules) -> None:
    replay, turns = _played(game, seed, seat, rules)
    rebuilt = seat_decisions(json.loads(json.dumps(replay)), seat)  # as read from a file
    assert len(turns) > 30 and len(rebuilt) == len(turns)
    for turn, decision in zip(turns, rebuilt, strict=True):
        assert decision.number == turn["decision"]
        assert decision.kind == turn["kind"]
        assert decision.view == turn["view"]
        assert decision.legal == turn["legal"]
        assert decision.answer in turn["legal"]  # what the bot chose
    kinds = {d.kind for d in rebuilt}
    assert kinds >= ({"contract", "expose", "play"} if game == "trix" else {"bid", "play"})


def test_deal_and_decision_choose_among_them() -> None:
    replay, turns = _played("trix", "seat-view", 2, {"kingdoms": 2})
    second = seat_decisions(replay, 2, deal=2)
    assert second and {d.deal for d in second} == {2}
    assert [d.number for d in second] == [t["decision"] for t in turns if t["view"]["deal"] == 2]
    [one] = seat_decisions(replay, 2, decision=7)
    assert one.number == 7 and one.view == turns[6]["view"]
    with pytest.raises(ConfigError, match=r"--decision 999: seat 2 was asked decisions 1 to"):
        seat_decisions(replay, 2, decision=999)
    with pytest.raises(ConfigError, match=r"--seat 4: a trix game has seats 0 to 3"):
        seat_decisions(replay, 4)
    with pytest.raises(ConfigError, match=r"--deal 11: this game has deals 1 to 10"):
        seat_decisions(replay, 2, deal=11)


def test_an_edited_replay_is_refused_where_it_stops_being_a_game() -> None:
    replay, _ = _played("trix", "seat-view", 2, {"kingdoms": 1})
    events = replay["deals"][0]["events"]
    plays = [i for i, e in enumerate(events) if e["type"] == "play"]
    first = events[plays[0]]
    events[plays[0]] = {**first, "card": "2C" if first["card"] != "2C" else "3C"}
    with pytest.raises(ConfigError, match=r"deal 1 event \d+ of the replay .* is not a legal"):
        seat_decisions(replay, 2)


def _spy_messages(path: Path) -> list[pb.DecisionRequest]:
    data, i, out = path.read_bytes(), 0, []
    while i < len(data):
        tag, (n,) = data[i : i + 1], struct.unpack(">I", data[i + 1 : i + 5])
        body = data[i + 5 : i + 5 + n]
        if tag == b"M":
            message = pb.RefereeMessage.FromString(body)
            if message.WhichOneof("body") == "decision":
                out.append(message.decision)
        i += 5 + n
    return out


def test_over_grpc_the_cli_prints_what_the_bot_was_sent(tmp_path) -> None:
    """A bot started by the referee records the raw requests it is sent; `arena replay
    FILE --seat 0 --format json` gives the same views and legal actions, in order."""
    record = tmp_path / "spy.bin"
    game = get_game("trianon")
    options = game.parse_options({})
    specs = [f"python {HOSTILE / 'spy_bot.py'} {record}", "builtin:first", "builtin:random"]
    with started_players(
        specs,
        "trianon",
        game.options_dict(options),
        settings=RemoteSettings(),
        log_dir=tmp_path / "logs",
    ) as players:
        result = play_game(game, players, "spied", options, settings=RefereeSettings())
    path = write_replay(tmp_path, 1, result.replay)
    shown = runner.invoke(app, ["replay", str(path), "--seat", "0", "--format", "json"])
    assert shown.exit_code == 0, shown.output
    printed = json.loads(shown.output)
    sent = _spy_messages(record)
    assert len(sent) > 10 and len(printed) == len(sent)
    wall = result.replay["think"][0]["wall_ms"]
    for request, decision in zip(sent, printed, strict=True):
        assert decision["decision"] == request.decision_id and decision["kind"] == request.kind
        assert decision["view"] == observation_dict(request.observation)
        assert decision["legal"] == [action_dict(a) for a in request.legal]
        assert decision["ms"] == wall[request.decision_id - 1]  # the replay's think time


def test_a_fallback_shows_the_fault_and_what_the_bot_answered(tmp_path) -> None:
    scripted = Path(__file__).resolve().parents[1] / "bot_scripts" / "scripted_bot.py"
    game = get_game("trix")
    options = game.parse_options({"kingdoms": 1})
    specs = [
        f"python {scripted} --fault illegal",
        "builtin:first",
        "builtin:first",
        "builtin:first",
    ]
    with started_players(
        specs,
        "trix",
        game.options_dict(options),
        settings=RemoteSettings(),
        log_dir=tmp_path / "logs",
    ) as players:
        result = play_game(game, players, "fallback", options, settings=RefereeSettings())
    [fault] = result.faults
    path = write_replay(tmp_path, 1, result.replay)
    shown = runner.invoke(app, ["replay", str(path), "--seat", "0", "--decision", "3"])
    assert shown.exit_code == 0, shown.output
    assert f"decision 3: deal {fault.deal}, event {fault.event}, play" in shown.output
    assert "(the referee's fallback after a fault: illegal; the bot answered " in shown.output
    ms = result.replay["think"][0]["wall_ms"][2]
    assert '"hand": [' in shown.output and f"time:   {ms:.2f} ms" in shown.output
    refused = runner.invoke(app, ["replay", str(path), "--deal", "1"])
    assert refused.exit_code == 2 and "give --seat too" in refused.output
