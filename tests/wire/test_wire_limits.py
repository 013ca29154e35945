"""Wire limits (issue 6, item 2): every call to a bot has a deadline, the handshake
included; every channel caps the size of what a bot may send; and each way a bot can
fail maps to one named fault. The in-game faults of every kind, over both transports,
are in test_remote_bots.py (`test_a_fault_gives_a_fallback_move_and_the_game_goes_on`);
here are the handshake, the notices and the channel settings.

A missing deadline would show as a hang: each case runs in a thread joined for a
bounded while, so such a regression fails the test instead of stalling the suite.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from arena.bots.remote import channel
from arena.bots.remote.handshake import BotStartError
from arena.bots.remote.settings import RemoteSettings
from arena.bots.spec import started_players
from arena.games import get_game, trix
from arena.play.faults import FAULT_KINDS
from arena.play.referee import RefereeSettings, play_game
from arena.wire.loop import run

GAME = get_game("trix")
SHORT = trix.parse_options({"kingdoms": 1})
SCRIPTED = Path(__file__).resolve().parents[1] / "bot_scripts" / "scripted_bot.py"
QUICK_START = RemoteSettings(move_timeout=0.5, startup_timeout=2.0)
BOUND = 60  # seconds a case may take before it counts as hanging (a deadline is missing)


def scripted(*flags: str) -> str:
    return f"python {SCRIPTED} " + " ".join(flags)


def bounded(work, *args: Any) -> Any:
    """Run `work(*args)` in a thread; fail if it does not finish within BOUND seconds."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = work(*args)
        except BaseException as err:  # re-raised in the test's thread
            out["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(BOUND)
    assert not thread.is_alive(), f"{work.__name__} did not finish: a call has no deadline"
    if "error" in out:
        raise out["error"]
    return out["value"]


def _start_only(spec: str, tmp_path: Path) -> None:
    with started_players(
        [spec], "trix", GAME.options_dict(SHORT), settings=QUICK_START, log_dir=tmp_path
    ):
        pass


HANDSHAKE_FAULTS = {  # what the start-failure says, in parts
    "hello-hang": ("failed the handshake", "Deadline Exceeded"),
    "hello-garbage": ("failed the handshake",),
    "hello-oversize": ("failed the handshake",),
    "old-protocol": ("speaks arena protocol 99",),
    "no-grpc": ("could not be reached",),
    "silent": ("did not listen on $ARENA_BOT_ADDRESS",),
    "refuse": ("refuses on purpose",),
}


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(HANDSHAKE_FAULTS))
def test_every_handshake_failure_is_a_start_failure_within_the_startup_timeout(
    tmp_path, fault
) -> None:
    with pytest.raises(BotStartError) as err:
        bounded(_start_only, scripted("--fault", fault), tmp_path)
    assert err.value.kind == "start-failure"
    text = str(err.value)
    assert all(part in text for part in HANDSHAKE_FAULTS[fault]), text
    if fault == "hello-oversize":
        assert "larger than max" in text or "RESOURCE_EXHAUSTED" in text.upper(), text


def _league_seat(spec: str, tmp_path: Path):
    """One game as a league plays it: a bot that cannot start plays fallbacks."""
    specs = [spec, "builtin:first", "builtin:random", "builtin:first"]
    with started_players(
        specs,
        "trix",
        GAME.options_dict(SHORT),
        settings=QUICK_START,
        log_dir=tmp_path,
        tolerate_start_failures=True,
    ) as players:
        return play_game(GAME, players, "handshake", SHORT, settings=RefereeSettings(max_faults=2))


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["hello-hang", "hello-oversize"])
def test_in_a_league_a_failed_handshake_costs_the_bot_its_game_not_the_game(
    tmp_path, fault
) -> None:
    result = bounded(_league_seat, scripted("--fault", fault), tmp_path)
    assert len(result.replay["deals"]) == 5  # the game was played to its end
    assert [f.kind for f in result.faults] == ["start-failure"] * 2  # then max-faults
    assert {f.seat for f in result.faults} == {0}
    assert "handshake" in result.faults[0].expected and result.faults[0].got.startswith("no bot")


def _notified_game(transport: str, tmp_path: Path):
    settings = RemoteSettings(0.5, 10.0, 0.0, transport)
    specs = [scripted("--fault", "notify-hang"), "builtin:first", "builtin:random", "builtin:first"]
    with started_players(
        specs, "trix", GAME.options_dict(SHORT), settings=settings, log_dir=tmp_path
    ) as players:
        assert players[0].wants_notices
        return play_game(GAME, players, "notices", SHORT)


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stream", "unary"])
def test_a_bot_that_never_acknowledges_a_notice_cannot_hold_the_game(tmp_path, transport):
    """Notices have deadlines too (move_timeout each); they are not decisions, so a
    bot that hangs on one is not charged for it. In unary mode each hung Notify holds
    one of the bot's own four server threads: after four deals it has none left to
    answer with, and those decisions are its timeouts."""
    result = bounded(_notified_game, transport, tmp_path)
    assert len(result.replay["deals"]) == 5
    if transport == "stream":  # notices travel on the stream: nothing blocks
        assert result.faults == []
    else:  # no fault for the hung notices; only the hung bot's decisions of deal 5
        assert result.faults, "the hung notices left the bot threads to answer with"
        assert {(f.seat, f.kind, f.deal) for f in result.faults} == {(0, "timeout", 5)}


def test_every_channel_caps_what_a_bot_may_send_and_never_retries() -> None:
    """The referee's only channel to a bot is made by `channel.open_channel` (the
    handshake opens every connection with it): a bot's message (a handshake reply or an
    answer) may be at most MAX_REPLY_BYTES."""
    made: list[list[tuple[str, int]]] = []
    original = channel.grpc.aio.insecure_channel

    def spy(address: str, options: list[tuple[str, int]]):
        made.append(options)
        return original(address, options=options)

    async def open_and_close() -> None:
        await channel.open_channel("unix:/nonexistent").close()

    channel.grpc.aio.insecure_channel = spy
    try:
        run(open_and_close())
    finally:
        channel.grpc.aio.insecure_channel = original
    assert len(made) == 1
    options = dict(made[0])
    assert options["grpc.max_receive_message_length"] == channel.MAX_REPLY_BYTES <= 64 * 1024
    assert options["grpc.max_send_message_length"] == channel.MAX_REQUEST_BYTES
    assert options["grpc.enable_retries"] == 0
    bots = Path(channel.__file__).parent.parent
    openers = [p for p in bots.rglob("*.py") if "insecure_channel" in p.read_text()]
    assert openers == [Path(channel.__file__)], "only channel.py may open a channel to a bot"


def test_the_named_fault_kinds() -> None:
    assert FAULT_KINDS == ("timeout", "crash", "start-failure", "illegal", "oversize", "protocol")
    assert BotStartError.kind == "start-failure"
