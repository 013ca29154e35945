"""`arena bench referee`: full games between four external random bots, against the
bare gRPC round trip of the same transport, measured in the same run.

It prints the referee's time per decision, a bare echo's round trip to one server and
taking turns over four (as a game's decisions go round its bots), and the floor: the
games' own requests sent again to the same bots with no referee work between them,
which is what a referee that did nothing but send and wait would take per decision.
Nothing is asserted.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.games import get_game
from arena.play.referee import play_game

# The external bot of the referee and league benchmarks: the package's random bot, run
# as a module (an installed arena has no sample_bots/ folder to start a script from).
RANDOM_BOT = "python -m arena.strategies.uniform"


@dataclass
class RefereeFigures:
    games: int
    decisions: int  # decisions asked over the wire
    seconds: float  # wall time of the games
    referee_seconds: float  # time inside the players' act(), summed
    message_bytes: int
    bare_us: float
    wait_seconds: float = 0.0  # waiting for answers: the round trip and the bot's own work
    bare_four_us: float = 0.0  # the bare echo taking turns over four servers, like the bots
    floor_us: float = 0.0  # the games' own requests sent again to the bots, nothing between

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds

    @property
    def seconds_per_game(self) -> float:
        return self.seconds / self.games

    @property
    def referee_us(self) -> float:
        """Wall time per asked decision: engine, encoding, the round trip, checking."""
        return self.seconds / self.decisions * 1e6

    @property
    def ratio(self) -> float:
        return self.referee_us / self.bare_us

    @property
    def ratio_four(self) -> float:
        """Against the echo spread over four servers: the transport as the game uses it."""
        return self.referee_us / self.bare_four_us

    @property
    def ratio_floor(self) -> float:
        """What a referee that did no work at all would score against the one-server
        echo: its time per decision would be the floor."""
        return self.floor_us / self.bare_us

    @property
    def wait_us(self) -> float:
        return self.wait_seconds / self.decisions * 1e6

    @property
    def own_us(self) -> float:
        """The referee's own work per asked decision: everything but the wait."""
        return self.referee_us - self.wait_us

    def lines(self, mode: str) -> list[str]:
        """The figures as `arena bench referee` prints them."""
        return [
            f"{mode}: {self.games} games, {self.decisions} decisions asked, "
            f"{self.decisions_per_second:,.0f} decisions/s, {self.seconds_per_game:.3f} s per game",
            f"  referee time per decision {self.referee_us:.0f} us; bare gRPC round trip "
            f"({mode}, {self.message_bytes} bytes) {self.bare_us:.0f} us; ratio {self.ratio:.2f}",
            f"  of which waiting for the answer {self.wait_us:.0f} us (the round trip and the "
            f"Python bot's own work), the referee's own work {self.own_us:.0f} us "
            f"(engine, forced moves, encoding, checking)",
            f"  the bare round trip taking turns over four echo servers, as the decisions "
            f"go round the four bots: {self.bare_four_us:.0f} us; ratio {self.ratio_four:.2f}",
            f"  the floor: the games' requests sent again to the same four bots, with no "
            f"referee work between them: {self.floor_us:.0f} us; ratio {self.ratio_floor:.2f} to "
            f"the one-server echo",
        ]


def serve_echo() -> None:
    """A gRPC server that sends every message straight back (the bare round trip).

    It runs on grpc.aio and reads and writes the stream the way the SDK's bot server
    does, so that the bare round trip and a bot's differ only by what the bot does with
    a message. (A thread-pool server also varied more from run to run: 200-320 us
    here, against 200-270.)"""
    import os

    import grpc

    async def stream(_requests, context):
        while (request := await context.read()) is not grpc.aio.EOF:
            await context.write(request)

    async def unary(request, _context):
        return request

    async def main() -> None:
        server = grpc.aio.server()
        handler = grpc.method_handlers_generic_handler(
            "arena.bench.Echo",
            {
                "Stream": grpc.stream_stream_rpc_method_handler(stream),
                "Unary": grpc.unary_unary_rpc_method_handler(unary),
            },
        )
        server.add_generic_rpc_handlers((handler,))
        server.add_insecure_port(os.environ["ARENA_BOT_ADDRESS"])
        await server.start()
        await server.wait_for_termination()

    from arena.wire.loop import run_main

    run_main(main())  # the SDK's loop, as a bot's


@contextmanager
def echo_servers(logs: Path, count: int = 4) -> Iterator[list[str]]:
    """`count` echo servers (`serve_echo`, each a process of its own, logging into
    `logs`) started and answering; their addresses, and the servers ended after."""
    from arena.bots.process import BotProcess, wait_for_socket

    command = [sys.executable, "-c", "from arena.bench.referee import serve_echo; serve_echo()"]
    echoes = [BotProcess(command, logs / f"echo{i}.log") for i in range(count)]
    try:
        for echo in echoes:
            echo.start()
        for echo in echoes:
            if not wait_for_socket(echo.socket_path, echo, 10):
                raise ArenaError(f"the bench's echo server did not start; its log: {echo.log_path}")
        yield [echo.address for echo in echoes]
    finally:
        for echo in echoes:
            echo.close()


def bare_round_trip(addresses: list[str], size: int, transport: str, count: int = 2000) -> float:
    """Mean microseconds for one message each way, the way RemotePlayer sends them
    (grpc.aio, on this thread's event loop), to each echo server of `addresses` in turn,
    as a game's decisions go round its bots."""
    message = b"\x0a" * size
    method = "/arena.bench.Echo/" + ("Unary" if transport == "unary" else "Stream")
    messages = [(i % len(addresses), message) for i in range(count)]
    return round_trips(addresses, method, transport, messages=messages, warm_up=messages[:50])


def round_trips(
    addresses: list[str],
    method: str,
    transport: str,
    *,
    messages: list[tuple[int, bytes]],
    warm_up: list[tuple[int, bytes]],
) -> float:
    """Mean microseconds per message of `messages` ((server index, bytes) pairs), each
    sent to its server and its answer awaited before the next, with nothing in between;
    `warm_up` goes first, untimed (connections, caches)."""
    from arena.wire.loop import run

    return run(_round_trips(addresses, method, transport, messages=messages, warm_up=warm_up))


async def _round_trips(
    addresses: list[str],
    method: str,
    transport: str,
    *,
    messages: list[tuple[int, bytes]],
    warm_up: list[tuple[int, bytes]],
) -> float:
    import grpc

    channels = [grpc.aio.insecure_channel(address) for address in addresses]
    calls: list = []
    try:
        for channel in channels:
            await asyncio.wait_for(channel.channel_ready(), 10)
        if transport == "unary":
            unaries = [channel.unary_unary(method) for channel in channels]

            async def once(server: int, message: bytes) -> None:
                await unaries[server](message, timeout=5)

        else:
            calls = [channel.stream_stream(method)(timeout=600) for channel in channels]

            async def once(server: int, message: bytes) -> None:
                call = calls[server]
                await call.write(message)
                await call.read()

        for server, message in warm_up:
            await once(server, message)
        start = time.perf_counter()
        for server, message in messages:
            await once(server, message)
        elapsed = time.perf_counter() - start
        for call in calls:
            await call.done_writing()
        return elapsed / len(messages) * 1e6
    finally:
        for channel in channels:
            await channel.close()


def bench_referee(games: int = 6, transport: str = "stream") -> RefereeFigures:
    """Four external random bots (RANDOM_BOT) play `games` full games; then the same
    requests, in the same order, are sent to the same bots again with no referee work
    between them (the floor: what a referee that did nothing but send and wait would
    take per decision with these bots); then the bare round trip of a message of the
    mean request size, over the same transport."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        return _bench_referee(games, transport, Path(folder))


def _bench_referee(games: int, transport: str, logs: Path) -> RefereeFigures:
    from arena.bots.remote.player import RemotePlayer
    from arena.bots.remote.settings import RemoteSettings
    from arena.bots.spec import started_players
    from arena.wire.codec import wrap_decision
    from arena.wire.protocol import METHODS

    game = get_game("trix")
    options = game.parse_options({})
    settings = RemoteSettings(transport=transport)
    sent: list[tuple[int, bytes]] = []  # (seat, request as it went out), in order
    with started_players(
        [RANDOM_BOT] * 4, "trix", game.options_dict(options), settings=settings, log_dir=logs
    ) as players:
        remote = [p for p in players if isinstance(p, RemotePlayer)]
        for seat, player in enumerate(remote):  # keep the requests as they go out
            codec = player._codec
            assert codec is not None
            original = codec.decision_bytes

            def kept(*args, _original=original, _seat=seat, **kwargs):
                data = _original(*args, **kwargs)
                sent.append((_seat, wrap_decision(data) if transport == "stream" else data))
                return data

            codec.decision_bytes = kept  # type: ignore[method-assign]
        for i in range(2):  # warm up: connections, caches
            play_game(game, players, f"warm-{i}", options)
        for player in remote:
            player.latencies.clear()
            player.referee_seconds = 0.0
            player.wait_seconds = 0.0
        warm_up = sent[-50:]
        sent.clear()
        start = time.perf_counter()
        for i in range(games):
            play_game(game, players, f"bench-{i}", options)
        seconds = time.perf_counter() - start
        decisions = sum(len(p.latencies) for p in remote)
        referee_seconds = sum(p.referee_seconds for p in remote)
        wait_seconds = sum(p.wait_seconds for p in remote)
        method = METHODS["Decide" if transport == "unary" else "Play"]
        floor = round_trips(
            [p.address for p in remote], method, transport, messages=sent, warm_up=warm_up
        )
    size = int(sum(len(message) for _, message in sent) / len(sent))
    with echo_servers(logs) as addresses:
        bare = bare_round_trip(addresses[:1], size, transport)
        bare_four = bare_round_trip(addresses, size, transport)
    return RefereeFigures(
        games, decisions, seconds, referee_seconds, size, bare, wait_seconds, bare_four, floor
    )
