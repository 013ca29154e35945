"""The cgroup counters the referee reads around every decision
(arena/bots/confinement/cgroups.py): read from the files' own text, v1 and v2."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.bots.confinement.cgroups import BotCgroup, Hierarchy

V1_STAT = b"nr_periods 10\nnr_throttled 2\nthrottled_time 1500000000\nnr_bursts 0\nburst_time 0\n"
V2_STAT = (
    b"usage_usec 900\nuser_usec 600\nsystem_usec 300\nnr_periods 4\nnr_throttled 1\n"
    b"throttled_usec 250000\nnr_bursts 0\nburst_usec 0"  # no newline at its end
)


def _cgroup(tmp_path: Path, version: int, texts: list[bytes]) -> BotCgroup:
    """A BotCgroup whose cpu.stat files (its own, then its group's) hold `texts`."""
    made = BotCgroup(Hierarchy(version, {"cpu": tmp_path}), "bot")
    fds = []
    for i, text in enumerate(texts):
        path = tmp_path / f"cpu{i}.stat"
        path.write_bytes(text)
        fds.append(os.open(path, os.O_RDONLY))
    made._stat_fds = fds
    return made


@pytest.mark.parametrize(
    ("version", "texts", "seconds"),
    [
        (1, [V1_STAT], 1.5),
        (2, [V2_STAT], 0.25),
        (1, [V1_STAT, V1_STAT.replace(b"1500000000", b"500000000")], 2.0),  # bot + group
        (2, [b"usage_usec 900\nnr_periods 0\n"], None),  # no throttled line: not known
    ],
)
def test_a_bots_throttled_time_is_read_from_its_cpu_stat(
    tmp_path: Path, version: int, texts: list[bytes], seconds: float | None
) -> None:
    made = _cgroup(tmp_path, version, texts)
    try:
        assert made.throttled_seconds() == seconds
    finally:
        for fd in made._stat_fds or []:
            os.close(fd)
