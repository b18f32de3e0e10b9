"""The board: tiles on squares, premiums from the language spec, scoring and legality of a
given placement.

A :class:`Board` wraps the two arrays every module shares (``../notes`` contract):

- ``letters``: (N, N) int8, -1 = empty, else the letter tile id (a blank on the board holds
  the letter it stands for);
- ``blanks``: (N, N) bool, True where the tile is a blank.

Row 0 is GCG row "1", column 0 is column "A". Premiums come from ``spec.board`` (``T``
triple word, ``D`` double word, ``t`` triple letter, ``d`` double letter, ``*`` centre =
double word, ``.`` plain) as ``letter_mult`` / ``word_mult`` (N, N) int8 arrays.

Boards are immutable in style: :meth:`Board.play` returns a new board and never changes
``self`` (do not write into ``letters``/``blanks`` yourself; they are shared with numba code
that reads them).

Scoring here is deliberately plain Python, independent of the move generator, so the
replayer and the tests can cross-check it. The rules (WESPA rules; docs/rules.md):
letter and word premiums count only under newly placed tiles; each cross-word formed by a
new tile scores with that tile's premiums; a blank scores 0; all ``rack_size`` tiles in one
move add ``bingo_bonus``.

>>> from heuri.spec import load_spec
>>> from heuri.move import Move
>>> spec = load_spec("en")
>>> b = Board.empty(spec)
>>> b.score(Move.from_gcg("8D RETSINA", b, spec))   # (1*2 + 6)*2 + 50: R on D8's double letter
66
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .errors import MoveError
from .move import Placement, format_coord

if TYPE_CHECKING:  # pragma: no cover
    from .spec import LanguageSpec


@lru_cache(maxsize=16)
def premium_arrays(layout: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(letter_mult, word_mult)``: (N, N) int8 arrays from a spec's layout strings
    (read-only, cached). ``t`` → letter ×3, ``d`` → ×2; ``T`` → word ×3, ``D``/``*`` → ×2."""
    n = len(layout)
    lm = np.ones((n, n), dtype=np.int8)
    wm = np.ones((n, n), dtype=np.int8)
    for r, row in enumerate(layout):
        for c, ch in enumerate(row):
            if ch == "t":
                lm[r, c] = 3
            elif ch == "d":
                lm[r, c] = 2
            elif ch == "T":
                wm[r, c] = 3
            elif ch in "D*":
                wm[r, c] = 2
    lm.flags.writeable = False
    wm.flags.writeable = False
    return lm, wm


def centre(spec: "LanguageSpec") -> tuple[int, int]:
    """``(row, col)`` of the centre square ``*`` of the spec's layout."""
    for r, row in enumerate(spec.board):
        c = row.find("*")
        if c >= 0:
            return r, c
    raise AssertionError("spec without a centre square")  # load_spec rejects these


class Board:
    """Tiles on a square board of the spec's size (N ≤ 15).

    Attributes: ``spec``, ``letters`` (N, N) int8, ``blanks`` (N, N) bool,
    ``letter_mult`` / ``word_mult`` (N, N) int8 (read-only premium arrays).
    """

    __slots__ = ("spec", "letters", "blanks", "letter_mult", "word_mult", "_values")

    def __init__(self, spec: "LanguageSpec", letters: np.ndarray | None = None,
                 blanks: np.ndarray | None = None):
        n = spec.board_size
        assert n <= 15, "boards larger than 15x15 are not supported"
        self.spec = spec
        self.letters = np.full((n, n), -1, dtype=np.int8) if letters is None else np.asarray(letters, dtype=np.int8)
        self.blanks = np.zeros((n, n), dtype=bool) if blanks is None else np.asarray(blanks, dtype=bool)
        if self.letters.shape != (n, n) or self.blanks.shape != (n, n):
            raise MoveError(f"board arrays must be {n}x{n}, got {self.letters.shape} and {self.blanks.shape}",
                            "bad-board")
        self.letter_mult, self.word_mult = premium_arrays(spec.board)
        self._values = spec.values

    @classmethod
    def empty(cls, spec: "LanguageSpec") -> "Board":
        """An empty board for ``spec``."""
        return cls(spec)

    # -- inspection ---------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.letters.shape[0]

    def is_empty(self) -> bool:
        return not (self.letters >= 0).any()

    def tile_count(self) -> int:
        """Tiles on the board."""
        return int((self.letters >= 0).sum())

    def tile_counts(self) -> np.ndarray:
        """Tiles on the board as a count vector (L+1,) int64; blanks count as the blank."""
        v = np.zeros(self.spec.n_kinds, dtype=np.int64)
        on = self.letters >= 0
        np.add.at(v, self.letters[on & ~self.blanks].astype(np.int64), 1)
        v[self.spec.blank] = int((on & self.blanks).sum())
        return v

    def square_value(self, r: int, c: int) -> int:
        """Face value of the tile on (r, c): 0 for a blank or an empty square."""
        t = int(self.letters[r, c])
        return 0 if t < 0 or self.blanks[r, c] else self._values[t]

    def __eq__(self, other) -> bool:
        return (isinstance(other, Board) and self.spec.board == other.spec.board
                and np.array_equal(self.letters, other.letters) and np.array_equal(self.blanks, other.blanks))

    __hash__ = None  # mutable arrays inside: not hashable

    def __repr__(self) -> str:
        return f"<Board {self.spec.code} {self.tile_count()} tiles>"

    # -- words ----------------------------------------------------------------------------
    def _run(self, move: Placement, r: int, c: int, dr: int, dc: int):
        """Squares of the run through (r, c) along (dr, dc), with ``move``'s new tiles
        treated as placed. Returns a list of (r, c, tile, is_new, is_blank)."""
        newsq = {(rr, cc): (t, b) for rr, cc, t, nw, b in move.squares() if nw}
        n = self.size

        def at(rr, cc):
            if (rr, cc) in newsq:
                t, b = newsq[(rr, cc)]
                return t, True, b
            t = int(self.letters[rr, cc])
            return (t, False, bool(self.blanks[rr, cc])) if t >= 0 else None

        while 0 <= r - dr < n and 0 <= c - dc < n and at(r - dr, c - dc) is not None:
            r, c = r - dr, c - dc
        out = []
        while 0 <= r < n and 0 <= c < n:
            x = at(r, c)
            if x is None:
                break
            out.append((r, c, *x))
            r, c = r + dr, c + dc
        return out

    def _spell(self, run) -> str:
        return "".join(self.spec.tiles[t] for _, _, t, _, _ in run)

    def _score_run(self, run) -> int:
        s, wm = 0, 1
        for r, c, t, nw, b in run:
            v = 0 if b else self._values[t]
            if nw:
                s += v * int(self.letter_mult[r, c])
                wm *= int(self.word_mult[r, c])
            else:
                s += v
        return s * wm

    def words(self, move: Placement) -> list[tuple[str, list]]:
        """Words the placement forms: the main word (if 2+ squares) then each cross-word
        (2+ squares) of a new tile, as ``(spelling, run)`` with run = [(r, c, tile, new,
        blank)]. Assumes the squares are in bounds and the new ones empty."""
        dr, dc = (0, 1) if move.across else (1, 0)
        out = []
        main = self._run(move, move.row, move.col, dr, dc)
        if len(main) >= 2:
            out.append((self._spell(main), main))
        for r, c, t, nw, b in move.squares():
            if nw:
                cross = self._run(move, r, c, dc, dr)
                if len(cross) >= 2:
                    out.append((self._spell(cross), cross))
        return out

    # -- scoring and legality ---------------------------------------------------------------
    def score(self, move) -> int:
        """Points for ``move`` on this board (0 for an exchange or a pass).

        Main word (extended over adjacent board tiles) plus every cross-word of 2+ squares,
        premiums only under new tiles, blanks 0, plus ``spec.bingo_bonus`` when exactly
        ``spec.rack_size`` tiles are placed. Does not check legality (see :meth:`check`).
        """
        if not isinstance(move, Placement):
            return 0
        total = sum(self._score_run(run) for _, run in self.words(move))
        if move.n_tiles == self.spec.rack_size:
            total += self.spec.bingo_bonus
        return total

    def check(self, move: Placement, words=None) -> list[str]:
        """Check that a placement may be made on this board and return the words it forms
        (main word first, then cross-words; spellings like ``"CHICAS"``).

        Checks, in order: squares on the board; at least one and at most ``rack_size`` new
        tiles; new tiles on empty squares, played-through squares holding the given letter;
        the given squares are the whole main word (no board tile just before or after);
        a blank never stands for a letter in ``spec.blank_cannot_represent``; the first
        move covers the centre and makes a word of 2+ tiles; later moves touch a tile
        already on the board; and, when ``words`` (a set of spellings such as
        ``pack.words``) is given, every formed word is in it.

        Raises MoveError naming the move and the square, with kind
        ``"play-out-of-bounds"``, ``"no-tiles"``, ``"square-occupied"``,
        ``"too-many-tiles"``, ``"playthrough-mismatch"``, ``"word-extends"``, ``"bad-blank"``,
        ``"centre-not-covered"``, ``"not-connected"``, ``"no-word"`` or ``"phony"``.
        """
        spec = self.spec
        n = self.size
        name = move.gcg(spec)
        last_r = move.row + (0 if move.across else move.length - 1)
        last_c = move.col + (move.length - 1 if move.across else 0)
        if not (0 <= move.row < n and 0 <= move.col < n and last_r < n and last_c < n):
            raise MoveError(f"move {name!r} runs off the {n}x{n} board", "play-out-of-bounds", move=name)
        k = move.n_tiles
        if k < 1:
            raise MoveError(f"move {name!r} places no tile", "no-tiles", move=name)
        if k > spec.rack_size:
            raise MoveError(f"move {name!r} places {k} tiles; a rack holds {spec.rack_size}", "too-many-tiles",
                            move=name, form="move", count=k, size=spec.rack_size)
        for r, c, t, nw, b in move.squares():
            here = int(self.letters[r, c])
            if nw and here >= 0:
                raise MoveError(f"move {name!r}: square {format_coord(r, c, True)} already holds "
                                f"{spec.tiles[here]}", "square-occupied", move=name, square=[r, c],
                                tile=spec.tiles[here])
            if not nw and here != t:
                got = spec.tiles[here] if here >= 0 else "nothing"
                raise MoveError(f"move {name!r}: played-through square {format_coord(r, c, True)} holds "
                                f"{got}, not {spec.tiles[t]}", "playthrough-mismatch", move=name,
                                square=[r, c])
            if nw and b and spec.tiles[t] in spec.blank_cannot_represent:
                raise MoveError(f"move {name!r}: a blank cannot stand for {spec.tiles[t]} in {spec.name}",
                                "bad-blank", move=name, tile=spec.tiles[t])
        dr, dc = (0, 1) if move.across else (1, 0)
        for r, c in ((move.row - dr, move.col - dc), (last_r + dr, last_c + dc)):
            if 0 <= r < n and 0 <= c < n and self.letters[r, c] >= 0:
                raise MoveError(f"move {name!r}: the word continues onto {format_coord(r, c, True)}; "
                                f"a move names its whole main word", "word-extends", move=name, square=[r, c])
        formed = self.words(move)
        if not formed:
            raise MoveError(f"move {name!r} forms no word of two or more tiles", "no-word", move=name)
        if self.is_empty():
            cr, cc = centre(spec)
            if not any(r == cr and c == cc for r, c, _, nw, _ in move.squares() if nw):
                raise MoveError(f"move {name!r}: the first move must cover the centre "
                                f"{format_coord(cr, cc, True)}", "centre-not-covered", move=name,
                                square=[cr, cc])
        else:
            touches = k < move.length or any(
                len(self._run(move, r, c, dc, dr)) >= 2 for r, c, _, nw, _ in move.squares() if nw)
            if not touches:
                raise MoveError(f"move {name!r} does not touch any tile on the board", "not-connected", move=name)
        spellings = [w for w, _ in formed]
        if words is not None:
            bad = [w for w in spellings if w not in words]
            if bad:
                raise MoveError(f"move {name!r} forms {', '.join(bad)}, not in the word list", "phony", move=name,
                                words=", ".join(bad))
        return spellings

    def canonical(self, move):
        """The move as the move generator writes it (notes/common.md): a one-tile play is
        across when the tile has a left or right neighbour, else down, and its main word
        covers the whole run; other moves are returned unchanged. Assumes the tile's
        square is on the board and empty."""
        if not isinstance(move, Placement) or move.n_tiles != 1:
            return move
        (r, c, t, _, b), = [sq for sq in move.squares() if sq[3]]
        single = Placement(r, c, True, (t,), (True,), (b,))
        for across in (True, False):
            dr, dc = (0, 1) if across else (1, 0)
            run = self._run(single, r, c, dr, dc)
            if len(run) >= 2 or not across:
                return Placement(run[0][0], run[0][1], across, tuple(x[2] for x in run),
                                 tuple(x[3] for x in run), tuple(x[4] and x[3] for x in run))
        return move  # pragma: no cover

    def play(self, move) -> "Board":
        """A new board with ``move``'s new tiles placed (exchanges and passes return
        ``self``). Does not check legality: call :meth:`check` first."""
        if not isinstance(move, Placement):
            return self
        letters = self.letters.copy()
        blanks = self.blanks.copy()
        for r, c, t, nw, b in move.squares():
            if nw:
                letters[r, c] = t
                blanks[r, c] = b
        return Board(self.spec, letters, blanks)

    # -- text -----------------------------------------------------------------------------------
    PREMIUM_MARKS = {"T": "=", "D": "-", "t": '"', "d": "'", "*": "*", ".": "."}
    #: one line that explains the marks of :meth:`render`, for a text front end to print
    LEGEND = "= triple word  - double word  \" triple letter  ' double letter  * centre  (lower case: a blank)"

    def render(self, rows_as_letters: bool = False) -> str:
        """The board as text: column letters on top, row numbers on the left, tiles as
        their symbols (lowercase = blank), empty squares as premium marks (``=`` triple
        word, ``-`` double word, ``"`` triple letter, ``'`` double letter, ``*`` centre,
        ``.`` plain). Cells are as wide as the longest tile symbol plus one space.
        ``rows_as_letters``: the French federation's labels instead, rows A-O on the left
        and columns 1-15 on top (cells then at least 2 characters wide)."""
        spec = self.spec
        n = self.size
        w = max(len(s) for s in spec.tiles)
        if rows_as_letters:
            w = max(w, 2)
        cell = w + 1
        col_label = (lambda c: str(c + 1)) if rows_as_letters else (lambda c: chr(65 + c))
        row_label = (lambda r: chr(65 + r)) if rows_as_letters else (lambda r: str(r + 1))
        lines = [("    " + "".join(col_label(c).rjust(w).ljust(cell) for c in range(n))).rstrip()]
        for r in range(n):
            parts = []
            for c in range(n):
                t = int(self.letters[r, c])
                if t >= 0:
                    s = spec.tiles[t]
                    s = s.lower() if self.blanks[r, c] else s
                else:
                    s = self.PREMIUM_MARKS[spec.board[r][c]]
                parts.append(s.rjust(w).ljust(cell))
            lines.append(f"{row_label(r):>3} " + "".join(parts).rstrip())
        return "\n".join(lines)
