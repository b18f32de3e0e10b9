"""Tile text: how tiles are spelled in every reader and writer (GCG, CGP, SIU, racks).

One rule for all formats, so that any spelling a spec may give a tile can be written and
read back:

- a tile's *spelling* is the spec's ``tile`` name: letters (any script, after Unicode NFC)
  and, between two letters, the joining marks of :data:`JOINERS` (Catalan ``L·L``); upper
  case for a tile, the same spelling in lower case for a blank standing for it;
- in text a one-character spelling stands alone (``Ç``, ``ç``); a longer one is bracketed
  (``[CH]``, ``[l·l]``); a few formats add their own single characters (``?`` a blank in a
  rack, ``.`` a played-through square in GCG).

:func:`check_spelling` is what the spec loader applies to each tile name;
:func:`scan` splits text into tokens without knowing a language (the GCG reader checks a
record's shape before the language is known); the spec turns tokens into tile ids.

>>> scan("CO[L·L]ECCIó")
['C', 'O', 'L·L', 'E', 'C', 'C', 'I', 'ó']
>>> check_spelling("L·L"), check_spelling("l·l"), check_spelling("L.L")
('upper', 'lower', None)
>>> format_spelling("L·L", blank=True), format_spelling("Ç", blank=False)
('[l·l]', 'Ç')
"""
from __future__ import annotations

import unicodedata

from .errors import TileError

#: Marks allowed inside a multi-character spelling, between two letters: the Catalan
#: punt volat (U+00B7 MIDDLE DOT, ``L·L``). Apostrophes, hyphens and ``.`` are not marks
#: here: ``.`` is a played-through square in GCG and separates fields in SIU.
JOINERS = "\u00b7"


def _letter(ch: str) -> bool:
    # A combining mark (category M) counts with its letter: text arriving decomposed
    # (C + U+0327) that NFC could not compose is still a spelling.
    return ch.isalpha() or unicodedata.category(ch).startswith("M")


def nfc(text: str) -> str:
    """Unicode NFC of ``text`` (a no-op, and free, for ASCII)."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def check_spelling(s: str) -> str | None:
    """Case of a tile spelling: ``'upper'`` (a tile), ``'lower'`` (a blank standing for
    it) or None when ``s`` is not a spelling: empty, a character other than letters and
    :data:`JOINERS`, a joiner not between two letters, mixed case, or a letter without
    a lower/upper pair (a blank could not be told from a tile)."""
    s = nfc(s)
    if not s or not _letter(s[0]) or not _letter(s[-1]):
        return None
    for a, b in zip(s, s[1:]):
        if b in JOINERS and a in JOINERS:
            return None
    if any(not (_letter(ch) or ch in JOINERS) for ch in s):
        return None
    if s == s.upper() and s != s.lower() and nfc(s.lower().upper()) == s:
        return "upper"
    if s == s.lower() and s != s.upper() and nfc(s.upper().lower()) == s:
        return "lower"
    return None


def format_spelling(tile: str, blank: bool = False) -> str:
    """A tile's text: the spelling (lower case when ``blank``), bracketed when longer
    than one character."""
    s = tile.lower() if blank else tile
    return f"[{s}]" if len(s) > 1 else s


def scan(text: str, alone: str = "", what: str = "tiles") -> list[str]:
    """Split tile text into tokens: each a spelling (brackets removed, case kept) or one
    character of ``alone``. Text is read after NFC.

    Raises TileError naming ``what``, the text and the position of an unclosed ``[``, an
    empty or malformed bracket, or a character that is neither a letter nor in ``alone``.
    The result does not say whether a spelling is a tile of some language: that is the
    spec's :meth:`heuri.spec.LanguageSpec.tile_id`.
    """
    text = nfc(text)
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "[":
            j = text.find("]", i)
            if j < 0:
                raise TileError(f"{what} {text!r}: unclosed '[' at position {i + 1}", text[i:])
            body = text[i + 1:j]
            if check_spelling(body) is None:
                raise TileError(f"{what} {text!r}: [{body}] at position {i + 1} is not a tile spelling "
                                f"(letters, '·' between letters, one case)", text[i:j + 1])
            out.append(body)
            i = j + 1
        elif ch in alone:
            out.append(ch)
            i += 1
        elif _letter(ch) and check_spelling(ch) is not None:
            out.append(ch)
            i += 1
        else:
            raise TileError(f"{what} {text!r}: {ch!r} at position {i + 1} is not a tile "
                            f"(letters; multi-letter tiles in brackets, [CH])", ch)
    return out


def is_tile_text(text: str, alone: str = "", upper: bool = False) -> bool:
    """True when :func:`scan` reads ``text``; with ``upper``, every spelling is upper case."""
    try:
        toks = scan(text, alone)
    except TileError:
        return False
    return not upper or all(t in alone or check_spelling(t) == "upper" for t in toks)
