"""Shared fixtures."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import typer
import typer.testing

JS_BOT = Path(__file__).resolve().parent.parent / "sample_bots" / "js_bot"


@pytest.fixture(scope="session")
def js_bot_installed() -> Path:
    """The JavaScript bot's node packages, installed from its lock file when missing."""
    if not (JS_BOT / "node_modules" / "@grpc" / "grpc-js").exists():
        subprocess.run(["npm", "ci", "--prefix", str(JS_BOT)], check=True, timeout=300)
    return JS_BOT


_BUILT: dict[int, tuple[typer.Typer, object]] = {}
_BUILD = getattr(typer.testing, "_get_command", None)  # a typer without it: built each time


def _built_once(app: typer.Typer) -> object:
    """The click command of a typer app, built on its first invoke and kept: typer's
    CliRunner builds it anew, from every command's signature, on each invoke (tens of
    milliseconds for `arena`), and builds the same command every time, as `arena` builds
    it once per process. The app is kept with it, so its id is never another's."""
    key = id(app)
    if key not in _BUILT:
        _BUILT[key] = (app, _BUILD(app))
    return _BUILT[key][1]


if _BUILD is not None:
    typer.testing._get_command = _built_once
