"""Issue 27 finding 5: a `tls://` scheduler works when Dask's certificate options are
set (docs/cluster.md, "TLS"). A CA and a certificate for 127.0.0.1 are made with the
openssl command, a `dask scheduler --protocol tls` is started on loopback, and the
arena's cluster executor connects to it through the probe and Dask's own handshake."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


def _certificates(folder: Path) -> tuple[Path, Path, Path]:
    if shutil.which("openssl") is None:
        pytest.fail("the openssl command is missing: apt-get install openssl")
    (folder / "ext.cnf").write_text("subjectAltName = IP:127.0.0.1, DNS:localhost\n")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60)

    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=arena-test-ca",
    )
    run(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "node.key",
        "-out",
        "node.csr",
        "-subj",
        "/CN=127.0.0.1",
    )
    run("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "node.pem", "-days", "2", "-extfile", "ext.cnf")  # fmt: skip
    return folder / "ca.pem", folder / "node.pem", folder / "node.key"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_finding_5_a_tls_scheduler_is_reached_with_dasks_certificate_options(
    tmp_path: Path,
) -> None:
    ca, cert, key = _certificates(tmp_path)
    port = _free_port()
    dask_cli = Path(sys.executable).parent / "dask"
    scheduler = subprocess.Popen(
        [str(dask_cli), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--protocol",
         "tls", "--tls-ca-file", str(ca), "--tls-cert", str(cert), "--tls-key", str(key),
         "--no-dashboard"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(400):  # until it listens (bounded: 20 s at most)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.05)
        import dask.config

        from arena.league.workers.executors import ClusterExecutor

        options = {  # what DASK_DISTRIBUTED__COMM__TLS__... set, in Dask's configuration
            "distributed.comm.tls.ca-file": str(ca),
            "distributed.comm.tls.client.cert": str(cert),
            "distributed.comm.tls.client.key": str(key),
        }
        with dask.config.set(options):
            executor = ClusterExecutor(f"tls://127.0.0.1:{port}")
            try:
                assert executor.workers() == []  # reached: a scheduler with no worker yet
            finally:
                executor.close()
    finally:
        scheduler.terminate()
        scheduler.wait(30)
