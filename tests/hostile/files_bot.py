"""Opens files without bound, reports where it was stopped, closes them and plays on
(no fault: the open-files limit stops it)."""

import os

from _common import report, serve


def hoard(request):
    held = []
    try:
        for _ in range(1_000_000):  # bounded
            held.append(os.open("/dev/null", os.O_RDONLY))
        report("open never stopped")
    except OSError as err:
        report(f"open stopped at {len(held)} by {err.strerror}")
    for fd in held:
        os.close(fd)


serve(hoard)
