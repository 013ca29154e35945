"""`arena bench ladder-web`: the ladder's public site under load while the ladder plays.

A ladder is made in a temporary folder (`arena ladder init` of four house bots, then
`arena ladder author add` for the author whose token uploads; with `games`, the big
ladder of arena/bench/ladder_site/big_ladder.py instead), or `db` is used as it is. Then, as
processes of their own (each in a session of its own, so that every process under them
ends with them): `arena ladder run` playing it and `arena ladder serve` on 127.0.0.1 on
a free port. Once the site answers and a game is stored, the addresses to read are
found through the API (bots, versions, games, matches), and for `seconds`:

- `readers` readers, each a coroutine with a keep-alive connection of its own in this
  process, read the site's pages (the table, a bot, a version, the matches filtered,
  the queue, a game, a match) and its API (/api/v1/...), one address after another,
  drawn at random, waiting `think` seconds (0.5 to 1.5 times, at random) between two,
  as people reading; `think` 0 asks as fast as the answers come;
- every `upload_every` seconds a new version of one bot is uploaded through the API
  (`POST /api/v1/submissions`, multipart/form-data `bot`, `command`, `archive`,
  `ladder`, the author's `Authorization: Bearer` token): the sample random bot
  packed as a .tar.gz, a comment changed each time so that each is a new version.

Every request's time is measured from sending it to the end of the answer. A request
fails when it gets no answer or an answer that is not 2xx (an upload: not 201 with
`"new": true`). Afterwards the database says whether every upload was stored exactly
once: one version per upload answered, each with the SHA-256 its answer gave, all
distinct, and nothing for an upload that failed. Every process the bench started is
ended (SIGINT, then SIGKILL to its whole session), also on Ctrl-C or an error.

Nothing is asserted: it prints figures. The readers share the machine with the server
and the run (docs/benchmarks.md says what that means for the figures).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import math
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from arena.bench.ladder_site.http import Answer, Connection, multipart
from arena.errors import ConfigError

HOST = "127.0.0.1"
GOAL_MS = 300.0  # the page-time goal, at p95
AUTHOR = "bench-author"
RANDOM_BOT = '''"""A bot that plays a uniformly random legal action."""

from arena.sdk import Bot, serve


class RandomBot(Bot):
    name = "random-py"
    games = ("trix", "trianon")

    def act(self, turn):
        return turn.random_index(len(turn.request.legal))


if __name__ == "__main__":
    serve(RandomBot())
'''  # the same bot, where the sample bots are not beside the package (an installed arena)
SUBMISSIONS = "/api/v1/submissions"
STARTUP_SECONDS = 60.0  # for the site to answer and the first game to be stored
STOP_SECONDS = 15.0  # for a process to end after SIGINT before it is killed

LADDER = """\
[ladder]
name = "bench-web"
game = "trix"
seed = "bench-web"

[rules]
kingdoms = 1

[limits]
move_timeout = 2.0
sandbox = "off"

[matchmaking]
placement_matches = 2

[[house]]
name = "greedy"
bot = "builtin:greedy"

[[house]]
name = "random"
bot = "builtin:random"

[[house]]
name = "first"
bot = "builtin:first"

[[house]]
name = "mixed"
bot = "builtin:mixed:0.8"
"""


@dataclass(frozen=True)
class Sample:
    kind: str  # "page", "api" or "upload"
    route: str  # the address's shape: /bot/{bot}, /api/v1/games?version=...
    ms: float
    ok: bool
    detail: str = ""  # why it failed


@dataclass
class LadderWebBench:
    readers: int
    seconds: float
    upload_every: float
    think: float
    workers: int
    built: str = ""  # what the ladder was
    samples: list[Sample] = field(default_factory=list)
    elapsed: float = 0.0  # the load's own seconds, measured
    games_before: int = 0
    games_after: int = 0
    uploads: list[dict[str, Any]] = field(default_factory=list)  # the answers taken
    stored: list[str] = field(default_factory=list)  # problems with what was stored
    processes: list[tuple[str, int]] = field(default_factory=list)  # (what, pid)
    ended: list[str] = field(default_factory=list)  # how each process ended
    goal_ms: float = GOAL_MS

    def of(self, kind: str) -> list[Sample]:
        return [s for s in self.samples if s.kind == kind]

    @property
    def failed(self) -> int:
        return sum(not s.ok for s in self.samples)

    def lines(self) -> list[str]:
        out = [
            f"{self.built}; `arena ladder run` on {self.workers} worker(s) and `arena ladder "
            f"serve` on loopback",
            f"{self.readers} readers for {self.elapsed:.0f} s (think "
            + (f"{self.think:g} s x 0.5-1.5" if self.think else "none: back to back")
            + "), "
            + (f"an upload every {self.upload_every:g} s" if self.upload_every else "no upload"),
            f"{'':<10} {'requests':>9} {'failed':>7} {'per s':>7} {'p50 ms':>8} {'p95 ms':>8} "
            f"{'max ms':>8}",
        ]
        for kind, label in (("page", "pages"), ("api", "API"), ("upload", "uploads")):
            out.append(_row(label, self.of(kind), self.elapsed))
        out.append(_row("all", self.samples, self.elapsed))
        out.append(
            f"games played during the load: {self.games_after - self.games_before:,} "
            f"(stored: {self.games_before:,} before, {self.games_after:,} after)"
        )
        if self.upload_every:
            taken = sum(1 for u in self.uploads if u.get("new") is True)
            verdict = "; ".join(self.stored) or (
                "every upload stored exactly once" if taken else "none taken, none stored"
            )
            out.append(
                f"uploads: {len(self.uploads)} sent, {taken} new versions answered; {verdict}"
            )
        p95 = {"pages": _p(self.of("page"), 0.95), "API": _p(self.of("api"), 0.95)}
        said = ", ".join(f"{k} p95 {v:.0f} ms" for k, v in p95.items() if v is not None)
        out.append(f"goal: {said or 'no request answered'}; goal {self.goal_ms:.0f} ms")
        out.append(f"failed requests: {self.failed}")
        for detail in sorted({s.detail for s in self.samples if not s.ok})[:8]:
            out.append(f"  failure: {detail}")
        out.append("by route (p50 / p95 / max ms, requests):")
        for kind in ("page", "api", "upload"):
            for route in sorted({s.route for s in self.of(kind)}):
                picked = [s for s in self.of(kind) if s.route == route]
                ms = sorted(s.ms for s in picked)
                out.append(
                    f"  {route:<52} {quantile(ms, 0.5):>7.1f} {quantile(ms, 0.95):>7.1f} "
                    f"{ms[-1]:>8.1f} {len(ms):>6}"
                )
        out.append("processes started and ended: " + ", ".join(self.ended))
        return out


def quantile(ms: list[float], q: float) -> float:
    """The q-quantile of sorted `ms` by nearest rank (p95 of 100: the 95th)."""
    return ms[min(len(ms) - 1, max(0, math.ceil(q * len(ms)) - 1))]


def _p(samples: list[Sample], q: float) -> float | None:
    ms = sorted(s.ms for s in samples)
    return quantile(ms, q) if ms else None


def _row(label: str, samples: list[Sample], seconds: float) -> str:
    if not samples:
        return f"{label:<10} {0:>9} {0:>7} {'-':>7} {'-':>8} {'-':>8} {'-':>8}"
    ms = sorted(s.ms for s in samples)
    failed = sum(not s.ok for s in samples)
    rate = len(ms) / seconds if seconds else 0.0
    return (
        f"{label:<10} {len(ms):>9} {failed:>7} {rate:>7.1f} {quantile(ms, 0.5):>8.1f} "
        f"{quantile(ms, 0.95):>8.1f} {ms[-1]:>8.1f}"
    )


# -- the processes -------------------------------------------------------------------


def _arena(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena.cli", *args]


def _env() -> dict[str, str]:
    """The children's environment: this interpreter's folder first on PATH, so that
    an uploaded bot's `python bot.py` runs with the arena the bench runs with."""
    folder = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": folder + os.pathsep + os.environ.get("PATH", "")}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class Processes:
    """The processes the bench starts, each in a session of its own; `end_all` ends
    each (SIGINT to its session, SIGKILL after STOP_SECONDS) and says how."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.started: list[tuple[str, subprocess.Popen[bytes], Path]] = []
        self.ended: list[str] = []

    def start(self, what: str, argv: list[str]) -> subprocess.Popen[bytes]:
        log = self.folder / f"{what.replace(' ', '-')}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=_env(), start_new_session=True,
            )  # fmt: skip
        self.started.append((what, process, log))
        return process

    def check_alive(self) -> None:
        for what, process, log in self.started:
            if process.poll() is not None:
                raise ConfigError(
                    f"{what} ended early (exit code {process.returncode}): "
                    f"{_tail(log) or 'it printed nothing'}"
                )

    def end_all(self) -> None:
        for what, process, _ in reversed(self.started):
            self.ended.append(f"{what} (pid {process.pid}): {_end(process)}")


def _end(process: subprocess.Popen[bytes]) -> str:
    """End `process` and every process of its session; how it ended."""
    if process.poll() is not None:
        _kill_group(process.pid)
        return f"had ended (exit code {process.returncode})"
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGINT)
    try:
        code = process.wait(STOP_SECONDS)
        how = f"ended on SIGINT (exit code {code})"
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        how = f"killed after {STOP_SECONDS:.0f} s"
    _kill_group(process.pid)
    return how


def _kill_group(pgid: int) -> None:
    """Whatever is left of a session's processes (a worker, a gate's bot) is killed,
    and waited for (until its last process is gone, at most STOP_SECONDS). A process
    that is a child subreaper (as the referee makes itself, arena/bots/process.py) is
    given the session's orphans: those are reaped here, or they would stay zombies."""
    deadline = time.monotonic() + STOP_SECONDS
    while True:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-pgid, os.WNOHANG)[0]:
                pass
        if time.monotonic() > deadline:
            return
        time.sleep(0.02)


def _tail(log: Path, chars: int = 1500) -> str:
    try:
        return log.read_text(errors="replace")[-chars:].strip()
    except OSError:
        return ""


def _run_arena(*args: str) -> str:
    """An `arena` command run to its end; its standard output."""
    done = subprocess.run(_arena(*args), capture_output=True, text=True, env=_env(), timeout=300)
    if done.returncode != 0:
        raise ConfigError(f"arena {' '.join(args)} failed: {done.stderr.strip()[-1000:]}")
    return done.stdout


# -- the database, read -----------------------------------------------------------------


def _games_stored(db_path: Path) -> int:
    from arena.league.store import open_existing
    from arena.league.store.ladder_site_reads import ladder_games_stored

    db = open_existing(db_path)
    try:
        return ladder_games_stored(db)
    finally:
        db.close()


def _ladder_name(db_path: Path) -> str:
    """The name of the only ladder in `db_path` (ConfigError when it holds none or
    several)."""
    from arena.league.store import open_existing
    from arena.league.store.ladder_reads import ladder_by_name

    db = open_existing(db_path)
    try:
        return str(ladder_by_name(db, None)["name"])
    finally:
        db.close()


def _versions_of(db_path: Path, bot: str) -> list[dict[str, Any]]:
    from arena.league.store import open_existing
    from arena.league.store.ladder_site_reads import bot_version_digests

    db = open_existing(db_path)
    try:
        return bot_version_digests(db, bot)
    finally:
        db.close()


def stored_problems(uploads: list[dict[str, Any]], versions: list[dict[str, Any]]) -> list[str]:
    """What is wrong with what was stored of `uploads` (each answer taken: `version`,
    `sha256`, `new`; a failed one `{}`): every upload answered as new must be one
    version holding the SHA-256 its answer gave, all distinct, and nothing else."""
    problems = []
    answered = [u for u in uploads if u.get("new") is True]
    by_entrant = {v["entrant"]: v["sha256"] for v in versions}
    if len(versions) != len(answered):
        problems.append(
            f"{len(versions)} versions stored for {len(answered)} uploads answered as new"
        )
    for upload in answered:
        stored = by_entrant.get(upload.get("version"))
        if stored is None:
            problems.append(f"{upload.get('version')} was answered but is not stored")
        elif stored != upload.get("sha256"):
            problems.append(f"{upload['version']} is stored with another sha256 than answered")
    if len({v["sha256"] for v in versions}) != len(versions):
        problems.append("two stored versions share a sha256")
    if len({u.get("version") for u in answered}) != len(answered):
        problems.append("two uploads were answered with the same version")
    return problems


# -- the load -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Address:
    kind: str  # page or api
    route: str
    url: str


async def discover(conn: Connection) -> list[Address]:
    """The addresses the readers read, found through the API as a client would."""

    async def get(url: str) -> Any:
        answer = await conn.request("GET", url)
        if answer.status != 200:
            raise ConfigError(f"GET {url} answered {answer.status}: {answer.body[:300]!r}")
        return json.loads(answer.body)

    bots = [b["bot"] for b in (await get("/api/v1/bots?limit=500"))["items"]]
    versions = (await get("/api/v1/versions?limit=500"))["items"]
    games = [g["id"] for g in (await get("/api/v1/games?limit=50"))["items"]]
    matches = [m for m in (await get("/api/v1/matches?limit=50"))["items"] if m["games"]]
    if not bots or not versions or not games or not matches:
        raise ConfigError("the ladder has no stored match to read yet")
    out: list[Address] = []
    q = lambda text: quote(str(text), safe="")  # noqa: E731

    def add(kind: str, route: str, url: str) -> None:
        out.append(Address(kind, route, url))

    rng = random.Random(7)
    for bot in bots[:20]:
        add("page", "/bot/{bot}", f"/bot/{q(bot)}")
        add("api", "/api/v1/bots/{bot}", f"/api/v1/bots/{q(bot)}")
        add("page", "/matches?bot={bot}", f"/matches?bot={q(bot)}")
        add("api", "/api/v1/games?bot={bot}", f"/api/v1/games?bot={q(bot)}")
    for v in versions[:40]:
        add("page", "/bot/{bot}/version/{n}", f"/bot/{q(v['bot'])}/version/{v['version']}")
        add("api", "/api/v1/versions/{bot}/{n}", f"/api/v1/versions/{q(v['bot'])}/{v['version']}")
        other = rng.choice(bots)
        add("page", "/matches?version={v}&opponent={bot}",
            f"/matches?version={q(v['entrant'])}&opponent={q(other)}")  # fmt: skip
        add("api", "/api/v1/matches?version={v}", f"/api/v1/matches?version={q(v['entrant'])}")
    for game in games[:20]:
        add("page", "/game/{id}", f"/game/{game}")
        add("api", "/api/v1/games/{id}", f"/api/v1/games/{game}")
    for match in matches[:10]:
        add("page", "/match/{idx}", f"/match/{match['match']}")
    for route in ("/", "/matches", "/queue"):
        add("page", route, route)
    for route in ("ladder", "table", "bots", "versions", "matches", "queue", "games", "faults"):
        add("api", f"/api/v1/{route}", f"/api/v1/{route}")
    return out


def _pick(addresses: list[Address], rng: random.Random) -> Address:
    """An address: a route's shape first (every shape as likely), then one of its
    addresses, so that forty version pages do not crowd out the table."""
    routes = sorted({(a.kind, a.route) for a in addresses})
    kind, route = rng.choice(routes)
    return rng.choice([a for a in addresses if a.kind == kind and a.route == route])


async def _reader(
    i: int, port: int, addresses: list[Address], deadline: float, think: float,
    samples: list[Sample],
) -> None:  # fmt: skip
    rng = random.Random(1000 + i)
    conn = Connection(HOST, port)
    if think:
        await asyncio.sleep(rng.uniform(0, think))  # readers do not all start at once
    try:
        while time.monotonic() < deadline:
            address = _pick(addresses, rng)
            started = time.perf_counter()
            try:
                answer = await conn.request("GET", address.url)
                ok, detail = 200 <= answer.status < 300, f"{address.url}: {answer.status}"
            except Exception as err:  # noqa: BLE001 (any error is a failed request)
                ok, detail = False, f"{address.url}: {type(err).__name__}: {err}"
            ms = (time.perf_counter() - started) * 1000
            samples.append(Sample(address.kind, address.route, ms, ok, "" if ok else detail))
            if think:  # not past the end: the load lasts `seconds`
                left = deadline - time.monotonic()
                await asyncio.sleep(max(0.0, min(think * rng.uniform(0.5, 1.5), left)))
    finally:
        await conn.close()


def bot_archive(number: int, nonce: str) -> bytes:
    """The sample random bot as bot.py in a .tar.gz, a comment naming upload `number`
    so that each upload is new files."""
    text = RANDOM_BOT
    text += f"\n# arena bench ladder-web: upload {number} of {nonce}\n"
    data = text.encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("bot.py")
        info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


async def upload(
    conn: Connection, token: str, bot: str, ladder: str, number: int, nonce: str
) -> tuple[Answer | None, dict[str, Any], str]:
    """One upload through the API: (the answer, its JSON, why it failed or "")."""
    kind, body = multipart(
        {"bot": bot, "command": "python bot.py", "ladder": ladder},
        {"archive": ("bot.tar.gz", bot_archive(number, nonce), "application/gzip")},
    )
    headers = [("content-type", kind), ("authorization", f"Bearer {token}")]
    try:
        answer = await conn.request("POST", SUBMISSIONS, headers, body)
    except Exception as err:  # noqa: BLE001 (any error is a failed request)
        return None, {}, f"POST {SUBMISSIONS}: {type(err).__name__}: {err}"
    return answer, *judge_upload(answer)


def judge_upload(answer: Answer) -> tuple[dict[str, Any], str]:
    """An upload's answer read against the contract: 201 with JSON {"version":
    "BOT@N", "sha256": ..., "new": true}. (its JSON, why it is a failure or "")."""
    if answer.status in (404, 405):
        return {}, (
            f"POST {SUBMISSIONS} answered {answer.status}: this site takes no uploads (the "
            "author side, POST /api/v1/submissions, is not there)"
        )
    try:
        body = json.loads(answer.body)
    except ValueError:
        return {}, f"POST {SUBMISSIONS} answered {answer.status} without JSON"
    if answer.status != 201 or not isinstance(body, dict) or body.get("new") is not True:
        return (body if isinstance(body, dict) else {}), (
            f"POST {SUBMISSIONS} answered {answer.status}: {json.dumps(body)[:300]}"
        )
    if "@" not in str(body.get("version", "")) or not isinstance(body.get("sha256"), str):
        return body, f"POST {SUBMISSIONS} answered 201 without a version and its sha256"
    return body, ""


async def _uploader(
    port: int, token: str, bot: str, ladder: str, start: float, every: float, deadline: float,
    samples: list[Sample], answers: list[dict[str, Any]],
) -> None:  # fmt: skip
    nonce = secrets.token_hex(6)
    number = 0
    while True:
        when = start + (number + 0.5) * every
        if when >= deadline:
            return
        await asyncio.sleep(max(0.0, when - time.monotonic()))
        conn = Connection(HOST, port, timeout=60.0)  # an upload is a POST of its own, never
        try:  # sent again: a connection of its own, as `curl -F` would open
            started = time.perf_counter()
            _, body, problem = await upload(conn, token, bot, ladder, number, nonce)
            ms = (time.perf_counter() - started) * 1000
        finally:
            await conn.close()
        samples.append(Sample("upload", f"POST {SUBMISSIONS}", ms, not problem, problem))
        answers.append(body if not problem else {})
        number += 1


async def load(
    port: int, addresses: list[Address], readers: int, seconds: float, think: float,
    upload_every: float, token: str, bot: str, ladder: str,
) -> tuple[list[Sample], list[dict[str, Any]], float]:  # fmt: skip
    """The readers and the uploads for `seconds`: every sample, the uploads' answers,
    the seconds it took."""
    samples: list[Sample] = []
    answers: list[dict[str, Any]] = []
    start = time.monotonic()
    deadline = start + seconds
    tasks = [_reader(i, port, addresses, deadline, think, samples) for i in range(readers)]
    if upload_every:
        tasks.append(
            _uploader(port, token, bot, ladder, start, upload_every, deadline, samples, answers)
        )
    await asyncio.gather(*tasks)
    return samples, answers, time.monotonic() - start


async def _wait_ready(port: int, processes: Processes) -> None:
    """Until the site answers and the ladder holds a stored game."""
    conn = Connection(HOST, port, timeout=10.0)
    deadline = time.monotonic() + STARTUP_SECONDS
    said = "the site did not answer"
    try:
        while time.monotonic() < deadline:
            processes.check_alive()
            try:
                answer = await conn.request("GET", "/api/v1/games?limit=1")
                if answer.status == 200 and json.loads(answer.body)["items"]:
                    return
                said = f"no game stored yet (the site answered {answer.status})"
            except (OSError, TimeoutError, ValueError) as err:
                said = f"the site did not answer ({err})"
            await asyncio.sleep(0.25)
    finally:
        await conn.close()
    raise ConfigError(f"not ready after {STARTUP_SECONDS:.0f} s: {said}")


async def _discover(port: int) -> list[Address]:
    conn = Connection(HOST, port)
    try:
        return await discover(conn)
    finally:
        await conn.close()


@contextlib.contextmanager
def _ladder(
    db: Path | None, games: int, folder: Path, say: Callable[[str], None]
) -> Iterator[tuple[Path, str, str, str]]:
    """(database, ladder name, the uploading author's token, what it is)."""
    if db is not None:
        name = _ladder_name(db)
        author = f"{AUTHOR}-{secrets.token_hex(3)}"
        token = _run_arena("ladder", "author", "add", author, "--db", str(db)).strip()
        yield db, name, token, f"the ladder in {db} (author {author} added for the uploads)"
        return
    if games:
        from arena.bench.ladder_site.big_ladder import NAME, build_big_ladder

        big = build_big_ladder(folder, games, say=say)
        yield (
            big.db_path,
            NAME,
            big.token,
            (
                f"a ladder of {big.versions} versions and {big.games:,} stored games "
                f"(built in {big.seconds:.0f} s)"
            ),
        )
        return
    path = folder / "bench-web.toml"
    path.write_text(LADDER)
    db_path = folder / "arena.db"
    _run_arena("ladder", "init", str(path), "--db", str(db_path))
    token = _run_arena("ladder", "author", "add", AUTHOR, "--db", str(db_path)).strip()
    yield db_path, "bench-web", token, "a new ladder of four house bots"


def bench_ladder_web(
    readers: int = 100,
    seconds: float = 60.0,
    upload_every: float = 10.0,
    db: Path | None = None,
    games: int = 0,
    workers: int = 1,
    think: float = 1.0,
    say: Callable[[str], None] = lambda text: None,
) -> LadderWebBench:
    """The bench the module's docstring describes; its figures."""
    bench = LadderWebBench(readers, seconds, upload_every, think, workers)
    with tempfile.TemporaryDirectory(prefix="arena-bench-ladder-web-") as tmp:
        folder = Path(tmp)
        processes = Processes(folder)
        try:
            with _ladder(db, games, folder, say) as (db_path, name, token, built):
                bench.built = built
                port = _free_port()
                run = processes.start("arena ladder run", _arena(
                    "ladder", "run", "--db", str(db_path), "--workers", str(workers)))  # fmt: skip
                serve = processes.start("arena ladder serve", _arena(
                    "ladder", "serve", "--db", str(db_path), "--port", str(port)))  # fmt: skip
                bench.processes = [("run", run.pid), ("serve", serve.pid)]
                say(f"  {built}; waiting for the site and a stored game")
                asyncio.run(_wait_ready(port, processes))
                addresses = asyncio.run(_discover(port))
                bench.games_before = _games_stored(db_path)
                say(f"  {len(addresses)} addresses; {readers} readers for {seconds:g} s")
                bot = f"bench-{secrets.token_hex(3)}"
                bench.samples, bench.uploads, bench.elapsed = asyncio.run(
                    load(
                        port, addresses, readers, seconds, think, upload_every, token, bot, name
                    )  # fmt: skip
                )
                bench.games_after = _games_stored(db_path)
                processes.check_alive()
                if upload_every:
                    bench.stored = stored_problems(bench.uploads, _versions_of(db_path, bot))
        finally:
            processes.end_all()
            bench.ended = processes.ended
    return bench
