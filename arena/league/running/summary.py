"""What a league run did, for the line `arena run` prints and its exit code."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

from arena.league.definition.records import PlayedMatch
from arena.play.faults import FaultKind


@dataclass
class RunSummary:
    """What one `arena run` did: what was scheduled, stored before and played now, why
    it stopped early, and the faults of the matches it played."""

    league: str
    db_path: Path
    scheduled: int
    already_stored: int
    played: int
    stopped_early: str = ""
    interrupted: bool = False
    checked: int = 0  # entrants the pre-flight check started
    broken: list[str] = field(default_factory=list)  # of which could not (--allow-broken)
    faults: dict[str, int] = field(default_factory=dict)  # kind -> count, matches played now
    start_failed: list[str] = field(default_factory=list)  # entrants charged start-failures now

    def describe(self) -> str:
        """The line `arena run` prints before the table."""
        return (
            f"league {self.league!r}: {self.played} matches played now, "
            f"{self.already_stored} were stored before, {self.scheduled} scheduled"
            + (f"; stopped early: {self.stopped_early}" if self.stopped_early else "")
            + f" (database {self.db_path})"
        )

    @property
    def start_failures(self) -> int:
        """`start-failure` faults in the matches played now."""
        return self.faults.get(FaultKind.START_FAILURE, 0)

    def add_faults(self, played: PlayedMatch) -> None:
        """Count the faults of a match just played, by kind, and who failed to start."""
        for game in played.games:
            for fault in game.faults():
                self.faults[fault.kind] = self.faults.get(fault.kind, 0) + 1
                entrant = fault.entrant
                if fault.kind == FaultKind.START_FAILURE and entrant not in self.start_failed:
                    self.start_failed.append(entrant)

    def fault_problem(self, any_fault: bool = False) -> str:
        """Why `arena run` ends with a non-zero exit code though every match was played
        and stored: start-failures in the matches played now (always), or any fault
        there (`any_fault`, from --fail-on-fault); "" when there is none."""
        total = sum(self.faults.values())
        where = (
            f"in the {self.played} matches played now (`arena faults --db "
            f"{shlex.quote(str(self.db_path))} --league {shlex.quote(self.league)}` shows each"
        )
        if self.start_failures:
            return (
                f"{_count(self.start_failures, 'start-failure fault')} {where}, with its log): "
                f"{', '.join(self.start_failed)} could not start"
            )
        if any_fault and total:
            kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(self.faults.items()))
            return f"{_count(total, 'fault')} ({kinds}) {where})"
        return ""


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")
