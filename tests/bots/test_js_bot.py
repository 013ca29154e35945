"""The JavaScript sample bot (sample_bots/js_bot) over real gRPC, as the referee sees it.

The bot runs as a `node` subprocess on a unix socket in a temporary folder; the tests
talk to it with the generated Python stubs, and one plays whole Trix games through it
with the referee's own request bytes (arena.wire). Its node packages are installed
from the committed lock file (`npm ci`) when they are missing.
"""

from __future__ import annotations

import os
import queue
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from arena.games import get_game, trix
from arena.play.referee import play_game
from arena.wire.codec import WireCodec, game_info, game_info_bytes, wrap_decision
from arena.wire.messages import action_message
from arena.wire.v1 import bot_pb2 as pb
from arena.wire.v1 import bot_pb2_grpc as pb_grpc
from tests.support.walks import asked_by_seat

ROOT = Path(__file__).resolve().parents[2]
BOT_DIR = ROOT / "sample_bots" / "js_bot"
BOT_JS = BOT_DIR / "bot.js"
NPM_TIMEOUT_S = 300
START_TIMEOUT_S = 10
CALL_TIMEOUT_S = 5
FAST_RECONNECT = [
    ("grpc.initial_reconnect_backoff_ms", 50),
    ("grpc.min_reconnect_backoff_ms", 50),
    ("grpc.max_reconnect_backoff_ms", 200),
]

GAME_INFO = pb.GameInfo(
    game="trix", game_id="g1", seat=2, seed="js-test", players=["a", "b", "c", "d"]
)
PLAYS = [pb.Action(type="play", card=card) for card in ("2C", "7C", "TC", "QC", "AC")]


def decision(decision_id: int, legal: list[pb.Action] = PLAYS, **game) -> pb.DecisionRequest:
    info = pb.GameInfo()
    info.CopyFrom(GAME_INFO)
    for key, value in game.items():
        setattr(info, key, value)
    return pb.DecisionRequest(
        decision_id=decision_id,
        game=info,
        kind="play",
        observation=pb.Observation(seat=info.seat, deal=1, hand=[a.card for a in legal]),
        legal=legal,
        time_ms=1000,
    )


@pytest.fixture(scope="session")
def node_packages() -> Path:
    """The bot's node_modules, installed from package-lock.json when missing."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.fail(f"`{tool}` is not on PATH: the JS sample bot needs Node.js 18 or newer")
    modules = BOT_DIR / "node_modules"
    if (
        not (modules / "@grpc" / "grpc-js").is_dir()
        or not (modules / "@grpc" / "proto-loader").is_dir()
    ):
        subprocess.run(
            ["npm", "ci", "--prefix", str(BOT_DIR)],
            check=True,
            timeout=NPM_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    return modules


@contextmanager
def running_bot(address: str, log: Path) -> Iterator[tuple[grpc.Channel, subprocess.Popen]]:
    """Start the bot on `address`, wait until it answers, and always end it after
    (SIGTERM, as the referee does; its exit status is then in `proc.returncode`)."""
    env = {**os.environ, "ARENA_BOT_ADDRESS": address}
    with log.open("wb") as err:
        proc = subprocess.Popen(
            ["node", str(BOT_JS)], env=env, stdin=subprocess.DEVNULL, stderr=err
        )
    channel = None
    try:
        # Short reconnect backoff: the first attempt usually comes before the bot
        # listens, and gRPC's default would wait a whole second before the next one.
        channel = grpc.insecure_channel(address, options=FAST_RECONNECT)
        ready = grpc.channel_ready_future(channel)
        deadline = time.monotonic() + START_TIMEOUT_S
        try:
            while True:  # bounded: the bot's exit or the deadline ends it
                if proc.poll() is not None:
                    pytest.fail(f"the bot exited with {proc.returncode}: {log.read_text()}")
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"the bot did not listen within {START_TIMEOUT_S} s: {log.read_text()}"
                    )
                try:
                    ready.result(timeout=0.2)
                    break
                except grpc.FutureTimeoutError:
                    pass
        finally:
            ready.cancel()
        yield channel, proc
    finally:
        if channel is not None:
            channel.close()
        stop(proc)


def stop(proc: subprocess.Popen) -> int:
    proc.terminate()
    try:
        return proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait(timeout=5)


@pytest.fixture(scope="module")
def channel(node_packages, tmp_path_factory) -> Iterator[grpc.Channel]:
    folder = tmp_path_factory.mktemp("jsbot")
    with running_bot(f"unix:{folder / 'bot.sock'}", folder / "bot.log") as (channel, _):
        yield channel


@pytest.fixture
def stub(channel) -> pb_grpc.BotStub:
    return pb_grpc.BotStub(channel)


def test_hello_names_the_bot(stub) -> None:
    for game, seats in (("trix", 4), ("trianon", 3)):
        reply = stub.Hello(
            pb.HelloRequest(protocol_version=1, game=game, seats=seats), timeout=CALL_TIMEOUT_S
        )
        assert (reply.name, reply.version, reply.protocol_version) == ("random-js", "1.0", 1)
        assert reply.error == ""


def test_hello_refuses_another_protocol_or_game(stub) -> None:
    for request in (
        pb.HelloRequest(protocol_version=2, game="trix", seats=4),
        pb.HelloRequest(protocol_version=0, game="trix", seats=4),
    ):
        reply = stub.Hello(request, timeout=CALL_TIMEOUT_S)
        assert reply.protocol_version == 1
        assert "protocol" in reply.error and str(request.protocol_version) in reply.error
    reply = stub.Hello(pb.HelloRequest(protocol_version=1, game="bridge"), timeout=CALL_TIMEOUT_S)
    assert "bridge" in reply.error


def test_decide_answers_one_legal_action_with_the_decision_id(stub) -> None:
    reply = stub.Decide(decision(7), timeout=CALL_TIMEOUT_S)
    assert reply.decision_id == 7
    assert reply.action in PLAYS


def test_decide_is_seeded_and_uniform_enough(stub) -> None:
    request = decision(12)
    first = stub.Decide(request, timeout=CALL_TIMEOUT_S)
    assert stub.Decide(request, timeout=CALL_TIMEOUT_S) == first
    # Not a constant choice: over many decisions every legal action comes up.
    cards = [stub.Decide(decision(i), timeout=CALL_TIMEOUT_S).action.card for i in range(1, 101)]
    assert {a.card for a in PLAYS} == set(cards)
    # Another seed or seat gives another sequence.
    assert cards != [
        stub.Decide(decision(i, seed="other"), timeout=CALL_TIMEOUT_S).action.card
        for i in range(1, 101)
    ]


def test_decide_echoes_a_large_decision_id(stub) -> None:
    # uint64 ids arrive in JS as Numbers: exact up to 2**53.
    assert stub.Decide(decision(2**40 + 3), timeout=CALL_TIMEOUT_S).decision_id == 2**40 + 3


def test_decide_without_legal_actions_is_an_error(stub) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        stub.Decide(decision(3, legal=[]), timeout=CALL_TIMEOUT_S)
    assert caught.value.code() == grpc.StatusCode.UNKNOWN
    assert "no legal action" in caught.value.details()


def test_notify_acks(stub) -> None:
    notice = pb.Notice(deal_end=pb.DealEnd(game=GAME_INFO, number=1))
    assert stub.Notify(notice, timeout=CALL_TIMEOUT_S) == pb.Ack()
    notice = pb.Notice(game_end=pb.GameEnd(game=GAME_INFO, totals=[1, 2, 3, 4]))
    assert stub.Notify(notice, timeout=CALL_TIMEOUT_S) == pb.Ack()


def test_play_answers_each_decision_in_order_and_nothing_else(stub) -> None:
    legal = [PLAYS[:2], PLAYS, PLAYS[1:4], PLAYS[2:], PLAYS[4:]]
    requests = [decision(10 + i, legal=options) for i, options in enumerate(legal)]
    deal_end = pb.RefereeMessage(deal_end=pb.DealEnd(game=GAME_INFO, number=1, scores=[1, 2]))
    game_end = pb.RefereeMessage(game_end=pb.GameEnd(game=GAME_INFO, totals=[0, 0, 0, 0]))
    messages = [pb.RefereeMessage(decision=r) for r in requests]
    messages[2:2] = [deal_end]
    messages[5:5] = [game_end, deal_end]
    replies = list(stub.Play(iter(messages), timeout=CALL_TIMEOUT_S))
    assert [r.decision_id for r in replies] == [10, 11, 12, 13, 14]
    for reply, options in zip(replies, legal, strict=True):
        assert reply.action in options
    # Stateless and seeded: the stream answers as Decide does.
    assert replies == [stub.Decide(r, timeout=CALL_TIMEOUT_S) for r in requests]


def test_play_answers_one_at_a_time(stub) -> None:
    """The referee waits for each answer before it sends the next request."""
    outbox: queue.Queue[pb.RefereeMessage | None] = queue.Queue()
    replies = stub.Play(iter(outbox.get, None), timeout=CALL_TIMEOUT_S)
    try:
        for i in range(1, 21):
            outbox.put(pb.RefereeMessage(decision=decision(i)))
            reply = next(replies)
            assert reply.decision_id == i and reply.action in PLAYS
        outbox.put(None)
        assert list(replies) == []
    finally:
        outbox.put(None)
        replies.cancel()


class StreamPlayer:
    """A referee Player that asks the JS bot over one Play stream per game, with the
    request bytes the referee builds (arena.wire), and tells it of each deal's end."""

    wants_notices = True

    def __init__(self, channel: grpc.Channel) -> None:
        self.name = "random-js"
        self._play = channel.stream_stream(
            "/arena.v1.Bot/Play", response_deserializer=pb.DecisionReply.FromString
        )  # no request serializer: the requests are bytes already
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self._replies = None
        self.decisions = 0

    def start_game(self, start) -> None:
        game = get_game(start.game)
        self._codec = WireCodec(game)
        self._info = game_info(
            start.game,
            start.seed,
            start.seat,
            seed=start.seed,
            players=start.players,
            options=start.options,
        )
        self._info_bytes = game_info_bytes(self._info)
        self._replies = self._play(iter(self._outbox.get, None), timeout=60)

    def act(self, decision):
        self.decisions += 1
        request = self._codec.decision_bytes(
            decision.view, decision.legal, self.decisions, self._info_bytes, time_ms=1000
        )
        self._outbox.put(wrap_decision(request))
        reply = next(self._replies)
        assert reply.decision_id == self.decisions
        return self._codec.parse_answer(reply.action)

    def end_deal(self, seat, deal) -> None:
        notice = pb.DealEnd(
            game=self._info,
            number=deal["number"],
            hands=[pb.Cards(cards=hand) for hand in deal["hands"]],
            events=[pb.Event(seat=e["seat"], action=action_message(e)) for e in deal["events"]],
            scores=deal["scores"] or [],
            king=deal.get("king", 0),
        )
        self._outbox.put(pb.RefereeMessage(deal_end=notice).SerializeToString())

    def end_game(self, seat, replay) -> None:
        end = pb.GameEnd(game=self._info, totals=replay["totals"], ranks=replay["ranks"])
        self._outbox.put(pb.RefereeMessage(game_end=end).SerializeToString())
        self._outbox.put(None)  # the end of the stream: the bot ends its side
        assert list(self._replies) == []

    def close(self) -> None:
        self._outbox.put(None)
        if self._replies is not None:
            self._replies.cancel()


def test_whole_trix_games_through_the_stream(channel) -> None:
    game = get_game("trix")
    options = trix.parse_options({"kingdoms": 1})
    replays = []
    for _ in range(2):
        players = [StreamPlayer(channel) for _ in range(4)]
        try:
            result = play_game(game, players, "js-game", options)
        finally:
            for player in players:
                player.close()
        assert result.faults == []
        # Each seat sent exactly the decisions the referee asks (those with a choice).
        assert [p.decisions for p in players] == asked_by_seat(game, result.replay, options)
        assert sum(p.decisions for p in players) > 50
        replays.append(result.replay)
    assert replays[0] == replays[1]  # seeded by the game: the game replays


def test_loopback_port(node_packages, tmp_path) -> None:
    with socket.socket() as probe:  # a free port, to say where the bot must listen
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with running_bot(f"127.0.0.1:{port}", tmp_path / "bot.log") as (channel, _):
        reply = pb_grpc.BotStub(channel).Decide(decision(1), timeout=CALL_TIMEOUT_S)
        assert reply.decision_id == 1 and reply.action in PLAYS


def test_sigterm_exits_cleanly_and_removes_the_socket(node_packages, tmp_path) -> None:
    path = tmp_path / "bot.sock"
    path.touch()  # not a socket: the bot must not delete it, and cannot bind
    proc = subprocess.run(
        ["node", str(BOT_JS)],
        env={**os.environ, "ARENA_BOT_ADDRESS": f"unix:{path}"},
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_S,
    )
    assert proc.returncode == 1 and "cannot listen" in proc.stderr
    assert path.is_file()
    path.unlink()

    stale = socket.socket(socket.AF_UNIX)  # a socket file left by an earlier run
    stale.bind(str(path))
    stale.close()
    log = tmp_path / "bot.log"
    with running_bot(f"unix:{path}", log) as (channel, bot):
        reply = pb_grpc.BotStub(channel).Hello(
            pb.HelloRequest(protocol_version=1, game="trix", seats=4), timeout=CALL_TIMEOUT_S
        )
        assert reply.error == ""
    assert bot.returncode == 0  # SIGTERM: a clean exit
    assert "random-js 1.0: listening on unix:" in log.read_text()
    assert not path.exists()  # the server closed its socket


def test_without_an_address_it_says_how_to_run_it(node_packages) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_BOT_ADDRESS"}
    proc = subprocess.run(
        ["node", str(BOT_JS)], env=env, capture_output=True, text=True, timeout=START_TIMEOUT_S
    )
    assert proc.returncode == 2
    assert "ARENA_BOT_ADDRESS" in proc.stderr
