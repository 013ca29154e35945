"""Bot processes: started by the referee, logged, and ended with everything they started.

A bot command runs in a session of its own (`start_new_session`, no `preexec_fn`),
learns where to listen from ARENA_BOT_ADDRESS (a unix socket in a fresh private
folder), and writes stdout and stderr into one log file, capped in size so that a
flooding bot cannot fill the disk. The referee makes itself a child subreaper, so a
bot's grandchildren that double-fork stay below it and can be found and ended.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from arena.bots.confinement.cgroups import BotCgroup, cgroup_name
from arena.bots.confinement.sandbox import (
    INSIDE_SHARE,
    Command,
    Sandbox,
    Slot,
    protocol_file,
    trusted_socket,
    wrap,
)
from arena.errors import ConfigError, SandboxError
from arena.wire.loop import VARIABLE as LOOP_VARIABLE
from arena.wire.protocol import ADDRESS_VARIABLE
from arena.wire.runtime import VARIABLE as GRPC_VARIABLE
from arena.wire.runtime import VERBOSITY as GRPC_VERBOSITY
from arena.wire.runtime import bot_verbosity

MARKER_VARIABLE = "ARENA_BOT_ID"  # in every started bot's environment: finds its orphans
PROTO_VARIABLE = "ARENA_PROTO"  # the protocol's .proto, for bots that load it at run time
LOG_CAP_BYTES = 1 << 20  # per bot process and match
AT_ONCE_SECONDS = 1.0  # a bot that ends sooner than this after its start "exited at once"
_PR_SET_CHILD_SUBREAPER = 36

_live: set[BotProcess] = set()
_live_lock = threading.Lock()
_stopping = threading.Event()  # set by kill_all_now: no bot may start after it
# The socket folders this process made and has not removed yet: a referee ended before
# it closed its bots (a gate's try at its timeout, a worker told to stop) removes them
# as it goes, so no run leaves a folder in the temporary folder per bot it started.
_folders: set[Path] = set()


def become_subreaper() -> bool:
    """Ask Linux to re-parent orphaned descendants to this process (best effort)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def command_argv(command: str, base_dir: Path | None = None) -> list[str]:
    """A bot command as argv: `python`/`python3` become this interpreter, and relative
    paths that exist below `base_dir` (default: the current folder) are made absolute,
    so the bot may start in another folder (the sandbox starts it in its own). That
    includes the program itself when it is a path (a compiled bot,
    `sample_bots/cpp_bot/build/cpp_bot`); a bare program name (`node`) is looked up on
    PATH as usual. The module of `python -m MODULE` is a name, not a path, even where a
    folder of that name exists (`python -m mybot` beside a `mybot/` package)."""
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise ConfigError(f"bot command {command!r} cannot be parsed: {err}") from None
    if not argv:
        raise ConfigError("empty bot command")
    if "\0" in command:  # no program can be given one: the kernel ends arguments at it
        raise ConfigError(f"bot command {command!r} holds a NUL character, which no command may")
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    base = base_dir or Path.cwd()
    program = base / argv[0]
    if "/" in argv[0] and not os.path.isabs(argv[0]) and os.path.exists(program):
        argv[0] = str(program.resolve())
    python = os.path.basename(argv[0]).startswith("python")
    for i, arg in enumerate(argv[1:], start=1):
        if python and argv[i - 1] == "-m":
            continue
        candidate = base / arg
        if not arg.startswith("-") and not os.path.isabs(arg) and os.path.exists(candidate):
            argv[i] = str(candidate.resolve())
    return argv


def run_log_folder(base: Path) -> Path:
    """A new folder of its own, below `base`, for one run's bot logs
    (`run-YYYYmmdd-HHMMSS-PID`, with `-2`, `-3` added when a run of the same process
    and second has one already): a later run never writes over a log that an earlier
    run's stored fault points to."""
    name = time.strftime(f"run-%Y%m%d-%H%M%S-{os.getpid()}")
    base.mkdir(parents=True, exist_ok=True)
    for count in range(1, 10_000):
        folder = base / (name if count == 1 else f"{name}-{count}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise ConfigError(f"cannot make a log folder below {base}: every name is taken")


def process_states() -> Iterator[tuple[int, str, int]]:
    """(pid, state letter, parent pid) of every process, from one scan of /proc."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2 :].split()
        yield int(entry.name), fields[0].decode(), int(fields[1])


def process_tree() -> dict[int, list[int]]:
    """Every live process's children, by parent pid, from one scan of /proc."""
    children: dict[int, list[int]] = {}
    for pid, _state, ppid in process_states():
        children.setdefault(ppid, []).append(pid)
    return children


def descendants(pid: int, tree: dict[int, list[int]] | None = None) -> set[int]:
    """Every live process below `pid`, from /proc (or from a `process_tree()` just taken)."""
    children = process_tree() if tree is None else tree
    found: set[int] = set()
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


class BotProcess:
    """One started bot: its process, its socket folder and its log.

    With a `sandbox`, the bot runs confined (arena.bots.confinement.sandbox) in a slot of its own,
    its socket folder is shared with it alone, and the referee connects only through
    its own checked link to the socket (`ready_address`).
    """

    def __init__(
        self,
        argv: list[str],
        log_path: Path,
        cwd: Path | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.argv = argv
        self.log_path = log_path
        self.cwd = cwd
        self.sandbox = sandbox
        self.slot = Slot() if sandbox is not None and sandbox.enabled else None
        if self.slot is not None:
            self.folder = self.slot.share
        else:
            self.folder = Path(tempfile.mkdtemp(prefix="arena-bot-"))
            _folders.add(self.folder)
        self.socket_path = self.folder / "bot.sock"
        self.address = f"unix:{self.socket_path}"
        inside = INSIDE_SHARE / self.socket_path.name if self.slot else self.socket_path
        self.bot_address = f"unix:{inside}"  # ARENA_BOT_ADDRESS as the bot sees it
        self.started_at = 0.0  # time.monotonic() of the last start
        self.ended_at: float | None = None  # when the referee first saw it ended
        self.bot_id = secrets.token_hex(8)
        self.marker = f"{MARKER_VARIABLE}={self.bot_id}"
        self.process: subprocess.Popen[bytes] | None = None
        self._drain: threading.Thread | None = None
        self._logged = [0]  # bytes written to the log by every start so far (its cap)
        self._log_started = False  # the first start empties a log left by an earlier run
        self.cgroup: BotCgroup | None = None  # of the running start, if cgroups can be had
        self.memory_peak_bytes: int | None = None  # its cgroups' highest peak, at stops

    def ready_address(self) -> str:
        """The address to connect to once the socket exists: with a sandbox, the
        referee's own link to it, after checking it is a socket of the bot's user
        (ValueError otherwise)."""
        if self.slot is None:
            return self.address
        link = trusted_socket(self.socket_path, self.slot, self.slot.private)
        return f"unix:{link}"

    def start(self) -> None:
        """Start (or restart) the command; never blocks on the bot.

        Refused once `kill_all_now` has run: a bot it killed looks crashed to the
        referee, whose restart would otherwise leave an orphan behind."""
        if _stopping.is_set():
            raise ConfigError("the referee is stopping: no bot is started now")
        self.stop()
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        self._check_program()
        variables = self._variables()
        command = self._command(variables)
        self._spawn(command, variables)
        self.started_at = time.monotonic()
        self.ended_at = None
        with _live_lock:
            _live.add(self)
        self._start_log()

    def _variables(self) -> dict[str, str]:
        """The environment the bot gets beside (or, sandboxed, instead of) ours: its
        address, its marker, the protocol file, and gRPC's and the loop's settings."""
        variables = {
            ADDRESS_VARIABLE: self.bot_address,
            MARKER_VARIABLE: self.bot_id,
            "PYTHONUNBUFFERED": "1",
            GRPC_VERBOSITY: bot_verbosity(),  # gRPC core's errors, into the bot's log
        }
        proto = protocol_file()
        if proto is not None:  # the sandbox shows it: it lies in a folder bound read-only
            variables[PROTO_VARIABLE] = str(proto)
        for name in (GRPC_VARIABLE, LOOP_VARIABLE):  # gRPC's I/O path and the event loop,
            if name in os.environ:  # into the sandbox too (it clears the environment)
                variables[name] = os.environ[name]
        return variables

    def _check_program(self) -> None:
        """Refuse, here rather than in a sandbox, a program that is not there or not
        executable, and a Python script that is not there."""
        argv = self.argv
        program = argv[0] if "/" in argv[0] else shutil.which(argv[0], path=os.environ.get("PATH"))
        if not program or not os.access(program, os.X_OK):  # say so here, not in a sandbox
            why = (
                "no such program"
                if not program or not os.path.exists(program)
                else "not executable"
            )
            raise ConfigError(f"cannot start bot command {shlex.join(self.argv)}: {why}")
        script = next((arg for arg in argv[1:] if not arg.startswith("-")), "")
        if argv[0] == sys.executable and script.endswith(".py"):
            where = Path(self.cwd or Path.cwd()) / script
            if not os.path.exists(where):  # said here: a sandboxed bot starts in its own
                # folder, and its log would name some other missing path
                raise ConfigError(
                    f"cannot start bot command {shlex.join(argv)}: no such file {where}"
                )

    def _command(self, variables: dict[str, str]) -> Command:
        """What to run: the bot's command, or, sandboxed, the sandbox around it, joined
        to the bot's own cgroup."""
        command = Command(self.argv)
        if self.sandbox is None:
            return command
        command = wrap(
            self.argv, self.sandbox, self.slot, share=self.folder, cwd=self.cwd, variables=variables
        )
        limits = self.sandbox.limits
        try:  # the bot as a whole, all its processes: see arena.bots.confinement.cgroups
            self.cgroup = BotCgroup.create(
                cgroup_name(self.bot_id),
                memory_mb=limits.memory_mb,
                processes=limits.processes,
                cpus=limits.cpus,
                group=self.sandbox.group,
                entrant_memory_mb=limits.entrant_memory(),
                bots_memory_mb=limits.bots_memory(),
            )
        except OSError as err:
            command.close()
            raise SandboxError(f"cannot make the bot's cgroup: {err}") from None
        if self.cgroup is not None:
            command.argv = self.cgroup.join_argv(command.argv)
        return command

    def _spawn(self, command: Command, variables: dict[str, str]) -> None:
        """Start `command` in a session of its own, its output into a pipe to the log."""
        env = {**os.environ, **variables}
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.process = subprocess.Popen(
                command.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=self.cwd,
                env=env,
                start_new_session=True,
                close_fds=True,
                pass_fds=command.fds,
            )
        except OSError as err:
            if self.cgroup is not None:
                self.cgroup.remove()
                self.cgroup = None
            raise ConfigError(f"cannot start bot command {shlex.join(self.argv)}: {err}") from None
        finally:
            command.close()

    def _start_log(self) -> None:
        """The thread that copies the bot's output into its log (capped)."""
        assert self.process is not None
        mode = "ab" if self._log_started else "wb"
        self._log_started = True
        self._drain = threading.Thread(
            target=_drain_to_log,
            args=(self.process.stdout, self.log_path, mode, self._logged),
            name=f"bot-log-{self.process.pid}",
            daemon=True,
        )
        self._drain.start()

    def cpu_seconds(self) -> float | None:
        """The CPU time of all the bot's processes since its start (its cgroup's), or
        None without a cgroup: cheap enough to read around every decision."""
        return self.cgroup.cpu_seconds() if self.cgroup is not None else None

    def throttled_seconds(self) -> float | None:
        """How long its own CPU quota held the bot back, in all (None: not known)."""
        return self.cgroup.throttled_seconds() if self.cgroup is not None else None

    def freeze(self, frozen: bool) -> bool:
        """Pause (True) or resume (False) every process of the bot, through its
        cgroup; False where that cannot be done (no cgroup, or no freezer)."""
        return self.cgroup is not None and self.cgroup.freeze(frozen)

    def memory_limit_hit(self) -> bool:
        """Whether the bot's memory limit (its cgroup's) ended one of its processes
        since its start."""
        return self.cgroup is not None and self.cgroup.memory_limit_hit()

    def memory_limit(self) -> tuple[str, int] | None:
        """Which memory limit (the bot's, its entrant's, or its run's: the key and its
        MB) ended one of its processes since its start, or None."""
        return self.cgroup.memory_limit() if self.cgroup is not None else None

    @property
    def pid(self) -> int:
        return self.process.pid if self.process else -1

    def alive(self) -> bool:
        return self.process is not None and self._poll() is None

    def _poll(self) -> int | None:
        """The exit status, or None while it runs; notes when it was first seen ended
        (the referee polls every few milliseconds while it waits for the socket)."""
        assert self.process is not None
        code = self.process.poll()
        if code is not None and self.ended_at is None:
            self.ended_at = time.monotonic()
        return code

    def wait_exit(self, timeout: float) -> None:
        """Give a dying process up to `timeout` seconds to be seen dead."""
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=timeout)

    def exit_description(self) -> str:
        if self.process is None:
            return "not started"
        code = self._poll()
        if code is None:
            return "running"
        if code < 0:
            return f"killed by signal {_signal_name(-code)}"
        return f"exited with code {code}"

    def end_description(self) -> str:
        """How and how soon the process ended, for a bot that never listened: "exited
        at once with code 2 (0.05 s after it started)", "was killed by signal SIGKILL
        4.2 s after it started"; "is still running" while it runs."""
        if self.process is None:
            return "was not started"
        code = self._poll()
        if code is None:
            return "is still running"
        seconds = (self.ended_at or time.monotonic()) - self.started_at
        soon = (
            f"at once ({seconds:.2f} s after it started)"
            if seconds < AT_ONCE_SECONDS
            else f"{seconds:.1f} s after it started"
        )
        if code < 0:
            return f"was killed by signal {_signal_name(-code)} {soon}"
        return f"exited {soon} with code {code}"

    def stop(self, grace: float = 0.5) -> None:
        """End the bot, its process group, and every descendant, then reap them.

        Descendants are found two ways: below the bot in the process tree, and among
        orphans re-parented to the referee (its subreaper) that carry this bot's
        address in their environment (a double fork, or a `setsid` escape).
        """
        process = self.process
        if process is None:
            return
        if self.cgroup is not None:
            self.cgroup.freeze(False)  # a frozen process takes no signal, not even SIGKILL
        pid = process.pid
        everyone: set[int] = set()
        for sig in (signal.SIGTERM, signal.SIGKILL):
            victims = self._victims()
            everyone |= victims
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, sig)
            for victim in victims:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(victim, sig)
            try:
                process.wait(timeout=grace)
                if not victims or sig == signal.SIGKILL:
                    break
            except subprocess.TimeoutExpired:
                continue
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)
        if self.slot is not None:
            self.slot.sweep()
        if self.cgroup is not None:  # what is left in it is killed, then it goes
            peak = self.cgroup.memory_peak_bytes()
            if peak is not None:
                self.memory_peak_bytes = max(peak, self.memory_peak_bytes or 0)
            self.cgroup.remove()
            self.cgroup = None
        _reap(everyone)
        if self._drain is not None:
            self._drain.join(timeout=2)
        self.process = None
        with _live_lock:
            _live.discard(self)
        _reap_strays()

    def _victims(self) -> set[int]:
        """Every process to end with this bot: those below it and its orphans, from one
        scan of /proc."""
        tree = process_tree()
        return descendants(self.pid, tree) | self._orphans(tree)

    def _orphans(self, tree: dict[int, list[int]]) -> set[int]:
        """Processes below the referee whose environment holds this bot's address."""
        marker = f"{self.marker}\0".encode()
        found = set()
        for pid in descendants(os.getpid(), tree):
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    if marker in f.read() + b"\0":
                        found.add(pid)
            except OSError:
                continue
        return found

    def close(self) -> None:
        self.stop()
        if self.slot is not None:
            self.slot.release()  # empties the bot's and the referee's slot folders
        else:
            _remove_folder(self.folder)


def _remove_folder(folder: Path) -> None:
    """Remove a socket folder this process made, with what a bot left in it."""
    shutil.rmtree(folder, ignore_errors=True)
    _folders.discard(folder)


def _remove_folders() -> None:
    """Remove every socket folder this process made and has not removed yet."""
    for folder in list(_folders):
        _remove_folder(folder)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _drain_to_log(stream, log_path: Path, mode: str, written: list[int]) -> None:
    """Copy the bot's output into its log up to the cap, then keep reading and drop it.

    `written` counts for the log file as a whole, every restart of the bot included,
    so a bot that floods and crashes cannot grow its log by a cap per restart; the
    first start of a BotProcess truncates (`mode` "wb"), so a log holds one run's
    output and a start failure's excerpt is never an earlier run's."""
    with open(log_path, mode) as log:
        while True:
            chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
            if not chunk:
                break
            if written[0] < LOG_CAP_BYTES:
                piece = chunk[: LOG_CAP_BYTES - written[0]]
                log.write(piece)
                written[0] += len(piece)
                if written[0] >= LOG_CAP_BYTES:
                    log.write(b"\n[arena: log capped here; further output was discarded]\n")
                log.flush()
    stream.close()


def _reap(pids: set[int]) -> None:
    """Collect the exit status of killed orphans re-parented to us (no zombies left)."""
    for pid in pids:
        for _ in range(100):  # bounded: a SIGKILLed process dies promptly
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                break  # not our child (its own parent reaps it) or already reaped
            if done:
                break
            time.sleep(0.01)


def _reap_strays() -> None:
    """Collect every exited child of ours that no BotProcess waits for.

    As the bots' subreaper the referee inherits their orphans. One that exits by
    itself stays a zombie until someone waits for it, holding a process id; the
    sandbox's bwrap leaves one such each time a bot exits on its own. Over a long
    league with a crash-looping bot they would use up the machine's process ids.
    Children of live bots' own processes are left to their `Popen`, whose exit
    status names the crash."""
    with _live_lock:
        waited = {bot.pid for bot in _live}
    me = os.getpid()
    for pid, state, parent in process_states():
        if parent == me and state == "Z" and pid not in waited:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


def kill_all_now() -> None:
    """SIGKILL every bot this process runs, and their descendants, without waiting or
    locking, remove their socket folders, and start no bot after it: for a process
    about to exit abruptly."""
    _stopping.set()
    for bot in list(_live):
        pid = bot.pid
        if pid <= 0:
            continue
        if bot.cgroup is not None:
            bot.cgroup.freeze(False)  # a frozen process takes no signal
        victims = bot._victims()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        for victim in victims:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(victim, signal.SIGKILL)
        if bot.slot is not None:
            bot.slot.sweep()
        if bot.cgroup is not None:
            for pid in bot.cgroup.pids():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
    _remove_folders()


def stop_all() -> None:
    """End every bot process still running, and remove every socket folder left (at
    exit, or when the referee is stopped)."""
    with _live_lock:
        bots = list(_live)
    for bot in bots:
        bot.stop(grace=0.2)
    _remove_folders()


atexit.register(stop_all)


def wait_for_socket(path: Path, process: BotProcess, timeout: float) -> bool:
    """Wait until the bot's socket exists, the bot dies, or `timeout` passes."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists():
            return True
        if not process.alive():
            return False
        time.sleep(0.005)
    return path.exists()
