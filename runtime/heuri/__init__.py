"""heuri: a Scrabble engine using the Heuri probability heuristic (González Romero et al.).

Public API: :func:`load_pack`, :class:`LanguagePack`, :func:`load_spec`,
:class:`LanguageSpec`, the game core (:class:`Board`, :class:`Move`, :class:`Position`,
:class:`Game`, CGP and GCG) and the errors in :mod:`heuri.core.errors`.

The code lives in layer subpackages, each importing only from those below it:
:mod:`heuri.core` → :mod:`heuri.formats` → :mod:`heuri.eval` → :mod:`heuri.search` →
:mod:`heuri.play` → :mod:`heuri.apps` (docs/architecture.md). The flat module names of
earlier releases (``heuri.evaluate``, ``heuri.game``, ``python -m heuri.match``, ...) are
served by :data:`MODULE_ALIASES`: they name the same module objects as the new paths.
"""
import importlib
import importlib.abc
import importlib.util
import sys

from .core.version import __version__
from .eval.engines import DEFAULT_ENGINE

#: old flat module name → its module in the layer subpackages. ``import heuri.evaluate``
#: gives the module object of ``heuri.eval.evaluate`` itself (not a copy), so that its
#: classes pickle under their real names and patching either name patches the one module.
MODULE_ALIASES = {
    "heuri.errors": "heuri.core.errors",
    "heuri.tiletext": "heuri.core.tiletext",
    "heuri.spec": "heuri.core.spec",
    "heuri.pack": "heuri.core.pack",
    "heuri.board": "heuri.core.board",
    "heuri.move": "heuri.core.move",
    "heuri.movegen": "heuri.core.movegen",
    "heuri.game": "heuri.core.game",
    "heuri.cgp": "heuri.core.cgp",
    "heuri.bounds": "heuri.core.bounds",
    "heuri.outdir": "heuri.core.outdir",
    "heuri.gcg": "heuri.formats.gcg",
    "heuri.render": "heuri.formats.render",
    "heuri.probability": "heuri.eval.probability",
    "heuri.bingo": "heuri.eval.bingo",
    "heuri.leave_quality": "heuri.eval.leave_quality",
    "heuri.evaluate": "heuri.eval.evaluate",
    "heuri.endgame": "heuri.search.endgame",
    "heuri.endgame_core": "heuri.search.endgame_core",
    "heuri.endgame_kernels": "heuri.search.endgame_kernels",
    "heuri.peg": "heuri.search.peg",
    "heuri.players": "heuri.play.players",
    "heuri.match": "heuri.play.match",
    "heuri.siu": "heuri.play.siu",
    "heuri.siu_client": "heuri.play.siu_client",
    "heuri.analyze": "heuri.apps.analyze",
    "heuri.analyze_batch": "heuri.apps.analyze_batch",
    "heuri.report": "heuri.apps.report",
    "heuri.duplicate": "heuri.apps.duplicate",
    "heuri.arbitration": "heuri.apps.arbitration",
    "heuri.trainer": "heuri.apps.trainer",
    "heuri.cli": "heuri.apps.cli",
    "heuri.web": "heuri.apps.web",
    "heuri.web.app": "heuri.apps.web.app",
    "heuri.web.service": "heuri.apps.web.service",
}


class _AliasLoader(importlib.abc.Loader):
    """Loads an old module name as the module it moved to (the same object)."""

    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        return None  # a placeholder; exec_module puts the real module in its place

    def exec_module(self, module):
        # importlib reads sys.modules[name] back after exec_module, so the import
        # statement (and the parent package's attribute) get the real module
        sys.modules[module.__name__] = importlib.import_module(self.target)

    def get_code(self, fullname):
        # ``python -m heuri.match``: runpy runs this code as __main__; it runs the moved
        # module as __main__ under its own name, so that its relative imports resolve
        return compile(f"import runpy\nrunpy.run_module({self.target!r}, run_name='__main__', alter_sys=True)\n",
                       f"<heuri alias {fullname} -> {self.target}>", "exec")

    def is_package(self, fullname):
        return False


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Finds the names of :data:`MODULE_ALIASES` (and nothing else)."""

    def find_spec(self, fullname, path=None, target=None):
        new = MODULE_ALIASES.get(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(new))


if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _AliasFinder())

from .core.errors import HeuriError, PackError, SpecError, TileError, WordListError  # noqa: E402
from .core.pack import LanguagePack, load_pack  # noqa: E402
from .core.spec import LanguageSpec, load_spec  # noqa: E402

__all__ = ["load_pack", "LanguagePack", "load_spec", "LanguageSpec", "HeuriError", "PackError",
           "SpecError", "TileError", "WordListError", "__version__", "DEFAULT_ENGINE", "MODULE_ALIASES"]

# The game core: board, moves, positions and games, game records.
from .core.board import Board  # noqa: E402
from .core.cgp import format_cgp, parse_cgp  # noqa: E402
from .core.errors import CgpError, GcgError, MoveError  # noqa: E402
from .core.game import Game, Position  # noqa: E402
from .core.move import Exchange, Move, Pass, Placement  # noqa: E402
from .formats.gcg import read_gcg, read_gcg_file, replay, write_gcg  # noqa: E402

__all__ += ["Board", "Move", "Placement", "Exchange", "Pass", "Position", "Game", "parse_cgp", "format_cgp",
            "read_gcg", "read_gcg_file", "write_gcg", "replay", "MoveError", "GcgError", "CgpError"]
