"""The sandbox a started bot runs in: bubblewrap namespaces, its own user, and limits.

A bot is untrusted code. Every started bot runs as a wrapper command line, built here
(no `preexec_fn`, no `Popen(user=...)`: in a process that has used gRPC those fork
paths can crash the child):

    sh [joins the bot's cgroup: arena.bots.confinement.cgroups]
      bwrap --args FD [namespaces, a fresh root of read-only binds, a seccomp filter]
        setpriv [the bot slot's own unprivileged user, no capabilities]   (when root)
          prlimit [processes, open files, file size, CPU time, memory]
            the bot's command

- namespaces: process, network (nothing but its own loopback), IPC, UTS, mount, and
  a new session; `--die-with-parent` ends it with the referee, and when the bot's main
  process ends the namespace's init ends every process left in it, however it forked;
- filesystem: a fresh root holding read-only binds of the runtime (system `/usr`, the
  Python installation and virtualenv, the `arena` package, a few files of `/etc`) and
  of the bot's own folder; a small private `/tmp` and `/dev/shm`; and, writable, the
  one folder it shares with the referee, where it creates its socket (a tiny tmpfs
  of the slot's own, when root);
- system calls: the filter of `arena.bots.confinement.seccomp` denies (EPERM) what namespaces do
  not isolate: kernel keyrings, new namespaces, mounts, io_uring, BPF, ptrace, ...;
  bubblewrap's options come from a memfd, so /proc/1/cmdline shows no host path;
- a user id per concurrent bot slot (a lock file per slot), so limits on processes
  count that bot alone and its files and processes can be found and ended by user.

Where bubblewrap cannot run, `sandbox_problem` says why, once, in plain words; a
league then runs only if its file says `sandbox = "off"`, with the limits alone.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import os
import platform
import resource
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Collection
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path

import arena
from arena.bots.confinement.cgroups import cgroup_problem
from arena.bots.confinement.seccomp import data_fd, filter_fd, seccomp_problem
from arena.errors import ConfigError, SandboxError

MB = 1 << 20
SLOT_UID_BASE = 1_500_000  # far above any login or system user
MAX_SLOTS = 4096
INSIDE_SHARE = Path("/run/arena")  # where the shared socket folder appears to the bot
ETC_FILES = (  # what of /etc a runtime needs: libraries, certificates, time, the JVM's
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "ssl",
    "ca-certificates",
    "localtime",
    "nsswitch.conf",
    "hosts",
    "java-17-openjdk",
    "java-21-openjdk",
    "mime.types",
    "host.conf",
)


class SandboxMode(StrEnum):
    """Whether started bots are confined (`on`, the default) or run with the resource
    limits only (`off`): the league file's `sandbox` and the CLI's `--sandbox`."""

    ON = "on"
    OFF = "off"


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits for one bot and everything it starts (league `[limits]`).

    The defaults let Python, Node.js and JVM bots run (a JVM needs about 512 MB of data
    and 4 GB of address space to start with its default heap). A default above the hard
    limit the arena itself runs under (`ulimit -v` below 4096 MB, say) is lowered to
    that limit, which no bot could exceed anyway (`fitted_notes` says so); a value a
    league file gives is never changed, only refused when too large.
    """

    processes: int = field(default_factory=lambda: _fitted("processes", 256))  # RLIMIT_NPROC
    open_files: int = field(default_factory=lambda: _fitted("open_files", 1024))  # per process
    file_size_mb: int = field(default_factory=lambda: _fitted("file_size_mb", 64))  # largest file
    cpu_seconds: int = field(default_factory=lambda: _fitted("cpu_seconds", 600))  # per process
    # writable private memory per process (RLIMIT_DATA), and virtual memory (RLIMIT_AS)
    memory_mb: int = field(default_factory=lambda: _fitted("memory_mb", 1024))
    address_space_mb: int = field(default_factory=lambda: _fitted("address_space_mb", 4096))
    tmp_mb: int = 64  # size of its private /tmp, and again of /dev/shm
    cpus: float = 1.0  # CPU quota of the bot's cgroup, in cores (fractions allowed)
    # memory of all one entrant's processes together (every rotation slot, every worker
    # of a run), and of all the grouped bots of a run on one machine; 0: the default,
    # `entrant_memory` and `bots_memory` (docs/sandbox.md, "Memory in all")
    entrant_memory_mb: int = 0
    bots_memory_mb: int = 0

    def entrant_memory(self) -> int:
        """entrant_memory_mb, or its default: ENTRANT_MEMORY_SLOTS x memory_mb, room for
        one process at its whole limit and the entrant's other processes beside it."""
        return self.entrant_memory_mb or ENTRANT_MEMORY_SLOTS * self.memory_mb

    def bots_memory(self) -> int:
        """bots_memory_mb, or its default: BOTS_MEMORY_SHARE of this machine's memory (the
        machine the bots run on: a cluster worker reads its own), and never below one
        entrant's limit; 0 (no limit of its own) where the machine does not say."""
        if self.bots_memory_mb:
            return self.bots_memory_mb
        memory = machine_memory_mb()
        return max(int(memory * BOTS_MEMORY_SHARE), self.entrant_memory()) if memory else 0

    def prlimit_args(self, with_processes: bool) -> list[str]:
        args = [
            f"--nofile={self.open_files}",
            f"--fsize={self.file_size_mb * MB}",
            f"--cpu={self.cpu_seconds}",
            f"--data={self.memory_mb * MB}",
            f"--as={self.address_space_mb * MB}",
            "--core=0",
        ]
        if with_processes:  # per real user: only meaningful when the bot has its own
            args.insert(0, f"--nproc={self.processes}")
        return args

    def check(self, given: Collection[str] | None = None) -> None:
        """ConfigError naming the first limit this machine cannot grant, with the largest
        value it can (`ceilings`). A limit above the kernel's hard limit would make
        prlimit fail when a bot starts (inside the sandbox nothing may raise a hard
        limit), and that would be charged to the bot as a start failure.

        `given`: the keys the user set (None: all). The machine's memory bounds only
        those: a default above it is granted by the kernel all the same."""
        given = set(_LIMIT_KEYS if given is None else given)
        for key, (largest, why) in self.ceilings(given).items():
            value = getattr(self, key)
            if value > largest:
                said = "" if key in given else " (the default)"
                raise ConfigError(f"{key}{said} must be at most {largest}, {why}; got {value}")
        for outer, inner, value, least in (
            ("entrant_memory_mb", "memory_mb", self.entrant_memory_mb, self.memory_mb),
            ("bots_memory_mb", "entrant_memory_mb", self.bots_memory_mb, self.entrant_memory()),
        ):
            if value and value < least:  # the outer limit would make the inner one void
                whose = "" if inner in given else " (the default)"
                raise ConfigError(
                    f"{outer} must be at least {inner}{whose}, {least}: it holds all of "
                    f"what {inner} holds each of (raise {outer} or lower {inner}); got {value}"
                )

    def ceilings(self, given: Collection[str] = ()) -> dict[str, tuple[float, str]]:
        """Per key, the largest value allowed here and why: the arena's own bound (so a
        limit times its unit fits the kernel's 64 bits), the kernel's hard limit on
        this process (`resource.getrlimit`), and for `memory_mb` (and `tmp_mb`, held in
        memory) the machine's memory when the key is in `given`; `memory_mb` never
        above `address_space_mb`. With several bounds, the smallest is named."""
        out: dict[str, tuple[float, str]] = {}
        memory = machine_memory_mb()
        for key in _LIMIT_KEYS:
            top, why = ARENA_CEILINGS[key]
            bounds = [(top, why)]
            if key in KERNEL_LIMITS:
                words, name, resource_id = KERNEL_LIMITS[key]
                hard = resource.getrlimit(resource_id)[1]
                if hard != resource.RLIM_INFINITY:
                    why = f"the hard limit of {words} ({name}) on this machine"
                    bounds.append((hard // _UNITS.get(key, 1), why))
            if key == "cpus":  # a quota above the cores would bound nothing
                cores = os.cpu_count() or 1
                bounds.append((float(cores), f"this machine's {cores} core(s)"))
            if key in MEMORY_KEYS and key in given and memory:
                bounds.append((memory, "this machine's memory"))
            if key == "memory_mb":
                whose = "" if "address_space_mb" in given else " (the default)"
                bounds.append(
                    (
                        self.address_space_mb,
                        f"address_space_mb{whose}: a process's memory cannot exceed its "
                        "address space (raise address_space_mb or lower memory_mb)",
                    )
                )
            out[key] = min(bounds, key=lambda bound: bound[0])
        return out


_LIMIT_KEYS = tuple(f.name for f in fields(SandboxLimits))
ENTRANT_MEMORY_SLOTS = 2  # entrant_memory_mb's default, in memory_mb (docs/sandbox.md)
BOTS_MEMORY_SHARE = 0.5  # bots_memory_mb's default, a share of the machine's memory
DERIVED_LIMITS = ("entrant_memory_mb", "bots_memory_mb")  # 0 in the dataclass: a default
MEMORY_KEYS = ("memory_mb", "tmp_mb", *DERIVED_LIMITS)  # at most the machine's, when given
_UNITS = {"file_size_mb": MB, "memory_mb": MB, "address_space_mb": MB, "tmp_mb": MB}
KERNEL_LIMITS = {  # the keys prlimit sets: the resource in words, its name, its number
    "processes": ("processes of one user", "RLIMIT_NPROC", resource.RLIMIT_NPROC),
    "open_files": ("open files per process", "RLIMIT_NOFILE", resource.RLIMIT_NOFILE),
    "file_size_mb": ("the file size", "RLIMIT_FSIZE", resource.RLIMIT_FSIZE),
    "cpu_seconds": ("CPU seconds per process", "RLIMIT_CPU", resource.RLIMIT_CPU),
    "memory_mb": ("data memory per process", "RLIMIT_DATA", resource.RLIMIT_DATA),
    "address_space_mb": ("the address space per process", "RLIMIT_AS", resource.RLIMIT_AS),
}
ARENA_CEILINGS = {  # bounds of the arena's own, whatever the kernel allows (docs/sandbox.md)
    "processes": (4_194_304, "the most processes Linux can have (PID_MAX_LIMIT)"),
    "open_files": (1 << 30, "about the most open files Linux allows a process (fs.nr_open)"),
    "file_size_mb": (1 << 20, "1 TiB"),
    "cpu_seconds": (604_800, "a week"),
    "memory_mb": (1 << 27, "128 TiB, a 64-bit process's whole address space"),
    "address_space_mb": (1 << 27, "128 TiB, a 64-bit process's whole address space"),
    "tmp_mb": (1 << 20, "1 TiB"),
    "cpus": (4096.0, "4096 cores"),
    "entrant_memory_mb": (1 << 27, "128 TiB, a 64-bit process's whole address space"),
    "bots_memory_mb": (1 << 27, "128 TiB, a 64-bit process's whole address space"),
}
NOMINAL_DEFAULTS = {  # the defaults docs/sandbox.md names, before `_fitted`
    "processes": 256, "open_files": 1024, "file_size_mb": 64, "cpu_seconds": 600,
    "memory_mb": 1024, "address_space_mb": 4096,
}  # fmt: skip


def _hard_limit(key: str) -> int | None:
    """The hard limit this process runs under for `key`, in the key's unit (None: none)."""
    hard = resource.getrlimit(KERNEL_LIMITS[key][2])[1]
    return None if hard == resource.RLIM_INFINITY else hard // _UNITS.get(key, 1)


def _fitted(key: str, default: int) -> int:
    """`default`, or the hard limit the arena runs under when that is lower (and for
    memory_mb, never above the fitted address space)."""
    hard = _hard_limit(key)
    value = default if hard is None else max(1, min(default, hard))
    if key == "memory_mb":
        value = min(value, _fitted("address_space_mb", NOMINAL_DEFAULTS["address_space_mb"]))
    return value


def fitted_notes(limits: SandboxLimits) -> list[str]:
    """A line for each limit that is below its documented default because the arena
    runs under a lower hard limit (`ulimit -v` below the default, say): what it is
    here, and why."""
    notes = []
    for key, nominal in NOMINAL_DEFAULTS.items():
        value = getattr(limits, key)
        if value < nominal and value == _fitted(key, nominal):
            words, name, _ = KERNEL_LIMITS[key]
            notes.append(
                f"note: {key} is {value} here, not its default {nominal}: the arena runs "
                f"under a hard limit of {words} ({name}) that allows no more, and no bot "
                "could be given more (docs/sandbox.md)"
            )
    return notes


SMALLEST_CPUS = 0.01  # the kernel's smallest CFS quota is 1 ms a 100 ms period


def machine_memory_mb() -> int:
    """This machine's physical memory in MB (0 when the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // MB
    except (OSError, ValueError):
        return 0


@dataclass(frozen=True)
class Sandbox:
    """How started bots are confined: `enabled` false means limits only."""

    enabled: bool = True
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    hidden: tuple[Path, ...] = ()  # host files never shown to a bot (the league's database)
    group: str = ""  # the cgroup group its processes share a CPU quota in (one entrant's)


@functools.cache
def sandbox_problem() -> str | None:
    """Why bots cannot be sandboxed on this machine, or None when they can."""
    for tool in ("bwrap", "prlimit") + (("setpriv",) if os.geteuid() == 0 else ()):
        if shutil.which(tool) is None:
            package = "bubblewrap" if tool == "bwrap" else "util-linux"
            return (
                f"the bot sandbox needs `{tool}`, which is not installed (Debian package "
                f"{package}; `make test` and `make demo` install it when run as root)"
            )
    filtered = seccomp_problem()
    if filtered:
        return f"the bot sandbox's system-call filter is missing: {filtered}"
    seccomp = filter_fd()
    probe = [
        *_namespace_args(),
        "--ro-bind",
        "/usr",
        "/usr",
        *_usr_links(),
        "--seccomp",
        str(seccomp),
        "--",
        "true",
    ]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=20, pass_fds=(seccomp,))
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"bubblewrap could not be run: {err}"
    finally:
        os.close(seccomp)
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip() or f"exit code {done.returncode}"
        return f"bubblewrap cannot create namespaces here ({why})"
    return None


def sandbox_notice(enabled: bool, opt_out: str) -> str | None:
    """What to tell the user, once, before started bots run: a sentence when they run
    without the sandbox or without users of their own, else None. SandboxError when the
    sandbox is wanted and this machine cannot give it; `opt_out` says how to go
    without (e.g. 'pass --sandbox off')."""
    if not enabled:
        off = (
            "the sandbox is off: started bots run with resource limits only, as the "
            "arena's user, and can read what it can"
        )
        return f"{off}; and {cgroup_notice()}" if cgroup_problem() else off
    problem = sandbox_problem()
    if problem:
        raise SandboxError(
            f"cannot sandbox the bots: {problem}. Install bubblewrap, or {opt_out} to run "
            "bots you trust with resource limits only"
        )
    notes = []
    if not per_bot_users():
        notes.append(
            "the arena is not running as root, so sandboxed bots share its user id (in a "
            "user namespace) instead of a user each, and their socket folder is a host "
            "folder rather than a tiny tmpfs of their own; every other protection holds"
        )
    if cgroup_problem():
        notes.append(cgroup_notice())
    return "; and ".join(notes) or None


def cgroup_notice() -> str:
    """The sentence that says bots get no cgroup here, and what holds instead."""
    return (
        f"bots get no cgroup of their own here ({cgroup_problem()}), so memory_mb "
        "bounds each of a bot's processes rather than the bot as a whole, processes "
        "counts its user's processes, and cpus is not applied"
    )


def per_bot_users() -> bool:
    """Each bot slot gets its own user id only when the arena runs as root; otherwise
    bots run as the arena's user inside a user namespace."""
    return os.geteuid() == 0


class Slot:
    """One concurrent bot slot: a user id held through a lock file until released, and
    two folders inside the slots' private folder, emptied whenever the slot is taken:
    `share`, the bot's own (its socket; bound at /run/arena in the sandbox), and
    `private`, the referee's (its checked link to the socket).

    As root both folders live in a tiny tmpfs of the slot's own (`SHARE_TMPFS`): a bot
    can put its socket there and little else, so it cannot fill the host's disk through
    its one writable folder, and the referee's hard link stays on the same filesystem.
    Without root (no mounts) they are plain folders of the host's /tmp, emptied on
    release; each file there is bounded by `file_size_mb`, their number is not."""

    def __init__(self) -> None:
        folder = _slot_folder()
        if per_bot_users():
            _unmount_stale(folder)
        for index in range(MAX_SLOTS):
            fd = os.open(folder / f"slot-{index}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.index, self._fd = index, fd
            self.uid = SLOT_UID_BASE + index if per_bot_users() else os.getuid()
            self.gid = SLOT_UID_BASE + index if per_bot_users() else os.getgid()
            self.sweep()  # a previous run's leftovers under this user, if any
            self.mount: Path | None = None
            if per_bot_users():
                self.mount = _fresh_tmpfs(folder / f"share-{index}")
                self.share = _fresh(self.mount / "bot")
                self.private = _fresh(self.mount / "referee")
                os.chown(self.share, self.uid, self.gid)
            else:
                self.share = _fresh(folder / f"share-{index}")
                self.private = _fresh(folder / f"referee-{index}")
            return
        raise RuntimeError(f"all {MAX_SLOTS} bot sandbox slots are in use")

    def sweep(self) -> None:
        """SIGKILL every process of this slot's user: whatever escaped anything else."""
        if per_bot_users():
            kill_user(self.uid)

    def release(self) -> None:
        """End the slot's processes and leave its user id clean for the next holder:
        no files (the share folder's tmpfs is unmounted), no kernel keys. SysV IPC
        objects and /tmp and /dev/shm lived in the bot's own namespaces, gone with it."""
        self.sweep()
        if self.mount is not None:
            _unmount(self.mount)
            with contextlib.suppress(OSError):
                self.mount.rmdir()
        else:
            for folder in (self.share, self.private):
                shutil.rmtree(folder, ignore_errors=True)
        if per_bot_users():
            clear_keys(self.uid, self.gid)
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


SHARE_TMPFS = "size=64k,nr_inodes=16,mode=0755"  # the socket, the link, and little else
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MNT_DETACH = 2, 4, 8, 2


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _fresh_tmpfs(point: Path) -> Path:
    """A new empty tmpfs, owned by root, mounted at `point` (one a killed run left
    there is detached first)."""
    if os.path.ismount(point):
        _unmount(point)
    shutil.rmtree(point, ignore_errors=True)
    point.mkdir(mode=0o755)
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    if _libc().mount(b"tmpfs", bytes(point), b"tmpfs", flags, SHARE_TMPFS.encode()) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"cannot mount the bot's socket tmpfs on {point}: {os.strerror(err)}")
    return point


def _unmount_stale(folder: Path) -> None:
    """Detach the socket tmpfs a killed referee left mounted on a slot no one holds
    (its lock is free), so that no later holder of the slot, of any arena version,
    finds a mount where it expects a folder. Reads one /proc file when there is none."""
    with open("/proc/self/mountinfo") as f:
        points = [line.split()[4] for line in f if f" {folder}/share-" in line]
    for point in points:
        index = point.rsplit("-", 1)[-1]
        if not index.isdigit():
            continue
        fd = os.open(folder / f"slot-{index}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue  # held: a live slot's own mount
        try:  # under the slot's lock: no one can mount there meanwhile
            _unmount(Path(point))
            with contextlib.suppress(OSError):
                os.rmdir(point)
        finally:
            os.close(fd)


def _unmount(point: Path) -> None:
    """Detach the tmpfs at `point` (lazily: a file still open there cannot block it)."""
    _libc().umount2(bytes(point), _MNT_DETACH)


KEY_USERS = Path("/proc/key-users")
_KEYCTL = {"x86_64": 250, "aarch64": 219}  # the keyctl system call's number
KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = 7, -4, -5


USER_KEYRINGS = 2  # a user's own keyring and its user-session keyring, made together


def key_users() -> set[int]:
    """The user ids that hold kernel keys beyond their own two (empty) keyrings, from
    /proc/key-users (readable by all). Its `qnkeys` count includes the keyrings,
    which stay once made, and drops a moment after keys are cleared (when the
    kernel's key collector has run)."""
    try:
        lines = KEY_USERS.read_text().splitlines()
    except OSError:
        return set()
    found = set()
    for line in lines:
        uid, _, counts = line.partition(":")
        fields = counts.split()
        if len(fields) >= 3 and int(fields[2].split("/")[0]) > USER_KEYRINGS:
            found.add(int(uid))
    return found


def clear_keys(uid: int, gid: int) -> None:
    """Empty the user keyrings of `uid`, if it holds keys: they are per user id and
    outlive its processes, so one bot could leave keys for the next on its slot. The
    seccomp filter denies bots every key call; this clears what an unfiltered run left.
    Costs nothing when the uid holds no keys (the usual case), else one short process
    run as that user (only the user itself can reach its keyring)."""
    number = _KEYCTL.get(platform.machine())
    if uid not in key_users() or number is None or shutil.which("setpriv") is None:
        return
    code = (
        "import ctypes; s = ctypes.CDLL(None).syscall; "
        f"s({number}, {KEYCTL_CLEAR}, {KEY_SPEC_USER_KEYRING}); "
        f"s({number}, {KEYCTL_CLEAR}, {KEY_SPEC_USER_SESSION_KEYRING})"
    )
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        subprocess.run(
            [
                "setpriv",
                f"--reuid={uid}",
                f"--regid={gid}",
                "--clear-groups",
                "--",
                sys.executable,
                "-I",
                "-S",
                "-c",
                code,
            ],
            capture_output=True,
            timeout=10,
            close_fds=True,
        )


def _slot_folder() -> Path:
    """One folder of slot locks per machine and user, whatever TMPDIR says: two runs
    that took the same slot from different folders would end each other's bots."""
    folder = Path("/tmp") / f"arena-slots-{os.geteuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
        raise RuntimeError(f"{folder} is not a private folder of this user: remove it")
    return folder


def kill_user(uid: int) -> int:
    """SIGKILL every process whose real user id is `uid`; how many were signalled."""
    if uid == 0 or uid == os.getuid():
        raise ValueError("refusing to kill the arena's own user")
    killed = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as f:
                for line in f:
                    if line.startswith(b"Uid:"):
                        if int(line.split()[1]) == uid:
                            os.kill(int(entry.name), signal.SIGKILL)
                            killed += 1
                        break
        except (OSError, ValueError):
            continue
    return killed


def _fresh(folder: Path) -> Path:
    """`folder` emptied (a killed run may have left files there) and private."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700)
    return folder


def trusted_socket(path: Path, slot: Slot, private: Path) -> Path:
    """Hard-link the bot's socket into the referee's `private` folder after checking it.

    The link is checked, not the name: a bot may swap its socket for a link to another
    bot's socket at any moment, but the referee's own link cannot be swapped, and it is
    a socket owned by the slot's user or it is refused (ValueError says what it was).
    """
    target = private / "bot.sock"
    with contextlib.suppress(FileNotFoundError):
        target.unlink()
    os.link(path, target, follow_symlinks=False)
    info = os.lstat(target)
    if not stat.S_ISSOCK(info.st_mode) or info.st_uid != slot.uid:
        target.unlink()
        kind = "a socket" if stat.S_ISSOCK(info.st_mode) else "not a socket"
        raise ValueError(f"{path} is {kind} owned by user {info.st_uid}, not the bot's user")
    return target


def first_file_argument(argv: list[str], cwd: Path | None) -> Path | None:
    """A bot's own script or jar: its first argument naming a file, resolved (None when
    no argument does)."""
    base = cwd or Path.cwd()
    for arg in argv[1:]:
        if arg.startswith("-"):
            continue
        candidate = Path(arg) if os.path.isabs(arg) else base / arg
        if candidate.is_file():
            return candidate.resolve()
    return None


def bot_folder(argv: list[str], cwd: Path | None) -> Path:
    """The folder a bot's own files live in: that of its first argument naming a file
    (the script or jar), else that of its program."""
    own = first_file_argument(argv, cwd)
    if own is not None:
        return own.parent
    base = cwd or Path.cwd()
    program = Path(argv[0]) if "/" in argv[0] else Path(shutil.which(argv[0]) or argv[0])
    if not program.is_absolute():
        program = base / program
    return program.resolve().parent


@dataclass
class Command:
    """A wrapped command line and the file descriptors it reads (bubblewrap's options
    and its seccomp filter, in memfds): pass `fds` to `subprocess.Popen(pass_fds=...)`
    and `close` them once it has started."""

    argv: list[str]
    fds: tuple[int, ...] = ()

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds = ()


def wrap(
    argv: list[str],
    sandbox: Sandbox,
    slot: Slot | None,
    *,
    share: Path,
    cwd: Path | None,
    variables: dict[str, str],
) -> Command:
    """The full command line that runs `argv` confined with the environment
    `variables` and nothing else (or, with the sandbox off, under the limits only).
    The bot starts in its own folder, so paths in `argv` must be absolute
    (`arena.bots.process.command_argv` makes them so).

    bubblewrap's own options are handed to it in a memfd (`--args FD`), not on its
    command line: the sandbox's process 1 is bubblewrap, and a bot reading
    /proc/1/cmdline would otherwise see every host path bound into it."""
    limits = ["prlimit", *sandbox.limits.prlimit_args(False), "--"]
    if not sandbox.enabled or slot is None:
        return Command(limits + argv)
    own = bot_folder(argv, cwd)
    if per_bot_users():
        _check_readable(own)
    binds = _read_only_paths(argv, own)
    args = [*_namespace_args()[1:], "--die-with-parent", "--new-session", "--clearenv"]
    for key, value in (
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
        ("HOME", "/tmp"),
        ("LANG", "C.UTF-8"),
        ("TMPDIR", "/tmp"),
        *variables.items(),
    ):
        args += ["--setenv", key, value]
    args += ["--ro-bind", "/usr", "/usr", *_usr_links()]
    size = str(sandbox.limits.tmp_mb * MB)  # before the binds: a bot folder may be in /tmp
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--size", size, "--perms", "1777", "--tmpfs", "/tmp"]
    args += ["--size", size, "--perms", "1777", "--tmpfs", "/dev/shm"]
    made: set[Path] = {Path("/"), Path("/usr"), Path("/etc"), Path("/tmp"), Path("/run")}
    args += ["--perms", "0755", "--dir", "/etc", "--perms", "0755", "--dir", "/run"]
    for name in ETC_FILES:
        source = Path("/etc") / name
        if source.exists():
            args += ["--ro-bind", str(source), str(source)]
    for path in binds:
        args += _parents(path, made) + ["--ro-bind", str(path), str(path)]
    for hidden in sandbox.hidden:  # covered: an empty folder, or an empty file
        if any(hidden.is_relative_to(b) for b in binds) and hidden.exists():
            cover = ["--tmpfs"] if hidden.is_dir() else ["--ro-bind", "/dev/null"]
            args += [*cover, str(hidden)]
    args += ["--bind", str(share), str(INSIDE_SHARE), "--chdir", str(own)]
    inner: list[str] = []
    if per_bot_users():
        inner += [
            "setpriv",
            f"--reuid={slot.uid}",
            f"--regid={slot.gid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--",
        ]
    inner += ["prlimit", *sandbox.limits.prlimit_args(True), "--"]
    seccomp = filter_fd()
    try:
        args += ["--seccomp", str(seccomp)]
        options = data_fd("arena-bwrap-args", b"".join(a.encode() + b"\0" for a in args))
    except OSError:
        os.close(seccomp)
        raise
    return Command(["bwrap", "--args", str(options), "--", *inner, *argv], (seccomp, options))


def _check_readable(folder: Path) -> None:
    """A sandboxed bot runs as a user of its own, so its folder must be open to others
    (SandboxError saying what to change, rather than a bot that cannot read itself)."""
    if folder.stat().st_mode & 0o005 != 0o005:
        raise SandboxError(
            f"the bot's folder {folder} cannot be read by other users, and a sandboxed bot "
            f"runs as a user of its own: `chmod o+rx {folder}` (and o+r on its files), "
            "or run without the sandbox"
        )


def _namespace_args() -> list[str]:
    args = [
        "bwrap",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
    ]
    if not per_bot_users():
        args.append("--unshare-user")
    return args


def _usr_links() -> list[str]:
    """/bin, /lib, ... as the host has them: links into /usr (merged /usr) or binds."""
    args: list[str] = []
    for name in ("bin", "sbin", "lib", "lib64", "lib32"):
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            args += ["--ro-bind", str(host), str(host)]
    return args


@functools.cache
def protocol_file() -> Path | None:
    """The protocol's .proto (`protos/arena/v1/bot.proto` beside the arena package, as
    a checkout or an editable install has it), which a bot that loads the protocol at
    run time is told of in $ARENA_PROTO; None when this installation has none."""
    path = Path(arena.__file__).resolve().parent.parent / "protos" / "arena" / "v1" / "bot.proto"
    return path if path.is_file() else None


def _read_only_paths(argv: list[str], own: Path) -> list[Path]:
    """The runtime a bot needs beyond /usr (Python, the virtualenv, the `arena` SDK
    and the protocol's .proto files), and its own folder, without duplicates."""
    package = Path(arena.__file__).resolve().parent
    protos = package.parent / "protos"  # the public protocol, which bots may load
    wanted = [Path(sys.base_prefix).resolve(), Path(sys.prefix), package, protos, own]
    program = Path(argv[0])
    if program.is_absolute():
        wanted.append(program.resolve().parent)
    out: list[Path] = []
    for path in wanted:
        if str(path).startswith(("/usr/", "/etc/")) or not path.exists():
            continue
        if any(path.is_relative_to(p) for p in out):
            continue
        out = [p for p in out if not p.is_relative_to(path)] + [path]
    return out


def _parents(path: Path, made: set[Path]) -> list[str]:
    """`--dir` for every missing ancestor of `path`, searchable by the bot's user
    (bubblewrap would otherwise create them readable by root alone)."""
    args: list[str] = []
    for parent in reversed(path.parents):
        if parent not in made:
            made.add(parent)
            args += ["--perms", "0755", "--dir", str(parent)]
    return args
