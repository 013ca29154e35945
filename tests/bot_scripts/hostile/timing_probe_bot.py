"""A timing probe: it measures the gap between its answer and its next request.

    python tests/bot_scripts/hostile/timing_probe_bot.py

When the referee played a forced move (a single legal card) at once and asked only
real decisions, a short gap meant that a seat after this one had a single legal card,
which tells what that seat holds (no card of the suit led): a threshold on the gap told
the two apart with 99% accuracy. The probe plays the first legal action and logs
`gap GAME DECISION SECONDS` for every decision but a game's first; a test labels each
gap from the replay and fits the threshold on half of the games, scoring it on the rest.
"""

from __future__ import annotations

import time

from _common import report

from arena.sdk import Bot, serve


class TimingProbe(Bot):
    name = "timing-probe"
    games = ("trix", "trianon")

    def __init__(self) -> None:
        self.game = ""
        self.answered = 0.0

    def act(self, turn):
        now = time.perf_counter()
        game = turn.game["game_id"]
        if game == self.game:
            report(f"gap {game} {turn.decision_id} {now - self.answered:.7f}")
        self.game = game
        self.answered = time.perf_counter()
        return 0


if __name__ == "__main__":
    serve(TimingProbe())
