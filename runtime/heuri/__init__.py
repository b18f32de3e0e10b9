"""heuri: a Scrabble engine using the Heuri probability heuristic (González Romero et al.).

Public API: :func:`load_pack`, :class:`LanguagePack`, :func:`load_spec`,
:class:`LanguageSpec`, and the errors in :mod:`heuri.errors`.
"""
__version__ = "0.1.0"

#: the engine a front end uses when none is named (``heuri best``, SIU's ``Engine``, ``heuri
#: serve``): the strongest measured one (README, "Strength against the peers"). Kept here,
#: not in heuri.evaluate, so that the command line's parser needs no compiled code.
DEFAULT_ENGINE = "heuri5"

from .errors import HeuriError, PackError, SpecError, TileError, WordListError  # noqa: E402
from .pack import LanguagePack, load_pack  # noqa: E402
from .spec import LanguageSpec, load_spec  # noqa: E402

__all__ = ["load_pack", "LanguagePack", "load_spec", "LanguageSpec", "HeuriError", "PackError",
           "SpecError", "TileError", "WordListError", "__version__"]

# Game core: board, moves, positions and games, game records.
from .board import Board  # noqa: E402
from .cgp import format_cgp, parse_cgp  # noqa: E402
from .errors import CgpError, GcgError, MoveError  # noqa: E402
from .game import Game, Position  # noqa: E402
from .gcg import read_gcg, replay, write_gcg  # noqa: E402
from .move import Exchange, Move, Pass, Placement  # noqa: E402

__all__ += ["Board", "Move", "Placement", "Exchange", "Pass", "Position", "Game", "parse_cgp", "format_cgp",
            "read_gcg", "write_gcg", "replay", "MoveError", "GcgError", "CgpError"]
