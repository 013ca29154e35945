"""The ladder's book: every change a command makes outside a run. A ladder made from
its file, authors added and revoked, versions submitted, promoted and withdrawn, test
matches asked for, the ladder frozen (docs/ladder.md).

An author's command proves who is asking with a token (`--token` or `ARENA_TOKEN`):
a wrong, revoked or another author's token changes nothing and says so in one line,
the same line whichever it was (a stranger learns nothing of which authors exist).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils

from arena.errors import ArenaError, ConfigError
from arena.ladder.config import LadderConfig, bot_name_problem, parse_ladder
from arena.ladder.tokens import hash_token, new_token, token_author, token_matches
from arena.ladder.uploads import store_upload
from arena.league.definition.config import bot_spec_problem, check_entrant_name
from arena.league.definition.names import nfc
from arena.league.store import ladder_reads, open_db, open_existing
from arena.league.store.ladder_reads import (
    author_by_id,
    author_row,
    bot_row,
    ladder_by_name,
    version_rows,
)
from arena.league.store.ladder_writes import (
    REQUEST_WINDOW,
    add_author,
    add_version,
    create_ladder,
    freeze_ladder,
    queue_test_match,
    revoke_author,
    set_states,
    update_ladder_settings,
)

TOKEN_VARIABLE = "ARENA_TOKEN"
STORE_FOLDER = "ladder-files"  # beside the database: every version's files, by SHA-256


class State:
    """A version's states (docs/ladder.md, "States")."""

    CHECKING = "checking"  # submitted; the gate has not passed it yet
    REFUSED = "refused"  # the gate refused it: it never plays
    CANDIDATE = "candidate"  # passed; tested against its bot's active version
    ACTIVE = "active"  # its bot's version on the table
    RETIRED = "retired"  # replaced, or refused by the promotion test
    SUSPENDED = "suspended"  # its own faults took it off the ladder
    WITHDRAWN = "withdrawn"  # its author took it off


STATES = (
    State.CHECKING, State.REFUSED, State.CANDIDATE, State.ACTIVE, State.RETIRED,
    State.SUSPENDED, State.WITHDRAWN,
)  # fmt: skip
PLAYING = (State.ACTIVE, State.CANDIDATE)
# An author's version that may play a test match: one the gate passed and that neither
# its faults nor its author took off the ladder (a retired version may be tried again).
TESTABLE = (State.ACTIVE, State.CANDIDATE, State.RETIRED)


class TokenRefused(ArenaError):
    """A token that is wrong, revoked, or another author's."""


REFUSED_TOKEN = (
    "the token is not valid for this ladder (wrong, revoked, or another author's): nothing "
    "was changed; give the token `arena ladder author add` printed, with --token or "
    f"{TOKEN_VARIABLE}"
)


@dataclass(frozen=True)
class Ladder:
    """A stored ladder, opened: its row and its settings as `init` stored them."""

    id: int
    league_id: int
    config: LadderConfig
    store: Path  # the folder of every version's files
    frozen: bool


def store_folder(db_path: Path) -> Path:
    return db_path.resolve().parent / STORE_FOLDER


@contextlib.contextmanager
def writing(db_path: Path) -> Iterator[sqlite_utils.Database]:
    """The database opened to write (migrated), closed afterwards."""
    db = open_db(db_path)
    try:
        yield db
    finally:
        db.close()


@contextlib.contextmanager
def reading(db_path: Path) -> Iterator[sqlite_utils.Database]:
    """The database opened read-only (it must exist and be of this arena's schema)."""
    db = open_existing(db_path)
    try:
        yield db
    finally:
        db.close()


def open_ladder(db: sqlite_utils.Database, name: str | None) -> Ladder:
    """The ladder called `name` (or the only one), its settings read back."""
    row = ladder_by_name(db, name)
    stored = row["settings"]
    config = parse_ladder(Path(stored["file"]), stored["data"])
    return Ladder(
        id=row["id"],
        league_id=row["league_id"],
        config=config,
        store=Path(row["store"]),
        frozen=row["frozen_at"] is not None,
    )


def init_ladder(config: LadderConfig, db_path: Path) -> tuple[Ladder, list[str]]:
    """Make the ladder `config` describes in `db_path` (or, when it is stored
    already, take the file's changed settings: its game, seed, rotations, rules and
    ratings may not change once made). House bots not yet on it are added as active
    versions. Returns the ladder and what was done, a line each."""
    done: list[str] = []
    with writing(db_path) as db:
        try:
            ladder = open_ladder(db, config.name)
        except ConfigError:
            ladder = None
        if ladder is None:
            store = store_folder(db_path)
            create_ladder(
                db,
                name=config.name,
                game=config.game,
                settings=config.stored(),
                locked=config.locked(),
                file=str(config.path),
                store=str(store),
                deal_key=config.deal_key,
            )
            done.append(f"ladder {config.name!r} made in {db_path} ({config.game})")
        else:
            before = ladder.config.locked()
            for key, value in config.locked().items():
                if before.get(key) != value:
                    raise ConfigError(
                        f"ladder {config.name!r} is stored with {key} = {before.get(key)!r}; "
                        f"{config.path.name} says {value!r}, which would change its deals, "
                        "rules or ratings: restore it, or give the ladder another name"
                    )
            update_ladder_settings(db, ladder.id, config.stored(), str(config.path))
            done.append(f"ladder {config.name!r}: settings taken from {config.path}")
        ladder = open_ladder(db, config.name)
        ladder.store.mkdir(parents=True, exist_ok=True)
        for house in config.house:
            digest = hashlib.sha256(house.bot.encode()).hexdigest()
            _, number, new = add_version(
                db,
                ladder_id=ladder.id,
                league_id=ladder.league_id,
                bot=house.name,
                author_id=None,
                sha256=digest,
                command=house.bot,
                folder=str(config.base_dir),
                state=State.ACTIVE,
                start_mu=config.ratings.mu,
                reason="a house bot",
            )
            if new:
                done.append(f"house bot {house.name}@{number}: {house.bot}")
    return ladder, done


def author_add(db_path: Path, ladder_name: str | None, name: str) -> str:
    """A new author; their token, to be shown once."""
    name = nfc(name)
    problem = check_entrant_name(name, "author")
    if problem:
        raise ConfigError(f"the author's name {problem}")
    if name == "house":
        raise ConfigError("'house' names the organiser's own bots: choose another name")
    token = new_token(name)
    with writing(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        add_author(db, ladder.id, name, hash_token(token))
    return token


def author_revoke(db_path: Path, ladder_name: str | None, name: str) -> str:
    with writing(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        row = author_row(db, ladder.id, nfc(name))
        if row is None:
            raise ConfigError(f"no author named {name!r} in ladder {ladder.config.name!r}")
        if row["revoked_at"] is not None:
            return f"author {name!r}'s token was revoked already"
        revoke_author(db, row["id"])
    return f"author {name!r}'s token is revoked: it changes nothing from now on"


@dataclass(frozen=True)
class SignedIn:
    """An author the ladder's site signed in: their token was checked at sign-in and
    their session since (arena/web/ladder/authors/sessions.py). Given where a token goes."""

    author_id: int


Credential = str | SignedIn | None  # a token, or an author the site signed in


def authenticated(db: sqlite_utils.Database, ladder: Ladder, token: Credential) -> dict[str, Any]:
    """The author `token` belongs to; TokenRefused when it belongs to none (or, for an
    author signed in on the site, when they are not this ladder's or were revoked)."""
    if isinstance(token, SignedIn):
        row = author_by_id(db, token.author_id)
        if row is None or row["ladder_id"] != ladder.id or row["revoked_at"] is not None:
            raise TokenRefused(REFUSED_TOKEN)
        return row
    name = token_author(token or "")
    row = author_row(db, ladder.id, name) if name else None
    if row is None:
        token_matches(token or "", _DUMMY_HASH)  # the same work whether or not the name exists
        raise TokenRefused(REFUSED_TOKEN)
    if row["revoked_at"] is not None or not token_matches(token or "", row["token_hash"]):
        raise TokenRefused(REFUSED_TOKEN)
    return row


_DUMMY_HASH = hash_token("no-such-author.x")


@dataclass(frozen=True)
class Submitted:
    version: str  # BOT@N
    sha256: str
    new: bool  # False: a version of this bot had these files and command already


def submit(
    db_path: Path,
    ladder_name: str | None,
    *,
    token: Credential,
    bot: str,
    source: Path,
    command: str,
) -> Submitted:
    """A new version of `bot` from `source` (a folder or an archive), `checking`
    until the gate has run it; an identical upload says so and adds nothing."""
    bot = nfc(bot)
    problem = bot_name_problem(bot)
    if problem:
        raise ConfigError(f"the bot's name {problem}")
    if not command.strip() or command.startswith(("builtin:", "grpc:")):
        raise ConfigError(
            "--command must be the command that starts the bot from its folder's root, "
            "as `python bot.py` or `node bot.js`"
        )
    with writing(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        author = authenticated(db, ladder, token)
        if ladder.frozen:
            raise ConfigError(f"ladder {ladder.config.name!r} is frozen: it takes no submission")
        owner = bot_row(db, ladder.id, bot)
        if owner is not None and owner["author_id"] != author["id"]:
            raise ConfigError(
                f"the bot name {bot!r} belongs to another author: a bot name is its first "
                "author's; submit under another name"
            )
        stored = store_upload(source, ladder.store, ladder.config.uploads)
        problem = bot_spec_problem(command, stored.folder)
        if problem:
            raise ConfigError(f"--command: {problem}")
        start_mu = _start_mu(db, ladder, bot)
        _, number, new = add_version(
            db,
            ladder_id=ladder.id,
            league_id=ladder.league_id,
            bot=bot,
            author_id=author["id"],
            sha256=stored.sha256,
            command=command,
            folder=str(stored.folder),
            state=State.CHECKING,
            start_mu=start_mu,
            reason="waiting for the gate",
        )
    return Submitted(f"{bot}@{number}", stored.sha256, new)


def _start_mu(db: sqlite_utils.Database, ladder: Ladder, bot: str) -> float:
    """Where a new version's rating starts: its bot's active version's mu (else the
    latest rated version's), sigma reset to the prior; the prior's mu for a first."""
    versions = version_rows(db, ladder.id, bot=bot)
    active = [v for v in versions if v["state"] == State.ACTIVE and v["mu"] is not None]
    rated = active or [v for v in versions if v["mu"] is not None]
    return rated[-1]["mu"] if rated else ladder.config.ratings.mu


def version_named(
    db: sqlite_utils.Database, ladder: Ladder, spec: str, author: dict[str, Any]
) -> list[dict[str, Any]]:
    """The versions `spec` names (`BOT@N`, or `BOT` for every one of them) among the
    author's; TokenRefused when they are another author's (said as for a wrong token,
    so no author learns another's bots), ConfigError when there is none."""
    bot, _, number = spec.partition("@")
    rows = version_rows(db, ladder.id, bot=nfc(bot))
    if not rows:
        raise ConfigError(f"no bot named {bot!r} in ladder {ladder.config.name!r}")
    if any(r["house"] for r in rows) or rows[0]["author"] != author["name"]:
        raise TokenRefused(REFUSED_TOKEN)
    if number:
        rows = [r for r in rows if str(r["number"]) == number]
        if not rows:
            raise ConfigError(f"bot {bot!r} has no version {number}")
    return rows


def promote(db_path: Path, ladder_name: str | None, *, token: Credential, spec: str) -> str:
    """The author's lever: a candidate (or a retired version) becomes its bot's active
    version; the one active before is retired."""
    with writing(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        author = authenticated(db, ladder, token)
        if "@" not in spec:
            raise ConfigError("promote names one version: BOT@N")
        (version,) = version_named(db, ladder, spec, author)
        if ladder.frozen:
            raise ConfigError(f"ladder {ladder.config.name!r} is frozen: no promotion now")
        if version["state"] not in (State.CANDIDATE, State.RETIRED):
            raise ConfigError(
                f"{version['entrant']} is {version['state']}: only a candidate or a retired "
                "version can be promoted"
            )
        retired = version_rows(db, ladder.id, bot=version["bot"], states=(State.ACTIVE,))
        changes = [(version["id"], State.ACTIVE, "promoted by its author")]
        changes += [(o["id"], State.RETIRED, f"{version['entrant']} was promoted") for o in retired]
        set_states(db, changes)
    said = f"{version['entrant']} is active"
    return said + (f"; {', '.join(o['entrant'] for o in retired)} retired" if retired else "")


def withdraw(db_path: Path, ladder_name: str | None, *, token: Credential, spec: str) -> str:
    """The author's lever: a version (or every version of a bot) stops playing; its
    games and history stay."""
    with writing(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        author = authenticated(db, ladder, token)
        versions = version_named(db, ladder, spec, author)
        left = [v for v in versions if v["state"] not in (State.WITHDRAWN, State.REFUSED)]
        if not left:
            return f"{spec}: nothing to withdraw"
        set_states(db, [(v["id"], State.WITHDRAWN, "withdrawn by its author") for v in left])
    return "withdrawn: " + ", ".join(v["entrant"] for v in left)


def freeze(db_path: Path, ladder_name: str | None) -> str:
    with writing(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        if not freeze_ladder(db, ladder.id):
            return f"ladder {ladder.config.name!r} was frozen already"
    return (
        f"ladder {ladder.config.name!r} is frozen: no submission or promotion from now on; "
        "its matches go on (`arena ladder finals` plays the final)"
    )


def request_test(
    db_path: Path,
    ladder_name: str | None,
    *,
    token: Credential,
    spec: str,
    opponents: list[str],
    now: float | None = None,
) -> str:
    """The author's unrated test match (docs/ladder.md, "Test matches"): their version
    `spec` (BOT@N: active, candidate or retired, one the gate passed) against the
    `opponents` they pick (seats - 1 versions, BOT@N, each active or a candidate:
    house bots, other authors' versions, their own other versions), queued for `arena
    ladder run`, which plays it as one seat-rotated match and stores it apart from the
    rated matches. Refused (ConfigError, nothing written) past `[tests] per_hour`
    requests in the hour before `now`; another author's bot is refused as a wrong token
    is. Allowed while the ladder is frozen: a test match changes nothing rated."""
    now = time.time() if now is None else now
    with writing(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        author = authenticated(db, ladder, token)
        if "@" not in spec:
            raise ConfigError("a test match names one version of yours: BOT@N")
        (version,) = version_named(db, ladder, spec, author)
        entrant = version["entrant"]
        if version["state"] not in TESTABLE:
            raise ConfigError(
                f"{entrant} is {version['state']}: a test match plays a version the gate "
                "passed that is active, a candidate or retired"
            )
        names = _opponents(db, ladder, entrant, opponents)
        limit = ladder.config.tests.per_hour
        if limit == 0:
            raise ConfigError(
                f"ladder {ladder.config.name!r} takes no test matches ([tests] per_hour = 0)"
            )
        test_id = queue_test_match(
            db,
            ladder_id=ladder.id,
            author_id=author["id"],
            entrant=entrant,
            opponents=names,
            seed_prefix=f"{ladder.config.seed}/test/",
            per_hour=limit,
            now=now,
        )
        if test_id is None:
            asked = ladder_reads.test_requests_since(
                db, ladder.id, author["id"], now - REQUEST_WINDOW
            )
            wait = max(1, math.ceil(((asked[0] if asked else now) + REQUEST_WINDOW - now) / 60))
            raise ConfigError(
                f"you asked for {len(asked)} test matches in the last hour, as many as "
                f"ladder {ladder.config.name!r} allows ([tests] per_hour = {limit}): nothing "
                f"was queued; ask again in {wait} minute{'s' if wait != 1 else ''}"
            )
    return f"test match {test_id} queued: {entrant} against {', '.join(names)}"


def _opponents(
    db: sqlite_utils.Database, ladder: Ladder, entrant: str, opponents: list[str]
) -> list[str]:
    """The opponents of a test match, checked: seats - 1 different versions (BOT@N),
    each active or a candidate now, none the version tested."""
    seats = ladder.config.engine.seats
    names = [nfc(o.strip()) for o in opponents]
    if len(names) != seats - 1:
        raise ConfigError(
            f"a {ladder.config.game} table has {seats} seats: name {seats - 1} opponents "
            f"(BOT@N), not {len(names)}"
        )
    versions = {v["entrant"]: v for v in version_rows(db, ladder.id)}
    for name in names:
        if name == entrant:
            raise ConfigError(f"{entrant} cannot be its own opponent: name other versions")
        if names.count(name) > 1:
            raise ConfigError(f"{name} is named twice: a version sits at one seat of a table")
        row = versions.get(name)
        if row is None:
            active = [
                v["entrant"]
                for v in versions.values()
                if v["bot"] == name.partition("@")[0] and v["state"] == State.ACTIVE
            ]
            hint = f" (its active version is {active[0]})" if active else ""
            raise ConfigError(
                f"no version {name!r} in ladder {ladder.config.name!r}{hint}: an opponent "
                "is a version, BOT@N, that plays now (`arena ladder versions` lists them)"
            )
        if row["state"] not in PLAYING:
            raise ConfigError(
                f"{name} is {row['state']}: an opponent is a version that plays now "
                "(active or a candidate)"
            )
    return names


def my_test_matches(
    db_path: Path, ladder_name: str | None, *, token: str | None
) -> list[dict[str, Any]]:
    """The test matches of the author whose token this is, newest first
    (`ladder_reads.test_match_rows`); nobody else's."""
    with reading(db_path) as db:
        ladder = open_ladder(db, ladder_name)
        author = authenticated(db, ladder, token)
        return ladder_reads.test_match_rows(db, ladder.id, author["id"])
