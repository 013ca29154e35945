"""Spins the CPU at its decision and never answers (expected fault: timeout)."""

from _common import report, serve


def spin(request):
    report("spinning")
    while True:
        pass


serve(spin)
