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

:func:`move_text` writes a move as people read it (``8G CA(RR)OÑE``: the whole word, the
tiles already on the board in parentheses) and :func:`parse_move_text` reads that form,
or GCG, back into a :class:`heuri.move.Move`; both take ``coords="standard"|"fisf"``.

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

from ..core.errors import MoveError
from ..core.move import Exchange, Move, Pass, Placement, format_coord, parse_coord, parse_rack
from ..core.tiletext import check_spelling, nfc

if TYPE_CHECKING:  # pragma: no cover
    from ..core.board import Board
    from ..core.move import BoardView
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


def _text(x: float, y: float, s: str, size: float, fill: str | None = None, bold: bool = False,
          extra: str = "") -> str:
    """A centred text element; font and anchoring come from the board's style block;
    ``extra``: more attributes (a class name)."""
    f = f' fill="{fill}"' if fill else ""
    b = ' font-weight="bold"' if bold else ""
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:.1f}"{f}{b}{extra}>{escape(s)}</text>'


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
              label: str | None = None, rows_as_letters: bool = False,
              premium: dict[str, str] | None = None) -> str:
    """The board as an SVG string (see the module docstring).

    ``board``: what is on the squares (usually the board after ``played``); ``played``,
    ``second``: :class:`heuri.move.Move` or None (only placements are drawn); ``cell``:
    square size in SVG units (the image is ``cell × (N + 1)`` wide with coordinates);
    ``label``: the accessible name (``aria-label``); ``rows_as_letters``: the French
    federation's labels (rows A…, columns 1…) instead of GCG's. The labels carry the
    classes ``cl`` (columns) and ``rl`` (rows) and ``data-i`` (0-based), so that a page
    can relabel them; ``data-sq`` stays the GCG name either way. ``premium``: the premium
    squares' labels in the reader's language, keyed by the English ones (``{"3W": "MT",
    ...}``; a label not in it stays as it is)."""
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
            col, row = (str(i + 1), chr(65 + i)) if rows_as_letters else (chr(65 + i), str(i + 1))
            out.append(_text(off + i * cell + cell / 2, off / 2, col, cell * 0.38, "#555",
                             extra=f' class="cl" data-i="{i}"'))
            out.append(_text(off / 2, off + i * cell + cell / 2, row, cell * 0.38, "#555",
                             extra=f' class="rl" data-i="{i}"'))
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


# -- moves as people read them ----------------------------------------------------------
#: How :func:`move_text` writes a pass (an exchange keeps GCG's ``-QV``).
PASS_TEXT = "pass"


def _bare(spelling: str, blank: bool) -> str:
    return spelling.lower() if blank else spelling


def _greedy(text: str, spec: "LanguageSpec", what: str) -> list[tuple[str, bool]]:
    """Read unbracketed tile text the way players read a word: at each place the longest
    tile spelling that matches, all its letters in one case (Spanish ``CARRO`` is C A RR O,
    as the spec tokenises words; ``cH`` is a blank c and an H). Returns ``(spelling, lower)``
    per tile; MoveError naming ``what`` for a character no tile starts with."""
    spellings = sorted(spec.tiles, key=len, reverse=True)
    out, i = [], 0
    while i < len(text):
        for sp in spellings:
            part = text[i:i + len(sp)]
            if part.upper() == sp and check_spelling(part) is not None:
                out.append((sp, check_spelling(part) == "lower"))
                i += len(sp)
                break
        else:
            raise MoveError(f"{what}: {text[i]!r} at position {i + 1} of {text!r} is not a tile of "
                            f"{spec.name}", "malformed-play")
    return out


def move_text(move: Move, spec: "LanguageSpec", board: "BoardView | None" = None,
              coords: str = "standard") -> str:
    """A move as people read it: ``8G CA(RR)OÑE``.

    A placement is its coordinate (``coords``: ``"standard"`` ``8G``/``G8``, or ``"fisf"``
    ``H7``/``7H``, see :data:`heuri.move.COORDS`) and the whole main word, the tiles
    already on the board in parentheses (one pair per run: ``A(B)C(DE)F``), as Quackle and
    MAGPIE show them. A blank is lower case: a new one from the move, a played-through one
    when ``board`` (the board before the move) is given. Multi-letter tiles (Spanish CH,
    LL, RR) are written as players write the word, without brackets (``(CH)E``,
    ``CA(RR)OÑE``), since every word of a lexicon is read back that way (longest tile
    first); a move whose letters would read back as other tiles (a C tile then an H tile)
    brackets its multi-letter tiles instead (``C(H)`` stays ``C(H)`` but a CH tile is then
    ``[CH]``), so that :func:`parse_move_text` always gives back the same move. An
    exchange is GCG's ``-QV`` (``-4``: four unknown tiles), a pass ``pass``.

    >>> from heuri.spec import load_spec
    >>> from heuri.board import Board
    >>> es = load_spec("es")
    >>> b = Board.empty(es).play(Move.from_gcg("8I [RR]", None, es))
    >>> m = Move.from_gcg("8G CA.OÑE", b, es)
    >>> move_text(m, es), move_text(m, es, coords="fisf"), m.gcg(es)
    ('8G CA(RR)OÑE', 'H7 CA(RR)OÑE', '8G CA.OÑE')
    """
    if isinstance(move, Pass):
        return PASS_TEXT
    if isinstance(move, Exchange):
        return move.gcg(spec)
    if not isinstance(move, Placement):
        raise MoveError(f"{move!r} is not a move", "malformed-play")
    # Runs of squares: (played_through, [(spelling, lower), ...]).
    runs: list[tuple[bool, list[tuple[str, bool]]]] = []
    for r, c, t, n, b in move.squares():
        lower = bool(b) if n else bool(board is not None and board.blanks[r, c])
        if not runs or runs[-1][0] == n:
            runs.append((not n, []))
        runs[-1][1].append((spec.tiles[t], lower))
    bare = all(_reads_back(run, spec) for _, run in runs)
    parts = []
    for through, run in runs:
        body = "".join(_bare(sp, lo) if bare else _bracketed(run, k, spec) for k, (sp, lo) in enumerate(run))
        parts.append(f"({body})" if through else body)
    return f"{format_coord(move.row, move.col, move.across, coords)} {''.join(parts)}"


def _bracketed(run, k: int, spec) -> str:
    """Tile ``k`` of a run in GCG's reading (a word with brackets reads every unbracketed
    letter as one tile): a multi-letter tile bracketed, and a letter that would join the
    one before it into a longer tile (C then H) bracketed too, so that the word has at
    least one bracket and says where its tiles are."""
    sp, lo = run[k]
    if len(sp) > 1:
        return f"[{_bare(sp, lo)}]"
    if k and any(len(t) > 1 and t.startswith(run[k - 1][0] + sp) for t in spec.tiles):
        return f"[{_bare(sp, lo)}]"
    return _bare(sp, lo)


def _reads_back(run, spec) -> bool:
    """True when the run's letters, written bare, read back as the same tiles."""
    text = "".join(_bare(sp, lo) for sp, lo in run)
    try:
        return _greedy(text, spec, "run") == list(run)
    except MoveError:
        return False


def parse_move_text(text: str, spec: "LanguageSpec", board: "BoardView | None" = None,
                    coords: str = "standard") -> Move:
    """Read a move typed or shown as people write it: the form :func:`move_text` writes
    (``8G CA(RR)OÑE``; ``H7 CA(RR)OÑE`` with ``coords="fisf"``) or GCG (``8G CA.OÑE``,
    ``8G CA[RR]OÑE``, letters on the board written out); ``-QV``, ``-4``, ``-`` or ``pass``.

    Letters in parentheses are tiles already on the board; lower case is a blank. A word
    without brackets is read as players read it, longest tile first, one case per tile
    (``CARRO``: C A RR O); a word with a bracket is read as GCG, ``[..]`` a multi-letter tile
    and every other letter one tile (``CA[RR]O``; ``R[R]`` is two R tiles).
    ``board`` (the board before the move) is checked against: a parenthesised or ``.``
    square must hold that tile, a letter outside parentheses on an occupied square must
    match it (it is then played through). Without ``board`` the parentheses alone say which
    tiles were on the board (``.`` needs a board). ``parse_move_text(move_text(m, spec,
    coords=c), spec, coords=c) == m`` for every move.

    Raises MoveError naming the text and the place (kinds ``"malformed-play"``,
    ``"bad-coordinate"``, ``"play-out-of-bounds"``, ``"playthrough-mismatch"``,
    ``"malformed-rack"``).

    >>> from heuri.spec import load_spec
    >>> es = load_spec("es")
    >>> m = parse_move_text("8G CA(RR)OÑE", es)
    >>> [es.tiles[t] for t in m.tiles], m.new
    (['C', 'A', 'RR', 'O', 'Ñ', 'E'], (True, True, False, True, True, True))
    """
    t = nfc(" ".join(text.split()))
    if t.lower() == PASS_TEXT or t == "-":
        return Pass()
    if t.startswith("-"):
        body = t[1:].strip()
        if body.isdigit():
            return Exchange(None, int(body))
        tiles = parse_rack(body, spec, what=f"exchange {t!r}")
        return Exchange(tuple(tiles), len(tiles))
    parts = t.split(" ")
    if len(parts) != 2:
        raise MoveError(f"move {text!r}: expected '<coordinate> <word>' (8G CA(RR)OÑE), '-TILES', '-N' "
                        f"or 'pass'", "malformed-play")
    coord, word = parts
    size = spec.board_size
    try:
        row, col, across = parse_coord(coord, size, coords)
    except MoveError as e:
        raise MoveError(f"move {text!r}: {e}", e.kind, **e.params) from None
    what = f"move {text!r}"
    # Tokens: (spelling or ".", lower, in parentheses).
    toks: list[tuple[str, bool, bool]] = []
    inside, i, plain = False, 0, ""
    gcg_reading = "[" in word  # brackets: every unbracketed letter is one tile, as in GCG

    def flush():
        nonlocal plain
        if gcg_reading:
            for k, ch in enumerate(plain):
                case = check_spelling(ch)
                if case is None or ch.upper() not in spec.tiles:
                    raise MoveError(f"{what}: {ch!r} in {word!r} is not a tile of {spec.name}", "malformed-play")
                toks.append((ch.upper(), case == "lower", inside))
        else:
            toks.extend((sp, lo, inside) for sp, lo in _greedy(plain, spec, what))
        plain = ""

    while i < len(word):
        ch = word[i]
        if ch in "()":
            flush()
            if (ch == "(") == inside:
                raise MoveError(f"{what}: unbalanced {ch!r} at position {i + 1} of {word!r}", "malformed-play")
            inside = ch == "("
            i += 1
        elif ch == "[":
            flush()
            j = word.find("]", i)
            body = word[i + 1:j] if j > 0 else ""
            case = check_spelling(body)
            if j < 0 or case is None or body.upper() not in spec.tiles:
                raise MoveError(f"{what}: {word[i:j + 1 if j > 0 else len(word)]!r} at position {i + 1} is not a "
                                f"tile of {spec.name}", "malformed-play")
            toks.append((body.upper(), case == "lower", inside))
            i = j + 1
        elif ch == ".":
            flush()
            toks.append((".", False, True))
            i += 1
        else:
            plain += ch
            i += 1
    flush()
    if inside:
        raise MoveError(f"{what}: '(' is not closed", "malformed-play")
    if not toks:
        raise MoveError(f"{what}: no tiles", "malformed-play")
    dr, dc = (0, 1) if across else (1, 0)
    if row + dr * (len(toks) - 1) >= size or col + dc * (len(toks) - 1) >= size:
        raise MoveError(f"{what}: {len(toks)} squares from {coord} run off the {size}x{size} board",
                        "play-out-of-bounds", move=text)
    tiles, new, blank = [], [], []
    for k, (sp, lower, through) in enumerate(toks):
        r, c = row + dr * k, col + dc * k
        on = board is not None and int(board.letters[r, c]) >= 0
        square = format_coord(r, c, True, coords)  # the square's name, as the row-first reference
        if sp == ".":
            if board is None:
                raise MoveError(f"{what}: '.' needs the board; write the letter in parentheses", "malformed-play")
            if not on:
                raise MoveError(f"{what}: '.' at {square} but that square is empty", "playthrough-mismatch",
                                move=text, form="empty", square=[r, c])
            tiles.append(int(board.letters[r, c])); new.append(False); blank.append(False)
            continue
        tid = spec.tiles.index(sp)
        if through and board is not None and not on:
            raise MoveError(f"{what}: ({_bare(sp, lower)}) at {square} but that square is empty",
                            "playthrough-mismatch", move=text, form="empty", square=[r, c])
        if on and int(board.letters[r, c]) != tid:
            raise MoveError(f"{what}: {_bare(sp, lower)!r} at {square} but the board has "
                            f"{spec.tiles[int(board.letters[r, c])]} there", "playthrough-mismatch", move=text,
                            form="other", square=[r, c], tile=spec.tiles[int(board.letters[r, c])])
        if through or on:
            tiles.append(tid); new.append(False); blank.append(False)
        else:
            tiles.append(tid); new.append(True); blank.append(lower)
    return Placement(row, col, across, tuple(tiles), tuple(new), tuple(blank))


def line_text(moves, spec: "LanguageSpec", board: "Board | None" = None, coords: str = "standard") -> str:
    """A sequence of moves (an endgame's principal variation) as :func:`move_text` writes
    each, space-separated; with ``board`` (the position's board), each move is written on
    the board the earlier ones leave, so that played-through blanks show lower case."""
    out = []
    for m in moves:
        out.append(move_text(m, spec, board, coords))
        if board is not None and isinstance(m, Placement):
            board = board.play(m)
    return " ".join(out)


def recoord(text: str, coords: str = "standard", size: int = 15) -> str:
    """A move text in standard coordinates (``8G CA(RR)OÑE``, GCG ``8G CA.OÑE``) with its
    coordinate written in ``coords`` (``"fisf"``: ``H7 CA(RR)OÑE``); the word is kept as
    it is. Text that does not start with a standard coordinate (``-QV``, ``pass``, empty)
    is returned unchanged. For moves stored as text (an analysis table) shown in another
    notation.

    >>> recoord("8G CA(RR)OÑE", "fisf"), recoord("G8 CASA", "fisf"), recoord("-QV", "fisf")
    ('H7 CA(RR)OÑE', '7H CASA', '-QV')
    """
    if coords == "standard" or not text:
        return text
    head, sep, word = text.partition(" ")
    try:
        row, col, across = parse_coord(head, size)
    except MoveError:
        return text
    return f"{format_coord(row, col, across, coords)}{sep}{word}"
