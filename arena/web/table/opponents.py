"""Which bot "play against this bot" plays against: a league's entrant or a ladder's
version, as its league or ladder starts it, or why the site cannot start it.

Why the stored spec: the entrant's bot as the league ran it (`entrants.bot`), with the
league file's limits, sandbox and folder when the file is still on this machine; a
ladder's version from its stored upload, started with the ladder's limits in its
sandbox (hiding the database) from its own folder, as the gate and the matches start
it. A bot the site cannot start is not offered, and its page says why: one reached at
a network address (it runs on its owner's machine), a person's seat, a command whose
league file or files are not here, a version the gate has not passed or that was
taken off the ladder.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import sqlite_utils

from arena.bots.human import is_human_spec
from arena.bots.process import command_argv
from arena.bots.spec import BUILTIN_PREFIX, GRPC_PREFIX
from arena.errors import ConfigError
from arena.ladder.book import TESTABLE, Ladder
from arena.league.definition.config import Entrant, LeagueConfig, load_league
from arena.league.store import league_id_by_name
from arena.league.store.reads import league_facts
from arena.league.store.site_reads import entrant_bots
from arena.web.table.site_games import Opponent


def launch_problem(spec: str, config: LeagueConfig | None) -> str | None:
    """Why the site cannot start the bot `spec` (None: it can), in words for its page:
    a bot reached at an address is not the site's to start, and a command needs its
    league's file (its limits, its sandbox and its folder) and its program."""
    spec = spec.strip()
    if is_human_spec(spec):
        return "a person played this seat, not a bot"
    if spec.startswith(BUILTIN_PREFIX):
        return None
    if spec.startswith(GRPC_PREFIX):
        return (
            "this bot is reached at a network address, where it runs on its owner's "
            "machine: the site cannot start a game of its own with it"
        )
    if config is None:
        return (
            "the league's file is not on this server, so its limits, sandbox and folder, "
            "which this bot's command is started with, are not known here"
        )
    try:
        argv = command_argv(spec, config.base_dir)
    except ConfigError:  # its words would name the organiser's folders
        return "this bot's command cannot be read"
    program = Path(argv[0])
    if not (shutil.which(argv[0]) or (program.is_absolute() and program.exists())):
        return "this bot's program is not on this server"
    python = program.name.startswith("python")
    for before, arg in zip(argv, argv[1:], strict=False):
        if not python or before == "-m":  # a module is a name, found at its start
            break
        if not arg.startswith("-"):  # the script: command_argv made it absolute if here
            if not Path(arg).is_absolute():
                return "this bot's files are not on this server"
            break
    return None


def entrant_opponent(
    db: sqlite_utils.Database, db_path: Path, league: str, entrant: str
) -> Opponent | str:
    """A league's entrant as the site starts it (its stored spec, the game and rules
    the league was stored with, its league file's limits, sandbox and folder when the
    file is on this machine), or why it cannot be started here."""
    league_id, league = league_id_by_name(db, league)
    facts = league_facts(db, league_id)
    spec = entrant_bots(db, league_id).get(entrant, "")
    rules = facts["settings"].get("rules", {})
    config = None
    file = facts["file"]
    if file and Path(file).is_file():
        try:
            config = load_league(file)
        except ConfigError:
            config = None
    if config is not None:  # the rules the league was stored with, whatever the file says now
        if config.game != facts["game"]:
            config = None
        else:
            config = dataclasses.replace(config, options=config.engine.parse_options(rules))
    problem = launch_problem(spec, config)
    if problem:
        return problem
    return Opponent(entrant, spec, facts["game"], rules, config, str(db_path))


def version_opponent(db_path: Path, ladder: Ladder, row: dict[str, Any]) -> Opponent | str:
    """A ladder's version (its stored row) as the ladder starts it, or why the site
    cannot start it."""
    from arena.ladder.gate import version_config  # loads the gate's own machinery
    from arena.ladder.source import version_start

    if row["state"] not in TESTABLE:
        return (
            f"this version is {row['state']}: only a version the gate passed and that is "
            "still on the ladder is played against"
        )
    spec = version_start(row)
    entrant = str(row["entrant"])
    config = ladder.config.league((Entrant(entrant, spec),), "")
    if not spec.startswith((BUILTIN_PREFIX, GRPC_PREFIX)):
        folder = Path(str(row["folder"]))
        if not folder.is_dir():
            return "this version's files are not on this server"
        config = version_config(config, folder)
    problem = launch_problem(spec, config)
    if problem:
        return problem
    rules = ladder.config.engine.options_dict(ladder.config.options)
    return Opponent(entrant, spec, ladder.config.game, rules, config, str(db_path))
