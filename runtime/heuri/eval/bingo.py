"""δ: which keys of the Heuri_3 key set can land as a bingo on a board.

δ(s) = 1 when the key ``s`` (R tiles, R = the rack size, 7) can be played as a bingo on the
board as it stands (docs/method.md, paper §4.3):

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

δ of the board after a move (Heuri_3 re-values placements with it,
:meth:`BoardDelta.bits_after`) is computed on that board in one compiled call: for the first
placement of a board every line is walked (about 0.35 ms); from the second on, only the rows
and columns whose letters, cross-checks or neighbour flags the move changes (first to last),
the other lines' lanes coming from prefix and suffix unions of the board's rows and columns
(:func:`_line_unions`, built once, about two δ; the blank closure of a union is the union of
the closures): about 0.18 ms a placement. Everything runs in compiled loops (numba).
Cross-checks come from the move generator's word graph (:func:`cross_masks_by_direction`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from llvmlite import ir as llvm_ir
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from ..core.errors import HeuriError
from ..core.movegen import cross_checks_kernel, popcount


class BoardError(HeuriError):
    """A board array has the wrong shape or dtype, or holds an id that is not a letter."""


# -- index ----------------------------------------------------------------------------------
@dataclass
class BingoIndex:
    """The arrays of ``build/<lang>/bingo/`` (see pipeline/bingo_index.py; memory-mapped),
    plus maps derived from the keys (blanks per key, keys holding a leave). n64 =
    ceil(n_keys / 64): a bitset over the keys is (n64,) uint64, bit s % 64 of word s // 64."""

    kb7: np.ndarray  # (R, L, n64) uint64 closed key bitsets: letter c at position i
    kb8: np.ndarray  # (R+1, L, n64): board tile x at position j of an (R+1)-tile word
    parents: np.ndarray  # (n_keys, R) int32, each key's blank parents, -1 padded
    s7_bits: np.ndarray  # (R, R, L, nw7) uint64: R-tile word bitsets, sorted position j first
    s7_start: np.ndarray  # (R, L+1) int64: where each letter's run at position j starts
    s7_key: np.ndarray  # (R, n7) int32: the words' keys in that order
    s8_bits: np.ndarray  # (R+1, R+1, L, nw8): the same for the (R+1)-tile words,
    s8_start: np.ndarray  # (R+1, L+1)
    s8_key: np.ndarray  # (R+1, n8): the reduced octet completed by the tile at j
    n_keys: int
    n_letters: int
    rack_size: int
    key_counts: np.ndarray  # (n_keys, L+1) uint8, the keys as count vectors (pack.keys.counts)

    @cached_property
    def n_blanks(self) -> np.ndarray:
        """Blanks in each key, (n_keys,) int64."""
        return np.asarray(self.key_counts)[:, self.n_letters].astype(np.int64)

    @cached_property
    def at_least(self) -> np.ndarray:
        """(L+1, R, ceil(n_keys/64)) uint64: row [x, k] the bitset of the keys holding at
        least k + 1 tiles of kind x (blank = L)."""
        n64 = (self.n_keys + 63) // 64
        K, R = self.n_letters + 1, self.rack_size
        counts = np.asarray(self.key_counts)
        out = np.zeros((K, R, n64 * 64), np.bool_)
        for x in range(K):
            for k in range(R):
                out[x, k, :self.n_keys] = counts[:, x] > k
        return np.ascontiguousarray(
            np.packbits(out, axis=2, bitorder="little").view("<u8"))

    @cached_property
    def kb7_all(self) -> np.ndarray:
        """(ceil(n_keys/64),) uint64: the union of ``kb7[0, c]`` over the letters c (the
        keys an unconstrained septet lane lands: every R-tile word's key, closed)."""
        return np.bitwise_or.reduce(np.asarray(self.kb7[0]), axis=0)

    def holding(self, leave) -> np.ndarray:
        """(ceil(n_keys/64),) uint64: the keys that hold the leave ((K,) counts)."""
        leave = np.asarray(leave)
        m = np.full((self.n_keys + 63) // 64, ~np.uint64(0), np.uint64)
        for x in np.flatnonzero(leave):
            m &= self.at_least[x, int(leave[x]) - 1]
        return m

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


_INDEX: dict = {}


def bingo_index(pack) -> BingoIndex:
    """The pack's bingo index (memory-mapped, cached per pack folder). Raises PackError
    when the pack has no ``bingo/`` folder (build it with snakemake)."""
    from ..core.errors import PackError

    key = str(pack.root)
    ix = _INDEX.get(key)
    if ix is None:
        d = pack.root / "bingo"
        names = ("kb7", "kb8", "parents", "s7_bits", "s7_start", "s7_key", "s8_bits",
                 "s8_start", "s8_key")
        missing = [n for n in names if not (d / f"{n}.npy").is_file()]
        if missing:
            raise PackError(f"{d}: bingo index missing {missing}; build it with: "
                            f"snakemake --cores 2 {pack.code}")
        # plain ndarray views of the memory maps: a compiled call types a np.memmap argument
        # on a slow path (about 1 µs each against 0.2 µs; the δ kernels take ten of them)
        arrs = {n: np.asarray(np.load(d / f"{n}.npy", mmap_mode="r")) for n in names}
        ix = BingoIndex(**arrs, n_keys=len(pack.keys), n_letters=pack.spec.n_letters,
                        rack_size=pack.spec.rack_size, key_counts=pack.keys.counts)
        _INDEX[key] = ix
    return ix


# -- cross-checks ---------------------------------------------------------------------------
def _check_board(pack, letters):
    letters = np.asarray(letters)
    N = pack.spec.board_size
    if letters.shape != (N, N):
        raise BoardError(f"board letters: shape {letters.shape}, the {pack.code} board is {N}x{N}")
    if letters.max(initial=-1) >= pack.spec.n_letters or letters.min(initial=-1) < -1:
        raise BoardError(f"board letters: ids must be -1 (empty) or 0..{pack.spec.n_letters - 1}")
    return np.ascontiguousarray(letters, np.int8)


def cross_masks_by_direction(pack, letters: np.ndarray):
    """Cross-check masks of an empty-square board for both directions.

    ``letters``: (N, N) int8 (-1 empty). Returns ``(cc_across, has_across, cc_down,
    has_down)``: ``cc_across[r, c]`` (uint64 bit x) = letters x that may be played at (r, c)
    in an across word (the column word through it must be valid; all letters when the
    square has no vertical neighbour), ``has_across`` whether it has one; ``cc_down`` and
    ``has_down`` the same for down words (row cross-words), indexed like the board. Walks
    the move generator's word graph (:func:`heuri.movegen.cross_checks`). Raises
    BoardError for a malformed board."""
    from ..core import movegen

    letters = _check_board(pack, letters)
    ctx = movegen.kernel_context(pack)
    mask, _, has = movegen.cross_checks_kernel(ctx.g, ctx.hw, ctx.root, letters,
                                       np.zeros(letters.shape, np.bool_), ctx.values, ctx.L)
    return mask[0], has[0], mask[1], has[1]


# -- lanes ----------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _or_row(bits, seen, i, c, kb):
    """bits |= kb[i, c] once per (i, c) (seen (P, L) bool)."""
    if seen[i, c]:
        return
    seen[i, c] = True
    row = kb[i, c]
    for k in range(bits.shape[0]):
        bits[k] |= row[k]


@njit(cache=True, nogil=True)
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
        comp = popcount(m) * 2 > n_letters
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


@njit(cache=True, nogil=True)
def _kb_lanes(letters, cc, has, R, s7_bits, s7_start, s7_key, s8_bits, s8_start, s8_key,
              kb7, kb8, kb7_all, n_letters, centre_r, centre_c, empty_board, bits, new, seen7, seen8,
              r0, r1):
    """δ of the lanes along rows ``r0 .. r1 - 1``, two ways. A septet lane with at most one constrained
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
    for r in range(r0, r1):
        for s in range(N - R + 1):
            npos = _septet_lane(letters, cc, has, r, s, R, full, empty_board, centre_r,
                                centre_c, pos, masks)
            if npos == 0:  # no constraint: every R-tile word (each has a letter at 0)
                todo = False
                for c in range(n_letters):
                    if not seen7[0, c]:
                        todo = True
                        seen7[0, c] = True
                if todo:  # kb7_all: the union of the rows kb7[0, c] over the letters c
                    for k in range(bits.shape[0]):
                        bits[k] |= kb7_all[k]
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


@intrinsic
def _prefetch(typingctx, arr, i):
    """Hint the CPU to fetch ``arr[i]`` (1-D array) into the cache (LLVM prefetch, read)."""
    sig = types.void(arr, i)

    def codegen(context, builder, signature, args):
        aty = signature.args[0]
        ary = context.make_array(aty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aty, ary, [args[1]], wraparound=False)
        i8p = llvm_ir.IntType(8).as_pointer()
        i32 = llvm_ir.IntType(32)
        fnty = llvm_ir.FunctionType(llvm_ir.VoidType(), [i8p, i32, i32, i32])
        fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], fnty)
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True)
def _close(bits, new, parents, lev_mask):
    """Blank closure of the keys in ``new`` (all set in ``bits``): every key with blanks
    that has one of them as a child is set too. ``bits`` must be closed but for ``new``
    (a set key's parents set), so only the newly set keys walk up to their parents
    (``parents`` (n_keys, R) int32, −1 padded), one blank count at a time (lev_mask:
    :attr:`BingoIndex.lev_mask`), in key order. The keys of a level are listed first so
    that their parent rows can be prefetched a few keys ahead (each is a cache miss)."""
    one = np.uint64(1)
    nb = bits.shape[0]
    width = parents.shape[1]
    flat = parents.reshape(-1)
    ahead = 16
    for lev in range(lev_mask.shape[0]):
        m = lev_mask[lev]
        n = 0
        for i in range(nb):
            v = new[i] & m[i]
            while v:
                v &= v - one
                n += 1
        keys = np.empty(n, np.int64)
        n = 0
        for i in range(nb):
            v = new[i] & m[i]
            while v:
                keys[n] = i * 64 + trailing_zeros(v)
                v &= v - one
                n += 1
        for t in range(n):
            if t + ahead < n:
                _prefetch(flat, keys[t + ahead] * width)
            key = keys[t]
            for e in range(width):
                p = parents[key, e]
                if p < 0:
                    break
                b = one << np.uint64(p & 63)
                if not bits[p >> 6] & b:
                    bits[p >> 6] |= b
                    new[p >> 6] |= b
    return 0


@njit(cache=True, nogil=True)
def _delta_bits(lt_a, cc_a, has_a, lt_d, cc_d, has_d, R, s7_bits, s7_start, s7_key,
                s8_bits, s8_start, s8_key, kb7, kb8, kb7_all, n_letters, centre_r, centre_c,
                empty_board, parents, lev_mask, n_keys):
    """δ of a board as a bitset ((n_keys + 63) // 64,) uint64: :func:`_kb_lanes` along the
    rows (``lt_a``, the across cross-checks) and along the columns (``lt_d``, the board
    transposed, with the down cross-checks transposed), then :func:`_close`."""
    bits = np.zeros((n_keys + 63) // 64, np.uint64)
    new = np.zeros((n_keys + 63) // 64, np.uint64)
    seen7 = np.zeros((R, n_letters), np.bool_)
    seen8 = np.zeros((R + 1, n_letters), np.bool_)
    N = lt_a.shape[0]
    _kb_lanes(lt_a, cc_a, has_a, R, s7_bits, s7_start, s7_key, s8_bits, s8_start, s8_key,
              kb7, kb8, kb7_all, n_letters, centre_r, centre_c, empty_board, bits, new, seen7, seen8, 0, N)
    _kb_lanes(lt_d, cc_d, has_d, R, s7_bits, s7_start, s7_key, s8_bits, s8_start, s8_key,
              kb7, kb8, kb7_all, n_letters, centre_c, centre_r, empty_board, bits, new, seen7, seen8, 0, N)
    _close(bits, new, parents, lev_mask)
    return bits


@njit(cache=True, nogil=True)
def _line_unions(lt, cc, has, R, s7_bits, s7_start, s7_key, s8_bits, s8_start, s8_key, kb7,
                 kb8, kb7_all, n_letters, centre_r, centre_c, empty_board, parents, lev_mask, n_keys):
    """The lanes of one direction (rows of ``lt``; the columns as the transposed board), as
    prefix and suffix unions: ``pre[r]`` the closed key bitset of the lanes of rows < r,
    ``suf[r]`` of rows ≥ r; both (N + 1, ceil(n_keys/64)) uint64. Each row's lanes are
    added to the running union and only its new keys walk up to their blank parents
    (:func:`_close`), so each pass costs about one direction of :func:`_delta_bits`.
    δ is a union over lanes and the blank closure of a union is the union of the
    closures, so the lanes of the rows a move leaves alone come from these unions."""
    N = lt.shape[0]
    n64 = (n_keys + 63) // 64
    pre = np.zeros((N + 1, n64), np.uint64)
    suf = np.zeros((N + 1, n64), np.uint64)
    for way in range(2):
        bits = np.zeros(n64, np.uint64)
        new = np.zeros(n64, np.uint64)
        seen7 = np.zeros((R, n_letters), np.bool_)
        seen8 = np.zeros((R + 1, n_letters), np.bool_)
        for q in range(N):
            r = q if way == 0 else N - 1 - q
            _kb_lanes(lt, cc, has, R, s7_bits, s7_start, s7_key, s8_bits, s8_start, s8_key,
                      kb7, kb8, kb7_all, n_letters, centre_r, centre_c, empty_board, bits, new, seen7,
                      seen8, r, r + 1)
            any_new = False
            for k in range(n64):
                if new[k]:
                    any_new = True
                    break
            if any_new:
                _close(bits, new, parents, lev_mask)
                for k in range(n64):
                    new[k] = 0
            if way == 0:
                pre[r + 1] = bits
            else:
                suf[r] = bits
    return pre, suf


@njit(cache=True, nogil=True)
def _down_lines(new, mask, has):
    """The board's columns as rows, for the lane scan of the down direction: the letters
    ``new`` (N, N) int8 transposed, and the down cross-checks ``mask[1]`` (uint64) and
    ``has[1]`` (bool) of :func:`heuri.core.movegen.cross_checks_kernel` transposed likewise (fresh
    contiguous arrays)."""
    N = new.shape[0]
    ld = np.empty((N, N), np.int8)
    ccd = np.empty((N, N), np.uint64)
    hasd = np.empty((N, N), np.bool_)
    for r in range(N):
        for c in range(N):
            ld[r, c] = new[c, r]
            ccd[r, c] = mask[1, c, r]
            hasd[r, c] = has[1, c, r]
    return ld, ccd, hasd


@njit(cache=True, nogil=True)
def _delta_bits_after(letters, rows, cols, tiles, g, hw, root, values, L, R, s7_bits, s7_start,
                      s7_key, s8_bits, s8_start, s8_key, kb7, kb8, kb7_all, centre_r, centre_c,
                      parents, lev_mask, n_keys, keep):
    """δ (a bitset, like :func:`_delta_bits`) of the board ``letters`` after placing
    ``tiles`` on the empty squares (rows[i], cols[i]), in one compiled call: the board
    copied and filled, its cross-checks (the move generator's :func:`heuri.core.movegen.cross_checks_kernel`
    on its word graph ``g``/``hw``/``root``/``values``), both directions' lanes and the
    blank closure, then ``&= keep`` (``keep`` empty: every key). The same bits as a
    :class:`BoardDelta` of that board."""
    N = letters.shape[0]
    new = letters.copy()
    for i in range(rows.shape[0]):
        new[rows[i], cols[i]] = tiles[i]
    empty = True
    for r in range(N):
        for c in range(N):
            if new[r, c] >= 0:
                empty = False
    blanks = np.zeros((N, N), np.bool_)
    mask, _, has = cross_checks_kernel(g, hw, root, new, blanks, values, L)
    cca = mask[0].copy()
    hasa = has[0].copy()
    ld, ccd, hasd = _down_lines(new, mask, has)
    bits = _delta_bits(new, cca, hasa, ld, ccd, hasd, R, s7_bits, s7_start, s7_key, s8_bits,
                       s8_start, s8_key, kb7, kb8, kb7_all, L, centre_r, centre_c, empty, parents,
                       lev_mask, n_keys)
    if keep.shape[0] > 0:
        for k in range(bits.shape[0]):
            bits[k] &= keep[k]
    return bits


_NO_KEEP = np.zeros(0, np.uint64)


@njit(cache=True, nogil=True)
def _delta_bits_after_lines(letters, cc0, has0, pre_a, suf_a, pre_d, suf_d, rows, cols, tiles,
                            g, hw, root, values, L, R, s7_bits, s7_start, s7_key, s8_bits,
                            s8_start, s8_key, kb7, kb8, kb7_all, centre_r, centre_c, parents,
                            lev_mask, n_keys, keep):
    """:func:`_delta_bits_after` from the current board's line unions (:func:`_line_unions`
    of the rows, ``pre_a``/``suf_a``, and of the columns, ``pre_d``/``suf_d``; ``cc0``/
    ``has0`` (2, N, N) its cross-checks, as :func:`heuri.core.movegen.cross_checks_kernel` gives them;
    the current board must not be empty): the rows whose letters, across cross-checks or
    neighbour flags the move changes, from the first such row to the last, are walked
    again on the new board, and so are the changed columns; every other line's lanes
    are those of the current board, taken from the unions. The same bits as
    :func:`_delta_bits_after` (sets, so exactly)."""
    N = letters.shape[0]
    new = letters.copy()
    for i in range(rows.shape[0]):
        new[rows[i], cols[i]] = tiles[i]
    blanks = np.zeros((N, N), np.bool_)
    mask, _, has = cross_checks_kernel(g, hw, root, new, blanks, values, L)
    rlo = N
    rhi = -1
    clo = N
    chi = -1
    for r in range(N):
        for c in range(N):
            if new[r, c] != letters[r, c]:
                rlo = min(rlo, r)
                rhi = max(rhi, r)
                clo = min(clo, c)
                chi = max(chi, c)
                continue
            if mask[0, r, c] != cc0[0, r, c] or has[0, r, c] != has0[0, r, c]:
                rlo = min(rlo, r)
                rhi = max(rhi, r)
            if mask[1, r, c] != cc0[1, r, c] or has[1, r, c] != has0[1, r, c]:
                clo = min(clo, c)
                chi = max(chi, c)
    if rhi < 0:
        rlo = N
        rhi = N - 1
    if chi < 0:
        clo = N
        chi = N - 1
    n64 = (n_keys + 63) // 64
    bits = np.empty(n64, np.uint64)
    for k in range(n64):
        bits[k] = pre_a[rlo, k] | suf_a[rhi + 1, k] | pre_d[clo, k] | suf_d[chi + 1, k]
    fresh = np.zeros(n64, np.uint64)
    seen7 = np.zeros((R, L), np.bool_)
    seen8 = np.zeros((R + 1, L), np.bool_)
    cca = mask[0].copy()
    hasa = has[0].copy()
    _kb_lanes(new, cca, hasa, R, s7_bits, s7_start, s7_key, s8_bits, s8_start, s8_key, kb7,
              kb8, kb7_all, L, centre_r, centre_c, False, bits, fresh, seen7, seen8, rlo, rhi + 1)
    ld, ccd, hasd = _down_lines(new, mask, has)
    _kb_lanes(ld, ccd, hasd, R, s7_bits, s7_start, s7_key, s8_bits, s8_start, s8_key, kb7,
              kb8, kb7_all, L, centre_c, centre_r, False, bits, fresh, seen7, seen8, clo, chi + 1)
    _close(bits, fresh, parents, lev_mask)
    if keep.shape[0] > 0:
        for k in range(n64):
            bits[k] &= keep[k]
    return bits


#: the :meth:`BoardDelta.bits_after` call from which the line unions are built and used
#: (building them costs about two δ; a decision that re-values one placement skips them)
LINES_AFTER = 2


def _centre(spec):
    for r, row in enumerate(spec.board):
        c = row.find("*")
        if c >= 0:
            return r, c
    return spec.board_size // 2, spec.board_size // 2


class BoardDelta:
    """δ of one board (docs/method.md, paper §4.3), computed on first use.

    ``BoardDelta(pack, letters, max_blanks=None)``: letters (N, N) int8 (-1 empty; blanks
    hold their letter, so the ``blanks`` array is not needed). ``max_blanks``: keys with
    more blanks stay at δ = False (the evaluators pass the blanks the player can still
    hold, rack + unseen: p(s | L) = 0 for the others); default every key.

    Attributes: :attr:`delta_bits` (bitset over ``pack.keys``), :attr:`delta` ((n_keys,)
    bool), ``cc`` (the cross-checks, :func:`cross_masks_by_direction`); :meth:`bits_after` gives δ of
    the board after a placement. Raises BoardError for a malformed board or PackError when
    the bingo index is missing.

    >>> import heuri
    >>> pack = heuri.load_pack("en")
    >>> bd = BoardDelta(pack, np.full((15, 15), -1, np.int8))
    >>> int(bd.delta.sum()) == int(pack.keys.is_septet.sum())
    True

    (On the empty board exactly the septets land.)"""

    def __init__(self, pack, letters: np.ndarray, max_blanks: int | None = None):
        self.pack = pack
        self.ix = bingo_index(pack)
        self.max_blanks = pack.spec.rack_size if max_blanks is None else int(max_blanks)
        self.letters = _check_board(pack, letters)
        self.centre = _centre(pack.spec)
        self.cc = cross_masks_by_direction(pack, self.letters)
        self.empty = not (self.letters >= 0).any()
        self._delta = None
        self._bits = None
        self._after_calls = 0
        self._lines = None
        # δ after a placement, by its squares and tiles: a position shared by several
        # requests (a server's engines and k values) re-values the same top placements
        self._after: dict = {}

    #: the most placements whose δ after :meth:`bits_after` keeps (about 36 KB each in Spanish)
    AFTER_MEMO = 64

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
                               ix.kb7, ix.kb8, ix.kb7_all, spec.n_letters, cr, cc_, self.empty,
                               ix.parents, ix.lev_mask, ix.n_keys)
            keep = ix.keep_mask(self.max_blanks)
            if keep is not None:
                bits &= keep
            self._bits = bits
        return self._bits

    def bits_after(self, rows, cols, tiles) -> np.ndarray:
        """δ as a bitset (like :attr:`delta_bits`, same ``max_blanks``) of the board after
        placing ``tiles`` (letter ids) on the empty squares (rows[i], cols[i]), in one
        compiled call: :func:`_delta_bits_after` (every line walked, about the cost of
        :attr:`delta_bits`) for the first call, then, from the :data:`LINES_AFTER`-th on,
        :func:`_delta_bits_after_lines` (only the lines the move changes; the same bits).
        Raises BoardError when a square is occupied or off the board, or a tile is not a
        letter id."""
        rows = np.asarray(rows, np.int64)
        cols = np.asarray(cols, np.int64)
        N = self.letters.shape[0]
        if len(rows) and (rows.min() < 0 or cols.min() < 0 or rows.max() >= N
                          or cols.max() >= N):
            raise BoardError(f"BoardDelta.bits_after: a square is off the {N}x{N} board")
        if (self.letters[rows, cols] >= 0).any():
            raise BoardError("BoardDelta.bits_after: a move square is already occupied")
        tiles = np.asarray(tiles, np.int8)
        if len(tiles) != len(rows) or (len(tiles) and (tiles.min() < 0 or tiles.max() >= self.pack.spec.n_letters)):
            raise BoardError(f"BoardDelta.bits_after: {len(rows)} squares, tiles {tiles.tolist()} "
                             f"(letter ids 0..{self.pack.spec.n_letters - 1})")
        from ..core import movegen

        ix = self.ix
        spec = self.pack.spec
        ctx = movegen.kernel_context(self.pack)
        keep = ix.keep_mask(self.max_blanks)
        keep = _NO_KEEP if keep is None else keep
        memo = (rows.tobytes(), cols.tobytes(), tiles.tobytes())
        bits = self._after.get(memo)
        if bits is None:
            bits = self._bits_after(rows, cols, tiles, ix, spec, ctx, keep)
            bits.flags.writeable = False  # shared by every caller that asks this placement
            if len(self._after) < self.AFTER_MEMO:
                self._after[memo] = bits
        return bits

    def _bits_after(self, rows, cols, tiles, ix, spec, ctx, keep) -> np.ndarray:
        cr, cc_ = self.centre
        self._after_calls += 1
        if self._after_calls >= LINES_AFTER and self.lines is not None:
            cc0, has0, pre_a, suf_a, pre_d, suf_d = self.lines
            return _delta_bits_after_lines(self.letters, cc0, has0, pre_a, suf_a, pre_d, suf_d,
                                           rows, cols, tiles, ctx.g, ctx.hw, ctx.root, ctx.values,
                                           ctx.L, spec.rack_size, ix.s7_bits, ix.s7_start,
                                           ix.s7_key, ix.s8_bits, ix.s8_start, ix.s8_key, ix.kb7,
                                           ix.kb8, ix.kb7_all, cr, cc_, ix.parents, ix.lev_mask, ix.n_keys,
                                           keep)
        return _delta_bits_after(self.letters, rows, cols, tiles, ctx.g, ctx.hw, ctx.root,
                                 ctx.values, ctx.L, spec.rack_size, ix.s7_bits, ix.s7_start,
                                 ix.s7_key, ix.s8_bits, ix.s8_start, ix.s8_key, ix.kb7, ix.kb8, ix.kb7_all,
                                 cr, cc_, ix.parents, ix.lev_mask, ix.n_keys, keep)

    @property
    def lines(self):
        """The line unions of this board (:func:`_line_unions` of its rows and of its
        columns, with its cross-checks stacked (2, N, N)), computed on first use; None on
        the empty board (its lanes need the centre; :meth:`bits_after` then walks every
        line). From the :data:`LINES_AFTER`-th :meth:`bits_after` call on, δ after a
        move walks only the lines the move changes."""
        if self._lines is None and not self.empty:
            ix = self.ix
            spec = self.pack.spec
            (la, cca, hasa, cr, cc_), (ld, ccd, hasd, _, _) = self._directions()
            out = []
            for lt, cc, has, r0, c0 in ((la, cca, hasa, cr, cc_), (ld, ccd, hasd, cc_, cr)):
                out.extend(_line_unions(lt, cc, has, spec.rack_size, ix.s7_bits, ix.s7_start,
                                        ix.s7_key, ix.s8_bits, ix.s8_start, ix.s8_key, ix.kb7,
                                        ix.kb8, ix.kb7_all, spec.n_letters, r0, c0, False, ix.parents,
                                        ix.lev_mask, ix.n_keys))
            a, ha, d, hd = self.cc
            self._lines = (np.ascontiguousarray(np.stack([a, d])),
                           np.ascontiguousarray(np.stack([ha, hd])), *out)
        return self._lines

    @property
    def delta(self) -> np.ndarray:
        """δ over ``pack.keys``, (n_keys,) bool (from :attr:`delta_bits`, on first use)."""
        if self._delta is None:
            self._delta = np.unpackbits(self.delta_bits.view(np.uint8), bitorder="little",
                                        count=self.ix.n_keys).view(np.bool_)
        return self._delta

class BoardDeltaCache:
    """The :class:`BoardDelta` of recent boards, shared by evaluators (and threads) that
    value the same positions, as a server does: ``get(pack, letters, max_blanks)`` gives
    the one already made for that pack, board and ``max_blanks`` (δ, its line unions and
    the δ after each placement already asked are computed once), else makes it; the
    ``size`` least recently used boards are kept. Thread-safe: a BoardDelta computes each
    lazy piece from its board alone, so two threads computing one at once store equal
    arrays."""

    def __init__(self, size: int = 32):
        import threading
        from collections import OrderedDict

        self.size = int(size)
        self._boards: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, pack, letters: np.ndarray, max_blanks: int | None = None) -> "BoardDelta":
        """The BoardDelta of ``letters`` (N, N) int8 for ``pack`` and ``max_blanks``
        (see :class:`BoardDelta`)."""
        letters = np.ascontiguousarray(letters, np.int8)
        key = (str(pack.root), letters.shape, letters.tobytes(), max_blanks)
        with self._lock:
            bd = self._boards.get(key)
            if bd is not None:
                self._boards.move_to_end(key)
                self.hits += 1
                return bd
            self.misses += 1
        bd = BoardDelta(pack, letters.copy(), max_blanks=max_blanks)
        with self._lock:
            bd = self._boards.setdefault(key, bd)
            self._boards.move_to_end(key)
            while len(self._boards) > self.size:
                self._boards.popitem(last=False)
        return bd

    def __len__(self) -> int:
        with self._lock:
            return len(self._boards)


def delta(pack, letters: np.ndarray) -> np.ndarray:
    """δ over ``pack.keys`` for a board: (n_keys,) bool, True when the key can land as a
    bingo (see the module doc). ``letters``: (N, N) int8, -1 empty."""
    return BoardDelta(pack, letters).delta


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
        cca, hasa, ccd, hasd = cross_masks_by_direction(pack, letters)
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


# -- the lanes themselves (for a front end's overlay) -------------------------------------------
def _fits(bits_j, pos, masks, n_pos, first=None):
    """Does some word fit: AND over the constrained squares of the OR of the word bitsets
    of their allowed letters (``bits_j``: (P, L, nw) bitsets of one sort order); ``first``
    (i, x): a square that must hold letter x (an octet lane's board tile)."""
    acc = None if first is None else np.array(bits_j[first[0], first[1]])
    for q in range(n_pos):
        m = int(masks[q])
        lets = [x for x in range(bits_j.shape[1]) if (m >> x) & 1]
        u = np.bitwise_or.reduce(np.asarray(bits_j[pos[q], lets]), axis=0)
        acc = u if acc is None else acc & u
        if not acc.any():
            return False
    return True if acc is None else bool(acc.any())


def bingo_lanes(pack, letters: np.ndarray) -> list[tuple[int, int, bool, int]]:
    """The lanes where a bingo can land on a board, as δ counts them (module doc): every
    run of R empty squares (a septet lane) or of R+1 squares through exactly one board
    tile (an octet lane) that meets the lane conditions and that at least one word of the
    pack fits (each constrained square allows the word's letter there; the board tile is
    the octet's). ``letters``: (N, N) int8, -1 empty. Returns ``(row, col, across,
    length)`` tuples (0-based first square; length R or R+1), rows first. Raises
    BoardError for a malformed board. A few ms a board (Python over the lanes)."""
    letters = _check_board(pack, letters)
    spec = pack.spec
    ix = bingo_index(pack)
    R, L = spec.rack_size, spec.n_letters
    full = np.uint64((1 << L) - 1)
    N = letters.shape[0]
    cca, hasa, ccd, hasd = cross_masks_by_direction(pack, letters)
    empty = not (letters >= 0).any()
    cr, cc_ = _centre(spec)
    pos = np.zeros(R + 1, np.int64)
    masks = np.zeros(R + 1, np.uint64)
    out = []
    views = ((True, letters, cca, hasa, cr, cc_),
             (False, np.ascontiguousarray(letters.T), np.ascontiguousarray(ccd.T), np.ascontiguousarray(hasd.T),
              cc_, cr))
    for across, lt, cc, has, ctr_r, ctr_c in views:
        for r in range(N):
            for s in range(N - R + 1):
                npos = _septet_lane(lt, cc, has, r, s, R, full, empty, ctr_r, ctr_c, pos, masks)
                if npos >= 0 and (npos == 0 or _fits(ix.s7_bits[0], pos, masks, npos)):
                    out.append((r, s, True, R) if across else (s, r, False, R))
                if empty:
                    continue
                npos, jpos = _octet_lane(lt, cc, r, s, R, full, pos, masks)
                if jpos >= 0 and _fits(ix.s8_bits[0], pos, masks, npos, (jpos, int(lt[r, s + jpos]))):
                    out.append((r, s, True, R + 1) if across else (s, r, False, R + 1))
    out.sort(key=lambda t: (not t[2], t[0], t[1], t[3]))
    return out

#: the compiled kernels of this module whose numba cache tells whether a first run compiles
#: (read by the command line's compile notice, ``heuri.apps.cli.kernels_cached``); the
#: whole-board walk, which every evaluation compiles, not the per-line one, which a command may
#: never reach (an empty board has no lines to reuse)
CACHED_KERNELS = (_delta_bits_after,)
