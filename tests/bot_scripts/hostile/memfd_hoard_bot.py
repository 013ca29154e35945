"""Forks children that each fill a memfd (memfd_create, ftruncate, touched through a
mapping that is then dropped; argv[1] MB each, in memfds of 16 MB, each under the file
size limit) and keep only its file descriptor,
memory in no process's address space. Reports what they held and fails the decision
when the memory limit ended one (expected fault: a crash that names the memory limit)."""

import mmap
import os
import sys

from _common import hoard, serve, touch

PIECE = 16 << 20  # each memfd under the file size limit (RLIMIT_FSIZE counts memfds)


def memfd(size: int) -> list[int]:
    kept = []
    for _ in range(size // PIECE):
        fd = os.memfd_create("arena-hostile-hoard")
        os.ftruncate(fd, PIECE)
        with mmap.mmap(fd, PIECE) as view:
            touch(view, PIECE)
        kept.append(fd)  # the pages stay in the memfd while the descriptor is open
    return kept


serve(lambda request: hoard(memfd, int(sys.argv[1])))
