"""heuri as an SIU engine: ``heuri siu [--lang L]``.

SIU (woogles-io/open-protocols ``siu/siu.md``, draft 0.2; summary in ``docs/siu.md``) is
the line protocol a front end uses to drive a crossword-game engine started as a child
process. Two modules:

- :mod:`heuri.play.siu.protocol`: :class:`SiuServer`, the protocol (a line reader and a
  dispatcher; it knows nothing of Scrabble), the :class:`Backend` it talks to, and
  :func:`serve`;
- :mod:`heuri.play.siu.backend`: :class:`HeuriBackend`, heuri behind the server (language
  packs, CGP positions, SIU move notation, the evaluators, the endgame and pre-endgame
  searches).

Their public names are importable from here (``from heuri.play.siu import HeuriBackend,
serve``), as they were from the single module ``heuri.siu``.
"""
from .backend import (DEFAULT_BEST_N, DEFAULT_K, ENGINE_CHOICES, HeuriBackend, SiuPosition, cgp_language,
                      leave_text, resolve_hidden)
from .protocol import (ENGINE_AUTHOR, ENGINE_NAME, ERROR_CODES, ERROR_TEXT, EXCERPT, GO_LIMITS, GO_PARAMS, MAX_LINE,
                       MODES, Backend, BoundedInput, GoParams, OptionDecl, SearchStop, SiuError, SiuServer,
                       parse_go, parse_setoption, serve, split_position)

__all__ = ["Backend", "BoundedInput", "DEFAULT_BEST_N", "DEFAULT_K", "ENGINE_AUTHOR", "ENGINE_CHOICES", "ENGINE_NAME",
           "ERROR_CODES", "ERROR_TEXT", "EXCERPT", "GO_LIMITS", "GO_PARAMS", "GoParams", "HeuriBackend", "MAX_LINE",
           "MODES", "OptionDecl", "SearchStop", "SiuError", "SiuPosition", "SiuServer", "cgp_language", "leave_text",
           "parse_go", "parse_setoption", "resolve_hidden", "serve", "split_position"]
