"""The author's side of the ladder's JSON API: submit, promote, withdraw, ask for a
test match and list one's own, each with `Authorization: Bearer TOKEN` (the token
`arena ladder author add` printed).

A tool sends the token on every request, so the API needs no session and no form
token: a cookie alone never authorises a write here (a page of another site can make
a browser send cookies, not this header). Every attempt with a token counts against
the sign-in limits of arena/web/ladder/authors/throttle.py, as a sign-in does. Answers are
JSON: the result, or `{"error": ...}` with the status of arena/web/ladder/authors/actions.py
(401 with `WWW-Authenticate: Bearer` when the token is missing or not an author's)."""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from arena.ladder.book import SignedIn
from arena.web.ladder.authors.actions import ActionRefused, Actions
from arena.web.ladder.params import Query

SUBMISSION_FIELDS = ("bot", "command", "ladder")


def json_response(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def refused_response(refused: ActionRefused) -> Response:
    """The refusal as JSON. The connection is closed after it: the request's body may
    be unread (a token refused before the upload, an upload past the cap), and the
    server would otherwise read the rest of it only to throw it away."""
    headers = {"Connection": "close"}
    if refused.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="ladder"'
    if refused.retry_after:
        headers["Retry-After"] = str(int(refused.retry_after) + 1)
    return json_response({"error": refused.message}, refused.status, headers)


def bearer(request: Request) -> str | None:
    """The token of an `Authorization: Bearer TOKEN` header (None when there is none)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


JSON_BODY_BYTES = 16 * 1024


async def _small_json(request: Request) -> dict[str, Any]:
    """A JSON object of at most JSON_BODY_BYTES, read no further than that."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > JSON_BODY_BYTES:
            raise ActionRefused(413, f"send at most {JSON_BODY_BYTES} bytes of JSON")
    try:
        value = json.loads(body or b"null")
    except (ValueError, UnicodeDecodeError):
        raise ActionRefused(400, "the body is not JSON") from None
    if not isinstance(value, dict):
        raise ActionRefused(400, "send a JSON object")
    return value


class ApiWrites:
    def __init__(self, actions: Actions) -> None:
        self.actions = actions

    async def _author(self, request: Request) -> SignedIn:
        token = bearer(request)
        if token is None:
            raise ActionRefused(
                401, "send your author token as the header `Authorization: Bearer TOKEN`"
            )
        author = await self.actions.check_token(request, token)
        return SignedIn(author["id"])

    async def submission(self, request: Request) -> Response:
        """POST /api/v1/submissions: multipart form data with `bot`, `command`,
        `archive` (and `ladder`): 201 with the new version, 200 when identical."""
        try:
            Query.of(request.query_params.multi_items(), ())
            who = await self._author(request)
            done, _ = await self.actions.submit(request, who, SUBMISSION_FIELDS, page_form=False)
        except ActionRefused as refused:
            return refused_response(refused)
        answer = {"version": done.version, "sha256": done.sha256, "new": done.new,
                  "message": done.message}  # fmt: skip
        return json_response(answer, 201 if done.new else 200)

    async def _lever(self, request: Request, act: Any) -> Response:
        spec = f"{request.path_params['name']}@{request.path_params['number']}"
        try:
            Query.of(request.query_params.multi_items(), ())
            done = await act(await self._author(request), spec)
        except ActionRefused as refused:
            return refused_response(refused)
        return json_response({"version": spec, "message": done.message})

    async def request_test(self, request: Request) -> Response:
        """POST /api/v1/test-matches: JSON `{"version": "BOT@N", "opponents": [...]}`;
        201 with the test match's id."""
        try:
            Query.of(request.query_params.multi_items(), ())
            who = await self._author(request)
            asked = await _small_json(request)
            version, opponents = asked.get("version"), asked.get("opponents")
            if (
                not isinstance(version, str)
                or not isinstance(opponents, list)
                or not all(isinstance(o, str) for o in opponents)
            ):
                raise ActionRefused(
                    400, 'send {"version": "BOT@N", "opponents": ["BOT@N", ...]} as JSON'
                )
            done = await self.actions.request_test(who, version, opponents)
        except ActionRefused as refused:
            return refused_response(refused)
        number = re.match(r"test match (\d+) queued", done.message)
        return json_response({"id": int(number.group(1)) if number else None,
                              "message": done.message}, 201)  # fmt: skip

    async def tests(self, request: Request) -> Response:
        """GET /api/v1/test-matches: the author's own test matches, newest first, paged."""
        try:
            query = Query.of(request.query_params.multi_items(), ("cursor", "limit"))
            who = await self._author(request)
        except ActionRefused as refused:
            return refused_response(refused)
        items = await run_in_threadpool(self.actions.own_tests, who)
        start, limit = query.cursor() or 0, query.limit()
        more = start + limit < len(items)
        page = {"items": items[start : start + limit],
                "next_cursor": str(start + limit) if more else None}  # fmt: skip
        return json_response(page)

    async def promote(self, request: Request) -> Response:
        """POST /api/v1/versions/{name}/{number}/promote"""
        return await self._lever(request, self.actions.promote)

    async def withdraw(self, request: Request) -> Response:
        """POST /api/v1/versions/{name}/{number}/withdraw"""
        return await self._lever(request, self.actions.withdraw)
