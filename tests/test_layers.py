"""The package's import rules, read from the source with ``ast`` (nothing is imported):

- the layers, low to high, are ``core → formats → eval → search → play → apps``; a module
  imports only from its own layer and those below it (``heuri/__init__.py`` and
  ``__main__.py``, the package's front, may import from any);
- no import cycle between modules;
- no underscore name taken from another module (``from .movegen import _walk``, or
  ``mg._walk`` on an imported module): what a module shares it names publicly.

docs/architecture.md explains the layers.
"""
from __future__ import annotations

import ast
import graphlib
import importlib
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "runtime" / "heuri"
LAYERS = ("core", "formats", "eval", "search", "play", "apps")


def module_name(path: Path) -> str:
    parts = ("heuri",) + path.relative_to(PKG).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def layer(mod: str) -> int:
    """A module's layer: its index in LAYERS; the package's front is above them all."""
    parts = mod.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else len(LAYERS)


def resolve(mod: str, node: ast.ImportFrom) -> str:
    """The absolute name of what ``node`` (in module ``mod``) imports from."""
    if not node.level:
        return node.module or ""
    is_pkg = MODULES[mod].name == "__init__.py"
    base = mod.split(".")
    base = base[: len(base) - node.level + (1 if is_pkg else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(mod: str):
    """(imported heuri module, names taken from it, line) for each import in ``mod``, and
    the underscore attributes read from modules bound by an import."""
    tree = ast.parse(MODULES[mod].read_text(encoding="utf-8"))
    found, bound = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "heuri":
                    found.append((a.name, [], node.lineno))
                    if a.asname:
                        bound[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom):
            src = resolve(mod, node)
            if src.split(".")[0] != "heuri":
                continue
            names = []
            for a in node.names:
                sub = f"{src}.{a.name}"
                if sub in MODULES:  # ``from ..core import movegen``: the module itself
                    found.append((sub, [], node.lineno))
                    bound[a.asname or a.name] = sub
                else:
                    names.append(a.name)
            if names:
                found.append((src, names, node.lineno))
    private_attrs = [(bound[n.value.id], n.attr, n.lineno) for n in ast.walk(tree)
                     if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in bound
                     and is_private(n.attr)]
    return found, private_attrs


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


EDGES = {m: imports(m) for m in MODULES}


def test_every_module_is_in_a_layer():
    loose = [m for m in MODULES if layer(m) == len(LAYERS) and m not in ("heuri", "heuri.__main__")]
    assert loose == []


def test_no_import_from_a_higher_layer():
    bad = [f"{m}:{line} imports {src} ({LAYERS[layer(m)]} < {'front' if layer(src) == len(LAYERS) else LAYERS[layer(src)]})"
           for m, (found, _) in EDGES.items() for src, _, line in found
           if layer(m) < len(LAYERS) and layer(src) > layer(m)]
    assert bad == []


def test_no_import_cycle():
    graph = graphlib.TopologicalSorter()
    for m, (found, _) in EDGES.items():
        graph.add(m, *{src for src, _, _ in found if src in MODULES and src != m})
    try:
        graph.prepare()
    except graphlib.CycleError as e:
        pytest.fail(f"import cycle: {' -> '.join(e.args[1])}")


def test_no_private_name_from_another_module():
    bad = [f"{m}:{line} takes {src}.{n}" for m, (found, attrs) in EDGES.items()
           for src, names, line in found for n in names if is_private(n) and src != m]
    bad += [f"{m}:{line} reads {src}.{n}" for m, (_, attrs) in EDGES.items() for src, n, line in attrs if src != m]
    assert bad == []


def test_the_checker_sees_what_it_checks():
    """The rules above are not vacuous: the reader finds the imports they are about."""
    found, _ = EDGES["heuri.eval.bingo"]
    assert ("heuri.core.movegen", ["cross_checks_kernel", "popcount"]) in [(s, n) for s, n, _ in found]
    # ``from ..core import movegen`` inside a function binds the module: its attributes are read
    assert ("heuri.core.movegen", []) in [(s, n) for s, n, _ in found]
    assert layer("heuri.core.movegen") < layer("heuri.eval.bingo") < layer("heuri.apps.cli")
    fake = ast.parse("from ..core.movegen import _walk").body[0]
    assert resolve("heuri.search.endgame_kernels", fake) == "heuri.core.movegen"
    assert resolve("heuri.apps.web", ast.parse("from ...core import errors").body[0]) == "heuri.core"
    assert is_private("_walk") and not is_private("__version__") and not is_private("walk_placements")


@pytest.mark.parametrize("old, new", [("heuri.evaluate", "heuri.eval.evaluate"), ("heuri.game", "heuri.core.game"),
                                      ("heuri.web.service", "heuri.apps.web.service")])
def test_old_module_names_are_the_moved_modules(old, new):
    assert importlib.import_module(old) is importlib.import_module(new)


def test_every_alias_names_a_module():
    import heuri

    for old, new in heuri.MODULE_ALIASES.items():
        assert new in MODULES, (old, new)
        assert old not in MODULES, f"{old} is both a file and an alias"
