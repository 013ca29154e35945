"""An SDK bot run inside the referee's process, through the real wire encoding.

The bot receives exactly the DecisionRequest bytes an external bot would (encoded by
`arena.wire`, decoded by protobuf), without sockets or processes: for quick
evaluation of a bot and for tests of the wire layer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.errors import IllegalAction
from arena.games import get_game
from arena.games.base import Action
from arena.play.faults import BotFault, FaultKind
from arena.play.referee import Decision, GameStart
from arena.sdk import Bot, Turn
from arena.wire.codec import WireCodec, game_info, game_info_bytes
from arena.wire.v1 import bot_pb2 as pb


class SdkPlayer:
    """A Player that hands an SDK `Bot` the same request bytes a remote bot would get."""

    wants_notices = False

    def __init__(self, bot: Bot, time_ms: int = 1000) -> None:
        self.bot = bot
        self.name = bot.name
        self.time_ms = time_ms
        self._codec: WireCodec | None = None
        self._info = b""
        self._decision_id = 0
        self.requests: list[bytes] = []  # every request, when `record` is on
        self.record = False

    def start_game(self, start: GameStart) -> None:
        game = get_game(start.game)
        if self._codec is None or self._codec.game is not game:
            self._codec = WireCodec(game)
        self._info = game_info_bytes(
            game_info(
                start.game,
                start.seed,
                start.seat,
                seed=start.seed,
                players=start.players,
                options=start.options,
            )
        )
        self._decision_id = 0

    def act(self, decision: Decision) -> Action:
        assert self._codec is not None
        self._decision_id += 1
        data = self._codec.decision_bytes(
            decision.view, decision.legal, self._decision_id, self._info, time_ms=self.time_ms
        )
        if self.record:
            self.requests.append(data)
        turn = Turn(pb.DecisionRequest.FromString(data))
        answer = turn.answer(self.bot.act(turn))
        try:
            return self._codec.parse_answer(answer)
        except IllegalAction as err:
            raise BotFault(FaultKind.ILLEGAL, f"answered {answer}: {err}") from None

    def end_deal(self, seat: int, deal: Mapping[str, Any]) -> None:
        pass

    def end_game(self, seat: int, replay: Mapping[str, Any]) -> None:
        pass
