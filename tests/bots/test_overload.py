"""A timeout the machine caused is recorded as such (arena/bots/remote/load.py), and
an idle pooled bot is frozen (docs/sandbox.md, "Clocks a neighbour cannot steal")."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from arena.bots.confinement.sandbox import Sandbox
from arena.bots.remote.load import Marks, judge, referee_wait_seconds, stall_seconds
from arena.bots.remote.player import RemotePlayer
from arena.bots.remote.settings import RemoteSettings
from arena.bots.rotation_pool import RotationPool, Seat
from arena.bots.spec import make_player

pytestmark = [pytest.mark.sandbox]

ROOT = Path(__file__).resolve().parents[2]
HOG = "python -m arena.strategies.hog --seconds 30"


def test_a_late_decision_is_put_down_to_overload_only_when_the_machine_stalled() -> None:
    start = Marks(stall=10.0, referee_wait=1.0, bot_cpu=5.0)
    starved = Marks(stall=10.8, referee_wait=1.01, bot_cpu=5.05)  # waited 0.8 of 1 s
    assert "runnable tasks waited for a core 0.800 s of 1.000 s" in judge(start, starved, 1.0, 1)
    busy_bot = Marks(stall=10.8, referee_wait=1.01, bot_cpu=5.9)  # the bot itself ran
    assert judge(start, busy_bot, 1.0, 1) == ""
    calm = Marks(stall=10.1, referee_wait=1.01, bot_cpu=5.0)  # a bot that hung, alone
    assert judge(start, calm, 1.0, 1) == ""
    late_referee = Marks(stall=10.1, referee_wait=1.4, bot_cpu=5.0)
    assert "the referee itself waited 0.400 s" in judge(start, late_referee, 1.0, 1)
    own_quota = Marks(stall=10.8, referee_wait=1.01, bot_cpu=5.05, bot_throttled=0.3)
    assert judge(Marks(10.0, 1.0, 5.0, 0.1), own_quota, 1.0, 1) == ""  # its own quota
    unknown = Marks(stall=None, referee_wait=None, bot_cpu=None)
    assert judge(unknown, unknown, 1.0, 1) == ""


def test_the_kernel_counters_are_read() -> None:
    stall, wait = stall_seconds(), referee_wait_seconds()
    assert stall is not None and stall >= 0, "this machine's kernel keeps /proc/pressure/cpu"
    assert wait is not None and wait >= 0


@pytest.mark.slow
def test_a_pooled_bot_that_is_not_playing_is_frozen(tmp_path) -> None:
    """A hog kept in the pool burns no CPU while another game is played: each entrant
    runs one process at a time, however many rotation slots it holds."""
    settings = RemoteSettings(startup_timeout=20.0)
    sandbox = Sandbox()

    def make(seat: Seat):
        return make_player(
            seat.spec,
            settings,
            log_path=tmp_path / f"{seat.rotation}.log",
            base_dir=ROOT,
            sandbox=sandbox,
        )

    pool = RotationPool(make, "trix", {"kingdoms": 1}, tolerate_start_failures=False)
    try:
        [[hog], [other]] = pool.match_players([[Seat("hog", HOG, 0)], [Seat("hog", HOG, 1)]])
        assert isinstance(hog, RemotePlayer) and isinstance(other, RemotePlayer)
        pool.activate([other])  # rotation 1 plays: rotation 0's process is frozen
        time.sleep(0.2)
        frozen_start = hog.process.cpu_seconds()
        running_start = other.process.cpu_seconds()
        time.sleep(1.0)
        frozen = hog.process.cpu_seconds() - frozen_start
        running = other.process.cpu_seconds() - running_start
        assert frozen < 0.05, f"a frozen bot used {frozen:.3f} s of CPU"
        assert running > 0.3  # the playing hog spins: the measure can see CPU
    finally:
        pool.close()


@pytest.mark.slow
def test_one_entrants_processes_share_one_cpu_quota(tmp_path) -> None:
    """Two rotation slots of one hog, both running: together they get one core (the
    entrant's cgroup group), not one each; the machine has two."""
    import dataclasses

    from arena.bots.confinement.cgroups import entrant_group

    settings = RemoteSettings(startup_timeout=20.0)
    sandbox = dataclasses.replace(Sandbox(), group=entrant_group(os.getpid(), "test-hog"))

    def make(seat: Seat):
        return make_player(
            seat.spec,
            settings,
            log_path=tmp_path / f"{seat.rotation}.log",
            base_dir=ROOT,
            sandbox=sandbox,
        )

    pool = RotationPool(make, "trix", {"kingdoms": 1}, tolerate_start_failures=False)
    try:
        [[first], [second]] = pool.match_players([[Seat("hog", HOG, 0)], [Seat("hog", HOG, 1)]])
        pool.activate([first, second])
        time.sleep(0.3)
        before = first.process.cpu_seconds() + second.process.cpu_seconds()
        started = time.monotonic()
        time.sleep(1.5)
        used = first.process.cpu_seconds() + second.process.cpu_seconds() - before
        cores = used / (time.monotonic() - started)
        assert 0.5 < cores < 1.25, f"the entrant's two processes used {cores:.2f} cores"
    finally:
        pool.close()


def test_a_timeout_the_machine_caused_is_not_charged_to_the_bot() -> None:
    """After its replays, a match is stored with its overload faults: they are kept (the
    replay, `arena faults`) but count neither in the table nor for forfeit_faults."""
    from arena.league.definition.records import PlayedGame

    replay = {
        "totals": [1, 2, 3, 4],
        "deals": [{"scores": [1, 2, 3, 4]}],
        "faults": [
            {"seat": 0, "kind": "timeout", "overload": "runnable tasks waited"},
            {"seat": 1, "kind": "timeout"},
        ],
    }
    outcome = PlayedGame(0, ("a", "b", "c", "d"), replay, 10).outcome()
    assert outcome.faults == {"a": 0, "b": 1, "c": 0, "d": 0}
