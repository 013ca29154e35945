"""Allocates heap memory without bound until the memory limit stops it, reports where,
and fails the decision with the MemoryError (expected fault: crash)."""

from _common import report, serve

CHUNK = 32 << 20


def hog(request):
    held = []
    try:
        for _ in range(10_000):  # bounded: 320 GB, far above any limit
            held.append(bytearray(CHUNK))
        report("heap never stopped")
    except MemoryError:
        size = len(held) * CHUNK >> 20
        held.clear()
        report(f"heap stopped at {size} MB")
        raise


serve(hog)
