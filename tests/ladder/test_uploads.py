"""Submissions unpacked into the store (arena/ladder/uploads.py): every attack an
archive can carry is built here byte for byte and refused, with nothing written outside
the store and nothing left inside it; the same files give the same hash whether they
come as a folder, a tar.gz or a zip, and a second upload of them adds nothing; what is
stored is read-only and readable by everyone."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import socket
import stat
import tarfile
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.ladder.uploads import (
    StoredUpload,
    UploadLimits,
    UploadRefused,
    store_upload,
)
from arena.league.workers.bot_archives import pack_folder

ZEROS = bytes(2**20)


# --- building archives -------------------------------------------------------------


def _member(name: str, kind: bytes = tarfile.REGTYPE, data: bytes = b"", **fields) -> tuple:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    info.mode = fields.pop("mode", 0o644)
    for key, value in fields.items():
        setattr(info, key, value)
    return info, data


def _tar(path: Path, members: Iterable[tuple], gz: bool = True) -> Path:
    """A tar (gzip-compressed unless `gz` is false) of `members` exactly as given:
    tarfile writes any name, link, type and mode it is handed."""
    with tarfile.open(path, "w:gz" if gz else "w", format=tarfile.PAX_FORMAT) as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


def _zip(path: Path, entries: Iterable[tuple[str, bytes, int]]) -> Path:
    """A zip of (name, data, Unix mode) entries, written by a Unix tool (the mode is
    in the upper half of the external attributes)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = mode << 16
            archive.writestr(info, data)
    return path


def _snapshot(root: Path, store: Path) -> dict[str, tuple]:
    """Every path below `root` but those in `store`, with its type, mode and contents."""
    seen = {}
    for here, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(here) / name
            if path == store or store in path.parents:
                continue
            info = path.lstat()
            body = None
            if stat.S_ISREG(info.st_mode):  # a sparse terabyte is known by size and time
                small = info.st_size < 2**24
                body = hashlib.sha256(path.read_bytes()).digest() if small else info.st_mtime_ns
            seen[str(path)] = (stat.S_IFMT(info.st_mode), info.st_mode, info.st_nlink, body)
    return seen


@pytest.fixture
def place(tmp_path: Path) -> dict[str, Path]:
    """The store, an input folder beside it, and a victim file an escape would reach."""
    (tmp_path / "in").mkdir()
    (tmp_path / "victim").write_text("untouched\n")
    (tmp_path / "outer" / "store").mkdir(parents=True)
    return {"root": tmp_path, "store": tmp_path / "outer" / "store", "in": tmp_path / "in"}


def _refused(place: dict[str, Path], source: Path, match: str, **limits) -> str:
    """Store `source`, expect a refusal whose message matches, and check that nothing
    changed outside the store and nothing is left in it."""
    store = place["store"]
    before = _snapshot(place["root"], store)
    with pytest.raises(UploadRefused, match=match) as caught:
        store_upload(source, store, UploadLimits(**limits))
    assert _snapshot(place["root"], store) == before
    assert list(store.iterdir()) == []
    assert "\n" not in str(caught.value)
    return str(caught.value)


# --- escapes ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../victim", "a/../../victim", "./../x", "a/b/../../../x"])
def test_zip_slip_in_a_tar_is_refused(place, name) -> None:
    source = _tar(place["in"] / "slip.tgz", [_member("a/ok.py", data=b"1"), _member(name)])
    message = _refused(place, source, "'..' part")
    assert name in message


def test_zip_slip_in_a_zip_is_refused(place) -> None:
    source = _zip(
        place["in"] / "slip.zip", [("ok.py", b"1", 0o644), ("../victim", b"pwned", 0o644)]
    )
    _refused(place, source, "'..' part")


def test_absolute_paths_are_refused(place) -> None:
    target = str(place["root"] / "victim")
    tar = _tar(place["in"] / "abs.tgz", [_member(target, data=b"pwned")])
    _refused(place, tar, "absolute path")
    made = str(place["root"] / "made-by-zip")
    zipped = _zip(place["in"] / "abs.zip", [(made, b"pwned", 0o644)])
    _refused(place, zipped, "absolute path")
    assert not Path(made).exists()


@pytest.mark.parametrize(
    "target", ["/etc", "../victim", "../../../victim", "a/../../x", str(Path("/tmp"))]
)
def test_a_symlink_out_is_refused(place, target) -> None:
    source = _tar(
        place["in"] / "link.tgz",
        [_member("bot.py", data=b"1"), _member("l", tarfile.SYMTYPE, linkname=target)],
    )
    _refused(place, source, "outside the bot's folder")


def test_writing_through_a_link_is_refused_even_when_the_link_points_inside(place) -> None:
    """The classic two-step: a link, then a member below it. Even a link inside may
    not be written through (it might point anywhere by the time it is followed)."""
    source = _tar(
        place["in"] / "through.tgz",
        [
            _member("sub/", tarfile.DIRTYPE, mode=0o755),
            _member("d", tarfile.SYMTYPE, linkname="sub"),
            _member("d/x.py", data=b"pwned"),
        ],
    )
    _refused(place, source, "lies below 'd', which is a link")


def test_links_that_leave_only_through_other_links_are_refused(place) -> None:
    """`a -> .` and `b -> a/..`: as text b stays inside; the kernel, following a
    first, lands in the folder's parent."""
    source = _tar(
        place["in"] / "chain.tgz",
        [
            _member("bot.py", data=b"1"),
            _member("a", tarfile.SYMTYPE, linkname="."),
            _member("b", tarfile.SYMTYPE, linkname="a/.."),
        ],
    )
    _refused(place, source, "through other links leads outside")


def test_a_symlink_out_in_a_zip_is_refused(place) -> None:
    source = _zip(
        place["in"] / "link.zip",
        [("bot.py", b"1", 0o644), ("l", b"../../victim", stat.S_IFLNK | 0o777)],
    )
    _refused(place, source, "outside the bot's folder")


@pytest.mark.parametrize("target", ["/etc/passwd", "../victim", "missing.py", "sub"])
def test_a_hard_link_out_or_to_no_earlier_file_is_refused(place, target) -> None:
    source = _tar(
        place["in"] / "hard.tgz",
        [
            _member("sub/", tarfile.DIRTYPE, mode=0o755),
            _member("bot.py", data=b"1"),
            _member("h", tarfile.LNKTYPE, linkname=target),
        ],
    )
    _refused(place, source, "hard link to")
    assert (place["root"] / "victim").stat().st_nlink == 1


def test_a_link_inside_is_kept_and_a_hard_link_inside_becomes_a_copy(place) -> None:
    source = _tar(
        place["in"] / "fine.tgz",
        [
            _member("sub/run.sh", data=b"#!/bin/sh\n", mode=0o755),
            _member("l", tarfile.SYMTYPE, linkname="sub/run.sh"),
            _member("sub/up", tarfile.SYMTYPE, linkname="../l"),
            _member("h", tarfile.LNKTYPE, linkname="sub/run.sh", mode=0o755),
        ],
    )
    stored = store_upload(source, place["store"])
    folder = stored.folder
    assert os.readlink(folder / "l") == "sub/run.sh"
    assert (folder / "sub" / "up").read_bytes() == b"#!/bin/sh\n"
    assert (folder / "h").read_bytes() == b"#!/bin/sh\n"
    assert (folder / "h").stat().st_nlink == 1 and stat.S_IMODE(
        (folder / "h").stat().st_mode
    ) == 0o555
    assert stored.files == 5 and stored.size == 20


# --- what a bot's folder never holds ------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "what"),
    [
        (tarfile.CHRTYPE, "a device file"),
        (tarfile.BLKTYPE, "a device file"),
        (tarfile.FIFOTYPE, "a FIFO"),
    ],
)
def test_device_files_and_fifos_in_a_tar_are_refused(place, kind, what) -> None:
    source = _tar(
        place["in"] / "dev.tgz",
        [_member("bot.py", data=b"1"), _member("null", kind, devmajor=1, devminor=3)],
    )
    _refused(place, source, what)


@pytest.mark.parametrize(
    ("mode", "what"),
    [(stat.S_IFCHR, "a device file"), (stat.S_IFIFO, "a FIFO"), (stat.S_IFSOCK, "a socket")],
)
def test_special_files_in_a_zip_are_refused(place, mode, what) -> None:
    source = _zip(place["in"] / "dev.zip", [("bot.py", b"1", 0o644), ("x", b"", mode | 0o644)])
    _refused(place, source, what)


def test_a_fifo_and_a_socket_in_a_folder_are_refused(place) -> None:
    folder = place["in"] / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("1")
    os.mkfifo(folder / "pipe")  # opening it would block: it must never be opened
    _refused(place, folder, "'pipe' is a FIFO")
    (folder / "pipe").unlink()
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(folder / "sock"))
        _refused(place, folder, "'sock' is a socket")


@pytest.mark.parametrize("mode", [0o4755, 0o2755, 0o1755, 0o6777])
def test_setuid_setgid_and_sticky_bits_are_refused(place, mode) -> None:
    tar = _tar(place["in"] / "suid.tgz", [_member("bot", data=b"\x7fELF", mode=mode)])
    _refused(place, tar, "setuid, setgid or sticky")
    folder_mode = _tar(place["in"] / "sgid-dir.tgz", [_member("d/", tarfile.DIRTYPE, mode=mode)])
    _refused(place, folder_mode, "setuid, setgid or sticky")
    zipped = _zip(place["in"] / "suid.zip", [("bot", b"\x7fELF", stat.S_IFREG | mode)])
    _refused(place, zipped, "setuid, setgid or sticky")


def test_a_setuid_file_or_a_link_out_in_a_folder_is_refused(place) -> None:
    folder = place["in"] / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("1")
    (folder / "run").write_text("#!/bin/sh\n")
    (folder / "run").chmod(0o4755)
    _refused(place, folder, "setuid")
    (folder / "run").chmod(0o755)
    (folder / "out").symlink_to(place["root"] / "victim")
    _refused(place, folder, "outside the bot's folder")


# --- caps -----------------------------------------------------------------------------


class _Zeros(io.RawIOBase):
    """`size` zero bytes, read without holding them."""

    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def test_a_zip_bomb_is_refused_at_the_ratio_cap(place) -> None:
    """200 MB of zeros deflated to about 200 kB, written as a stream (never whole in
    memory); it is stopped once the unpacked bytes pass 100 times the archive's."""
    source = place["in"] / "bomb.zip"
    with zipfile.ZipFile(source, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("zeros.bin", "w", force_zip64=True) as out:
            for _ in range(200):
                out.write(ZEROS)
    assert source.stat().st_size < 300_000
    _refused(place, source, "100 times the archive's")


def test_a_tar_gz_bomb_is_refused_at_the_ratio_cap(place) -> None:
    source = place["in"] / "bomb.tgz"
    with tarfile.open(source, "w:gz", compresslevel=6) as tar:
        info = tarfile.TarInfo("zeros.bin")
        info.size = 200 * 2**20
        tar.addfile(info, io.BufferedReader(_Zeros(info.size)))
    _refused(place, source, "100 times the archive's")


def test_a_huge_pax_header_is_refused_before_it_is_read_into_memory(place) -> None:
    """tarfile reads a pax header's whole claimed size at once: the decompressed
    stream is capped below it."""
    size = 60 * 2**20
    header = tarfile.TarInfo("././@PaxHeader")
    header.type = tarfile.XHDTYPE
    header.size = size
    raw = header.tobuf(tarfile.USTAR_FORMAT)
    source = place["in"] / "pax.tgz"
    with gzip.open(source, "wb", compresslevel=1) as out:
        out.write(raw)
        for _ in range(size // len(ZEROS)):
            out.write(ZEROS)
    _refused(place, source, "MB of tar data", max_mb=1, max_files=10)


def test_one_huge_file_is_refused_at_the_size_cap(place) -> None:
    data = os.urandom(3 * 2**20)  # random: the ratio cap stays out of the way
    source = _tar(place["in"] / "big.tgz", [_member("weights.bin", data=data)])
    _refused(place, source, "past the cap of 2 MB unpacked", max_mb=2)
    zipped = _zip(place["in"] / "big.zip", [("weights.bin", data, 0o644)])
    _refused(place, zipped, "past the cap of 2 MB unpacked", max_mb=2)


def test_a_huge_sparse_file_in_a_folder_is_refused_without_copying_it(place) -> None:
    folder = place["in"] / "bot"
    folder.mkdir()
    with open(folder / "huge.bin", "wb") as f:
        f.truncate(2**40)  # a terabyte that takes no disk
    _refused(place, folder, "past the cap of 3 MB unpacked", max_mb=3)


def test_hard_links_to_one_file_count_as_copies(place) -> None:
    data = os.urandom(2**20)
    links = [_member(f"h{i}", tarfile.LNKTYPE, linkname="w.bin") for i in range(10)]
    source = _tar(place["in"] / "links.tgz", [_member("w.bin", data=data), *links])
    _refused(place, source, "past the cap of 5 MB unpacked", max_mb=5)


@pytest.mark.parametrize("cap", [500, pytest.param(5000, marks=pytest.mark.slow)])
def test_a_hundred_thousand_files_are_refused(place, cap) -> None:
    """100,000 empty members, each one header block: read as a stream, refused at the
    entry past the cap (the default cap makes 5000 files first, which takes seconds on
    slow file systems)."""
    source = place["in"] / "many.tgz"
    template = tarfile.TarInfo("f0000000").tobuf(tarfile.USTAR_FORMAT)
    base = int(template[148:154], 8)  # the header's checksum: the sum of its bytes
    with gzip.open(source, "wb", compresslevel=1) as out:
        for i in range(100_000):  # the same header but for the name's digits (fast)
            digits = b"%07d" % i
            checksum = base + sum(digits) - 7 * ord("0")
            out.write(b"f" + digits + template[8:148] + b"%06o\0" % checksum + template[155:])
        out.write(bytes(1024))
    with tarfile.open(source, "r|gz") as check:  # real tar headers
        assert [check.next().name for _ in range(3)] == ["f0000000", "f0000001", "f0000002"]
    message = _refused(place, source, f"cap of {cap} files and folders", max_files=cap)
    assert f"'f{cap:07d}'" in message


def test_a_zip_of_a_hundred_thousand_files_is_refused_before_it_is_read(place) -> None:
    zipped = place["in"] / "many.zip"
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_STORED) as archive:
        for i in range(100_000):
            archive.writestr(f"f{i}", b"")
    _refused(place, zipped, "100000 entries, more than the cap of 5000")


def test_folders_count_towards_the_file_cap(place) -> None:
    source = _tar(place["in"] / "deep.tgz", [_member("a/b/c/d/e/f.py", data=b"1")])
    _refused(place, source, "cap of 5 files", max_files=5)


# --- not an upload ----------------------------------------------------------------------


def test_what_is_not_an_upload_is_refused(place) -> None:
    text = place["in"] / "bot.py"
    text.write_text("print('not an archive')\n" * 40)
    _refused(place, text, "cannot be read as a folder, or a .tar.gz")
    gz = place["in"] / "bot.py.gz"
    gz.write_bytes(gzip.compress(text.read_bytes()))
    _refused(place, gz, "cannot be read as")
    truncated = place["in"] / "cut.zip"
    whole = _zip(place["in"] / "whole.zip", [("bot.py", os.urandom(5000), 0o644)]).read_bytes()
    truncated.write_bytes(whole[:3000])
    _refused(place, truncated, "cannot be read as")
    bz2 = place["in"] / "bot.tar.bz2"
    bz2.write_bytes(b"BZh91AY&SY" + bytes(100))
    _refused(place, bz2, "compressed with bzip2")
    _refused(place, place["in"] / "missing.tgz", "does not exist")


def test_an_empty_upload_is_refused(place) -> None:
    empty = place["in"] / "empty"
    (empty / "only" / "folders").mkdir(parents=True)
    _refused(place, empty, "holds no file")
    _refused(place, _tar(place["in"] / "empty.tgz", []), "holds no file")
    caches = _tar(place["in"] / "caches.tgz", [_member("__pycache__/x.pyc", data=b"1")])
    _refused(place, caches, "holds no file")


@pytest.mark.parametrize(
    ("name", "match"),
    [("a" * 256, "more than 255 bytes"), ("a/" * 2100 + "f", "more than 4096"), ("é\x00y", "NUL")],
)
def test_names_the_file_system_cannot_hold_are_refused(place, name, match) -> None:
    source = _tar(place["in"] / "names.tar", [_member(name, data=b"1")], gz=False)
    _refused(place, source, match)


def test_a_file_twice_is_refused(place) -> None:
    source = _tar(place["in"] / "twice.tgz", [_member("a.py", data=b"1"), _member("./a.py")])
    _refused(place, source, "twice")


# --- the same files, one hash -----------------------------------------------------------


def _bot_folder(root: Path) -> Path:
    folder = root / "bot"
    (folder / "data" / "empty").mkdir(parents=True)
    (folder / "bot.py").write_text("print('hi')\n")
    (folder / "data" / "weights.txt").write_text("1 2 3\n")
    (folder / "run.sh").write_text("#!/bin/sh\n")
    (folder / "run.sh").chmod(0o755)
    (folder / "weights").symlink_to("data/weights.txt")
    return folder


def test_the_same_files_as_a_folder_a_tar_gz_and_a_zip_are_one_upload(place) -> None:
    folder = _bot_folder(place["in"])
    zipped = place["in"] / "bot.zip"
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            name = path.relative_to(folder).as_posix()
            if path.is_symlink():
                info = zipfile.ZipInfo(name)
                info.create_system = 3
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                archive.writestr(info, os.readlink(path))
            else:
                archive.write(path, name)
    (folder / "__pycache__").mkdir()  # caches and version control are left out
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0" * 10)
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    tgz = place["in"] / "bot.tgz"
    with tarfile.open(tgz, "w:gz") as tar:  # as `tar -czf bot.tgz -C bot .` packs it
        tar.add(folder, arcname=".")

    stored = store_upload(folder, place["store"])
    assert stored.new and stored.folder == place["store"].resolve() / stored.sha256
    assert stored.files == 6 and stored.size == len("print('hi')\n1 2 3\n#!/bin/sh\n")
    assert not (stored.folder / "__pycache__").exists() and not (stored.folder / ".git").exists()
    # the cluster's own packing of the stored folder gives its name back
    assert hashlib.sha256(pack_folder(stored.folder, "x")).hexdigest() == stored.sha256
    for again in (tgz, zipped, folder):
        other = store_upload(again, place["store"])
        assert other == StoredUpload(stored.sha256, stored.folder, 6, stored.size, new=False)
    assert sorted(p.name for p in place["store"].iterdir()) == [stored.sha256]


def test_different_files_are_different_uploads(place) -> None:
    folder = _bot_folder(place["in"])
    first = store_upload(folder, place["store"])
    (folder / "bot.py").write_text("print('changed')\n")
    second = store_upload(folder, place["store"])
    assert second.new and second.sha256 != first.sha256
    (folder / "run.sh").chmod(0o644)  # the execute bit is part of the files
    assert store_upload(folder, place["store"]).sha256 not in {first.sha256, second.sha256}


def test_the_stored_tree_is_read_only_and_readable_by_everyone(place) -> None:
    stored = store_upload(_bot_folder(place["in"]), place["store"])
    modes = {}
    for here, dirs, files in os.walk(stored.folder):
        for name in dirs + files:
            path = Path(here) / name
            if not path.is_symlink():
                modes[path.relative_to(stored.folder).as_posix()] = stat.S_IMODE(
                    path.stat().st_mode
                )
    assert modes == {
        "bot.py": 0o444,
        "run.sh": 0o555,
        "data": 0o555,
        "data/empty": 0o555,
        "data/weights.txt": 0o444,
    }
    assert stat.S_IMODE(stored.folder.stat().st_mode) == 0o555
    if os.geteuid() != 0:  # root writes through any mode
        with pytest.raises(PermissionError):
            (stored.folder / "bot.py").write_text("changed")
        with pytest.raises(PermissionError):
            (stored.folder / "new.py").write_text("added")


# --- whatever is accepted lies inside the store -----------------------------------------

# mostly harmless parts, so that many trees are accepted and then checked
PARTS = st.sampled_from(["a", "a", "b", "b", "c", "c", "..", ".", "", "é", "c d", "__pycache__"])
NAMES = st.tuples(st.sampled_from([""] * 9 + ["/"]), st.lists(PARTS, min_size=1, max_size=4)).map(
    lambda t: t[0] + "/".join(t[1])
)
MEMBERS = st.lists(
    st.tuples(
        st.sampled_from([tarfile.REGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE]),
        NAMES,
        NAMES,
        st.sampled_from([0o644] * 6 + [0o755] * 3 + [0o4755]),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(members=MEMBERS)
def test_whatever_is_accepted_lies_inside_the_store(members) -> None:
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        (root / "victim").write_text("untouched\n")
        store = root / "outer" / "store"
        store.mkdir(parents=True)
        source = _tar(
            root / "random.tgz",
            [
                _member(path, kind, data=path.encode(), linkname=target, mode=mode)
                for kind, path, target, mode in members
            ],
        )
        before = _snapshot(root, store)
        try:
            stored = store_upload(source, store)
        except UploadRefused:
            assert list(store.iterdir()) == []
        else:
            assert [p.name for p in store.iterdir()] == [stored.sha256]
            inside = os.path.realpath(stored.folder)
            for here, dirs, files in os.walk(stored.folder):
                for entry in dirs + files:
                    path = Path(here) / entry
                    assert os.path.realpath(path).startswith(inside + os.sep)
                    info = path.lstat()
                    assert stat.S_IFMT(info.st_mode) in (stat.S_IFREG, stat.S_IFDIR, stat.S_IFLNK)
                    assert info.st_mode & 0o7000 == 0
        assert _snapshot(root, store) == before


def test_a_killed_submissions_unpacking_folder_is_swept_once_stale(tmp_path: Path) -> None:
    from arena.ladder.uploads import sweep_incoming

    store = tmp_path / "store"
    old, new = store / ".incoming-old", store / ".incoming-new"
    for folder in (old, new):
        (folder / "sub").mkdir(parents=True)
        (folder / "sub" / "f").write_text("x")
    os.utime(old, (0, 0))
    assert sweep_incoming(store) == 1
    assert not old.exists() and new.exists()
    assert sweep_incoming(tmp_path / "nowhere") == 0
