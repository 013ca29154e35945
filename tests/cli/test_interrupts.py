"""An interrupt is never lost: where Python drops the KeyboardInterrupt of Ctrl-C (it
was raised inside a weakref callback or a finaliser, "Exception ignored in ..."), the
next safe point of a long loop raises it again (arena/interrupts.py). A duel once
played on after Ctrl-C for exactly this reason."""

from __future__ import annotations

import subprocess
import sys
import textwrap

DROPPED = textwrap.dedent(
    """
    import os, signal, weakref
    from arena import interrupts
    {install}

    class Thing:
        pass

    def collected(ref):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C arrives while the callback runs
        for _ in range(1000):  # the handler runs here, inside the callback
            pass

    thing = Thing()
    ref = weakref.ref(thing, collected)
    del thing
    print("played on after Ctrl-C")
    try:
        interrupts.check()
        print("check: nothing")
    except KeyboardInterrupt:
        print("check: raised")
    """
)


def _run(install: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", DROPPED.format(install=install)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_a_dropped_ctrl_c_is_raised_again_at_the_next_safe_point() -> None:
    done = _run("interrupts.install()")
    assert "Exception ignored in" in done.stderr and "KeyboardInterrupt" in done.stderr
    assert done.stdout.splitlines() == ["played on after Ctrl-C", "check: raised"]


def test_without_the_handler_the_interrupt_is_lost_which_is_why_it_exists() -> None:
    done = _run("signal.signal(signal.SIGINT, signal.default_int_handler)")
    assert "Exception ignored in" in done.stderr
    assert done.stdout.splitlines() == ["played on after Ctrl-C", "check: nothing"]


def test_sigterm_is_remembered_as_ctrl_c_is() -> None:
    code = (
        "import os, signal\nfrom arena import interrupts\ninterrupts.install()\n"
        "try:\n    os.kill(os.getpid(), signal.SIGTERM)\n    for _ in range(10**6): pass\n"
        "except KeyboardInterrupt:\n    print('interrupted', interrupts.requested())\n"
        "interrupts.clear()\nprint('cleared', interrupts.requested())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.stdout.splitlines() == ["interrupted True", "cleared False"], done.stderr
