"""The package's layout is its architecture (docs/architecture.md): every top-level
module and folder of arena/ belongs to one layer, and no module imports a layer above
its own. And the league's SQL lives in one place, arena/league/store/."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "arena"

LAYERS: list[tuple[str, ...]] = [
    ("errors",),  # one root error and its narrow children
    ("interrupts",),  # Ctrl-C and SIGTERM remembered for the long loops' safe points
    ("cards",),  # cards as ints, sets of cards as masks, the deal shuffle
    ("games",),  # pure rules engines
    ("wire",),  # the protocol: generated code, codec, messages, gRPC runtime, event loops
    ("sdk",),  # writing a bot in Python
    ("strategies",),  # bots written with the SDK that the arena uses as opponents
    ("play",),  # the referee, matches, replays
    ("bots",),  # bot specs, built-ins, processes, the sandbox, the gRPC player
    ("league",),  # league files, schedules, storage, ratings, the runner
    ("duel",),  # `arena duel`: two bots on the same deals, read by the sequential test
    ("ladder",),  # a continuous ladder: submissions, versions, the gate, matchmaking
    ("web",),  # the league's web site: `arena serve` and `arena report`
    ("bench",),  # benchmarks
    ("cli",),  # the `arena` command
]
LAYER_OF = {name: level for level, names in enumerate(LAYERS) for name in names}
GENERATED = PACKAGE / "wire" / "v1"

LEAGUE_PARTS = [
    "definition",  # the league file, the schedule, the records, the demo league
    "store",  # the SQLite database: the only SQL
    "standings",  # ratings, margins, separation, the crosstable
    "workers",  # what plays a match: tasks, worker processes, executors, archives
    "running",  # the run loop and its match sources, pre-flight, result check, lock
    "reports",  # what the read-only commands print
]
"""The league layer's own floors, bottom to top: each uses only those below it."""


def _modules() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if GENERATED not in p.parents]


def _part(path: Path) -> str:
    """The top-level module or folder of arena/ that `path` lies in."""
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def _imported(path: Path) -> set[str]:
    """The arena modules `path` imports, anywhere in it (imports inside functions
    count: a lazy import is an import)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            if node.module == "arena":  # `from arena import cards`; not `__version__`
                names |= {f"arena.{a.name}" for a in node.names if a.name in LAYER_OF}
            if node.module == "arena.league":  # `from arena.league import store`
                names |= {f"arena.league.{a.name}" for a in node.names}
    return {n for n in names if n.startswith("arena.")}


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {_part(p) for p in _modules() if p.parent != PACKAGE or p.name != "__init__.py"}
    assert parts - set(LAYER_OF) == set(), "place it in a layer here and in architecture.md"
    assert set(LAYER_OF) - parts == set()


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = []
    for path in _modules():
        if path == PACKAGE / "__init__.py":
            continue  # the package's face: it only picks gRPC's I/O path before grpc loads
        own = LAYER_OF[_part(path)]
        for name in _imported(path):
            target = name.split(".")[1]
            if LAYER_OF[target] > own:
                upward.append(f"{path.relative_to(PACKAGE.parent)} imports {name}")
    assert upward == [], "\n".join(sorted(upward))


def test_no_league_module_imports_a_part_of_the_league_above_its_own() -> None:
    league = PACKAGE / "league"
    parts = {p.name for p in league.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert parts == set(LEAGUE_PARTS), "place the folder in LEAGUE_PARTS and architecture.md"
    assert [p.name for p in league.glob("*.py")] == ["__init__.py"]
    upward = []
    for path in league.rglob("*.py"):
        if path.parent == league:
            continue
        own = LEAGUE_PARTS.index(path.relative_to(league).parts[0])
        for name in _imported(path):
            if name.startswith("arena.league.") and name.count(".") >= 2:
                target = name.split(".")[2]
                if target in LEAGUE_PARTS and LEAGUE_PARTS.index(target) > own:
                    upward.append(f"{path.relative_to(PACKAGE.parent)} imports {name}")
    assert upward == [], "\n".join(sorted(upward))


def test_the_layers_are_those_docs_architecture_describes() -> None:
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text()
    shown = re.findall(r"^\d+\. \*\*`arena/(\w+)`", text, re.M)
    assert shown == [name for names in LAYERS for name in names]


SQL = re.compile(
    r"\.(query|execute|executescript|executemany|rows_where)\("
    r"|\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b|\bdb\[\"|\bsqlite3\.connect"
)


def test_every_sql_statement_lives_in_the_storage_module() -> None:
    store = PACKAGE / "league" / "store"
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}"
        for path in _modules()
        if store not in path.parents
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if SQL.search(line)
    ]
    assert found == [], "\n".join(found)


MODULE_HEADING = re.compile(r"^### `arena/(.*?)/?`$")
MODULE_ENTRY = re.compile(r"`([\w.]+(?:\.py|/))`")


def _described() -> dict[str, set[str]]:
    """docs/architecture.md's "Every module": folder (relative to arena/, "" for the
    package itself) -> the modules and sub-folders listed under its heading."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text()
    section = text.split("## Every module", 1)[1].split("\n## ", 1)[0]
    listed: dict[str, set[str]] = {}
    folder = None
    for line in section.splitlines():
        heading = MODULE_HEADING.match(line)
        if heading:
            folder = heading.group(1)
            listed[folder] = set()
        elif folder is not None and line.startswith(("- ", "  ")):
            entries = line.split(":", 1)[0] if line.startswith("- ") else ""
            listed[folder] |= set(MODULE_ENTRY.findall(entries))
    return listed


def _actual() -> dict[str, set[str]]:
    """Every folder of arena/ that holds Python modules -> its modules and sub-folders."""
    out: dict[str, set[str]] = {}
    for folder in [PACKAGE, *sorted(p for p in PACKAGE.rglob("*") if p.is_dir())]:
        if folder == GENERATED or "__pycache__" in folder.parts:
            continue
        if not (folder / "__init__.py").exists() and folder != PACKAGE:
            continue
        names = {p.name for p in folder.glob("*.py") if p.name != "__init__.py"}
        names |= {
            f"{p.name}/"
            for p in folder.iterdir()
            if p.is_dir() and p.name != "__pycache__" and any(p.iterdir())
        }
        rel = folder.relative_to(PACKAGE).as_posix()
        out["" if rel == "." else rel] = names
    return out


def test_docs_architecture_describes_every_module_and_folder() -> None:
    described, actual = _described(), _actual()
    missing = {
        f"arena/{folder}/{name}".replace("//", "/")
        for folder, names in actual.items()
        for name in names - described.get(folder, set())
    }
    gone = {
        f"arena/{folder}/{name}".replace("//", "/")
        for folder, names in described.items()
        for name in names - actual.get(folder, set())
    }
    assert missing == set(), "describe them in docs/architecture.md's 'Every module'"
    assert gone == set(), "docs/architecture.md lists modules that are not there"


MOST_MODULES = 12  # a folder that holds more has more than one job: split it


def test_no_folder_holds_more_than_a_dozen_modules() -> None:
    crowded = {
        folder: len([n for n in names if n.endswith(".py") and n != "__main__.py"])
        for folder, names in _actual().items()
    }
    assert {f: n for f, n in crowded.items() if n > MOST_MODULES} == {}
