"""The sampler is written on the SDK's public simulation API alone (issue 32, point 1):
that is the proof the API is enough for the arena's strongest bot. Read with ast, as
tests/test_layers.py reads layers: every import of the arena in arena/strategies/sampler/
is of `arena.sdk` or its submodules (lazy imports inside functions included), and
neither the sampler nor the SDK reaches for another module's private (underscore)
names, which would make a private name part of what a bot depends on."""

from __future__ import annotations

import ast
from pathlib import Path

ARENA = Path(__file__).resolve().parents[2] / "arena"
SAMPLER = ARENA / "strategies" / "sampler"
SDK = ARENA / "sdk"


def arena_imports(tree: ast.AST) -> list[str]:
    """Every arena module a module's tree imports, anywhere in it."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "arena":  # `from arena import games`
                names += [f"arena.{alias.name}" for alias in node.names]
            else:
                names.append(node.module)
    return [n for n in names if n == "arena" or n.startswith("arena.")]


def private_uses(tree: ast.AST) -> list[str]:
    """Underscore names taken from other modules: imported by name, or read as an
    attribute of a module the file imported (`trix._ROW_NEXT`)."""
    modules: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name.startswith("_") and alias.name != "__future__":
                    found.append(f"from {node.module} import {alias.name}")
                modules.add(alias.asname or alias.name)  # a module, maybe
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def _trees(folder: Path) -> dict[str, ast.AST]:
    return {
        str(p.relative_to(ARENA.parent)): ast.parse(p.read_text()) for p in folder.rglob("*.py")
    }


def _allowed(name: str) -> bool:
    """The SDK, and the sampler's own modules."""
    return any(
        name == p or name.startswith(p + ".") for p in ("arena.sdk", "arena.strategies.sampler")
    )


def test_the_sampler_imports_nothing_of_the_arena_but_the_sdk() -> None:
    trees = _trees(SAMPLER)
    assert len(trees) >= 5
    outside = {path: [n for n in arena_imports(t) if not _allowed(n)] for path, t in trees.items()}
    assert {p: n for p, n in outside.items() if n} == {}


def test_neither_the_sampler_nor_the_sdk_uses_another_modules_private_names() -> None:
    found = {p: private_uses(t) for p, t in {**_trees(SAMPLER), **_trees(SDK)}.items()}
    assert {p: n for p, n in found.items() if n} == {}


def test_the_checks_catch_what_the_sampler_used_to_do() -> None:
    """The attack: the sampler's old imports and private reads are caught."""
    old = ast.parse(
        "from arena.games import trianon, trix\n"
        "from arena.cards import SUIT_MASK\n"
        "def f():\n"
        "    from arena.play import referee\n"
        "    return trix._ROW_NEXT, trianon._SANS_SOUCI_KEY\n"
    )
    assert arena_imports(old) == ["arena.games", "arena.cards", "arena.play"]
    assert not any(_allowed(n) for n in arena_imports(old))
    assert private_uses(old) == ["trix._ROW_NEXT", "trianon._SANS_SOUCI_KEY"]
    new = ast.parse("from arena.sdk.fast import trix\nx = trix.ROW_NEXT\n")
    assert arena_imports(new) == ["arena.sdk.fast"] and private_uses(new) == []
