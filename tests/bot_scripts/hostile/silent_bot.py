"""Never starts listening (expected fault: start-failure)."""

import time

from _common import report

report("not listening")
time.sleep(3600)
