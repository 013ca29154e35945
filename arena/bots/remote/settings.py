"""The limits of one external bot: the league file's `[limits]`, or the CLI's options."""

from __future__ import annotations

import reprlib
from dataclasses import dataclass, fields
from enum import StrEnum

from arena.errors import ConfigError


class TransportKind(StrEnum):
    """How decisions travel: one Play stream per game, or one Decide call each."""

    STREAM = "stream"
    UNARY = "unary"


# The time limits' ranges, the same for a league file's [limits] and the CLI's flags. An
# infinite or NaN limit would never end a stuck bot's turn (or end every turn at once),
# and `time_ms` travels as a uint32 of milliseconds; past these bounds a limit is a typo.
SECONDS_RANGES: dict[str, tuple[float, float, str]] = {
    "move_timeout": (0.001, 3600.0, "a positive number of seconds, from 0.001 to 3600 (an hour)"),
    "startup_timeout": (0.1, 600.0, "a number of seconds from 0.1 to 600 (ten minutes)"),
    "time_bank": (0.0, 3600.0, "a number of seconds from 0 to 3600 (an hour)"),
    "game_time": (0.0, 86400.0, "a number of seconds from 0 (no budget) to 86400 (a day)"),
}


# The shortest move_timeout a started bot is served reliably on this project's machine
# (docs/leagues.md, "Time limits"): one decision's round trip to a Python bot over gRPC
# on loopback takes about 1 ms on an idle core, but a league runs a worker per core
# beside the bots, and a core busy with another process can keep a bot from running for
# tens of milliseconds. Below this floor an honest bot collects timeouts it did not
# cause, so a shorter limit is warned about (not refused: a test of timeouts may want it).
MOVE_TIMEOUT_FLOOR = 0.05


def move_timeout_warning(value: float, source: str) -> str | None:
    """One line to print when `value` (from `source`: `--move-timeout`, or the league
    file's `[limits] move_timeout`) is below MOVE_TIMEOUT_FLOOR, else None."""
    if value >= MOVE_TIMEOUT_FLOOR:
        return None
    return (
        f"warning: {source} {value:g} s is below {MOVE_TIMEOUT_FLOOR:g} s, the shortest "
        "decision time this arena serves reliably: an honest bot will time out through no "
        "fault of its own when another process holds its core (docs/leagues.md, \"Time "
        f"limits\"); give {MOVE_TIMEOUT_FLOOR:g} or more"
    )


# The default per-game thinking budget (docs/leagues.md, "Time limits", has the
# measurements): the sampler at its default 200 ms a decision thought 42.4 s and 44.3 s
# in two Trix games of 4 kingdoms (282 and 270 decisions), the greedy, random and
# JavaScript sample bots 0.2 to 0.35 s; a bot that answers just inside move_timeout =
# 1.0 on each of its ~280 decisions thinks about 270 s. 120 s leaves the sampler more
# than 2.5 times its need (a machine twice as busy included) and cuts the slow bot's
# game to about 2 minutes of its thinking; a Trianon game asks about a quarter as many.
DEFAULT_GAME_TIME = 120.0


class Clock(StrEnum):
    """What a decision's time limit is on: the wall clock, or the bot's CPU time."""

    WALL = "wall"
    CPU = "cpu"


CLOCKS = tuple(Clock)
CPU_WALL_CAP = 3.0  # with clock = "cpu", a decision's wall time is capped at this x its limit


def number_problem(value: object, low: float, high: float, what: str) -> str | None:
    """`must be WHAT; got VALUE` when `value` is not a finite int or float (never a bool)
    from `low` to `high`; None when it is. One check for every bounded number a user
    gives (league keys and CLI flags), so NaN and infinity are refused everywhere."""
    ok = (  # NaN fails every comparison and infinity the bounds: both are refused
        isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high
    )
    return None if ok else f"must be {what}; got {reprlib.repr(value)}"


def seconds_problem(key: str, value: object) -> str | None:
    """What is wrong with `value` as the time limit `key` (`move_timeout`,
    `startup_timeout` or `time_bank`), or None: see `SECONDS_RANGES`."""
    low, high, what = SECONDS_RANGES[key]
    return number_problem(value, low, high, what)


@dataclass(frozen=True)
class RemoteSettings:
    """Limits for one external bot: the one definition behind a league file's
    `[limits]` (`arena.league.definition.config.Limits` adds the league's own) and the
    CLI's options."""

    move_timeout: float = 1.0  # seconds for each decision
    startup_timeout: float = 10.0  # seconds from launch to a completed handshake
    time_bank: float = 0.0  # seconds per game a bot may overrun move_timeout by, in all
    transport: TransportKind = TransportKind.STREAM
    # Seconds a bot may think in one game, in all (0: no such budget). With it, a bot
    # that takes nearly its whole move_timeout on every decision cannot make a game last
    # decisions x move_timeout: once its budget is spent, its seat plays fallback moves.
    game_time: float = DEFAULT_GAME_TIME
    # What a decision's limit is on: "wall", the time until its answer, or "cpu", the
    # CPU time its bot used for it (its cgroup's), with the wall time capped at
    # CPU_WALL_CAP x the limit so that a bot that sleeps still times out. Where the bot
    # has no cgroup, "cpu" falls back to the wall clock.
    clock: Clock = Clock.WALL

    def __post_init__(self) -> None:
        """Refuse a limit out of its range (ConfigError naming the key and its flag),
        before any bot is started."""
        object.__setattr__(self, "transport", TransportKind(self.transport))
        if self.clock not in CLOCKS:
            choices = ", ".join(CLOCKS)
            raise ConfigError(f"clock (--clock) must be one of {choices}; got {self.clock!r}")
        object.__setattr__(self, "clock", Clock(self.clock))
        for key in SECONDS_RANGES:
            problem = seconds_problem(key, getattr(self, key))
            if problem:
                flag = "--" + key.replace("_", "-")
                raise ConfigError(f"{key} ({flag}) {problem}")


def remote_settings(limits: RemoteSettings) -> RemoteSettings:
    """Just the bot limits of `limits` (a league's `Limits` holds more)."""
    return RemoteSettings(**{f.name: getattr(limits, f.name) for f in fields(RemoteSettings)})
