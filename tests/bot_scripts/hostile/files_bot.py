"""Opens files without bound until the open-files limit stops it, reports where, and
fails the decision with the error (expected fault: crash)."""

import os

from _common import report, serve


def hoard(request):
    held = []
    try:
        for _ in range(1_000_000):  # bounded
            held.append(os.open("/dev/null", os.O_RDONLY))
        report("open never stopped")
    except OSError as err:
        for fd in held:
            os.close(fd)
        report(f"open stopped at {len(held)} by {err.strerror}")
        raise


serve(hoard)
