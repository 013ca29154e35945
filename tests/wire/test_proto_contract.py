"""The protocol's breaking-change check bites (`make proto-check`, protos/buf.yaml).

Each test copies protos/ to a temporary folder, changes the copy's bot.proto the way a
careless edit would (a field removed, renumbered, retyped) and runs `buf breaking`
against the checked-in baseline, protos/arena-v1.image.json: buf must refuse the change
and name it. The unchanged copy must pass `buf lint` and `buf breaking`, so that each
refusal comes from its edit alone.

buf is the one protos/package.json pins, installed by `make test` (npm ci --prefix
protos). Without it these tests fail: they are the proof that a check of `make test`
works, so they never skip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROTOS = ROOT / "protos"
BUF = PROTOS / "node_modules" / ".bin" / "buf"
BASELINE = PROTOS / "arena-v1.image.json"
PROTO = Path("arena") / "v1" / "bot.proto"
BUF_TIMEOUT_S = 120  # one buf run takes well under a second; this is for a stalled one


def installed_buf() -> Path:
    """The pinned buf; a test that needs it fails (is not skipped, nor an error) without."""
    if not (BUF.is_file() and os.access(BUF, os.X_OK)):
        pytest.fail(
            f"buf is not installed at {BUF.relative_to(ROOT)}: "
            "run make test (it installs buf with npm ci --prefix protos)",
            pytrace=False,
        )
    return BUF


def run_buf(buf: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(buf), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=BUF_TIMEOUT_S,
        check=False,
    )


def copy_protos(tmp_path: Path) -> Path:
    """protos/ without its node_modules: the module, its buf.yaml and the baseline."""
    copy = tmp_path / "protos"
    shutil.copytree(PROTOS, copy, ignore=shutil.ignore_patterns("node_modules"))
    return copy


def edit_message(protos: Path, message: str, old: str, new: str) -> None:
    """Replace `old`, which must occur once in the body of `message`, with `new`."""
    path = protos / PROTO
    text = path.read_text()
    block = re.search(rf"^message {message} \{{\n.*?^\}}\n", text, re.M | re.S)
    assert block, f"no message {message} in {PROTO}: update this test"
    body = block.group(0)
    assert body.count(old) == 1, f"{old!r} is not once in message {message}: update this test"
    path.write_text(text[: block.start()] + body.replace(old, new) + text[block.end() :])


def test_the_unchanged_proto_passes_lint_and_breaking(tmp_path: Path) -> None:
    buf = installed_buf()
    protos = copy_protos(tmp_path)
    lint = run_buf(buf, "lint", protos)
    assert lint.returncode == 0, f"buf lint failed:\n{lint.stdout}{lint.stderr}"
    breaking = run_buf(buf, "breaking", protos, "--against", BASELINE)
    assert breaking.returncode == 0, f"buf breaking failed:\n{breaking.stdout}{breaking.stderr}"
    assert breaking.stdout == lint.stdout == "", "proto-check prints nothing on success"


@pytest.mark.parametrize(
    ("message", "old", "new", "named"),
    [
        pytest.param(
            "DecisionRequest",
            "  uint64 time_bank_ms = 7;\n",
            "",
            'Previously present field "7" with name "time_bank_ms" on message '
            '"DecisionRequest" was deleted.',
            id="field-removed",
        ),
        pytest.param(
            "DecisionReply",
            "uint64 decision_id = 1;",
            "uint64 decision_id = 3;",
            'Previously present field "1" with name "decision_id" on message '
            '"DecisionReply" was deleted.',
            id="field-renumbered",
        ),
        pytest.param(
            "DecisionRequest",
            "uint32 time_ms = 6;",
            "uint64 time_ms = 6;",
            'Field "6" with name "time_ms" on message "DecisionRequest" changed type '
            'from "uint32" to "uint64".',
            id="field-retyped",
        ),
    ],
)
def test_buf_breaking_refuses_and_names_the_change(
    tmp_path: Path, message: str, old: str, new: str, named: str
) -> None:
    buf = installed_buf()
    protos = copy_protos(tmp_path)
    edit_message(protos, message, old, new)
    result = run_buf(buf, "breaking", protos, "--against", BASELINE)
    output = result.stdout + result.stderr
    assert result.returncode != 0, f"buf breaking let the change through:\n{output}"
    assert named in output, f"buf breaking failed without naming the change:\n{output}"
