"""Bots shipped to cluster workers (arena/league/workers/bot_archives.py): a folder packs to the
same bytes every time, its hash names it, a worker unpacks it once, read-only, and
refuses an archive that is not the one its hash names or that reaches outside itself;
and the `[cluster]` table and `--cluster` are checked like every other input."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import stat
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.cli.progress import LeagueProgress
from arena.errors import ConfigError
from arena.league.definition.config import cluster_address_problem, load_league
from arena.league.running.runner import RunProgress
from arena.league.workers.bot_archives import ArchiveError, pack_bots, pack_folder, unpacked


def _folder(root: Path) -> Path:
    bots = root / "bots"
    (bots / "data").mkdir(parents=True)
    (bots / "bot.py").write_text("print('hi')\n")
    (bots / "data" / "weights.txt").write_text("1 2 3\n")
    (bots / "run.sh").write_text("#!/bin/sh\n")
    (bots / "run.sh").chmod(0o755)
    (bots / "__pycache__").mkdir()
    (bots / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0" * 10)
    return bots


def _league(root: Path, bots: list[str], extra: str = "") -> Path:
    text = '[league]\nname = "l"\ngame = "trix"\n' + extra
    for i, bot in enumerate(bots):
        text += f'\n[[entrant]]\nname = "e{i}"\nbot = "{bot}"\n'
    path = root / "league" / "l.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def test_a_folder_packs_to_the_same_bytes_and_a_change_changes_its_hash(tmp_path: Path) -> None:
    bots = _folder(tmp_path)
    first = pack_folder(bots, "e0")
    os.utime(bots / "bot.py", (1, 1))  # times are not packed
    assert pack_folder(bots, "e0") == first
    with tarfile.open(fileobj=io.BytesIO(first)) as tar:
        names = tar.getnames()
    assert "__pycache__" not in " ".join(names) and "data/weights.txt" in names
    (bots / "bot.py").write_text("print('hi!')\n")
    assert pack_folder(bots, "e0") != first


def test_commands_ship_their_folder_and_start_from_it(tmp_path: Path) -> None:
    _folder(tmp_path)
    league = _league(tmp_path, [
        "python ../bots/bot.py --weights ../bots/data/weights.txt --depth 3",
        "../bots/run.sh",
        "python -m arena.strategies.greedy",
        "builtin:random",
    ])  # fmt: skip
    shipped, archives = pack_bots(load_league(league))
    assert sorted(shipped) == ["e0"]  # run.sh is the program, not a file argument
    (digest,) = archives
    assert hashlib.sha256(archives[digest]).hexdigest() == digest == shipped["e0"].digest
    folder = unpacked(digest, archives[digest], tmp_path / "cache")
    assert folder == tmp_path / "cache" / digest
    assert shipped["e0"].spec_in(folder) == (
        f"python {folder}/bot.py --weights {folder}/data/weights.txt --depth 3"
    )
    assert (folder / "data" / "weights.txt").read_text() == "1 2 3\n"
    for path in [folder, *folder.rglob("*")]:
        assert not path.stat().st_mode & 0o222, path  # nobody may write
        assert path.stat().st_mode & stat.S_IROTH, path  # a bot's own user may read
    assert os.access(folder / "run.sh", os.X_OK)
    # a second worker of the machine finds it unpacked: the data is not read again
    assert unpacked(digest, b"", tmp_path / "cache") == folder


def test_an_archive_that_is_not_its_hash_or_reaches_outside_is_refused(tmp_path: Path) -> None:
    data = pack_folder(_folder(tmp_path), "e0")
    with pytest.raises(ArchiveError, match="does not have that hash"):
        unpacked("0" * 64, data, tmp_path / "cache")
    for name, link in (("../escape.txt", None), ("/etc/evil", None), ("link", "../../etc")):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            info = tarfile.TarInfo(name)
            if link:
                info.type, info.linkname = tarfile.SYMTYPE, link
                tar.addfile(info)
            else:
                info.size = 2
                tar.addfile(info, io.BytesIO(b"hi"))
        evil = buffer.getvalue()
        with pytest.raises(ArchiveError, match="outside its folder"):
            unpacked(hashlib.sha256(evil).hexdigest(), evil, tmp_path / "cache")
    assert not (tmp_path / "escape.txt").exists()
    assert [p.name for p in (tmp_path / "cache").iterdir()] == []  # no half-unpacked folder


def test_the_cluster_address_is_checked(tmp_path: Path) -> None:
    for good in ("tcp://127.0.0.1:8786", "tls://sched.example.org:8786", "10.0.0.2:8786",
                 "tcp://[::1]:8786"):  # fmt: skip
        assert cluster_address_problem(good) is None, good
    for bad in ("", "tcp://host", "http://host:80", "tcp://host:0", "tcp://host:99999",
                "tcp://a b:1"):  # fmt: skip
        assert "tcp://HOST:PORT" in cluster_address_problem(bad), bad
    bots = ["builtin:random"] * 4
    league = _league(tmp_path, bots, '\n[cluster]\naddress = "tcp://127.0.0.1:8786"\n')
    assert load_league(league).cluster == "tcp://127.0.0.1:8786"
    bad = _league(tmp_path, bots, '\n[cluster]\naddress = "tcp://nowhere"\n')
    with pytest.raises(ConfigError, match=r"\[cluster\] address must be a Dask scheduler's"):
        load_league(bad)
    unknown = _league(tmp_path, bots, '\n[cluster]\nscheduler = "tcp://h:1"\n')
    with pytest.raises(ConfigError, match=r"\[cluster\] scheduler is not a known key"):
        load_league(unknown)
    ran = CliRunner().invoke(app, ["run", str(league), "--cluster", "nowhere"])
    assert ran.exit_code == 2 and "--cluster must be a Dask scheduler's address" in ran.output


def test_the_progress_line_says_how_many_workers_played(capsys: pytest.CaptureFixture) -> None:
    info = RunProgress(done=3, total=9, played=3, games=12, elapsed=60.0,
                       leader=("a", 1.0), remaining=6, workers={})  # fmt: skip
    progress = LeagueProgress()
    two = {"tcp://10.0.0.2:1": 2, "tcp://10.0.0.3:1": 1}
    progress.update(dataclasses.replace(info, workers=two))
    progress.update(info)
    lines = capsys.readouterr().err.splitlines()
    assert "12 games/min on 2 workers" in lines[0] and "workers" not in lines[1]
