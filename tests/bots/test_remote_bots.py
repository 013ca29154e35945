"""External bots over gRPC, with real processes on unix sockets: faults, fallbacks,
restarts, clean-up and information hiding (docs/rules/trix.md T-8)."""

from __future__ import annotations

import json
import os
import shlex
import struct
import sys
import time
from pathlib import Path

import pytest

from arena.bots.remote.handshake import NAME_LIMIT, BotStartError
from arena.bots.remote.player import RemotePlayer
from arena.bots.remote.settings import RemoteSettings
from arena.bots.spec import spec_slug, started_players, unique_names
from arena.cards import parse_card
from arena.errors import ConfigError
from arena.games import get_game, trix
from arena.play.faults import FAULT_KINDS
from arena.play.referee import RefereeSettings, bot_seed, play_game
from arena.wire.v1 import bot_pb2 as pb
from tests.independent.trix_checker import check_replay
from tests.support.walks import asked_by_seat

GAME = get_game("trix")
SHORT = trix.parse_options({"kingdoms": 1})
SCRIPTED = Path(__file__).resolve().parents[1] / "bot_scripts" / "scripted_bot.py"
FAST = RemoteSettings(move_timeout=0.5, startup_timeout=10.0)


def scripted(*flags: str) -> str:
    return f"python {SCRIPTED} " + " ".join(flags)


def play_with(
    spec: str,
    tmp_path: Path,
    settings: RemoteSettings = FAST,
    transport="stream",
    referee: RefereeSettings | None = None,
):
    settings = RemoteSettings(
        settings.move_timeout, settings.startup_timeout, settings.time_bank, transport
    )
    specs = [spec, "builtin:first", "builtin:random", "builtin:first"]
    with started_players(
        specs, "trix", GAME.options_dict(SHORT), settings=settings, log_dir=tmp_path
    ) as players:
        bot = players[0]
        result = play_game(GAME, players, "remote-test", SHORT, settings=referee)
        pids = {bot.process.pid} if isinstance(bot, RemotePlayer) and bot.process else set()
        restarts = bot._restarts if isinstance(bot, RemotePlayer) else 0
    return result, pids, restarts


def autos(replay) -> list[str]:
    return [e["auto"] for d in replay["deals"] for e in d["events"] if "auto" in e]


def test_clean_scripted_bot_plays_a_full_game(tmp_path) -> None:
    result, _, _ = play_with(scripted(), tmp_path)
    assert result.faults == [] and autos(result.replay) == []
    assert result.replay["players"][0] == "scripted"
    assert check_replay(result.replay) == []


GOT = {  # what each scripted fault sends back, as the fault's `got` shows it
    "timeout": "answer",  # "no answer; the call was cancelled..." or "an answer after ..."
    "illegal": "ZZ",
    "garbage": "not a protobuf message",
    "oversize": "RESOURCE_EXHAUSTED",
    "wrong-id": "decision_id 1003",
    "exit": "exited with code 3",
    "lie-timeout": "DEADLINE_EXCEEDED: made up by the bot",
    "lie-oversize": "RESOURCE_EXHAUSTED: made up by the bot",
}


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stream", "unary"])
@pytest.mark.parametrize(
    "fault, kind",
    [
        ("timeout", "timeout"),
        ("illegal", "illegal"),
        ("garbage", "protocol"),
        ("oversize", "oversize"),
        ("wrong-id", "protocol"),
        ("exit", "crash"),
        # A status the bot sends itself is no proof: it gets no timeout or oversize
        # fault it did not earn, but a protocol fault that says what it sent.
        ("lie-timeout", "protocol"),
        ("lie-oversize", "protocol"),
    ],
)
def test_a_fault_gives_a_fallback_move_and_the_game_goes_on(tmp_path, fault, kind, transport):
    result, _, restarts = play_with(scripted("--fault", fault), tmp_path, transport=transport)
    faults = [f for f in result.faults if f.seat == 0]
    assert [f.kind for f in faults] == [kind], [f.detail for f in faults]
    assert faults[0].detail  # says what went wrong
    assert autos(result.replay) == [kind]  # one fallback event, marked
    assert len(result.replay["deals"]) == 5  # the game completed
    assert check_replay(result.replay) == []  # and every event is legal
    assert result.replay["faults"][0]["kind"] == kind
    # The report for the bot's author (`arena faults`): which decision, what was
    # expected, what came back.
    assert kind in FAULT_KINDS
    assert faults[0].decision == 3  # the request whose decision_id was --at (3)
    assert faults[0].expected.startswith("one of the ") and "legal" in faults[0].expected
    assert GOT[fault] in faults[0].got and len(faults[0].got) <= 200, faults[0].got
    event = result.replay["deals"][faults[0].deal - 1]["events"][faults[0].event]
    assert event["seat"] == 0 and event["auto"] == kind
    assert Path(faults[0].log).exists()
    if fault == "exit":
        assert restarts == 1  # restarted once, then answered normally
        assert "exited with code 3" in faults[0].detail
    if fault == "timeout":
        assert "no answer within" in faults[0].detail
        assert faults[0].expected.endswith("within 0.500 s (move_timeout)")


def test_the_fallback_is_the_first_legal_action(tmp_path) -> None:
    result, _, _ = play_with(scripted("--fault", "illegal", "--at", "1"), tmp_path)
    state = trix.new_game(result.replay["seed"], SHORT)
    checked = 0
    for deal in result.replay["deals"]:
        for index, event in enumerate(deal["events"]):
            if index < len(state.events):  # applied by the engine itself (T-2.5)
                continue
            action = trix.parse_event(event)
            if "auto" in event:
                assert action == state.legal[0]
                checked += 1
            trix.apply(state, action)
    assert checked == 1 and state.to_move < 0


def test_max_faults_then_all_fallbacks(tmp_path) -> None:
    referee = RefereeSettings(max_faults=3)
    result, _, _ = play_with(scripted("--fault", "always-illegal"), tmp_path, referee=referee)
    kinds = autos(result.replay)
    assert kinds[:3] == ["illegal"] * 3 and set(kinds[3:]) == {"max-faults"}
    assert len(result.faults) == 3
    assert check_replay(result.replay) == []


def test_a_bot_that_refuses_the_handshake_is_a_clear_start_failure(tmp_path) -> None:
    with pytest.raises(BotStartError, match="refuses on purpose"):
        with started_players(
            [scripted("--fault", "refuse")], "trix", {}, settings=FAST, log_dir=tmp_path
        ):
            pass


def test_a_bot_that_never_listens_fails_within_the_startup_timeout(tmp_path) -> None:
    settings = RemoteSettings(move_timeout=0.5, startup_timeout=1.0)
    started = time.monotonic()
    with pytest.raises(BotStartError, match=r"did not listen on \$ARENA_BOT_ADDRESS") as err:
        with started_players(
            [scripted("--fault", "silent")], "trix", {}, settings=settings, log_dir=tmp_path
        ):
            pass
    assert time.monotonic() - started < 8
    assert "startup_timeout" in str(err.value) and "log" in str(err.value)


def test_a_command_that_does_not_exist_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ConfigError, match="cannot start bot command"):
        with started_players(["no-such-program --x"], "trix", {}, settings=FAST, log_dir=tmp_path):
            pass


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def test_no_process_outlives_its_match(tmp_path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    spec = scripted("--fault", "spawn", "--pidfile", str(pidfile))
    _, pids, _ = play_with(spec, tmp_path)
    assert pidfile.exists(), "the bot did not spawn its grandchild"
    grandchild = int(pidfile.read_text())
    for pid in pids | {grandchild}:
        for _ in range(100):  # bounded wait for the kernel to finish the kill
            if not _alive(pid):
                break
            time.sleep(0.02)
        assert not _alive(pid), f"process {pid} outlived its match"


def test_logs_capture_the_bots_output(tmp_path) -> None:
    result, _, _ = play_with(scripted("--fault", "exit"), tmp_path)
    logs = list(tmp_path.glob("*.log"))
    assert any("exiting on purpose" in p.read_text() for p in logs)


def test_names_stay_distinct_when_a_bot_names_itself_like_a_repeat() -> None:
    assert unique_names(["random", "random", "random"]) == ["random", "random#2", "random#3"]
    # A bot calling itself "random#2" must not share a name (and summed scores) with the
    # second built-in random bot.
    assert unique_names(["random#2", "random", "random"]) == ["random#2", "random", "random#3"]
    assert unique_names(["a", "a", "a#2"]) == ["a", "a#2", "a#2#2"]


def test_a_bots_name_reaches_no_terminal_raw(tmp_path) -> None:
    """The handshake name is the bot's to choose: escape sequences, line breaks and
    carriage returns would clear the organiser's screen or forge output lines."""
    hostile = shlex.quote("\x1b[2Jevil\nfake line: greedy crashed\r" + "x" * 500)
    result, _, _ = play_with(scripted("--name", hostile), tmp_path)
    name = result.replay["players"][0]
    assert name.startswith("?[2Jevil?fake line: greedy crashed?xxx")
    assert name.isprintable() and len(name) <= NAME_LIMIT


def test_a_missing_python_script_is_named_before_the_bot_starts(tmp_path) -> None:
    """Not a start-up timeout after 10 s: in the sandbox the bot starts in its
    own folder, and its log would name a different missing path."""
    with pytest.raises(ConfigError, match=r"no such file .*/nothere\.py"):
        play_with("python nothere.py", tmp_path)


def _requests(path: Path) -> list[pb.DecisionRequest]:
    data = path.read_bytes()
    out, i = [], 0
    while i < len(data):
        (n,) = struct.unpack(">I", data[i : i + 4])
        out.append(pb.DecisionRequest.FromString(data[i + 4 : i + 4 + n]))
        i += 4 + n
    return out


def test_every_request_holds_only_what_the_seat_may_know(tmp_path) -> None:
    """T-8: replay the game and check each recorded request against the truth."""
    record = tmp_path / "requests.bin"
    result, _, _ = play_with(scripted("--record", str(record)), tmp_path)
    requests = _requests(record)
    # One request for each decision seat 0 is asked (a short game still asks dozens).
    assert len(requests) == asked_by_seat(GAME, result.replay, SHORT, forced=True)[0] > 40
    # The game seed deals every hand (T-2.2): a bot is given only the bot seed, a hash.
    game_seed = result.replay["seed"]
    assert {r.game.seed for r in requests} == {bot_seed(game_seed)}
    assert all(game_seed.encode() not in r.SerializeToString() for r in requests)
    deals = result.replay["deals"]
    for request in requests:
        obs = request.observation
        assert obs.seat == 0 and request.game.seat == 0
        deal = deals[obs.deal - 1]
        truth = deal["events"][: len(obs.events)]
        told = [{"seat": e.seat, **_action(e.action)} for e in obs.events]
        assert told == [{k: v for k, v in e.items() if k != "auto"} for e in truth]
        played = {e["card"] for e in truth if e["type"] == "play"}
        exposed = {c for e in truth if e["type"] == "expose" for c in e["cards"]}
        dealt = set(deal["hands"][0])
        mine_played = {e["card"] for e in truth if e["type"] == "play" and e["seat"] == 0}
        assert set(obs.hand) == dealt - mine_played
        mentioned = (
            set(obs.hand)
            | {t.card for t in obs.trick}
            | set(obs.rows)
            | {c for cards in obs.exposed for c in cards.cards}
            | {a.card for a in request.legal if a.card}
            | {c for a in request.legal for c in a.cards}
        )
        assert mentioned <= dealt | played | exposed, "a request held a hidden card"
        for code in mentioned:
            parse_card(code)


def _action(action: pb.Action) -> dict:
    from arena.wire.messages import action_dict

    return action_dict(action)


def test_python_bots_run_on_the_arenas_interpreter() -> None:
    from arena.bots.process import command_argv

    assert command_argv("python bot.py")[0] == sys.executable
    assert command_argv("python3 -u bot.py")[0] == sys.executable
    assert command_argv("node bot.js")[0] == "node"


def test_grpc_specs_reach_a_running_bot(tmp_path) -> None:
    import subprocess

    address = f"unix:{tmp_path / 'running.sock'}"
    process = subprocess.Popen(
        [sys.executable, str(SCRIPTED), "--name", "outside"],
        env={**os.environ, "ARENA_BOT_ADDRESS": address},
    )
    try:
        specs = [f"grpc:{address}", "builtin:first", "builtin:first", "builtin:first"]
        with started_players(
            specs, "trix", GAME.options_dict(SHORT), settings=FAST, log_dir=tmp_path
        ) as players:
            assert players[0].name == "outside"
            result = play_game(GAME, players, "outside", SHORT)
        assert result.faults == []
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize("transport", ["stream", "unary"])
def test_notices_reach_a_bot_that_asks_for_them(tmp_path, transport) -> None:
    """T-8.2: after each deal the hands as dealt; after the game the totals."""
    notes = tmp_path / "notes.jsonl"
    learner = Path(__file__).resolve().parents[1] / "bot_scripts" / "learning_bot.py"
    spec = f"python {learner} {notes}"
    result, _, _ = play_with(spec, tmp_path, transport=transport)
    for _ in range(100):  # notices are fire-and-forget: give the last one a moment
        lines = notes.read_text().splitlines() if notes.exists() else []
        if any("game_end" in line for line in lines):
            break
        time.sleep(0.02)
    records = [json.loads(line) for line in lines]
    deals = [r["deal_end"] for r in records if "deal_end" in r]
    assert [d["number"] for d in deals] == [1, 2, 3, 4, 5]
    for deal, stored in zip(deals, result.replay["deals"], strict=True):
        assert deal["hands"] == stored["hands"] and deal["scores"] == stored["scores"]
        assert len(deal["events"]) == len(stored["events"])
    assert records[-1] == {"game_end": {"totals": result.totals, "ranks": result.ranks}}


def test_bots_that_do_not_ask_get_no_notices(tmp_path) -> None:
    record = tmp_path / "requests.bin"
    specs = [scripted("--record", str(record)), "builtin:first", "builtin:random", "builtin:first"]
    with started_players(
        specs, "trix", GAME.options_dict(SHORT), settings=FAST, log_dir=tmp_path
    ) as players:
        # Its HelloReply leaves notices off, so the referee builds and sends it none
        # (it calls end_deal and end_game only on players that want notices).
        assert players[0].wants_notices is False
        result = play_game(GAME, players, "remote-test", SHORT)
    # The scripted bot records every decision request it gets: one per decision asked.
    requests = _requests(record)
    assert len(requests) == asked_by_seat(GAME, result.replay, SHORT, forced=True)[0]
    assert all(r.observation.seat == 0 for r in requests)


def test_a_flooding_bot_has_its_log_capped(tmp_path) -> None:
    from arena.bots.process import LOG_CAP_BYTES

    result, _, _ = play_with(scripted("--fault", "flood"), tmp_path)
    assert result.faults == []
    log = next(p for p in tmp_path.glob("*.log") if "flood" in p.name)
    size = log.stat().st_size
    assert LOG_CAP_BYTES <= size <= LOG_CAP_BYTES + 200
    assert log.read_text().endswith("further output was discarded]\n")


def test_the_log_cap_holds_across_restarts_and_a_new_run_starts_a_new_log(tmp_path) -> None:
    """A bot that floods and crashes must not get a fresh cap per restart; and a log
    left by an earlier run must not be appended to (start-failure excerpts read it)."""
    from arena.bots.process import LOG_CAP_BYTES, BotProcess

    log = tmp_path / "bot.log"
    log.write_text("a line from an earlier run\n")
    flood = "import sys; sys.stdout.write('x' * (700 * 1024)); sys.stdout.flush()"
    bot = BotProcess([sys.executable, "-c", flood], log)
    try:
        for _ in range(3):  # the first start and two restarts, each 700 KiB of output
            bot.start()
            bot.wait_exit(10)
    finally:
        bot.close()
    text = log.read_text()
    assert "earlier run" not in text
    assert LOG_CAP_BYTES <= len(text) <= LOG_CAP_BYTES + 200
    assert text.count("further output was discarded") == 1


def test_log_names_keep_the_bot_and_its_flags_however_deep_its_folder() -> None:
    deep = "/tmp/" + "/".join(["folder"] * 30) + "/scripted_bot.py"
    assert spec_slug(f"python {deep} --fault flood") == "python-scripted_bot.py---fault-flood"
    assert spec_slug("grpc:unix:/run/bots/a.sock") == "a.sock"
    assert spec_slug("builtin:random") == "builtin-random"


@pytest.mark.slow
def test_the_time_bank_absorbs_an_overrun(tmp_path) -> None:
    banked = RemoteSettings(move_timeout=0.5, startup_timeout=10.0, time_bank=1.0)
    result, _, _ = play_with(scripted("--fault", "slow"), tmp_path, banked)
    assert result.faults == []  # 0.7 s on a 0.5 s move, paid from the 1.0 s bank
    plain = RemoteSettings(move_timeout=0.5, startup_timeout=10.0)
    result, _, _ = play_with(scripted("--fault", "slow"), tmp_path, plain)
    assert [f.kind for f in result.faults] == ["timeout"]


RAISING_BOT = """
from arena.sdk import Bot, serve


class Raising(Bot):
    name = "raising"

    def act(self, turn):
        if turn.decision_id == 2:
            raise ValueError("boom on purpose")
        return turn.legal[0]


serve(Raising())
"""


@pytest.mark.parametrize("transport", ["stream", "unary"])
def test_an_sdk_bot_whose_act_raises_is_a_crash_with_its_error(tmp_path, transport) -> None:
    """The SDK ends the call with the bot's error (its traceback goes to the bot's log);
    the referee records a crash fault naming it, plays the fallback, and the game goes on."""
    bot = tmp_path / "raising_bot.py"
    bot.write_text(RAISING_BOT)
    result, _, _ = play_with(f"python {bot}", tmp_path, transport=transport)
    assert [(f.kind, f.decision) for f in result.faults] == [("crash", 2)]
    assert "bot error: ValueError: boom on purpose" in result.faults[0].detail
    assert autos(result.replay) == ["crash"]
    assert "ValueError: boom on purpose" in Path(result.faults[0].log).read_text()
    assert check_replay(result.replay) == []
