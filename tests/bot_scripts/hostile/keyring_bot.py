"""Tries to leave something behind for the next bot on its user id: a key in its
user's kernel keyring (add_key, keyctl, request_key) and a SysV shared-memory segment.
Reports what each call did; plays on (the key calls fail with EPERM, the segment lives
in its own IPC namespace and goes with it)."""

import ctypes
import os

from _common import report, serve

SYS = {"add_key": 248, "request_key": 249, "keyctl": 250}  # x86_64
KEY_SPEC_USER_KEYRING, KEYCTL_GET_KEYRING_ID = -4, 0
IPC_PRIVATE, IPC_CREAT = 0, 0o1000


def leave(request):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    calls = {
        "add_key": (b"user", b"arena-hostile", b"secret", ctypes.c_size_t(6),
                    KEY_SPEC_USER_KEYRING),
        "keyctl": (KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 1),
        "request_key": (b"user", b"arena-hostile", None, 0),
    }  # fmt: skip
    for name, args in calls.items():
        done = libc.syscall(SYS[name], *args)
        if done < 0:
            report(f"key {name} denied: {os.strerror(ctypes.get_errno())}")
        else:
            report(f"key {name} allowed: {done}")
    segment = libc.shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0o666)
    report(f"sysv shm {'made' if segment >= 0 else 'refused'}: {segment}")


serve(leave)
