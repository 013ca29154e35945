"""The table's server, run beside the referee for as long as an `arena play` session
with people in it lasts (`serving_table`).

Why a thread: the referee plays on the command's own thread (and its event loop, with
bots over gRPC); the people's pages are served by uvicorn on a loop of its own in a
thread of its own, so neither waits on the other. They share only the `HumanTable`.

Why the socket is bound here: port 0 (the default) asks the system for a free port,
and the links printed must name the port really bound; an address this machine
cannot listen on is a `ConfigError` before any bot starts.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import uvicorn

from arena.bots.human import HumanTable
from arena.errors import ConfigError
from arena.web.hardening import HEADER_TIMEOUT, allowed_hosts, header_timeout_protocol
from arena.web.table.app import make_table_app, seat_path

START_SECONDS = 10.0  # how long uvicorn may take to start serving
LINGER_SECONDS = 3.0  # after the session, how long a page has to fetch the game's end


def table_links(table: HumanTable, host: str, port: int) -> dict[int, str]:
    """Each person's seat -> the link to its page."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if shown in ("0.0.0.0", "[::]", ""):
        shown = "127.0.0.1"  # every address: this machine's own is one of them
    return {s: f"http://{shown}:{port}{seat_path(seat)}" for s, seat in table.seats.items()}


def _bound(host: str, port: int) -> socket.socket:
    """A listening socket at host:port, or ConfigError saying what to give instead."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError as err:
        raise ConfigError(f"cannot open a socket for --host {host[:80]!r}: {err}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(64)
    except (OSError, OverflowError, TypeError, UnicodeError, ValueError) as err:
        sock.close()
        said = getattr(err, "strerror", None) or err
        raise ConfigError(
            f"the table's server cannot listen on {host[:80]}:{port} ({said}): give another "
            "--port (0 for a free one), or a --host this machine has (127.0.0.1 for this "
            "machine alone)"
        ) from None
    return sock


@contextmanager
def serving_table(
    table: HumanTable,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    extra_hosts: Sequence[str] = (),
    header_timeout: float = HEADER_TIMEOUT,
) -> Iterator[dict[int, str]]:
    """Serve `table`'s pages at host:port while the block runs; yields each person's
    seat's link. On the way out the seats are closed (a wait ends as a fault), the
    pages given a moment to fetch the game's end, and the server stopped."""
    sock = _bound(host, port)
    port = sock.getsockname()[1]
    app = make_table_app(table, allowed_hosts(host, extra_hosts))
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,  # a request's path holds a seat's secret
        http=header_timeout_protocol(header_timeout),
        lifespan="off",
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="arena-table", daemon=True
    )
    thread.start()
    try:
        end = time.monotonic() + START_SECONDS
        while not server.started:
            if not thread.is_alive() or time.monotonic() > end:
                raise ConfigError(f"the table's server did not start on {host}:{port}")
            time.sleep(0.02)
        yield table_links(table, host, port)
        table.wait_delivered(LINGER_SECONDS)
    finally:
        table.close()
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
