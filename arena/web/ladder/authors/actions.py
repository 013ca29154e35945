"""What an author does through the ladder site, the same whether from a form (signed
in with a session) or from the API (a Bearer token): sign in, submit, promote,
withdraw, ask for a test match. Each is the command line's own function
(arena/ladder/book.py) run off the event loop (argon2 and unpacking take a while), so
the site and `arena ladder` accept and refuse exactly the same things, with the same
words.

A failure is an `ActionRefused` with the HTTP status it is answered with and the
message to show: 401 for a token that is not an author's, 403 for a form not sent by
its own page, 413 for an upload past the cap, 429 for too many sign-in attempts (with
the seconds to wait), 400 for everything the ladder refuses and says why."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from arena.errors import ArenaError
from arena.ladder import book
from arena.ladder.book import Credential, SignedIn, TokenRefused
from arena.ladder.tokens import token_author
from arena.ladder.uploads import MIB
from arena.web.ladder.authors import reads
from arena.web.ladder.authors.forms import (
    FormProblem,
    UploadTooLarge,
    read_submission,
    too_large_message,
)
from arena.web.ladder.authors.sessions import FormRefused, check_form
from arena.web.ladder.authors.throttle import SignInLimits


class ActionRefused(Exception):
    def __init__(self, status: int, message: str, retry_after: float = 0.0) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


@dataclass(frozen=True)
class Done:
    message: str
    version: str = ""  # BOT@N of a submission
    sha256: str = ""
    new: bool = False


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@dataclass
class Actions:
    """The author's actions on the ladder `ladder_name` of `db_path`."""

    db_path: Path
    ladder_name: str
    limits: SignInLimits

    def _ladder(self) -> book.Ladder:
        with book.reading(self.db_path) as db:
            return book.open_ladder(db, self.ladder_name)

    async def check_token(self, request: Request, token: str | None) -> dict[str, Any]:
        """The author `token` is, counted against the sign-in limits (per address, and
        failures per author): ActionRefused 429 when over them, 401 when no author's."""
        address, name = client_address(request), token_author(token or "")
        wait = self.limits.wait(address, name)
        if wait > 0:
            raise ActionRefused(
                429,
                "too many sign-in attempts from this address or for this author: try again in "
                f"{math.ceil(wait)} s",
                wait,
            )
        self.limits.attempted(address)

        def check() -> dict[str, Any]:
            with book.reading(self.db_path) as db:
                ladder = book.open_ladder(db, self.ladder_name)
                return book.authenticated(db, ladder, token)

        try:
            return await run_in_threadpool(check)
        except TokenRefused as refused:
            self.limits.failed(name)
            raise ActionRefused(401, str(refused)) from None

    async def submit(
        self,
        request: Request,
        credential: Credential,
        text_fields: tuple[str, ...],
        page_form: bool,
    ) -> tuple[Done, dict[str, str]]:
        """The submission in `request`'s form, stored and waiting for the gate (or
        recognised as a version held already); the form's text fields with it. A
        `page_form` (the site's own upload form) must carry its session's form token."""
        ladder = await run_in_threadpool(self._ladder)
        cap = ladder.config.uploads.max_mb * MIB
        with tempfile.TemporaryDirectory(prefix="arena-upload-") as folder:
            try:
                form = await read_submission(request, cap, Path(folder), text_fields)
            except UploadTooLarge:
                raise ActionRefused(413, too_large_message(cap)) from None
            except FormProblem as problem:
                raise ActionRefused(400, str(problem)) from None
            fields = form.fields
            if page_form:
                form_checked(request, fields)
            asked = fields.get("ladder")
            if asked and asked != self.ladder_name:
                raise ActionRefused(
                    400, f"this site serves the ladder {self.ladder_name!r}, not {asked[:80]!r}"
                )
            for key in ("bot", "command"):
                if not fields.get(key, "").strip():
                    raise ActionRefused(400, f"{key} is missing: give the bot's {key}")

            def store() -> book.Submitted:
                return book.submit(
                    self.db_path,
                    self.ladder_name,
                    token=credential,
                    bot=fields["bot"],
                    source=form.archive,
                    command=fields["command"],
                )

            done = await self._run(store)
        said = (
            f"{done.version} submitted (sha256 {done.sha256}): the gate checks it next"
            if done.new
            else f"identical to {done.version} (sha256 {done.sha256}): nothing was added"
        )
        return Done(said, done.version, done.sha256, done.new), fields

    async def promote(self, credential: Credential, spec: str) -> Done:
        return Done(await self._run(book.promote, self.db_path, self.ladder_name,
                                    token=credential, spec=spec))  # fmt: skip

    async def withdraw(self, credential: Credential, spec: str) -> Done:
        return Done(await self._run(book.withdraw, self.db_path, self.ladder_name,
                                    token=credential, spec=spec))  # fmt: skip

    async def request_test(self, credential: Credential, spec: str, opponents: list[str]) -> Done:
        return Done(await self._run(book.request_test, self.db_path, self.ladder_name,
                                    token=credential, spec=spec, opponents=opponents))  # fmt: skip

    def own_tests(self, credential: SignedIn) -> list[dict[str, Any]]:
        """The author's test matches, newest first, as their page shows them."""
        with book.reading(self.db_path) as db:
            ladder = book.open_ladder(db, self.ladder_name)
            author = book.authenticated(db, ladder, credential)
            return reads.own_tests(db, ladder, author)

    async def _run(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await run_in_threadpool(function, *args, **kwargs)
        except TokenRefused as refused:
            raise ActionRefused(401, str(refused)) from None
        except ArenaError as error:  # ConfigError, UploadRefused: the ladder says why
            raise ActionRefused(400, str(error)) from None


def form_checked(request: Request, fields: Mapping[str, Any]) -> None:
    """ActionRefused 403 unless the form carries its session's form token."""
    try:
        check_form(request, fields)
    except FormRefused as refused:
        raise ActionRefused(403, str(refused)) from None
