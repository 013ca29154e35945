"""Allocates heap memory without bound, reports where it was stopped, frees it and
plays on (no fault: the memory limit stops it)."""

from _common import report, serve

CHUNK = 32 << 20


def hog(request):
    held = []
    try:
        for _ in range(10_000):  # bounded: 320 GB, far above any limit
            held.append(bytearray(CHUNK))
        report("heap never stopped")
    except MemoryError:
        report(f"heap stopped at {len(held) * CHUNK >> 20} MB")
    held.clear()


serve(hog)
