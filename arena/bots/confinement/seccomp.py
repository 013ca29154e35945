"""The system-call filter of every sandboxed bot: no channel out of its sandbox.

The namespaces of `arena.bots.confinement.sandbox` keep a bot from seeing the host, but a few
kernel facilities are shared by the whole machine whatever the namespace: the kernel
keyrings of a user id (a bot could leave keys for the next bot on the same slot),
new user namespaces (in which an unprivileged bot may mount a tmpfs of its own, memory
no limit sees), io_uring, BPF, perf events, ptrace, and the calls that change the
machine itself (modules, kexec, swap, the clock, reboot). Docker's default seccomp
profile is the model; this is the same set as a deny list.

A denied call fails inside the bot with EPERM (`clone3` with ENOSYS, so that the C
library falls back to `clone`, whose flags can be checked): the bot is told no, not
killed, and the rest of its game goes on. The filter is built once per process with
libseccomp (through `pyseccomp`) and handed to bubblewrap (`--seccomp FD`) in a memfd
made for each start.
"""

from __future__ import annotations

import errno
import functools
import os
import platform

DENIED = (  # every call here fails with EPERM
    # kernel keyrings: per user id, shared by every process of the uid on the machine
    "add_key",
    "keyctl",
    "request_key",
    # namespaces: a new user namespace gives a bot root over mounts of its own
    "unshare",
    "setns",
    # mounts and roots
    "mount",
    "umount",
    "umount2",
    "pivot_root",
    "chroot",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    # asynchronous I/O that bypasses the per-call checks, BPF, tracing and perf
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "bpf",
    "perf_event_open",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    "process_madvise",
    "userfaultfd",
    # the machine itself
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "create_module",
    "query_module",
    "get_kernel_syms",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "quotactl_fd",
    "nfsservctl",
    "syslog",
    "sysfs",
    "_sysctl",
    "uselib",
    "ustat",
    "lookup_dcookie",
    "vhangup",
    "iopl",
    "ioperm",
    "vm86",
    "vm86old",
    "settimeofday",
    "stime",
    "clock_settime",
    "clock_adjtime",
    "name_to_handle_at",
    "open_by_handle_at",
)
NAMESPACE_FLAGS = {  # clone() flags that make a namespace: refused like unshare()
    "CLONE_NEWTIME": 0x00000080,
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
ALSO_RUNS = {  # architectures whose system calls a process of this machine can make
    "x86_64": ("X86", "X32"),  # int 0x80 (i386 numbers) and x32 numbers on x86_64
    "aarch64": ("ARM",),
}


@functools.cache
def filter_bytes() -> bytes:
    """The compiled BPF program (built once: libseccomp is not cheap to run per bot).

    Raises OSError or ImportError when libseccomp or its bindings are missing."""
    import pyseccomp as seccomp

    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)  # the native arch is in
    for name in ALSO_RUNS.get(platform.machine(), ()):
        rules.add_arch(getattr(seccomp.Arch, name))
    denied = seccomp.ERRNO(errno.EPERM)
    for name in DENIED:
        try:
            rules.add_rule(denied, name)
        except (ValueError, RuntimeError, OSError):
            continue  # a call this kernel's libseccomp does not know: nothing to deny
    for flag in NAMESPACE_FLAGS.values():  # clone's flags are its first argument
        rules.add_rule(denied, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")  # flags in memory: uncheckable
    fd = os.memfd_create("arena-seccomp-build", os.MFD_CLOEXEC)
    try:
        with open(fd, "wb", closefd=False) as out:
            rules.export_bpf(out)
        os.lseek(fd, 0, os.SEEK_SET)
        size = os.fstat(fd).st_size
        return os.pread(fd, size, 0)
    finally:
        os.close(fd)


def filter_fd() -> int:
    """A new file descriptor (close-on-exec; `pass_fds` hands it on) holding the
    filter, read from its start by bubblewrap's `--seccomp`, which then closes it."""
    return data_fd("arena-seccomp", filter_bytes())


def data_fd(name: str, data: bytes) -> int:
    """A memfd holding `data`, positioned at its start."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


@functools.cache
def seccomp_problem() -> str | None:
    """Why the filter cannot be built here (None when it can)."""
    try:
        filter_bytes()
    except ImportError:
        return "the Python package pyseccomp is not installed (`pip install pyseccomp`)"
    except (OSError, RuntimeError, ValueError) as err:
        return f"the seccomp filter could not be built with libseccomp: {err}"
    return None
