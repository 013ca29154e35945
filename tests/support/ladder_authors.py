"""A ladder with two authors for the site's author side: its database, each author's
token, and bot archives to upload (a working bot, and attacks)."""

from __future__ import annotations

import io
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from arena.ladder.book import author_add, init_ladder
from arena.ladder.config import load_ladder
from tests.ladder.ladder_support import RANDOM_BOT, ladder_file

AUTHORS = ("alice", 'mallory"><script>alert(1)</script>')


@dataclass(frozen=True)
class AuthorLadder:
    db: Path
    tokens: dict[str, str]  # author -> token

    @property
    def alice(self) -> str:
        return self.tokens["alice"]

    @property
    def mallory(self) -> str:
        return self.tokens[AUTHORS[1]]


def author_ladder(folder: Path, max_mb: int = 1, sandbox: str = "off") -> AuthorLadder:
    """`folder/arena.db`: the tests' ladder (arena/tests/ladder), uploads capped at
    `max_mb` MiB, with the authors of AUTHORS (the second's name an attack)."""
    path = ladder_file(folder, sandbox=sandbox, extra="")
    text = path.read_text().replace("[gate]\n", f"[gate]\nmax_mb = {max_mb}\n")
    path.write_text(text)
    db = folder / "arena.db"
    init_ladder(load_ladder(path), db)
    return AuthorLadder(db, {name: author_add(db, None, name) for name in AUTHORS})


def bot_tar(name: str = "webbot", extra: str = "") -> bytes:
    """A .tar.gz of a working bot's folder (bot.py), `extra` appended to its text so
    that each call may make a new version."""
    return tar_of({"bot.py": (RANDOM_BOT.format(name=name) + extra).encode()})


def tar_of(files: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    """A .tar.gz holding `files` (name -> bytes) as given, and symbolic `links`
    (name -> target): tarfile writes any name, so `../x` is a zip slip."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for member, data in files.items():
            info = tarfile.TarInfo(member)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
        for member, target in (links or {}).items():
            info = tarfile.TarInfo(member)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    return out.getvalue()


def zip_of(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in files.items():
            archive.writestr(member, data)
    return out.getvalue()
