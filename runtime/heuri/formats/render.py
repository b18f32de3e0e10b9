"""Boards and racks as SVG, for every front end (the HTML analysis report, a web board).

:func:`board_svg` draws a :class:`heuri.board.Board`: premium squares in the usual colours
(triple word red, double word pink, triple letter blue, double letter light blue, the
centre star), coordinates (columns A…, rows 1…, as in GCG), tiles with their face value,
multi-letter tiles as one square (Spanish ``[CH]`` shows ``CH``), blanks marked (no value,
the letter in red on a paler tile). Two moves can be shown on it: ``played`` (its new tiles
outlined in orange) and ``second`` (e.g. the engine's best: dashed teal squares, its letters
as ghosts on empty squares and in a corner where a played tile covers the square).
:func:`rack_svg` draws a rack. Output is a self-contained ``<svg>`` string (no external
fonts, styles or scripts), so it can be inlined in HTML or served as ``image/svg+xml``.
Every square carries ``data-sq`` (its GCG name, ``8H``) and class names (``sq``, ``tile``,
``blank``, ``played``, ``second``) a script or a test can select.

>>> from heuri.spec import load_spec
>>> from heuri.board import Board
>>> from heuri.move import Move
>>> spec = load_spec("es")
>>> b = Board.empty(spec)
>>> m = Move.from_gcg("8D [CH]ISTE", b, spec)
>>> svg = board_svg(b.play(m), played=m)
>>> svg.startswith("<svg") and ">CH<" in svg and svg.count('class="tl tile played"') == 5
True
"""
from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..core.board import Board
    from ..core.spec import LanguageSpec

#: layout character → (fill colour, label) of an empty premium square.
PREMIUM_STYLE = {"T": ("#d9534f", "3W"), "D": ("#f3a5a0", "2W"), "t": ("#2f7fc1", "3L"),
                 "d": ("#a8d3f2", "2L"), "*": ("#f3a5a0", "\u2605"), ".": ("#e9e4d4", "")}
PLAYED, SECOND = "#e8590c", "#0b8a83"
_PC = {"*": "c", ".": "n"}  # class-name letter of a layout character that is not a letter


def _sq_name(r: int, c: int) -> str:
    return f"{r + 1}{chr(65 + c)}"


def _letter(spec: "LanguageSpec", tile: int) -> str:
    return spec.tiles[tile]


def _text(x: float, y: float, s: str, size: float, fill: str | None = None, bold: bool = False) -> str:
    """A centred text element; font and anchoring come from the board's style block."""
    f = f' fill="{fill}"' if fill else ""
    b = ' font-weight="bold"' if bold else ""
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:.1f}"{f}{b}>{escape(s)}</text>'


#: the style block of every SVG drawn here (short class names keep a 15×15 board small).
STYLE = ("<style>text{font-family:'DejaVu Sans',Verdana,sans-serif;text-anchor:middle;dominant-baseline:central}"
         ".sq{stroke:#fff;stroke-width:1.5}"
         + "".join(f".p{_PC.get(k, k)}{{fill:{fill}}}" for k, (fill, _) in PREMIUM_STYLE.items())
         + ".tl rect{fill:#f5dfa3;stroke:#b89b52;stroke-width:1}.tl.blank rect{fill:#fbf3dc}</style>")


def _tile(x: float, y: float, cell: float, symbol: str, value: int | None, blank: bool, cls: str,
          sq: str, outline: str | None) -> str:
    """One tile: rounded square, letter (smaller when it has 2+ characters), value."""
    pad = cell * 0.06
    stroke = f' style="stroke:{outline};stroke-width:{cell * 0.09:.1f}"' if outline else ""
    out = [f'<g class="{cls}" data-sq="{sq}">',
           f'<rect x="{x + pad:.1f}" y="{y + pad:.1f}" width="{cell - 2 * pad:.1f}" height="{cell - 2 * pad:.1f}" '
           f'rx="{cell * 0.12:.1f}"{stroke}/>']
    size = cell * (0.55 if len(symbol) == 1 else 0.42 if len(symbol) == 2 else 0.32)
    out.append(_text(x + cell * (0.46 if value is not None else 0.5), y + cell * 0.5, symbol, size,
                     "#c0392b" if blank else "#222", True))
    if value is not None:
        out.append(_text(x + cell * 0.84, y + cell * 0.8, str(value), cell * 0.22, "#444"))
    out.append("</g>")
    return "".join(out)


def _new_squares(move):
    """(row, col, tile, blank) of the squares a placement fills; () for other moves."""
    from ..core.move import Placement

    if not isinstance(move, Placement):
        return ()
    return tuple((r, c, t, b) for r, c, t, nw, b in move.squares() if nw)


def board_svg(board: "Board", played=None, second=None, cell: int = 32, coords: bool = True,
              label: str | None = None, premium: dict[str, str] | None = None) -> str:
    """The board as an SVG string (see the module docstring).

    ``board``: what is on the squares (usually the board after ``played``); ``played``,
    ``second``: :class:`heuri.move.Move` or None (only placements are drawn); ``cell``:
    square size in SVG units (the image is ``cell × (N + 1)`` wide with coordinates);
    ``label``: the accessible name (``aria-label``); ``premium``: the premium squares' labels
    in the reader's language, keyed by the English ones (``{"3W": "MT", ...}``; a label
    not in it stays as it is)."""
    spec = board.spec
    n = board.size
    off = cell if coords else 0
    size = off + n * cell
    played_sq = {(r, c) for r, c, _, _ in _new_squares(played)}
    second_sq = {(r, c): (t, b) for r, c, t, b in _new_squares(second)}
    name = escape(label or f"{spec.name} board")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {size} {size}" width="{size}" '
           f'height="{size}" role="img" aria-label="{name}">',
           STYLE, f'<rect x="0" y="0" width="{size}" height="{size}" fill="#faf8f2"/>']
    if coords:
        for i in range(n):
            out.append(_text(off + i * cell + cell / 2, off / 2, chr(65 + i), cell * 0.38, "#555"))
            out.append(_text(off / 2, off + i * cell + cell / 2, str(i + 1), cell * 0.38, "#555"))
    for r in range(n):
        for c in range(n):
            x, y = off + c * cell, off + r * cell
            kind = spec.board[r][c]
            text = PREMIUM_STYLE.get(kind, PREMIUM_STYLE["."])[1]
            text = premium.get(text, text) if premium else text
            pc = _PC.get(kind, kind) if kind in PREMIUM_STYLE else "n"
            out.append(f'<rect class="sq p{pc}" data-sq="{_sq_name(r, c)}" x="{x}" y="{y}" width="{cell}" '
                       f'height="{cell}"/>')
            t = int(board.letters[r, c])
            if t < 0:
                if text:
                    light = kind in "Tt"
                    out.append(_text(x + cell / 2, y + cell / 2, text, cell * (0.5 if kind == "*" else 0.3),
                                     "#fff" if light else "#6b4e4e"))
                continue
            blank = bool(board.blanks[r, c])
            cls = "tl tile" + (" blank" if blank else "") + (" played" if (r, c) in played_sq else "")
            out.append(_tile(x, y, cell, _letter(spec, t), None if blank else spec.values[t], blank, cls,
                             _sq_name(r, c), PLAYED if (r, c) in played_sq else None))
    for (r, c), (t, b) in second_sq.items():  # the second move on top, distinct from the played one
        x, y = off + c * cell, off + r * cell
        sym = _letter(spec, t)
        sym = sym.lower() if b else sym
        inset = cell * 0.14
        out.append(f'<g class="second" data-sq="{_sq_name(r, c)}">'
                   f'<rect x="{x + inset:.1f}" y="{y + inset:.1f}" width="{cell - 2 * inset:.1f}" '
                   f'height="{cell - 2 * inset:.1f}" rx="{cell * 0.1:.1f}" fill="#e3f4f1" fill-opacity="'
                   f'{0.0 if board.letters[r, c] >= 0 else 0.92}" stroke="{SECOND}" stroke-width="{cell * 0.07:.1f}" '
                   f'stroke-dasharray="{cell * 0.16:.1f} {cell * 0.1:.1f}"/>')
        if board.letters[r, c] >= 0:  # covered by a tile: the letter in the corner
            out.append(_text(x + cell * 0.2, y + cell * 0.22, sym, cell * 0.24, SECOND, True))
        else:
            out.append(_text(x + cell / 2, y + cell / 2, sym, cell * (0.5 if len(sym) == 1 else 0.38), SECOND, True))
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def rack_svg(spec: "LanguageSpec", tiles, cell: int = 30, label: str | None = None) -> str:
    """A rack as an SVG string: ``tiles`` are tile ids (blank = ``spec.blank``) in the order
    to draw; a blank shows ``?`` with no value."""
    tiles = [int(t) for t in tiles]
    w = max(1, len(tiles)) * cell
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="rack" viewBox="0 0 {w} {cell}" width="{w}" '
           f'height="{cell}" role="img" aria-label="{escape(label or "rack")}">', STYLE]
    for i, t in enumerate(tiles):
        blank = t == spec.blank
        out.append(_tile(i * cell, 0, cell, "?" if blank else spec.tiles[t], None if blank else spec.values[t],
                         blank, "tl tile" + (" blank" if blank else ""), str(i + 1), None))
    out.append("</svg>")
    return "".join(out)
