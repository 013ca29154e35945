"""What `arena serve` does for being published to strangers: which `Host` it answers
(a DNS-rebinding page on another name is refused), the security headers on every
response, names in the path that may hold `/` or `%`, bounded ids, and a time limit on
a request's headers (a client dripping a header byte at a time is cut off).

Each is a small ASGI wrapper or uvicorn hook around the Starlette application, so the
pages themselves know nothing of it (docs/web.md, "Published to the network")."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, unquote

import h11
from starlette.convertors import Convertor
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

# The page's own style sheets, scripts and data, nothing inline but styles (the swatches'
# colours), no frame around it, no form sent anywhere.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-cache"),
]
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")
HEADER_TIMEOUT = 10.0  # seconds a client has to send a request's headers


def allowed_hosts(host: str, extra: Iterable[str] = ()) -> list[str]:
    """The names a request's `Host` may give: loopback's, the address listened on
    (unless it is every address), and each `--allowed-host`."""
    names = list(LOOPBACK)
    if host not in WILDCARDS:
        names.append(f"[{host}]" if ":" in host and not host.startswith("[") else host)
    names += [name.strip().lower() for name in extra if name.strip()]
    return list(dict.fromkeys(names))


# The ladder site's forms post to the site itself (its sign-in, uploads and levers).
FORMS_CSP = CSP.replace("form-action 'none'", "form-action 'self'")


class SecurityHeaders:
    """Adds `HEADERS` to every response (pages, data, static files, errors); `csp`
    in place of the default policy when given."""

    def __init__(self, app: ASGIApp, csp: str = CSP) -> None:
        self.app = app
        self.headers = [(n, csp.encode() if n == b"content-security-policy" else v)
                        for n, v in HEADERS]  # fmt: skip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in self.headers if n not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


def segment_path(raw_path: bytes) -> str:
    """The request's path decoded segment by segment, with a decoded `/` or `%` kept
    as `%2F` or `%25`: a name holding `/` (`team/alpha`) stays one segment, which
    the `name` convertor decodes (`quote(name, safe='')` in arena/web/links.py)."""
    parts = raw_path.decode("latin-1").split("/")
    return "/".join(unquote(part).replace("%", "%25").replace("/", "%2F") for part in parts)


class SegmentedPath:
    """Routes on `segment_path` of the raw path instead of the fully decoded one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("raw_path") is not None:
            scope = {**scope, "path": segment_path(scope["raw_path"])}
        await self.app(scope, receive, send)


class NameConvertor(Convertor[str]):
    """A league or entrant name as one path segment (see `segment_path`)."""

    regex = "[^/]+"

    def convert(self, value: str) -> str:
        return unquote(value)

    def to_string(self, value: str) -> str:
        return quote(value, safe="")


class IdConvertor(Convertor[int]):
    """A stored id or number: at most 18 digits, so it always fits SQLite's integer;
    a longer one matches no route and answers 404."""

    regex = "[0-9]{1,18}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a limit on the time from a connection's start
    (or its last response) to its request's last header: uvicorn's keep-alive timer is
    reset by every byte, so a client sending one header byte every few seconds would
    otherwise hold the connection for ever."""

    header_timeout = HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the request's headers are in
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm()


def header_timeout_protocol(seconds: float) -> type[HeaderTimeoutProtocol]:
    """`HeaderTimeoutProtocol` with a limit of `seconds`, as uvicorn's `http=` class."""
    return type("HeaderTimeoutProtocol", (HeaderTimeoutProtocol,), {"header_timeout": seconds})
