"""`arena bench ladder-pages`: each page and API route of the ladder site, timed over
a ladder of about 100,000 stored games.

The ladder is arena/bench/ladder_site/big_ladder.py's (written directly: about half a minute for
100,000 games). The site is the application `arena ladder serve` serves, called in
this process as the server calls it (an ASGI request in, the whole answer out: the
hardening middleware, a read-only opening of the database, the page's reads, its
template), `requests` times per route after one untimed call, and each route's p50,
p95 and max printed beside the page-time goal, and as a ratio to the floor measured
in the same run: a static file through the same application (middleware and routing,
no database). Nothing is asserted; `site_routes` is also what
tests/web/test_ladder_scale.py reads every route of.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from arena.bench.ladder_site.load import GOAL_MS
from arena.bench.ladder_site.load import quantile as _q

FLOOR = "/static/site.css"


@dataclass(frozen=True)
class Route:
    kind: str  # page or api
    route: str  # its shape
    url: str  # the address asked


def site_routes(db: Any, ladder_name: str | None = None) -> list[Route]:
    """Every page and API route of the ladder site, each with an address over what
    `db` holds (a bot with versions, its newest version, the newest game and match,
    filters that keep rows): the addresses a reader reaches from the table."""
    from arena.league.store.ladder_reads import ladder_by_name, version_rows
    from arena.league.store.ladder_site_reads import newest_game_and_match

    ladder = ladder_by_name(db, ladder_name)
    versions = version_rows(db, ladder["id"])
    authored = [v for v in versions if not v["house"]] or versions
    bot, version = authored[-1]["bot"], authored[-1]
    house = [v for v in versions if v["house"] and v["games"]] or versions
    other = house[0]
    game, match = newest_game_and_match(db, ladder["league_id"])
    q = lambda text: quote(str(text), safe="")  # noqa: E731
    b, n, v, o = q(bot), version["number"], q(version["entrant"]), q(other["bot"])
    ov = q(other["entrant"])
    pages = [
        ("/", "/"),
        ("/bot/{bot}", f"/bot/{b}"),
        ("/bot/{bot} (a house bot)", f"/bot/{o}"),
        ("/bot/{bot}/version/{n}", f"/bot/{b}/version/{n}"),
        ("/bot/{bot}/version/{n}?opponent=", f"/bot/{b}/version/{n}?opponent={o}"),
        ("/bot/{bot}/version/{n} (a house bot's)", f"/bot/{o}/version/{other['number']}"),
        ("/matches", "/matches"),
        ("/matches?bot=", f"/matches?bot={b}"),
        ("/matches?version=&opponent=", f"/matches?version={ov}&opponent={b}"),
        ("/matches?since=", "/matches?since=2000-01-01T00:00:00Z"),
        ("/queue", "/queue"),
        ("/faults", "/faults"),
        ("/match/{idx}", f"/match/{match}"),
        ("/game/{id}", f"/game/{game}"),
        ("/game/{id}/deal/{n}.json", f"/game/{game}/deal/1.json"),
        ("/api/version", "/api/version"),
    ]
    api = [
        ("/api/v1/openapi.json", "/api/v1/openapi.json"),
        ("/api/v1/ladder", "/api/v1/ladder"),
        ("/api/v1/table", "/api/v1/table"),
        ("/api/v1/bots", "/api/v1/bots"),
        ("/api/v1/bots/{bot}", f"/api/v1/bots/{b}"),
        ("/api/v1/versions", "/api/v1/versions"),
        ("/api/v1/versions?bot=", f"/api/v1/versions?bot={b}"),
        ("/api/v1/versions/{bot}/{n}", f"/api/v1/versions/{b}/{n}"),
        ("/api/v1/matches", "/api/v1/matches"),
        ("/api/v1/matches?version=", f"/api/v1/matches?version={v}"),
        ("/api/v1/queue", "/api/v1/queue"),
        ("/api/v1/games", "/api/v1/games"),
        ("/api/v1/games?version=&opponent=", f"/api/v1/games?version={v}&opponent={o}"),
        ("/api/v1/games?bot=&cursor=", f"/api/v1/games?bot={o}&cursor={game // 2}"),
        ("/api/v1/games/{id}", f"/api/v1/games/{game}"),
        ("/api/v1/faults", "/api/v1/faults"),
        ("/api/v1/faults?bot=", f"/api/v1/faults?bot={o}"),
    ]
    return [Route("page", r, u) for r, u in pages] + [Route("api", r, u) for r, u in api]


async def asgi_get(app: Any, url: str) -> tuple[int, bytes]:
    """GET `url` from the ASGI application `app` in this process: (status, body)."""
    path, _, query = url.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": unquote(path),
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }
    status, chunks = 0, []
    asked = False

    async def receive() -> dict[str, Any]:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(3600)  # no disconnect while the answer is made
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


@dataclass
class RouteTiming:
    route: Route
    status: int
    ms: list[float]


@dataclass
class LadderPagesBench:
    versions: int
    games: int
    build_s: float
    db_mb: float
    requests: int
    floor_ms: float = 0.0
    first_ms: float = 0.0  # the process's first request, which reads every stored match
    table_ms: list[float] = field(default_factory=list)  # the table computed anew
    timings: list[RouteTiming] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [
            f"a ladder of {self.versions} versions and {self.games:,} stored games "
            f"({self.db_mb:,.0f} MB, built in {self.build_s:.0f} s); each route "
            f"{self.requests} times in process, after one untimed call",
            f"floor (a static file through the same application): {self.floor_ms:.2f} ms",
            f"the server's first request (/api/v1/ladder: every stored match read into the "
            f"process, once): {self.first_ms:.0f} ms",
            f"the table computed anew, as after each match stored (margins, place ranges; "
            f"{len(self.table_ms)} times): p50 {_q(sorted(self.table_ms), 0.5):.0f} ms, "
            f"max {max(self.table_ms):.0f} ms",
            f"{'route':<48} {'status':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} "
            f"{'x floor':>8} {'of goal':>8}",
        ]
        for t in self.timings:
            ms = sorted(t.ms)
            p50, p95 = _q(ms, 0.5), _q(ms, 0.95)
            out.append(
                f"{t.route.route:<48} {t.status:>6} {p50:>8.1f} {p95:>8.1f} {ms[-1]:>8.1f} "
                f"{p50 / self.floor_ms if self.floor_ms else 0:>8.0f} {p95 / GOAL_MS:>7.0%}"
            )
        slow = [t.route.route for t in self.timings if _q(sorted(t.ms), 0.95) > GOAL_MS]
        worst = max(self.timings, key=lambda t: _q(sorted(t.ms), 0.95))
        out.append(
            f"goal: the slowest route's p95 {_q(sorted(worst.ms), 0.95):.0f} ms "
            f"({worst.route.route}), goal {GOAL_MS:.0f} ms; over it: {', '.join(slow) or 'none'}"
        )
        return out


def time_routes(db_path: Path, requests: int, bench: LadderPagesBench) -> None:
    """The floor, the first request, the table's computation and each route's timings
    over the site of `db_path`, into `bench`."""
    import statistics

    from arena.league.store import open_existing
    from arena.web.ladder.app import make_ladder_app

    app = make_ladder_app(db_path)
    db = open_existing(db_path)
    try:
        routes = site_routes(db)
    finally:
        db.close()

    async def timed(url: str) -> tuple[int, list[float]]:
        status, _ = await asgi_get(app, url)
        ms = []
        for _ in range(requests):
            started = time.perf_counter()
            status, _ = await asgi_get(app, url)
            ms.append((time.perf_counter() - started) * 1000)
        return status, ms

    async def all_routes() -> None:
        _, floor = await timed(FLOOR)
        bench.floor_ms = statistics.median(floor)
        started = time.perf_counter()
        await asgi_get(app, "/api/v1/ladder")
        bench.first_ms = (time.perf_counter() - started) * 1000
        for route in routes:
            status, ms = await timed(route.url)
            bench.timings.append(RouteTiming(route, status, ms))

    asyncio.run(all_routes())
    bench.table_ms = _table_anew(db_path, max(3, min(requests, 10)))


def _table_anew(db_path: Path, times: int) -> list[float]:
    """The table's rows computed from the outcomes the process holds, as the site
    computes them once for each new state of the ladder (arena/web/ladder/stored.py)."""
    from arena.ladder.book import State, open_ladder, reading
    from arena.ladder.reports import table_rows
    from arena.league.store.ladder_reads import version_rows
    from arena.web.ladder.stored import stored

    out = []
    with reading(db_path) as db:
        ladder = open_ladder(db, None)
        snapshot = stored(db, ladder.league_id)
        for _ in range(times):
            started = time.perf_counter()
            rows = version_rows(db, ladder.id, states=(State.ACTIVE,))
            table_rows(
                db, ladder, rows=rows, outcomes=snapshot.outcomes.values(), faults=snapshot.faults
            )
            out.append((time.perf_counter() - started) * 1000)
    return out


def bench_ladder_pages(
    games: int = 100_000,
    versions: int = 100,
    requests: int = 20,
    say: Callable[[str], None] = lambda text: None,
) -> LadderPagesBench:
    """Build the big ladder, then time every route (the module's docstring)."""
    from arena.bench.ladder_site.big_ladder import build_big_ladder

    with tempfile.TemporaryDirectory(prefix="arena-bench-ladder-pages-") as tmp:
        big = build_big_ladder(Path(tmp), games, versions, say=say)
        bench = LadderPagesBench(big.versions, big.games, big.seconds, big.megabytes, requests)
        say(f"  timing {requests} requests of each route")
        time_routes(big.db_path, requests, bench)
    return bench
