"""Fills its one writable folder, the socket folder it shares with the referee
(/run/arena), with files of 64 KB blocks; reports where it was stopped and fails the
decision with the error (expected fault: crash)."""

import os

from _common import report, serve

BLOCK = b"\0" * (64 << 10)


def fill(request):
    written = 0
    try:
        for index in range(50):  # bounded: 50 files of at most 4 MB
            with open(os.path.join("/run/arena", f"fill-{index}"), "wb") as f:
                for _ in range(64):
                    f.write(BLOCK)
                    f.flush()
                    written += 64
        report(f"share never stopped: {written} KB")
    except OSError as err:
        report(f"share stopped at {written} KB by {err.strerror}")
        raise


serve(fill)
