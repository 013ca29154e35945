"""Issue 27 findings 3, 5 and 10: every --cluster address answers within a stated time
(a port that accepts and says nothing, one that answers with bytes that are not
Dask's), tls:// without Dask's certificate options is refused saying which to set,
and an address from the league file's [cluster] table is named as coming from there."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.league.workers import cluster_probe
from tests.support.tiny_league import tiny_file

runner = CliRunner()


@contextmanager
def _listener(answer: bytes | None) -> Iterator[int]:
    """A loopback port that accepts connections and sends `answer` (None: nothing),
    then holds them open until the test ends."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            held.append(conn)
            if answer is not None:
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()


@pytest.fixture(autouse=True)
def _short(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster_probe, "HANDSHAKE_SECONDS", 0.5)
    monkeypatch.setattr(cluster_probe, "CONNECT_SECONDS", 0.5)


def _run(tmp_path: Path, address: str, in_file: bool = False):
    extra_file = f'\n[cluster]\naddress = "{address}"\n' if in_file else ""
    league = tiny_file(tmp_path)
    if extra_file:
        league.write_text(league.read_text() + extra_file)
    argv = ["run", str(league), "--db", str(tmp_path / "a.db")]
    return runner.invoke(app, argv if in_file else [*argv, "--cluster", address])


def test_finding_3_a_port_that_never_answers_is_refused_in_time(tmp_path: Path) -> None:
    with _listener(None) as port:
        result = _run(tmp_path, f"tcp://127.0.0.1:{port}")
    assert result.exit_code == 2, result.output
    assert "the port accepts connections but sends nothing within" in result.output
    assert "not a Dask scheduler" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    "answer", [b"HTTP/1.1 400 Bad Request\r\n\r\n", b"\xff" * 64, b"\x00" * 8 + b"x"]
)
def test_finding_5_bytes_that_are_not_dasks_are_refused(tmp_path: Path, answer: bytes) -> None:
    with _listener(answer) as port:
        result = _run(tmp_path, f"tcp://127.0.0.1:{port}")
    assert result.exit_code == 2, result.output
    assert "not a Dask scheduler" in result.output and "Traceback" not in result.output


def test_finding_5_tls_without_certificates_is_refused_saying_what_to_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in cluster_probe.TLS_OPTIONS:
        monkeypatch.delenv(name, raising=False)
    with _listener(None) as port:
        result = _run(tmp_path, f"tls://127.0.0.1:{port}")
    assert result.exit_code == 2, result.output
    assert "DASK_DISTRIBUTED__COMM__TLS__CA_FILE" in result.output
    assert "TypeError" not in result.output and "Traceback" not in result.output


def test_finding_10_a_files_cluster_address_is_named_as_the_files(tmp_path: Path) -> None:
    with _listener(None) as port:
        result = _run(tmp_path, f"tcp://127.0.0.1:{port}", in_file=True)
    assert result.exit_code == 2, result.output
    assert "[cluster] address tcp://127.0.0.1" in result.output
    assert "error: --cluster" not in result.output
