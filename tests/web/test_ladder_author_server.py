"""The author side through a real `arena ladder serve` on loopback: an upload past the
cap is refused before it is read whole (by its Content-Length before a byte of the
body, or at the first chunks past the cap when it is sent in chunks), and an author's
token shows up nowhere in what the server prints."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from urllib.request import urlopen

import pytest

from tests.support.ladder_authors import author_ladder, bot_tar

MIB = 1 << 20


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[int, object, subprocess.Popen]]:
    ladder = author_ladder(tmp_path_factory.mktemp("served"), max_mb=1)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "ladder", "serve", "--db", str(ladder.db),
         "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        for _ in range(300):
            try:
                with urlopen(f"http://127.0.0.1:{port}/api/v1/ladder", timeout=2):
                    break
            except OSError:
                assert server.poll() is None, server.stdout.read()
                time.sleep(0.1)
        yield port, ladder, server
    finally:
        server.terminate()
        server.wait(timeout=10)


def _head(port: int, token: str, extra: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(
        (
            "POST /api/v1/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\n"
            "Content-Type: multipart/form-data; boundary=XyZ\r\n" + extra + "\r\n"
        ).encode()
    )
    return sock


def _whole(data: bytes) -> bool:
    """Whether `data` holds a response's head and all of its Content-Length."""
    head, found, body = data.partition(b"\r\n\r\n")
    if not found:
        return False
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value.strip())
    return True


def _answer(sock: socket.socket) -> tuple[int, str]:
    data = b""
    while not _whole(data):
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        data += chunk
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0
    return status, data.decode("utf-8", "replace")


@pytest.mark.slow
def test_a_content_length_past_the_cap_is_refused_before_the_body_is_sent(served) -> None:
    port, ladder, _ = served
    sock = _head(port, ladder.alice, f"Content-Length: {500 * MIB}\r\n")
    with sock:
        status, text = _answer(sock)  # not a byte of the body was sent
    assert status == 413, text
    assert "1 MiB" in text


@pytest.mark.slow
def test_a_chunked_upload_is_cut_off_soon_after_the_cap(served) -> None:
    port, ladder, _ = served
    sock = _head(port, ladder.alice, "Transfer-Encoding: chunked\r\n")
    sent, chunk = 0, b"x" * (256 * 1024)
    frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    start = (b'--XyZ\r\nContent-Disposition: form-data; name="archive"; filename="a.tgz"\r\n'
             b"Content-Type: application/gzip\r\n\r\n")  # fmt: skip
    with sock:
        sock.sendall(f"{len(start):x}\r\n".encode() + start + b"\r\n")
        sock.settimeout(2)
        try:
            while sent < 200 * MIB:
                sock.sendall(frame)
                sent += len(chunk)
        except (TimeoutError, BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading: what it said is waiting
        sock.settimeout(10)
        status, text = _answer(sock)
    assert status == 413, text
    print(f"{sent / MIB:.1f} MiB sent before the server refused")
    assert sent < 16 * MIB, f"{sent / MIB:.0f} MiB sent before the server refused"


@pytest.mark.slow
def test_no_token_is_printed_by_the_server(served) -> None:
    port, ladder, server = served
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    boundary = "B0undary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="bot"\r\n\r\nserved\r\n',
        f'--{boundary}\r\nContent-Disposition: form-data; name="command"\r\n\r\npython bot.py\r\n',
        f'--{boundary}\r\nContent-Disposition: form-data; name="archive"; filename="b.tgz"\r\n'
        "Content-Type: application/gzip\r\n\r\n",
    ]
    body = "".join(parts).encode() + bot_tar("served") + f"\r\n--{boundary}--\r\n".encode()
    connection.request(
        "POST", "/api/v1/submissions", body,
        {"Authorization": f"Bearer {ladder.alice}",
         "Content-Type": f"multipart/form-data; boundary={boundary}"},
    )  # fmt: skip
    answer = connection.getresponse()
    assert answer.status == 201, answer.read()
    assert json.loads(answer.read())["version"] == "served@1"
    connection.request("POST", "/login", f"token={ladder.alice}&csrf=x",
                       {"Content-Type": "application/x-www-form-urlencoded"})  # fmt: skip
    assert connection.getresponse().status == 403  # no session's form token
    connection.close()
    server.terminate()
    printed = server.communicate(timeout=10)[0].decode("utf-8", "replace")
    secret = ladder.alice.rpartition(".")[2]
    assert secret not in printed
