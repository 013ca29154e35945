"""One bot's decision deadline, kept without a timer per decision.

`asyncio.timeout_at` puts a timer into the event loop's heap for every decision and takes
it out again when the answer comes, a few hundred microseconds later. Measured on this
project's 2-core machine, that was 20-30 us of the referee's CPU per decision, about 7%
of it. A bot almost always answers long before its deadline, so `DecisionDeadline` keeps
one timer per bot instead: armed at the deadline of a decision, and when it fires it
looks at the decision pending then. Past that decision's deadline, the task waiting for
the answer is cancelled (as `asyncio.timeout_at` would); before it, the timer is armed
again at that deadline; with nothing pending it stays unarmed until the next decision.
So it fires about once per `move_timeout` while a bot plays, and a decision costs two
attribute writes.
"""

from __future__ import annotations

import asyncio


class DecisionDeadline:
    """Cancels the task waiting on a decision once the decision's deadline has passed.

    Use: `start(deadline)` from the waiting task, then `finish()` when the wait ended,
    however it ended; `finish()` says whether the deadline cancelled the task (the
    caller then raises its own timeout fault in place of the CancelledError). Deadlines
    are on the event loop's clock, `time.monotonic`.
    """

    __slots__ = ("_deadline", "_loop", "_task", "_timer", "_timer_at", "_expired")

    def __init__(self) -> None:
        self._deadline = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self._expired = False

    def start(self, deadline: float) -> None:
        """Watch the current task until `finish`, against `deadline`."""
        self._task = asyncio.current_task()
        self._deadline = deadline
        self._expired = False
        if (
            self._timer is None
            or self._timer_at > deadline
            or self._loop is not self._task.get_loop()
        ):
            self._arm(deadline)

    def finish(self) -> bool:
        """Stop watching; True when the deadline passed and cancelled the task (its
        cancellation is withdrawn here, as `asyncio.timeout` withdraws its own)."""
        task, self._task = self._task, None
        if self._expired and task is not None:
            self._expired = False
            task.uncancel()
            return True
        return False

    def close(self) -> None:
        """Take the timer out of the loop (the bot is done with)."""
        self._task = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        assert self._task is not None
        self._loop = self._task.get_loop()
        self._timer = self._loop.call_at(when, self._fire)
        self._timer_at = when

    def _fire(self) -> None:
        self._timer = None
        task = self._task
        if task is None or task.done():
            return  # nothing pending: armed again by the next decision
        assert self._loop is not None
        if self._loop.time() >= self._deadline:
            self._expired = True
            task.cancel()
        else:
            self._arm(self._deadline)
