"""`arena check-bot`: a conformance check a bot author can run before entering a league.

The bot plays full games against `builtin:first` bots, with the referee asking it every
decision (forced ones too). The check sets the situations up itself rather than hoping
for them:

- Trix: the first game's seed and the bot's seat are chosen so that the deals alone
  (the other seats play the first legal action, so what happens before the bot's first
  turn in another King's deal does not depend on the bot) put every kind of decision
  to it: it is King of a kingdom (`contract`), holds a card it may expose when another
  King plays King of Hearts or Queens (`expose`), and has no card to lay out at its
  first turn of another King's Trix contract (`pass`). It plays cards in all 20 deals,
  so in every contract.
- Trianon: the others always pass, so the bot is the only bidder: a bot that bids is
  made declarer and asked to raise or keep; a bot that never bids is never asked, and
  the report says so in words.

What was not met is explained, and only the bot's own faults (or a start-up failure)
make the verdict FAIL: a correct bot never fails for coverage.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.confinement.sandbox import Sandbox
from arena.bots.process import run_log_folder
from arena.bots.remote.player import RemotePlayer
from arena.bots.remote.settings import RemoteSettings
from arena.bots.spec import spec_name, started_players
from arena.errors import ConfigError
from arena.games import get_game
from arena.games.base import Game
from arena.play.referee import RefereeSettings, play_game

MAX_GAMES = 4
SEED_SEARCH = 200  # game seeds tried for a Trix first game that meets every kind
OPPONENT = "builtin:first"  # always the first legal action: in Trianon, always "pass"


@dataclass(frozen=True)
class Gap:
    """A kind of decision or a contract the check did not meet, and why."""

    what: str  # "raise", "contract queens"
    why: str
    bot_fault: bool  # whether the bot's own faults are the reason


@dataclass
class CheckReport:
    spec: str
    game: str = "trix"
    name: str = ""  # the name the bot gives in its handshake: its own label, in its log
    plays_as: str = ""  # the name tables, replays and faults give it: from its spec
    version: str = ""
    handshake_seconds: float = 0.0
    games: int = 0
    decisions: int = 0
    latencies: list[float] = field(default_factory=list)
    cpu_latencies: list[float] = field(default_factory=list)  # its own CPU per decision
    faults: Counter[str] = field(default_factory=Counter)
    fault_details: list[str] = field(default_factory=list)
    contracts_seen: set[str] = field(default_factory=set)
    kinds_seen: set[str] = field(default_factory=set)
    contracts_needed: tuple[str, ...] = ()  # the game's labels, when every game plays all
    label_noun: str = "contract"  # what the game calls them (`DealSummary.noun`)
    kinds_needed: tuple[str, ...] = ()
    bids: int = 0  # Trianon: bids the bot made itself (not fallbacks)
    start_error: str = ""
    log_path: str = ""

    @property
    def covered(self) -> bool:
        return (
            set(self.contracts_needed) <= self.contracts_seen
            and set(self.kinds_needed) <= self.kinds_seen
        )

    def gaps(self) -> list[Gap]:
        """What was not met, each with the reason: the bot's faults when it had any,
        otherwise the situation the deals (or the bot's own legal choices) made."""
        missing = [k for k in self.kinds_needed if k not in self.kinds_seen]
        missing += [
            f"{self.label_noun} {c}" for c in self.contracts_needed if c not in self.contracts_seen
        ]
        gaps = []
        for what in missing:
            if self.faults:
                why = (
                    "not met: its faults ("
                    + ", ".join(sorted(self.faults))
                    + ") took decisions that would have led there"
                )
                gaps.append(Gap(what, why, True))
            else:
                # why a kind can go unasked through no fault of the bot, in the game's words
                why = get_game(self.game).unasked.get(what, "")
                if not why or (what == "raise" and self.bids):
                    why = "the games never put it to the bot: not a fault"
                gaps.append(Gap(what, why, False))
        return gaps

    @property
    def clean(self) -> bool:
        """PASS: it started, had no fault, and whatever was not met is not its fault."""
        return (
            not self.start_error
            and not self.faults
            and not any(gap.bot_fault for gap in self.gaps())
        )

    def latency(self, q: float) -> float:
        data = sorted(self.latencies)
        if not data:
            return 0.0
        return data[min(len(data) - 1, int(q * len(data)))]

    def lines(self) -> list[str]:
        out = [f"bot: {self.spec}" + (f" (plays as {self.plays_as!r})" if self.plays_as else "")]
        if self.start_error:
            return out + [f"handshake: FAILED\n{self.start_error}", "verdict: FAIL (start-failure)"]
        out.append(
            f"handshake: ok in {self.handshake_seconds * 1000:.0f} ms, "
            f"name {self.name!r}, version {self.version!r}"
            + (
                ""
                if self.name == self.plays_as
                else " (its own label: tables name it from its spec)"
            )
        )
        out.append(f"played: {self.games} games, {self.decisions} decisions asked")
        if self.latencies:
            median = statistics.median(self.latencies) * 1000
            p95, worst = self.latency(0.95) * 1000, max(self.latencies) * 1000
            out.append(
                f"latency (wall): median {median:.2f} ms, p95 {p95:.2f} ms, max {worst:.2f} ms"
            )
        if self.cpu_latencies:
            cpu = sorted(self.cpu_latencies)
            median, worst = statistics.median(cpu) * 1000, cpu[-1] * 1000
            p95 = cpu[min(len(cpu) - 1, int(0.95 * len(cpu)))] * 1000
            out.append(
                f"think time (the bot's CPU): median {median:.2f} ms, p95 {p95:.2f} ms, "
                f"max {worst:.2f} ms"
            )
        gaps = self.gaps()
        missing_c = [c for c in self.contracts_needed if c not in self.contracts_seen]
        missing_k = [k for k in self.kinds_needed if k not in self.kinds_seen]
        parts = [f"{self.label_noun}s {_listed(missing_c)}"] if self.contracts_needed else []
        parts.append(f"decision kinds {_listed(missing_k)}")
        out.append("coverage: " + "; ".join(parts))
        out += [f"  - {gap.what}: {gap.why}" for gap in gaps]
        if self.faults:
            out.append("faults: " + ", ".join(f"{k} x{n}" for k, n in sorted(self.faults.items())))
            out += [f"  - {d}" for d in self.fault_details[:10]]
            if len(self.fault_details) > 10:
                out.append(f"  ... and {len(self.fault_details) - 10} more")
        else:
            out.append("faults: none")
        if self.log_path:
            out.append(f"log: {self.log_path}")
        out.append("verdict: " + ("PASS" if self.clean else "FAIL"))
        return out


def _listed(missing: list[str]) -> str:
    return "missing " + ", ".join(missing) if missing else "all"


def check_bot(
    spec: str,
    game_name: str = "trix",
    *,
    settings: RemoteSettings | None = None,
    log_dir: Path | None = None,
    seed: str = "check",
    sandbox: Sandbox | None = None,
    base_dir: Path | None = None,
) -> CheckReport:
    """Run the conformance check; never raises for anything the bot does. A built-in
    bot is refused (ConfigError): it is not asked over the protocol, so nothing is checked.
    `base_dir` is the folder the command runs from (its relative paths resolve there, and
    the bot starts there): the current folder when None, as `arena check-bot` runs it;
    a ladder's gate gives the version's own folder."""
    if spec.strip().startswith("builtin:"):
        raise ConfigError(
            f"check-bot checks external bots over the protocol; {spec.strip()!r} is a built-in "
            "bot, which runs inside the referee: give a command (e.g. 'python my_bot.py') "
            "or grpc:HOST:PORT"
        )
    game = get_game(game_name)
    options = game.parse_options({})
    options_dict = game.options_dict(options)
    summary = game.deal_summary
    report = CheckReport(
        spec,
        game=game.name,
        plays_as=spec_name(spec),
        contracts_needed=summary.labels if summary.every_game else (),
        label_noun=summary.noun,
        kinds_needed=tuple(game.decision_kinds),
    )
    specs = [spec] + [OPPONENT] * (game.seats - 1)
    plan = game_plan(game, options, seed)
    log_dir = run_log_folder(log_dir or Path("arena-logs"))  # a folder per check
    started = time.monotonic()
    try:
        with started_players(
            specs,
            game_name,
            options_dict,
            settings=settings,
            log_dir=log_dir,
            base_dir=base_dir,
            sandbox=sandbox,
        ) as players:
            report.handshake_seconds = time.monotonic() - started
            bot = players[0]
            report.name = bot.name
            if isinstance(bot, RemotePlayer):
                report.version = bot.version
                report.log_path = str(bot.log_path or "")
            asked = _KindRecorder(bot, report)
            others = players[1:]
            for index, (game_seed, seat) in enumerate(plan):
                seated = [*others[:seat], asked, *others[seat:]]
                result = play_game(
                    game, seated, game_seed, options, settings=RefereeSettings(ask_forced=True)
                )
                report.games += 1
                _account(game, report, result.replay, seat)
                for fault in result.faults:
                    if fault.seat == seat:
                        report.faults[fault.kind] += 1
                        report.fault_details.append(
                            f"game {index + 1} deal {fault.deal} decision {fault.decision}: "
                            f"{fault.kind}: {fault.detail}{fault.log_note()}"
                        )
                if report.covered:
                    break
            if isinstance(bot, RemotePlayer):
                report.latencies = list(bot.latencies)
                report.cpu_latencies = list(bot.cpu_latencies)
            report.decisions = len(report.latencies) + sum(report.faults.values())
    except Exception as err:  # the bot could not be started or refused the handshake
        if report.games:
            raise
        report.start_error = str(err)
    return report


def game_plan(game: Game, options: Any, seed: str) -> list[tuple[str, int]]:
    """The (game seed, bot seat) of each game the check may play, at most MAX_GAMES,
    the bot's seat moving round the table. When the game can tell (Trix), the first is
    the first seed and seat whose deals put every kind of decision to the bot
    (`Game.seat_asked_every_kind`)."""
    plan = [(f"{seed}-{i + 1}", i % game.seats) for i in range(MAX_GAMES)]
    for n in range(1, SEED_SEARCH + 1):
        game_seed = f"{seed}-{n}"
        seat = game.seat_asked_every_kind(game_seed, options)
        if seat is not None:
            others = [s for s, _ in plan if s != game_seed][: MAX_GAMES - 1]
            return [(game_seed, seat)] + [
                (s, (seat + i + 1) % game.seats) for i, s in enumerate(others)
            ]
    return plan


class _KindRecorder:
    """Wraps the bot under test: records each kind of decision it answered legally (the
    kind asked, not the answer's type: a Trianon "raise" decision answered "keep" counts)."""

    def __init__(self, player: Any, report: CheckReport) -> None:
        self._player = player
        self._report = report
        self.name = player.name
        self.wants_notices = player.wants_notices
        self.log_path = getattr(player, "log_path", None)  # the referee names it in faults

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


def _account(game: Game, report: CheckReport, replay: dict, seat: int) -> None:
    """Count the labels the check needs (Trix's contracts) of the deals in which the
    bot itself played a card (not fallback moves), and the bids it made itself."""
    for deal in replay["deals"]:
        label = game.deal_label(deal) if deal["events"] else None
        if label not in report.contracts_needed:
            label = None
        for event in deal["events"]:
            if event["seat"] != seat or "auto" in event:
                continue
            if event["type"] == "play" and label:
                report.contracts_seen.add(label)
            elif event["type"] == "bid":
                report.bids += 1
