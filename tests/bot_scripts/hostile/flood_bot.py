"""Floods stdout and stderr with 16 MiB each, then plays on (no fault: the log is capped)."""

import sys

from _common import serve

LINE = "x" * 1023 + "\n"


def flood(request):
    for _ in range(16 * 1024):
        sys.stdout.write(LINE)
        sys.stderr.write(LINE)
    sys.stdout.flush()
    sys.stderr.flush()


serve(flood)
