"""Ctrl-C and SIGTERM, remembered until a command acts on them.

Python's own SIGINT handler raises KeyboardInterrupt wherever the main thread happens
to be. When that is a weakref callback or an object's finaliser (the garbage collector
runs them at any moment), the exception is printed as "Exception ignored in ..." and
dropped, and a duel or a league plays on as if nothing had been asked. The handler
here raises it just the same, and also remembers the request; the long loops call
`check()` at their safe points (between games, pairs and matches), so an interrupt
that was dropped is raised again there and never lost.
"""

from __future__ import annotations

import signal
from types import FrameType

_requested = False


def _handler(signum: int, frame: FrameType | None) -> None:
    global _requested
    _requested = True
    raise KeyboardInterrupt


def install() -> None:
    """Make Ctrl-C (SIGINT) and SIGTERM end a command alike, remembered (the command
    line's entry point calls it; SIGTERM ends every bot the command started, as Ctrl-C
    does)."""
    signal.signal(signal.SIGINT, _handler)
    signal.signal(signal.SIGTERM, _handler)


def requested() -> bool:
    """Whether Ctrl-C or SIGTERM came since `install` (or the last `clear`)."""
    return _requested


def check() -> None:
    """Raise KeyboardInterrupt when an interrupt came and was not acted on: a loop's
    safe point."""
    if _requested:
        raise KeyboardInterrupt


def clear() -> None:
    """Forget an interrupt that was acted on (for callers that go on afterwards)."""
    global _requested
    _requested = False
