"""Moves as small immutable values: :class:`Placement`, :class:`Exchange`, :class:`Pass`.

Modelled on python-chess's ``Move.from_uci()`` / ``.uci()``: a move is a value (frozen,
hashable, compared by its fields) that parses from and formats to text, and round-trips.

Notations
---------
GCG (docs/rules.md; Quackle, Macondo, Woogles):

- placement ``8D DJINN`` (row first = across), ``H11 MAZEY`` (column first = down); a square
  already on the board is ``.`` or its letter written out (``N1 .AZY`` = ``N1 RAZY`` when R is
  on N1); lowercase = a blank from the rack; multi-letter tiles bracketed ``[CH]``/``[ch]``;
- exchange ``-QV`` (known tiles, blank ``?``) or ``-4`` (four unknown tiles);
- pass ``-``.

SIU / UCGI (docs/siu.md): ``8D.DJINN`` with played-through letters written out,
``ex.ABC``, ``ex.4``, ``pass``.

Tile ids are the spec's (letters ``0..L-1``, blank ``L``). A :class:`Placement` lists every
square of its main word, played-through squares included, like a ``MOVE_DTYPE`` record of
:mod:`heuri.movegen`: ``tiles`` holds the letter on each square (a blank shows the letter it
stands for), ``new`` marks squares filled from the rack and ``blank`` the new tiles that are
blanks.

>>> from heuri.spec import load_spec
>>> spec = load_spec("en")
>>> m = Move.from_gcg("8D RETSINA", None, spec)
>>> (m.row, m.col, m.across, m.n_tiles), m.gcg(spec), m.siu(spec)
((7, 3, True, 7), '8D RETSINA', '8D.RETSINA')
>>> Move.from_gcg("-4", None, spec), Move.from_siu("pass", None, spec)
(Exchange(tiles=None, count=4), Pass())
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

from .errors import MoveError, TileError
from .tiletext import check_spelling, format_spelling, scan

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .spec import LanguageSpec


class BoardView(Protocol):
    """What a move reads of a board (:class:`heuri.core.board.Board` is one; the board
    module builds on this one, so it is named here by what it holds, not imported):
    ``letters`` (N, N) int8 tile ids, -1 empty; ``blanks`` (N, N) bool, a blank there."""

    letters: "np.ndarray"
    blanks: "np.ndarray"

PLACEMENT, EXCHANGE, PASS = 0, 1, 2

_COORD_ACROSS = re.compile(r"^(\d{1,2})([A-Za-z])$")
_COORD_DOWN = re.compile(r"^([A-Za-z])(\d{1,2})$")


# -- coordinates ----------------------------------------------------------------------
#: Coordinate notations. ``"standard"`` (GCG, Quackle, Woogles, Macondo): columns are
#: letters A-O, rows numbers 1-15; row number first = across (``8D``), column letter first
#: = down (``D8``). ``"fisf"`` (the French federation's duplicate sheets): rows are letters
#: A-O, columns numbers 1-15; row letter first = across (``H4`` is standard ``8D``), column
#: number first = down (``4H`` is standard ``D8``). The same square, two spellings; a
#: letter-first reference reads across in FISF and down in standard, so text must say its
#: notation.
COORDS = ("standard", "fisf")


def _check_coords(coords: str) -> bool:
    """True for ``"fisf"``, False for ``"standard"``; MoveError for anything else."""
    if coords not in COORDS:
        raise MoveError(f"coordinate notation {coords!r}: expected one of {', '.join(COORDS)}",
                        "bad-coordinate")
    return coords == "fisf"


def parse_coord(text: str, size: int = 15, coords: str = "standard") -> tuple[int, int, bool]:
    """Coordinate → ``(row, col, across)``, 0-based. Standard (GCG): ``8D`` = row 8,
    column D, across; ``D8`` = the same square, down. FISF (``coords="fisf"``, see
    :data:`COORDS`): ``H4`` = row H, column 4, across; ``4H`` the same square, down.
    Letters in either case (Quackle writes ``8d``).

    Raises MoveError (kind ``"bad-coordinate"``) for text that is not a coordinate, or
    ``"play-out-of-bounds"`` for one off a ``size``×``size`` board.

    >>> parse_coord("8D"), parse_coord("h11"), parse_coord("H4", coords="fisf"), parse_coord("4H", coords="fisf")
    ((7, 3, True), (10, 7, False), (7, 3, True), (7, 3, False))
    """
    fisf = _check_coords(coords)
    number_first, letter_first = _COORD_ACROSS.match(text), _COORD_DOWN.match(text)
    if number_first:
        num, let = int(number_first.group(1)), ord(number_first.group(2).upper()) - 64
        across = not fisf
    elif letter_first:
        let, num = ord(letter_first.group(1).upper()) - 64, int(letter_first.group(2))
        across = fisf
    else:
        expected = ("row letter+column (H4, across) or column+row letter (4H, down)" if fisf
                    else "row+column (8D, across) or column+row (D8, down)")
        raise MoveError(f"{text!r} is not a coordinate: expected {expected}", "bad-coordinate", text=text)
    row, col = (let - 1, num - 1) if fisf else (num - 1, let - 1)
    if not (0 <= row < size and 0 <= col < size):
        raise MoveError(f"coordinate {text!r} is off the {size}x{size} board", "play-out-of-bounds", text=text)
    return row, col, across


def format_coord(row: int, col: int, across: bool, coords: str = "standard") -> str:
    """``(row, col, across)`` (0-based) → ``8D`` (across) or ``D8`` (down); with
    ``coords="fisf"``, ``H4`` (across) or ``4H`` (down). See :data:`COORDS`.

    >>> format_coord(7, 3, True), format_coord(7, 3, False, "fisf")
    ('8D', '4H')
    """
    if _check_coords(coords):
        r, c = chr(65 + row), str(col + 1)
        return f"{r}{c}" if across else f"{c}{r}"
    c = chr(65 + col)
    return f"{row + 1}{c}" if across else f"{c}{row + 1}"


# -- tile text ------------------------------------------------------------------------
def _tokens(text: str, what: str, alone: str, kind: str) -> list[str]:
    """Split tile text into tokens (:func:`heuri.tiletext.scan`): spellings without their
    brackets, or one character of ``alone``. Raises MoveError of ``kind``."""
    try:
        return scan(text, alone, what)
    except TileError as e:
        parts = {"form": "case", "text": text, "tile": e.part} if kind == "malformed-rack" and e.part else {}
        raise MoveError(str(e), kind, **parts) from None


def parse_rack(text: str, spec: "LanguageSpec", what: str = "rack", size: int | None = None) -> list[int]:
    """Rack text → tile ids: upper-case tile spellings, ``?`` for a blank, brackets for a
    multi-letter tile (``[CH]``, ``[L·L]``). Raises MoveError (kind ``"malformed-rack"``)
    naming the bad part.

    ``size``: the most tiles a rack holds. Letters written one after the other are
    single tiles (``CH`` is C and H); when that reading holds more than ``size`` tiles
    and exactly one way of joining letters into the language's multi-letter tiles fits,
    that reading is taken (Spanish ``ACHELLÑO?``: A, CH, E, LL, Ñ, O and a blank, 7
    tiles); otherwise MoveError (kind ``"too-many-tiles"``) says how many tiles the text
    holds and how to write a multi-letter tile.

    >>> from heuri.spec import load_spec
    >>> es = load_spec("es")
    >>> parse_rack("?C[CH]", es)
    [28, 2, 3]
    >>> es.format_tiles(parse_rack("ACHELLÑO?", es, size=7), blank="?")
    'A[CH]E[LL]ÑO?'
    """
    out = _parse_rack_tokens(_tokens(text, what, "?", "malformed-rack"), text, spec, what)
    if size is None or len(out) <= size:
        return out
    readings = _joined_readings(text, spec, what, size)
    if len(readings) == 1:
        return readings[0]
    plain = [t for t in spec.tiles if len(t) > 1]
    multi = ", ".join(format_spelling(t) for t in plain)
    how = ""
    if plain:
        how = (f"; a tile of several letters is written in brackets ({multi}): {plain[0]} without them is "
               f"{len(plain[0])} tiles, {' and '.join(plain[0])}")
    if len(readings) > 1:
        how = (f"; reading letters as {multi} fits {size} tiles in more than one way: write each tile of "
               f"several letters in brackets ({multi})")
    raise MoveError(f"{what} {text!r} has {len(out)} tiles, more than {size}{how}", "too-many-tiles",
                    form="rack-multi" if plain else "rack", text=text, count=len(out), size=size, multi=multi)


def _joined_readings(text: str, spec: "LanguageSpec", what: str, size: int) -> list[list[int]]:
    """The readings of rack ``text`` that join runs of letters written one after the other
    into the language's multi-letter tiles (each run joined or not) and hold at most
    ``size`` tiles; at most a few hundred readings are tried."""
    toks = _tokens(text, what, "?", "malformed-rack")
    multi = [t for t in spec.tiles if len(t) > 1]
    if not multi:
        return []
    # the places where tokens i..i+n-1, each one letter, spell a multi-letter tile
    spots = []
    for i in range(len(toks)):
        for t in multi:
            n = len(t)
            if i + n <= len(toks) and all(len(x) == 1 for x in toks[i:i + n]) and "".join(toks[i:i + n]) == t:
                spots.append((i, n))
    if len(spots) > 10:
        return []
    out = []
    for mask in range(1, 1 << len(spots)):
        chosen = [spots[b] for b in range(len(spots)) if mask >> b & 1]
        ends = sorted(chosen)
        if any(a[0] + a[1] > b[0] for a, b in zip(ends, ends[1:])):
            continue  # overlapping joins (CHH: C+H or H+...)
        merged, i = [], 0
        starts = dict(ends)
        while i < len(toks):
            if i in starts:
                merged.append("".join(toks[i:i + starts[i]]))
                i += starts[i]
            else:
                merged.append(toks[i])
                i += 1
        if len(merged) <= size:
            out.append(_parse_rack_tokens(merged, text, spec, what))
    return out


def _parse_rack_tokens(toks: list[str], text: str, spec: "LanguageSpec", what: str) -> list[int]:
    out = []
    for tok in toks:
        if tok == "?":
            out.append(spec.blank)
            continue
        if check_spelling(tok) != "upper":
            raise MoveError(f"{what} {text!r}: {format_spelling(tok)!r} is not a tile (expected upper-case "
                            f"letters, '?' for a blank, [XX] for a multi-letter tile)", "malformed-rack",
                            form="case", text=text, tile=format_spelling(tok))
        try:
            out.append(spec.tile_id(tok))
        except TileError:
            raise MoveError(f"{what} {text!r}: {format_spelling(tok)!r} is not a tile of {spec.name}",
                            "malformed-rack", text=text, tile=format_spelling(tok), language=spec.code) from None
    return out


def format_rack(tiles, spec: "LanguageSpec") -> str:
    """Tile ids → rack text (``?`` blank, ``[CH]`` brackets)."""
    return spec.format_tiles(tiles, blank="?")


def _letter_text(tile: int, lower: bool, spec: "LanguageSpec") -> str:
    return format_spelling(spec.tiles[tile], blank=lower)


# -- moves ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Move:
    """Base of the three move kinds. Use the class methods to parse:
    :meth:`from_gcg`, :meth:`from_siu`, :meth:`from_record`."""

    kind: ClassVar[int] = -1

    # -- parsing ----------------------------------------------------------------------
    @staticmethod
    def from_gcg(text: str, board: "BoardView | None", spec: "LanguageSpec") -> "Move":
        """Parse a GCG move: ``8D DJINN`` / ``N1 .AZY`` / ``-QV`` / ``-4`` / ``-``.

        ``board`` (a :class:`heuri.board.Board`, or None for an empty board) resolves the
        played-through squares: ``.`` takes the board's tile; a written-out letter on an
        occupied square must match it (either case). Raises MoveError naming the text and
        what was expected (kinds ``"malformed-play"``, ``"bad-coordinate"``,
        ``"play-out-of-bounds"``, ``"playthrough-mismatch"``, ``"malformed-rack"``).
        """
        t = text.strip()
        if t == "-":
            return Pass()
        if t.startswith("-"):
            body = t[1:]
            if body.isdigit():
                return Exchange(None, int(body))
            tiles = parse_rack(body, spec, what=f"exchange {t!r}")
            return Exchange(tuple(tiles), len(tiles))
        parts = t.split()
        if len(parts) != 2:
            raise MoveError(f"move {text!r}: expected '<coordinate> <word>' (8D WORD), "
                            f"'-TILES', '-N' or '-'", "malformed-play")
        return Placement._parse(parts[0], parts[1], board, spec, dots=True, text=text)

    @staticmethod
    def from_siu(text: str, board: "BoardView | None", spec: "LanguageSpec") -> "Move":
        """Parse an SIU/UCGI move: ``8D.DJINN`` (played-through letters written out; an
        optional ``.RACK`` after the tiles is ignored), ``ex.ABC``, ``ex.4``, ``pass``.
        Raises MoveError like :meth:`from_gcg`."""
        t = text.strip()
        if t == "pass":
            return Pass()
        parts = t.split(".")
        if parts[0] == "ex":
            if len(parts) < 2 or not parts[1]:
                raise MoveError(f"move {text!r}: expected ex.TILES or ex.N", "malformed-play")
            if parts[1].isdigit():
                return Exchange(None, int(parts[1]))
            tiles = parse_rack(parts[1], spec, what=f"exchange {t!r}")
            return Exchange(tuple(tiles), len(tiles))
        if len(parts) not in (2, 3) or not parts[1]:
            raise MoveError(f"move {text!r}: expected COORD.TILES (8D.WORD), ex.TILES, ex.N or pass",
                            "malformed-play")
        return Placement._parse(parts[0], parts[1], board, spec, dots=False, text=text)

    @staticmethod
    def from_record(rec, spec: "LanguageSpec") -> "Move":
        """A move from one record of a ``heuri.movegen.MOVE_DTYPE`` array (fields kind,
        row, col, across, length, tiles, new, blank). Raises MoveError for an unknown kind."""
        kind = int(rec["kind"])
        n = int(rec["length"])
        if kind == PLACEMENT:
            return Placement(int(rec["row"]), int(rec["col"]), bool(rec["across"]),
                             tuple(int(x) for x in rec["tiles"][:n]),
                             tuple(bool(x) for x in rec["new"][:n]),
                             tuple(bool(x) for x in rec["blank"][:n]))
        if kind == EXCHANGE:
            tiles = tuple(int(x) for x in rec["tiles"][:n])
            return Exchange(tiles, n)
        if kind == PASS:
            return Pass()
        raise MoveError(f"move record has kind {kind}; expected 0 (placement), 1 (exchange) or 2 (pass)",
                        "malformed-play")

    # -- common API -------------------------------------------------------------------
    @property
    def n_tiles(self) -> int:
        """Tiles taken from the rack (placement) or returned (exchange); 0 for a pass."""
        return 0

    def rack_counts(self, spec: "LanguageSpec"):
        """Count vector (L+1,) int64 of the tiles leaving the rack (blank last); zeros for
        a pass or an exchange of unknown tiles."""
        import numpy as np

        return np.zeros(spec.n_kinds, dtype=np.int64)


@dataclass(frozen=True)
class Placement(Move):
    """Tiles placed on the board.

    - ``row``, ``col``: first square of the whole main word, 0-based (played-through
      squares included); ``across``: direction.
    - ``tiles``: letter id on each square of the main word (a blank shows its letter).
    - ``new``: True where the square is filled from the rack.
    - ``blank``: True where that new tile is a blank (False on played-through squares).
    """

    row: int
    col: int
    across: bool
    tiles: tuple[int, ...]
    new: tuple[bool, ...]
    blank: tuple[bool, ...]
    kind: ClassVar[int] = PLACEMENT

    def __post_init__(self):
        if not (len(self.tiles) == len(self.new) == len(self.blank)) or not self.tiles:
            raise MoveError(f"placement at {format_coord(self.row, self.col, self.across)}: tiles, new "
                            f"and blank must have the same non-zero length", "malformed-play")

    @property
    def length(self) -> int:
        """Squares of the main word, played-through included."""
        return len(self.tiles)

    @property
    def n_tiles(self) -> int:
        return sum(self.new)

    @property
    def coord(self) -> str:
        """GCG coordinate of the first square (``8D`` across, ``D8`` down)."""
        return format_coord(self.row, self.col, self.across)

    def squares(self):
        """Yield ``(row, col, tile, new, blank)`` for each square of the main word."""
        dr, dc = (0, 1) if self.across else (1, 0)
        for i, (t, n, b) in enumerate(zip(self.tiles, self.new, self.blank)):
            yield self.row + dr * i, self.col + dc * i, t, n, b

    def rack_counts(self, spec: "LanguageSpec"):
        """Count vector (L+1,) int64 of the tiles taken from the rack (blank last)."""
        import numpy as np

        v = np.zeros(spec.n_kinds, dtype=np.int64)
        for t, n, b in zip(self.tiles, self.new, self.blank):
            if n:
                v[spec.blank if b else t] += 1
        return v

    def word(self, spec: "LanguageSpec") -> str:
        """The main word's spelling (``"CHICAS"``), upper case, no brackets."""
        return "".join(spec.tiles[t] for t in self.tiles)

    def gcg(self, spec: "LanguageSpec", dots: bool = True, board: "BoardView | None" = None) -> str:
        """GCG text: ``8D RETSINA``. Played-through squares are ``.`` (``dots=True``) or
        their letters (lowercase where ``board`` holds a blank there)."""
        return f"{self.coord} {self._tiles_text(spec, dots, board)}"

    def siu(self, spec: "LanguageSpec", board: "BoardView | None" = None) -> str:
        """SIU text: ``8D.RETSINA`` (played-through letters written out)."""
        return f"{self.coord}.{self._tiles_text(spec, False, board)}"

    def _tiles_text(self, spec, dots, board) -> str:
        out = []
        for r, c, t, n, b in self.squares():
            if n:
                out.append(_letter_text(t, b, spec))
            elif dots:
                out.append(".")
            else:
                lower = bool(board is not None and board.blanks[r, c])
                out.append(_letter_text(t, lower, spec))
        return "".join(out)

    @staticmethod
    def _parse(coord: str, word: str, board, spec, dots: bool, text: str) -> "Placement":
        size = spec.board_size
        try:
            row, col, across = parse_coord(coord, size)
        except MoveError as e:
            raise MoveError(f"move {text!r}: {e}", e.kind, **e.params) from None
        # Syntax first (any spelling, either case, '.'), then the board.
        toks = _tokens(word, f"move {text!r}:", ".", "malformed-play")
        dr, dc = (0, 1) if across else (1, 0)
        end_r, end_c = row + dr * (len(toks) - 1), col + dc * (len(toks) - 1)
        if end_r >= size or end_c >= size:
            raise MoveError(f"move {text!r}: {len(toks)} squares from {coord} run off the {size}x{size} board",
                            "play-out-of-bounds", move=text)
        tiles, new, blank = [], [], []
        for i, tok in enumerate(toks):
            r, c = row + dr * i, col + dc * i
            on = board is not None and board.letters[r, c] >= 0
            if tok == ".":
                if not dots:
                    raise MoveError(f"move {text!r}: '.' is not allowed here; write played-through "
                                    f"letters out", "malformed-play")
                if not on:
                    raise MoveError(f"move {text!r}: '.' at {format_coord(r, c, True)} but that square "
                                    f"is empty", "playthrough-mismatch", move=text, form="empty",
                                    square=[r, c])
                tiles.append(int(board.letters[r, c])); new.append(False); blank.append(False)
                continue
            body = tok
            try:
                tid = spec.tile_id(body)
            except TileError:
                raise MoveError(f"move {text!r}: {format_spelling(tok)!r} is not a tile of {spec.name}",
                                "malformed-play") from None
            if on:
                if int(board.letters[r, c]) != tid:
                    raise MoveError(f"move {text!r}: {tok!r} at {format_coord(r, c, True)} but the board "
                                    f"has {spec.tiles[int(board.letters[r, c])]} there",
                                    "playthrough-mismatch", move=text, form="other", square=[r, c],
                                    tile=spec.tiles[int(board.letters[r, c])])
                tiles.append(tid); new.append(False); blank.append(False)
            else:
                tiles.append(tid); new.append(True); blank.append(check_spelling(body) == "lower")
        if not tiles:
            raise MoveError(f"move {text!r}: no tiles", "malformed-play")
        return Placement(row, col, across, tuple(tiles), tuple(new), tuple(blank))


@dataclass(frozen=True)
class Exchange(Move):
    """Tiles returned to the bag: ``tiles`` (ids, blank = L, in the order written) or None
    when only the ``count`` is known (GCG ``-4``)."""

    tiles: tuple[int, ...] | None
    count: int
    kind: ClassVar[int] = EXCHANGE

    def __post_init__(self):
        if self.tiles is not None and len(self.tiles) != self.count:
            raise MoveError(f"exchange: {len(self.tiles)} tiles but count {self.count}", "malformed-play")
        if self.count < 1:
            raise MoveError("exchange: at least one tile", "malformed-play")

    @property
    def n_tiles(self) -> int:
        return self.count

    def rack_counts(self, spec: "LanguageSpec"):
        """Count vector (L+1,) int64 of the returned tiles (zeros when unknown)."""
        import numpy as np

        v = np.zeros(spec.n_kinds, dtype=np.int64)
        for t in self.tiles or ():
            v[t] += 1
        return v

    def gcg(self, spec: "LanguageSpec", dots: bool = True, board=None) -> str:
        """``-QV`` or ``-4``."""
        return "-" + (format_rack(self.tiles, spec) if self.tiles is not None else str(self.count))

    def siu(self, spec: "LanguageSpec", board=None) -> str:
        """``ex.QV`` or ``ex.4``."""
        return "ex." + (format_rack(self.tiles, spec) if self.tiles is not None else str(self.count))


@dataclass(frozen=True)
class Pass(Move):
    """No tiles played (a pass, or a lost challenge in some rule sets)."""

    kind: ClassVar[int] = PASS

    def gcg(self, spec: "LanguageSpec | None" = None, dots: bool = True, board=None) -> str:
        return "-"

    def siu(self, spec: "LanguageSpec | None" = None, board=None) -> str:
        return "pass"
