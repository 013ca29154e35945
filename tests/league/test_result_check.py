"""The main process's check of a returned match (arena/league/running/result_check.py): a
match played honestly passes; one whose deals, events, scores, totals, ranks, seating,
seed or faults were changed is refused, saying what differs."""

from __future__ import annotations

import copy
import dataclasses
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.league.definition.config import LeagueConfig, load_league
from arena.league.definition.records import PlayedMatch
from arena.league.definition.schedule import ScheduledMatch
from arena.league.running.result_check import ForgedResult, check_played_match
from arena.league.running.runner import league_schedule
from arena.league.workers.worker import play_scheduled_match

DEAL_KEY = "00112233445566778899aabbccddeeff"


def _league(folder: Path, game: str) -> Path:
    seats = 4 if game == "trix" else 3
    rules = "[rules]\nkingdoms = 1\n" if game == "trix" else ""
    bots = ["builtin:greedy", "builtin:random", "builtin:first", "builtin:random"][:seats]
    text = (
        f'[league]\nname = "check"\ngame = "{game}"\nseed = 4\ndeal_key = "{DEAL_KEY}"\n'
        f'{rules}[limits]\nsandbox = "off"\n'
    )
    for i, bot in enumerate(bots):
        text += f'\n[[entrant]]\nname = "e{i}"\nbot = "{bot}"\n'
    path = folder / f"{game}.toml"
    path.write_text(text)
    return path


@cache
def _played(game: str, folder: str) -> tuple[LeagueConfig, ScheduledMatch, PlayedMatch]:
    config = load_league(_league(Path(folder), game))
    match = league_schedule(config)[0]
    return config, match, play_scheduled_match(config, match, str(Path(folder) / "logs"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("result-check"))


def _with_replay(played: PlayedMatch, game: int, change) -> PlayedMatch:  # noqa: ANN001
    """`played` with game `game`'s replay changed by `change(replay)` (on a copy)."""
    replay = copy.deepcopy(dict(played.games[game].replay))
    change(replay)
    games = list(played.games)
    games[game] = dataclasses.replace(games[game], replay=replay)
    return dataclasses.replace(played, games=tuple(games))


@pytest.mark.parametrize("game", ["trix", "trianon"])
def test_an_honest_match_passes(folder: str, game: str) -> None:
    config, match, played = _played(game, folder)
    check_played_match(config, match, played)


def _refused(config, match, played, *words: str) -> None:  # noqa: ANN001
    with pytest.raises(ForgedResult) as caught:
        check_played_match(config, match, played)
    for word in words:
        assert word in str(caught.value), str(caught.value)


@pytest.mark.parametrize("game", ["trix", "trianon"])
def test_changed_totals_ranks_or_scores_are_refused(folder: str, game: str) -> None:
    config, match, played = _played(game, folder)

    def totals(r: dict) -> None:
        r["totals"][0] += 10

    def ranks(r: dict) -> None:  # seat 0's rank moved one place: always another rank
        r["ranks"][0] = r["ranks"][0] % len(r["ranks"]) + 1

    def scores(r: dict) -> None:
        r["deals"][0]["scores"][1] -= 5

    _refused(config, match, _with_replay(played, 0, totals), "game 1", "totals")
    changed = _with_replay(played, 1, ranks)
    assert changed.games[1].replay["ranks"] != played.games[1].replay["ranks"]
    _refused(config, match, changed, "game 2", "ranks")
    _refused(config, match, _with_replay(played, 2, scores), "game 3", "deal 1", "scores")


def test_a_swapped_card_or_an_illegal_move_is_refused(folder: str) -> None:
    config, match, played = _played("trix", folder)

    def swap_hands(r: dict) -> None:  # seat 0 dealt seat 1's first card, and back
        hands = r["deals"][0]["hands"]
        hands[0][0], hands[1][0] = hands[1][0], hands[0][0]

    def illegal(r: dict) -> None:  # a card the seat does not hold
        events = r["deals"][0]["events"]
        at = next(i for i, e in enumerate(events) if e.get("type") == "play")
        held = {c for hand in r["deals"][0]["hands"] for c in hand}
        seat = events[at]["seat"]
        other = next(c for c in sorted(held) if c not in r["deals"][0]["hands"][seat])
        events[at] = {**events[at], "card": other}

    _refused(config, match, _with_replay(played, 0, swap_hands), "deal 1", "hands")
    _refused(config, match, _with_replay(played, 1, illegal), "not a legal")


def test_a_game_of_other_deals_seats_or_length_is_refused(folder: str) -> None:
    config, match, played = _played("trix", folder)

    def seed(r: dict) -> None:
        r["seed"] = r["seed"][::-1]

    _refused(config, match, _with_replay(played, 0, seed), "seed")
    swapped = list(played.games)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    _refused(config, match, dataclasses.replace(played, games=tuple(swapped)), "rotation")
    _refused(config, match, dataclasses.replace(played, games=played.games[:-1]), "games")
    other = dataclasses.replace(played, index=played.index + 1)
    _refused(config, match, other, "not match 0")
    counted = dataclasses.replace(played.games[0], decisions=played.games[0].decisions + 1)
    _refused(
        config, match, dataclasses.replace(played, games=(counted, *played.games[1:])),
        "decisions",
    )  # fmt: skip


def test_a_fault_charged_without_its_fallback_move_is_refused(folder: str) -> None:
    config, match, played = _played("trix", folder)

    def charge(r: dict) -> None:  # seat 2 charged a timeout at an event it played itself
        events = r["deals"][0]["events"]
        at = next(i for i, e in enumerate(events) if e["seat"] == 2 and "auto" not in e)
        r["faults"].append(
            {"seat": 2, "deal": 1, "kind": "timeout", "detail": "", "decision": 1,
             "event": at, "expected": "", "got": "", "log": ""}
        )  # fmt: skip

    _refused(config, match, _with_replay(played, 0, charge), "marks no fallback move")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_changed_hand_or_score_is_refused(folder: str, data: st.DataObject) -> None:
    config, match, played = _played("trianon", folder)
    game = data.draw(st.integers(0, len(played.games) - 1))
    deals = played.games[game].replay["deals"]
    deal = data.draw(st.integers(0, len(deals) - 1))
    seat = data.draw(st.integers(0, len(deals[deal]["scores"]) - 1))
    if data.draw(st.booleans()):
        delta = data.draw(st.integers(-50, 50).filter(bool))

        def change(r: dict) -> None:
            r["deals"][deal]["scores"][seat] += delta

    else:
        other = data.draw(st.integers(0, len(deals[deal]["hands"]) - 1).filter(lambda s: s != seat))

        def change(r: dict) -> None:
            hands = r["deals"][deal]["hands"]
            hands[seat][0], hands[other][-1] = hands[other][-1], hands[seat][0]

    with pytest.raises(ForgedResult):
        check_played_match(config, match, _with_replay(played, game, change))
