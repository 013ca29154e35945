"""The limits of one external bot: the league file's `[limits]`, or the CLI's options."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from arena.errors import ConfigError


class TransportKind(StrEnum):
    """How decisions travel: one Play stream per game, or one Decide call each."""

    STREAM = "stream"
    UNARY = "unary"


@dataclass
class RemoteSettings:
    """Limits for one external bot (league file `[limits]`, CLI options)."""

    move_timeout: float = 1.0  # seconds for each decision
    startup_timeout: float = 10.0  # seconds from launch to a completed handshake
    time_bank: float = 0.0  # seconds per game a bot may overrun move_timeout by, in all
    transport: TransportKind = TransportKind.STREAM

    def __post_init__(self) -> None:
        self.transport = TransportKind(self.transport)
        if self.move_timeout <= 0 or self.startup_timeout <= 0 or self.time_bank < 0:
            raise ConfigError(
                "timeouts must be positive (and the time bank zero or more): "
                f"move_timeout {self.move_timeout}, startup_timeout {self.startup_timeout}, "
                f"time_bank {self.time_bank}"
            )
