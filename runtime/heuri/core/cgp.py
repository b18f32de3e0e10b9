"""CGP (Crossword Game Position) reader and writer.

Format (woogles-io/open-protocols ``cgp/README.md``; docs/rules.md), one line of
space-separated fields::

    <15 rows, '/' between, digits = runs of empty squares> <racks in turn order, '/'>
    <scores, '/'> <consecutive zero-score turns> [op args; op args; ...]

Board tiles upper case, blanks lower case, multi-letter tiles bracketed (``[CH]``, ``[ch]``;
single characters are single tiles); racks with ``?`` for a blank, an empty rack = unknown;
racks and scores start with the player to move. Operations are kept verbatim in order;
those heuri reads: ``lex`` (lexicon name), ``ld`` (letter distribution name), ``bb`` (bingo
bonus), ``etl`` (exchange tile limit: least tiles in the bag for an exchange), ``mcnz``
(max consecutive zero-score turns).

:func:`format_cgp` writes what :func:`parse_cgp` read, character for character, when the
input is canonical (digit runs merged, upper-case tiles, every multi-letter tile bracketed,
one space between fields and between operations): ``format_cgp(parse_cgp(s, spec)) == s``.

>>> from heuri.spec import load_spec
>>> s = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0 lex FISE2;"
>>> rec = parse_cgp(s, load_spec("es"))
>>> rec.racks[1] is None, rec.scores, rec.ops, format_cgp(rec) == s
(True, (0, 0), (('lex', 'FISE2'),), True)
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .board import Board
from .errors import CgpError, MoveError, TileError
from .move import format_rack, parse_rack
from .tiletext import check_spelling, format_spelling, nfc

if TYPE_CHECKING:  # pragma: no cover
    from .spec import LanguageSpec

_ROW_TOKEN = re.compile(r"\d+|\[[^\]]*\]|.")
INT_OPS = {"bb": "bingo_bonus", "etl": "exchange_min_bag", "mcnz": "max_scoreless_turns"}


@dataclass(frozen=True)
class CgpRecord:
    """A parsed CGP.

    - ``board``: :class:`heuri.board.Board`;
    - ``racks``: tuple, one per player in turn order (player to move first), each a tuple
      of tile ids (blank = L) or None when unknown (empty field);
    - ``scores``: tuple of ints, same order; ``zeros``: consecutive zero-score turns;
    - ``ops``: tuple of ``(name, args)`` strings in the order written.
    """

    board: Board
    racks: tuple
    scores: tuple
    zeros: int
    ops: tuple = ()

    def op(self, name: str, default: str | None = None) -> str | None:
        """Arguments of the first operation called ``name`` (None/default if absent)."""
        for n, a in self.ops:
            if n == name:
                return a
        return default

    def rules(self) -> "LanguageSpec":
        """The board's spec with ``bb``/``etl``/``mcnz`` overrides applied (a copy)."""
        spec = self.board.spec
        changes = {}
        for op, field_name in INT_OPS.items():
            a = self.op(op)
            if a is not None:
                changes[field_name] = int(a)
        return dataclasses.replace(spec, **changes) if changes else spec


def _board_from_rows(field: str, spec: "LanguageSpec") -> Board:
    n = spec.board_size
    rows = field.split("/")
    if len(rows) != n:
        raise CgpError(f"CGP board {field!r}: {len(rows)} rows, expected {n} separated by '/'", "bad-board",
                       form="rows", count=len(rows), size=n)
    letters = np.full((n, n), -1, dtype=np.int8)
    blanks = np.zeros((n, n), dtype=bool)
    for r, row in enumerate(rows):
        c = 0
        for tok in _ROW_TOKEN.findall(row):
            if tok.isdigit():
                c += int(tok)
                continue
            body = tok[1:-1] if tok.startswith("[") else tok
            case = check_spelling(body)  # heuri.tiletext: upper = tile, lower = blank
            if case is None or (len(body) > 1 and not tok.startswith("[")):
                raise CgpError(f"CGP row {r + 1} {row!r}: {tok!r} is not a tile or a run of empty squares",
                               "bad-board", form="token", row=r + 1, text=tok)
            if c >= n:
                break
            try:
                letters[r, c] = spec.tile_id(body)
            except TileError:
                raise CgpError(f"CGP row {r + 1} {row!r}: {tok!r} is not a tile of {spec.name}", "bad-board",
                               form="tile", row=r + 1, text=tok) from None
            blanks[r, c] = case == "lower"
            c += 1
        width = sum(int(t) if t.isdigit() else 1 for t in _ROW_TOKEN.findall(row))
        if width != n:
            raise CgpError(f"CGP row {r + 1} {row!r} covers {width} squares, expected {n}", "bad-board",
                           form="width", row=r + 1, count=width, size=n)
    return Board(spec, letters, blanks)


def parse_cgp(text: str, spec: "LanguageSpec") -> CgpRecord:
    """Parse a CGP line for the language ``spec``. Raises CgpError naming the field and
    what was expected (wrong row count or width, a tile the language lacks, racks and
    scores of different lengths, a non-integer score, zero count or ``bb``/``etl``/``mcnz``)."""
    fields = text.strip().split(None, 4)
    if not fields:
        raise CgpError("the CGP is empty; expected one line of 4 fields: the board (15 rows separated by "
                       "'/', digits for runs of empty squares), the racks ('RACK/RACK', the player to move "
                       "first), the scores ('0/0') and the count of scoreless turns, then optional "
                       "operations ('lex NAME;')", "missing-fields", count=0)
    if len(fields) < 4:
        raise CgpError(f"CGP {text!r}: expected 4 fields (board, racks, scores, zero turns) and "
                       f"optional operations, got {len(fields)}", "missing-fields", count=len(fields))
    board = _board_from_rows(nfc(fields[0]), spec)
    racks = []
    for i, rk in enumerate(fields[1].split("/")):
        if rk == "":
            racks.append(None)
            continue
        try:
            racks.append(tuple(parse_rack(rk, spec, what=f"CGP rack {i + 1}", size=spec.rack_size)))
        except MoveError as e:
            raise CgpError(str(e), "bad-rack", cause=e.kind, **e.params) from None
        if len(racks[-1]) > spec.rack_size:
            raise CgpError(f"CGP rack {i + 1} {rk!r} has {len(racks[-1])} tiles, more than {spec.rack_size}",
                           "bad-rack", cause="too-many-tiles", form="rack", text=rk, count=len(racks[-1]),
                           size=spec.rack_size)
    try:
        scores = tuple(int(s) for s in fields[2].split("/"))
    except ValueError:
        raise CgpError(f"CGP scores {fields[2]!r}: expected integers separated by '/'", "bad-scores",
                       form="parse", text=fields[2]) from None
    if len(scores) != len(racks):
        raise CgpError(f"CGP has {len(racks)} racks ({fields[1]!r}) but {len(scores)} scores ({fields[2]!r})",
                       "bad-scores", form="count", racks=len(racks), scores=len(scores))
    if len(racks) < 2:
        raise CgpError(f"CGP racks {fields[1]!r}: at least two players ('RACK/' when the other is unknown)",
                       "bad-rack", form="players", text=fields[1])
    if not fields[3].isdigit():
        raise CgpError(f"CGP zero-turn count {fields[3]!r}: expected a non-negative integer", "bad-zeros",
                       text=fields[3])
    ops = []
    if len(fields) == 5:
        for part in fields[4].split(";"):
            part = part.strip()
            if not part:
                continue
            name, _, args = part.partition(" ")
            args = " ".join(args.split())
            if name in INT_OPS:
                try:
                    int(args)
                except ValueError:
                    raise CgpError(f"CGP operation {name!r}: expected an integer, got {args!r}", "bad-op",
                                   form="int", name=name, text=args) from None
            ops.append((name, args))
        if fields[4].strip() and not fields[4].strip().endswith(";"):
            raise CgpError(f"CGP operations {fields[4]!r}: each operation ends with ';'", "bad-op", form="end",
                           text=fields[4])
    rec = CgpRecord(board, tuple(racks), scores, int(fields[3]), tuple(ops))
    # Tiles on the board and in known racks must exist in the bag.
    used = board.tile_counts()
    for rk in racks:
        for t in rk or ():
            used[t] += 1
    over = used - spec.distribution()
    if (over > 0).any():
        bad = [spec.symbol(i) if i != spec.blank else "?" for i in np.flatnonzero(over > 0)]
        raise CgpError(f"CGP {text!r}: more {', '.join(bad)} on the board and racks than {spec.name} has",
                       "rack-not-in-bag", tiles=", ".join(bad))
    return rec


def format_board(board: Board) -> str:
    """Board → the CGP board field (digit runs, lowercase blanks, ``[CH]`` brackets)."""
    spec = board.spec
    rows = []
    for r in range(board.size):
        parts, run = [], 0
        for c in range(board.size):
            t = int(board.letters[r, c])
            if t < 0:
                run += 1
                continue
            if run:
                parts.append(str(run))
                run = 0
            parts.append(format_spelling(spec.tiles[t], blank=bool(board.blanks[r, c])))
        if run:
            parts.append(str(run))
        rows.append("".join(parts))
    return "/".join(rows)


def format_cgp(rec: CgpRecord) -> str:
    """CgpRecord → CGP text (see the module doc for the canonical form)."""
    spec = rec.board.spec
    racks = "/".join("" if rk is None else format_rack(rk, spec) for rk in rec.racks)
    scores = "/".join(str(s) for s in rec.scores)
    out = f"{format_board(rec.board)} {racks} {scores} {rec.zeros}"
    if rec.ops:
        out += " " + " ".join(f"{n} {a};" if a else f"{n};" for n, a in rec.ops)
    return out


def cgp_lexicon(text: str) -> str | None:
    """The lexicon a CGP's ``lex`` operation names, or None.

    >>> cgp_lexicon("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 A/ 0/0 0 lex FRA20;")
    'FRA20'
    """
    m = re.search(r"\blex\s+([^;]+?)\s*(?:;|$)", text)
    return m.group(1).strip() if m else None


def lexicon_warning(text: str, spec: "LanguageSpec") -> str | None:
    """A warning when a CGP's ``lex`` operation names a lexicon that is not the word list
    of the pack answering (``spec.lexicon``, e.g. ``sowpods 1.1.0 (SOWPODS, Collins)``):
    ``lex NWL23;`` read with the English pack gets one, ``lex SOWPODS;`` does not. None
    when the CGP names no lexicon or names the pack's own.

    >>> from heuri.spec import load_spec
    >>> lexicon_warning("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 A/ 0/0 0 lex NWL23;", load_spec("en"))
    "the position names lexicon NWL23; heuri's en pack answers with another word list: sowpods 1.1.0 (SOWPODS, Collins)"
    """
    return named_lexicon_warning(cgp_lexicon(text), spec, "the position")


def other_lexicon(lexicon: str | None, spec: "LanguageSpec") -> str | None:
    """``lexicon`` (stripped) when it names a word list other than the pack's
    (``spec.lexicon``), None when it names the pack's own or is empty: the test behind
    :func:`named_lexicon_warning`, for an interface that writes the warning itself.

    >>> from heuri.spec import load_spec
    >>> other_lexicon(" CSW21 ", load_spec("en")), other_lexicon("SOWPODS", load_spec("en"))
    ('CSW21', None)
    >>> other_lexicon("sowpods_1.1.0_(SOWPODS,_Collins)", load_spec("en")) is None  # as heuri's GCG writes it
    True
    """
    lex = (lexicon or "").strip()
    if not lex:
        return None
    own = {w.upper() for w in re.findall(r"[A-Za-z0-9_.-]+", spec.lexicon)}
    # the pack's own name written whole ("an-array-of-spanish-words 2.0.0"; heuri's match
    # records write its spaces as underscores, a GCG pragma being one word), or one word of it
    # ("sowpods")
    whole = " ".join(lex.replace("_", " ").split()).upper()
    if lex.upper() in own or whole == " ".join(spec.lexicon.replace("_", " ").split()).upper():
        return None
    return lex


def named_lexicon_warning(lexicon: str | None, spec: "LanguageSpec", what: str = "the record") -> str | None:
    """A warning when a record's lexicon (GCG ``#lexicon``, CGP ``lex``) is not the word
    list of the pack answering (``spec.lexicon``); None when it is, or when ``lexicon``
    is empty. ``what`` names the record in the sentence.

    >>> from heuri.spec import load_spec
    >>> named_lexicon_warning("CSW21", load_spec("en"))
    "the record names lexicon CSW21; heuri's en pack answers with another word list: sowpods 1.1.0 (SOWPODS, Collins)"
    >>> named_lexicon_warning("sowpods", load_spec("en")) is None
    True
    >>> named_lexicon_warning("sowpods 1.1.0 (SOWPODS, Collins)", load_spec("en")) is None
    True
    """
    lex = other_lexicon(lexicon, spec)
    if lex is None:
        return None
    return f"{what} names lexicon {lex}; heuri's {spec.code} pack answers with another word list: {spec.lexicon}"


def guess_language(text: str, tiles: bool = True) -> str | None:
    """Language code of a CGP from its ``lex``/``ld`` operations, as the language specs'
    ``[recognise]`` tables say (:func:`heuri.spec.recognise`: ``lex FILE2017;`` → es,
    ``ld english;`` → en), else (with ``tiles``) from the tiles of its board and racks when
    one language alone has them all (:func:`heuri.spec.recognise_tiles`: ``Ñ``, ``[CH]``,
    ``[LL]``, ``[RR]`` → es), else None."""
    # the last operation may lack its ';' here: parse_cgp then says so, not "which language?"
    m = re.search(r"(?:^|[\s;])lex\s+([^;]+?)\s*(?:;|$)", text)
    d = re.search(r"(?:^|[\s;])ld\s+([^;]+?)\s*(?:;|$)", text)
    if m or d:
        got = guess_language_from_names(m.group(1) if m else None, d.group(1) if d else None)
        if got is not None:
            return got
    if not tiles:
        return None
    from .spec import recognise_tiles

    return recognise_tiles(cgp_spellings(text))


def cgp_spellings(text: str) -> set[str]:
    """The tile spellings a CGP's board and racks use, upper case, brackets removed
    (``{"A", "CH", "Ñ"}``); digits, ``/`` and ``?`` left out; an empty set for text
    that is not tile text."""
    from .tiletext import scan

    fields = nfc(text).split(None, 2)
    out: set[str] = set()
    for f in fields[:2]:
        try:
            toks = scan(re.sub(r"[\d/?]", "", f))
        except TileError:
            return set()
        out.update(t.upper() for t in toks)
    return out


def guess_language_from_names(lexicon: str | None, distribution: str | None = None) -> str | None:
    """Language code from a lexicon name (``FILE2017``, ``CSW21``) or a letter-distribution
    name (``english``), asked of every language spec (:func:`heuri.spec.recognise`); None
    when no language, or more than one, answers."""
    from .spec import recognise

    return recognise(lexicon, distribution)
