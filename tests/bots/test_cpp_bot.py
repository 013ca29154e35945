"""The C++ sample bot (sample_bots/cpp_bot) over real gRPC: its calls, its start and
end, and whole games through `arena check-bot` and `arena play`, in the sandbox.

`make cpp-bot` builds it from protos/arena/v1/bot.proto (a no-op when it is up to
date); the fixture runs it, so a missing tool fails here saying what to install. Every
address is a unix socket in a temporary folder or 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from typer.testing import CliRunner

from arena.bots.process import MARKER_VARIABLE
from arena.cli import app
from arena.wire.v1 import bot_pb2 as pb
from arena.wire.v1 import bot_pb2_grpc as pb_grpc
from tests.independent import trianon_checker, trix_checker
from tests.support.bot_processes import live_processes

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "sample_bots" / "cpp_bot" / "build" / "cpp_bot"
JS_BOT = ROOT / "sample_bots" / "js_bot" / "bot.js"
HOW_TO_INSTALL = (
    "the C++ sample bot needs g++ and Debian's libgrpc++-dev and protobuf-compiler-grpc: "
    "`make cpp-bot` installs them when run as root, or `apt-get install g++ libgrpc++-dev "
    "protobuf-compiler-grpc`, then `make cpp-bot`"
)
BUILD_TIMEOUT_S = 600
START_TIMEOUT_S = 10
CALL_TIMEOUT_S = 5
FAST_RECONNECT = [
    ("grpc.initial_reconnect_backoff_ms", 50),
    ("grpc.min_reconnect_backoff_ms", 50),
    ("grpc.max_reconnect_backoff_ms", 200),
]
GAME_INFO = pb.GameInfo(
    game="trix", game_id="g1", seat=2, seed="cpp-test", players=["a", "b", "c", "d"]
)
PLAYS = [pb.Action(type="play", card=card) for card in ("2C", "7C", "TC", "QC", "AC")]
runner = CliRunner()


def decision(decision_id: int, legal: list[pb.Action] = PLAYS, **game) -> pb.DecisionRequest:
    info = pb.GameInfo()
    info.CopyFrom(GAME_INFO)
    for key, value in game.items():
        setattr(info, key, value)
    return pb.DecisionRequest(
        decision_id=decision_id, game=info, kind="play", legal=legal, time_ms=1000
    )


@pytest.fixture(scope="session")
def cpp_bot() -> Path:
    """The bot's program, built (or brought up to date) by `make cpp-bot`."""
    try:
        done = subprocess.run(
            ["make", "--no-print-directory", "cpp-bot"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        pytest.fail(f"`make` is not on PATH: {HOW_TO_INSTALL}")
    if done.returncode != 0 or not BOT.is_file():
        pytest.fail(f"`make cpp-bot` failed: {HOW_TO_INSTALL}\n{done.stdout}\n{done.stderr}")
    return BOT


@contextmanager
def running_bot(argv: list[str], address: str, log: Path) -> Iterator[grpc.Channel]:
    """Start a bot on `address`, wait until it answers, and always end it after with
    SIGTERM, as the referee does (its exit status must then be 0)."""
    env = {**os.environ, "ARENA_BOT_ADDRESS": address}
    with log.open("wb") as err:
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stderr=err)
    channel = grpc.insecure_channel(address, options=FAST_RECONNECT)
    try:
        ready = grpc.channel_ready_future(channel)
        deadline = time.monotonic() + START_TIMEOUT_S
        try:
            while True:  # bounded: the bot's exit or the deadline ends it
                if proc.poll() is not None:
                    pytest.fail(f"the bot exited with {proc.returncode}: {log.read_text()}")
                if time.monotonic() > deadline:
                    pytest.fail(f"the bot did not listen in {START_TIMEOUT_S} s: {log.read_text()}")
                try:
                    ready.result(timeout=0.2)
                    break
                except grpc.FutureTimeoutError:
                    pass
        finally:
            ready.cancel()
        yield channel
    finally:
        channel.close()
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    assert proc.returncode == 0, log.read_text()  # SIGTERM: a clean exit


@pytest.fixture(scope="module")
def stub(cpp_bot, tmp_path_factory) -> Iterator[pb_grpc.BotStub]:
    folder = tmp_path_factory.mktemp("cppbot")
    with running_bot([str(cpp_bot)], f"unix:{folder / 'bot.sock'}", folder / "bot.log") as ch:
        yield pb_grpc.BotStub(ch)


def test_hello_names_the_bot_and_refuses_what_it_cannot_play(stub) -> None:
    for game, seats in (("trix", 4), ("trianon", 3)):
        reply = stub.Hello(
            pb.HelloRequest(protocol_version=1, game=game, seats=seats), timeout=CALL_TIMEOUT_S
        )
        assert (reply.name, reply.version, reply.protocol_version, reply.error) == (
            "random-cpp", "1.0", 1, ""
        )  # fmt: skip
    reply = stub.Hello(pb.HelloRequest(protocol_version=2, game="trix"), timeout=CALL_TIMEOUT_S)
    assert reply.protocol_version == 1 and "protocol 1, the referee 2" in reply.error
    reply = stub.Hello(pb.HelloRequest(protocol_version=1, game="bridge"), timeout=CALL_TIMEOUT_S)
    assert "bridge" in reply.error


def test_decide_is_a_seeded_legal_action_with_the_decision_id(stub) -> None:
    reply = stub.Decide(decision(2**40 + 3), timeout=CALL_TIMEOUT_S)
    assert reply.decision_id == 2**40 + 3 and reply.action in PLAYS
    cards = [stub.Decide(decision(i), timeout=CALL_TIMEOUT_S).action.card for i in range(1, 61)]
    assert cards == [stub.Decide(decision(i), timeout=CALL_TIMEOUT_S).action.card
                     for i in range(1, 61)]  # fmt: skip
    assert set(cards) == {a.card for a in PLAYS}  # not a constant choice
    other = [stub.Decide(decision(i, seed="other"), timeout=CALL_TIMEOUT_S).action.card
             for i in range(1, 61)]  # fmt: skip
    assert other != cards


def test_a_decision_without_legal_actions_is_a_bot_error(stub) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        stub.Decide(decision(3, legal=[]), timeout=CALL_TIMEOUT_S)
    assert caught.value.code() == grpc.StatusCode.UNKNOWN
    assert caught.value.details() == "bot error: decision 3 has no legal action"


def test_play_answers_each_decision_in_order_and_no_notice(stub) -> None:
    legal = [PLAYS[:2], PLAYS, PLAYS[1:4], PLAYS[4:]]
    requests = [decision(10 + i, legal=options) for i, options in enumerate(legal)]
    messages = [pb.RefereeMessage(decision=r) for r in requests]
    messages[2:2] = [pb.RefereeMessage(deal_end=pb.DealEnd(game=GAME_INFO, number=1))]
    messages.append(pb.RefereeMessage(game_end=pb.GameEnd(game=GAME_INFO, totals=[0] * 4)))
    replies = list(stub.Play(iter(messages), timeout=CALL_TIMEOUT_S))
    assert [r.decision_id for r in replies] == [10, 11, 12, 13]
    assert replies == [stub.Decide(r, timeout=CALL_TIMEOUT_S) for r in requests]
    assert stub.Notify(pb.Notice(deal_end=pb.DealEnd(number=1)), timeout=CALL_TIMEOUT_S) == pb.Ack()


def test_it_plays_the_moves_the_javascript_sample_plays(stub, js_bot_installed, tmp_path) -> None:
    """The two samples draw from the same text the same way (SHA-256, then mulberry32)."""
    requests = [decision(i, seed=f"s{i % 7}", seat=i % 4) for i in range(1, 41)]
    mine = [stub.Decide(r, timeout=CALL_TIMEOUT_S) for r in requests]
    address = f"unix:{tmp_path / 'js.sock'}"
    with running_bot(["node", str(JS_BOT)], address, tmp_path / "js.log") as channel:
        js = pb_grpc.BotStub(channel)
        assert mine == [js.Decide(r, timeout=CALL_TIMEOUT_S) for r in requests]


def test_it_listens_on_a_loopback_port(cpp_bot, tmp_path) -> None:
    with socket.socket() as probe:  # a free port, to say where the bot must listen
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with running_bot([str(cpp_bot)], f"127.0.0.1:{port}", tmp_path / "bot.log") as channel:
        reply = pb_grpc.BotStub(channel).Decide(decision(1), timeout=CALL_TIMEOUT_S)
        assert reply.decision_id == 1 and reply.action in PLAYS
    assert (
        f"random-cpp 1.0: listening on 127.0.0.1:{port} (port {port})"
        in (tmp_path / "bot.log").read_text()
    )


def test_a_stale_socket_is_replaced_and_removed_at_the_end(cpp_bot, tmp_path) -> None:
    path = tmp_path / "bot.sock"
    path.touch()  # not a socket: the bot must leave it and fail to listen
    done = subprocess.run(
        [str(cpp_bot)], env={**os.environ, "ARENA_BOT_ADDRESS": f"unix:{path}"},
        capture_output=True, text=True, timeout=START_TIMEOUT_S,
    )  # fmt: skip
    assert done.returncode == 1 and "cannot listen" in done.stderr and path.is_file()
    path.unlink()
    stale = socket.socket(socket.AF_UNIX)  # a socket file left by an earlier run
    stale.bind(str(path))
    stale.close()
    with running_bot([str(cpp_bot)], f"unix:{path}", tmp_path / "bot.log") as channel:
        reply = pb_grpc.BotStub(channel).Hello(
            pb.HelloRequest(protocol_version=1, game="trix", seats=4), timeout=CALL_TIMEOUT_S
        )
        assert reply.error == ""
    assert not path.exists()


def test_without_an_address_it_says_how_to_run_it(cpp_bot) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_BOT_ADDRESS"}
    done = subprocess.run(
        [str(cpp_bot)], env=env, capture_output=True, text=True, timeout=START_TIMEOUT_S
    )
    assert done.returncode == 2 and "ARENA_BOT_ADDRESS" in done.stderr


def started_bots_left(program: Path) -> list[str]:
    """Live processes the referee started to run `program` (they carry its marker, which
    the module's own bot above does not), after a bounded wait for the kernel's kills."""
    marker = MARKER_VARIABLE.encode() + b"="
    for _ in range(100):
        left = [
            p.describe()
            for p in live_processes()
            if bytes(program) in p.cmdline and marker in p.environ
        ]
        if not left:
            break
        time.sleep(0.05)
    return left


@pytest.mark.parametrize("transport", ["stream", "unary"])
@pytest.mark.parametrize("game", ["trix", "trianon"])
def test_check_bot_passes_it_in_the_sandbox(
    cpp_bot, game, transport, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(ROOT)  # the spec the README gives, relative to the repository
    spec = str(cpp_bot.relative_to(ROOT))
    result = runner.invoke(
        app, ["check-bot", spec, "--game", game, "--transport", transport,
              "--logs", str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "name 'random-cpp', version '1.0'" in result.output
    assert "faults: none" in result.output and "verdict: PASS" in result.output
    assert started_bots_left(cpp_bot) == []


@pytest.mark.parametrize(("game", "seats"), [("trix", 4), ("trianon", 3)])
def test_a_whole_game_of_cpp_bots_has_no_fault(cpp_bot, game, seats, tmp_path) -> None:
    result = runner.invoke(
        app, ["play", "--game", game, *[str(cpp_bot)] * seats, "--seed", "cpp",
              "--replays", str(tmp_path / "replays"), "--logs", str(tmp_path / "logs"),
              "--json", "--fail-on-fault"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (line,) = result.stdout.splitlines()
    played = json.loads(line)
    assert played["faults"] == 0 and played["players"][0] == "cpp_bot"
    replay = json.loads(Path(played["replay"]).read_text())
    checker = trix_checker if game == "trix" else trianon_checker
    assert checker.check_replay(replay) == []
    assert started_bots_left(cpp_bot) == []
