"""Fills /dev/shm and /tmp without bound, reports where each was stopped (both are
small private filesystems that vanish with the bot), and fails the decision with the
last error (expected fault: crash)."""

import os

from _common import report, serve

BLOCK = b"\0" * (1 << 20)


def fill(request):
    for folder in ("/dev/shm", "/tmp"):
        path = os.path.join(folder, "arena-hostile-fill")
        written = 0
        try:
            with open(path, "wb") as f:
                for _ in range(100_000):  # bounded: 100 GB
                    f.write(BLOCK)
                    f.flush()
                    written += 1
            report(f"{folder} never stopped")
        except OSError as err:
            report(f"{folder} stopped at {written} MB by {err.strerror}")
            if folder == "/tmp":
                raise


serve(fill)
