"""The example decisions of docs/bots.md, captured from real games.

Each game is played by SDK bots through `SdkPlayer`, which hands a bot the very
DecisionRequest bytes a bot over gRPC gets, with the referee asking every decision
(forced ones too, as `arena check-bot` does, so that a Trix `pass` is asked at all).
For every decision kind one turn is kept, the first of that kind a league game would
ask too (more than one legal action; a `pass` never has more), and for a `play` the
first with cards on the table, so that the trick shows: its `turn.legal`, `turn.view`
and `turn.game`, exactly as the SDK shows them.

tests/test_docs.py checks docs/bots.md against this; after a change to the
observation, print the blocks afresh with

    .venv/bin/python -m tests.support.doc_examples
"""

from __future__ import annotations

import json
from typing import Any

from arena.bots.local import SdkPlayer
from arena.games import get_game
from arena.play.referee import RefereeSettings, play_game
from arena.sdk import Bot, Turn

GAMES = ("trix", "trianon")
SEEDS = {"trix": "docs", "trianon": "docs-2"}  # game seeds whose first deals show much


class FirstTurns(Bot):
    """A seeded random bot that keeps the first turn of each decision kind it meets. It
    bids (and raises) modestly: pass, keep or one of the three lowest bids allowed."""

    name = "recorder"
    games = GAMES

    def __init__(self, kept: dict[str, dict[str, Any]]) -> None:
        self.kept = kept

    def act(self, turn: Turn) -> int:
        if turn.kind not in self.kept and _shown(turn):
            self.kept[turn.kind] = {"legal": turn.legal, "view": turn.view, "game": turn.game}
        choices = 4 if turn.kind in ("bid", "raise") else len(turn.legal)
        return turn.random_index(min(choices, len(turn.legal)))


def _shown(turn: Turn) -> bool:
    if turn.kind == "pass":
        return True
    return len(turn.legal) > 1 and (turn.kind != "play" or bool(turn.view["trick"]))


def first_turns(game_name: str, seed: str | None = None) -> dict[str, dict[str, Any]]:
    """The first turn of every decision kind of one game, by kind, in the game's order
    of kinds."""
    game = get_game(game_name)
    seed = SEEDS[game_name] if seed is None else seed
    kept: dict[str, dict[str, Any]] = {}
    players = [SdkPlayer(FirstTurns(kept)) for _ in range(game.seats)]
    play_game(
        game,
        players,
        seed,
        game.parse_options({}),
        settings=RefereeSettings(ask_forced=True),
        names=[f"bot{seat}" for seat in range(game.seats)],
    )
    missing = [kind for kind in game.decision_kinds if kind not in kept]
    assert not missing, f"{game_name} seed {seed!r}: no {', '.join(missing)} decision"
    return {kind: kept[kind] for kind in game.decision_kinds}


def as_block(value: Any, width: int = 88) -> str:
    """JSON as docs/bots.md shows it: one key of an object per line; a list of objects
    or lists one entry per line, or several per line when they are short."""

    def dump(item: Any, indent: str) -> str:
        inner = indent + "  "
        if isinstance(item, dict) and len(json.dumps(item)) + len(indent) > width:
            lines = [f"{inner}{json.dumps(k)}: {dump(v, inner)}" for k, v in item.items()]
            return "{\n" + ",\n".join(lines) + "\n" + indent + "}"
        if isinstance(item, list) and any(isinstance(x, dict | list) for x in item):
            if len(json.dumps(item)) + len(indent) <= width - 20:
                return json.dumps(item)
            lines, line = [], ""
            for entry in (dump(x, inner) for x in item):
                if line and len(inner) + len(line) + len(entry) + 2 > width:
                    lines.append(line + ",")
                    line = ""
                line = f"{line}, {entry}" if line else entry
            lines.append(line)
            return "[\n" + "\n".join(inner + x for x in lines) + "\n" + indent + "]"
        return json.dumps(item)

    return dump(value, "")


def remote_game(game: dict[str, Any]) -> dict[str, Any]:
    """`turn.game` as a bot over gRPC sees it in its first game: the referee numbers the
    games of a bot's process (`SEED#1`, `SEED#2`, ...), where `SdkPlayer` passes the seed."""
    order = list(get_game(game["game"]).options_dict(get_game(game["game"]).parse_options({})))
    options = {key: game["options"][key] for key in order}  # in the rule book's order
    return {**game, "game_id": f"{game['seed']}#1", "options": options}


def examples() -> dict[str, Any]:
    """Every example of docs/bots.md by its marker: `GAME game`, `GAME KIND legal`,
    `GAME KIND view`."""
    out: dict[str, Any] = {}
    for game_name in GAMES:
        turns = first_turns(game_name)
        out[f"{game_name} game"] = remote_game(next(iter(turns.values()))["game"])
        for kind, turn in turns.items():
            out[f"{game_name} {kind} legal"] = turn["legal"]
            out[f"{game_name} {kind} view"] = turn["view"]
    return out


def main() -> None:
    for name, value in examples().items():
        print(f"<!-- example: {name} -->\n```json\n{as_block(value)}\n```\n")


if __name__ == "__main__":
    main()
