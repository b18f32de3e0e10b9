"""δ: which keys of the Heuri_3 key set can land as a bingo on a board.

δ(s) = 1 when the key ``s`` (R tiles, R = the rack size, 7) can be played as a bingo on the
board as it stands (HEURI.md, paper §4.3):

- as an R-tile word placed legally: R consecutive empty squares of a row or column, the
  squares just before and after empty (or off the board), connected (one of the squares has a
  perpendicular neighbour; on the empty board the lane covers the centre), every cross-word
  valid; or
- (a reduced octet) as an (R+1)-tile word through exactly one board tile ``x``: R+1
  consecutive squares of a line, exactly one occupied (by ``x``, the octet's completing
  tile), the squares before and after empty, every cross-word valid.

Blanks in a key stand for any letter: a key with a blank lands when a key obtained by giving
the blank a letter lands (the blank plays that letter on the same squares).

Method (the bingo index, ``pipeline/bingo_index.py``). A *lane* is a run of R or R+1
squares meeting the conditions above; the words that fit it are those with, at each
constrained square (a cross-check narrower than every letter, or the board tile), a letter
the square allows. δ is the union over the lanes of the keys of their fitting words, closed
upward over blanks (a key with blanks lands when one of its children does).

- Most lanes are simple: a septet lane with one constrained square (a hook square), an
  octet lane with nothing constrained but its board tile (a line across a tile). Their
  closed key sets are precomputed bitsets over the keys (``kb7[i, c]``: letter c at
  position i; ``kb8[j, x]``: board tile x at position j), so δ for them is an OR of a few
  rows: no per-word and no per-key work.
- The other lanes intersect per-position per-letter word bitsets, reading only the run of
  words that can fit (words re-sorted with position j first: the board tile's letter for an
  octet lane, the letters of the most selective square for a septet lane), and set the
  keys of the words that fit (``s7_key``/``s8_key``).
- Keys set that way walk up to their blank parents (``parents``), once each: a key found
  already set stops the walk, since the bitsets are closed.

A :class:`BoardDelta` can also keep each lane's fitting words (``keep_lanes``), so that δ
after a move recomputes only the lanes whose squares, ends or cross-checks the move changed
(:meth:`BoardDelta.changes`). Everything runs in compiled loops (numba).

Cross-checks come from the move generator's word graph (:func:`cross_checks`); the sorted
word codes of the index (one code for words of at most 10 tiles, a pair of codes for longer
ones) serve the few columns :meth:`BoardDelta.changes` recomputes.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .errors import HeuriError


class BoardError(HeuriError):
    """A board array has the wrong shape or dtype, or holds an id that is not a letter."""


# -- index ----------------------------------------------------------------------------------
@dataclass
class BingoIndex:
    """The arrays of ``build/<lang>/bingo/`` (see pipeline/bingo_index.py), plus the bitsets
    re-laid out as (positions, words/64, letters) for the lane kernel and derived maps
    (witness words of each key, parents of each key, blanks per key)."""

    w7: np.ndarray
    w8: np.ndarray
    w7_key: np.ndarray
    w8_key: np.ndarray
    b7: np.ndarray
    b8: np.ndarray
    kb7: np.ndarray  # (R, L, n64) uint64 closed key bitsets (pipeline/bingo_index.py)
    kb8: np.ndarray  # (R+1, L, n64)
    parents: np.ndarray  # (n_keys, R) int32, each key's blank parents, -1 padded
    s7_bits: np.ndarray  # (R, R, L, nw7) uint64: b7 with the words sorted by position j first
    s7_start: np.ndarray  # (R, L+1) int64: run starts of each letter at position j
    s7_key: np.ndarray  # (R, n7) int32: the keys in that order
    s8_bits: np.ndarray  # (R+1, R+1, L, nw8), and the same for the (R+1)-tile words
    s8_start: np.ndarray
    s8_key: np.ndarray
    blank_order: np.ndarray
    blank_ptr: np.ndarray
    blank_child: np.ndarray
    lex: np.ndarray
    lex_long_hi: np.ndarray
    lex_long_lo: np.ndarray
    n_keys: int
    n_letters: int
    rack_size: int
    key_rows: np.ndarray  # (n_keys, R) uint8, the keys' sorted tiles (probability.key_rows)

    @cached_property
    def n_blanks(self) -> np.ndarray:
        """Blanks in each key, (n_keys,) int64."""
        return (self.key_rows == self.n_letters).sum(axis=1).astype(np.int64)

    def blank_limit(self, max_blanks: int) -> int:
        """Entries of ``blank_order`` (sorted by blank count) with at most max_blanks blanks."""
        nb = self.n_blanks[np.asarray(self.blank_order)]
        return int(np.searchsorted(nb, max_blanks, side="right"))

    @cached_property
    def w8_key_t(self) -> np.ndarray:
        """``w8_key`` transposed, (R+1, n8) int32: read along the words for one position."""
        return np.ascontiguousarray(np.asarray(self.w8_key).T)

    @cached_property
    def contains(self):
        """(has7 (L, nw7), has8 (L, nw8)) uint64: bit w set when word w holds letter x
        somewhere (OR of the position bitsets); a pre-filter for keys holding a leave."""
        return (np.bitwise_or.reduce(np.asarray(self.b7), axis=0),
                np.bitwise_or.reduce(np.asarray(self.b8), axis=0))

    @cached_property
    def witnesses(self):
        """Key → the words that make it land (CSR): ``(ptr7, word7, ptr8, word8)``;
        word8 entries are ``w * (R+1) + j`` (word w through its tile at position j)."""
        n = self.n_keys
        k7 = np.asarray(self.w7_key, np.int64)
        o7 = np.argsort(k7, kind="stable")
        ptr7 = np.zeros(n + 1, np.int64)
        np.add.at(ptr7, k7 + 1, 1)
        k8 = np.asarray(self.w8_key, np.int64).ravel()
        o8 = np.argsort(k8, kind="stable")
        ptr8 = np.zeros(n + 1, np.int64)
        np.add.at(ptr8, k8 + 1, 1)
        return (np.cumsum(ptr7), o7.astype(np.int64), np.cumsum(ptr8), o8.astype(np.int64))

    @cached_property
    def lev_mask(self) -> np.ndarray:
        """(max blanks, ceil(n_keys/64)) uint64: row b the bitset of the keys with b blanks."""
        nb = self.n_blanks
        top = int(nb.max(initial=0))
        n64 = (self.n_keys + 63) // 64
        lev = np.zeros((max(top, 1), n64 * 64), np.bool_)
        for b in range(top):
            lev[b, :self.n_keys] = nb == b
        return np.ascontiguousarray(np.packbits(lev, axis=1, bitorder="little").view("<u8"))

    @cached_property
    def keep_masks(self):
        """Row b ((ceil(n_keys/64),) uint64): the bits of the keys with at most b blanks,
        for b below the largest blank count of a key."""
        top = int(self.n_blanks.max(initial=0))
        return np.bitwise_or.accumulate(self.lev_mask, axis=0)[:top]

    def keep_mask(self, max_blanks: int):
        """(ceil(n_keys/64),) uint64: bits of the keys with at most max_blanks blanks, or
        None when that is every key."""
        masks = self.keep_masks
        return masks[max_blanks] if max_blanks < len(masks) else None

    @cached_property
    def parents_csr(self):
        """Blank propagation both ways: ``(order_pos, par_ptr, par)``: order_pos (n,) the
        row of a key in ``blank_order`` (-1 for a blank-free key); par (CSR over keys) the
        keys with one more blank whose children list holds the key."""
        n = self.n_keys
        order = np.asarray(self.blank_order, np.int64)
        pos = np.full(n, -1, np.int64)
        pos[order] = np.arange(len(order))
        cnt = np.diff(np.asarray(self.blank_ptr))
        owner = np.repeat(order, cnt)
        child = np.asarray(self.blank_child, np.int64)
        o = np.argsort(child, kind="stable")
        ptr = np.zeros(n + 1, np.int64)
        np.add.at(ptr, child + 1, 1)
        return pos, np.cumsum(ptr), owner[o].astype(np.int64)


_INDEX: dict = {}


def bingo_index(pack) -> BingoIndex:
    """The pack's bingo index (memory-mapped, cached per pack folder). Raises PackError
    when the pack has no ``bingo/`` folder (build it with snakemake)."""
    from .errors import PackError

    key = str(pack.root)
    ix = _INDEX.get(key)
    if ix is None:
        d = pack.root / "bingo"
        names = ("w7", "w8", "w7_key", "w8_key", "b7", "b8", "blank_order", "blank_ptr",
                 "blank_child", "lex", "lex_long_hi", "lex_long_lo", "kb7", "kb8", "parents",
                 "s7_bits", "s7_start", "s7_key", "s8_bits", "s8_start", "s8_key")
        missing = [n for n in names if not (d / f"{n}.npy").is_file()]
        if missing:
            raise PackError(f"{d}: bingo index missing {missing}; build it with: "
                            f"snakemake --cores 2 {pack.code}")
        arrs = {n: np.load(d / f"{n}.npy", mmap_mode="r") for n in names}
        # the hot kernels read these often: keep them in memory
        for n in ("w7_key", "w8_key", "blank_order", "blank_ptr", "blank_child", "lex",
                  "lex_long_hi", "lex_long_lo"):
            arrs[n] = np.ascontiguousarray(arrs[n])
        from .probability import key_rows

        ix = BingoIndex(**arrs, n_keys=len(pack.keys), n_letters=pack.spec.n_letters,
                        rack_size=pack.spec.rack_size, key_rows=key_rows(pack))
        _INDEX[key] = ix
    return ix


# -- cross-checks ---------------------------------------------------------------------------
@njit(cache=True)
def _word_code(seg, n):
    code = np.uint64(n) << np.uint64(60)
    for i in range(n):
        code |= np.uint64(seg[i]) << np.uint64(6 * (9 - i))
    return code


@njit(cache=True)
def _in_lex(lex, code):
    i = np.searchsorted(lex, code)
    return i < lex.shape[0] and lex[i] == code


@njit(cache=True)
def _in_long(hi, lo, seg, n):
    """Is the tile sequence seg[:n] (n > 10) a word? (pair codes, see the bingo index)"""
    h = _word_code(seg, 10) & ~(np.uint64(15) << np.uint64(60))
    h |= np.uint64(n) << np.uint64(60)
    l = np.uint64(0)
    for i in range(10, n):
        l |= np.uint64(seg[i]) << np.uint64(6 * (4 - (i - 10)))
    a = np.searchsorted(hi, h)
    b = np.searchsorted(hi, h, side="right")
    if a == b:
        return False
    j = a + np.searchsorted(lo[a:b], l)
    return j < b and lo[j] == l


@njit(cache=True)
def _cc_cols(letters, lex, lhi, llo, n_letters, cols, cc, has):
    """Cross-checks for plays along rows: for each empty square, the letters c such that the
    column word through it (tiles above + c + tiles below) is a word.

    Writes, for the columns where ``cols`` is True, cc (N, N) uint64 (all letters where the
    square has no vertical neighbour; 0 on occupied squares) and has (N, N) bool (a
    vertical neighbour exists)."""
    N = letters.shape[0]
    full = (np.uint64(1) << np.uint64(n_letters)) - np.uint64(1)
    seg = np.zeros(16, np.int64)
    for c in range(N):
        if not cols[c]:
            continue
        for r in range(N):
            cc[r, c] = 0
            has[r, c] = False
            if letters[r, c] >= 0:
                continue
            up = r
            while up > 0 and letters[up - 1, c] >= 0:
                up -= 1
            dn = r
            while dn < N - 1 and letters[dn + 1, c] >= 0:
                dn += 1
            if up == r and dn == r:
                cc[r, c] = full
                continue
            has[r, c] = True
            n = dn - up + 1
            for q in range(n):
                seg[q] = letters[up + q, c]
            m = np.uint64(0)
            for x in range(n_letters):
                seg[r - up] = x
                if n <= 10:
                    ok = _in_lex(lex, _word_code(seg, n))
                else:
                    ok = _in_long(lhi, llo, seg, n)
                if ok:
                    m |= np.uint64(1) << np.uint64(x)
            cc[r, c] = m
    return 0


def _check_board(pack, letters):
    letters = np.asarray(letters)
    N = pack.spec.board_size
    if letters.shape != (N, N):
        raise BoardError(f"board letters: shape {letters.shape}, the {pack.code} board is {N}x{N}")
    if letters.max(initial=-1) >= pack.spec.n_letters or letters.min(initial=-1) < -1:
        raise BoardError(f"board letters: ids must be -1 (empty) or 0..{pack.spec.n_letters - 1}")
    return np.ascontiguousarray(letters, np.int8)


def cross_checks(pack, letters: np.ndarray):
    """Cross-check masks of an empty-square board for both directions.

    ``letters``: (N, N) int8 (-1 empty). Returns ``(cc_across, has_across, cc_down,
    has_down)``: ``cc_across[r, c]`` (uint64 bit x) = letters x that may be played at (r, c)
    in an across word (the column word through it must be valid; all letters when the
    square has no vertical neighbour), ``has_across`` whether it has one; ``cc_down`` and
    ``has_down`` the same for down words (row cross-words), indexed like the board. Walks
    the move generator's word graph (:func:`heuri.movegen.cross_checks`). Raises
    BoardError for a malformed board."""
    from . import movegen

    letters = _check_board(pack, letters)
    ctx = movegen._CTX.get(pack) or movegen._context(pack)
    mask, _, has = movegen._cross_impl(ctx.g, ctx.hw, ctx.root, letters,
                                       np.zeros(letters.shape, np.bool_), ctx.values, ctx.L)
    return mask[0], has[0], mask[1], has[1]


# -- lanes ----------------------------------------------------------------------------------
@njit(cache=True)
def _popcount(v):
    c = 0
    while v:
        v &= v - np.uint64(1)
        c += 1
    return c


@njit(cache=True)
def _fit(b, nwords, pos, masks, n_pos, fixed_pos, fixed_letter, n_letters, acc):
    """Words fitting a lane: acc (nw,) uint64 ← ∩ over constrained positions of the union of
    b[pos, letters in mask] (b: (P, L, nw) uint64 position/letter word bitsets; a mask
    wider than half the letters is read as the complement of the others); fixed_pos ≥ 0
    adds the board tile. Returns the number of non-zero chunks of acc."""
    nw = acc.shape[0]
    full = (np.uint64(1) << np.uint64(n_letters)) - np.uint64(1)
    started = False
    nz = nw
    if fixed_pos >= 0:
        nz = 0
        row = b[fixed_pos, fixed_letter]
        for k in range(nw):
            v = row[k]
            acc[k] = v
            if v:
                nz += 1
        started = True
    # constrained squares, most selective first (insertion sort by popcount)
    order = np.empty(n_pos, np.int64)
    pcs = np.empty(n_pos, np.int64)
    for q in range(n_pos):
        pc = _popcount(masks[q])
        i = q
        while i > 0 and pcs[i - 1] > pc:
            pcs[i] = pcs[i - 1]
            order[i] = order[i - 1]
            i -= 1
        pcs[i] = pc
        order[i] = q
    lets = np.zeros(n_letters, np.int64)
    for oi in range(n_pos):
        if started and nz == 0:
            break
        q = order[oi]
        m = masks[q]
        pc = _popcount(m)
        comp = pc * 2 > n_letters
        if comp:
            m = full & ~m
        nl = 0
        for x in range(n_letters):
            if (m >> np.uint64(x)) & np.uint64(1):
                lets[nl] = x
                nl += 1
        p = pos[q]
        nz = 0
        bp = b[p]
        for k in range(nw):
            if started and acc[k] == 0:
                continue
            u = np.uint64(0)
            for li in range(nl):  # nl ≤ L/2 rows, each read forward
                u |= bp[lets[li], k]
            if comp:
                u = ~u
            if started:
                u &= acc[k]
            acc[k] = u
            if u:
                nz += 1
        started = True
    if not started:
        for k in range(nw):
            acc[k] = ~np.uint64(0)
        nz = nw
    # clear the padding bits past the last word
    rem = nwords % 64
    if rem:
        acc[nw - 1] &= (np.uint64(1) << np.uint64(rem)) - np.uint64(1)
    return nz


@njit(cache=True)
def _septet_lane(letters, cc, has, r, s, R, full, empty_board, centre_r, centre_c, pos, masks):
    """Is row r, squares s .. s+R-1, a septet lane (R empty squares, both ends empty or off
    the board, every cross-check non-empty, connected: a square with a perpendicular
    neighbour, or on the empty board the centre)? Returns -1 when not, else the number of
    constrained squares (cross-check narrower than every letter), written to pos/masks."""
    N = letters.shape[0]
    e = s + R
    if not ((s == 0 or letters[r, s - 1] < 0) and (e == N or letters[r, e] < 0)):
        return -1
    conn = False
    npos = 0
    for i in range(R):
        c = s + i
        if letters[r, c] >= 0 or cc[r, c] == 0:
            return -1
        if has[r, c]:
            conn = True
        if cc[r, c] != full:
            pos[npos] = i
            masks[npos] = cc[r, c]
            npos += 1
    if empty_board:
        conn = r == centre_r and s <= centre_c < e
    return npos if conn else -1


@njit(cache=True)
def _octet_lane(letters, cc, r, s, R, full, pos, masks):
    """Is row r, squares s .. s+R, an octet lane (exactly one occupied square, both ends
    empty or off the board, every cross-check of the empty squares non-empty)? Returns
    (npos, j): j = -1 when not, else the board tile's position in the lane; the constrained
    empty squares are written to pos/masks (npos of them)."""
    N = letters.shape[0]
    e = s + R + 1
    if e > N or not ((s == 0 or letters[r, s - 1] < 0) and (e == N or letters[r, e] < 0)):
        return 0, -1
    jpos = -1
    npos = 0
    for i in range(R + 1):
        c = s + i
        if letters[r, c] >= 0:
            if jpos >= 0:
                return 0, -1
            jpos = i
            continue
        if cc[r, c] == 0:
            return 0, -1
        if cc[r, c] != full:
            pos[npos] = i
            masks[npos] = cc[r, c]
            npos += 1
    return npos, jpos


@njit(cache=True)
def _lanes_rows(letters, cc, has, R, b7, n7, b8, n8, n_letters, centre_r, centre_c,
                empty_board, f7, f8, lane7, lane8, store, ok7, ok8, which):
    """Accumulate the words fitting the lanes along rows into f7 (nw7,) and f8 (R+1, nw8).

    With ``store``, each lane's fitting words are also written to lane7[lane] /
    lane8[lane] and ok7/ok8[lane] set (lane = row * N + start). ``which`` (N*N,) bool
    restricts the work to those lanes when ``store`` is False (for incremental updates:
    lanes not in ``which`` are skipped entirely)."""
    N = letters.shape[0]
    full = (np.uint64(1) << np.uint64(n_letters)) - np.uint64(1)
    pos = np.zeros(R + 1, np.int64)
    masks = np.zeros(R + 1, np.uint64)
    nw7 = f7.shape[0]
    nw8 = f8.shape[1]
    acc7 = np.zeros(nw7, np.uint64)
    acc8 = np.zeros(nw8, np.uint64)
    for r in range(N):
        for s in range(N - R + 1):
            lane = r * N + s
            if which.shape[0] > 0 and not which[lane]:
                continue
            if store:
                ok7[lane] = False
                ok8[lane] = False
            npos = _septet_lane(letters, cc, has, r, s, R, full, empty_board, centre_r,
                                centre_c, pos, masks)
            if npos >= 0:
                nz = _fit(b7, n7, pos, masks, npos, -1, 0, n_letters, acc7)
                if nz:
                    for k in range(nw7):
                        f7[k] |= acc7[k]
                    if store:
                        ok7[lane] = True
                        for k in range(nw7):
                            lane7[lane, k] = acc7[k]
            if empty_board:
                continue
            npos, jpos = _octet_lane(letters, cc, r, s, R, full, pos, masks)
            if jpos < 0:
                continue
            nz = _fit(b8, n8, pos, masks, npos, jpos, letters[r, s + jpos], n_letters, acc8)
            if nz:
                for k in range(nw8):
                    f8[jpos, k] |= acc8[k]
                if store:
                    ok8[lane] = True
                    for k in range(nw8):
                        lane8[lane, k] = acc8[k]
    return 0


@njit(cache=True)
def _or_row(bits, seen, i, c, kb):
    """bits |= kb[i, c] once per (i, c) (seen (P, L) bool)."""
    if seen[i, c]:
        return
    seen[i, c] = True
    row = kb[i, c]
    for k in range(bits.shape[0]):
        bits[k] |= row[k]


@njit(cache=True)
def _run_fit(sb, start, skey, j, c, pos, masks, n_pos, skip, n_letters, bits, new, acc):
    """The words with letter c at position j (a run of ``sb[j]``, the words sorted with
    position j first) that also fit the constrained squares pos/masks (all but index
    ``skip``): their keys (``skey[j]``) are set in ``bits`` and, when new, in ``new``."""
    lo = start[j, c]
    hi = start[j, c + 1]
    if lo == hi:
        return
    k0 = lo >> 6
    k1 = (hi + 63) >> 6
    bj = sb[j]
    row = bj[j, c]
    for k in range(k0, k1):
        acc[k] = row[k]
    full = (np.uint64(1) << np.uint64(n_letters)) - np.uint64(1)
    lets = np.empty(n_letters, np.int64)
    for q in range(n_pos):
        if q == skip:
            continue
        m = masks[q]
        comp = _popcount(m) * 2 > n_letters
        if comp:  # fewer rows to read: the words with a letter outside the mask
            m = full & ~m
        nl = 0
        for x in range(n_letters):
            if (m >> np.uint64(x)) & np.uint64(1):
                lets[nl] = x
                nl += 1
        bp = bj[pos[q]]
        for k in range(k0, k1):
            v = acc[k]
            if v == 0:
                continue
            u = np.uint64(0)
            for li in range(nl):
                u |= bp[lets[li], k]
            acc[k] = v & ~u if comp else v & u
    one = np.uint64(1)
    keys = skey[j]
    for k in range(k0, k1):
        v = acc[k]
        base = k * 64
        while v:
            key = keys[base + trailing_zeros(v)]
            v &= v - one
            b = one << np.uint64(key & 63)
            if not bits[key >> 6] & b:
                bits[key >> 6] |= b
                new[key >> 6] |= b


@njit(cache=True)
def _kb_lanes(letters, cc, has, R, s7_bits, s7_start, s7_key, s8_bits, s8_start, s8_key,
              kb7, kb8, n_letters, centre_r, centre_c, empty_board, bits, new, seen7, seen8):
    """δ of the lanes along rows, two ways. A septet lane with at most one constrained
    square, or an octet lane with none besides its board tile, lands exactly the keys of
    a few closed key bitsets (``kb7[i, c]`` for the letters c of the square's cross-check,
    ``kb8[j, x]`` for the board tile x at position j): OR them into ``bits`` (once each,
    ``seen7``/``seen8``). Every other lane sets the keys of its fitting words in ``bits``
    (and ``new``, for :func:`_close`), reading only the runs of the position-sorted
    words that can fit: the board tile's run (octets), or the runs of the letters of the
    septet lane's most selective square (:func:`_run_fit`)."""
    N = letters.shape[0]
    full = (np.uint64(1) << np.uint64(n_letters)) - np.uint64(1)
    pos = np.zeros(R + 1, np.int64)
    masks = np.zeros(R + 1, np.uint64)
    acc7 = np.zeros(s7_bits.shape[3], np.uint64)
    acc8 = np.zeros(s8_bits.shape[3], np.uint64)
    for r in range(N):
        for s in range(N - R + 1):
            npos = _septet_lane(letters, cc, has, r, s, R, full, empty_board, centre_r,
                                centre_c, pos, masks)
            if npos == 0:  # no constraint: every R-tile word (each has a letter at 0)
                for c in range(n_letters):
                    _or_row(bits, seen7, 0, c, kb7)
            elif npos == 1:
                m = masks[0]
                for c in range(n_letters):
                    if (m >> np.uint64(c)) & np.uint64(1):
                        _or_row(bits, seen7, pos[0], c, kb7)
            elif npos > 1:
                best = 0
                least = -1
                for q in range(npos):  # the square whose letters start the fewest words
                    n = 0
                    for c in range(n_letters):
                        if (masks[q] >> np.uint64(c)) & np.uint64(1):
                            n += s7_start[pos[q], c + 1] - s7_start[pos[q], c]
                    if least < 0 or n < least:
                        least = n
                        best = q
                for c in range(n_letters):
                    if (masks[best] >> np.uint64(c)) & np.uint64(1):
                        _run_fit(s7_bits, s7_start, s7_key, pos[best], c, pos, masks, npos,
                                 best, n_letters, bits, new, acc7)
            if empty_board:
                continue
            npos, jpos = _octet_lane(letters, cc, r, s, R, full, pos, masks)
            if jpos < 0:
                continue
            x = letters[r, s + jpos]
            if npos == 0:
                _or_row(bits, seen8, jpos, x, kb8)
            else:
                _run_fit(s8_bits, s8_start, s8_key, jpos, x, pos, masks, npos, -1,
                         n_letters, bits, new, acc8)
    return 0


@njit(cache=True)
def _close(bits, new, parents, lev_mask):
    """Blank closure of the keys in ``new`` (all set in ``bits``): every key with blanks
    that has one of them as a child is set too. ``bits`` must be closed but for ``new``
    (a set key's parents set), so only the newly set keys walk up to their parents
    (``parents`` (n_keys, R) int32, −1 padded), one blank count at a time (lev_mask:
    :attr:`BingoIndex.lev_mask`), in key order."""
    one = np.uint64(1)
    nb = bits.shape[0]
    width = parents.shape[1]
    for lev in range(lev_mask.shape[0]):
        m = lev_mask[lev]
        for i in range(nb):
            v = new[i] & m[i]
            base = i * 64
            while v:
                key = base + trailing_zeros(v)
                v &= v - one
                for e in range(width):
                    p = parents[key, e]
                    if p < 0:
                        break
                    b = one << np.uint64(p & 63)
                    if not bits[p >> 6] & b:
                        bits[p >> 6] |= b
                        new[p >> 6] |= b
    return 0


@njit(cache=True)
def _delta_bits(lt_a, cc_a, has_a, lt_d, cc_d, has_d, R, s7_bits, s7_start, s7_key,
                s8_bits, s8_start, s8_key, kb7, kb8, n_letters, centre_r, centre_c,
                empty_board, parents, lev_mask, n_keys):
    """δ of a board as a bitset ((n_keys + 63) // 64,) uint64: :func:`_kb_lanes` along the
    rows (``lt_a``, the across cross-checks) and along the columns (``lt_d``, the board
    transposed, with the down cross-checks transposed), then :func:`_close`."""
    bits = np.zeros((n_keys + 63) // 64, np.uint64)
    new = np.zeros((n_keys + 63) // 64, np.uint64)
    seen7 = np.zeros((R, n_letters), np.bool_)
    seen8 = np.zeros((R + 1, n_letters), np.bool_)
    _kb_lanes(lt_a, cc_a, has_a, R, s7_bits, s7_start, s7_key, s8_bits, s8_start, s8_key,
              kb7, kb8, n_letters, centre_r, centre_c, empty_board, bits, new, seen7, seen8)
    _kb_lanes(lt_d, cc_d, has_d, R, s7_bits, s7_start, s7_key, s8_bits, s8_start, s8_key,
              kb7, kb8, n_letters, centre_c, centre_r, empty_board, bits, new, seen7, seen8)
    _close(bits, new, parents, lev_mask)
    return bits


_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DB_TABLE = np.zeros(64, np.int64)
for _i in range(64):
    _DB_TABLE[(((1 << _i) * 0x03F79D71B4CB0A89) & 0xFFFFFFFFFFFFFFFF) >> 58] = _i


@njit(cache=True)
def _ctz(v, table):
    """Index of the lowest set bit of a non-zero uint64 (the CPU's count-trailing-zeros;
    ``table`` is unused, kept for the callers)."""
    return trailing_zeros(v)


def _centre(spec):
    for r, row in enumerate(spec.board):
        c = row.find("*")
        if c >= 0:
            return r, c
    return spec.board_size // 2, spec.board_size // 2


_EMPTY_WHICH = np.zeros(0, np.bool_)


class BoardDelta:
    """δ of one board, with each lane's fitting words kept for :meth:`after`.

    ``BoardDelta(pack, letters)``: letters (N, N) int8 (-1 empty; blanks hold their
    letter, so the ``blanks`` array is not needed). Attributes: ``delta`` (n_keys,) bool
    over ``pack.keys``; ``f7`` (nw7,) and ``f8`` (R+1, nw8) uint64, the words that fit.
    Raises BoardError for a malformed board or PackError when the bingo index is missing."""

    def __init__(self, pack, letters: np.ndarray, keep_lanes: bool = True,
                 max_blanks: int | None = None):
        self.pack = pack
        self.ix = ix = bingo_index(pack)
        #: keys with more blanks than this are left at δ = False (not computed); the
        #: evaluators pass the blanks the player can still hold (rack + unseen), since
        #: p(s | L) = 0 for the others
        self.max_blanks = pack.spec.rack_size if max_blanks is None else int(max_blanks)
        self.letters = _check_board(pack, letters)
        spec = pack.spec
        N, R, L = spec.board_size, spec.rack_size, spec.n_letters
        self.centre = _centre(spec)
        cca, hasa, ccd, hasd = cross_checks(pack, self.letters)
        self.cc = (cca, hasa, ccd, hasd)
        nw7, nw8 = ix.b7.shape[2], ix.b8.shape[2]
        self.f7 = np.zeros(nw7, np.uint64)
        self.f8 = np.zeros((R + 1, nw8), np.uint64)
        self.keep = keep_lanes
        self.empty = not (self.letters >= 0).any()
        if keep_lanes:
            # every lane's fitting words, for changes(); δ itself comes from _delta_bits
            self.lane7 = np.zeros((2, N * N, nw7), np.uint64)
            self.lane8 = np.zeros((2, N * N, nw8), np.uint64)
            self.ok7 = np.zeros((2, N * N), np.bool_)
            self.ok8 = np.zeros((2, N * N), np.bool_)
            for d, (lt, cc, has, crr, ccc) in enumerate(self._directions()):
                _lanes_rows(lt, cc, has, R, ix.b7, len(ix.w7), ix.b8, len(ix.w8), L, crr,
                            ccc, self.empty, self.f7, self.f8, self.lane7[d], self.lane8[d],
                            True, self.ok7[d], self.ok8[d], _EMPTY_WHICH)
        self._delta = None
        self._bits = None
        self._mark = None
        self._stamp = 0
        self._j8 = None
        self._scratch = None
        #: above this many changed words, :meth:`changes` recomputes δ of the new board
        self.full_threshold = 20000

    def _directions(self):
        """(letters, cross-checks, has-neighbour, centre row, centre col) for the lanes
        along rows, then along columns (transposed, so both read as rows)."""
        cca, hasa, ccd, hasd = self.cc
        cr, cc_ = self.centre
        return ((self.letters, cca, hasa, cr, cc_),
                (np.ascontiguousarray(self.letters.T), np.ascontiguousarray(ccd.T),
                 np.ascontiguousarray(hasd.T), cc_, cr))

    @property
    def delta_bits(self) -> np.ndarray:
        """δ as a bitset, (ceil(n_keys/64),) uint64: bit s % 64 of word s // 64 is δ(s).

        Lanes with at most one constrained square (septets) or none besides the board
        tile (octets) OR in the pipeline's closed key bitsets (``kb7``/``kb8``); the
        others intersect the per-position per-letter word bitsets and push their words'
        keys, then the keys with blanks above them (:func:`_push_closed`)."""
        if self._bits is None:
            ix = self.ix
            spec = self.pack.spec
            (la, cca, hasa, cr, cc_), (ld, ccd, hasd, _, _) = self._directions()
            bits = _delta_bits(la, cca, hasa, ld, ccd, hasd, spec.rack_size, ix.s7_bits,
                               ix.s7_start, ix.s7_key, ix.s8_bits, ix.s8_start, ix.s8_key,
                               ix.kb7, ix.kb8, spec.n_letters, cr, cc_, self.empty,
                               ix.parents, ix.lev_mask, ix.n_keys)
            keep = ix.keep_mask(self.max_blanks)
            if keep is not None:
                bits &= keep
            self._bits = bits
        return self._bits

    @property
    def delta(self) -> np.ndarray:
        """δ over ``pack.keys``, (n_keys,) bool (from :attr:`delta_bits`, on first use)."""
        if self._delta is None:
            self._delta = np.unpackbits(self.delta_bits.view(np.uint8), bitorder="little",
                                        count=self.ix.n_keys).view(np.bool_)
        return self._delta

    def changes(self, rows, cols, tiles, leave=None):
        """δ after placing ``tiles`` (letter ids) on the empty squares (rows[i], cols[i]):
        the keys whose δ differs from :attr:`delta`, as ``(keys (m,) int64, new (m,)
        bool)``. Only the lanes whose squares, ends or cross-checks the move changes are
        recomputed (exact: a lane's fitting words depend on nothing else). ``leave``
        ((K,) counts, optional): report only keys holding the leave's letters (the others
        have p(s | L) = 0 anyway). Needs ``keep_lanes=True``. Raises BoardError when a
        square is occupied."""
        if not self.keep:
            raise BoardError("BoardDelta.changes needs keep_lanes=True")
        ix = self.ix
        spec = self.pack.spec
        N, R, L = spec.board_size, spec.rack_size, spec.n_letters
        rows = np.asarray(rows, np.int64)
        cols = np.asarray(cols, np.int64)
        if len(rows) == 0:
            return np.zeros(0, np.int64), np.zeros(0, bool)
        if (self.letters[rows, cols] >= 0).any():
            raise BoardError("BoardDelta.changes: a move square is already occupied")
        new = self.letters.copy()
        new[rows, cols] = np.asarray(tiles, np.int8)
        cca, hasa, ccd, hasd = self.cc
        # cross-checks change only in the columns (across) / rows (down) of the new tiles
        colm = np.zeros(N, np.bool_)
        colm[cols] = True
        rowm = np.zeros(N, np.bool_)
        rowm[rows] = True
        ncca, nhasa = cca.copy(), hasa.copy()
        _cc_cols(new, ix.lex, ix.lex_long_hi, ix.lex_long_lo, L, colm, ncca, nhasa)
        nt = np.ascontiguousarray(new.T)
        nccd_t, nhasd_t = np.ascontiguousarray(ccd.T), np.ascontiguousarray(hasd.T)
        _cc_cols(nt, ix.lex, ix.lex_long_hi, ix.lex_long_lo, L, rowm, nccd_t, nhasd_t)
        if not (self.letters >= 0).any():
            # the first move: every lane changes (the centre rule stops applying)
            after = BoardDelta(self.pack, new, keep_lanes=False,
                                max_blanks=self.max_blanks).delta
            keys = np.flatnonzero(after != self.delta)
            return keys.astype(np.int64), after[keys]
        occ = (new >= 0) != (self.letters >= 0)
        chA = occ | (ncca != cca) | (nhasa != hasa)
        chD = (occ | (nccd_t.T != ccd) | (nhasd_t.T != hasd)).T
        aff7 = np.stack([_affected(chA, N, R), _affected(np.ascontiguousarray(chD), N, R)])
        aff8 = np.stack([_affected(chA, N, R + 1), _affected(np.ascontiguousarray(chD), N, R + 1)])
        nw7, nw8 = len(self.f7), self.f8.shape[1]
        if self._scratch is None:  # lane bitsets after the move (only valid lanes are read)
            self._scratch = (np.empty((2, N * N, nw7), np.uint64), np.empty((2, N * N, nw8), np.uint64))
        new7, new8 = self._scratch
        nok7 = np.zeros((2, N * N), np.bool_)
        nok8 = np.zeros((2, N * N), np.bool_)
        jf7 = np.zeros(nw7, np.uint64)
        jf8 = np.zeros((R + 1, nw8), np.uint64)
        cr, cc_ = self.centre
        for d, (lt, cc, has, crr, ccc) in enumerate(((new, ncca, nhasa, cr, cc_),
                                                    (nt, nccd_t, nhasd_t, cc_, cr))):
            which = aff7[d] | aff8[d]
            _lanes_rows(lt, cc, has, R, ix.b7, len(ix.w7), ix.b8, len(ix.w8), L, crr, ccc,
                        False, jf7, jf8, new7[d], new8[d], True, nok7[d], nok8[d], which)
        nj8 = _octet_positions(new, nt, nok8, N, R)
        if self._j8 is None:
            self._j8 = _octet_positions(self.letters, np.ascontiguousarray(self.letters.T),
                                        self.ok8, N, R)
        g7, g8 = _update_words(aff7, aff8, self.ok7, self.ok8, self.lane7, self.lane8, self._j8,
                               nok7, nok8, new7, new8, nj8, self.f7, self.f8, N, R)
        if leave is None:
            nk = np.zeros(0, np.int64)
            nc = np.zeros(0, np.int64)
        else:
            lv = np.asarray(leave, np.int64)[:L]
            nk = np.flatnonzero(lv).astype(np.int64)
            nc = lv[nk]
        has7, has8 = ix.contains
        n_words = _count_changed(self.f7, g7, self.f8, g8, has7, has8, nk)
        if n_words > self.full_threshold:
            # most of the board changed (a move in open space): recompute δ from the words
            after = BoardDelta(self.pack, new, keep_lanes=False,
                               max_blanks=self.max_blanks).delta
            keys = np.flatnonzero(after != self.delta)
            if len(nk):
                keys = keys[(np.asarray(self.pack.keys.counts)[keys][:, nk] >= nc).all(axis=1)]
            return keys.astype(np.int64), after[keys]
        if self._mark is None:
            self._mark = np.zeros(ix.n_keys, np.int64)
        rows_k = ix.key_rows
        self._stamp += 1
        ptr7, word7, ptr8, word8 = ix.witnesses
        pos, par_ptr, par = ix.parents_csr
        return _key_changes(self.f7, self.f8, g7, g8, self.delta, ix.w7_key, ix.w8_key_t, ptr7,
                            word7, ptr8, word8, R, pos, ix.blank_ptr, ix.blank_child, par_ptr,
                            par, _DB_TABLE, self._stamp, self._mark, rows_k, nk, nc,
                            *ix.contains, ix.n_blanks, self.max_blanks)

    def delta_after(self, rows, cols, tiles) -> np.ndarray:
        """Full δ (n_keys,) bool after placing ``tiles`` at (rows, cols), through
        :meth:`changes`."""
        keys, new = self.changes(rows, cols, tiles)
        d = self.delta.copy()
        d[keys] = new
        return d


@njit(cache=True)
def _affected(changed, N, span):
    """Lanes (row * N + start) whose squares start-1 .. start+span touch a changed square
    of their row."""
    out = np.zeros(N * N, np.bool_)
    for r in range(N):
        for s in range(N):
            lo = s - 1 if s > 0 else 0
            hi = s + span if s + span < N else N - 1
            for c in range(lo, hi + 1):
                if changed[r, c]:
                    out[r * N + s] = True
                    break
    return out


@njit(cache=True)
def _update_words(aff7, aff8, ok7, ok8, lane7, lane8, j8, new_ok7, new_ok8, new7, new8, new_j8,
                  f7, f8, N, R):
    """F' (the words fitting some lane after the move), recomputed on the chunks an
    affected lane touches (before or after); returns copies (g7, g8) of f7/f8."""
    nw7 = f7.shape[0]
    nw8 = f8.shape[1]
    g7 = f7.copy()
    g8 = f8.copy()
    d7 = np.zeros(nw7, np.uint64)
    d8 = np.zeros(nw8, np.uint64)
    # compact lists: unaffected valid lanes (old bitsets), affected valid lanes (new bitsets)
    u7 = np.empty(2 * N * N, np.int64)
    a7 = np.empty(2 * N * N, np.int64)
    u8 = np.empty(2 * N * N, np.int64)
    a8 = np.empty(2 * N * N, np.int64)
    nu7 = na7 = nu8 = na8 = 0
    for d in range(2):
        for lane in range(N * N):
            i = d * N * N + lane
            if aff7[d, lane]:
                if ok7[d, lane]:
                    for k in range(nw7):
                        d7[k] |= lane7[d, lane, k]
                if new_ok7[d, lane]:
                    for k in range(nw7):
                        d7[k] |= new7[d, lane, k]
                    a7[na7] = i
                    na7 += 1
            elif ok7[d, lane]:
                u7[nu7] = i
                nu7 += 1
            if aff8[d, lane]:
                if ok8[d, lane]:
                    for k in range(nw8):
                        d8[k] |= lane8[d, lane, k]
                if new_ok8[d, lane]:
                    for k in range(nw8):
                        d8[k] |= new8[d, lane, k]
                    a8[na8] = i
                    na8 += 1
            elif ok8[d, lane]:
                u8[nu8] = i
                nu8 += 1
    NN = N * N
    for k in range(nw7):
        if d7[k] == 0:
            continue
        v = np.uint64(0)
        for q in range(nu7):
            i = u7[q]
            v |= lane7[i // NN, i % NN, k]
        for q in range(na7):
            i = a7[q]
            v |= new7[i // NN, i % NN, k]
        g7[k] = v
    for k in range(nw8):
        if d8[k] == 0:
            continue
        for j in range(R + 1):
            g8[j, k] = 0
        for q in range(nu8):
            i = u8[q]
            g8[j8[i // NN, i % NN], k] |= lane8[i // NN, i % NN, k]
        for q in range(na8):
            i = a8[q]
            g8[new_j8[i // NN, i % NN], k] |= new8[i // NN, i % NN, k]
    return g7, g8


@njit(cache=True)
def _holds(rows, key, kinds, need):
    """Does key (a row of sorted tiles, (n, R) uint8) hold need[q] tiles of kinds[q]?"""
    for q in range(kinds.shape[0]):
        x = kinds[q]
        c = 0
        for i in range(rows.shape[1]):
            if rows[key, i] == x:
                c += 1
        if c < need[q]:
            return False
    return True


@njit(cache=True)
def _octet_positions(letters, letters_t, ok8, N, R):
    """(2, N*N) int64: position of the board tile in each valid octet lane."""
    out = np.zeros((2, N * N), np.int64)
    for d in range(2):
        lt = letters if d == 0 else letters_t
        for lane in range(N * N):
            if ok8[d, lane]:
                r = lane // N
                s = lane % N
                for i in range(R + 1):
                    if lt[r, s + i] >= 0:
                        out[d, lane] = i
                        break
    return out


@njit(cache=True)
def _count_changed(f7, g7, f8, g8, has7, has8, need_kinds):
    """Words whose fit changed and that hold every kind in need_kinds."""
    n = 0
    for part in range(2):
        rows = 1 if part == 0 else f8.shape[0]
        nw = f7.shape[0] if part == 0 else f8.shape[1]
        for j in range(rows):
            for k in range(nw):
                v = (f7[k] ^ g7[k]) if part == 0 else (f8[j, k] ^ g8[j, k])
                for q in range(need_kinds.shape[0]):
                    if not v:
                        break
                    v &= has7[need_kinds[q], k] if part == 0 else has8[need_kinds[q], k]
                while v:
                    v &= v - np.uint64(1)
                    n += 1
    return n


@njit(cache=True)
def _push(buf, n, v):
    if n == buf.shape[0]:
        buf = np.concatenate((buf, np.empty(max(n, 64), buf.dtype)))
    buf[n] = v
    return buf


@njit(cache=True)
def _key_changes(f7, f8, g7, g8, delta, w7_key, w8_key_t, ptr7, word7, ptr8, word8, R,
                 order_pos, blank_ptr, blank_child, par_ptr, par, table, stamp, mark,
                 counts, need_kinds, need_counts, has7, has8, n_blanks, max_blanks):
    """Keys whose δ differs between the old words (f) and the new words (g): returns
    (keys, new values). ``delta`` is modified in place during the call and restored.
    ``mark`` (n_keys,) int64 scratch with ``stamp`` a fresh value (a key is *decided*
    once marked). Only keys holding at least ``need_counts`` of the kinds ``need_kinds``
    (the letters of a leave) are considered (counts: (n, K) uint8 key counts).

    A word that starts to fit makes its key land (no look-up); a word that stops fitting
    only matters when no other witness word of its key still fits. Blanks likewise: a
    child key that starts to land makes its parents land; one that stops needs a scan of
    the parent's other children."""
    nk = need_kinds.shape[0]
    ch = np.empty(256, np.int64)
    old = np.empty(256, np.bool_)
    n_ch = 0
    lost = np.empty(256, np.int64)
    n_lost = 0
    R1 = R + 1
    # pass 1 over the changed words: gains decide at once, losses are kept for pass 2
    for part in range(2):
        rows = 1 if part == 0 else f8.shape[0]
        nw = f7.shape[0] if part == 0 else f8.shape[1]
        for j in range(rows):
            for k in range(nw):
                if part == 0:
                    v = f7[k] ^ g7[k]
                else:
                    v = f8[j, k] ^ g8[j, k]
                for q in range(nk):
                    if not v:
                        break
                    if part == 0:
                        v &= has7[need_kinds[q], k]
                    else:
                        v &= has8[need_kinds[q], k]
                while v:
                    b = _ctz(v, table)
                    v &= v - np.uint64(1)
                    w = k * 64 + b
                    if part == 0:
                        key = w7_key[w]
                        gained = (g7[k] >> np.uint64(b)) & np.uint64(1)
                    else:
                        key = w8_key_t[j, w]
                        gained = (g8[j, k] >> np.uint64(b)) & np.uint64(1)
                    if mark[key] == stamp or not _holds(counts, key, need_kinds, need_counts):
                        continue
                    if gained:
                        mark[key] = stamp
                        if not delta[key]:
                            ch = _push(ch, n_ch, key)
                            old = _push(old, n_ch, False)
                            n_ch += 1
                            delta[key] = True
                    elif delta[key] and mark[key] != -stamp:
                        mark[key] = -stamp  # queued for pass 2
                        lost = _push(lost, n_lost, key)
                        n_lost += 1
    # pass 2: keys that lost a word and gained none: look for another witness
    for q in range(n_lost):
        key = lost[q]
        if mark[key] == stamp:
            continue
        mark[key] = stamp
        hit = False
        for e in range(ptr7[key], ptr7[key + 1]):
            w = word7[e]
            if (g7[w >> 6] >> np.uint64(w & 63)) & np.uint64(1):
                hit = True
                break
        if not hit:
            for e in range(ptr8[key], ptr8[key + 1]):
                wj = word8[e]
                w = wj // R1
                j = wj % R1
                if (g8[j, w >> 6] >> np.uint64(w & 63)) & np.uint64(1):
                    hit = True
                    break
        if not hit:
            ch = _push(ch, n_ch, key)
            old = _push(old, n_ch, True)
            n_ch += 1
            delta[key] = False
    # blanks, one more at each round: gains first, then losses (scan the other children)
    lo = 0
    hi = n_ch
    while lo < hi:
        for sweep in range(2):
            for q in range(lo, hi):
                key = ch[q]
                now = delta[key]
                if (sweep == 0) != now:
                    continue
                for e in range(par_ptr[key], par_ptr[key + 1]):
                    pk = par[e]
                    if (mark[pk] == stamp or n_blanks[pk] > max_blanks
                            or not _holds(counts, pk, need_kinds, need_counts)):
                        continue
                    if now:
                        mark[pk] = stamp
                        if not delta[pk]:
                            ch = _push(ch, n_ch, pk)
                            old = _push(old, n_ch, False)
                            n_ch += 1
                            delta[pk] = True
                        continue
                    mark[pk] = stamp
                    if not delta[pk]:
                        continue
                    op = order_pos[pk]
                    hit = False
                    for c in range(blank_ptr[op], blank_ptr[op + 1]):
                        if delta[blank_child[c]]:
                            hit = True
                            break
                    if not hit:
                        ch = _push(ch, n_ch, pk)
                        old = _push(old, n_ch, True)
                        n_ch += 1
                        delta[pk] = False
        lo = hi
        hi = n_ch
    keys = ch[:n_ch].copy()
    new = np.empty(n_ch, np.bool_)
    for q in range(n_ch):
        new[q] = delta[keys[q]]
        delta[keys[q]] = old[q]
    return keys, new


def delta(pack, letters: np.ndarray) -> np.ndarray:
    """δ over ``pack.keys`` for a board: (n_keys,) bool, True when the key can land as a
    bingo (see the module doc). ``letters``: (N, N) int8, -1 empty."""
    return BoardDelta(pack, letters, keep_lanes=False).delta


# -- random legal boards (tests and benchmarks) -----------------------------------------------
_BY_LETTER: dict = {}


def random_board(pack, n_words: int, rng: np.random.Generator, max_len: int = 8):
    """A random legal board for tests and benchmarks: the first word across the centre, then
    ``n_words - 1`` words of 2..``max_len`` tiles, each through one board tile, connected,
    every cross-word valid, tile counts within the language's (a letter beyond its count
    is played by a blank while blanks last). Not a game: no racks, no scores.

    Returns ``(letters (N, N) int8, blanks (N, N) bool)``."""
    spec = pack.spec
    N = spec.board_size
    key = str(pack.root)
    idx = _BY_LETTER.get(key)
    if idx is None:
        t = pack.table("words")
        ln = t.column("length").to_numpy()
        tiles = t.column("tiles").to_pylist()
        words = [np.array(w, np.int8) for w, n in zip(tiles, ln) if 2 <= n <= max_len]
        idx = _BY_LETTER[key] = words
    words = idx
    letters = np.full((N, N), -1, np.int8)
    blanks = np.zeros((N, N), bool)
    left = spec.distribution().copy()
    cr, cc_ = _centre(spec)

    def place(r, c, down, w):
        cells = [(r + i, c) if down else (r, c + i) for i in range(len(w))]
        if any(not (0 <= a < N and 0 <= b < N) for a, b in cells):
            return False
        before = (r - 1, c) if down else (r, c - 1)
        after = (r + len(w), c) if down else (r, c + len(w))
        for a, b in (before, after):
            if 0 <= a < N and 0 <= b < N and letters[a, b] >= 0:
                return False
        cca, hasa, ccd, hasd = cross_checks(pack, letters)
        cc = ccd if down else cca
        new = []
        for (a, b), x in zip(cells, w):
            if letters[a, b] >= 0:
                if letters[a, b] != x:
                    return False
            else:
                if not (int(cc[a, b]) >> int(x)) & 1:
                    return False
                new.append((a, b, int(x)))
        if not new or len(new) == len(w) and (letters >= 0).any():
            return False
        need = np.bincount([x for _, _, x in new], minlength=spec.n_kinds)
        use_blank = []
        for x in np.flatnonzero(need):
            short = need[x] - left[x]
            if short > 0:
                use_blank.append((x, short))
        if sum(s for _, s in use_blank) > left[spec.blank]:
            return False
        for a, b, x in new:
            letters[a, b] = x
            if left[x] > 0:
                left[x] -= 1
            else:
                blanks[a, b] = True
                left[spec.blank] -= 1
        return True

    while True:
        w = words[rng.integers(len(words))]
        if place(cr, cc_ - int(rng.integers(len(w))), False, w):
            break
    placed, tries = 1, 0
    while placed < n_words and tries < 200 * n_words:
        tries += 1
        occ = np.argwhere(letters >= 0)
        r, c = occ[rng.integers(len(occ))]
        w = words[rng.integers(len(words))]
        hits = np.flatnonzero(w == letters[r, c])
        if len(hits) == 0:
            continue
        i = int(hits[rng.integers(len(hits))])
        down = bool(rng.integers(2))
        if place(r - i if down else r, c if down else c - i, down, w):
            placed += 1
    return letters, blanks
