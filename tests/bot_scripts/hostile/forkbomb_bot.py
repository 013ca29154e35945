"""Fork-bombs before it listens: a helper process double-forks children that `setsid`
and sleep on, until the process limit stops it. The bomb starves the bot's own threads
too, so the bot may fail to start or to answer; what matters is that the bomb is
stopped, that nothing else suffers, and that every process it made is gone when the
match ends."""

import subprocess
import sys

from _common import serve

BOMB = r"""
import os, sys, time
started = 0
for _ in range(100_000):  # bounded, far above any process limit
    try:
        child = os.fork()
    except OSError as err:
        print(f"HOSTILE fork stopped after {started} by {err.strerror}", flush=True)
        break
    if child == 0:
        os.setsid()
        try:
            if os.fork() == 0:
                time.sleep(3600)
        except OSError:
            time.sleep(3600)  # no room for a grandchild: the child stays instead
        os._exit(0)
    started += 1  # not waited for: an exited child stays a zombie and counts too
else:
    print(f"HOSTILE fork never stopped: {started}", flush=True)
"""


subprocess.run([sys.executable, "-c", BOMB], timeout=30)
serve()
