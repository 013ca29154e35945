"""Submissions: a bot's folder or archive, unpacked safely into a content-addressed store.

An upload is the one input of the ladder that a stranger writes byte by byte, and an
archive is a program for the unpacker: it names paths, links and sizes. So nothing of
it is trusted. It is unpacked by hand, never by `extractall`, into a temporary folder
inside the store, each member checked before anything is written (no absolute path, no
`..`, no device, FIFO or socket, no setuid, setgid or sticky bit, no hard link to what
the archive did not hold before it, names the file system can hold), and the caps
counted on what is actually written, never on what a header claims: bytes, entries,
and for an archive the ratio of unpacked bytes to archive bytes, so that a zip bomb
stops at the first chunk past a cap. Symbolic links are made last, once every file is
in place, and kept only when they resolve inside the folder, both as written and as the
kernel would follow them (`a -> .` then `b -> a/..` looks inside as text but leaves it).

The folder is then named by the SHA-256 of the archive the cluster ships bots as
(`arena.league.workers.bot_archives.pack_folder`), computed on the stored tree, read-only
as it stays: the same files give the same name whether they came as a folder, a tar.gz
or a zip, a second upload of them is recognised, and a worker that packs the stored
folder gets the same hash again. Whatever is refused leaves nothing behind, in the
store or outside it.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import shutil
import stat
import tarfile
import tempfile
import time
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NoReturn

from arena.errors import ArenaError, ConfigError
from arena.league.workers.bot_archives import SKIPPED, _skipped, pack_folder

MIB = 2**20
CHUNK = MIB  # read and written at a time: the caps are checked before each write
MAX_NAME_BYTES = 255  # one path component, as Linux file systems hold it
MAX_PATH_CHARS = 4096  # a whole path (PATH_MAX)
RATIO_FLOOR = MIB  # below this many unpacked bytes no ratio is a bomb: a small table of
# zeros may compress a thousandfold and harms nobody
ENTRY_BYTES = 8192  # tar header bytes allowed per entry beside the contents (a header, a
# long name's pax record, padding): the decompressed stream is capped at
# max_mb + max_files * ENTRY_BYTES, so a huge pax header is refused, not read into memory
MAX_LINK_BYTES = 4096  # a symbolic link's target
KINDS = "a folder, or a .tar.gz, .tgz, .tar or .zip archive"
GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
OTHER_COMPRESSIONS = {b"BZh": "bzip2", b"\xfd7zXZ\x00": "xz", b"\x28\xb5\x2f\xfd": "zstd"}


@dataclass(frozen=True)
class UploadLimits:
    """The caps on one upload ([gate] in the ladder file): what a bot may reasonably
    need, so that an upload can neither fill the disk nor the inode table."""

    max_mb: int = 100  # total unpacked size, MiB ([gate] max_mb)
    max_files: int = 5000  # files, folders and links ([gate] max_files)
    max_ratio: int = 100  # unpacked bytes / archive bytes, for archives (a zip bomb)


@dataclass(frozen=True)
class StoredUpload:
    """An upload as stored: where its files are and the hash that names them."""

    sha256: str  # hex SHA-256 of the canonical archive of the unpacked folder
    folder: Path  # STORE/<sha256>: the unpacked files, read-only for everyone
    files: int  # files, folders and links in the stored tree (what max_files counts)
    size: int  # unpacked bytes
    new: bool  # False when the store held these files already


class UploadRefused(ArenaError):
    """A submission that is not stored as it is: it reaches outside its folder, holds
    what a bot's folder must not (devices, setuid files), passes a cap, or is not a
    folder or an archive at all. The message names the member and says what to do;
    nothing was written outside the store and nothing left inside it."""


def store_upload(source: Path, store: Path, limits: UploadLimits = UploadLimits()) -> StoredUpload:
    """Unpack `source` (a folder, or a .tar.gz, .tgz, .tar or .zip archive, told apart by
    content) into `store`/<sha256>, read-only; UploadRefused, leaving nothing behind,
    for anything unsafe, over a cap, or not an archive."""
    source, store = Path(source), Path(store)
    label = f"upload {source.name or source}"
    store.mkdir(mode=0o755, parents=True, exist_ok=True)
    store = store.resolve()
    if source.is_dir():
        inner = source.resolve()
        if store.is_relative_to(inner) or inner.is_relative_to(store):
            raise UploadRefused(
                f"{label}: the folder {source} holds the store {store} or lies in it; "
                "upload the bot's own folder"
            )
    elif not source.is_file():
        what = "is not a folder or a file" if source.exists() else "does not exist"
        raise UploadRefused(f"{label}: {source} {what}; give {KINDS}")
    work = Path(tempfile.mkdtemp(prefix=".incoming-", dir=store))
    try:
        tree = _Tree(work, limits, label)
        if source.is_dir():
            _copy_folder(tree, source.resolve())
        else:
            _unpack_archive(tree, source)
        tree.finish()
        try:
            data = pack_folder(work, label)
        except ConfigError as error:  # more than the cluster ships; max_mb set above it
            raise UploadRefused(str(error)) from None
        digest = hashlib.sha256(data).hexdigest()
        folder = store / digest
        new = True
        if folder.is_dir():
            new = False
        else:
            try:
                os.rename(work, folder)  # whole or not at all
            except OSError:
                if not folder.is_dir():
                    raise
                new = False  # another upload of the same files won the race
        return StoredUpload(digest, folder, tree.count, tree.size, new)
    finally:
        if work.exists():
            _remove(work)


class _Tree:
    """The tree being written below `root`: what each path is, and the caps counted on
    what is written, as it is written."""

    def __init__(self, root: Path, limits: UploadLimits, label: str) -> None:
        self.root = root
        self.limits = limits
        self.label = label
        self.archive_bytes: int | None = None  # set for an archive: the ratio's divisor
        self.kinds: dict[str, str] = {}  # relative path -> "dir", "file" or "link"
        self.links: list[tuple[str, str]] = []  # made last, see `finish`
        self.executable: set[str] = set()  # files with an execute bit
        self.count = 0
        self.size = 0

    def refuse(self, member: str, why: str, todo: str) -> NoReturn:
        raise UploadRefused(f"{self.label}: {member!r} {why}; {todo}")

    def relative(self, name: str) -> str | None:
        """`name` as a path below the root, '/'-separated without '.' or empty parts
        (None for the root itself); refused when it cannot stay below the root or the
        file system could not hold it."""
        if "\x00" in name:
            self.refuse(name, "holds a NUL character", "rename it")
        if len(name) > MAX_PATH_CHARS:
            self.refuse(
                name[:60] + "...",
                f"is a path of more than {MAX_PATH_CHARS} characters",
                "shorten it",
            )
        if name.startswith("/"):
            self.refuse(
                name,
                "is an absolute path, which would be written outside the bot's folder",
                "pack the folder with paths relative to it (tar -czf bot.tgz -C FOLDER .)",
            )
        parts = [part for part in name.split("/") if part not in ("", ".")]
        if ".." in parts:
            self.refuse(
                name,
                "has a '..' part, which would be written outside the bot's folder",
                "pack the folder with paths relative to it (tar -czf bot.tgz -C FOLDER .)",
            )
        for part in parts:
            try:
                size = len(part.encode("utf-8"))
            except UnicodeEncodeError:
                self.refuse(name, "is not a UTF-8 name", "rename it")
            if size > MAX_NAME_BYTES:
                self.refuse(name, f"has a part of more than {MAX_NAME_BYTES} bytes", "rename it")
        return "/".join(parts) or None

    def admit(self, name: str, mode: int, is_dir: bool) -> str | None:
        """The relative path of a member that is written; None for the root or a member
        of a cache, version-control folder or build cache, which the canonical archive
        leaves out anyway (`bot_archives.SKIPPED`). Checks the mode bits first, so that
        a skipped member is refused like any other."""
        if mode & 0o7000:
            self.refuse(
                name,
                "has the setuid, setgid or sticky bit, which a bot's files never need",
                "clear it (chmod u-s,g-s,-t) and upload again",
            )
        rel = self.relative(name)
        if rel is None:
            return None
        parts = rel.split("/")
        for i, part in enumerate(parts):
            if i == len(parts) - 1 and not is_dir:
                break
            if part in SKIPPED or (part == ".cache" and i > 0 and parts[i - 1] == "node_modules"):
                return None
        return rel

    def _place(self, rel: str, kind: str) -> Path:
        """Make `rel`'s parent folders and claim `rel` for `kind`; refused when a parent
        is a file or a link (writing through a link is how archives escape) or `rel`
        was written before."""
        parts = rel.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            held = self.kinds.get(parent)
            if held is None:
                self._claim(parent, "dir")
                os.mkdir(self.root / parent, 0o700)
            elif held != "dir":
                self.refuse(
                    rel,
                    f"lies below {parent!r}, which is a {'link' if held == 'link' else 'file'}",
                    "pack the folder as it is on disk (tar and zip never write through links)",
                )
        held = self.kinds.get(rel)
        if held is not None:
            if held == "dir" and kind == "dir":
                return self.root / rel
            self.refuse(rel, "is in the upload twice", "pack each file once")
        self._claim(rel, kind)
        return self.root / rel

    def _claim(self, rel: str, kind: str) -> None:
        self.kinds[rel] = kind
        self.count += 1
        if self.count > self.limits.max_files:
            self.refuse(
                rel,
                f"is past the cap of {self.limits.max_files} files and folders",
                "leave out what the bot does not need to run ([gate] max_files)",
            )

    def directory(self, name: str, mode: int) -> None:
        rel = self.admit(name, mode, is_dir=True)
        if rel is not None and self.kinds.get(rel) != "dir":
            path = self._place(rel, "dir")
            os.mkdir(path, 0o700)

    def file(self, name: str, mode: int, read: Callable[[int], bytes]) -> None:
        """A regular file from `read`, counted chunk by chunk against the caps before
        each chunk is written."""
        rel = self.admit(name, mode, is_dir=False)
        if rel is None:
            return
        path = self._place(rel, "file")
        if mode & 0o111:
            self.executable.add(rel)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            while chunk := read(CHUNK):
                self._count_bytes(rel, len(chunk))
                out.write(chunk)

    def _count_bytes(self, rel: str, more: int) -> None:
        size = self.size + more
        if size > self.limits.max_mb * MIB:
            self.refuse(
                rel,
                f"takes the upload past the cap of {self.limits.max_mb} MB unpacked",
                "leave out what the bot does not need to run ([gate] max_mb)",
            )
        if (
            self.archive_bytes is not None
            and size > RATIO_FLOOR
            and size > self.limits.max_ratio * self.archive_bytes
        ):
            self.refuse(
                rel,
                f"takes the unpacked size past {self.limits.max_ratio} times the archive's "
                f"({self.archive_bytes} bytes), as a zip bomb does",
                "upload the folder itself, or an archive of files that are not mostly "
                "repetition ([gate] max_ratio)",
            )
        self.size = size

    def symlink(self, name: str, target: str, mode: int) -> None:
        """A symbolic link, kept for `finish` when its target is relative and, as text,
        stays inside the folder (`bot_archives.pack_folder` refuses the others)."""
        rel = self.admit(name, mode, is_dir=False)
        if rel is None:
            return
        if (
            not target
            or "\x00" in target
            or len(target.encode("utf-8", "surrogateescape")) > MAX_LINK_BYTES
        ):
            self.refuse(rel, "is a link with an empty, NUL or over-long target", "remove the link")
        depth = rel.count("/")
        for part in target.split("/"):
            depth += -1 if part == ".." else (0 if part in ("", ".") else 1)
            if depth < 0:
                break
        if target.startswith("/") or depth < 0:
            self.refuse(
                rel,
                f"is a link to {target!r}, outside the bot's folder",
                "copy what it points at into the folder, or remove the link",
            )
        self._place(rel, "link")
        self.links.append((rel, target))

    def hard_link(self, name: str, target: str, mode: int) -> None:
        """A tar hard link, written as a copy of the file it names: that file must be
        one this archive held before it (a link to anything else reaches out), and the
        copy counts against the caps like any file (a thousand links to one big file
        are a bomb)."""
        rel = self.admit(name, mode, is_dir=False)
        if rel is None:
            return
        try:
            inner = self.relative(target)
        except UploadRefused:
            inner = None
        if inner is None or self.kinds.get(inner) != "file":
            self.refuse(
                rel,
                f"is a hard link to {target!r}, which is not a file earlier in the upload",
                "pack the folder without hard links to files outside it",
            )
        fd = os.open(self.root / inner, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as original:
            mode = mode | (0o111 if inner in self.executable else 0)
            self.file(name, mode, original.read)

    def special(self, name: str, what: str) -> NoReturn:
        self.refuse(
            name,
            f"is {what}, which a bot's folder never holds",
            "pack only files, folders and links inside the folder",
        )

    def finish(self) -> None:
        """Make the links, now that nothing more is written below them; keep each only
        if the kernel, following every link in turn, stays inside the folder; then leave
        out what the canonical archive leaves out, refuse an upload with no file, and
        make the tree read-only for its owner and readable by every user (sandboxed
        bots run as users of their own)."""
        for rel, target in self.links:
            os.symlink(target, self.root / rel)
        root = Path(os.path.realpath(self.root))
        for rel, target in self.links:
            if not Path(os.path.realpath(self.root / rel)).is_relative_to(root):
                self.refuse(
                    rel,
                    f"is a link to {target!r}, which through other links leads outside "
                    "the bot's folder",
                    "copy what it points at into the folder, or remove the link",
                )
        self._prune()
        if not any(kind == "file" for kind in self.kinds.values()):
            raise UploadRefused(
                f"{self.label}: holds no file (an empty upload); upload the bot's folder"
            )
        for rel, kind in sorted(self.kinds.items(), reverse=True):  # children first
            if kind == "file":
                os.chmod(self.root / rel, 0o555 if rel in self.executable else 0o444)
            elif kind == "dir":
                os.chmod(self.root / rel, 0o555)
        os.chmod(self.root, 0o555)

    def _prune(self) -> None:
        """Remove what `bot_archives.pack_folder` skips (caches, version control, a
        virtualenv), found as it finds them, so that the stored folder is exactly what
        its hash covers, and count what stays."""
        for here, dirs, _files in os.walk(self.root):
            for name in list(dirs):
                path = Path(here) / name
                if not _skipped(path):
                    continue
                dirs.remove(name)
                rel = path.relative_to(self.root).as_posix()
                for held in [k for k in self.kinds if k == rel or k.startswith(rel + "/")]:
                    if self.kinds.pop(held) == "file":
                        self.size -= (self.root / held).lstat().st_size
                if path.is_symlink():
                    path.unlink()
                else:
                    shutil.rmtree(path)
        self.count = len(self.kinds)


def _copy_folder(tree: _Tree, source: Path) -> None:
    """Copy a folder's files, links and folders (never following a link, never opening
    anything but a regular file), with the same checks as an archive's members."""
    stack = [(source, "")]
    while stack:
        folder, rel = stack.pop()
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda e: e.name)
        for entry in entries:
            name = f"{rel}/{entry.name}" if rel else entry.name
            info = entry.stat(follow_symlinks=False)
            mode = info.st_mode
            if stat.S_ISLNK(mode):
                tree.symlink(name, os.readlink(entry.path), 0o755)
            elif stat.S_ISDIR(mode):
                if _skipped(Path(entry.path)):
                    continue
                tree.directory(name, stat.S_IMODE(mode))
                stack.append((Path(entry.path), name))
            elif stat.S_ISREG(mode):
                fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, "rb") as f:
                    if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                        tree.special(name, "no longer a regular file")
                    tree.file(name, stat.S_IMODE(mode), f.read)
            else:
                tree.special(name, _special_kind(mode))


def _special_kind(mode: int) -> str:
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "of an unknown file type"


class _Capped:
    """A decompressed stream that refuses to yield more than `cap` bytes: tarfile
    reads a long name's or a pax header's whole claimed size into memory, so the cap
    must hold below it."""

    def __init__(self, raw: BinaryIO, cap: int, label: str) -> None:
        self.raw = raw
        self.cap = cap
        self.label = label
        self.total = 0

    def read(self, size: int = -1) -> bytes:
        room = self.cap + 1 - self.total  # one byte past the cap tells it was passed
        data = self.raw.read(room if size is None or size < 0 else min(size, room))
        self.total += len(data)
        if self.total > self.cap:
            raise UploadRefused(
                f"{self.label}: unpacks to more than {self.cap // MIB} MB of tar data "
                "(contents and headers); leave out what the bot does not need to run "
                "([gate] max_mb)"
            )
        return data


def _unpack_archive(tree: _Tree, source: Path) -> None:
    """Unpack a tar (gzip-compressed or not) or a zip, told apart by their first bytes."""
    limits = tree.limits
    cap = limits.max_mb * MIB + (limits.max_files + 2) * ENTRY_BYTES
    size = source.stat().st_size
    if size > cap:
        raise UploadRefused(
            f"{tree.label}: the archive is {size // MIB} MB, more than the "
            f"{limits.max_mb} MB a bot may unpack to; leave out what the bot does not need"
        )
    tree.archive_bytes = max(size, 1)
    with open(source, "rb") as raw:
        head = raw.read(8)
        raw.seek(0)
        for magic, name in OTHER_COMPRESSIONS.items():
            if head.startswith(magic):
                raise UploadRefused(f"{tree.label}: is compressed with {name}; give {KINDS}")
        try:
            if head.startswith(ZIP_MAGICS):
                _unpack_zip(tree, raw)
            elif head.startswith(GZIP_MAGIC):
                with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:
                    _unpack_tar(tree, _Capped(unzipped, cap, tree.label))
            else:
                _unpack_tar(tree, _Capped(raw, cap, tree.label))
        except (
            tarfile.TarError,
            zipfile.BadZipFile,
            zipfile.LargeZipFile,
            gzip.BadGzipFile,
            EOFError,
            zlib.error,
            NotImplementedError,
            ValueError,
        ) as error:
            raise UploadRefused(
                f"{tree.label}: cannot be read as {KINDS} ({error}); pack the bot's folder "
                "again (tar -czf bot.tgz -C FOLDER . or zip -r bot.zip .)"
            ) from None


def _unpack_tar(tree: _Tree, stream: _Capped) -> None:
    """A tar read as a stream, member by member, forgetting each once written (a
    100,000-member archive costs no memory before its cap stops it)."""
    with tarfile.open(fileobj=stream, mode="r|") as tar:
        while (member := tar.next()) is not None:
            tar.members.clear()
            name = member.name
            if member.isreg():
                data = tar.extractfile(member)
                assert data is not None
                tree.file(name, member.mode, data.read)
            elif member.isdir():
                tree.directory(name, member.mode)
            elif member.issym():
                tree.symlink(name, member.linkname, member.mode & 0o7000)
            elif member.islnk():
                tree.hard_link(name, member.linkname, member.mode)
            elif member.ischr() or member.isblk():
                tree.special(name, "a device file")
            elif member.isfifo():
                tree.special(name, "a FIFO")
            else:
                tree.special(name, f"of tar type {member.type!r}")


def _unpack_zip(tree: _Tree, raw: BinaryIO) -> None:
    """A zip, its directory checked against the file cap before anything is read; its
    entries' Unix modes (when a Unix tool wrote it) give links, special files and bits."""
    with zipfile.ZipFile(raw) as archive:
        infos = archive.infolist()
        if len(infos) > tree.limits.max_files:
            raise UploadRefused(
                f"{tree.label}: holds {len(infos)} entries, more than the cap of "
                f"{tree.limits.max_files} files and folders; leave out what the bot does not "
                "need to run ([gate] max_files)"
            )
        for info in infos:
            name = info.filename
            unix = info.create_system == 3
            mode = info.external_attr >> 16 if unix else 0
            kind = stat.S_IFMT(mode)
            if info.flag_bits & 0x1:
                tree.refuse(name, "is encrypted", "upload it without a password")
            if name.endswith("/") or kind == stat.S_IFDIR:
                tree.directory(name, stat.S_IMODE(mode))
            elif kind == stat.S_IFLNK:
                with archive.open(info) as f:
                    target = f.read(MAX_LINK_BYTES + 1)
                tree.symlink(
                    name, target.decode("utf-8", "surrogateescape"), stat.S_IMODE(mode) & 0o7000
                )
            elif kind in (0, stat.S_IFREG):
                with archive.open(info) as f:
                    tree.file(name, stat.S_IMODE(mode), f.read)
            else:
                tree.special(name, _special_kind(mode))


def _remove(folder: Path) -> None:
    """Remove a temporary tree, read-only parts and all."""
    for here, dirs, _files in os.walk(folder):
        for name in dirs:
            path = Path(here) / name
            if not path.is_symlink():
                with contextlib.suppress(OSError):
                    path.chmod(0o700)
    with contextlib.suppress(OSError):
        folder.chmod(0o700)
    shutil.rmtree(folder, ignore_errors=True)


STALE_SECONDS = 3600.0  # an unpacking older than this was left by a killed submission


def sweep_incoming(store: Path, older_than: float = STALE_SECONDS) -> int:
    """Remove the temporary folders of submissions killed while unpacking (left
    `.incoming-*` in the store), those older than `older_than` seconds, so one still
    being unpacked is left alone; how many were removed."""
    removed = 0
    now = time.time()
    for folder in store.glob(".incoming-*") if store.is_dir() else ():
        try:
            if now - folder.stat().st_mtime < older_than:
                continue
        except OSError:
            continue
        _remove(folder)
        removed += 1
    return removed
