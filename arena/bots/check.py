"""`arena check-bot`: a conformance check a bot author can run before entering a league.

The bot plays full games against built-in bots, seated in turn at every seat, with the
referee asking it every decision (forced ones too), until it has played a deal of every
contract and met every kind of decision. The report gives the handshake, latency,
faults by kind, and a verdict that is clean only with no fault and full coverage.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.remote.player import RemotePlayer
from arena.bots.remote.settings import RemoteSettings
from arena.bots.sandbox import Sandbox
from arena.bots.spec import started_players
from arena.errors import ConfigError
from arena.games import get_game
from arena.play.matches import seatings
from arena.play.referee import RefereeSettings, play_game

MAX_GAMES = 4


@dataclass
class CheckReport:
    spec: str
    name: str = ""
    version: str = ""
    handshake_seconds: float = 0.0
    games: int = 0
    decisions: int = 0
    latencies: list[float] = field(default_factory=list)
    faults: Counter[str] = field(default_factory=Counter)
    fault_details: list[str] = field(default_factory=list)
    contracts_seen: set[str] = field(default_factory=set)
    kinds_seen: set[str] = field(default_factory=set)
    contracts_needed: tuple[str, ...] = ()
    kinds_needed: tuple[str, ...] = ()
    start_error: str = ""
    log_path: str = ""

    @property
    def covered(self) -> bool:
        return (
            set(self.contracts_needed) <= self.contracts_seen
            and set(self.kinds_needed) <= self.kinds_seen
        )

    @property
    def clean(self) -> bool:
        return not self.start_error and not self.faults and self.covered

    def latency(self, q: float) -> float:
        data = sorted(self.latencies)
        if not data:
            return 0.0
        return data[min(len(data) - 1, int(q * len(data)))]

    def lines(self) -> list[str]:
        out = [f"bot: {self.spec}"]
        if self.start_error:
            return out + [f"handshake: FAILED\n{self.start_error}", "verdict: FAIL (start-failure)"]
        out.append(
            f"handshake: ok in {self.handshake_seconds * 1000:.0f} ms, "
            f"name {self.name!r}, version {self.version!r}"
        )
        out.append(f"played: {self.games} games, {self.decisions} decisions asked")
        if self.latencies:
            median = statistics.median(self.latencies) * 1000
            p95, worst = self.latency(0.95) * 1000, max(self.latencies) * 1000
            out.append(f"latency: median {median:.2f} ms, p95 {p95:.2f} ms, max {worst:.2f} ms")
        missing_c = [c for c in self.contracts_needed if c not in self.contracts_seen]
        missing_k = [k for k in self.kinds_needed if k not in self.kinds_seen]
        out.append(
            "coverage: contracts "
            + ("all" if not missing_c else "missing " + ", ".join(missing_c))
            + "; decision kinds "
            + ("all" if not missing_k else "missing " + ", ".join(missing_k))
        )
        if self.faults:
            out.append("faults: " + ", ".join(f"{k} x{n}" for k, n in sorted(self.faults.items())))
            out += [f"  - {d}" for d in self.fault_details[:10]]
        else:
            out.append("faults: none")
        if self.log_path:
            out.append(f"log: {self.log_path}")
        out.append("verdict: " + ("PASS" if self.clean else "FAIL"))
        return out


def check_bot(
    spec: str,
    game_name: str = "trix",
    settings: RemoteSettings | None = None,
    log_dir: Path | None = None,
    seed: str = "check",
    sandbox: Sandbox | None = None,
) -> CheckReport:
    """Run the conformance check; never raises for anything the bot does. A built-in
    bot is refused (ConfigError): it is not asked over the protocol, so nothing is checked."""
    if spec.strip().startswith("builtin:"):
        raise ConfigError(
            f"check-bot checks external bots over the protocol; {spec.strip()!r} is a built-in "
            "bot, which runs inside the referee: give a command (e.g. 'python my_bot.py') "
            "or grpc:HOST:PORT"
        )
    game = get_game(game_name)
    options = game.parse_options({})
    options_dict = game.options_dict(options)
    report = CheckReport(
        spec,
        contracts_needed=tuple(getattr(game, "contracts", ())),
        kinds_needed=tuple(game.decision_kinds),
    )
    specs = [spec] + ["builtin:first"] * (game.seats - 1)  # they pass: the bot gets to declare
    started = time.monotonic()
    try:
        with started_players(
            specs, game_name, options_dict, settings, log_dir, sandbox=sandbox
        ) as players:
            report.handshake_seconds = time.monotonic() - started
            bot = players[0]
            report.name = bot.name
            if isinstance(bot, RemotePlayer):
                report.version = bot.version
                report.log_path = str(bot.log_path or "")
            asked = _KindRecorder(bot, report)
            players = [asked, *players[1:]]
            rounds = seatings(game.seats)
            for index in range(MAX_GAMES):
                order = rounds[index % len(rounds)]  # order[seat] = index in `players`
                seat = order.index(0)
                seated = [players[i] for i in order]
                result = play_game(
                    game, seated, f"{seed}-{index + 1}", options, RefereeSettings(ask_forced=True)
                )
                report.games += 1
                _account(report, result.replay, seat)
                for fault in result.faults:
                    if fault.seat == seat:
                        report.faults[fault.kind] += 1
                        report.fault_details.append(
                            f"game {index + 1} deal {fault.deal}: {fault.kind}: {fault.detail}"
                        )
                if report.covered:
                    break
            if isinstance(bot, RemotePlayer):
                report.latencies = list(bot.latencies)
            report.decisions = len(report.latencies) + sum(report.faults.values())
    except Exception as err:  # the bot could not be started or refused the handshake
        if report.games:
            raise
        report.start_error = str(err)
    return report


class _KindRecorder:
    """Wraps the bot under test: records each kind of decision it answered legally (the
    kind asked, not the answer's type: a Trianon "raise" decision answered "keep" counts)."""

    def __init__(self, player: Any, report: CheckReport) -> None:
        self._player = player
        self._report = report
        self.name = player.name
        self.wants_notices = player.wants_notices

    def start_game(self, start: Any) -> None:
        self._player.start_game(start)

    def act(self, decision: Any) -> Any:
        kind = decision.kind
        action = self._player.act(decision)
        if action in decision.legal:
            self._report.kinds_seen.add(kind)
        return action

    def end_deal(self, seat: int, deal: Any) -> None:
        self._player.end_deal(seat, deal)

    def end_game(self, seat: int, replay: Any) -> None:
        self._player.end_game(seat, replay)


def _account(report: CheckReport, replay: dict, seat: int) -> None:
    """Count the contracts in which the bot itself played a card (not fallback moves)."""
    for deal in replay["deals"]:
        contract = deal["events"][0].get("contract") if deal["events"] else None
        for event in deal["events"]:
            if event["seat"] == seat and "auto" not in event and event["type"] == "play":
                if contract:
                    report.contracts_seen.add(contract)
