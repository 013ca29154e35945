"""Who is signed in on the ladder site, and that a form was sent by its own page.

The session is Starlette's signed cookie (`SessionMiddleware`, itsdangerous under it):
HttpOnly, SameSite=Strict, Secure when the request came over https, and expiring
after `SESSION_SECONDS`. It holds the author's id, a fingerprint of their stored token
hash (so `arena ladder author revoke` ends every session of theirs at once), a random
session id and the form token; never the author's token, which is read once from the
sign-in form, checked with argon2 (arena/ladder/tokens.py) and dropped.

The cookie's signing key is made at random when the server starts and kept in memory
only: a restart signs everybody out, and a signed-out session's id is remembered
until its cookie would have expired, so a copied cookie stops working at sign-out
instead of living on. One server process holds them all (`arena ladder serve` runs
one).

Every form carries the session's form token (`csrf`), compared in constant time
before anything is done: a page of another site can make a browser post a form, but
cannot read the token to put in it (and SameSite=Strict keeps the cookie off such a
post as well)."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Mapping
from typing import Any

from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

SESSION_COOKIE = "arena_session"
SESSION_SECONDS = 8 * 3600
CSRF_FIELD = "csrf"


class FormRefused(Exception):
    """A form sent without its page's token, or with another: 403, nothing done."""


class Sessions:
    """Starlette's session middleware, with the Secure flag when the request came over
    https (two middlewares sharing one key; `scope["scheme"]` is https behind TLS, or
    behind a proxy uvicorn trusts with --proxy-headers)."""

    def __init__(self, app: ASGIApp, secret: str) -> None:
        options = {"session_cookie": SESSION_COOKIE, "max_age": SESSION_SECONDS,
                   "same_site": "strict"}  # fmt: skip
        self.plain = SessionMiddleware(app, secret, https_only=False, **options)  # type: ignore[arg-type]
        self.secure = SessionMiddleware(app, secret, https_only=True, **options)  # type: ignore[arg-type]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        chosen = self.secure if scope.get("scheme") in ("https", "wss") else self.plain
        await chosen(scope, receive, send)


def new_secret() -> str:
    """A signing key for this server process's cookies."""
    return secrets.token_urlsafe(32)


def token_fingerprint(token_hash: str | None) -> str:
    """What a session keeps of the author's stored hash: enough to see it changed or
    was revoked, nothing that helps to guess the token."""
    return hashlib.sha256((token_hash or "").encode()).hexdigest()[:32]


class SignedOut:
    """Session ids ended by sign-out, each kept until its cookie would have expired."""

    def __init__(self) -> None:
        self.ended: dict[str, float] = {}

    def end(self, session_id: str, now: float | None = None) -> None:
        now = time.time() if now is None else now
        self.ended = {k: t for k, t in self.ended.items() if t > now}
        self.ended[session_id] = now + SESSION_SECONDS

    def __contains__(self, session_id: object) -> bool:
        return session_id in self.ended


def form_token(request: Request) -> str:
    """The session's form token, made on first use (a visitor not signed in has one
    too: the sign-in form carries it)."""
    session = request.session
    if not isinstance(session.get(CSRF_FIELD), str):
        session[CSRF_FIELD] = secrets.token_urlsafe(32)
    return session[CSRF_FIELD]


def check_form(request: Request, form: Mapping[str, Any]) -> None:
    """FormRefused unless `form` carries this session's form token."""
    expected = request.session.get(CSRF_FIELD)
    sent = form.get(CSRF_FIELD)
    if not isinstance(expected, str) or not isinstance(sent, str):
        raise FormRefused("this form has no valid form token: reload the page and send it again")
    if not secrets.compare_digest(expected.encode(), sent.encode()):
        raise FormRefused(
            "this form's token is not this session's: reload the page and send it again"
        )


def sign_in(request: Request, author: Mapping[str, Any]) -> None:
    """A fresh session for `author` (a new id and form token: nothing from before the
    sign-in carries over)."""
    request.session.clear()
    request.session.update(
        {
            "author_id": author["id"],
            "author": author["name"],
            "token": token_fingerprint(author["token_hash"]),
            "sid": secrets.token_urlsafe(16),
            CSRF_FIELD: secrets.token_urlsafe(32),
        }
    )


def sign_out(request: Request, ended: SignedOut) -> None:
    sid = request.session.get("sid")
    if isinstance(sid, str):
        ended.end(sid)
    request.session.clear()


def session_author(request: Request, ended: SignedOut, author_row: Any) -> dict[str, Any] | None:
    """The author signed in on `request`, or None: the session names one, has not been
    signed out, and the author's token is still the one signed in with (not revoked).
    `author_row(id)` reads the author's row as stored now."""
    session = request.session
    author_id, sid = session.get("author_id"), session.get("sid")
    if not isinstance(author_id, int) or not isinstance(sid, str) or sid in ended:
        return None
    row = author_row(author_id)
    if row is None or row["revoked_at"] is not None or not row["token_hash"]:
        return None
    if not secrets.compare_digest(token_fingerprint(row["token_hash"]), str(session.get("token"))):
        return None
    return dict(row)
