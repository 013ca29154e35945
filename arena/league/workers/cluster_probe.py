"""Whether a `--cluster` address answers as a Dask scheduler, within a stated time.

Dask's `Client(address, timeout=...)` waits for ever on a port that accepts a
connection and then says nothing, and reads a peer's first eight bytes as the length
of what follows (a `MemoryError` for bytes that are not Dask's). So before a Client is
made, the address is probed here: a TCP connection within `CONNECT_SECONDS`, then,
for `tcp://`, the first frame header a Dask scheduler sends on every new connection
within `HANDSHAKE_SECONDS`, which must give a plausible length. `tls://` needs Dask's
certificate options (docs/cluster.md, "TLS"); without them it is refused here, before
Dask fails with a `TypeError`.
"""

from __future__ import annotations

import socket
import struct
from typing import Any
from urllib.parse import urlsplit

from arena.errors import ConfigError

CONNECT_SECONDS = 5.0  # a TCP connection to the scheduler's port
HANDSHAKE_SECONDS = 5.0  # the scheduler's first bytes (or, for tls://, the TLS handshake)
MAX_FIRST_FRAME = 1 << 20  # a Dask handshake is a few hundred bytes; more is not Dask
TLS_OPTIONS = (
    "DASK_DISTRIBUTED__COMM__TLS__CA_FILE",
    "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT",
    "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY",
)


def probe(address: str, source: str) -> Any:
    """ConfigError, naming `source` (`--cluster`, or the league file's `[cluster]
    address`), unless `address` answers as a Dask scheduler in time; the `Security`
    to give Dask's Client (None for tcp://)."""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    scheme = parts.scheme or "tcp"
    host, port = parts.hostname or "127.0.0.1", parts.port
    if port is None:
        raise ConfigError(f"{source} {address}: no port; give tcp://HOST:PORT")
    security = _security(address, source) if scheme == "tls" else None
    try:
        conn = socket.create_connection((host, port), timeout=CONNECT_SECONDS)
    except OSError as err:
        raise ConfigError(
            f"{source} {address}: no Dask scheduler answers there (nothing accepts a "
            f"connection within {CONNECT_SECONDS:.0f} s: {err}); start a scheduler with "
            "`dask scheduler` and workers with `dask worker ADDRESS` (docs/cluster.md)"
        ) from None
    with conn:
        if scheme == "tls":
            _tls_handshake(conn, host, security, address, source)
        else:
            _first_frame(conn, address, source)
    return security


def _first_frame(conn: socket.socket, address: str, source: str) -> None:
    conn.settimeout(HANDSHAKE_SECONDS)
    header = b""
    try:
        while len(header) < 8:
            chunk = conn.recv(8 - len(header))
            if not chunk:
                break
            header += chunk
    except TimeoutError:
        raise ConfigError(
            f"{source} {address}: the port accepts connections but sends nothing within "
            f"{HANDSHAKE_SECONDS:.0f} s, as a Dask scheduler does at once: it is not a Dask "
            "scheduler (or a tls:// one: give tls://); give the address `dask scheduler` "
            "printed"
        ) from None
    except OSError as err:
        raise ConfigError(f"{source} {address}: the connection failed ({err})") from None
    if len(header) < 8:
        raise ConfigError(
            f"{source} {address}: the port closed the connection without a Dask handshake: "
            "it is not a Dask scheduler; give the address `dask scheduler` printed"
        )
    (length,) = struct.unpack("<Q", header)
    if not 0 < length <= MAX_FIRST_FRAME:
        raise ConfigError(
            f"{source} {address}: the port answers with bytes that are not Dask's (a first "
            f"frame of {length:,} bytes): it is not a Dask scheduler; give the address "
            "`dask scheduler` printed"
        )


def _security(address: str, source: str) -> Any:
    """Dask's Security from its configuration (the DASK_DISTRIBUTED__COMM__TLS__...
    variables or distributed.comm.tls in a Dask config file), or a ConfigError saying
    which options a tls:// address needs."""
    from distributed.security import Security

    security = Security()
    if not (security.tls_ca_file and security.tls_client_cert):
        raise ConfigError(
            f"{source} {address}: a tls:// scheduler needs Dask's certificate options, and "
            f"none are set: set {', '.join(TLS_OPTIONS)} (the CA that signed the "
            "scheduler's certificate, this machine's certificate and its key; or "
            "distributed.comm.tls in a Dask config file), or give a tcp:// address "
            '(docs/cluster.md, "TLS")'
        )
    return security


def _tls_handshake(
    conn: socket.socket, host: str, security: Any, address: str, source: str
) -> None:
    import ssl

    context = security.get_connection_args("client")["ssl_context"]
    conn.settimeout(HANDSHAKE_SECONDS)
    try:
        context.wrap_socket(conn, server_hostname=host if context.check_hostname else None)
    except TimeoutError:
        raise ConfigError(
            f"{source} {address}: the port accepts connections but completes no TLS "
            f"handshake within {HANDSHAKE_SECONDS:.0f} s: give the address `dask scheduler` "
            "printed"
        ) from None
    except (ssl.SSLError, OSError) as err:
        raise ConfigError(
            f"{source} {address}: the TLS handshake failed ({err}): check that the scheduler "
            f"runs with TLS and that {TLS_OPTIONS[0]} names the CA that signed its "
            "certificate"
        ) from None
