"""Move generation: every legal move of a position, with scores, as a structured array.

The search walks the pack's GADDAG (``pack.graph``, built by pipeline/wordgraph.py) from
each anchor square leftwards, then over the separator rightwards (Gordon 1994, "A faster
Scrabble move generation algorithm", Software—Practice and Experience 24(2)), with
cross-checks as letter bitmasks and scores summed on the way. When board tiles lie right of
the anchor, the path starts at the last of them and reads them backwards from the root (as
MAGPIE's anchors on a word's last tile do), so that only letters that can precede them are
placed on and left of the anchor. It is compiled with numba
(``@njit(cache=True)``) and written with an explicit stack (numba's on-disk cache does not
work for recursive functions). Moves come back as one NumPy array of :data:`MOVE_DTYPE`;
nothing per move is a Python object.

Conventions (Quackle/MAGPIE counting):

- a placement is listed once per distinct (squares, letters, which new tiles are blanks):
  a blank and a real tile of the same letter are different moves;
- a one-tile play is listed once per (square, letter), written across when the tile has a
  left or right neighbour on the board, else down; on the empty board only across plays
  are listed (the first move covers the centre square ``*``);
- every distinct exchange (each distinct sub-multiset of the rack, 1 to
  ``min(rack_size, bag_size)`` tiles) is listed once when the bag holds at least
  ``spec.exchange_min_bag`` tiles, and the pass once.

Scores (docs/rules.md): letter and word premiums count only under newly placed tiles; each
cross-word is scored in full (its own premiums under the new tile); a blank scores
``spec.blank_value`` (0) whatever letter it stands for; ``spec.bingo_bonus`` is added when
exactly ``spec.rack_size`` tiles are played (not for going out with fewer).

Best N (:func:`generate_best`): the N highest-scoring placements without listing the
others, the same records as the full list sorted by score (stable). Each anchor gets an
upper bound on the scores of the placements its walk can find (the "shadow" pass of MAGPIE
and wolges: spans of squares, the rack's values matched with the squares' multipliers
under each square's cap, the letters next to board tiles limited to those that extend them
in the word graph, a span of rack tiles only limited to the word lengths and values the
rack spells, the pack's key set deciding whether a whole-rack span can be a bingo at all,
the pack's long alphagrams whether a span of all the rack's tiles, or all but one or two,
through board tiles spells a word),
anchors are walked by decreasing bound, spans (tiles left and right of the anchor) whose
bound is below the N-th score so far are not entered, and the search stops at the first
anchor whose bound is below it.

Speed (benchmarks/bench_movegen_peers.py: midgame positions cut from match records, every
move; benchmarks/bench_movegen.py: self-play positions): see the README's "Move generation
speed" for the figures and the profile. Cold compile about 12 s (and 8 s more for
:func:`generate_best`) on the 2-core machine, later processes load the
compiled code from numba's cache. The GADDAG is a single flat uint32 array (4-7 MiB) and
each step reads one node header and one arc; the walk is bound by its instructions more
than by memory (prefetching the arcs' nodes made it slower), so its stack is one int64
array (``_F_SIZE`` a frame: one base pointer) and its hot loop indexes 1-D arrays through
:func:`_ld` and :func:`_st`, without numba's negative-index wrap-around. The
output buffer is kept per pack and the records copied out (a fresh buffer each call cost
its page faults), and the cross-checks of the last board are kept (an endgame search, a
decision and the re-valuations after it ask for the same board again).

Thread use: the compiled kernels release the GIL (``nogil``); each thread has its own
context (output buffer, work arrays, caches: :class:`_ThreadContexts`).

Kernel interface (what other compiled code builds on, the way MAGPIE's ``move_gen.h``
serves its endgame; named in :data:`KERNEL_INTERFACE`): :func:`kernel_context` and
:class:`KernelContext` (the pack's graph and numbers as kernel arguments, per thread);
:func:`cross_checks_kernel` (the compiled cross-checks: δ and the endgame's board cache);
:func:`search_kernel` (the compiled placement search, called inside the endgame's
kernels) and :func:`walk_placements` (its Python entry with the context's arrays), which
write MOVE_DTYPE records as bytes, :data:`RECORD_BYTES` a row; the ``NO_*`` arrays that
stand for the best-N inputs when every placement is wanted; :func:`popcount`, the set bits
of a uint64 inside compiled code. Anything else with a leading
underscore is the generator's own and may change.

>>> import numpy as np
>>> from heuri import load_pack
>>> pack = load_pack("en")
>>> N, L = 15, pack.spec.n_letters
>>> letters = np.full((N, N), -1, np.int8); blanks = np.zeros((N, N), bool)
>>> rack = np.zeros(L + 1, np.int64); rack[pack.spec.parse_tiles("JOINTS?")] += 1
>>> moves = generate(pack, letters, blanks, rack, bag_size=86)
>>> int(moves["score"].max())                                   # a bingo of all seven tiles
92
"""
from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:  # pragma: no cover
    from .pack import LanguagePack
from llvmlite import ir as llvm_ir
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from .errors import HeuriError
from .tiletext import format_spelling

#: One move (the contract between modules, notes/common.md). Aligned: 56 bytes a move.
#:
#: - ``kind`` int8: 0 placement, 1 exchange, 2 pass.
#: - ``row``, ``col`` int8: first square of the whole main word (played-through squares
#:   included), 0-based; row 0 = GCG row "1", col 0 = column "A". Exchange/pass: 0.
#: - ``across`` bool: the main word runs left to right (else top to bottom).
#: - ``length`` int8: squares of the main word; exchange: tiles exchanged; pass: 0.
#: - ``tiles`` int8[15]: placement: the letter id on each square of the main word
#:   (played-through included; a blank shows the letter it stands for); exchange: the tile
#:   ids returned, ascending, blank = L. Entries at and after ``length`` are -1.
#: - ``new`` bool[15]: placement: the square is filled from the rack; exchange: True for
#:   the ``length`` tiles returned.
#: - ``blank`` bool[15]: that new tile is a blank (exchange: the tile returned is a blank).
#: - ``n_tiles`` int8: tiles taken from the rack (placed or exchanged).
#: - ``score`` int32: points of the move (exchange, pass: 0).
MOVE_DTYPE = np.dtype([("kind", "i1"), ("row", "i1"), ("col", "i1"), ("across", "?"),
                       ("length", "i1"), ("tiles", "i1", (15,)), ("new", "?", (15,)),
                       ("blank", "?", (15,)), ("n_tiles", "i1"), ("score", "<i4")], align=True)

PLACEMENT, EXCHANGE, PASS = 0, 1, 2

#: bytes of one MOVE_DTYPE record: the row width of the (cap, RECORD_BYTES) uint8 buffers
#: that :func:`search_kernel` and :func:`walk_placements` write (kernel interface)
RECORD_BYTES = 56
_O_KIND, _O_ROW, _O_COL, _O_ACROSS, _O_LEN = 0, 1, 2, 3, 4
_O_TILES, _O_NEW, _O_BLANK, _O_NT, _O_SCORE = 5, 20, 35, 50, 52
assert MOVE_DTYPE.itemsize == RECORD_BYTES and MOVE_DTYPE.fields["score"][1] == _O_SCORE
assert MOVE_DTYPE.fields["tiles"][1] == _O_TILES and MOVE_DTYPE.fields["new"][1] == _O_NEW
assert MOVE_DTYPE.fields["blank"][1] == _O_BLANK and MOVE_DTYPE.fields["n_tiles"][1] == _O_NT

_MAXN = 15  # largest board the move record holds

# the fields of a frame of the walk's stack (search_kernel: frame k at FR[k * _F_SIZE ...])
_F_POS = 0
_F_PH = 1
_F_NODE = 2
_F_T = 3
_F_SUB = 4
_F_USED = 5
_F_MAIN = 6
_F_WM = 7
_F_CROSS = 8
_F_NT = 9
_F_LO = 10
_F_SEQ = 11
_F_CAND = 12
_F_SIZE = 16


class MoveGenError(HeuriError):
    """A position given to the move generator is malformed: wrong board shape or dtype, a
    letter id out of range, a blank flag on an empty square, a rack of the wrong length,
    with negative counts or more tiles than the rack holds."""


# -- the GADDAG: one flat uint32 array (pipeline/wordgraph.py) -----------------------------
# A node at word s: a header of hw words (hw = 1 when L <= 31, else 2; bit x = an arc for
# letter x, bit 32 * hw - 1 = a separator arc), then its arcs: the separator arc first, then
# one a letter bit, in letter order.
# An arc word: the child node (bits 0-30, 0 = none) and bit 31 = accepts. Written out
# inline below (g[a] & _NXT, g[a] & _ACC, the header of g[s], g[s + 1]) rather than as small
# jitted helpers: each helper is one more function to compile on a cold start.
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_ACC = np.uint32(1 << 31)
_NXT = np.uint32(0x7FFFFFFF)
_S32 = np.uint64(32)


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of a uint64 (LLVM ctpop: one popcnt instruction)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [llvm_ir.IntType(64)])
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def _ld(typingctx, a, i):
    """``a[i]`` of a 1-D array without the negative-index wrap-around (``i >= 0``; the
    walk's hot loop: numba adds a sign test and an add to every signed index)."""
    sig = a.dtype(a, i)

    def codegen(context, builder, signature, args):
        from numba.core import cgutils
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = context.cast(builder, args[1], signature.args[1], types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [idx], wraparound=False)
        return context.unpack_value(builder, aryty.dtype, ptr)

    return sig, codegen


@intrinsic
def _st(typingctx, a, i, v):
    """``a[i] = v`` of a 1-D array without the wrap-around (as :func:`_ld`)."""
    sig = types.void(a, i, v)

    def codegen(context, builder, signature, args):
        from numba.core import cgutils
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = context.cast(builder, args[1], signature.args[1], types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [idx], wraparound=False)
        val = context.cast(builder, args[2], signature.args[2], aryty.dtype)
        context.pack_value(builder, aryty.dtype, val, ptr)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True, inline="always")
def _push(FR, sp, pos, ph, node, cand, main, wm, cross, nt, lo):
    """Pushes a frame on the walk's stack ``FR`` (``_F_SIZE`` int64 a frame): the square
    ``pos`` to fill, the phase ``ph`` (0 leftwards, 1 rightwards), the graph node, the
    candidate letters ``cand`` (uint64 bits), the score parts and tiles so far and the
    word's first square ``lo``; no tile taken yet. Returns the new stack size."""
    k16 = sp * _F_SIZE
    _st(FR, k16 + _F_POS, pos)
    _st(FR, k16 + _F_PH, ph)
    _st(FR, k16 + _F_NODE, node)
    _st(FR, k16 + _F_CAND, cand)
    _st(FR, k16 + _F_SUB, 0)
    _st(FR, k16 + _F_USED, -1)
    _st(FR, k16 + _F_MAIN, main)
    _st(FR, k16 + _F_WM, wm)
    _st(FR, k16 + _F_CROSS, cross)
    _st(FR, k16 + _F_NT, nt)
    _st(FR, k16 + _F_LO, lo)
    return sp + 1


@njit(cache=True, nogil=True)
def _find(g, hw, node, t):
    """Word index of the arc for letter ``t`` out of ``node``, or -1 (``hw``: header words)."""
    if node == 0:
        return -1
    h = np.uint64(_ld(g, node)) | ((np.uint64(_ld(g, node + 1)) << _S32) if hw == 2 else np.uint64(0))
    if ((h >> np.uint64(t)) & _ONE) == 0:
        return -1
    sep = np.int64((h >> np.uint64(32 * hw - 1)) & _ONE)
    return node + hw + sep + popcount(h & ((_ONE << np.uint64(t)) - _ONE))


@njit(cache=True, nogil=True)
def _is_word(g, hw, root, tiles):
    """True when the tile ids ``tiles`` spell a word: the path rev(word) is in the GADDAG."""
    node = root
    acc = False
    n = len(tiles)
    if n == 0:
        return False
    for j in range(n - 1, -1, -1):
        if tiles[j] < 0 or tiles[j] > 62:
            return False
        a = _find(g, hw, node, tiles[j])
        if a < 0:
            return False
        w = g[a]
        acc = (w & _ACC) != 0
        node = np.int64(w & _NXT)
    return acc


@njit(cache=True, nogil=True)
def cross_checks_kernel(g, hw, root, letters, blanks, values, L):
    """Cross-checks of every square for both directions (see :func:`cross_checks`), as
    fresh arrays (mask uint64, csum int32, has bool; each (2, N, N))."""
    N = letters.shape[0]
    mask = np.empty((2, N, N), np.uint64)
    csum = np.empty((2, N, N), np.int32)
    has = np.empty((2, N, N), np.bool_)
    _cross_into(g, hw, root, letters, blanks, values, L, mask, csum, has)
    return mask, csum, has


@njit(cache=True, nogil=True)
def _cross_into(g, hw, root, letters, blanks, values, L, mask, csum, has):
    """:func:`cross_checks_kernel` written into the given (2, N, N) arrays (every entry)."""
    N = letters.shape[0]
    full = np.uint64((1 << L) - 1)
    for d in range(2):
        # the perpendicular step: an across placement is checked against its column
        dr = 1 if d == 0 else 0
        dc = 0 if d == 0 else 1
        for r in range(N):
            for c in range(N):
                mask[d, r, c] = 0
                csum[d, r, c] = 0
                has[d, r, c] = False
                if letters[r, c] >= 0:
                    continue
                n_p = 0  # tiles before (above / left)
                while True:
                    rr = r - dr * (n_p + 1)
                    cc = c - dc * (n_p + 1)
                    if rr < 0 or cc < 0 or letters[rr, cc] < 0:
                        break
                    n_p += 1
                n_s = 0  # tiles after (below / right)
                while True:
                    rr = r + dr * (n_s + 1)
                    cc = c + dc * (n_s + 1)
                    if rr >= N or cc >= N or letters[rr, cc] < 0:
                        break
                    n_s += 1
                if n_p == 0 and n_s == 0:
                    mask[d, r, c] = full
                    continue
                has[d, r, c] = True
                s = 0
                for j in range(1, n_p + 1):
                    rr = r - dr * j
                    cc = c - dc * j
                    if not blanks[rr, cc]:
                        s += values[letters[rr, cc]]
                for j in range(1, n_s + 1):
                    rr = r + dr * j
                    cc = c + dc * j
                    if not blanks[rr, cc]:
                        s += values[letters[rr, cc]]
                csum[d, r, c] = s
                # the word P x S is in the GADDAG as rev(S) x rev(P)
                node = root
                for j in range(n_s, 0, -1):
                    a = _find(g, hw, node, letters[r + dr * j, c + dc * j])
                    if a < 0:
                        node = 0
                        break
                    node = np.int64(g[a] & _NXT)
                if node == 0:
                    continue
                h = np.uint64(g[node]) | ((np.uint64(g[node + 1]) << _S32) if hw == 2 else np.uint64(0))
                cand = h & full
                a = node + hw + np.int64((h >> np.uint64(32 * hw - 1)) & _ONE)
                m = np.uint64(0)
                hb = h & full
                while cand != 0:
                    x = np.int64(trailing_zeros(cand))
                    cand &= cand - _ONE
                    w = g[a + popcount(hb & ((_ONE << np.uint64(x)) - _ONE))]
                    if n_p == 0:
                        ok = (w & _ACC) != 0
                    else:
                        n2 = np.int64(w & _NXT)
                        ok = True
                        acc = False
                        for j in range(1, n_p + 1):
                            b = _find(g, hw, n2, letters[r - dr * j, c - dc * j])
                            if b < 0:
                                ok = False
                                break
                            wb = g[b]
                            acc = (wb & _ACC) != 0
                            n2 = np.int64(wb & _NXT)
                        ok = ok and acc
                    if ok:
                        m |= _ONE << np.uint64(x)
                mask[d, r, c] = m


@njit(cache=True, nogil=True)
def _cross_kept(g, hw, root, letters, blanks, values, L, mask, csum, has, kept):
    """The cross-checks of the board in ``mask``, ``csum``, ``has`` (:func:`_cross_into`),
    recomputed only when the board is not the one they were made for: ``kept`` (int8,
    2 N N + 1) holds that board's letters and blank flags and, last, 1 when the arrays are
    valid (an endgame search, a decision and the re-valuations after it ask for the same
    board many times; comparing 450 bytes costs far less than the 10-20 µs of a fresh
    computation)."""
    N = letters.shape[0]
    NN = N * N
    same = kept[2 * NN] == 1
    if same:
        for r in range(N):
            for c in range(N):
                if kept[r * N + c] != letters[r, c] or (kept[NN + r * N + c] != 0) != blanks[r, c]:
                    same = False
                    break
            if not same:
                break
    if same:
        return
    kept[2 * NN] = 0
    _cross_into(g, hw, root, letters, blanks, values, L, mask, csum, has)
    for r in range(N):
        for c in range(N):
            kept[r * N + c] = letters[r, c]
            kept[NN + r * N + c] = 1 if blanks[r, c] else 0
    kept[2 * NN] = 1


@njit(cache=True, nogil=True)
def _check(letters, blanks, rack, L, rack_size):
    """0 when the position is well formed, else an error code (see generate)."""
    N = letters.shape[0]
    for r in range(N):
        for c in range(N):
            x = letters[r, c]
            if x < -1 or x >= L:
                return 1
            if blanks[r, c] and x < 0:
                return 2
    tot = 0
    for t in range(L + 1):
        if rack[t] < 0:
            return 3
        tot += rack[t]
    if tot > rack_size:
        return 4
    return 0


@njit(cache=True, nogil=True)
def _anchors(letters, empty_board, centre_r, centre_c, A_line, A_pos, A_ll):
    """The anchors of a board in generation order: across lines (d = 0) then down lines,
    each left to right (top to bottom). An anchor is an empty square next to a tile (on the
    empty board: the centre, across only). Writes ``A_line`` (d * N + i), ``A_pos`` (the
    square's index along the line) and ``A_ll`` (the line's previous anchor, -1 none: the
    walk from an anchor never places a tile on or left of it); returns their number."""
    N = letters.shape[0]
    n = 0
    for d in range(2):
        if empty_board and d == 1:
            break
        for i in range(N):
            if empty_board and i != centre_r:
                continue
            prev = -1
            for j in range(N):
                r = i if d == 0 else j
                c = j if d == 0 else i
                if letters[r, c] >= 0:
                    continue
                if empty_board:
                    an = r == centre_r and c == centre_c
                else:
                    an = ((r > 0 and letters[r - 1, c] >= 0) or (r < N - 1 and letters[r + 1, c] >= 0)
                          or (c > 0 and letters[r, c - 1] >= 0) or (c < N - 1 and letters[r, c + 1] >= 0))
                if an:
                    A_line[n] = d * N + i
                    A_pos[n] = j
                    A_ll[n] = prev
                    prev = j
                    n += 1
    return n


@njit(cache=True, inline="always")
def _fill_line(letters, blanks, values, lmul, wmul, mask, csum, has, d, i, LT, BV, MK, CS, HS, LM, WM):
    """Copy line i of direction d (0 across: row i; 1 down: column i) into the line arrays:
    letters, face values of board tiles (blanks 0), cross-check masks, cross sums, has-cross
    flags and the premiums."""
    N = letters.shape[0]
    for j in range(N):
        r = i if d == 0 else j
        c = j if d == 0 else i
        x = letters[r, c]
        LT[j] = x
        BV[j] = 0 if (x < 0 or blanks[r, c]) else values[x]
        MK[j] = mask[d, r, c]
        CS[j] = csum[d, r, c]
        HS[j] = has[d, r, c]
        LM[j] = lmul[r, c]
        WM[j] = wmul[r, c]


@njit(cache=True, nogil=True, inline="always")
def _insert_desc(E, P_ec, n, v, cap):
    """Insert multiplier ``v`` with its cap ``cap`` into the first ``n`` entries of ``E``
    (kept in descending order) and ``P_ec`` (the caps, moved alongside)."""
    q = n - 1
    while q >= 0 and E[q] < v:
        E[q + 1] = E[q]
        P_ec[q + 1] = P_ec[q]
        q -= 1
    E[q + 1] = v
    P_ec[q + 1] = cap


@njit(cache=True, nogil=True, inline="always")
def _has_hash(PH, x):
    """True when the hash ``x`` is in ``PH``'s set (the layout of :func:`_long_hashes`): the
    bit of its top ``PH[63]`` bits first (one cache line, mostly clear), then a binary
    search of the sorted hashes."""
    b = x >> (np.uint64(64) - PH[63])
    if ((PH[64 + np.int64(b >> np.uint64(6))] >> (b & np.uint64(63))) & _ONE) == 0:
        return False
    lo = _lower_bound(PH, 64 + (np.int64(1) << np.int64(PH[63])) // 64, x)
    return lo < PH.shape[0] and PH[lo] == x


@njit(cache=True, nogil=True, inline="always")
def _lower_bound(a, lo, x):
    """The first index ``i >= lo`` of the sorted ``a[lo:]`` with ``a[i] >= x`` (``len(a)``:
    none), by binary search."""
    hi = a.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def _bounds(g, hw, root, letters, blanks, values, lmul, wmul, mask, csum, has, rack, L, rack_size, bingo,
            blank_ok, sept, compl, SB, PH, A_line, A_pos, A_ll, n_anch, A_bound, SK, SL,
            LT, BV, MK, CS, HS, LM, WM, CAP, RV, P_lm, P_cw, P_cap, E, P_ec, HB):
    """An upper bound on the score of every placement the walk from each anchor can find,
    written to ``A_bound`` (-1: none can be found). The "shadow" of MAGPIE and wolges:
    every span of squares such a placement can cover (the anchor filled, at most the rack's
    tile count filled, no filled square on or left of the previous anchor, board tiles
    inside the span taken whole, every filled square allowing some rack letter) is scored as
    if the rack's tiles could go anywhere: board tiles at their face value times the span's
    word multiplier W, fixed cross-word parts in full, and the rack's values on the squares'
    multipliers lm * (W + cross wm): the squares by decreasing multiplier, each taking the
    highest rack value left that is at most its cap (the value of the best rack letter the
    square allows; this greedy is the best assignment under caps, by an exchange argument,
    and without caps it is the rearrangement inequality). A square allows a letter when its
    cross-check does and, next to board tiles in the line, when the letter extends them in
    the word graph (board tiles B right of it: an arc for x after the path rev(B) from the
    root; tiles A left of it: the path x rev(A); MAGPIE's left and right extension sets).
    A span of rack tiles only (no board tile in the main word, two tiles or more) needs a
    word of that many rack tiles, and its tiles' face values sum to at most the best such
    word's (``SB``, :func:`_rack_words`; filled onto the highest multipliers first). A span
    that places the whole rack earns the bingo bonus, and is possible at all only when the
    rack is a septet (no board tile in the span) or a reduced octet completed by the span's
    one board tile (``sept``, ``compl``: from the pack's key set); with two or more board
    tiles, when some word's alphagram is the rack plus those tiles: ``PH`` (uint64, see
    :func:`_long_hashes`) holds the tiles' hash numbers and the hashes of the alphagrams of
    the words of ``rack_size`` tiles or more (pipeline/long_alphagrams.py; no hashes, or a
    blank on the rack: assumed possible; a collision only keeps a span).
    A span of all the rack's tiles but one or two through board tiles needs a word whose
    alphagram is the rack less one or two of its tiles plus those board tiles; that is
    looked up later, by the walk, and only for the span that gives an anchor its bound when
    the walk reaches that anchor (:func:`_verified_bound`): ``HB[k, kl * R + kr]`` (uint64)
    is that span's hash (the rack's and its board tiles'), 0 for a span with nothing to
    look up. ``A_bound`` is the highest span bound before those look-ups.

    Per span too: ``SK[k, kl, kr]`` the bound of the span of anchor k with ``kl`` tiles left
    of the anchor and ``kr`` right of it (-1: none); :func:`_suffix` turns it into what the
    walk prunes with inside an anchor."""
    N = letters.shape[0]
    R = SK.shape[1]
    T = 0
    for t in range(L + 1):
        for _ in range(rack[t]):
            RV[T] = 0 if t == L else values[t]
            T += 1
    for p in range(1, T):  # highest first
        v = RV[p]
        q = p - 1
        while q >= 0 and RV[q] < v:
            RV[q + 1] = RV[q]
            q -= 1
        RV[q + 1] = v
    rmask = np.uint64(0)
    for t in range(L):
        if rack[t] > 0:
            rmask |= _ONE << np.uint64(t)
    avail = rmask | (blank_ok if rack[L] > 0 else np.uint64(0))
    # a whole-rack span through two or more board tiles: the hash of the rack's tiles, to
    # which the span's board tiles are added (hx: the check applies)
    hx = PH.shape[0] > 64 and rack[L] == 0 and T == rack_size
    hr = np.uint64(0)
    if hx:
        for t in range(L):
            hr += np.uint64(rack[t]) * PH[t]
    # the rack's distinct letters, highest value first, in RV[32:] (the values use RV[:T])
    nd = 0
    for t in range(L):
        if rack[t] > 0:
            q = nd - 1
            while q >= 0 and values[RV[32 + q]] < values[t]:
                RV[33 + q] = RV[32 + q]
                q -= 1
            RV[33 + q] = t
            nd += 1
    cur = -1
    for k in range(n_anch):
        line = A_line[k]
        d = line // N
        i = line - d * N
        if line != cur:
            cur = line
            _fill_line(letters, blanks, values, lmul, wmul, mask, csum, has, d, i, LT, BV, MK, CS, HS, LM, WM)
            for j in range(N):  # the highest rack letter allowed on square j; -1: none, 0: a blank only
                if LT[j] >= 0:
                    CAP[j] = -1
                    continue
                ok_j = MK[j] & avail
                if ok_j != 0 and j + 1 < N and LT[j + 1] >= 0:
                    # board tiles B right of j: x B must be part of a word (the path rev(B) from
                    # the root, then an arc for x: MAGPIE's "left extension set")
                    e = j + 1
                    while e + 1 < N and LT[e + 1] >= 0:
                        e += 1
                    node = root
                    for q in range(e, j, -1):
                        b = _find(g, hw, node, LT[q])
                        if b < 0:
                            node = 0
                            break
                        node = np.int64(g[b] & _NXT)
                    if node == 0:
                        ok_j = np.uint64(0)
                    else:
                        ok_j &= np.uint64(g[node]) | ((np.uint64(g[node + 1]) << _S32) if hw == 2 else np.uint64(0))
                if ok_j != 0 and j > 0 and LT[j - 1] >= 0:
                    # board tiles A left of j: A x must be part of a word (the path x rev(A))
                    s0 = j - 1
                    while s0 > 0 and LT[s0 - 1] >= 0:
                        s0 -= 1
                    c = ok_j
                    while c != 0:
                        x = np.int64(trailing_zeros(c))
                        c &= c - _ONE
                        b = _find(g, hw, root, x)
                        node = np.int64(g[b] & _NXT) if b >= 0 else 0
                        for q in range(j - 1, s0 - 1, -1):
                            b = _find(g, hw, node, LT[q])
                            if b < 0:
                                node = 0
                                break
                            node = np.int64(g[b] & _NXT)
                        if b < 0:
                            ok_j &= ~(_ONE << np.uint64(x))
                if ok_j == 0:
                    CAP[j] = -1
                    continue
                cv = 0
                for q in range(nd):
                    if ((ok_j >> np.uint64(RV[32 + q])) & _ONE) != 0:
                        cv = values[RV[32 + q]]
                        break
                CAP[j] = cv
        a = A_pos[k]
        ll = A_ll[k]
        best = -1
        SK[k, :, :] = -1
        if CAP[a] < 0:
            A_bound[k] = best
            continue
        B0 = 0
        nb0 = 0
        x0 = -1
        h0 = hr
        if a > 0 and LT[a - 1] >= 0:
            maxleft = 0
            q = a - 1
            while q >= 0 and LT[q] >= 0:
                B0 += BV[q]
                nb0 += 1
                x0 = LT[q]
                if hx:
                    h0 += PH[LT[q]]
                q -= 1
        else:
            maxleft = min(a - ll - 1, T - 1)
        for kl in range(maxleft + 1):
            s0 = a - kl
            if CAP[s0] < 0:
                break
            kk = 0
            W = 1
            XF = 0
            for s in range(s0, a + 1):
                P_lm[kk] = LM[s]
                P_cw[kk] = WM[s] if HS[s] else 0
                P_cap[kk] = CAP[s]
                kk += 1
                W *= WM[s]
                if HS[s]:
                    XF += CS[s] * WM[s]
            B = B0
            nb = nb0
            xb = x0
            hb = h0
            j = a + 1
            Ws = -1  # the word multiplier E (sorted) was made for: -1 none
            while True:
                while j < N and LT[j] >= 0:
                    B += BV[j]
                    nb += 1
                    xb = LT[j]
                    if hx:
                        hb += PH[LT[j]]
                    j += 1
                ok = True
                bonus = 0
                if kk == rack_size:
                    bonus = bingo
                    if nb == 0:
                        ok = sept
                    elif nb == 1:
                        ok = ((compl >> np.uint64(xb)) & _ONE) != 0
                    elif hx:
                        ok = _has_hash(PH, hb)
                budget = -1  # a word of rack tiles only: the most face value such a word holds
                if nb == 0 and kk >= 2:
                    budget = SB[kk]
                    if budget < 0:
                        ok = False  # no word of kk rack tiles
                if ok:
                    if Ws != W:
                        # E: the squares' multipliers lm * (W + cross wm), highest first, with
                        # their caps in P_ec (insertion sort; kept while W stays the same)
                        for p in range(kk):
                            _insert_desc(E, P_ec, p, P_lm[p] * (W + P_cw[p]), P_cap[p])
                        Ws = W
                    # the rack's values on those multipliers, each square taking the highest
                    # value left that its cap allows (optimal for caps: an exchange argument),
                    # and (a word of rack tiles only) at most the budget, highest first
                    gsum = 0
                    used = np.uint64(0)
                    for p in range(kk):
                        cp = P_ec[p]
                        for q in range(T):
                            if ((used >> np.uint64(q)) & _ONE) == 0 and RV[q] <= cp:
                                used |= _ONE << np.uint64(q)
                                gsum += RV[q] * E[p]
                                break
                    if budget >= 0:
                        rsum = 0
                        rem = budget
                        for p in range(kk):
                            x = RV[p] if RV[p] < rem else rem
                            rsum += x * E[p]
                            rem -= x
                        if rsum < gsum:
                            gsum = rsum
                    ub = W * B + XF + gsum + bonus
                    SK[k, kl, kk - kl - 1] = ub
                    HB[k, kl * R + kk - kl - 1] = hb if hx and nb >= 1 and rack_size - 2 <= kk < rack_size else _ZERO
                    if ub > best:
                        best = ub
                if j >= N or kk >= T or CAP[j] < 0:
                    break
                P_lm[kk] = LM[j]
                P_cw[kk] = WM[j] if HS[j] else 0
                P_cap[kk] = CAP[j]
                if Ws == W and WM[j] == 1:  # W unchanged: insert the new square into E
                    _insert_desc(E, P_ec, kk, P_lm[kk] * (W + P_cw[kk]), P_cap[kk])
                else:
                    Ws = -1
                kk += 1
                W *= WM[j]
                if HS[j]:
                    XF += CS[j] * WM[j]
                j += 1
        A_bound[k] = best


@njit(cache=True, nogil=True)
def _verified_bound(SK, HB, PH, rack, L, rack_size, k):
    """Anchor ``k``'s bound once the span that gives it has been looked up (:func:`_bounds`:
    a span of all the rack's tiles but one or two through board tiles, ``HB`` its hash):
    while the highest span of ``SK[k]`` is such a span and no word's alphagram is the rack
    less one or two of its tiles plus its board tiles, it is dropped (-1) and the next one
    looked at. Looked-up spans get ``HB`` 0. Returns the highest span bound left (-1: none)."""
    R = SK.shape[1]
    while True:
        bv = -1
        bx = by = 0
        for x in range(R):
            for y in range(R):
                if SK[k, x, y] > bv:
                    bv = SK[k, x, y]
                    bx = x
                    by = y
        if bv < 0:
            return -1
        h = HB[k, bx * R + by]
        if h == 0:
            return bv
        HB[k, bx * R + by] = 0
        one = bx + by + 1 == rack_size - 1  # one tile left out, else two
        for t in range(L):
            if rack[t] == 0:
                continue
            if one:
                if _has_hash(PH, h - PH[t]):
                    return bv
                continue
            for t2 in range(t, L):
                if rack[t2] > (1 if t2 == t else 0) and _has_hash(PH, h - PH[t] - PH[t2]):
                    return bv
        SK[k, bx, by] = -1


@njit(cache=True, nogil=True)
def _suffix(SK, SL, k):
    """Anchor ``k``'s span bounds ``SK[k]`` made what the walk prunes with: ``SK[k, kl, kr]``
    the highest bound of the spans with ``kl`` tiles left of the anchor and at least ``kr``
    right of it, ``SL[k, kl]`` the highest with at least ``kl`` left (-1: none)."""
    R = SK.shape[1]
    for x in range(R - 1, -1, -1):
        for y in range(R - 2, -1, -1):
            if SK[k, x, y + 1] > SK[k, x, y]:
                SK[k, x, y] = SK[k, x, y + 1]
        SL[k, x] = SK[k, x, 0]
        if x + 1 < R and SL[k, x + 1] > SL[k, x]:
            SL[k, x] = SL[k, x + 1]


@njit(cache=True, nogil=True)
def search_kernel(g, hw, root, letters, blanks, rack, values, lmul, wmul, centre_r, centre_c,
            blank_ok, L, rack_size, bingo, mask, csum, has, buf, cap, I64, U64, B8, SK, SL,
            best_n, sept, compl, SB, PH, top_sc, top_key):
    """Placements, written to ``buf`` as MOVE_DTYPE records (bytes). Two modes:

    - ``best_n == 0``: every placement, in generation order; returns their number (only
      the first ``cap`` are written: call again with a bigger buffer);
    - ``best_n > 0``: the ``best_n`` placements that come first when every placement is
      sorted by score, highest first, ties in generation order; returns how many (fewer
      when the position has fewer placements), written to rows ``0..`` of ``buf`` in no
      order, with their scores in ``top_sc`` and their generation-order keys (anchor
      index << 32 | rank of the move in that anchor's walk) in ``top_key``. Anchors are
      walked by decreasing upper bound (:func:`_bounds`; ``sept``: the rack is a septet,
      ``compl``: the board letters that complete it to an 8-tile word) and the walk stops
      at the first anchor whose bound is below the ``best_n``-th score found (``PH``: the
      long words' alphagram hashes of :func:`_bounds`).

    The anchors (empty squares next to a tile, or the centre on the empty board) are listed
    first, in generation order (across lines, then down lines, left to right), in
    ``A_line`` (d * N + i), ``A_pos``, ``A_ll`` (the previous anchor of the line, -1 none).
    For each anchor, a depth-first walk of the GADDAG with an explicit stack.
    A frame fills one empty square: it runs through ``cand``, the letters its node has that
    the square's cross-check allows and the rack (or a blank) supplies, each as a real tile
    and then as a blank; board tiles next to a filled square are followed inline. ``rack``
    (int64, L+1) is modified during the walk and restored. Every array is an argument,
    allocated by the caller, and nothing inside the walk passes an array to a call or
    rebinds one: no atomic reference counting in the loops."""
    N = letters.shape[0]
    # the work arrays (:func:`_scratch`): views of three arrays, so that a call passes few
    # arguments (each one costs the dispatcher about 0.1 µs)
    LT = I64[0, :N]
    BV = I64[1, :N]
    CS = I64[2, :N]
    LM = I64[3, :N]
    WM = I64[4, :N]
    word = I64[5, :N]
    f_pos = I64[6]
    f_ph = I64[7]
    f_wm = I64[13]
    f_nt = I64[15]
    f_lo = I64[16]
    A_line = I64[17]
    A_pos = I64[18]
    A_ll = I64[19]
    A_ord = I64[20]
    A_bound = I64[21]
    CAP = I64[22, :N]
    RV = I64[23, :64]
    bv = buf.reshape(buf.shape[0] * RECORD_BYTES)  # the records as bytes (_O_ROW ... at dst * RECORD_BYTES)
    # the walk's stack: frame k at FR[k * _F_SIZE + _F_POS ...]; rows 6-16, which _bounds
    # (f_pos, f_ph, f_wm, f_nt, f_lo) uses as its scratch before the walk
    FR = I64[6:17].reshape(11 * I64.shape[1])
    MK = U64[0, :N]
    HB = U64[2:]
    HS = B8[0, :N]
    wbl = B8[1, :N]
    n = 0
    e_lo0 = e_hi0 = e_sc0 = 0
    nt = 0
    n_on_board = 0
    for r in range(N):
        for c in range(N):
            if letters[r, c] >= 0:
                n_on_board += 1
    empty_board = n_on_board == 0
    rmask = np.uint64(0)  # letters on the rack
    for t in range(L):
        if rack[t] > 0:
            rmask |= _ONE << np.uint64(t)
    lmask = np.uint64((1 << L) - 1)  # the letter bits of a node header
    sb = np.uint64(32 * hw - 1)  # its separator bit
    n_anch = _anchors(letters, empty_board, centre_r, centre_c, A_line, A_pos, A_ll)
    if best_n > 0:
        _bounds(g, hw, root, letters, blanks, values, lmul, wmul, mask, csum, has, rack, L, rack_size, bingo,
                blank_ok, sept, compl, SB, PH, A_line, A_pos, A_ll, n_anch, A_bound, SK, SL,
                LT, BV, MK, CS, HS, LM, WM, CAP, RV, f_pos, f_ph, f_nt, f_lo, f_wm, HB)
        A_ord[:n_anch] = np.argsort(-A_bound[:n_anch], kind="mergesort")
    n_top = 0
    worst = 0  # the slot of the lowest of the best_n moves kept (lowest score, latest key)
    thr = 0  # best mode: spans whose bound is below it cannot enter the best_n (scores >= 0)
    cur_line = -1
    for k in range(n_anch):
        if best_n > 0:
            # the next anchor by bound, once the span giving its bound is looked up; when
            # that lowers the bound, the anchor moves down the order and the next is taken
            while True:
                idx = A_ord[k]
                if A_bound[idx] < thr:
                    break
                nbd = _verified_bound(SK, HB, PH, rack, L, rack_size, idx)
                if nbd == A_bound[idx]:
                    break
                A_bound[idx] = nbd
                p = k + 1
                while p < n_anch and A_bound[A_ord[p]] > nbd:
                    A_ord[p - 1] = A_ord[p]
                    p += 1
                A_ord[p - 1] = idx
            idx = A_ord[k]
            if A_bound[idx] < thr:
                break  # no move from here on can enter the best_n
            _suffix(SK, SL, idx)
        else:
            idx = k
        line = A_line[idx]
        d = line // N
        i = line - d * N
        a = A_pos[idx]
        ll = A_ll[idx]
        if line != cur_line:
            cur_line = line
            _fill_line(letters, blanks, values, lmul, wmul, mask, csum, has, d, i, LT, BV, MK, CS, HS, LM, WM)
        avail = rmask | (blank_ok if rack[L] > 0 else np.uint64(0))
        # board tiles right of the anchor (a + 1 .. ra) are walked first, as MAGPIE does from
        # the last tile of a word: the path starts at ra and reads leftwards (rev(LT[a+1..ra])
        # from the root), so the tile placed at a and those left of it can only be letters
        # that precede that word, instead of every letter the root allows, checked only when
        # the walk crossed the separator onto the board tiles. The same placements in the
        # same order (the frames, their squares and letters are those of before), each
        # found by another of its word's paths (split after ra instead of after a).
        ra = a
        while ra + 1 < N and LT[ra + 1] >= 0:
            ra += 1
        node0 = root
        main0 = 0
        x = ra
        while x > a and node0 != 0:
            b = _find(g, hw, node0, LT[x])
            node0 = np.int64(g[b] & _NXT) if b >= 0 else 0
            word[x] = LT[x]
            main0 += BV[x]
            x -= 1
        if node0 == 0:
            continue  # no word holds the tiles right of the anchor with a letter before them
        h0 = np.uint64(g[node0]) | ((np.uint64(g[node0 + 1]) << _S32) if hw == 2 else np.uint64(0))
        cand0 = h0 & lmask & MK[a] & avail
        if cand0 == 0:
            continue
        seq = 0
        tl = a > 0 and LT[a - 1] >= 0  # board tiles left of the anchor: no tile placed left
        no_single = d == 1 and HS[a]  # a one-tile play here is written across
        sp = _push(FR, 0, a, 0, node0, cand0, main0, 1, 0, 0, a)
        while sp > 0:
            f = sp - 1
            f16 = f * _F_SIZE
            e_n = 0  # 1: a move found this step, written at its end (no call, no refcount)
            u = _ld(FR, f16 + _F_USED)
            if u >= 0:
                _st(rack, u, _ld(rack, u) + 1)
                if u < L:
                    rmask |= _ONE << np.uint64(u)
                _st(FR, f16 + _F_USED, -1)
            p = _ld(FR, f16 + _F_POS)
            isb = False
            t = -1
            if _ld(FR, f16 + _F_SUB) == 1:
                # the real tile was tried: now a blank for the same letter, unless the real
                # tile's subtree found no move (then the blank's finds none either: any
                # path its rack R - ? + t spells, the real tile's R - t + ? spells with the
                # blank standing for that t, and the prunes by bound only tighten)
                _st(FR, f16 + _F_SUB, 0)
                if _ld(rack, L) > 0 and ((blank_ok >> np.uint64(_ld(FR, f16 + _F_T))) & _ONE) != 0 and seq != _ld(FR, f16 + _F_SEQ):
                    t = _ld(FR, f16 + _F_T)
                    isb = True
            if t < 0:
                cand = np.uint64(_ld(FR, f16 + _F_CAND))
                if cand == 0:
                    sp -= 1
                    continue
                t = np.int64(trailing_zeros(cand))
                _st(FR, f16 + _F_CAND, cand & (cand - _ONE))
                _st(FR, f16 + _F_T, t)
                if _ld(rack, t) > 0:
                    _st(FR, f16 + _F_SUB, 1)
                else:
                    isb = True
            # take the tile
            u = L if isb else t
            _st(rack, u, _ld(rack, u) - 1)
            if u < L and _ld(rack, u) == 0:
                rmask &= ~(_ONE << np.uint64(u))
            _st(FR, f16 + _F_USED, u)
            _st(FR, f16 + _F_SEQ, seq)
            nd = _ld(FR, f16 + _F_NODE)
            h = np.uint64(_ld(g, nd)) | ((np.uint64(_ld(g, nd + 1)) << _S32) if hw == 2 else np.uint64(0))
            w = _ld(g, nd + hw + np.int64((h >> sb) & _ONE) + popcount(h & ((_ONE << np.uint64(t)) - _ONE)))
            child = np.int64(w & _NXT)
            acc = (w & _ACC) != 0
            lv = 0 if isb else _ld(values, t) * _ld(LM, p)
            main = _ld(FR, f16 + _F_MAIN) + lv
            wm = _ld(FR, f16 + _F_WM) * _ld(WM, p)
            nt = _ld(FR, f16 + _F_NT) + 1
            cross = _ld(FR, f16 + _F_CROSS)
            if _ld(HS, p):
                cross += (_ld(CS, p) + lv) * _ld(WM, p)
            _st(word, p, t)
            _st(wbl, p, isb)
            avail = rmask | (blank_ok if _ld(rack, L) > 0 else np.uint64(0))
            if _ld(FR, f16 + _F_PH) == 0:
                # follow board tiles to the left
                q = p
                ok = True
                while q > 0 and _ld(LT, q - 1) >= 0:
                    b = _find(g, hw, child, _ld(LT, q - 1))
                    if b < 0:
                        ok = False
                        break
                    wb = _ld(g, b)
                    child = np.int64(wb & _NXT)
                    acc = (wb & _ACC) != 0
                    q -= 1
                    _st(word, q, _ld(LT, q))
                    main += _ld(BV, q)
                if not ok:
                    continue
                # q - 1 is empty or off the board: the word may start at q (and end at ra:
                # ra + 1 is empty or off the board)
                if acc and not (nt == 1 and no_single):
                    e_lo0 = q
                    e_hi0 = ra
                    e_sc0 = main * wm + cross + (bingo if nt == rack_size else 0)
                    e_n = 1
                if child != 0:
                    hc = np.uint64(_ld(g, child)) | ((np.uint64(_ld(g, child + 1)) << _S32) if hw == 2 else np.uint64(0))
                    # over the separator (the node's first arc): rightwards from ra + 1, an
                    # empty square (the board tiles right of the anchor were walked first)
                    if ((hc >> sb) & _ONE) != 0 and ra + 1 < N:
                        node2 = np.int64(_ld(g, child + hw) & _NXT)
                        if node2 != 0 and (best_n == 0 or SK[idx, a - p, 1] >= thr):
                            h2 = np.uint64(_ld(g, node2)) | ((np.uint64(_ld(g, node2 + 1)) << _S32) if hw == 2 else np.uint64(0))
                            cn = h2 & lmask & _ld(MK, ra + 1) & avail
                            if cn != 0:
                                sp = _push(FR, sp, ra + 1, 1, node2, cn, main, wm, cross, nt, q)
                    # further left, over empty squares that are not anchors
                    if q == p and p - 1 > ll and (best_n == 0 or SL[idx, a - p + 1] >= thr):
                        cn = hc & lmask & _ld(MK, p - 1) & avail
                        if cn != 0:
                            sp = _push(FR, sp, p - 1, 0, child, cn, main, wm, cross, nt, p - 1)
            else:
                lo = _ld(FR, f16 + _F_LO)
                rr = p + 1
                ok = True
                while rr < N and _ld(LT, rr) >= 0:
                    b = _find(g, hw, child, _ld(LT, rr))
                    if b < 0:
                        ok = False
                        break
                    wb = _ld(g, b)
                    child = np.int64(wb & _NXT)
                    acc = (wb & _ACC) != 0
                    _st(word, rr, _ld(LT, rr))
                    main += _ld(BV, rr)
                    rr += 1
                if not ok:
                    continue
                if acc and not (nt == 1 and no_single):
                    e_lo0 = lo
                    e_hi0 = rr - 1
                    e_sc0 = main * wm + cross + (bingo if nt == rack_size else 0)
                    e_n = 1
                if rr < N and child != 0 and (best_n == 0 or SK[idx, 0 if tl else a - lo, nt - (0 if tl else a - lo)] >= thr):
                    hc = np.uint64(_ld(g, child)) | ((np.uint64(_ld(g, child + 1)) << _S32) if hw == 2 else np.uint64(0))
                    cn = hc & lmask & _ld(MK, rr) & avail
                    if cn != 0:
                        sp = _push(FR, sp, rr, 1, child, cn, main, wm, cross, nt, lo)
            # write the move found this step (at most one: its word's last square is ra in
            # the leftward phase, the step's square in the rightward one)
            if e_n:
                lo_ = e_lo0
                hi_ = e_hi0
                sc_ = e_sc0
                if best_n > 0:
                    key = (idx << 32) | seq
                    dst = -1
                    if n_top < best_n:
                        dst = n_top
                        n_top += 1
                    elif sc_ > top_sc[worst] or (sc_ == top_sc[worst] and key < top_key[worst]):
                        dst = worst
                    if dst >= 0:
                        top_sc[dst] = sc_
                        top_key[dst] = key
                        if n_top == best_n:
                            worst = 0
                            for q2 in range(1, best_n):
                                if top_sc[q2] < top_sc[worst] or (top_sc[q2] == top_sc[worst] and top_key[q2] > top_key[worst]):
                                    worst = q2
                            thr = top_sc[worst]
                else:
                    dst = n if n < cap else -1
                    n += 1
                seq += 1
                if dst >= 0:
                    o = dst * RECORD_BYTES
                    if d == 0:
                        _st(bv, o + _O_ROW, i)
                        _st(bv, o + _O_COL, lo_)
                        _st(bv, o + _O_ACROSS, 1)
                    else:
                        _st(bv, o + _O_ROW, lo_)
                        _st(bv, o + _O_COL, i)
                        _st(bv, o + _O_ACROSS, 0)
                    _st(bv, o + _O_KIND, 0)
                    ln = hi_ - lo_ + 1
                    _st(bv, o + _O_LEN, ln)
                    for j in range(_MAXN):
                        if j < ln:
                            pp = lo_ + j
                            _st(bv, o + _O_TILES + j, _ld(word, pp))
                            if _ld(LT, pp) < 0:
                                _st(bv, o + _O_NEW + j, 1)
                                _st(bv, o + _O_BLANK + j, 1 if _ld(wbl, pp) else 0)
                            else:
                                _st(bv, o + _O_NEW + j, 0)
                                _st(bv, o + _O_BLANK + j, 0)
                        else:
                            _st(bv, o + _O_TILES + j, 255)
                            _st(bv, o + _O_NEW + j, 0)
                            _st(bv, o + _O_BLANK + j, 0)
                    _st(bv, o + _O_NT, nt)
                    _st(bv, o + 51, 0)
                    _st(bv, o + _O_SCORE, sc_ & 0xFF)
                    _st(bv, o + _O_SCORE + 1, (sc_ >> 8) & 0xFF)
                    _st(bv, o + _O_SCORE + 2, (sc_ >> 16) & 0xFF)
                    _st(bv, o + _O_SCORE + 3, (sc_ >> 24) & 0xFF)
    return n_top if best_n > 0 else n


def _scratch(N: int, R: int) -> tuple:
    """Work arrays of the search for an N x N board, as (I64, U64, B8, SK, SL): rows of
    I64 (int64): the line arrays LT, BV, CS, LM, WM, word (0-5), the walk's explicit stack
    (rows 6-16 as one flat array, ``_F_SIZE`` int64 a frame: S = 2N + 8 frames, at most two
    pushed a square, and 11 W >= 16 S; before the walk, rows 6, 7, 13, 15 and 16 are
    _bounds' scratch), the anchor list A_line, A_pos, A_ll,
    A_ord, A_bound (17-21), _bounds' CAP and RV (22, 23), row 24 unused, the rack the fused entries copy and modify (25), the
    empty SB, top scores and keys of a full list (26); U64 (uint64): MK, row 1 unused, then
    _bounds' HB (rows 2..: one an anchor, R * R spans); B8
    (bool): HS, wbl; SK, SL: the per-span bounds of the best-N search (R = rack size + 1
    tile counts a side). Allocated once a thread and pack and reused."""
    S = 2 * N + 8
    A = 2 * N * N  # at most one anchor a square and direction
    W = max(A, S, 64)
    return (np.zeros((27, W), np.int64), np.zeros((2 + A, max(N, S, R * R)), np.uint64), np.zeros((2, N), np.bool_),
            np.zeros((A, R, R), np.int32), np.zeros((A, R), np.int32))


@njit(cache=True, nogil=True)
def _extras(buf, n, cap, rack, L, max_exch, with_pass):
    """Exchanges (every distinct sub-multiset of the rack of 1..max_exch tiles, odometer
    over the tile kinds) and the pass, written after the n placements. Returns the new n
    (only the first ``cap`` records are written)."""
    total = 0
    for t in range(L + 1):
        total += rack[t]
    if max_exch > 0 and total > 0:
        kinds = np.empty(L + 1, np.int64)
        nk = 0
        for t in range(L + 1):
            if rack[t] > 0:
                kinds[nk] = t
                nk += 1
        cnt = np.zeros(nk, np.int64)
        while True:
            j = 0
            while j < nk:
                if cnt[j] < rack[kinds[j]]:
                    cnt[j] += 1
                    break
                cnt[j] = 0
                j += 1
            if j == nk:
                break
            size = 0
            for q in range(nk):
                size += cnt[q]
            if size > max_exch:
                continue
            if n < cap:
                for b in range(RECORD_BYTES):
                    buf[n, b] = 0
                buf[n, _O_KIND] = 1
                e = 0
                for q in range(nk):
                    for _ in range(cnt[q]):
                        buf[n, _O_TILES + e] = kinds[q]
                        buf[n, _O_NEW + e] = 1
                        buf[n, _O_BLANK + e] = 1 if kinds[q] == L else 0
                        e += 1
                buf[n, _O_LEN] = e
                buf[n, _O_NT] = e
                for e2 in range(e, _MAXN):
                    buf[n, _O_TILES + e2] = 255
            n += 1
    if with_pass:
        if n < cap:
            for b in range(RECORD_BYTES):
                buf[n, b] = 0
            buf[n, _O_KIND] = 2
            for e2 in range(_MAXN):
                buf[n, _O_TILES + e2] = 255
        n += 1
    return n


@njit(cache=True, nogil=True)
def _rack_checked(K, I64, letters, blanks, rack_in):
    """Copy ``rack_in`` ((L+1,) int64, only read) into the walk's copy, I64 row 25, and
    check the position (:func:`_check`): ``(L, rack size, the copy, tiles on the rack,
    error code or 0)``, L and the rack size from ``K`` (see :func:`_gen_all`)."""
    L = K[4]
    rs = K[5]
    rack = I64[25, :L + 1]
    tot = 0
    for t in range(L + 1):
        rack[t] = rack_in[t]
        tot += rack_in[t]
    return L, rs, rack, tot, _check(letters, blanks, rack, L, rs)


@njit(cache=True, nogil=True)
def _gen_all(g, values, lmul, wmul, K, letters, blanks, rack_in, mask, csum, has, kept, buf,
             I64, U64, B8, SK, SL, XB, bingo, max_exch, with_pass):
    """One call for :func:`generate`: the checks (:func:`_check`), the kept cross-checks
    (:func:`_cross_kept`), every placement (:func:`search_kernel`), the exchanges and the pass
    (:func:`_extras`), written into ``buf`` ((cap, RECORD_BYTES) uint8). ``K`` (int64): hw, root,
    centre row, centre column, L, rack size, blank_ok (the letters a blank may stand for,
    as bits). ``rack_in`` (L+1,) int64 is only read (the walk works on a copy in I64 row
    25). The exchanges and the pass of the last (rack, max_exch, with_pass) are kept in
    ``XB`` ((2 ** rack size + 1, RECORD_BYTES) uint8; the key in I64 row 26 from column 8: the
    counts, max_exch, with_pass, the record count) and copied when asked again (a decision
    and its re-valuations ask for the same rack). Returns the number of moves (may exceed
    cap: call again with a bigger buffer), or minus the error code of :func:`_check`. One
    dispatch instead of four, and arrays the context keeps instead of fresh ones."""
    L, rs, rack, tot, err = _rack_checked(K, I64, letters, blanks, rack_in)
    if err != 0:
        return -err
    cap = buf.shape[0]
    n = 0
    if tot > 0:
        _cross_kept(g, K[0], K[1], letters, blanks, values, L, mask, csum, has, kept)
        none = I64[26, :1]
        n = search_kernel(g, K[0], K[1], letters, blanks, rack, values, lmul, wmul, K[2], K[3], np.uint64(K[6]), L, rs,
                    bingo, mask, csum, has, buf, cap, I64, U64, B8, SK, SL, 0, False, np.uint64(0), none,
                    U64[1, :1], none, none)
    kb = 8
    wp = 1 if with_pass else 0
    same = I64[26, kb + L + 1] == max_exch and I64[26, kb + L + 2] == wp
    if same:
        for t in range(L + 1):
            if I64[26, kb + t] != rack[t]:
                same = False
                break
    if not same:
        ne = _extras(XB, 0, XB.shape[0], rack, L, max_exch, with_pass)
        if ne > XB.shape[0]:  # more than the kept buffer holds (not with racks of 7)
            I64[26, kb + L + 1] = -1
            return _extras(buf, n, cap, rack, L, max_exch, with_pass)
        for t in range(L + 1):
            I64[26, kb + t] = rack[t]
        I64[26, kb + L + 1] = max_exch
        I64[26, kb + L + 2] = wp
        I64[26, kb + L + 3] = ne
    ne = I64[26, kb + L + 3]
    for q in range(ne):
        if n + q < cap:
            for b in range(RECORD_BYTES):
                buf[n + q, b] = XB[q, b]
    return n + ne


@njit(cache=True, nogil=True)
def _best_all(g, values, lmul, wmul, K, letters, blanks, rack_in, mask, csum, has, kept, buf,
              I64, U64, B8, SK, SL, bingo, best_n, sept, compl, SB, PH, top_sc, top_key):
    """One call for :func:`generate_best`: the checks, the kept cross-checks and the best-N
    search (:func:`search_kernel` with ``best_n``; ``sept``, ``compl``, ``SB``: :func:`_rack_info`;
    ``PH``: :func:`_long_hashes`).
    Arguments as :func:`_gen_all`. Returns how many placements were written (0 for an empty
    rack), or minus the error code of :func:`_check`."""
    L, rs, rack, tot, err = _rack_checked(K, I64, letters, blanks, rack_in)
    if err != 0:
        return -err
    if tot == 0:
        return 0
    _cross_kept(g, K[0], K[1], letters, blanks, values, L, mask, csum, has, kept)
    return search_kernel(g, K[0], K[1], letters, blanks, rack, values, lmul, wmul, K[2], K[3], np.uint64(K[6]), L, rs,
                   bingo, mask, csum, has, buf, buf.shape[0], I64, U64, B8, SK, SL, best_n, sept, compl, SB,
                   PH, top_sc, top_key)


@njit(cache=True, nogil=True)
def _leaves(rack, kind, length, tiles, new, blank, L):
    n = kind.shape[0]
    out = np.empty((n, L + 1), np.int64)
    bad = -1
    for k in range(n):
        for t in range(L + 1):
            out[k, t] = rack[t]
        if kind[k] == 2:
            continue
        for j in range(length[k]):
            if kind[k] == 1:
                t = tiles[k, j]
            elif new[k, j]:
                t = L if blank[k, j] else tiles[k, j]
            else:
                continue
            if t < 0 or t > L:
                bad = k
                continue
            out[k, t] -= 1
            if out[k, t] < 0:
                bad = k
    return out, bad


# -- Python side --------------------------------------------------------------------------
class KernelContext(NamedTuple):
    """What the compiled kernels need of one pack, in one thread (:func:`kernel_context`):
    the word graph and the spec's numbers as kernel arguments, and the thread's reusable
    buffers and caches. Part of the kernel interface: δ (:mod:`heuri.eval.bingo`) and the
    endgame (:mod:`heuri.search.endgame_core`, :mod:`heuri.search.endgame_kernels`) read
    ``g``, ``hw``, ``root``, ``values``, ``lmul``, ``wmul``, ``centre``, ``blank_ok``,
    ``L``, ``rack_size``, ``bingo`` and ``scratch``; the other fields are the move
    generator's own.

    - ``g``: (n,) uint32, the GADDAG (:class:`heuri.core.pack.WordGraph` ``nodes``);
      ``hw`` its header words, ``root`` its root node;
    - ``values``: (K,) int64 face values by tile id (blank last); ``lmul``, ``wmul``: (N, N)
      int64 letter and word multipliers; ``centre``: (row, col) of the start square;
    - ``blank_ok``: uint64, bit x set when a blank may stand for letter x;
    - ``L`` letters, ``N`` board size, ``rack_size``, ``bingo`` (bonus points),
      ``exchange_min_bag``: the spec's numbers;
    - ``scratch``: the search's work arrays (:func:`search_kernel`'s ``I64 .. SL``).
    """

    g: NDArray[np.uint32]
    hw: int
    root: int
    values: NDArray[np.int64]
    lmul: NDArray[np.int64]
    wmul: NDArray[np.int64]
    centre: tuple[int, int]
    blank_ok: np.uint64
    L: int
    N: int
    rack_size: int
    bingo: int
    exchange_min_bag: int
    cap: list  # [moves the output buffer holds]; grows when a position needs more
    scratch: tuple  # the search's work arrays (_scratch)
    out: list  # [the output buffer, (cap, 56) uint8]: written by every call, copied out
    cross: tuple  # (mask, csum, has, kept): the cross-checks of the last board seen (_cross_kept)
    keys: list  # [(key codes, flags, completers) of the pack's key set, or None], loaded once
    blank_max: int  # the most blanks a key holds
    rackw: list  # [rack bytes, (sept, compl, SB)]: :func:`_rack_info` of the last rack
    top: list  # [scores, keys] of generate_best's top moves (int64), grown as n needs
    K: np.ndarray  # int64: hw, root, centre row and column, L, rack size, blank_ok (_gen_all)
    xb: np.ndarray  # the exchanges and pass of the last rack, (2 ** rack size + 1, 56) uint8 (_gen_all)
    longw: list  # [PH of _long_hashes], loaded once


class _ThreadContexts(threading.local):
    """The contexts of one thread, by pack (``get``, ``[pack] = ctx``). A context holds the
    output buffer, the search's scratch arrays and the cross-check cache, which two threads
    must never share: ``heuri serve`` answers requests from a thread pool, and the compiled
    kernels release the interpreter lock (``nogil``). The large arrays (word graph, key set)
    are the pack's memory maps in every thread, not copies."""

    def __init__(self):
        self.by_pack = weakref.WeakKeyDictionary()

    def get(self, pack):
        return self.by_pack.get(pack)

    def __setitem__(self, pack, ctx):
        self.by_pack[pack] = ctx


_CTX = _ThreadContexts()


def premiums(spec) -> tuple[np.ndarray, np.ndarray]:
    """Letter and word multipliers of the spec's board: two (N, N) int64 arrays (``t`` 3,
    ``d`` 2 letter; ``T`` 3, ``D`` and the centre ``*`` 2 word; else 1), from
    :func:`heuri.board.premium_arrays`."""
    from .board import premium_arrays

    lm, wm = premium_arrays(spec.board)
    return lm.astype(np.int64), wm.astype(np.int64)


def kernel_context(pack: "LanguagePack") -> KernelContext:
    """The calling thread's :class:`KernelContext` for ``pack`` (made on first use, then
    kept while the pack lives). Raises MoveGenError when the board is larger than the
    move records hold (15x15)."""
    ctx = _CTX.get(pack)
    if ctx is None:
        spec = pack.spec
        L = spec.n_letters
        N = spec.board_size
        if N > _MAXN:
            raise MoveGenError(f"{spec.code}: board {N}x{N} is larger than the {_MAXN}x{_MAXN} "
                               "the move records hold")
        g = pack.graph
        lm, wm = premiums(spec)
        centre = next((r, row.index("*")) for r, row in enumerate(spec.board) if "*" in row)
        ok = 0
        for t, sym in enumerate(spec.tiles):
            if sym not in spec.blank_cannot_represent:
                ok |= 1 << t
        buf = np.empty((4096, RECORD_BYTES), np.uint8)
        cross = (np.zeros((2, N, N), np.uint64), np.zeros((2, N, N), np.int32), np.zeros((2, N, N), np.bool_),
                 np.zeros(2 * N * N + 1, np.int8))
        K = np.array([int(g.header_words), int(g.root), centre[0], centre[1], L, spec.rack_size, ok], np.int64)
        ctx = KernelContext(np.ascontiguousarray(g.nodes), int(g.header_words), int(g.root), np.array(spec.values, np.int64),
                   lm, wm, centre, np.uint64(ok), L, N, spec.rack_size, spec.bingo_bonus,
                   spec.exchange_min_bag, [4096], _scratch(N, spec.rack_size + 1), [buf],
                   cross, [], min(spec.blank_count, spec.rack_size),
                   [None, None], [np.zeros(16, np.int64), np.zeros(16, np.int64)], K,
                   np.zeros((2 ** min(spec.rack_size, 12) + 1, RECORD_BYTES), np.uint8), [])
        _CTX[pack] = ctx
    return ctx


_DT_I8 = np.dtype(np.int8)
_DT_B = np.dtype(np.bool_)
_DT_I64 = np.dtype(np.int64)


def _board(ctx: KernelContext, letters, blanks):
    N = ctx.N
    if (type(letters) is np.ndarray and type(blanks) is np.ndarray and letters.dtype is _DT_I8
            and blanks.dtype is _DT_B and letters.shape == (N, N) and blanks.shape == (N, N)
            and letters.flags.c_contiguous and blanks.flags.c_contiguous):
        return letters, blanks  # the common case, in a few attribute reads
    letters = np.asarray(letters)
    blanks = np.asarray(blanks)
    if letters.shape != (N, N) or blanks.shape != (N, N):
        raise MoveGenError(f"board: letters {letters.shape} and blanks {blanks.shape} must both "
                           f"be ({N}, {N})")
    if letters.dtype != np.int8 or not letters.flags.c_contiguous:
        if not np.issubdtype(letters.dtype, np.integer):
            raise MoveGenError(f"board: letters must hold integer tile ids, got {letters.dtype}")
        if letters.size and (letters.min() < -1 or letters.max() >= ctx.L):
            bad = np.argwhere((letters < -1) | (letters >= ctx.L))[0]
            raise MoveGenError(f"board: letter id {letters[tuple(bad)]} at row {bad[0] + 1} "
                               f"col {bad[1] + 1} is not -1 or a letter 0..{ctx.L - 1}")
        letters = np.ascontiguousarray(letters, np.int8)
    if blanks.dtype != np.bool_ or not blanks.flags.c_contiguous:
        blanks = np.ascontiguousarray(blanks, np.bool_)
    return letters, blanks


def _raise(err: int, ctx: KernelContext, letters, blanks, rack):
    if err == 1:
        bad = np.argwhere((letters < -1) | (letters >= ctx.L))[0]
        raise MoveGenError(f"board: letter id {letters[tuple(bad)]} at row {bad[0] + 1} col "
                           f"{bad[1] + 1} is not -1 or a letter 0..{ctx.L - 1}")
    if err == 2:
        bad = np.argwhere(blanks & (letters < 0))[0]
        raise MoveGenError(f"board: blank flag on the empty square at row {bad[0] + 1} col {bad[1] + 1}")
    if err == 3:
        raise MoveGenError(f"rack: negative count in {rack.tolist()}")
    if err == 4:
        raise MoveGenError(f"rack: {int(rack.sum())} tiles, more than the rack size {ctx.rack_size}")
    raise MoveGenError(f"move generator: error code {err}")


def _grow(ctx: KernelContext, cap: int) -> None:
    """A bigger output buffer (rare), kept for the next calls."""
    ctx.cap[0] = cap
    buf = np.empty((cap, RECORD_BYTES), np.uint8)
    ctx.out[0] = buf


def _rack(ctx: KernelContext, rack) -> np.ndarray:
    r = np.array(rack, dtype=np.int64)  # a copy: the search modifies it
    if r.shape != (ctx.L + 1,):
        raise MoveGenError(f"rack: a count vector of length {ctx.L + 1} (letters, blank last) "
                           f"is expected, got shape {r.shape}")
    return r


def _rack_in(ctx: KernelContext, rack) -> np.ndarray:
    """The rack as a contiguous (L+1,) int64 array, the caller's own when it is one (the
    fused kernels only read it), else a converted copy; raises MoveGenError for a wrong
    shape."""
    if (type(rack) is np.ndarray and rack.dtype is _DT_I64 and rack.shape == (ctx.L + 1,)
            and rack.flags.c_contiguous):
        return rack
    return _rack(ctx, rack)


def generate(pack: "LanguagePack", letters, blanks, rack, bag_size: int | None = None,
             exchanges: bool = True, rules=None) -> NDArray[np.void]:
    """Every legal move of a position, scored, as an array of :data:`MOVE_DTYPE`.

    ``pack``: a LanguagePack (its spec and word graph). ``letters``: (N, N) int array, -1
    empty, else the letter id (a blank holds the letter it stands for); ``blanks``: (N, N)
    bool, True where the board tile is a blank. ``rack``: count vector (L+1,), blank last,
    at most ``spec.rack_size`` tiles. ``bag_size``: tiles left in the bag; ``None`` means
    "enough" (at least ``rack_size``). ``exchanges``: list exchanges (when the bag holds at
    least ``spec.exchange_min_bag`` tiles, never more tiles than the bag holds) and the
    pass; False lists placements only. ``rules``: a LanguageSpec whose ``bingo_bonus`` and
    ``exchange_min_bag`` replace the pack's (a CGP's ``bb``/``etl`` operations, see
    :meth:`heuri.cgp.CgpRecord.rules`); None = the pack's rules.

    Order: placements (across, then down), exchanges, the pass. Conventions and scoring:
    see the module docstring. Raises MoveGenError (a HeuriError) for a malformed position.
    """
    ctx = _CTX.get(pack) or kernel_context(pack)
    letters, blanks = _board(ctx, letters, blanks)
    r = _rack_in(ctx, rack)
    bingo, min_bag = ctx.bingo, ctx.exchange_min_bag
    if rules is not None:
        bingo, min_bag = int(rules.bingo_bonus), int(rules.exchange_min_bag)
    max_exch = 0
    if exchanges:
        bag = ctx.rack_size if bag_size is None else int(bag_size)
        if bag >= min_bag and bag > 0:
            max_exch = min(ctx.rack_size, bag)
    cc = ctx.cross
    while True:
        n = _gen_all(ctx.g, ctx.values, ctx.lmul, ctx.wmul, ctx.K, letters, blanks, r, cc[0], cc[1], cc[2], cc[3],
                     ctx.out[0], *ctx.scratch, ctx.xb, bingo, max_exch, bool(exchanges))
        if n < 0:
            _raise(-n, ctx, letters, blanks, r)
        if n <= ctx.cap[0]:
            break
        _grow(ctx, max(n, 2 * ctx.cap[0]))
    # the buffer is the context's, rewritten by the next call: the caller gets a copy (of
    # the bytes: numpy's copy of the structured view would leave the padding byte unwritten)
    return ctx.out[0][:n].copy().view(MOVE_DTYPE).reshape(n)


# What :func:`search_kernel` takes for the best-N inputs when it lists every placement
# (``best_n == 0``): its ``top_sc``, ``SB``, ``top_key`` and ``PH`` are then not read, but
# the compiled signature needs arrays of their dtypes (kernel interface).
NO_TOP_SCORES = np.zeros(1, np.int64)
NO_RACK_WORDS = np.zeros(1, np.int64)
NO_TOP_KEYS = np.zeros(1, np.int64)
NO_LONG_HASHES = np.zeros(1, np.uint64)


def walk_placements(ctx: KernelContext, letters: NDArray[np.int8], blanks: NDArray[np.bool_], r: NDArray[np.int64],
                    cc: tuple[NDArray[np.uint64], NDArray[np.int32], NDArray[np.bool_]], bingo: int,
                    buf: NDArray[np.uint8], cap: int) -> int:
    """Every placement of rack ``r`` ((L+1,) int64, modified and restored) on a checked
    board with cross-checks ``cc`` (:func:`cross_checks_kernel`), written into ``buf`` ((cap, RECORD_BYTES)
    uint8); returns the count, which may exceed ``cap`` (then call again with a bigger
    buffer). The endgame solver's generator (:class:`heuri.endgame_kernels.FastGen`, which
    keeps its own cross-checks by board hash) uses it; :func:`generate` calls the fused
    :func:`_gen_all`."""
    return search_kernel(ctx.g, ctx.hw, ctx.root, letters, blanks, r, ctx.values, ctx.lmul,
                   ctx.wmul, ctx.centre[0], ctx.centre[1], ctx.blank_ok, ctx.L,
                   ctx.rack_size, bingo, cc[0], cc[1], cc[2], buf, cap, *ctx.scratch,
                   0, False, np.uint64(0), NO_RACK_WORDS, NO_LONG_HASHES, NO_TOP_SCORES, NO_TOP_KEYS)


def _bingo_keys(pack, ctx: KernelContext, r: np.ndarray) -> tuple[bool, np.uint64]:
    """(the rack is a septet, the board letters that complete it to an 8-tile word) from
    the pack's Heuri_3 key set, for the bingo part of :func:`_bounds`. A full rack that is
    not a key has no 7- or 8-tile bingo. Anything the key set cannot say (no key set, a
    rack with more blanks than a key holds, a rack that is not full) gives (True, every
    letter): no pruning."""
    allow = (True, np.uint64((1 << ctx.L) - 1))
    if int(r.sum()) != ctx.rack_size or int(r[ctx.L]) > ctx.blank_max:
        return allow
    if not ctx.keys:
        try:
            ks = pack.keys
            ctx.keys.append((np.ascontiguousarray(ks.code, np.int64), np.asarray(ks.flags), np.asarray(ks.completers)))
        except (AttributeError, FileNotFoundError, OSError):
            ctx.keys.append(None)
    if ctx.keys[0] is None:
        return allow
    code_arr, flags, compl = ctx.keys[0]
    k = _key_index(code_arr, r)
    if k < 0:
        return False, np.uint64(0)
    f = int(flags[k])
    return bool(f & 1), np.uint64(int(compl[k]) if f & 2 else 0)


@njit(cache=True, nogil=True)
def _rack_words(g, hw, root, rack, L, values, SB):
    """The words made of the rack's tiles only, by length: ``SB[k]`` = the highest sum of
    face values of a ``k``-tile word the rack spells (-1: none), for ``k`` = 2..len(SB)-1,
    for a rack without blanks (a depth-first walk of the GADDAG's reversed words, the paths
    without a separator, taking rack tiles; a few hundred nodes for a 7-tile rack). A rack
    with a blank gets ``SB[k]`` = a value no word exceeds (no constraint): the walk with a
    blank visits twenty times more nodes. ``rack`` (L+1,) is modified and restored."""
    K = SB.shape[0]
    for k in range(K):
        SB[k] = -1
    if rack[L] > 0:
        for k in range(K):
            SB[k] = 1 << 30
        return
    lmask = np.uint64((1 << L) - 1)
    sb = np.uint64(32 * hw - 1)
    st_node = np.empty(K + 1, np.int64)
    st_cand = np.empty(K + 1, np.uint64)
    st_used = np.empty(K + 1, np.int64)
    st_val = np.empty(K + 1, np.int64)
    rmask = np.uint64(0)
    for t in range(L):
        if rack[t] > 0:
            rmask |= _ONE << np.uint64(t)
    h = np.uint64(g[root]) | ((np.uint64(g[root + 1]) << _S32) if hw == 2 else np.uint64(0))
    st_node[0] = root
    st_cand[0] = h & lmask & rmask
    st_used[0] = -1
    st_val[0] = 0
    sp = 1
    while sp > 0:
        f = sp - 1
        u = st_used[f]
        if u >= 0:
            rack[u] += 1
            st_used[f] = -1
        c = st_cand[f]
        t = -1
        while c != 0:
            x = np.int64(trailing_zeros(c))
            c &= c - _ONE
            if rack[x] > 0:
                t = x
                break
        st_cand[f] = c
        if t < 0:
            sp -= 1
            continue
        rack[t] -= 1
        st_used[f] = t
        nd = st_node[f]
        hh = np.uint64(g[nd]) | ((np.uint64(g[nd + 1]) << _S32) if hw == 2 else np.uint64(0))
        w = g[nd + hw + np.int64((hh >> sb) & _ONE) + popcount(hh & ((_ONE << np.uint64(t)) - _ONE))]
        child = np.int64(w & _NXT)
        v = st_val[f] + values[t]
        if (w & _ACC) != 0 and f + 1 < K and v > SB[f + 1]:
            SB[f + 1] = v
        if child != 0 and sp < K:
            hc = np.uint64(g[child]) | ((np.uint64(g[child + 1]) << _S32) if hw == 2 else np.uint64(0))
            cn = hc & lmask & rmask
            if cn != 0:
                st_node[sp] = child
                st_cand[sp] = cn
                st_used[sp] = -1
                st_val[sp] = v
                sp += 1


def _long_hashes(pack, ctx: KernelContext) -> np.ndarray:
    """``PH`` of :func:`_bounds`: one uint64 array, the pack's ``long_alphagrams/`` as a
    bitset for :func:`_has_hash`: ``PH[:63]`` the tiles' hash numbers (tile ids up to 62),
    ``PH[63]`` = b, then 2**b bits (bit k % 64 of word ``PH[64 + k // 64]``) where bit k is
    set when some hash has k as its top b bits (at least 32 bits a hash, at most 2**23 bits:
    1 MiB, a few % of them set), then the sorted hashes. Just 64 zeros (no check:
    ``len(PH) == 64``) for a pack built without that artifact, or whose artifact does not
    match the pack (its counts against the manifest's and the rack size: a stale set could
    prune real moves, a missing one only costs time). Built once per context (es: 466,807
    hashes, about 20 ms)."""
    if not ctx.longw:
        import json

        d = pack.root / "long_alphagrams"
        try:
            meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
            z = np.load(d / "zobrist.npy")
            h = np.ascontiguousarray(np.load(d / "hashes.npy"), np.uint64)
            ok = (meta["min_tiles"] == pack.spec.rack_size - 1 and meta["hashes"] == len(h) == len(np.unique(h))
                  and pack.manifest["counts"].get("long_alphagrams") == meta["alphagrams"])
        except (AttributeError, KeyError, TypeError, ValueError, OSError):
            ok = False
        if not ok:
            ctx.longw.append(np.zeros(64, np.uint64))
            return ctx.longw[0]
        bits = int(min(23, max(6, np.ceil(np.log2(max(len(h), 1) * 32)))))
        ph = np.zeros(64 + (1 << bits) // 64 + len(h), np.uint64)
        ph[:63] = z[:63]
        ph[63] = bits
        k = h >> np.uint64(64 - bits)
        np.bitwise_or.at(ph, 64 + (k >> np.uint64(6)).astype(np.int64), np.uint64(1) << (k & np.uint64(63)))
        ph[64 + (1 << bits) // 64:] = h
        ctx.longw.append(ph)
    return ctx.longw[0]


def _rack_info(pack, ctx: KernelContext, r: np.ndarray) -> tuple:
    """(sept, compl, SB) of rack ``r`` for :func:`_bounds`: :func:`_bingo_keys` and
    :func:`_rack_words`, kept for the last rack (a decision, a re-valuation, the benchmark's
    repeated calls ask again)."""
    key = r.tobytes()
    c = ctx.rackw
    if c[0] != key:
        sept, compl = _bingo_keys(pack, ctx, r)
        sb = c[1][2] if c[1] is not None else np.zeros(ctx.rack_size + 1, np.int64)
        _rack_words(ctx.g, ctx.hw, ctx.root, r, ctx.L, ctx.values, sb)
        c[0] = None
        c[1] = (sept, compl, sb)
        c[0] = key
    return c[1]


@njit(cache=True, nogil=True)
def _key_index(codes, rack):
    """Index of the rack's key in the sorted key codes, or -1. The code packs the tiles in
    ascending order (blank = L last), 6 bits each, the first in the high bits
    (pipeline.keys.encode)."""
    code = np.int64(0)
    for t in range(rack.shape[0]):
        for _ in range(rack[t]):
            code = (code << 6) | t
    lo = _lower_bound(codes, 0, code)
    return lo if lo < codes.shape[0] and codes[lo] == code else -1


def generate_best(pack: "LanguagePack", letters, blanks, rack, n: int = 1, rules=None) -> NDArray[np.void]:
    """The ``n`` highest-scoring placements of a position, as an array of :data:`MOVE_DTYPE`,
    highest first: exactly ``generate(..., exchanges=False)`` sorted by score (stable, so
    equal scores keep the generator's order) and cut to ``n`` (fewer when the position has
    fewer placements; exchanges and the pass are never listed).

    ``pack``, ``letters``, ``blanks``, ``rack``: as :func:`generate`; ``n`` >= 1;
    ``rules``: a LanguageSpec whose ``bingo_bonus`` replaces the pack's. Most anchors are
    never walked: each gets an upper bound on its placements' scores (:func:`_bounds`), the
    anchors are walked by decreasing bound, and the search stops at the first bound below
    the ``n``-th score found. Raises MoveGenError for a malformed position or ``n`` < 1."""
    ctx = _CTX.get(pack) or kernel_context(pack)
    if int(n) < 1:
        raise MoveGenError(f"generate_best: n must be at least 1, got {n}")
    n = int(n)
    letters, blanks = _board(ctx, letters, blanks)
    r = _rack_in(ctx, rack)
    bingo = ctx.bingo if rules is None else int(rules.bingo_bonus)
    # (sept, compl, SB) before the checks: _rack_info reads only the counts, whatever they are
    sept, compl, sb = _rack_info(pack, ctx, r)
    ph = ctx.longw[0] if ctx.longw else _long_hashes(pack, ctx)
    if ctx.cap[0] < n:
        _grow(ctx, n)
    if len(ctx.top[0]) < n:
        ctx.top[:] = [np.zeros(n, np.int64), np.zeros(n, np.int64)]
    top_sc, top_key = ctx.top  # only the first k entries are written and read
    cc = ctx.cross
    k = _best_all(ctx.g, ctx.values, ctx.lmul, ctx.wmul, ctx.K, letters, blanks, r, cc[0], cc[1], cc[2], cc[3],
                  ctx.out[0], *ctx.scratch, bingo, n, sept, compl, sb, ph, top_sc, top_key)
    if k < 0:
        _raise(-k, ctx, letters, blanks, r)
    buf = ctx.out[0]
    if k <= 1:
        return buf[:k].copy().view(MOVE_DTYPE).reshape(k)
    order = np.lexsort((top_key[:k], -top_sc[:k]))  # score down, then generation order
    return buf[order].view(MOVE_DTYPE).reshape(k)


def record_index(moves: np.ndarray, rec) -> int | None:
    """The index of the move ``rec`` (a MOVE_DTYPE record, or an array of one) in ``moves``
    (MOVE_DTYPE), compared on kind, squares, tiles, new and blank flags (not the score);
    None when absent. An exchange is matched by the tiles returned; every pass is the pass.

    >>> m = np.zeros(2, MOVE_DTYPE); m["kind"] = [EXCHANGE, PASS]
    >>> record_index(m, m[1]), record_index(m[:1], m[1])
    (1, None)
    """
    r = np.atleast_1d(rec)[0]
    if len(moves) == 0:
        return None
    same = (moves["kind"] == r["kind"]) & (moves["length"] == r["length"])
    if r["kind"] == PLACEMENT:
        same &= (moves["row"] == r["row"]) & (moves["col"] == r["col"]) & (moves["across"] == r["across"])
        same &= (moves["new"] == r["new"]).all(axis=1) & (moves["blank"] == r["blank"]).all(axis=1)
    if r["kind"] != PASS:
        same &= (moves["tiles"] == r["tiles"]).all(axis=1)
    hit = np.flatnonzero(same)
    return int(hit[0]) if len(hit) else None


def leaves(rack, moves: np.ndarray) -> np.ndarray:
    """What stays on the rack after each move: (n, L+1) uint8, ``rack`` minus the tiles the
    move takes (placed tiles, a blank counted as the blank L; exchanged tiles; nothing for a
    pass). ``rack``: count vector (L+1,). Raises MoveGenError when a move uses a tile the
    rack does not hold."""
    r = np.asarray(rack, dtype=np.int64)
    if r.ndim != 1:
        raise MoveGenError(f"rack: a count vector is expected, got shape {r.shape}")
    L = len(r) - 1
    out, bad = _leaves(r, moves["kind"], moves["length"], moves["tiles"], moves["new"],
                       moves["blank"], L)
    if bad >= 0:
        raise MoveGenError(f"move {bad} uses tiles the rack {r.tolist()} does not hold")
    return out.astype(np.uint8)


class CrossChecks(NamedTuple):
    """Per-square constraints for placing a tile, for both directions.

    Index 0 of the first axis is for an across placement (the constraint comes from the
    square's column: tiles directly above and below), index 1 for a down placement (from
    its row: tiles directly left and right). Shapes (2, N, N).

    - ``mask`` uint64: bit ``x`` set when letter ``x`` may go on this empty square: the
      perpendicular word it forms is in the lexicon, or there is no perpendicular
      neighbour (then all L letter bits are set). 0 on occupied squares.
    - ``score`` int32: face values of the perpendicular neighbour tiles (blanks 0), the
      part of the cross-word score that does not depend on the new tile. A new tile of
      value v on a square with letter multiplier lm and word multiplier wm adds
      ``(score + v * lm) * wm`` when ``has_cross`` (docs/rules.md, scoring).
    - ``has_cross`` bool: the square has a perpendicular neighbour (a cross-word forms).
    """

    mask: np.ndarray
    score: np.ndarray
    has_cross: np.ndarray

    def allows(self, across: bool, row: int, col: int, letter: int) -> bool:
        """True when ``letter`` may be placed at (row, col) in a word of that direction."""
        return bool((int(self.mask[0 if across else 1, row, col]) >> int(letter)) & 1)


def cross_checks(pack: "LanguagePack", letters, blanks) -> CrossChecks:
    """Cross-checks of every square of a board (see :class:`CrossChecks`).

    ``letters``: (N, N) int, -1 empty; ``blanks``: (N, N) bool. Walks the word graph:
    the cross-word P x S is in the GADDAG as the path rev(S) x rev(P). Raises
    MoveGenError for a malformed board."""
    ctx = _CTX.get(pack) or kernel_context(pack)
    letters, blanks = _board(ctx, letters, blanks)
    err = _check(letters, blanks, np.zeros(ctx.L + 1, np.int64), ctx.L, ctx.rack_size)
    if err:
        _raise(err, ctx, letters, blanks, np.zeros(ctx.L + 1, np.int64))
    return CrossChecks(*cross_checks_kernel(ctx.g, ctx.hw, ctx.root, letters, blanks, ctx.values, ctx.L))


def is_word(pack: "LanguagePack", tiles) -> bool:
    """True when the tile ids ``tiles`` (a sequence of letter ids) spell a word of the pack,
    looked up in the word graph."""
    ctx = _CTX.get(pack) or kernel_context(pack)
    t = np.asarray(tiles, dtype=np.int64)
    return bool(_is_word(ctx.g, ctx.hw, ctx.root, t))


def rack_vector(spec, text: str) -> np.ndarray:
    """Rack text (``"JOINTS?"``, ``"[CH]A?"``) → count vector (L+1,) int64."""
    r = np.zeros(spec.n_kinds, np.int64)
    for t in spec.parse_tiles(text):
        r[t] += 1
    return r


def describe(spec, move) -> str:
    """One move as text: ``8D JOINT`` (across: row number then column letter; down: column
    letter then row number), blanks in lower case, played-through tiles in parentheses;
    ``-ABC`` for an exchange, ``-`` for a pass. For tests and debugging."""
    kind = int(move["kind"])
    L = spec.n_letters
    if kind == PASS:
        return "-"
    if kind == EXCHANGE:
        return "-" + spec.format_tiles([int(t) for t in move["tiles"][:move["length"]]], blank="?")
    r, c = int(move["row"]), int(move["col"])
    coord = f"{r + 1}{chr(65 + c)}" if move["across"] else f"{chr(65 + c)}{r + 1}"
    parts = []
    inside = False
    for j in range(int(move["length"])):
        t = int(move["tiles"][j])
        s = format_spelling(spec.tiles[t], blank=bool(move["blank"][j])) if 0 <= t < L else "?"
        if not move["new"][j] and not inside:
            parts.append("(")
            inside = True
        elif move["new"][j] and inside:
            parts.append(")")
            inside = False
        parts.append(s)
    if inside:
        parts.append(")")
    return f"{coord} {''.join(parts)}"


#: The names other modules may build on (see the module docstring, "Kernel interface").
KERNEL_INTERFACE = ("KernelContext", "kernel_context", "cross_checks_kernel", "search_kernel", "walk_placements",
                    "RECORD_BYTES", "MOVE_DTYPE", "NO_TOP_SCORES", "NO_RACK_WORDS", "NO_TOP_KEYS", "NO_LONG_HASHES",
                    "popcount")

#: the compiled kernels of this module whose numba cache tells whether a first run compiles
#: (read by the command line's compile notice, ``heuri.apps.cli.kernels_cached``)
CACHED_KERNELS = (_gen_all, search_kernel)
