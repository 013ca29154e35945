"""Makes a user and mount namespace of its own (unshare CLONE_NEWUSER | CLONE_NEWNS,
in a forked child: the kernel refuses it to a threaded process), where it would be
root over its mounts, mounts a tmpfs there and fills it: memory outside every limit.
Reports whether it was denied, and plays on either way."""

import ctypes
import os
import sys

from _common import report, serve

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
BLOCK = b"\1" * (1 << 20)


def escape(size_mb: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
        report(f"userns denied: {os.strerror(ctypes.get_errno())}")
        return
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"),
                       ("gid_map", f"0 {gid} 1")):  # fmt: skip
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    os.makedirs("/tmp/arena-hostile-ns", exist_ok=True)
    if libc.mount(b"tmpfs", b"/tmp/arena-hostile-ns", b"tmpfs", 0, b"size=100%") != 0:
        report(f"userns mount denied: {os.strerror(ctypes.get_errno())}")
        return
    written = 0
    try:
        with open("/tmp/arena-hostile-ns/fill", "wb") as f:
            for _ in range(size_mb):  # bounded
                f.write(BLOCK)
                written += 1
    except OSError as err:
        report(f"userns tmpfs stopped at {written} MB by {err.strerror}")
        return
    report(f"userns tmpfs held {written} MB")


def attempt(request):
    pid = os.fork()
    if pid == 0:
        try:
            escape(int(sys.argv[1]))
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


serve(attempt)
