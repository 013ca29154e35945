"""Tries to connect to a loopback TCP port (argument 1) and to an outside address,
reports what happened, and plays on."""

import socket
import sys

from _common import report, serve


def dial(request):
    for host, port in (("127.0.0.1", int(sys.argv[1])), ("1.1.1.1", 80), ("10.0.0.1", 80)):
        try:
            with socket.create_connection((host, port), timeout=0.3):
                report(f"CONNECTED {host}:{port}")
        except OSError as err:
            report(f"blocked {host}:{port}: {err}")


serve(dial)
