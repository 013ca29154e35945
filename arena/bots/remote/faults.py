"""What a failed exchange with an external bot is charged as, in one place.

A bot controls everything it sends, the status it ends a call with included, so a
status alone proves nothing: a timeout is one only when the referee's own clock says
the time is up, an oversize only when gRPC's own size check on the referee's side
refused the message. A bot that went away is a crash, which the player answers by
restarting it (`arena.bots.remote.player`); everything else is a protocol fault that
names what came back (docs/protocol.md, "Faults").
"""

from __future__ import annotations

import time
from collections.abc import Collection

import grpc

from arena.bots.remote.channel import rpc_text
from arena.bots.remote.settings import RemoteSettings
from arena.play.faults import BotFault, FaultKind
from arena.wire.protocol import MAX_REPLY_BYTES
from arena.wire.v1 import bot_pb2 as pb

CLOCK_SLACK = 0.005  # gRPC's deadline and time.monotonic may differ by this much
GRPC_TOO_LARGE = "CLIENT: Received message larger than max"  # gRPC's own check's text
FROM_A_LIVE_BOT = "from a running bot"  # what a crash fault expected (docs: "Faults")


def timeout(settings: RemoteSettings, bank: float, got: str = "") -> BotFault:
    """The decision's time is up: no answer (the call cancelled), or `got` too late."""
    limit = settings.move_timeout + bank
    bank_part = " + time bank" if settings.time_bank else ""
    within = f"within {limit:.3f} s (move_timeout{bank_part})"
    detail = (
        f"no answer within {limit:.3f} s (move_timeout {settings.move_timeout} s"
        + (f" + time bank {bank:.3f} s" if settings.time_bank else "")
        + "); a late answer is discarded"
    )
    got = got or f"no answer; the call was cancelled after {limit:.3f} s"
    return BotFault(FaultKind.TIMEOUT, detail, expected=within, got=got)


def cpu_timeout(settings: RemoteSettings, bank: float, used: float) -> BotFault:
    """With clock = "cpu": the bot used more CPU time on the decision than its limit."""
    limit = settings.move_timeout + bank
    detail = (
        f"used {used:.3f} s of CPU time on the decision, more than its {limit:.3f} s "
        "(clock = cpu: move_timeout is on the bot's own CPU time); the call was cancelled"
    )
    within = f"within {limit:.3f} s of CPU time (clock = cpu)"
    return BotFault(
        FaultKind.TIMEOUT, detail, expected=within, got=f"{used:.3f} s of CPU and no answer"
    )


def _noted(fault: BotFault, note: str, overload: str | None = None) -> BotFault:
    """The same fault with `note` added to its detail (and `overload` set, if given)."""
    why = fault.overload if overload is None else overload
    return BotFault(
        fault.kind, f"{fault.detail}; {note}", expected=fault.expected, got=fault.got, overload=why
    )


def with_cpu(fault: BotFault, cpu: float, wall: float) -> BotFault:
    """A timeout with the bot's own CPU time over the decision, so that its author can
    tell a bot that thought too long from one that waited (a lock, a sleep, a hang)."""
    return _noted(fault, f"the bot used {cpu:.3f} s of CPU in those {wall:.3f} s")


def overloaded(fault: BotFault, why: str) -> BotFault:
    """A timeout the machine caused: the same fault, saying so (its match is played
    again rather than charged to the bot, arena/league/workers/worker.py)."""
    return _noted(fault, f"the machine was overloaded ({why}), not the bot slow", why)


def game_time_up(settings: RemoteSettings, waited: float = 0.0) -> BotFault:
    """The bot has used its whole game_time: this decision (and every one after it in
    the game) is a fallback move. `waited`: how long the last of its budget lasted."""
    spent = f"; its last {waited:.3f} s ran out on this decision" if waited else ""
    detail = (
        f"its game_time of {settings.game_time:g} s for the whole game is used up{spent}: "
        "fallback moves for the rest of the game"
    )
    within = f"within what was left of game_time ({settings.game_time:g} s a game)"
    return BotFault(
        FaultKind.TIMEOUT, detail, expected=within, got="no time left in the game's budget"
    )


def from_status(
    err: grpc.RpcError, deadline: float, settings: RemoteSettings, bank: float, bot_alive: bool
) -> BotFault | None:
    """The fault of a call that ended with a status; None when the bot went away (a
    crash: the caller restarts the bot and charges it)."""
    code = code_of(err)
    text = rpc_text(err)
    status = f"{code.name if code else '?'}: {text}"
    if time.monotonic() >= deadline - CLOCK_SLACK:
        return timeout(settings, bank)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and GRPC_TOO_LARGE in text:
        kib = MAX_REPLY_BYTES // 1024
        return BotFault(
            FaultKind.OVERSIZE,
            f"sent a message over the {kib} KiB limit ({text})",
            expected=f"in a DecisionReply of at most {kib} KiB",
            got=status,
        )
    if code == grpc.StatusCode.UNAVAILABLE or not bot_alive:
        return None
    if code == grpc.StatusCode.UNKNOWN:
        return BotFault(
            FaultKind.CRASH,
            f"the bot failed this decision: {text}",
            expected="from the bot's Decide/Play handler",
            got=status,
        )
    return BotFault(
        FaultKind.PROTOCOL,
        f"ended the call with the status {status} instead of answering",
        expected="in a DecisionReply message",
        got=status,
    )


def code_of(err: grpc.RpcError) -> grpc.StatusCode | None:
    return err.code() if hasattr(err, "code") else None


def not_a_reply(answer: bytes, err: Exception) -> BotFault:
    return BotFault(
        FaultKind.PROTOCOL,
        f"answered {len(answer)} bytes that are not a DecisionReply ({err})",
        expected="in a DecisionReply message",
        got=f"{len(answer)} bytes: {answer[:80]!r}",
    )


def stream_closed() -> BotFault:
    return BotFault(
        FaultKind.PROTOCOL,
        "closed the Play stream instead of answering the decision",
        expected="in a DecisionReply on the open Play stream",
        got="the end of the stream",
    )


def still_busy(fault: BotFault, first: int, seconds: float) -> BotFault:
    """A timeout that followed another with no answer in between: the bot was most
    likely still working on the first (`arena.bots.remote.player`, `_timed_out`)."""
    note = (
        "; likely cause, if the bot answers one decision at a time (as the Python SDK "
        f"does): the bot was still busy with decision {first} when this one was asked "
        f"(decision {first}, asked {seconds:.3f} s before this one, timed out unanswered, "
        "and nothing has come back since)"
    )
    return BotFault(
        fault.kind, fault.detail + note, expected=fault.expected, got=fault.got,
        overload=fault.overload,  # judged overloaded, it stays so with the note
    )  # fmt: skip


def wrong_decision(
    asked: int, reply: pb.DecisionReply, timed_out: Collection[int] = ()
) -> BotFault:
    late = (
        f" (a late answer to decision {reply.decision_id}, which had timed out: the bot "
        "was still busy with it when this one was asked)"
        if reply.decision_id in timed_out
        else ""
    )
    return BotFault(
        FaultKind.PROTOCOL,
        f"answered decision {reply.decision_id} when asked decision {asked}{late}: "
        "echo DecisionRequest.decision_id in the reply",
        expected=f"in a DecisionReply with decision_id {asked}",
        got=f"decision_id {reply.decision_id}, action {short(reply.action)}",
    )


def not_an_action(game: str, action: pb.Action) -> BotFault:
    return BotFault(
        FaultKind.ILLEGAL,
        f"answered {short(action)}, which is not a {game} action; answer one of the "
        "request's legal actions",
        got=short(action),
    )


def crashed(detail: str, got: str) -> BotFault:
    return BotFault(FaultKind.CRASH, detail, expected=FROM_A_LIVE_BOT, got=got)


MEMORY_LIMIT_HOLDS = {  # what each memory limit holds together (docs/sandbox.md)
    "memory_mb": "for all its processes",
    "entrant_memory_mb": "for all its entrant's processes together",
    "bots_memory_mb": "for all the bots of the run on this machine together",
}


def memory_limit(fault: BotFault, limit: tuple[str, int, bool] | None) -> BotFault:
    """A crash with what caused it when a memory limit did (`limit`: the limit's key,
    its MB, and whether the whole bot ended, or None): a crash's detail names the limit
    rather than leave the author to guess at a SIGKILL or a failed call."""
    if limit is None:
        return fault
    key, memory_mb, whole = limit
    who = "the bot was ended" if whole else "a process of the bot was ended"
    limit_text = f"{key} = {memory_mb}, {MEMORY_LIMIT_HOLDS.get(key, '')}".rstrip(", ")
    return _noted(fault, f"{who} by its memory limit ({limit_text})")


def start_failure(err: Exception, startup_timeout: float) -> BotFault:
    """The bot could not start: every decision of its match is a fallback move."""
    return BotFault(
        FaultKind.START_FAILURE,
        str(err),
        expected=f"from a bot that listens and completes the handshake within {startup_timeout} s "
        "(startup_timeout)",
        got="no bot: " + str(err).splitlines()[0],
    )


def short(action: pb.Action) -> str:
    """An Action as one short line, for a fault's detail."""
    text = str(action).replace("\n", " ").strip()
    return (text[:120] + "...") if len(text) > 120 else (text or "an empty action")
