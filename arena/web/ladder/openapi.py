"""The OpenAPI 3.1 document of the ladder's JSON API (`/api/v1/openapi.json`): every
route of arena/web/ladder/api.py, its query parameters and the shape of what it
answers. Objects admit no field they do not list, so a test that validates every
response against this document also fails when a response grows a field the document
does not describe."""

from __future__ import annotations

import re
from typing import Any

from arena.ladder.book import STATES
from arena.web.ladder.params import LIMIT_DEFAULT, LIMIT_MAX, NAME_MAX

INT: dict[str, Any] = {"type": "integer"}
NUM: dict[str, Any] = {"type": "number"}
STR: dict[str, Any] = {"type": "string"}
BOOL: dict[str, Any] = {"type": "boolean"}
TIME: dict[str, Any] = {"type": ["string", "null"], "format": "date-time"}


def _null(schema: dict[str, Any]) -> dict[str, Any]:
    return {**schema, "type": [schema["type"], "null"]}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def _list(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": schema}


def _object(props: dict[str, Any], description: str = "") -> dict[str, Any]:
    out = {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }
    return {**out, "description": description} if description else out


def _page(item: str) -> dict[str, Any]:
    return _object(
        {
            "items": _list(_ref(item)),
            "next_cursor": {
                "type": ["string", "null"],
                "description": "give it as `cursor` for the next page; null on the last",
            },
        },
        f"a page of {item} items, newest or best first",
    )


VERSION = {
    "bot": STR,
    "version": {**INT, "description": "N of BOT@N, from 1"},
    "entrant": {**STR, "description": "BOT@N: the version's name in games and tables"},
    "author": {**STR, "description": "its author's name; `house` for the organiser's bots"},
    "house": BOOL,
    "state": {"type": "string", "enum": list(STATES)},
    "reason": {**STR, "description": "why it is in its state"},
    "sha256": {**STR, "description": "of its files' canonical archive (a house bot: of its spec)"},
    "command": {**STR, "description": "the command that starts it, without folders"},
    "games": INT,
    "faults": {**INT, "description": "faults charged to it"},
    "mu": _null(NUM),
    "sigma": _null(NUM),
    "start_mu": _null(NUM),
    "created_at": TIME,
    "changed_at": TIME,
}
BOT = {
    "bot": STR,
    "author": STR,
    "house": BOOL,
    "versions": INT,
    "active": {**_null(INT), "description": "its active version's N, null when none is"},
    "states": {
        "type": "object",
        "additionalProperties": INT,
        "description": "how many of its versions are in each state",
    },
}
OPPONENT = _object(
    {
        "opponent": {**STR, "description": "BOT@N"},
        "matches": INT,
        "margin": {**_null(NUM), "description": "points a game over the opponent"},
        "low": {**_null(NUM), "description": "the margin's 95% interval (null below 2 matches)"},
        "high": _null(NUM),
        "separated": {**BOOL, "description": "whether the interval is clear of zero"},
    }
)
PROMOTION = _object(
    {
        "candidate": STR,
        "active": {**STR, "description": "the version the candidate would replace"},
        "decision": {"type": "string", "enum": ["accept", "reject", "continue", "undecided"]},
        "state": {**STR, "description": "the candidate's state now (candidate, active, ...)"},
        "running": {
            **BOOL,
            "description": "whether the test goes on: the version is still a candidate and "
            "undecided (a candidate promoted or withdrawn meanwhile stops its test)",
        },
        "pairs": INT,
        "games": {**INT, "description": "the candidate's games counted against max_games"},
        "max_games": INT,
        "delta": {**NUM, "description": "points a game the candidate must be better by"},
        "mean": {**_null(NUM), "description": "mean paired difference, points a game"},
        "low": _null(NUM),
        "high": _null(NUM),
        "llr": {**_null(NUM), "description": "the log-likelihood ratio"},
        "lower": {**_null(NUM), "description": "retired at or below"},
        "upper": {**_null(NUM), "description": "promoted at or above"},
        "evidence": _list(
            _object(
                {
                    "matches": {**_list(INT), "minItems": 2, "maxItems": 2},
                    "difference": NUM,
                }
            )
        ),
    },
    "a promotion test as it stands (docs/ladder.md, 'Promotion on evidence')",
)
GATE = _object(
    {
        "passed": BOOL,
        "tries": INT,
        "timed_out": BOOL,
        "steps": _list(_object({"name": STR, "passed": BOOL})),
        "text": {**STR, "description": "the whole report, its paths without folders"},
    }
)

SCHEMAS: dict[str, Any] = {
    "Error": _object({"error": STR}),
    "Ladder": _object(
        {
            "name": STR,
            "game": STR,
            "frozen": BOOL,
            "matches_stored": INT,
            "in_flight": INT,
            "promotion": _object(
                {"delta": NUM, "alpha": NUM, "beta": NUM, "max_games": INT, "mode": STR}
            ),
        }
    ),
    "TableRow": _object(
        {
            "place": INT,
            "place_range": {**_list(INT), "minItems": 2, "maxItems": 2},
            "bot": STR,
            "version": INT,
            "entrant": STR,
            "author": STR,
            "rating": {**NUM, "description": "mu - 3 sigma"},
            "mu": NUM,
            "sigma": NUM,
            "games": INT,
            "margin": _null(NUM),
            "margin_low": _null(NUM),
            "margin_high": _null(NUM),
            "faults": INT,
        },
        "a row of `arena ladder table --format json`",
    ),
    "Bot": _object(BOT),
    "BotDetail": _object(
        {
            **BOT,
            "version_list": _list(_ref("Version")),
            "promotion_tests": _list(_ref("PromotionTest")),
            "current": {**_null(STR), "description": "the version whose opponents are shown"},
            "opponents": _list(_ref("Opponent")),
        }
    ),
    "Version": _object(VERSION, "a version as `arena ladder versions --format json` gives it"),
    "VersionDetail": _object(
        {
            **VERSION,
            "gate": {"oneOf": [_ref("GateReport"), {"type": "null"}]},
            "events": _list(
                _object(
                    {"at": TIME, "state": {"type": "string", "enum": list(STATES)}, "reason": STR}
                )  # fmt: skip
            ),
            "ratings": _list(_object({"match": INT, "mu": NUM, "sigma": NUM})),
            "promotion_test": {"oneOf": [_ref("PromotionTest"), {"type": "null"}]},
            "opponents": _list(_ref("Opponent")),
        }
    ),
    "GateReport": GATE,
    "PromotionTest": PROMOTION,
    "Opponent": OPPONENT,
    "Match": _object(
        {
            "match": {**INT, "description": "the match's index, from 0"},
            "state": {"type": "string", "enum": ["queued", "stored", "dropped"]},
            "reason": {**_null(STR), "description": "why the matchmaker chose it"},
            "focus": _null(STR),
            "pair": {**_null(INT), "description": "the other table of its promotion pair"},
            "entrants": _list(STR),
            "chosen_at": TIME,
            "finished_at": TIME,
            "seconds": _null(NUM),
            "games": {**_list(INT), "description": "its stored games' ids, by rotation"},
        }
    ),
    "Queue": _object(
        {
            "in_flight": _list(_object({"match": INT, "entrants": _list(STR), "started_at": TIME})),
            "waiting": _list(
                _object(
                    {
                        "match": INT,
                        "reason": _null(STR),
                        "entrants": _list(STR),
                        "pair": _null(INT),
                        "chosen_at": TIME,
                    }
                )
            ),
        }
    ),
    "Game": _object(
        {
            "id": INT,
            "match": INT,
            "rotation": {**INT, "description": "from 0"},
            "players": _list(STR),
            "totals": _list(INT),
            "ranks": _list(INT),
            "finished_at": TIME,
        }
    ),
    "Replay": {
        "type": "object",
        "description": "a stored game's replay, as `arena replay` reads it (docs/replays.md)",
        "properties": {
            "format": {"const": "arena-replay/1"},
            "game": STR,
            "players": _list(STR),
            "deals": {"type": "array"},
        },
        "required": ["format", "game", "players", "deals"],
    },
    "Fault": _object(
        {
            "id": INT,
            "entrant": STR,
            "kind": STR,
            "game_id": INT,
            "match": INT,
            "rotation": INT,
            "seat": _null(INT),
            "deal": _null(INT),
            "decision": _null(INT),
            "event": {**_null(INT), "description": "the replay event the viewer opens at"},
            "expected": _null(STR),
            "got": _null(STR),
            "detail": STR,
            "log": {**_null(STR), "description": "the bot's log, by its file name"},
        }
    ),
}
for _name in ("TableRow", "Bot", "Version", "Match", "Game", "Fault"):
    SCHEMAS[f"{_name}Page"] = _page(_name)


def _query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema,
            "description": description}  # fmt: skip


def _path(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": schema,
            "description": description}  # fmt: skip


NAME = {"type": "string", "minLength": 1, "maxLength": NAME_MAX}
PARAMETERS = {
    "cursor": _query(
        "cursor",
        {"type": "string", "pattern": "^[0-9]{1,18}$"},
        "the next_cursor of the page before; leave it out for the first page",
    ),
    "limit": _query(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": LIMIT_MAX, "default": LIMIT_DEFAULT},
        f"items a page, at most {LIMIT_MAX}",
    ),
    "bot": _query("bot", NAME, "only those of this bot's versions"),
    "version": _query("version", NAME, "only those of this version (BOT@N)"),
    "opponent": _query("opponent", NAME, "only those this bot (NAME) or version (NAME@N) played"),
    "since": _query("since", STR, "only from this time on: Unix seconds or ISO 8601 (UTC)"),
    "until": _query("until", STR, "only up to this time: Unix seconds or ISO 8601 (UTC)"),
    "state": _query("state", {"type": "string", "enum": list(STATES)}, "only in this state"),
}
PATH_PARAMETERS = {
    "name": _path("name", NAME, "the bot's name, percent-encoded ('/' as %2F)"),
    "number": _path("number", {"type": "integer", "minimum": 0}, "the version's N"),
    "game_id": _path("game_id", {"type": "integer", "minimum": 0}, "the game's id"),
}

OPERATIONS: dict[str, tuple[str, str]] = {
    # path (Starlette's, under /api/v1): (answer's schema, summary)
    "/ladder": ("Ladder", "the ladder: game, frozen, matches stored and in flight"),
    "/table": ("TableRowPage", "the table: each bot's active version and the house bots"),
    "/bots": ("BotPage", "every bot, in the order first submitted"),
    "/bots/{name:name}": ("BotDetail", "a bot: versions, promotion tests, margins"),
    "/versions": ("VersionPage", "every version, oldest first"),
    "/versions/{name:name}/{number:id}": ("VersionDetail", "a version with its gate report"),
    "/matches": ("MatchPage", "the ladder's matches, newest first"),
    "/queue": ("Queue", "the matches in flight and those waiting"),
    "/games": ("GamePage", "the ladder's stored games, newest first"),
    "/games/{game_id:id}": ("Replay", "a stored game's replay (arena-replay/1)"),
    "/faults": ("FaultPage", "the ladder's faults, newest first"),
}


def openapi_path(path: str) -> str:
    """A Starlette route path as OpenAPI writes it (`{name:name}` -> `{name}`)."""
    return re.sub(r"\{(\w+):\w+\}", r"{\1}", path)


def _answer(description: str, schema: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(schema)}}}


SCHEMAS["Submitted"] = _object(
    {
        "version": {**STR, "description": "BOT@N: the new version, or the identical one held"},
        "sha256": {**STR, "description": "the SHA-256 naming the stored files"},
        "new": {
            **BOOL,
            "description": "false when a version of the bot had these files and "
            "command already (nothing was added)",
        },
        "message": {**STR, "description": "what `arena ladder submit` would print"},
    },
    "a submission, stored and waiting for the gate",
)
SCHEMAS["Changed"] = _object(
    {"version": {**STR, "description": "BOT@N"}, "message": {**STR, "description": "what changed"}},
    "what a promotion or a withdrawal changed",
)
SCHEMAS["TestMatch"] = _object(
    {
        "id": INT,
        "version": {**STR, "description": "your version, BOT@N"},
        "opponents": _list(STR),
        "state": {"type": "string", "enum": ["queued", "playing", "stored", "dropped"]},
        "reason": {**STR, "description": "why it was dropped, if it was"},
        "requested_at": TIME,
        "finished_at": TIME,
        "games": _list(_object({"id": INT, "rotation": INT,
                                "seat": {**INT, "description": "your version's seat"}})),
    },
    "one of your test matches: unrated, stored apart from the ladder's games",
)  # fmt: skip
SCHEMAS["TestMatchPage"] = _page("TestMatch")
SCHEMAS["TestQueued"] = _object({"id": INT, "message": STR}, "a test match queued")
BEARER = [{"author_token": []}]
_REFUSALS = {
    "400": ("what the ladder refused, saying why (as `arena ladder` says it)", "Error"),
    "401": ("no token, or one that is not an author's of this ladder (or not this bot's "
            "author's): `WWW-Authenticate: Bearer`", "Error"),
    "429": ("too many attempts with a wrong token from this address or for this author: "
            "`Retry-After` says when to try again", "Error"),
}  # fmt: skip


def _write(operation: str, summary: str, answers: dict[str, tuple[str, str]]) -> dict[str, Any]:
    responses = {code: _answer(text, schema) for code, (text, schema) in answers.items()}
    responses.update({code: _answer(text, schema) for code, (text, schema) in _REFUSALS.items()})
    return {"operationId": operation, "summary": summary, "security": BEARER,
            "responses": responses}  # fmt: skip


def write_paths(prefix: str) -> dict[str, Any]:
    """The write side: a submission, and an author's levers on one of their versions."""
    submission = _write(
        "submit",
        "submit a new version of one of your bots (as `arena ladder submit`)",
        {
            "201": ("a new version, waiting for the gate", "Submitted"),
            "200": ("identical to a version held: nothing was added", "Submitted"),
            "413": ("the upload is larger than the ladder's [gate] max_mb", "Error"),
        },
    )
    fields = {
        "bot": {**STR, "description": "the bot's name (yours once you first use it)"},
        "command": {**STR, "description": "what starts the bot from the archive's root, as "
                    "`python bot.py`"},
        "archive": {"type": "string", "contentMediaType": "application/octet-stream",
                    "description": "a .tar.gz, .tgz, .tar or .zip of the bot's folder"},
        "ladder": {**STR, "description": "the ladder's name (only checked: this site serves one)"},
    }  # fmt: skip
    submission["requestBody"] = {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": fields,
                    "required": ["bot", "command", "archive"],
                }  # fmt: skip
            }
        },
    }
    version = [PATH_PARAMETERS["name"], PATH_PARAMETERS["number"]]
    lever = {"200": ("done", "Changed")}
    promote = _write("promote", "make one of your versions its bot's active one", lever)
    withdraw = _write("withdraw", "take one of your versions off the ladder", lever)
    test = _write(
        "request_test",
        "ask for an unrated test match of your version against opponents you pick",
        {"201": ("queued: `arena ladder run` plays it before new rated tables", "TestQueued"),
         "413": ("more than 16 KiB of JSON", "Error")},  # fmt: skip
    )
    test["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": {
            "type": "object", "required": ["version", "opponents"],
            "properties": {"version": {**STR, "description": "your version, BOT@N"},
                           "opponents": {**_list(STR), "description": "seats - 1 versions"}},
        }}},
    }  # fmt: skip
    tests = _write("list_tests", "your own test matches, newest first",
                   {"200": ("a page of them", "TestMatchPage")})  # fmt: skip
    tests["parameters"] = [PARAMETERS["cursor"], PARAMETERS["limit"]]
    return {
        f"{prefix}/test-matches": {"post": test, "get": tests},
        f"{prefix}/submissions": {"post": submission},
        f"{prefix}/versions/{{name}}/{{number}}/promote": {"post": {**promote,
                                                                    "parameters": version}},
        f"{prefix}/versions/{{name}}/{{number}}/withdraw": {"post": {**withdraw,
                                                                     "parameters": version}},
    }  # fmt: skip


def document(routes: Any, prefix: str) -> dict[str, Any]:
    """The document of `routes` (api.ROUTES) under `prefix`, and of the write side."""
    paths: dict[str, Any] = {}
    for route in routes:
        schema, summary = OPERATIONS[route.path]
        names = re.findall(r"\{(\w+):", route.path)
        responses = {
            "200": _answer(summary, schema),
            "400": _answer("a parameter refused, saying why", "Error"),
            "404": _answer("nothing at this address, saying what there is", "Error"),
        }
        paths[prefix + openapi_path(route.path)] = {
            "get": {
                "operationId": route.handler.__name__,
                "summary": summary,
                "parameters": [PATH_PARAMETERS[n] for n in names]
                + [PARAMETERS[p] for p in route.params],
                "responses": responses,
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Trix Arena ladder",
            "version": "1",
            "description": "A ladder's JSON API (`arena ladder serve`, docs/ladder.md): "
            "everything public to read; with `Authorization: Bearer TOKEN`, an author's "
            "submissions, promotions and withdrawals. Every list is a page of at most "
            "`limit` items with a `next_cursor`; an unknown or repeated parameter, or a "
            "value out of bounds, is a 400 saying why.",
        },
        "paths": {**paths, **write_paths(prefix)},
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {
                "author_token": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "the token `arena ladder author add` printed",
                }
            },
        },
    }
