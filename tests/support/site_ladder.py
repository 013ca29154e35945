"""A small real ladder database for the ladder site's tests (`arena ladder serve`):
built-in house bots (one with a name that is an HTML attack), an author whose name is
one too, a bot with an active version and a candidate whose promotion test is under
way (its gate's report a pass), a refused version whose gate report names the
organiser's folders and holds markup, played by `arena ladder run`'s own code on one
worker; on request, the candidate promoted by its author part-way through the run.

The authors' versions are written through the store with built-in commands, as `arena
ladder submit` would write them after the gate: no bot process starts, and the run
takes a few seconds."""

from __future__ import annotations

import json
from pathlib import Path

from arena.ladder.book import State, author_add, init_ladder, open_ladder, promote, writing
from arena.ladder.config import load_ladder
from arena.ladder.runner import run_ladder
from arena.league.store.ladder_writes import add_version, set_gate_report

ILLEGAL = Path(__file__).resolve().parents[1] / "bot_scripts" / "hostile" / "illegal_bot.py"
LADDER = "spring <i>ladder</i>"
HOSTILE_HOUSE = '<img src=x onerror="alert(1)">'
HOSTILE_AUTHOR = "ann<script>alert(2)</script>"
HOSTILE_BOT = "<script>alert(3)</script>/../x"
SECRET_FOLDER = "/srv/organiser-secret/ladder-files"
MATCHES = 14

TEXT = """\
[ladder]
name = {name}
game = "trix"
seed = "site-ladder"
deal_key = "0123456789abcdef0123456789abcdef"

[rules]
kingdoms = 1

[limits]
move_timeout = 2.0
sandbox = "off"

[matchmaking]
placement_matches = 1

[promotion]
min_pairs = 50
max_games = 1000

[[house]]
name = "greedy"
bot = "builtin:greedy"

[[house]]
name = "random"
bot = "builtin:random"

[[house]]
name = "first"
bot = "builtin:first"

[[house]]
name = {hostile}
bot = "builtin:random"
"""


def _toml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a TOML basic string


PASSED_GATE = {
    "passed": True,
    "tries": 1,
    "steps": [
        {"name": "start", "passed": True, "detail": "started"},
        {"name": "check-bot", "passed": True, "detail": "answered"},
        {"name": "validation", "passed": True, "detail": "one match, no fault"},
    ],
    "text": "gate for alpha@2: `builtin:greedy`\nverdict: PASSED on try 1 of 3\n"
    "[start] ok\n[check-bot] ok\n[validation] ok\n  one match, no fault",
    "timed_out": False,
    "error": "",
    "log_dir": "",
}


def build_ladder_db(folder: Path, matches: int = MATCHES, promote_after: int | None = None) -> Path:
    """`folder/arena.db` holding the ladder, `matches` of its matches stored; with
    `promote_after`, its author promotes the candidate alpha@2 (alpha@1 is retired)
    once that many are stored, and the run goes on for the rest."""
    path = folder / "site-ladder.toml"
    path.write_text(TEXT.format(name=_toml(LADDER), hostile=_toml(HOSTILE_HOUSE)))
    db_path = folder / "arena.db"
    init_ladder(load_ladder(path), db_path)
    token = author_add(db_path, None, HOSTILE_AUTHOR)
    with writing(db_path) as db:
        ladder = open_ladder(db, None)
        author = db.execute("SELECT id FROM authors").fetchone()[0]  # noqa: S608

        def version(bot: str, command: str, state: str, reason: str, digest: str) -> int:
            version_id, _, _ = add_version(
                db,
                ladder_id=ladder.id,
                league_id=ladder.league_id,
                bot=bot,
                author_id=author,
                sha256=digest * 64,
                command=command,
                folder=str(folder),
                state=state,
                start_mu=ladder.config.ratings.mu,
                reason=reason,
            )
            return version_id

        version("alpha", "builtin:random", State.ACTIVE, "passed the gate", "a")
        candidate = version("alpha", "builtin:greedy", State.CHECKING, "waiting", "b")
        set_gate_report(db, candidate, PASSED_GATE, State.CANDIDATE, "passed the gate")
        version("illegal", f"python {ILLEGAL}", State.ACTIVE, "passed the gate", "d")
        refused = version(HOSTILE_BOT, "python bot.py", State.CHECKING, "waiting", "c")
        report = {
            "passed": False,
            "tries": 1,
            "steps": [],
            "text": f"REFUSED at start (try 1 of 3)\n  <b>error</b>: {SECRET_FOLDER}/ab12/bot.py "
            f"not found\n  logs: {SECRET_FOLDER}/../logs/gate-7",
            "timed_out": False,
            "error": "",
            "log_dir": f"{SECRET_FOLDER}/../logs/gate-7",
        }
        set_gate_report(db, refused, report, State.REFUSED, "refused at start: <b>no bot</b>")
    if promote_after is not None:
        run_ladder(db_path, workers=1, matches=promote_after)
        promote(db_path, None, token=token, spec="alpha@2")
        matches -= promote_after
    run_ladder(db_path, workers=1, matches=matches)
    return db_path
