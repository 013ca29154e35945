"""A submission's form, read from a stranger: the archive streamed to a file, never
held whole, and the size cap enforced while the body is read.

A body whose `Content-Length` passes the cap is refused before a byte of it is read;
one sent in chunks (or under a `Content-Length` that lies) is counted as it arrives
and refused at the first chunk past the cap. The parts are parsed by Starlette's form
parser (python-multipart under it), which spools a file part to a temporary file past
1 MiB; the archive is copied from there to a file of its own in a private folder and
handed to the same unpacker as `arena ladder submit` (arena/ladder/uploads.py), which
checks it as the attack it may be."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import Message

FORM_SLACK = 64 * 1024  # bytes of a form beside its archive: the other fields, the parts' headers
MAX_FIELD_BYTES = 8 * 1024  # a text field (bot, command, ladder, csrf)
MAX_FIELDS = 8
COPY_CHUNK = 1 << 20


class UploadTooLarge(Exception):
    """The body passes the cap: 413, saying the cap."""


class FormProblem(Exception):
    """The form is not a submission's (not multipart, a field missing or repeated):
    400, saying which."""


@dataclass(frozen=True)
class SubmissionForm:
    fields: dict[str, str]  # the text fields, each once
    archive: Path  # the archive as sent, in a folder of its own


def _capped(request: Request, cap: int):  # noqa: ANN202 (an ASGI receive callable)
    seen = 0

    async def receive() -> Message:
        nonlocal seen
        message = await request.receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > cap:
                raise UploadTooLarge(seen)
        return message

    return receive


def too_large_message(archive_cap: int) -> str:
    return (
        f"the upload is larger than this ladder takes ({archive_cap // (1 << 20)} MiB for the "
        "archive): leave out what the bot does not need to run"
    )


async def read_submission(
    request: Request, archive_cap: int, folder: Path, text_fields: tuple[str, ...]
) -> SubmissionForm:
    """The form of `request`: its `text_fields` (each at most once) and its `archive`
    file, written to `folder`/archive. UploadTooLarge past `archive_cap` (+ the form's
    slack), FormProblem for anything that is not such a form."""
    cap = archive_cap + FORM_SLACK
    kind = request.headers.get("content-type", "")
    if not kind.lower().startswith("multipart/form-data"):
        raise FormProblem("send the submission as multipart/form-data (a form with a file)")
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise FormProblem("the Content-Length header is not a number")
        if int(length) > cap:
            raise UploadTooLarge(int(length))
    counted = Request(request.scope, _capped(request, cap))
    try:
        async with counted.form(
            max_files=1, max_fields=MAX_FIELDS, max_part_size=MAX_FIELD_BYTES
        ) as form:
            fields: dict[str, str] = {}
            archive: UploadFile | None = None
            for key, value in form.multi_items():
                if key in fields or (key == "archive" and archive is not None):
                    raise FormProblem(f"the field {key[:40]!r} is sent more than once")
                if key == "archive":
                    if not isinstance(value, UploadFile):
                        raise FormProblem("archive must be a file (.tar.gz, .tgz, .tar or .zip)")
                    archive = value
                elif key in text_fields:
                    if not isinstance(value, str):
                        raise FormProblem(f"{key} must be text, not a file")
                    fields[key] = value
                else:
                    raise FormProblem(
                        f"unknown field {key[:40]!r}: a submission has "
                        + ", ".join([*text_fields, "archive"])
                    )
            if archive is None:
                raise FormProblem("archive is missing: choose the bot's archive to upload")
            path = folder / "archive"
            with path.open("wb") as out:
                while chunk := await archive.read(COPY_CHUNK):
                    out.write(chunk)
    except HTTPException as error:  # the form parser's refusals (too many parts, ...)
        raise FormProblem(str(error.detail)) from None
    return SubmissionForm(fields, path)


SMALL_FORM_BYTES = 16 * 1024  # a sign-in, a promotion, a withdrawal: a few short fields


async def read_small_form(request: Request, fields: tuple[str, ...]) -> dict[str, str]:
    """A form of a few text fields (urlencoded or multipart, no file), its body capped
    at SMALL_FORM_BYTES while read: FormProblem for a file, an unknown or repeated
    field, UploadTooLarge past the cap."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > SMALL_FORM_BYTES):
        raise UploadTooLarge(length)
    counted = Request(request.scope, _capped(request, SMALL_FORM_BYTES))
    out: dict[str, str] = {}
    try:
        async with counted.form(
            max_files=0, max_fields=len(fields) + 1, max_part_size=MAX_FIELD_BYTES
        ) as form:
            for key, value in form.multi_items():
                if key not in fields:
                    raise FormProblem(f"unknown field {key[:40]!r}")
                if key in out:
                    raise FormProblem(f"the field {key[:40]!r} is sent more than once")
                if not isinstance(value, str):
                    raise FormProblem(f"{key} must be text, not a file")
                out[key] = value
    except HTTPException as error:
        raise FormProblem(str(error.detail)) from None
    return out
