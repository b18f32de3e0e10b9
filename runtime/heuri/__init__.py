"""heuri: a Scrabble engine using the Heuri probability heuristic (González Romero et al.).

Public API: :func:`load_pack`, :class:`LanguagePack`, :func:`load_spec`,
:class:`LanguageSpec`, and the errors in :mod:`heuri.errors`.
"""
__version__ = "0.1.0"

from .errors import HeuriError, PackError, SpecError, TileError, WordListError  # noqa: E402
from .pack import LanguagePack, load_pack  # noqa: E402
from .spec import LanguageSpec, load_spec  # noqa: E402

__all__ = ["load_pack", "LanguagePack", "load_spec", "LanguageSpec", "HeuriError", "PackError",
           "SpecError", "TileError", "WordListError", "__version__"]
