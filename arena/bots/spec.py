"""Bot specs: what a user writes to name a bot, turned into a player.

`builtin:NAME` is an in-process bot. Other forms (`grpc:HOST:PORT`, `grpc:unix:PATH`,
or a command line the referee starts) are external bots over gRPC.
"""

from __future__ import annotations

from arena.bots.builtin import make_builtin
from arena.errors import ConfigError
from arena.referee import Player

BUILTIN_PREFIX = "builtin:"


def make_player(spec: str) -> Player:
    """A player for `spec`; ConfigError with the accepted forms when it is not one."""
    spec = spec.strip()
    if not spec:
        raise ConfigError("empty bot spec; use builtin:NAME, e.g. builtin:random")
    if spec.startswith(BUILTIN_PREFIX):
        return make_builtin(spec[len(BUILTIN_PREFIX) :])
    raise ConfigError(
        f"bot spec {spec!r} is not supported yet: use builtin:random or builtin:first"
    )


def unique_names(names: list[str]) -> list[str]:
    """Names as bots give them, with `#2`, `#3` appended when a name repeats."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out
