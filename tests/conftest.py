"""Shared fixtures."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

JS_BOT = Path(__file__).resolve().parent.parent / "sample_bots" / "js_bot"


@pytest.fixture(scope="session")
def js_bot_installed() -> Path:
    """The JavaScript bot's node packages, installed from its lock file when missing."""
    if not (JS_BOT / "node_modules" / "@grpc" / "grpc-js").exists():
        subprocess.run(["npm", "ci", "--prefix", str(JS_BOT)], check=True, timeout=300)
    return JS_BOT
