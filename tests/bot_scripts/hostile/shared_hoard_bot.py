"""Forks children that each map and touch shared anonymous memory (mmap MAP_SHARED |
MAP_ANONYMOUS, argv[1] MB each): pages no per-process data limit counts. Reports what
they held and fails the decision when the memory limit ended one (expected fault: a
crash that names the memory limit)."""

import mmap
import sys

from _common import hoard, serve, touch


def shared(size: int) -> mmap.mmap:
    held = mmap.mmap(-1, size, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    touch(held, size)
    return held


serve(lambda request: hoard(shared, int(sys.argv[1])))
