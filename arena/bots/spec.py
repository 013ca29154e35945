"""Bot specs: what a user writes to name a bot, turned into a player.

- `builtin:NAME`: an in-process bot (`builtin:random`, `builtin:first`);
- `grpc:HOST:PORT` or `grpc:unix:PATH`: a bot already running, reached over gRPC;
- `human` or `human:NAME`: a person, at a table of `arena play` only (arena/bots/human.py);
- anything else: a command line the referee starts, e.g. `python sample_bots/random_bot.py`
  or `node sample_bots/js_bot/bot.js`. `python`/`python3` mean the arena's own interpreter.
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arena.bots.builtin import make_builtin
from arena.bots.confinement.sandbox import Sandbox
from arena.bots.human import HumanTable, human_name, is_human_spec, no_people_here
from arena.bots.process import BotProcess, become_subreaper, command_argv
from arena.bots.remote.handshake import BotStartError
from arena.bots.remote.player import RemotePlayer
from arena.bots.remote.settings import RemoteSettings
from arena.errors import ConfigError, SandboxError
from arena.play.referee import Player

BUILTIN_PREFIX = "builtin:"
GRPC_PREFIX = "grpc:"


EMPTY_SPEC = "empty bot spec; use builtin:NAME, grpc:HOST:PORT, grpc:unix:PATH or a command"


def check_spec(spec: str, base_dir: Path | None = None) -> None:
    """ConfigError for what `make_player` would refuse in `spec` without starting
    anything (an empty spec, an unknown built-in bot, a grpc: spec with no port, a
    command that cannot be split into arguments), with its words: a league file is
    checked this way before any match is played. A command is split as `make_player`
    splits it (`command_argv`), which starts nothing. A person (`human`) is refused:
    leagues, ladders and duels seat bots only, and a person is never rated."""
    spec = spec.strip()
    if not spec:
        raise ConfigError(EMPTY_SPEC)
    if is_human_spec(spec):
        raise no_people_here(spec, "a league, a ladder or a duel")
    if spec.startswith(BUILTIN_PREFIX):
        make_builtin(spec[len(BUILTIN_PREFIX) :])
    elif spec.startswith(GRPC_PREFIX):
        grpc_address(spec)
    else:
        command_argv(spec, base_dir)


def make_player(
    spec: str,
    settings: RemoteSettings | None = None,
    *,
    log_path: Path | None = None,
    base_dir: Path | None = None,
    sandbox: Sandbox | None = None,
) -> Player:
    """A player for `spec`; ConfigError with the accepted forms when it is not one.

    `log_path` is where a started bot's output goes; `base_dir` resolves relative
    paths in a command (a league file's folder); `sandbox` confines a started bot
    (None: run it as it is, for trusted bots and tests of the referee itself).
    """
    spec = spec.strip()
    if not spec:
        raise ConfigError(EMPTY_SPEC)
    if is_human_spec(spec):  # a person's seat comes from its table (`started_players`)
        raise no_people_here(spec, "this way of playing")
    if spec.startswith(BUILTIN_PREFIX):
        return make_builtin(spec[len(BUILTIN_PREFIX) :])
    if spec.startswith(GRPC_PREFIX):
        return RemotePlayer(spec, address=grpc_address(spec), settings=settings)
    argv = command_argv(spec, base_dir)
    log = log_path or Path("arena-logs") / (spec_slug(spec) + ".log")
    process = BotProcess(argv, log, cwd=base_dir, sandbox=sandbox)
    return RemotePlayer(spec, process=process, settings=settings)


def grpc_address(spec: str) -> str:
    """The gRPC target of a `grpc:` spec."""
    rest = spec[len(GRPC_PREFIX) :]
    if rest.startswith("unix:"):
        if len(rest) <= len("unix:"):
            raise ConfigError(f"bot spec {spec!r}: give the socket path, grpc:unix:/path/bot.sock")
        return rest
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"bot spec {spec!r}: use grpc:HOST:PORT, e.g. grpc:127.0.0.1:50051")
    return rest


def slug(text: str, fallback: str = "bot", limit: int = 60) -> str:
    """`text` as a safe file name part (log files per bot, log folders per league)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:limit] or fallback


def spec_slug(spec: str) -> str:
    """A bot spec as a log file name part: folders dropped from every word, so that a
    bot's own name and flags survive the length limit however deep its path is."""
    words = [word.rstrip("/").rsplit("/", 1)[-1] for word in spec.split()]
    return slug(" ".join(words))


def seat_log_path(log_dir: Path, log_prefix: str, seat: int, spec: str) -> Path:
    """Where `started_players` puts the log of the bot at `seat`: callers that report a
    start-up failure name the file from this, not from a copy of the rule."""
    return log_dir / f"{log_prefix}seat{seat}-{spec_slug(spec)}.log"


GENERIC_STEMS = {"bot", "main", "index", "run", "app", "player", "__main__"}


def spec_name(spec: str) -> str:
    """The name a seat plays under, from what the user typed, never from the bot: a
    bot that calls itself `greedy` must not take the real greedy bot's name (the name
    a bot gives in its handshake is its own affair, kept in its log). `builtin:NAME`
    gives NAME (with its argument, `sampler:50`); `grpc:ADDRESS` stays as typed; a
    command gives its script's name (`random_bot` for `python sample_bots/random_bot.py`,
    the folder's for a `bot.js` or `main.py`), its module's last part (`greedy` for
    `python -m arena.strategies.greedy`), or its program's."""
    spec = spec.strip()
    if is_human_spec(spec):
        return human_name(spec)
    if spec.startswith(BUILTIN_PREFIX):
        return spec[len(BUILTIN_PREFIX) :] or spec
    if spec.startswith(GRPC_PREFIX):
        return spec
    try:
        argv = shlex.split(spec)
    except ValueError:
        return slug(spec)
    for before, arg in zip(["", *argv], argv[1:], strict=False):
        if before == "-m":
            return arg.rsplit(".", 1)[-1] or arg
        if arg.startswith("-"):
            continue
        path = Path(arg)
        if path.suffix or "/" in arg:
            if path.stem in GENERIC_STEMS and path.parent.name:
                return path.parent.name
            return path.stem or arg
    return Path(argv[0]).name if argv else slug(spec)


def seat_names(specs: Sequence[str]) -> list[str]:
    """Each seat's name from its spec (`spec_name`), made distinct (`unique_names`)."""
    return unique_names([spec_name(spec) for spec in specs])


def unique_names(names: list[str]) -> list[str]:
    """Names as bots give them, with `#2`, `#3` appended when a name repeats.

    Always distinct, also when a bot names itself like a repeat (`random#2`): summaries
    add scores up by name, so two seats sharing one would merge two bots' results."""
    seen: dict[str, int] = {}
    taken: set[str] = set()
    out = []
    for name in names:
        count = seen.get(name, 0) + 1
        candidate = name if count == 1 else f"{name}#{count}"
        while candidate in taken:
            count += 1
            candidate = f"{name}#{count}"
        seen[name] = count
        taken.add(candidate)
        out.append(candidate)
    return out


def start_together(
    players: Sequence[Player], game: str, options: Mapping[str, Any], tolerate: bool
) -> None:
    """Launch every external bot of `players`, then shake hands with each: they start
    in parallel, and their startup_timeout to listen runs from the last launch, for all
    at once (bots that never listen cost one startup_timeout together, not one each). With
    `tolerate` (leagues), a bot that cannot start is marked so (its seat plays fallback
    moves, a `start-failure` fault each); otherwise it is an error."""
    remote = [p for p in players if isinstance(p, RemotePlayer)]
    failed: set[int] = set()
    for player in remote:
        try:
            player.launch()
        except (ConfigError, SandboxError) as err:  # the command cannot be started at all
            if not tolerate:
                raise
            player.mark_start_failure(err)
            failed.add(id(player))
    since = time.monotonic()  # from here on, each has its whole startup_timeout to listen
    for player in remote:
        if id(player) in failed:
            continue
        try:
            player.connect(game, options, since)
        except (BotStartError, ConfigError, SandboxError) as err:
            if not tolerate:
                raise
            player.mark_start_failure(err)


@contextmanager
def started_players(
    specs: Sequence[str],
    game: str,
    options: Mapping[str, Any],
    *,
    settings: RemoteSettings | None = None,
    log_dir: Path | None = None,
    base_dir: Path | None = None,
    log_prefix: str = "",
    tolerate_start_failures: bool = False,
    sandbox: Sandbox | None = None,
    humans: HumanTable | None = None,
) -> Iterator[list[Player]]:
    """Players for `specs`, external ones launched together and then handshaken, and
    every process ended on the way out, whatever happens (Ctrl-C included).

    With `tolerate_start_failures` (leagues), a bot that cannot start is not an error:
    its seat plays fallback moves, each recorded as a `start-failure` fault. `humans`
    holds the people's seats (`human` specs) of an `arena play` table.
    """
    become_subreaper()
    log_dir = log_dir or Path("arena-logs")
    players: list[Player] = []
    try:
        for seat, spec in enumerate(specs):
            if humans is not None and seat in humans.seats:
                players.append(humans.player(seat))
                continue
            log = seat_log_path(log_dir, log_prefix, seat, spec)
            players.append(
                make_player(spec, settings, log_path=log, base_dir=base_dir, sandbox=sandbox)
            )
        start_together(players, game, options, tolerate_start_failures)
        yield players
    finally:
        for player in players:
            if isinstance(player, RemotePlayer):
                player.close()
