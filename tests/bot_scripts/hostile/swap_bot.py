"""Offers a link to another bot's socket (argument 1) instead of a socket of its own
(expected fault: start-failure; the other bot must never be reached)."""

import os
import sys
import time

from _common import report

path = os.environ["ARENA_BOT_ADDRESS"].removeprefix("unix:")
os.symlink(sys.argv[1], path)
report(f"linked {path} to {sys.argv[1]}")
time.sleep(3600)
