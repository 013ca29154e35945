"""Progress of a league run: a live bar on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from arena.league.reports.formats import text_safe
from arena.league.running.schedule_source import RunProgress


class LeagueProgress:
    """Matches done of total, games per minute, time left, and the current leader."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.live = self.console.is_terminal
        self._progress: Progress | None = None
        self._task: Any = None

    def __enter__(self) -> LeagueProgress:
        if self.live:
            self._progress = Progress(
                TextColumn("[bold]matches"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[leader]}", markup=False),  # a name is not markup
                console=self.console,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task("league", total=None, rate="", leader="")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def note(self, text: str) -> None:
        """One line for the user (a notice before the run), above the bar if there is one."""
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def update(self, info: RunProgress) -> None:
        minutes = max(info.elapsed, 1e-9) / 60
        rate = f"{info.games / minutes:.0f} games/min"
        name, rating = info.leader
        leader = f"leader {text_safe(name)} ({rating:.1f})"
        if len(info.workers) > 1:  # the workers that have played so far (a cluster's, or here)
            rate += f" on {len(info.workers)} workers"
        if self._progress is not None:
            self._progress.update(
                self._task, total=info.total, completed=info.done, rate=rate, leader=leader
            )
            return
        done, total = info.done, info.total
        left = info.elapsed / max(1, info.played) * info.remaining
        print(
            f"match {done}/{total} stored, {rate}, about {left:.0f} s left, {leader}",
            file=sys.stderr,
            flush=True,
        )
