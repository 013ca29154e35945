"""Faults: what a bot can be charged with, and how one fault is recorded.

A bot's misbehaviour never stops a game: the referee plays the fallback move and
records a `Fault`. Every layer that names a kind (the referee, the gRPC player, the
league store, `arena faults`) uses `FaultKind`, so a kind cannot be misspelt; its
values are the strings replays and the database hold (docs/protocol.md, "Faults").
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from arena.errors import ArenaError

GOT_LIMIT = 200  # characters of a bot's answer kept in a fault record


class FaultKind(StrEnum):
    """Every kind of fault a bot can be charged with."""

    TIMEOUT = "timeout"  # no answer within the time limit
    CRASH = "crash"  # the process died, or its handler failed the call
    START_FAILURE = "start-failure"  # not started, not listening, or no handshake
    ILLEGAL = "illegal"  # an answer that is not one of the legal actions
    OVERSIZE = "oversize"  # a message over the 64 KiB limit
    PROTOCOL = "protocol"  # anything else that is not a DecisionReply to this decision


FAULT_KINDS: tuple[FaultKind, ...] = tuple(FaultKind)

MAX_FAULTS_MARK = "max-faults"
"""Not a fault: the `auto` mark of the fallback moves played, unasked, for a bot that
already had `max_faults` faults in the game."""


class BotFault(ArenaError):
    """A bot failed one decision; `kind` names the fault as replays and tables show it.

    `expected` and `got` are for the bot's author (`arena faults`): what the referee
    needed besides a legal action (e.g. "within 1.000 s") and what came back instead,
    short. The referee adds the legal actions itself, since only it holds them.
    """

    def __init__(
        self, kind: FaultKind, detail: str, *, expected: str = "", got: str = "", overload: str = ""
    ) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = FaultKind(kind)
        self.detail = detail
        self.expected = expected
        self.got = truncate(got)
        self.overload = overload  # why the machine, not the bot, made it late (a timeout)


def truncate(text: str, limit: int = GOT_LIMIT) -> str:
    """`text` cut to `limit` characters, marked when cut: a bot's answer can be huge."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class Fault:
    """One fault as replays, the league store and `arena faults` keep it.

    Enough for a bot author to find the moment and act: the deal (from 1), `decision`
    (the seat's n-th decision asked in this game, from 1: an external bot saw it as the
    request's decision_id), `event` (the index of the fallback event in the deal's
    replay events), what the referee `expected`, what it `got` (truncated), and the
    bot's `log` file when the referee started the bot.
    """

    seat: int
    deal: int
    kind: FaultKind
    detail: str
    decision: int = 0
    event: int = -1
    expected: str = ""
    got: str = ""
    log: str = ""
    overload: str = ""  # a timeout the machine caused: why (arena/bots/remote/load.py)

    def as_dict(self) -> dict[str, Any]:
        """The replay's fault object: the four original keys first, the others added
        later (the replay format only ever gains keys; `overload` only when set)."""
        extra = {"overload": self.overload} if self.overload else {}
        return {
            "seat": self.seat,
            "deal": self.deal,
            "kind": str(self.kind),
            "detail": self.detail,
            "decision": self.decision,
            "event": self.event,
            "expected": self.expected,
            "got": self.got,
            "log": self.log,
            **extra,
        }

    def log_note(self) -> str:
        """ "; log: PATH" for a fault line, naming the bot's log (relative to the current
        folder when it lies below it, as a user would type it); "" when there is no log
        or the detail names it already (a crash does)."""
        if not self.log:
            return ""
        shown = os.path.relpath(self.log)
        shown = self.log if shown.startswith("..") else shown
        if shown in self.detail or self.log in self.detail:
            return ""
        return f"; log: {shown}"
