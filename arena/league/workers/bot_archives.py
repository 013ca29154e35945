"""Bots shipped to workers on other machines: a content-addressed archive of each
started bot's folder.

A bot given as a command names its files (`python bots/mine.py`); on a cluster the
worker that plays its match has no such folder. The main process packs the folder a
bot is shown in the sandbox (that of its first file argument, arena/bots/confinement/sandbox.py
`bot_folder`) into a tar archive built the same way from the same files every time,
names it by its SHA-256, and sends it once per worker; the worker checks the hash,
unpacks it once per machine into a cache folder named by the hash, makes it read-only,
and starts the bot from there. A bot whose command names no file of its own (`python
-m arena.strategies.greedy`, `node /opt/bot.js`) is started from the worker's own
installation, as `grpc:` and `builtin:` bots are reached there.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import os
import shlex
import shutil
import stat
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena.bots.confinement.sandbox import first_file_argument
from arena.bots.process import command_argv
from arena.bots.spec import BUILTIN_PREFIX, GRPC_PREFIX
from arena.errors import ArenaError, ConfigError
from arena.league.definition.config import LeagueConfig

MAX_ARCHIVE_BYTES = 256 * 1024 * 1024  # a bot's folder, packed: more is a mistake (a
# league file beside a whole data set), and every worker would receive it
SKIPPED = {  # caches and version-control folders: no bot needs them to run
    "__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    ".tox", ".nox",
}  # fmt: skip
# and every virtualenv (a folder holding pyvenv.cfg: its links point at this machine's
# Python) and node_modules/.cache (a build cache), see `_skipped`
CACHE_VARIABLE = "ARENA_BOT_CACHE"  # where a worker unpacks the archives it is sent


@dataclass(frozen=True)
class ShippedBot:
    """An entrant's command with its file arguments made relative to its folder, and
    the hash of that folder's archive."""

    entrant: str
    command: list[str]  # the command's words; those in `relative` are paths in the folder
    relative: tuple[int, ...]  # which words are paths below the folder
    digest: str  # SHA-256 of the archive, in hex

    def spec_in(self, folder: Path) -> str:
        """The bot's command as it is started from `folder`, the archive unpacked."""
        words = [
            str(folder / word) if i in self.relative else word
            for i, word in enumerate(self.command)
        ]
        return shlex.join(words)


def pack_bots(config: LeagueConfig) -> tuple[dict[str, ShippedBot], dict[str, bytes]]:
    """The shipped bots of `config`'s entrants, by entrant, and their archives by hash
    (two entrants started from one folder share one archive). ConfigError naming the
    entrant when a folder cannot be packed."""
    shipped: dict[str, ShippedBot] = {}
    archives: dict[str, bytes] = {}
    packed: dict[Path, str] = {}
    for entrant in config.entrants:
        found = own_files(entrant.bot, config.base_dir)
        if found is None:
            continue
        folder, words, relative = found
        if folder not in packed:
            data = pack_folder(folder, entrant.name)
            digest = hashlib.sha256(data).hexdigest()
            packed[folder] = digest
            archives[digest] = data
        shipped[entrant.name] = ShippedBot(entrant.name, words, relative, packed[folder])
    return shipped, archives


def own_files(spec: str, base_dir: Path) -> tuple[Path, list[str], tuple[int, ...]] | None:
    """The folder a command bot is shown in the sandbox (its first file argument's,
    `arena.bots.confinement.sandbox.first_file_argument`), and the command's words with every
    argument naming a path in that folder made relative to it; None for a spec that
    is not a command or names no file of its own. The paths are the arguments that
    `arena.bots.process.command_argv` resolves, and those given whole."""
    if spec.startswith((BUILTIN_PREFIX, GRPC_PREFIX)):
        return None
    argv = command_argv(spec, base_dir)
    own = first_file_argument(argv, base_dir)
    if own is None:
        return None
    folder = own.parent
    words = shlex.split(spec)  # argv word for word, but for `python` and the paths
    relative = []
    for i, arg in enumerate(argv[1:], start=1):
        path = Path(arg)
        if path.is_absolute() and path.exists() and path.resolve().is_relative_to(folder):
            words[i] = str(path.resolve().relative_to(folder))
            relative.append(i)
    return folder, words, tuple(relative)


def pack_folder(folder: Path, entrant: str) -> bytes:
    """A gzip-compressed tar of `folder`'s files, in sorted order, with no owner, times
    or other machine-local facts: the same files give the same bytes, and the same hash."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped:  # noqa: SIM117
        with tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for path in _files(folder):
                _check_link(path, folder, entrant)
                info = tar.gettarinfo(str(path), arcname=str(path.relative_to(folder)))
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.mtime = 0
                info.mode &= 0o755
                if info.isreg():
                    with open(path, "rb") as f:
                        tar.addfile(info, f)
                else:
                    tar.addfile(info)
                if buffer.tell() > MAX_ARCHIVE_BYTES:
                    raise ConfigError(
                        f"entrant {entrant!r}: its folder {folder} holds more than "
                        f"{MAX_ARCHIVE_BYTES // 2**20} MB packed, which every worker of the "
                        "cluster would be sent: give the bot a folder of its own "
                        "(docs/cluster.md)"
                    )
    return buffer.getvalue()


def _files(folder: Path) -> list[Path]:
    """Every file, folder and link below `folder`, sorted, without caches."""
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not _skipped(Path(root) / d))
        here = Path(root)
        out += [here / d for d in dirs] + [here / f for f in sorted(files)]
    return sorted(out)


def _skipped(folder: Path) -> bool:
    """Whether a folder is left out of a bot's archive: a cache, a version-control
    folder, a virtualenv or node_modules' build cache (docs/cluster.md, "What is
    shipped")."""
    if folder.name in SKIPPED or (folder.name == ".cache" and folder.parent.name == "node_modules"):
        return True
    return (folder / "pyvenv.cfg").is_file()


def _check_link(path: Path, folder: Path, entrant: str) -> None:
    """ConfigError, naming the entrant and what to do, for a link in the bot's folder
    that points outside it: a worker would refuse the archive."""
    if not path.is_symlink():
        return
    target = Path(os.readlink(path))
    name = path.relative_to(folder)
    if target.is_absolute() or not _stays_inside(name, target):
        raise ConfigError(
            f"entrant {entrant!r}: its folder {folder} holds the link {name} pointing "
            f"outside it ({target}), which a cluster worker cannot unpack: remove the link, "
            "or give the bot a folder of its own holding only what it needs (docs/cluster.md, "
            '"What is shipped")'
        )


class ArchiveError(ArenaError):
    """An archive a worker was sent that is not the one its hash names, or a worker's
    folder for archives or logs that another user could write to."""


def worker_folder(variable: str, kind: str) -> Path:
    """A folder of this machine's for what a cluster worker keeps (`variable` names
    it, else one in the temporary folder named by `kind` and the user): the user's own,
    writable by nobody else, and searchable by all, since a bot may run as a user of
    its own (docs/sandbox.md)."""
    default = Path(tempfile.gettempdir()) / f"trix-arena-{kind}-{os.getuid()}"
    root = Path(os.environ.get(variable) or default)
    root.mkdir(mode=0o755, parents=True, exist_ok=True)
    info = root.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise ArchiveError(
            f"{root} is not a folder of this user's that only it may write: remove it, or "
            f"set {variable} to a folder of its own"
        )
    os.chmod(root, 0o755)
    return root


def cache_root() -> Path:
    """This machine's folder of unpacked bots (ARENA_BOT_CACHE, or one in the temporary
    folder)."""
    return worker_folder(CACHE_VARIABLE, "bots")


def unpacked(digest: str, data: bytes, root: Path | None = None) -> Path:
    """The folder holding archive `digest`, unpacked read-only below `root` (the cache)
    the first time it is wanted; ArchiveError when `data` is not that archive."""
    if root is None:
        root = cache_root()
    else:
        root.mkdir(mode=0o755, parents=True, exist_ok=True)
    folder = root / digest
    if folder.is_dir():
        return folder
    if hashlib.sha256(data).hexdigest() != digest:
        raise ArchiveError(f"the bot archive sent as {digest[:12]} does not have that hash")
    work = Path(tempfile.mkdtemp(prefix=f".{digest[:12]}-", dir=root))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tar.extractall(work, members=_safe_members(tar, digest))
        _read_only(work)
        try:
            os.rename(work, folder)  # whole or not at all; another worker may have won
        except OSError:
            if not folder.is_dir():
                raise
    finally:
        if work.exists():
            _remove(work)
    return folder


def _safe_members(tar: tarfile.TarFile, digest: str) -> list[tarfile.TarInfo]:
    """The archive's members, when each is a file, a folder or a link that stays inside
    it (Python 3.11's first releases have no `filter="data"`, so this says it)."""
    members = tar.getmembers()
    for member in members:
        name = Path(member.name)
        escapes = name.is_absolute() or ".." in name.parts
        if member.issym():
            target = Path(member.linkname)
            escapes = escapes or target.is_absolute() or not _stays_inside(name, target)
        elif not (member.isreg() or member.isdir()):
            escapes = True
        if escapes:
            raise ArchiveError(
                f"the bot archive {digest[:12]} holds {member.name!r}, which would land "
                "outside its folder or is not a file, folder or link"
            )
        member.mode &= 0o755
    return members


def _stays_inside(name: Path, target: Path) -> bool:
    """Whether link `name`, pointing at relative `target`, points inside the archive."""
    depth = len(name.parts) - 1
    for part in target.parts:
        depth += -1 if part == ".." else (0 if part == "." else 1)
        if depth < 0:
            return False
    return True


def _read_only(folder: Path) -> None:
    """No write bit anywhere below `folder`; read (and search) for everyone."""
    for root, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            path = Path(root) / name
            if not path.is_symlink():
                mode = path.stat().st_mode
                path.chmod(0o555 if mode & 0o111 else 0o444)
        for name in dirs:
            (Path(root) / name).chmod(0o555)
    folder.chmod(0o555)


def _remove(folder: Path) -> None:
    """Remove a read-only tree (write bits back on its folders first)."""
    for root, dirs, _files in os.walk(folder):
        for name in dirs:
            with contextlib.suppress(OSError):
                (Path(root) / name).chmod(0o755)
    with contextlib.suppress(OSError):
        folder.chmod(0o755)
    shutil.rmtree(folder, ignore_errors=True)
