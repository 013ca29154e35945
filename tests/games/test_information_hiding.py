"""Information hiding tested from the outside (issue 6, item 4; docs/rules/trix.md T-8,
docs/rules/trianon.md N-8): a spy bot (tests/bot_scripts/hostile/spy_bot.py) keeps the raw bytes of
every message it is sent; the game is then re-read from its replay file, and every card
code anywhere in every message must be one the spy's seat could know at that moment.

The check shares nothing with the engine: the messages are decoded with the protocol's
schema alone, every string field is scanned for card codes (whatever field it is in),
and what the seat may know is rebuilt from the replay JSON: its own hand as dealt,
every card played so far in the deal, and (Trix) every card exposed so far. The moment
of each request is not taken on trust: the spy's own answer to it must be the replay
event at that moment, made by the spy's seat.
"""

from __future__ import annotations

import json
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from google.protobuf.message import Message

from arena.bots.remote.settings import RemoteSettings
from arena.bots.spec import started_players
from arena.games import get_game
from arena.play.referee import RefereeSettings, play_game
from arena.play.replays import write_replay
from arena.wire.v1 import bot_pb2 as pb

SPY = Path(__file__).resolve().parents[1] / "bot_scripts" / "hostile" / "spy_bot.py"
CARD = re.compile(r"^[2-9TJQKA][CDHS]$")
# Fields whose text is not a card even when it looks like one: a Trianon bid ("7H":
# seven hearts) and the rule options (Trix first_king_card "7H" is public, T-9).
NOT_CARDS = {"bid", "options"}


def cards_in(message: Message) -> set[str]:
    """Every card code in any string field of `message`, at any depth."""
    found: set[str] = set()
    for descriptor, value in message.ListFields():
        if descriptor.name in NOT_CARDS:
            continue
        values = [value] if isinstance(value, (str, bytes, int, Message)) else list(value)
        for item in values:
            if isinstance(item, Message):
                found |= cards_in(item)
            elif isinstance(item, str) and CARD.match(item):
                found.add(item)
    return found


@dataclass
class Spied:
    """What the spy was sent, decoded from its file: requests paired with its answers,
    notices, and the handshake, in arrival order."""

    hello: list[pb.HelloRequest] = field(default_factory=list)
    # (position in arrival order, request, the answer the spy sent)
    requests: list[tuple[int, pb.DecisionRequest, pb.DecisionReply]] = field(default_factory=list)
    deal_ends: list[tuple[int, pb.DealEnd]] = field(default_factory=list)
    game_ends: list[tuple[int, pb.GameEnd]] = field(default_factory=list)


def read_spy_file(path: Path) -> Spied:
    data = path.read_bytes()
    records, i = [], 0
    while i < len(data):
        tag = data[i : i + 1]
        (n,) = struct.unpack(">I", data[i + 1 : i + 5])
        records.append((tag, data[i + 5 : i + 5 + n]))
        i += 5 + n
    spied = Spied()
    pending: pb.DecisionRequest | None = None
    for position, (tag, raw) in enumerate(records):
        if tag == b"H":
            spied.hello.append(pb.HelloRequest.FromString(raw))
            continue
        if tag == b"A":
            assert pending is not None, "an answer without a request"
            spied.requests.append((position, pending, pb.DecisionReply.FromString(raw)))
            pending = None
            continue
        if tag == b"D":
            message = pb.RefereeMessage(decision=pb.DecisionRequest.FromString(raw))
        elif tag == b"M":
            message = pb.RefereeMessage.FromString(raw)
        else:
            assert tag == b"N", tag
            notice = pb.Notice.FromString(raw)
            message = pb.RefereeMessage(
                deal_end=notice.deal_end if notice.HasField("deal_end") else None,
                game_end=notice.game_end if notice.HasField("game_end") else None,
            )
        body = message.WhichOneof("body")
        if body == "decision":
            assert pending is None, "a request before the previous one was answered"
            pending = message.decision
        elif body == "deal_end":
            spied.deal_ends.append((position, message.deal_end))
        else:
            assert body == "game_end", body
            spied.game_ends.append((position, message.game_end))
    assert pending is None, "the last request was not answered"
    return spied


def action_of(action: pb.Action) -> dict:
    """An Action message as a replay event without seat (only the fields it sets)."""
    out: dict = {"type": action.type}
    for name in ("card", "contract", "bid"):
        if getattr(action, name):
            out[name] = getattr(action, name)
    if action.type == "expose":
        out["cards"] = list(action.cards)
    return out


def known_to(seat: int, deal: dict, moment: int) -> set[str]:
    """What `seat` may know before event `moment` of `deal` (T-8.1, N-8.1)."""
    known = set(deal["hands"][seat])
    for event in deal["events"][:moment]:
        if event["type"] == "play":
            known.add(event["card"])
        elif event["type"] == "expose":
            known.update(event["cards"])
    return known


def check_spied(spied: Spied, replay: dict, seat: int) -> int:
    """Assert that no message told `seat` more than it may know; returns the number of
    requests checked."""
    deals = replay["deals"]
    assert spied.hello and not any(cards_in(h) for h in spied.hello)
    asked: set[tuple[int, int]] = set()
    for _, request, reply in spied.requests:
        obs = request.observation
        assert request.game.seat == seat and obs.seat == seat
        deal = deals[obs.deal - 1]
        moment = len(obs.events)
        # The moment is confirmed by the replay: the next event is the spy's answer.
        event = deal["events"][moment]
        assert event["seat"] == seat, "a request at a moment that was not this seat's turn"
        assert {k: v for k, v in event.items() if k not in ("seat", "auto")} == action_of(
            reply.action
        )
        told = [{"seat": e.seat, **action_of(e.action)} for e in obs.events]
        truth = [{k: v for k, v in e.items() if k != "auto"} for e in deal["events"][:moment]]
        assert told == truth  # the history it was told is the true history, no more
        hidden = cards_in(request) - known_to(seat, deal, moment)
        assert not hidden, f"deal {obs.deal} event {moment}: seat {seat} was sent {hidden}"
        asked.add((obs.deal, moment))
    # Every decision of the seat was put to the spy (ask_forced), but the engine's own
    # automatic last contract of a Trix kingdom (T-2.5).
    for number, deal in enumerate(deals, start=1):
        for moment, event in enumerate(deal["events"]):
            if event["seat"] == seat and (number, moment) not in asked:
                assert event["type"] == "contract", (number, moment, event)
    # T-8.2: hands are revealed at the end of a deal, never during it.
    request_positions = [(position, r.observation.deal) for position, r, _ in spied.requests]
    for position, deal_end in spied.deal_ends:
        record = deals[deal_end.number - 1]
        assert [list(h.cards) for h in deal_end.hands] == record["hands"]
        later = {number for p, number in request_positions if p > position}
        assert all(number > deal_end.number for number in later), "hands shown mid-deal"
    for _, game_end in spied.game_ends:
        assert not cards_in(game_end)
    return len(spied.requests)


def play_with_spy(game_name: str, options: dict, seat: int, transport: str, tmp_path: Path):
    """One game with the spy in `seat` and built-in random bots elsewhere; returns the
    replay as read back from its file, and the spy's file."""
    game = get_game(game_name)
    record = tmp_path / f"spy-{game_name}-{seat}.bin"
    specs = ["builtin:random"] * game.seats
    specs[seat] = f"python {SPY} {record} --notices"
    parsed = game.parse_options(options)
    settings = RemoteSettings(move_timeout=2.0, startup_timeout=10.0, transport=transport)
    with started_players(
        specs, game_name, game.options_dict(parsed), settings=settings, log_dir=tmp_path
    ) as players:
        result = play_game(
            game, players, f"spy-{seat}", parsed, settings=RefereeSettings(ask_forced=True)
        )
    path = write_replay(tmp_path / "replays", seat, result.replay)
    assert result.faults == []
    return json.loads(path.read_text()), record


@pytest.mark.slow
@pytest.mark.parametrize(
    "game_name, options",
    [("trix", {"kingdoms": 2}), ("trianon", {"target": 1000})],
)
def test_no_request_holds_a_card_its_seat_could_not_know(tmp_path, game_name, options) -> None:
    seats = get_game(game_name).seats
    checked = 0
    for seat in range(seats):
        transport = "stream" if seat % 2 == 0 else "unary"
        replay, record = play_with_spy(game_name, options, seat, transport, tmp_path)
        spied = read_spy_file(record)
        assert len(spied.deal_ends) == len(replay["deals"]) >= 2  # notices mid-game too
        assert len(spied.game_ends) == 1
        checked += check_spied(spied, replay, seat)
    assert checked > 20 * seats


def test_the_check_catches_a_leak(tmp_path) -> None:
    """The check is not vacuous: a request carrying another seat's unplayed card, or a
    deal's hands shown before the deal ends, is caught."""
    replay, record = play_with_spy("trix", {"kingdoms": 1}, 1, "stream", tmp_path)
    spied = read_spy_file(record)
    check_spied(spied, replay, 1)
    _, request, _ = spied.requests[0]
    deal = replay["deals"][request.observation.deal - 1]
    stranger = sorted(set(deal["hands"][2]) - known_to(1, deal, len(request.observation.events)))
    request.observation.trick.add(seat=2, card=stranger[0])
    with pytest.raises(AssertionError, match="was sent"):
        check_spied(spied, replay, 1)
    spied = read_spy_file(record)
    position, deal_end = spied.deal_ends[0]
    spied.deal_ends[0] = (spied.requests[0][0] - 1, deal_end)  # before the first request
    with pytest.raises(AssertionError, match="hands shown mid-deal"):
        check_spied(spied, replay, 1)
