"""Write a bot in a few lines: subclass `Bot`, answer `act`, call `serve`.

    from arena.sdk import Bot, serve

    class Lowest(Bot):
        name = "lowest"

        def act(self, turn):
            return turn.legal[0]          # one of the legal actions, by value

    if __name__ == "__main__":
        serve(Lowest())

`serve` listens where the referee says (the environment variable ARENA_BOT_ADDRESS,
`unix:PATH` or `127.0.0.1:PORT`) and answers Hello, Decide, Play and Notify of
protos/arena/v1/bot.proto. A bot started by the referee with `python` runs on the
arena's own interpreter, so this import works without activating anything.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
import signal
import sys
import traceback
from typing import Any

import grpc

from arena.wire.loop import run_main
from arena.wire.messages import (
    action_dict,
    action_message,
    deal_end_dict,
    game_dict,
    observation_dict,
)
from arena.wire.protocol import ADDRESS_VARIABLE, PROTOCOL_VERSION
from arena.wire.v1 import bot_pb2 as pb
from arena.wire.v1 import bot_pb2_grpc as pb_grpc

MAX_MESSAGE_BYTES = 1 << 20


class _once:  # noqa: N801 (used as a decorator, like functools.cached_property)
    """`functools.cached_property` without its lock (Python 3.11 takes one on every
    first access, which was a third of a random bot's turn). A turn belongs to one
    handler call, so there is nothing to lock against."""

    def __init__(self, compute: Any) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __get__(self, turn: Any, owner: Any = None) -> Any:
        if turn is None:
            return self
        value = turn.__dict__[self.name] = self.compute(turn)  # shadows this from now on
        return value


class Turn:
    """One decision put to the bot: what kind, the legal actions, and what it may know.

    - `kind`: "contract", "expose", "play" or "pass" (Trix); "bid", "raise", "play" (Trianon).
    - `legal`: the legal actions as dicts shaped like replay events, e.g.
      `{"type": "play", "card": "4C"}`, in the documented order. Return one of them.
    - `view`: the observation as a dict (hand, events, trick, contract, King, exposed
      cards, scores, ...: see the README), built on first use.
    - `game`: game, game_id, seat, seed, players, options.
    - `rng`: a random source seeded from the bot seed (`game["seed"]`), the seat and
      the decision's number, so a seeded bot replays identically, even without state;
      `random_index(n)` is a cheaper seeded choice of one index.
    """

    def __init__(self, request: pb.DecisionRequest) -> None:
        self.request = request
        self.kind: str = request.kind
        self.time_ms: int = request.time_ms
        self.time_bank_ms: int = request.time_bank_ms
        self.decision_id: int = request.decision_id

    @_once
    def legal(self) -> list[dict[str, Any]]:
        return [action_dict(a) for a in self.request.legal]

    @_once
    def view(self) -> dict[str, Any]:
        return observation_dict(self.request.observation)

    @_once
    def game(self) -> dict[str, Any]:
        return game_dict(self.request.game)

    @_once
    def _seed_bits(self) -> int:
        info = self.request.game
        text = f"{info.seed}/{info.seat}/{self.decision_id}".encode()
        return int.from_bytes(hashlib.sha256(text).digest(), "big")

    @_once
    def rng(self) -> random.Random:
        return random.Random(self._seed_bits)

    def random_index(self, n: int) -> int:
        """A seeded, uniform index below `n`: `rng.randrange(n)` without building a
        random source (which costs more than the rest of a simple bot's turn)."""
        return self._seed_bits % n

    def answer(self, choice: Any) -> pb.Action:
        """The bot's choice as an Action message: a legal dict, an index, or a card code."""
        if isinstance(choice, pb.Action):
            return choice
        if isinstance(choice, int) and not isinstance(choice, bool):
            return self.request.legal[choice]
        if isinstance(choice, str):  # a card code, for plays
            return pb.Action(type="play", card=choice)
        if isinstance(choice, dict):
            legal = self.__dict__.get("legal")
            if legal is not None:
                for i, option in enumerate(legal):
                    if option is choice:
                        return self.request.legal[i]
            return action_message(choice)
        raise TypeError(f"act() must return one of turn.legal, not {type(choice).__name__}")


class Bot:
    """Subclass and override `act`. The class attributes name the bot in tables."""

    name = "bot"
    version = "1.0"
    games: tuple[str, ...] = ("trix",)  # the games this bot can play

    def act(self, turn: Turn) -> Any:
        """Return one of `turn.legal` (a dict), its index, or a card code for a play."""
        raise NotImplementedError

    def on_deal_end(self, deal: dict[str, Any], game: dict[str, Any]) -> None:
        """A deal ended; `deal` holds the hands as dealt, events and scores. Optional:
        a bot that overrides this (or on_game_end) is sent the notices."""

    def on_game_end(self, totals: list[int], ranks: list[int], game: dict[str, Any]) -> None:
        """A game ended. Optional."""


class _Servicer(pb_grpc.BotServicer):
    """The gRPC side of a bot, on grpc.aio: one event loop, no thread hand-offs per
    message (measurably faster per decision than the thread-pool server)."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def Hello(self, request: pb.HelloRequest, context: Any) -> pb.HelloReply:  # noqa: N802
        bot = self.bot
        error = ""
        if request.protocol_version != PROTOCOL_VERSION:
            error = (
                f"{bot.name} speaks arena protocol {PROTOCOL_VERSION}, "
                f"the referee {request.protocol_version}"
            )
        elif bot.games and request.game not in bot.games:
            error = f"{bot.name} plays {', '.join(bot.games)}, not {request.game}"
        wants = type(bot).on_deal_end is not Bot.on_deal_end or (
            type(bot).on_game_end is not Bot.on_game_end
        )
        return pb.HelloReply(
            name=bot.name,
            version=bot.version,
            protocol_version=PROTOCOL_VERSION,
            error=error,
            notices=wants,
        )

    async def _reply(self, request: pb.DecisionRequest, context: Any) -> pb.DecisionReply:
        """The bot's answer to one request, on either transport. When `act` raises, the
        traceback goes to the bot's log and the call ends with UNKNOWN and the error,
        which the referee records as a crash fault."""
        try:
            turn = Turn(request)
            return pb.DecisionReply(
                decision_id=request.decision_id, action=turn.answer(self.bot.act(turn))
            )
        except Exception as err:
            traceback.print_exc()
            await context.abort(grpc.StatusCode.UNKNOWN, f"bot error: {type(err).__name__}: {err}")
            raise  # abort() raises; this is never reached

    async def Decide(self, request: pb.DecisionRequest, context: Any) -> pb.DecisionReply:  # noqa: N802
        return await self._reply(request, context)

    async def Play(self, requests: Any, context: Any) -> None:  # noqa: N802
        # context.read()/write() rather than `async for` and `yield`: the same messages
        # without an async generator between gRPC and the bot (measured: about 3% less
        # CPU per message on the bot's side, and a shorter round trip).
        while True:
            message = await context.read()
            if message is grpc.aio.EOF:
                return
            if message.WhichOneof("body") != "decision":
                self._notice(message)
                continue
            await context.write(await self._reply(message.decision, context))

    async def Notify(self, request: pb.Notice, context: Any) -> pb.Ack:  # noqa: N802
        self._notice(request)
        return pb.Ack()

    def _notice(self, message: Any) -> None:
        try:
            if message.HasField("deal_end"):
                deal = message.deal_end
                self.bot.on_deal_end(deal_end_dict(deal), game_dict(deal.game))
            elif message.HasField("game_end"):
                end = message.game_end
                self.bot.on_game_end(list(end.totals), list(end.ranks), game_dict(end.game))
        except Exception:
            traceback.print_exc()  # a notice is for the bot's benefit only


def serve(bot: Bot, address: str | None = None) -> None:
    """Serve `bot` at `address` (default: $ARENA_BOT_ADDRESS) until terminated."""
    address = address or os.environ.get(ADDRESS_VARIABLE)
    if not address:
        sys.exit(
            f"{ADDRESS_VARIABLE} is not set: the referee sets it when it starts a bot. To run "
            f"a bot by hand: {ADDRESS_VARIABLE}=127.0.0.1:50051 python my_bot.py, then "
            "play it as grpc:127.0.0.1:50051"
        )
    run_main(_serve(bot, address))  # on uvloop's loop when installed (arena.wire.loop)


async def _serve(bot: Bot, address: str) -> None:
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),
        ],
    )
    pb_grpc.add_BotServicer_to_server(_Servicer(bot), server)
    if server.add_insecure_port(address) == 0 and not address.startswith("unix:"):
        sys.exit(f"{bot.name}: cannot listen on {address}")
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(0.2)
