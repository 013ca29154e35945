"""Issue 27 finding 11: under a hard `ulimit -v` below 4096 MiB, a league file that
does not set address_space_mb is accepted (the default is lowered to the limit the
arena runs under, and the run says so), while a value the file gives above the limit
is still refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.tiny_league import tiny_file

PROBE = """
import sys
from arena.bots.confinement.sandbox import fitted_notes
from arena.errors import ConfigError
from arena.league.definition.config import load_league
try:
    config = load_league(sys.argv[1])
except ConfigError as err:
    print("refused:", err)
else:
    print(config.limits.bot.address_space_mb, config.limits.bot.memory_mb)
    print(*fitted_notes(config.limits.bot), sep="\\n")
"""


def _under_ulimit(league: Path, kib: int) -> str:
    done = subprocess.run(
        ["bash", "-c", f'ulimit -v {kib} && exec "$0" -c "$1" "$2"', sys.executable, PROBE,
         str(league)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_finding_11_the_default_address_space_fits_the_arenas_own_limit(tmp_path: Path) -> None:
    league = tiny_file(tmp_path)
    out = _under_ulimit(league, 3_000_000).splitlines()
    assert out[0] == "2929 1024"  # 3,000,000 KiB is 2929 MiB
    assert "address_space_mb is 2929 here, not its default 4096" in out[1]


def test_finding_11_a_given_address_space_above_the_limit_is_still_refused(tmp_path: Path) -> None:
    league = tiny_file(tmp_path)
    league.write_text(league.read_text() + "\n[limits]\naddress_space_mb = 4096\n")
    out = _under_ulimit(league, 3_000_000)
    assert out.startswith("refused:") and "address_space_mb must be at most 2929" in out
