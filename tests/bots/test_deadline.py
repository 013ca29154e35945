"""The per-bot decision deadline (arena.bots.deadline): one timer per bot, not one per
decision, and a wait past its decision's deadline cancelled at that deadline, never
before it. The timeouts of real bot processes are in test_remote_bots.py."""

from __future__ import annotations

import asyncio

import pytest

from arena.bots.deadline import DecisionDeadline


def _counting_call_at(loop: asyncio.AbstractEventLoop) -> list[float]:
    """Record every timer a DecisionDeadline asks the loop for (asyncio.sleep's own
    timers go through call_at too, and are left out)."""
    armed: list[float] = []
    original = loop.call_at

    def call_at(when, callback, *args, **kwargs):
        if isinstance(getattr(callback, "__self__", None), DecisionDeadline):
            armed.append(when)
        return original(when, callback, *args, **kwargs)

    loop.call_at = call_at  # type: ignore[method-assign]
    return armed


def test_answers_before_the_deadline_cost_no_timer_each():
    async def main() -> tuple[int, list[float]]:
        loop = asyncio.get_running_loop()
        armed = _counting_call_at(loop)
        clock = DecisionDeadline()
        expired = 0
        for _ in range(500):
            clock.start(loop.time() + 30.0)
            await asyncio.sleep(0)  # the answer comes at once
            expired += clock.finish()
        clock.close()
        return expired, armed

    expired, armed = asyncio.run(main())
    assert expired == 0
    assert len(armed) == 1  # armed by the first decision, then left alone


def test_a_wait_past_its_deadline_is_cancelled_and_reported_as_expired():
    async def main() -> tuple[bool, float, float, int]:
        loop = asyncio.get_running_loop()
        clock = DecisionDeadline()
        deadline = loop.time() + 0.05
        clock.start(deadline)
        try:
            await asyncio.sleep(5)  # a bot that never answers
            raise AssertionError("the deadline did not end the wait")
        except asyncio.CancelledError:
            expired = clock.finish()
        still_cancelling = asyncio.current_task().cancelling()
        return expired, loop.time(), deadline, still_cancelling

    expired, ended, deadline, still_cancelling = asyncio.run(main())
    assert expired
    assert ended >= deadline
    assert still_cancelling == 0  # withdrawn: the task goes on with the next decision


def test_a_timer_armed_for_an_earlier_decision_does_not_cut_a_later_one_short():
    async def main() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        clock = DecisionDeadline()
        clock.start(loop.time() + 0.02)  # armed here
        assert not clock.finish()
        later = loop.time() + 0.15
        clock.start(later)  # the timer still points at the first deadline
        with pytest.raises(asyncio.CancelledError):
            await asyncio.sleep(5)
        assert clock.finish()
        return loop.time(), later

    ended, later = asyncio.run(main())
    assert ended >= later


def test_a_later_decision_with_an_earlier_deadline_arms_the_timer_again():
    async def main() -> bool:
        loop = asyncio.get_running_loop()
        clock = DecisionDeadline()
        clock.start(loop.time() + 60.0)
        clock.finish()
        clock.start(loop.time() + 0.05)  # a smaller time bank, say
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            return clock.finish()
        return False

    assert asyncio.run(main())


def test_a_cancellation_from_elsewhere_is_not_a_timeout():
    async def main() -> bool:
        loop = asyncio.get_running_loop()
        clock = DecisionDeadline()

        async def waiting() -> bool:
            clock.start(loop.time() + 30.0)
            try:
                await asyncio.sleep(5)
            except asyncio.CancelledError:
                return clock.finish()
            return True

        task = asyncio.create_task(waiting())
        await asyncio.sleep(0.01)
        task.cancel()  # e.g. the referee being stopped
        return await task

    assert asyncio.run(main()) is False


def test_nothing_pending_when_the_timer_fires_leaves_it_unarmed():
    async def main() -> list[float]:
        loop = asyncio.get_running_loop()
        armed = _counting_call_at(loop)
        clock = DecisionDeadline()
        clock.start(loop.time() + 0.02)
        clock.finish()
        await asyncio.sleep(0.06)  # the timer fires with no decision pending
        clock.start(loop.time() + 30.0)  # so the next decision arms it again
        clock.finish()
        clock.close()
        return armed

    assert len(asyncio.run(main())) == 2
