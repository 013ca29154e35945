"""Issue 27 findings 1 and 7: `arena report --out` writes only its own files (anything
else in the folder is kept; a folder it cannot own is refused), an unwritable --out
is an `error:` line, and `arena replay` of an id of any size answers without a
traceback."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from tests.support.tiny_league import tiny_db

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return tiny_db(tmp_path_factory.mktemp("report"))


def _report(db: Path, out: Path):
    return runner.invoke(app, ["report", "--db", str(db), "--out", str(out)])


def test_finding_1_a_report_keeps_everything_it_did_not_write(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert _report(db, out).exit_code == 0
    (out / ".git").mkdir()
    (out / ".git" / "HEAD").write_text("ref: refs/heads/gh-pages\n")
    (out / "CNAME").write_text("arena.example.org\n")
    (out / "notes").mkdir()
    (out / "notes" / "mine.txt").write_text("keep me")
    (out / "game-999999.html").write_text("an old page of an earlier report")
    marker = out / ".arena-report"
    marker.write_text(marker.read_text() + "game-999999.html\n")  # as if it wrote it
    again = _report(db, out)
    assert again.exit_code == 0, again.output
    assert (out / ".git" / "HEAD").read_text() == "ref: refs/heads/gh-pages\n"
    assert (out / "CNAME").read_text() == "arena.example.org\n"
    assert (out / "notes" / "mine.txt").read_text() == "keep me"
    assert not (out / "game-999999.html").exists()  # its own stale page is gone
    assert (out / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no build folder left


def test_finding_1_a_folder_it_cannot_own_is_refused(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "pages"
    out.mkdir()
    (out / "CNAME").write_text("x\n")
    result = _report(db, out)
    assert result.exit_code == 2 and "is not a report that `arena report` wrote" in result.output
    assert [p.name for p in out.iterdir()] == ["CNAME"]
    a_file = tmp_path / "file"
    a_file.write_text("mine")
    result = _report(db, a_file)
    assert result.exit_code == 2 and "is a file, not a folder" in result.output
    assert a_file.read_text() == "mine"


def test_finding_7_an_unwritable_out_is_an_error_line(db: Path, tmp_path: Path) -> None:
    """Root writes anywhere, so the place is made unwritable by a read-only mount
    (bubblewrap, which `make sandbox-tools` installs)."""
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap is missing: `make sandbox-tools` installs it")
    folder = tmp_path / "closed"
    folder.mkdir()
    code = (
        "import sys; from arena.cli import app; sys.argv=['arena','report','--db',"
        f"{str(db)!r},'--out',{str(folder / 'site')!r}]; app()"
    )
    probe = subprocess.run(["bwrap", "--bind", "/", "/", "--ro-bind", str(folder), str(folder),
                            "--dev", "/dev", sys.executable, "-c", code],
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    assert probe.returncode == 2, probe.stderr
    assert probe.stderr.startswith("error: cannot write the report to --out")
    assert "Traceback" not in probe.stderr
    too_long = _report(db, tmp_path / ("x" * 5000))
    assert too_long.exit_code == 2 and "more than 4096" in too_long.output


@pytest.mark.parametrize("game_id", ["99999999999999999999999", "-1", "0", "9" * 400])
def test_finding_7_replay_of_an_id_of_any_size(db: Path, game_id: str) -> None:
    result = runner.invoke(app, ["replay", "--db", str(db), "--", game_id])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and result.output.startswith("error:")
