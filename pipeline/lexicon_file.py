"""A lexicon file a player has → the entries of a word list, for one language spec.

Three formats (``FORMATS``), told apart by the file name unless given:

- ``kwg``: a KWG word graph (``.kwg``; pipeline/kwg.py). Tile ``k`` is the spec's k-th
  letter (``[tiles] letters`` order, the order of MAGPIE's letter distributions);
- ``dawg``: a Quackle DAWG (``.dawg``; pipeline/dawg.py), whose header names its letters;
- ``text``: a plain word list (anything else; gzip when it ends in ``.gz``), one word a line,
  any case, normalised like the bundled lists (the spec's ``[wordlist]`` rules). A
  multi-letter tile is written as the spec spells it (``CHICO``: the tokeniser reads CH as
  one tile, longest tile first) or bracketed (``[CH]ICO``, ``CO[L·L]ECCIÓ``).

A word the spec's tiles cannot spell is refused, never dropped silently: :func:`read_lexicon`
counts the refusals it can see with examples (``outside_tiles``: a KWG tile number or DAWG
letter that is no tile of the spec; ``respelled``: a word whose tiles, written out, would be
read back as other tiles, as C + H would be read as the Spanish CH), and the words step
counts the rest (untokenisable, one tile, too long, duplicate) in ``rejects.json``.
"""
from __future__ import annotations

import re
from pathlib import Path

from heuri.errors import TileError, WordListError
from heuri.spec import LanguageSpec

from .dawg import read_dawg
from .kwg import read_kwg

FORMATS = ("kwg", "dawg", "text")
N_EXAMPLES = 10


def detect_format(path: Path) -> str:
    """``"kwg"`` for a ``.kwg`` file, ``"dawg"`` for ``.dawg``, else ``"text"``."""
    suffix = Path(path).suffix.lower()
    return {".kwg": "kwg", ".dawg": "dawg"}.get(suffix, "text")


class _Refusals:
    def __init__(self, kinds):
        self.d = {k: {"count": 0, "examples": []} for k in kinds}

    def add(self, kind: str, example: str) -> None:
        r = self.d[kind]
        r["count"] += 1
        if len(r["examples"]) < N_EXAMPLES:
            r["examples"].append(example)


def _spell(spec: LanguageSpec, words, letter_ids: dict[int, int], letter_text, refused: _Refusals) -> list[str]:
    """Graph words (tuples of the file's letter numbers) → spellings the words step reads.
    ``letter_ids`` maps a file letter number to a spec tile id (absent: no such tile)."""
    out = []
    tiles = spec.tiles
    for w in words:
        ids = [letter_ids.get(x) for x in w]
        if None in ids:
            refused.add("outside_tiles", "".join(letter_text(x) for x in w))
            continue
        text = "".join(tiles[i] for i in ids)
        if spec.tokenise(text) != tuple(ids):
            refused.add("respelled", "".join(f"[{tiles[i]}]" if len(tiles[i]) > 1 else tiles[i] for i in ids))
            continue
        out.append(text)
    return out


def _bracketed(spec: LanguageSpec, entry: str, refused: _Refusals) -> str | None:
    """A text entry with ``[..]`` tiles → its spelling, or None (refused)."""
    try:
        parts = [p or q for p, q in re.findall(r"\[([^\]]*)\]|(.)", entry.strip())]
        ids = [spec.tiles.index(spec.normalise(p)) for p in parts]
    except (ValueError, TileError):
        refused.add("outside_tiles", entry)
        return None
    text = "".join(spec.tiles[i] for i in ids)
    if spec.tokenise(text) != tuple(ids):
        refused.add("respelled", entry)
        return None
    return text


def read_lexicon(path: Path, spec: LanguageSpec, fmt: str | None = None) -> tuple[list[str], dict]:
    """The entries of the lexicon file at ``path`` for ``spec``, and what was read:
    ``{"format", "entries" (read from the file), "declared" (the count a DAWG header
    gives, else None), "refused": {kind: {"count", "examples"}}}``.

    Raises WordListError naming the file (and the byte offset or line) for a missing,
    truncated, corrupt or non-UTF-8 file, or an unknown ``fmt``."""
    path = Path(path)
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise WordListError(f"{path}: unknown lexicon format {fmt!r}; one of {FORMATS}")
    if not path.is_file():
        raise WordListError(f"{path}: no such lexicon file")
    refused = _Refusals(("outside_tiles", "respelled"))
    declared = None
    if fmt == "kwg":
        words = read_kwg(path)
        ids = {k + 1: k for k in range(spec.n_letters)}
        entries = _spell(spec, words, ids, lambda x: spec.tiles[x - 1] if x - 1 < spec.n_letters else f"<{x}>",
                         refused)
        n = len(words)
    elif fmt == "dawg":
        letters, words, declared = read_dawg(path)
        ids = {}
        for k, text in enumerate(letters):
            t = spec.normalise(text)
            if t in spec.tiles:
                ids[k] = spec.tiles.index(t)
        entries = _spell(spec, words, ids, lambda x: letters[x], refused)
        n = len(words)
    else:
        from .words import read_wordlist

        lines = read_wordlist(path)
        entries = []
        for ln in lines:
            if "[" in ln:
                s = _bracketed(spec, ln, refused)
                if s is not None:
                    entries.append(s)
            else:
                entries.append(ln)
        n = len(lines)
    return entries, {"format": fmt, "entries": n, "declared": declared, "refused": refused.d}
