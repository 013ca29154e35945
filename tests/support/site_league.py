"""A small real league database for the site's tests: a Trix league (one entrant
that faults at every decision, so there are faults to show) and a Trianon league,
played by `arena run` into one database."""

from __future__ import annotations

import os
import random
from pathlib import Path

from arena.games import get_game
from arena.league.running.runner import run_league
from arena.league.store import league_id_by_name, mark_in_flight, open_db
from arena.league.workers.live import LiveMatch
from arena.play.deal_keys import game_seed

HOSTILE = Path(__file__).resolve().parents[1] / "bot_scripts" / "hostile"

TRIX = """
[league]
name = "trix-site"
game = "trix"
seed = 5
deal_key = "0123456789abcdef0123456789abcdef"
schedule = "round-robin"
rounds = 1

[rules]
kingdoms = 1

[limits]
move_timeout = 2.0
max_faults = 3

[[entrant]]
name = "greedy"
bot = "builtin:greedy"

[[entrant]]
name = "random"
bot = "builtin:random"

[[entrant]]
name = "first"
bot = "builtin:first"

[[entrant]]
name = "random-2"
bot = "builtin:random"

[[entrant]]
name = "illegal"
bot = "python {hostile}/illegal_bot.py"
"""

TRIANON = """
[league]
name = "trianon-site"
game = "trianon"
seed = 6
deal_key = "fedcba9876543210fedcba9876543210"
schedule = "round-robin"
rounds = 1
rate_by = "match"

[rules]
target = 150

[[entrant]]
name = "greedy"
bot = "builtin:greedy"

[[entrant]]
name = "random"
bot = "builtin:random"

[[entrant]]
name = "first"
bot = "builtin:first"
"""


def build_site_db(folder: Path) -> Path:
    """`folder/site.db` with both leagues played whole."""
    db = folder / "site.db"
    for name, text in (("trix", TRIX.format(hostile=HOSTILE)), ("trianon", TRIANON)):
        path = folder / f"{name}.toml"
        path.write_text(text)
        run_league(path, db, workers=1)
    return db


def live_match(
    db_path: Path,
    rotation: int,
    steps: int,
    league: str = "trix-site",
    entrants: tuple[str, ...] = ("greedy", "random", "first", "illegal"),
) -> tuple[str, object]:
    """Match 100 of `league` (a Trix league of one kingdom, or a ladder's) in flight (a
    row with this process's pid, as `arena run` writes it) at `rotation`, its game
    `steps` actions in, as a worker's LiveMatch writes it; the league's name and the
    game's state."""
    game = get_game("trix")
    options = game.parse_options({"kingdoms": 1})
    db = open_db(db_path)
    league_id = league_id_by_name(db, league)[0]
    mark_in_flight(db, league_id, 100, list(entrants), run_pid=os.getpid())
    db.close()
    names = [list(entrants)] * 4
    seed = game_seed("0123456789abcdef0123456789abcdef", "public")
    live = LiveMatch(
        db_path,
        game,
        league,
        idx=100,
        rotation_names=names,
        seed=seed,
        options=game.options_dict(options),
    )
    for _ in range(rotation + 1):
        live.next_game()
    state = game.new_game(seed, options)
    rng = random.Random(rotation)
    for _ in range(steps):
        game.apply_legal(state, rng.choice(state.legal))
    live.last = 0.0
    live(state)
    return league, state
