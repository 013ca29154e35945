"""Every fault line names the bot's log: `arena play`'s, check-bot's (`Fault.log_note`)."""

from __future__ import annotations

import os
from pathlib import Path

from arena.play.faults import Fault, FaultKind


def test_a_fault_line_names_the_log_relative_to_here_when_below_it(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    log = tmp_path / "arena-logs" / "seat0-python-bot.py.log"
    fault = Fault(0, 1, FaultKind.ILLEGAL, "answered ZZ", decision=3, log=str(log))
    assert fault.log_note() == "; log: arena-logs/seat0-python-bot.py.log"
    elsewhere = Fault(0, 1, FaultKind.TIMEOUT, "no answer", log="/var/tmp/x.log")
    assert elsewhere.log_note() == "; log: /var/tmp/x.log"


def test_no_note_without_a_log_or_when_the_detail_names_it(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert Fault(0, 1, FaultKind.ILLEGAL, "answered ZZ").log_note() == ""
    log = str(tmp_path / "logs" / "b.log")
    relative = os.path.relpath(log)
    crash = Fault(0, 1, FaultKind.CRASH, f"the bot process exited; log: {relative}", log=log)
    assert crash.log_note() == ""
    absolute = Fault(0, 1, FaultKind.CRASH, f"exited; log: {log}", log=log)
    assert absolute.log_note() == "" and Path(log).is_absolute()
