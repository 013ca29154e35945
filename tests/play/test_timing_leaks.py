"""Timing that says nothing about hidden cards (docs/sandbox.md, "Timing").

A bot sees when its requests come. When the referee played forced moves at once, the
gap before a bot's next request was shorter whenever a seat after it had a single legal
card, so a bot could learn that a seat was void in the suit led. Now every decision at
a table with bots over gRPC is asked, forced or not, and the timing probe
(tests/bot_scripts/hostile/timing_probe_bot.py) does no better than chance.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.games import get_game

pytestmark = [pytest.mark.sandbox]

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "tests" / "bot_scripts" / "hostile" / "timing_probe_bot.py"
RANDOM = ROOT / "sample_bots" / "random_bot.py"
GAMES = 40  # about 2,800 gaps of the probe's
CHANCE_BOUND = 0.55


Sample = tuple[float, bool, int]  # (gap, a seat after it was forced, decisions between)


def forced_between(replay: dict, seat: int) -> list[tuple[bool | None, int]]:
    """For each decision of `seat` but its first: whether another seat had a single
    legal card while it held more than one, since the seat's previous decision, and how
    many decisions of the others came in between (which the seat sees in its
    observation: public). None where the gap says something public instead, which the
    probe knows anyway: a deal ended in between (scoring and a new deal take time), or
    a seat had one card left (the last trick, where every play is forced). The
    contracts the engine chooses itself (the last of a Trix kingdom, T-2.5) are asked of
    nobody and passed over."""
    game = get_game(replay["game"])
    options = game.parse_options({k: str(v) for k, v in replay["options"].items()})
    state = game.new_game(replay["seed"], options)
    labels: list[tuple[bool | None, int]] = []
    forced: bool | None = False
    started, between = False, 0
    for deal in replay["deals"]:
        held = [len(hand) for hand in deal["hands"]]
        for event in deal["events"]:
            action = game.parse_event({k: v for k, v in event.items() if k != "auto"})
            if state.to_move != event["seat"] or action not in state.legal:
                continue  # chosen by the engine
            who = event["seat"]
            if who == seat:
                if started:
                    labels.append((forced, between))
                started, forced, between = True, False, 0
            else:
                between += 1
                if held[who] == 1:
                    forced = None  # the last trick: public
                elif len(state.legal) == 1 and forced is not None:
                    forced = True
            if event["type"] == "play":
                held[who] -= 1
            game.apply_legal(state, action)
        forced = None  # the next gap spans the deal's end
    return labels


def fit(samples: list[Sample]) -> dict[int, tuple[float, bool]]:
    """The probe's classifier: per number of decisions in between (the gap grows with
    it, and the probe sees it), the gap threshold with the best balanced accuracy and
    its side."""
    model: dict[int, tuple[float, bool]] = {}
    for stratum in {n for _, _, n in samples}:
        own = [(gap, forced) for gap, forced, n in samples if n == stratum]
        best = (0.0, 0.0, True)
        for threshold in sorted({gap for gap, _ in own}):
            for below in (True, False):
                hits = [((gap <= threshold) == below) == forced for gap, forced in own]
                score = _balanced(hits, [forced for _, forced in own])
                if score > best[0]:
                    best = (score, threshold, below)
        model[stratum] = (best[1], best[2])
    return model


def balanced_accuracy(model: dict[int, tuple[float, bool]], samples: list[Sample]) -> float:
    """The classifier's balanced accuracy (the mean of its hit rates on forced and on
    unforced gaps) within each number of decisions in between, weighted by the gaps of
    each: what the gap tells beyond what the probe sees in its observation, where chance
    is 0.5. A number with one kind of gap alone (no decision between: nobody was
    forced) tells nothing about timing and is left out."""
    total = weight = 0.0
    for stratum, (threshold, below) in model.items():
        own = [(gap, forced) for gap, forced, n in samples if n == stratum]
        labels = [forced for _, forced in own]
        if len(set(labels)) < 2:
            continue
        hits = [((gap <= threshold) == below) == forced for gap, forced in own]
        total += _balanced(hits, labels) * len(own)
        weight += len(own)
    return total / weight if weight else 0.5


def _balanced(hits: list[bool], labels: list[bool]) -> float:
    rates = []
    for kind in (True, False):
        mine = [hit for hit, label in zip(hits, labels, strict=True) if label == kind]
        rates.append(sum(mine) / len(mine) if mine else 0.5)
    return sum(rates) / 2


@pytest.mark.slow
def test_a_timing_probe_cannot_tell_forced_moves_of_the_next_seats(tmp_path) -> None:
    replays, logs = tmp_path / "replays", tmp_path / "logs"
    result = CliRunner().invoke(
        app,
        ["play", f"python {PROBE}", *[f"python {RANDOM}"] * 3, "--games", str(GAMES),
         "--rules", "kingdoms=1", "--replays", str(replays), "--logs", str(logs),
         "--deal-key", "5a" * 16, "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    gaps: dict[str, list[float]] = {}
    for log in logs.rglob("*timing_probe*.log"):
        for line in log.read_text().splitlines():
            if line.startswith("HOSTILE gap "):
                _, _, game, _decision, seconds = line.split()
                gaps.setdefault(game, []).append(float(seconds))
    games = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(games) == GAMES and len(gaps) == GAMES
    halves: tuple[list[Sample], list[Sample]] = ([], [])
    by_number = sorted(gaps, key=_game_number)
    for number, (played, game_id) in enumerate(zip(games, by_number, strict=True)):
        labels = forced_between(json.loads(Path(played["replay"]).read_text()), seat=0)
        assert len(labels) == len(gaps[game_id])  # every decision of the probe was asked
        halves[number % 2].extend(
            (gap, forced, between)
            for gap, (forced, between) in zip(gaps[game_id], labels, strict=True)
            if forced is not None
        )
    train, test = halves
    assert len(train) + len(test) > 2000
    assert 0.1 < sum(f for _, f, _ in test) / len(test) < 0.9  # both kinds are common
    score = balanced_accuracy(fit(train), test)
    assert score <= CHANCE_BOUND, f"the probe told forced moves apart: {score:.1%}"


def _game_number(game_id: str) -> int:
    """`game_id` is the bot seed, '#' and the game's number in the bot's run."""
    return int(game_id.rsplit("#", 1)[1])
