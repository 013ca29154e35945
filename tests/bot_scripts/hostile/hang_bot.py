"""Hangs: at its decision it never answers (expected fault: timeout)."""

import time

from _common import serve

serve(lambda request: time.sleep(3600))
