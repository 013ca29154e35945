"""A control group per started bot: limits on the bot as a whole, not per process.

The kernel's per-process limits (prlimit) leave a bot free to fork and hoard: each
process may hold `memory_mb`, shared memory and memfds count nowhere, and every
process may spin a core. A cgroup of its own holds all of a bot's processes to one
memory total (anonymous, shared, tmpfs and memfd pages alike), one count of
processes, and a CPU quota with a weight equal for every bot.

The bot's cgroups are made below the cgroup the arena itself is in (per controller,
from /proc/self/cgroup), so the arena never touches a cgroup outside its own. cgroup
v2 is used where the arena's cgroup hands the memory, cpu and pids controllers to its
children; else cgroup v1's memory, cpu, cpuacct and pids hierarchies; else none, and
`cgroup_problem` says why (the bots then have the per-process limits alone).

Memory is held at three levels, each counting everything below it (docs/sandbox.md):

    arena-bot-NS-OWNER-bots        all the grouped bots of one run here: bots_memory_mb
      arena-bot-NS-OWNER-group-X   one entrant's processes, every slot: entrant_memory_mb
        arena-bot-NS-PID-ID        one started bot (a rotation slot): memory_mb

so neither an entrant that forks in each of its slots nor a mix of entrants can take
the machine's memory from the referee, the store's writer or a web server: they are
outside these cgroups, and a limit reached inside one ends a process inside it. Every
bot also raises its own oom_score_adj to the most, so that should the machine itself run
short, the kernel ends bots before anything else.

A process joins before it execs: the command line is prefixed with a shell that
writes its own pid into each cgroup.procs and then execs the bot's command (no
`preexec_fn`: gRPC makes it unsafe), so every process of the bot is born inside.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import shlex
import signal
import time
from dataclasses import dataclass
from pathlib import Path

MB = 1 << 20
CFS_PERIOD_US = 100_000
V1_SHARES = 1024  # cpu.shares of every bot: equal weights, none starves another
V2_WEIGHT = 100
V1_CONTROLLERS = ("memory", "cpu", "cpuacct", "pids")
V2_CONTROLLERS = ("memory", "cpu", "pids")
PREFIX = "arena-bot"
BOT_OOM_SCORE_ADJ = 1000  # bots are the kernel's first choice when the machine runs short
V2_EVENTS = "memory.events.local"  # its `max`: how often this level's own limit was reached
V1_PEAK_SLACK = MB  # a v1 peak this close to its limit reached it (charges come in batches)
LEVELS = ("memory_mb", "entrant_memory_mb", "bots_memory_mb")  # the slot, entrant and run


@dataclass(frozen=True)
class Hierarchy:
    """Where the arena's own cgroups are: one folder per v1 controller, or one v2."""

    version: int
    folders: dict[str, Path]  # controller -> the arena's own cgroup folder

    def parents(self) -> list[Path]:
        """Each distinct folder once (co-mounted v1 controllers share one)."""
        return list(dict.fromkeys(self.folders.values()))


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(root, mount point, filesystem type, super options) of every cgroup mount."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            before, _, after = line.partition(" - ")
            fields, tail = before.split(), after.split()
            if len(fields) < 5 or len(tail) < 3 or not tail[0].startswith("cgroup"):
                continue
            options = set(tail[2].split(","))
            found.append((fields[3], fields[4].replace("\\040", " "), tail[0], options))
    return found


def _own_paths() -> dict[str, str]:
    """The arena's cgroup per v1 controller name, and '' for the v2 hierarchy."""
    paths: dict[str, str] = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _id, controllers, path = line.rstrip("\n").split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                paths[name] = path
    return paths


def _inside(mount_point: str, root: str, path: str) -> Path | None:
    """The folder of cgroup `path` in a hierarchy mounted at `mount_point` from
    `root`, or None when the mount does not show it."""
    if root != "/" and not (path + "/").startswith(root.rstrip("/") + "/"):
        return None
    relative = os.path.relpath(path, root).removeprefix(".")
    folder = Path(mount_point) / relative.lstrip("/")
    return folder if folder.is_dir() else None


def own_cgroup_folder(controller: str) -> Path | None:
    """The folder of this process's own cgroup of a v1 `controller` ("cpuacct"), or of
    its v2 cgroup for "", where it is mounted, visible and writable; else None. (The
    league bench counts a run's CPU in a cgroup it makes there, arena/bench/league.py.)"""
    try:
        mounts, own = _mounts(), _own_paths()
    except (OSError, ValueError):
        return None
    for root, point, kind, options in mounts:
        wanted = kind == "cgroup2" if controller == "" else controller in options
        if wanted and kind.startswith("cgroup") and controller in own:
            folder = _inside(point, root, own[controller])
            if folder is not None and os.access(folder, os.W_OK):
                return folder
    return None


def _v2(mounts, own) -> tuple[Hierarchy | None, str]:
    for root, point, kind, _options in mounts:
        if kind != "cgroup2" or "" not in own:
            continue
        folder = _inside(point, root, own[""])
        if folder is None:
            return None, f"the arena's cgroup v2 is not visible under {point}"
        try:
            delegated = set((folder / "cgroup.subtree_control").read_text().split())
        except OSError as err:
            return None, f"cgroup v2 cannot be read ({err})"
        missing = [c for c in V2_CONTROLLERS if c not in delegated]
        if not os.access(folder, os.W_OK):
            return None, f"the arena may not make cgroups in {folder}"
        if missing and not _delegate(folder, missing):
            return None, (
                f"cgroup v2 at {folder} does not hand its children the "
                f"{', '.join(missing)} controller(s), and the arena cannot enable them "
                "there (it must be alone in its cgroup to move into a leaf of it)"
            )
        return Hierarchy(2, dict.fromkeys(V2_CONTROLLERS, folder)), ""
    return None, "no cgroup v2 hierarchy is mounted"


def _delegate(folder: Path, missing: list[str]) -> bool:
    """Enable `missing` for the children of the arena's own v2 cgroup `folder`. A v2
    cgroup with processes in it cannot hand controllers to children, so the arena,
    when it is alone there (a cgroup delegated to it, e.g. systemd's Delegate=yes),
    first moves itself into a leaf below (`referee-PID`); everything stays inside its
    own cgroup. False, changing nothing it cannot undo, when that cannot be done."""
    try:
        available = set((folder / "cgroup.controllers").read_text().split())
        alone = (folder / "cgroup.procs").read_text().split() == [str(os.getpid())]
    except OSError:
        return False
    if not alone or any(c not in available for c in missing):
        return False
    leaf = folder / f"referee-{os.getpid()}"
    try:
        leaf.mkdir(exist_ok=True)
        _write(leaf / "cgroup.procs", str(os.getpid()))
        _write(folder / "cgroup.subtree_control", " ".join(f"+{c}" for c in missing))
    except OSError:
        with contextlib.suppress(OSError):  # back where it was
            _write(folder / "cgroup.procs", str(os.getpid()))
            leaf.rmdir()
        return False
    return True


def _v1(mounts, own) -> tuple[Hierarchy | None, str]:
    folders: dict[str, Path] = {}
    for name in V1_CONTROLLERS:
        for root, point, kind, options in mounts:
            if kind == "cgroup" and name in options and name in own:
                folder = _inside(point, root, own[name])
                if folder is not None:
                    folders[name] = folder
                break
        if name not in folders:
            return None, f"no cgroup v1 {name} controller holds the arena's cgroup"
        if not os.access(folders[name], os.W_OK):
            return None, f"the arena may not make cgroups in {folders[name]}"
    for root, point, kind, options in mounts:  # optional: pauses a bot between its games
        if kind == "cgroup" and "freezer" in options and "freezer" in own:
            folder = _inside(point, root, own["freezer"])
            if folder is not None and os.access(folder, os.W_OK):
                folders["freezer"] = folder
            break
    return Hierarchy(1, folders), ""


@functools.cache
def hierarchy() -> Hierarchy | None:
    """The cgroups to make bots' cgroups in, or None (`cgroup_problem` says why)."""
    return _detect()[0]


@functools.cache
def cgroup_problem() -> str | None:
    """Why bots get no cgroup of their own here, in plain words; None when they do."""
    return _detect()[1] or None


@functools.cache
def _detect() -> tuple[Hierarchy | None, str]:
    try:
        mounts, own = _mounts(), _own_paths()
    except (OSError, ValueError) as err:
        return None, f"the cgroups of this process cannot be read ({err})"
    found, why2 = _v2(mounts, own)
    if found:
        return found, ""
    found, why1 = _v1(mounts, own)
    if found:
        return found, ""
    return None, f"{why2}, and {why1}"


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


class BotCgroup:
    """The cgroup (one folder per v1 controller) of one started bot process."""

    def __init__(self, where: Hierarchy, name: str, group: str = "") -> None:
        self.version = where.version
        self.name = name
        self.group = group
        below = Path(group) / name if group else Path(name)
        self.folders = {c: parent / below for c, parent in where.folders.items()}
        self._cpu_fd = -1
        self._stat_fds: list[int] | None = None  # cpu.stat of itself and its group
        self.memory_mb = 0
        self.limits: dict[str, int] = {}  # LEVELS key -> its limit in MB, where it has one
        self._reached: dict[str, int] = {}  # v2: LEVELS key -> its limit reached, at start

    @classmethod
    def create(
        cls,
        name: str,
        *,
        memory_mb: int,
        processes: int,
        cpus: float,
        group: str = "",
        entrant_memory_mb: int = 0,
        bots_memory_mb: int = 0,
    ) -> BotCgroup | None:
        """A new cgroup with these limits, or None where there are no cgroups to have.
        OSError when one cannot be made where they can (the bot is then not started).

        `group` (an `entrant_group` name): the cgroup is made inside it, and the group
        holds the CPU quota of all its members together: the processes one entrant has
        alive at once (a process per rotation slot, in every worker) share one `cpus`;
        and their memory together, `entrant_memory_mb`, inside the run's cgroup of all
        its grouped bots, `bots_memory_mb` (0: no limit of its own at that level). The
        limits of a group are set by the member that makes it."""
        where = hierarchy()
        if where is None:
            return None
        _sweep_stale()
        for attempt in range(3):  # a group's last member may remove it meanwhile: again
            try:
                if group:
                    _make_group(where, group, cpus, entrant_memory_mb, bots_memory_mb)
                made = cls(where, name, group)
                made._make(memory_mb, processes, cpus)
            except FileNotFoundError:
                if attempt == 2:
                    raise
                continue
            except OSError:
                made = cls(where, name, group)
                made.remove()
                raise
            made._levels()
            return made
        return None  # not reached

    def _levels(self) -> None:
        """The memory limits above the bot (its group's and its run's), and how often
        each was reached so far: `memory_limit` tells which one ended a process."""
        memory = self.folders["memory"]
        folders = [memory] + ([memory.parent, memory.parent.parent] if self.group else [])
        self.limits = {"memory_mb": self.memory_mb}
        for key, folder in zip(LEVELS, folders, strict=False):
            if key != "memory_mb":
                limit = _read_limit(folder, self.version)
                if limit is None:
                    continue
                self.limits[key] = limit
            if self.version == 2:
                self._reached[key] = _reached_v2(folder)

    def _make(self, memory_mb: int, processes: int, cpus: float) -> None:
        self.memory_mb = memory_mb
        for folder in dict.fromkeys(self.folders.values()):
            folder.mkdir(exist_ok=True)
        limit = str(memory_mb * MB)
        quota = max(1000, round(cpus * CFS_PERIOD_US))
        memory, cpu, pids = (self.folders[c] for c in ("memory", "cpu", "pids"))
        if self.version == 2:
            _write(memory / "memory.max", limit)
            with contextlib.suppress(OSError):  # no swap configured: nothing to bound
                _write(memory / "memory.swap.max", "0")
            with contextlib.suppress(OSError):  # the whole bot ends together
                _write(memory / "memory.oom.group", "1")
            _write(pids / "pids.max", str(processes))
            _write(cpu / "cpu.max", f"{quota} {CFS_PERIOD_US}")
            _write(cpu / "cpu.weight", str(V2_WEIGHT))
            self._cpu_fd = os.open(cpu / "cpu.stat", os.O_RDONLY | os.O_CLOEXEC)
            return
        _write(memory / "memory.limit_in_bytes", limit)
        if (memory / "memory.memsw.limit_in_bytes").exists():  # memory and swap in all
            _write(memory / "memory.memsw.limit_in_bytes", limit)
        with contextlib.suppress(OSError):  # never swap a bot out to stay under its limit
            _write(memory / "memory.swappiness", "0")
        _write(pids / "pids.max", str(processes))
        _write(cpu / "cpu.cfs_period_us", str(CFS_PERIOD_US))
        _write(cpu / "cpu.cfs_quota_us", str(quota))
        _write(cpu / "cpu.shares", str(V1_SHARES))
        self._cpu_fd = os.open(
            self.folders["cpuacct"] / "cpuacct.usage", os.O_RDONLY | os.O_CLOEXEC
        )

    def join_argv(self, argv: list[str]) -> list[str]:
        """`argv` behind a shell that puts itself into this cgroup, then execs it: every
        process of the bot is born inside. Exit code 125 if it cannot join."""
        procs = " ".join(
            shlex.quote(str(f / "cgroup.procs")) for f in dict.fromkeys(self.folders.values())
        )
        script = (
            f'for p in {procs}; do echo $$ > "$p" || exit 125; done; '
            f"{{ echo {BOT_OOM_SCORE_ADJ} > /proc/$$/oom_score_adj; }} 2>/dev/null; "
            'exec "$@"'
        )
        return ["/bin/sh", "-c", script, "sh", *argv]

    def cpu_seconds(self) -> float | None:
        """The CPU time of every process of the bot so far (one pread of a file kept
        open), or None once the cgroup is gone."""
        if self._cpu_fd < 0:
            return None
        try:
            data = os.pread(self._cpu_fd, 4096, 0)
        except OSError:
            return None
        if self.version == 1:
            return int(data) / 1e9
        for line in data.splitlines():
            if line.startswith(b"usage_usec "):
                return int(line.split()[1]) / 1e6
        return None

    def throttled_seconds(self) -> float | None:
        """How long the bot (or its entrant's group) was held back by its own CPU quota,
        in all (cpu.stat's throttled time); None where not known. A bot late through
        its own quota was not starved by the machine (arena/bots/remote/load.py). Read
        around every decision, so its files are kept open (one pread each)."""
        if self._stat_fds is None:
            cpu = self.folders["cpu"]
            self._stat_fds = []
            for folder in (cpu, cpu.parent) if self.group else (cpu,):
                with contextlib.suppress(OSError):
                    self._stat_fds.append(os.open(folder / "cpu.stat", os.O_RDONLY | os.O_CLOEXEC))
        key, unit = (
            (b"\nthrottled_usec ", 1e6) if self.version == 2 else (b"\nthrottled_time ", 1e9)
        )
        total, known = 0.0, False
        for fd in self._stat_fds:
            try:
                data = os.pread(fd, 4096, 0)
            except OSError:
                continue
            # one find, not a split of every line: read before every decision
            at = data.find(key)
            if at >= 0:
                at += len(key)
                end = data.find(b"\n", at)
                total += int(data[at : end if end >= 0 else None]) / unit
                known = True
        return total if known else None

    def memory_limit_hit(self) -> bool:
        """Whether the kernel ended a process of the bot for its memory limit."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            text = (self.folders["memory"] / name).read_text()
        except OSError:
            return False
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value) > 0
        return False

    def memory_limit(self) -> tuple[str, int] | None:
        """Which memory limit ended a process of the bot, as (its key in LEVELS, its
        value in MB), or None when none did. The kernel counts the kill in the bot's own
        cgroup whichever level's limit was reached (so the fault is the bot's own); the
        level named is the first (the bot's, its entrant's, its run's) whose limit was
        reached: v2 counts that per level since the bot started. v1 counts it nowhere
        (memory.memsw.failcnt stays 0 on recent kernels), so there it is the first
        level whose peak came to its limit: a group's peak lasts, so a later kill by
        the run's limit may be named as its entrant's, never as the bot's own."""
        if not self.memory_limit_hit():
            return None
        memory = self.folders["memory"]
        folders = (memory, memory.parent, memory.parent.parent)
        for key, folder in zip(LEVELS, folders, strict=False):
            if key not in self.limits:
                continue
            if self.version == 2:
                reached = _reached_v2(folder) > self._reached[key]
            else:
                peak = _read_int(folder / "memory.max_usage_in_bytes")
                reached = peak is not None and peak >= self.limits[key] * MB - V1_PEAK_SLACK
            if reached:
                return key, self.limits[key]
        return "memory_mb", self.memory_mb

    def memory_peak_bytes(self) -> int | None:
        """The most memory the bot's processes held at once (None where not known)."""
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        try:
            return int((self.folders["memory"] / name).read_text())
        except (OSError, ValueError):
            return None

    def freeze(self, frozen: bool) -> bool:
        """Pause (or resume) every process of the bot: a bot kept alive between its
        games (arena/bots/rotation_pool.py) uses no CPU while it is not playing, so an
        entrant with several processes alive runs one at a time. False where the
        machine cannot freeze (no v1 freezer controller)."""
        if self.version == 2:
            target, value = self.folders["cpu"] / "cgroup.freeze", "1" if frozen else "0"
        elif "freezer" in self.folders:
            target = self.folders["freezer"] / "freezer.state"
            value = "FROZEN" if frozen else "THAWED"
        else:
            return False
        try:
            _write(target, value)
        except OSError:
            return False
        return True

    def pids(self) -> set[int]:
        found: set[int] = set()
        for folder in dict.fromkeys(self.folders.values()):
            with contextlib.suppress(OSError, ValueError):
                found |= {int(p) for p in (folder / "cgroup.procs").read_text().split()}
        return found

    def remove(self) -> None:
        """SIGKILL whatever is left in the cgroup, then remove it (bounded: a process
        that will not die within about a second leaves the folder behind)."""
        if self._cpu_fd >= 0:
            os.close(self._cpu_fd)
            self._cpu_fd = -1
        for fd in self._stat_fds or ():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._stat_fds = None
        _kill_and_remove(list(dict.fromkeys(self.folders.values())))
        if self.group:  # the last member out removes its group, and the last group its run's
            for depth in range(len(Path(self.group).parts)):
                for folder in dict.fromkeys(f.parents[depth] for f in self.folders.values()):
                    with contextlib.suppress(OSError):
                        folder.rmdir()


def run_group(owner: int) -> str:
    """The cgroup of all the grouped bots of one run on this machine (`owner` is the
    run's main process): the entrant groups are made inside it."""
    return f"{PREFIX}-{_namespace()}-{owner}-bots"


def entrant_group(owner: int, key: str) -> str:
    """The cgroup group of one entrant of one run, inside the run's (`run_group`): the
    same path in every worker of the run (`owner` is the run's main process), so that
    all the entrant's processes share its CPU quota and its memory; `_sweep_stale`
    removes it once `owner` is gone."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return f"{run_group(owner)}/{PREFIX}-{_namespace()}-{owner}-group-{digest}"


def _make_group(
    where: Hierarchy, group: str, cpus: float, entrant_memory_mb: int, bots_memory_mb: int
) -> None:
    """The group's folders (made by the first member, then kept), its CPU quota and
    weight (those of one bot, for all its members together), and the memory limits of
    the group and of the run's folder above it, written when each is made."""
    quota = max(1000, round(cpus * CFS_PERIOD_US))
    parts = Path(group).parts
    memory_limits = [bots_memory_mb, entrant_memory_mb][-len(parts) :]
    for depth, limit in zip(range(1, len(parts) + 1), memory_limits, strict=True):
        below = Path(*parts[:depth])
        new = False
        for folder in where.parents():
            try:
                (folder / below).mkdir()
            except FileExistsError:
                continue
            new = True
        if new and where.version == 2 and depth < len(parts):  # the members' controllers
            with contextlib.suppress(OSError):
                _write(
                    where.folders["memory"] / below / "cgroup.subtree_control", "+memory +cpu +pids"
                )
        if new:
            _memory_level(where.folders["memory"] / below, where.version, limit)
    cpu = where.folders["cpu"] / group
    if where.version == 2:
        with contextlib.suppress(OSError):  # its members need the controllers
            _write(cpu / "cgroup.subtree_control", "+memory +cpu +pids")
        _write(cpu / "cpu.max", f"{quota} {CFS_PERIOD_US}")
        _write(cpu / "cpu.weight", str(V2_WEIGHT))
        return
    _write(cpu / "cpu.cfs_period_us", str(CFS_PERIOD_US))
    _write(cpu / "cpu.cfs_quota_us", str(quota))
    _write(cpu / "cpu.shares", str(V1_SHARES))


def _memory_level(folder: Path, version: int, memory_mb: int) -> None:
    """A group's memory limit over everything below it (none when `memory_mb` is 0).
    v1 counts a child's pages in its parent only with memory.use_hierarchy, set before
    the folder has children (a kernel since 5.x has it always on, and the write is
    then refused: it is read back instead)."""
    if version == 1:
        with contextlib.suppress(OSError):
            _write(folder / "memory.use_hierarchy", "1")
        if (folder / "memory.use_hierarchy").read_text().strip() != "1":
            raise OSError(f"{folder}: memory.use_hierarchy cannot be set, so no group limit holds")
    if not memory_mb:
        return
    limit = str(memory_mb * MB)
    if version == 2:
        _write(folder / "memory.max", limit)
        with contextlib.suppress(OSError):
            _write(folder / "memory.swap.max", "0")
        return
    _write(folder / "memory.limit_in_bytes", limit)
    if (folder / "memory.memsw.limit_in_bytes").exists():
        _write(folder / "memory.memsw.limit_in_bytes", limit)
    with contextlib.suppress(OSError):
        _write(folder / "memory.swappiness", "0")


def _read_limit(folder: Path, version: int) -> int | None:
    """A cgroup's memory limit in MB, or None when it has none (or is gone)."""
    name = "memory.max" if version == 2 else "memory.limit_in_bytes"
    try:
        text = (folder / name).read_text().strip()
    except OSError:
        return None
    if not text.isdigit() or int(text) >= 1 << 62:  # "max", or v1's page-rounded no limit
        return None
    return int(text) // MB


def _reached_v2(folder: Path) -> int:
    """How often this v2 cgroup's own memory limit was reached (`V2_EVENTS`'s `max`): 0
    where not known."""
    try:
        text = (folder / V2_EVENTS).read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "max":
            return int(value)
    return 0


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text())
    except (OSError, ValueError):
        return None


def _kill_and_remove(folders: list[Path]) -> None:
    nested = [  # a group's members first, then the group (rmdir wants it empty)
        Path(root)
        for folder in folders
        if folder.is_dir()
        for root, _, _ in os.walk(folder, topdown=False)
        if Path(root) != folder
    ]
    folders = nested + folders
    for folder in folders:  # a frozen process takes no signal: thaw it first
        for name, value in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
            with contextlib.suppress(OSError):
                if (folder / name).exists():
                    _write(folder / name, value)
    for _ in range(100):
        left = False
        for folder in folders:
            try:
                pids = (folder / "cgroup.procs").read_text().split()
            except FileNotFoundError:
                continue
            except OSError:
                pids = []
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
            try:
                folder.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                left = True
        if not left:
            return
        time.sleep(0.01)


def cgroup_name(bot_id: str) -> str:
    """A name no other arena process can take: this process's pid namespace and pid
    (which also tell `_sweep_stale` whose it was) and the bot's own id."""
    return f"{PREFIX}-{_namespace()}-{os.getpid()}-{bot_id}"


@functools.cache
def _namespace() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


@functools.cache
def _sweep_stale() -> None:
    """Once per process: `sweep_stale`."""
    sweep_stale()


def sweep_stale() -> None:
    """Remove the bot cgroups an arena of this pid namespace left when it was killed
    (its pid is gone), killing their bots: a bot frozen between games (cgroup freezer)
    takes no signal, not even its sandbox's parent-death signal, so nothing else ends
    it. Those of live arenas, and of arenas in other namespaces (whose pids cannot be
    checked from here), are left alone. A cluster worker sweeps before each match
    (arena/league/workers/match_task.py): a worker killed beside it leaves its frozen bots."""
    where = hierarchy()
    if where is None:
        return
    mine = f"{PREFIX}-{_namespace()}-"
    stale: dict[str, list[Path]] = {}
    folders = [(folder, 0) for folder in where.parents()]
    while folders:  # the top level, inside live runs' folders, and their entrant groups
        parent, depth = folders.pop()
        with contextlib.suppress(OSError):
            for entry in os.scandir(parent):
                if not entry.name.startswith(mine) or not entry.is_dir():
                    continue
                pid = entry.name[len(mine) :].split("-", 1)[0]
                if pid.isdigit() and not pid_alive(int(pid)):
                    key = os.path.relpath(entry.path, _root_of(entry.path, where))
                    stale.setdefault(key, []).append(Path(entry.path))
                elif depth < 2 and (entry.name.endswith("-bots") or "-group-" in entry.name):
                    folders.append((Path(entry.path), depth + 1))  # a live run's group
    for found in stale.values():
        _kill_and_remove(found)


def _root_of(path: str, where: Hierarchy) -> Path:
    """The hierarchy's folder (one per controller in v1) that `path` lies in."""
    return next(p for p in where.parents() if Path(path).is_relative_to(p))


def pid_alive(pid: int) -> bool:
    """Whether a process of this pid namespace has `pid` (one of another user's counts:
    it is alive, merely not ours to signal)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
