"""Forks children that each hold private memory (argv[1] MB each, six of them), more
than the bot's memory limit in all though each is under it per process; reports how
much they held and fails the decision when the limit ended one (expected fault: a
crash that names the memory limit)."""

import mmap
import sys

from _common import hoard, serve, touch


def private(size: int) -> mmap.mmap:
    held = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    touch(held, size)
    return held


serve(lambda request: hoard(private, int(sys.argv[1])))
