"""Issue 27 finding 13: a bot kept in a folder with a virtualenv, node_modules' cache
and a VCS folder (the repository's root, as the README's quick start has it) ships
without them, and a link pointing outside the folder is refused before anything is
sent, naming the entrant and what to do."""

from __future__ import annotations

import gzip
import io
import os
import tarfile
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.workers.bot_archives import pack_folder


def _names(data: bytes) -> set[str]:
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data))) as tar:
        return set(tar.getnames())


def test_finding_13_virtualenvs_caches_and_vcs_folders_are_not_shipped(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("print('bot')\n")
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    os.symlink("/usr/bin/python3", venv / "bin" / "python3.11")
    other_venv = tmp_path / "env-311"  # a virtualenv by its pyvenv.cfg, whatever its name
    other_venv.mkdir()
    (other_venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "node_modules" / ".cache").mkdir(parents=True)
    (tmp_path / "node_modules" / ".cache" / "big").write_text("x")
    (tmp_path / "node_modules" / "lib").mkdir()
    (tmp_path / "node_modules" / "lib" / "index.js").write_text("//")
    for vcs in (".git", ".hg", ".svn"):
        (tmp_path / vcs).mkdir()
        (tmp_path / vcs / "HEAD").write_text("x")
    names = _names(pack_folder(tmp_path, "mine"))
    assert "bot.py" in names and "node_modules/lib/index.js" in names  # a JS bot's libraries
    assert not any(n.startswith((".venv", "env-311", ".git", ".hg", ".svn")) for n in names)
    assert not any(n.startswith("node_modules/.cache") for n in names)


def test_finding_13_a_link_outside_the_folder_names_the_entrant(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("print('bot')\n")
    os.symlink("/etc/hostname", tmp_path / "host")
    with pytest.raises(ConfigError, match=r"entrant 'mine': .* holds the link host pointing"):
        pack_folder(tmp_path, "mine")
