"""The benches' HTTP/1.1 client: one keep-alive connection to a server on loopback,
asyncio streams under h11 (the parser uvicorn itself uses, already a dependency), so
that a hundred readers are a hundred coroutines in one process. It sends a request
and reads the whole answer; nothing more (no redirects, no TLS, no cookies).

`multipart` builds a multipart/form-data body (text fields and files), as a browser's
form or `curl -F` sends one."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import h11

MAX_BODY = 64 * 2**20  # an answer larger than this is a failure, not a page


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    content_type: str


class Stale(ConnectionError):
    """A kept-alive connection the server had closed before this request was answered
    (uvicorn closes one idle for 5 s, or after answering a request whose body it did
    not read): nothing of an answer came."""


class Connection:
    """Requests one after another over one connection to host:port, opened again
    when the server closed it (or a request failed half-way). A GET that meets a
    kept-alive connection the server had closed is sent again once on a new one, as
    browsers do (the time measured includes both); any other request is not."""

    def __init__(self, host: str, port: int, timeout: float = 30.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._h11 = h11.Connection(h11.CLIENT)
        self._reused = False  # the open connection has answered a request already
        self._responding = False  # the answer to the request being sent has begun

    async def request(
        self,
        method: str,
        target: str,
        headers: Sequence[tuple[str, str]] = (),
        body: bytes = b"",
    ) -> Answer:
        """The server's answer to one request; an exception (OSError, TimeoutError,
        h11's errors) when there was none."""
        try:
            try:
                exchange = self._exchange(method, target, headers, body)
                return await asyncio.wait_for(exchange, self.timeout)
            except Stale:
                if method != "GET":
                    raise
                await self.close()
                exchange = self._exchange(method, target, headers, body)
                return await asyncio.wait_for(exchange, self.timeout)
        except BaseException:
            await self.close()
            raise

    async def _exchange(
        self, method: str, target: str, headers: Sequence[tuple[str, str]], body: bytes
    ) -> Answer:
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
            self._h11 = h11.Connection(h11.CLIENT)
            self._reused = False
        assert self._reader is not None
        try:
            return await self._send_and_read(method, target, headers, body)
        except (ConnectionError, h11.RemoteProtocolError) as err:
            if self._reused and not self._responding:
                raise Stale(f"the server had closed the connection: {err}") from err
            raise

    async def _send_and_read(
        self, method: str, target: str, headers: Sequence[tuple[str, str]], body: bytes
    ) -> Answer:
        assert self._reader is not None and self._writer is not None
        self._responding = False
        conn = self._h11
        sent = [("host", f"{self.host}:{self.port}"), ("content-length", str(len(body))),
                *headers]  # fmt: skip
        data = conn.send(h11.Request(method=method, target=target, headers=sent))
        if body:
            data += conn.send(h11.Data(data=body))
        data += conn.send(h11.EndOfMessage())
        self._writer.write(data)
        await self._writer.drain()
        status, content_type, chunks, size = 0, "", [], 0
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                received = await self._reader.read(65536)
                conn.receive_data(received)
                continue
            if isinstance(event, h11.Response):
                self._responding = True
                status = event.status_code
                for name, value in event.headers:
                    if name == b"content-type":
                        content_type = value.decode("latin-1")
            elif isinstance(event, h11.InformationalResponse):
                continue
            elif isinstance(event, h11.Data):
                size += len(event.data)
                if size > MAX_BODY:
                    raise ValueError(f"an answer of more than {MAX_BODY} bytes")
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                raise ConnectionError("the server closed the connection before answering")
        if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
            conn.start_next_cycle()
            self._reused = True
        else:
            await self.close()
        return Answer(status, b"".join(chunks), content_type)

    async def close(self) -> None:
        writer, self._writer, self._reader = self._writer, None, None
        self._reused = False
        if writer is not None:
            writer.close()
            try:
                await writer.wait_closed()
            except (OSError, ConnectionError):
                pass


def multipart(
    fields: Mapping[str, str], files: Mapping[str, tuple[str, bytes, str]]
) -> tuple[str, bytes]:
    """(content type, body) of a multipart/form-data form: `fields` as text, `files`
    as (file name, bytes, content type) each."""
    boundary = "arena-bench-" + secrets.token_hex(12)
    parts = []
    for name, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
            + value.encode()
            + b"\r\n"
        )
    for name, (filename, content, kind) in files.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{filename}"\r\nContent-Type: {kind}\r\n\r\n'.encode()
            + content
            + b"\r\n"
        )
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return f"multipart/form-data; boundary={boundary}", body
