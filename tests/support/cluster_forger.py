"""A `dask worker --preload` module that makes its worker forge results, for the test
that the main process refuses them (tests/league/test_cluster.py): every match it plays comes
back with seat 0's total of the first game raised by 100 and its rank made first.

Dask loads a preload module into the worker before it runs a task, and a task's
function is found by name when the task arrives, so replacing
`arena.league.workers.match_task.play_task` here changes what this worker alone returns."""

from __future__ import annotations

import dataclasses

import arena.league.workers.match_task as match_task

_honest = match_task.play_task


def _forged(task, archives=None):  # noqa: ANN001, ANN202 (the task function's own)
    played = _honest(task, archives)
    first = played.games[0]
    replay = dict(first.replay)
    replay["totals"] = [replay["totals"][0] + 100, *replay["totals"][1:]]
    replay["ranks"] = [1, *(max(2, r) for r in replay["ranks"][1:])]
    games = (dataclasses.replace(first, replay=replay), *played.games[1:])
    return dataclasses.replace(played, games=games)


def dask_setup(worker) -> None:  # noqa: ANN001 (Dask's Worker)
    match_task.play_task = _forged
