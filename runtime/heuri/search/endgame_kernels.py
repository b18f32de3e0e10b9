"""Compiled helpers of the endgame solver (:mod:`heuri.endgame`): a move generator call
without the public wrapper's per-call checks and with the cross-checks of a board kept, the
build of a position's ordered move list in one pass, and the search of an older move list
for the placements a later board still allows.

Why (the profile of ``benchmarks/bench_endgame.py``): the solver calls the move
generator tens of thousands of times a search. Per call, the public
:func:`heuri.movegen.generate` checks the board and rack, recomputes the cross-checks of the
whole board (as long as the walk of the word graph itself) and allocates a buffer; and the
solver's own NumPy post-processing (sort, leaves) cost as much again. Here:

- :class:`FastGen` keeps the cross-checks by board hash (a board is met with both racks, and
  again in every iteration) and a buffer, and calls the compiled walk directly. It uses the
  move generator's kernel interface (``kernel_context``, ``cross_checks_kernel``,
  ``walk_placements``): if they are missing or have another signature, it says so
  once with a warning and uses :func:`heuri.movegen.generate` from then on (same moves,
  slower); ``tests/test_endgame.py`` checks that the fast path is taken and that it lists
  exactly what ``generate`` lists.
- :func:`build_order` sorts a list for the search (going out first, then score) and
  computes the leaves' points.
- :func:`stale_best`: a placement listed for the same player on an earlier board of the line
  is still legal, with the same score, when no tile placed since lies on its *footprint*
  (its squares, the squares just before and after its main word, and for each new tile the
  perpendicular run of tiles through it with the square beyond each end) and the rack still
  holds its tiles. A node at the horizon whose player has such a placement worth at least
  beta is cut without calling the move generator (any legal move's value is a lower bound).
"""
from __future__ import annotations

import warnings

import numpy as np
from numba import njit

from ..core.movegen import MOVE_DTYPE


@njit(cache=True)
def build_order(score, n_tiles, length, tiles, new, blank, rack_total, rack_val, values):
    """Search order and per-move arrays of a move list.

    Inputs: the generator's fields (``score`` int32 (n,), ``n_tiles`` int8 (n,), ``length``
    int8 (n,), ``tiles``/``new``/``blank`` (n, 15)); the rack's tile count and points; the
    tile values (L+1,) int64. Returns ``order`` (int64 (n,), indices into the records: going
    out first, then score descending, ties in generator order), and in that order
    ``a_score`` int64, ``a_out`` bool (the move empties the rack), ``a_leave`` int64 (points
    left on the rack)."""
    n = score.shape[0]
    key = np.empty(n, np.int64)
    for k in range(n):
        o = n_tiles[k] == rack_total
        key[k] = -(np.int64(score[k]) + (100_000 if o else 0))
    order = np.argsort(key, kind="mergesort")
    a_score = np.empty(n, np.int64)
    a_out = np.empty(n, np.bool_)
    a_leave = np.empty(n, np.int64)
    for i in range(n):
        m = order[i]
        a_score[i] = score[m]
        a_out[i] = n_tiles[m] == rack_total
        v = rack_val
        for j in range(length[m]):
            if new[m, j] and not blank[m, j]:
                v -= values[tiles[m, j]]
        a_leave[i] = v
    return order, a_score, a_out, a_leave


@njit(cache=True, nogil=True, inline="always")
def perp_run_clear(letters, stamp, since, r, c, dr, dc, N):
    """True when no tile was placed at or after ply ``since`` (``stamp`` (N*N,) int, the ply
    a square was filled, -1 empty) on the run of tiles perpendicular to the direction
    (``dr``, ``dc``) through square (``r``, ``c``), nor on the square just beyond each end
    of it (``letters`` (N*N,) int8, -1 empty): the part of a placement's footprint that a new
    tile at (r, c) adds (:func:`stale_best`; :func:`heuri.endgame_core.stale_scan`)."""
    for sgn in (-1, 1):
        rr = r + sgn * dc
        cc = c + sgn * dr
        while 0 <= rr < N and 0 <= cc < N:
            g = rr * N + cc
            if stamp[g] >= since:
                return False
            if letters[g] < 0:
                break
            rr += sgn * dc
            cc += sgn * dr
    return True


@njit(cache=True)
def stale_best(order, row, col, across, length, tiles, new, blank, score, letters, stamp, since,
               rack, rack_total, rack_val, values, L, N, vopp, ends, n_lead=0, beta=10 ** 9):
    """The best horizon value among the placements of an earlier move list that the current
    board still allows unchanged (see the module docstring).

    ``order``/``row``.../``score``: the earlier list (records in search order); ``letters``
    (N*N,) int8 the current board, flat; ``stamp`` (N*N,) int64: the line ply at which each
    tile was placed (-1 for the position's own tiles); ``since``: the ply of the earlier
    list (tiles stamped ``>= since`` are new to it); ``rack`` (L+1,) int64 the player's rack
    now. A move's value: score + twice ``vopp`` when it empties the rack, else score +
    ``vopp`` − the points it leaves (the solver's horizon estimate). Returns ``(best, k,
    best_term, k_term)``: the best value and its index in ``order`` (-1 if none), and the
    best among the moves that end the game (going out; with ``ends``, also scoring 0).

    ``n_lead``: the moves of ``order`` from index ``n_lead`` on are in descending score
    (:func:`build_order` puts the earlier rack's ways out first, then the rest by score):
    no move there can beat the answers once its score + twice ``vopp`` (the most any move
    is worth) does not, so the scan stops. ``beta``: the scan also stops at the first move
    that ends the game worth at least ``beta`` (the caller's proven cut); then ``best``
    and ``best_term`` are that move's value, a lower bound of the true best."""
    best, kb, bt, kt = -(10 ** 6), -1, -(10 ** 6), -1
    need = np.zeros(L + 1, np.int64)
    n = order.shape[0]
    for k in range(n):
        m = order[k]
        ln = length[m]
        # the rack still holds its tiles
        for t in range(L + 1):
            need[t] = 0
        used = 0
        tv = 0
        ok = True
        for j in range(ln):
            if new[m, j]:
                t = L if blank[m, j] else tiles[m, j]
                need[t] += 1
                used += 1
                if need[t] > rack[t]:
                    ok = False
                    break
                if not blank[m, j]:
                    tv += values[tiles[m, j]]
        if not ok:
            continue
        out = used == rack_total
        s = np.int64(score[m])
        if k >= n_lead and s + 2 * vopp <= best and s + 2 * vopp <= bt:
            break  # the rest scores no more: none can improve either answer
        v = s + 2 * vopp if out else s + vopp - (rack_val - tv)
        term = out or (ends and s == 0)
        if v <= best and (not term or v <= bt):
            continue  # cannot improve either answer: skip the footprint test
        # the footprint: no tile placed since on it
        dr = 0 if across[m] else 1
        dc = 1 if across[m] else 0
        r0 = row[m]
        c0 = col[m]
        for q in range(2):
            e = -1 if q == 0 else np.int64(ln)
            r = r0 + dr * e
            c = c0 + dc * e
            if 0 <= r < N and 0 <= c < N and stamp[r * N + c] >= since:
                ok = False
        j = 0
        while ok and j < ln:
            r = r0 + dr * j
            c = c0 + dc * j
            f = r * N + c
            if new[m, j]:
                if letters[f] >= 0:  # the square was filled since
                    ok = False
                    break
                # the perpendicular run through the new tile, one square beyond each end
                if not perp_run_clear(letters, stamp, since, r, c, dr, dc, N):
                    ok = False
                    break
            j += 1
        if not ok:
            continue
        if v > best:
            best, kb = v, k
        if term and v > bt:
            bt, kt = v, k
            if bt >= beta:
                break
    return best, kb, bt, kt


class FastGen:
    """Placements of a rack on a board (no exchanges, no pass) for the endgame solver, as
    :func:`heuri.movegen.generate` lists them, with the board's cross-checks kept by board
    hash (at most ``max_boards`` boards). ``pack``: the LanguagePack; ``rules``: the
    position's LanguageSpec (its bingo bonus). Not thread-safe."""

    def __init__(self, pack, rules=None, max_boards: int = 4000):
        self.pack = pack
        self.rules = rules
        self.max_boards = max_boards
        self._cc: dict = {}
        self.fast = True
        try:
            from ..core import movegen as mg

            self._mg = mg
            mg.kernel_context(pack)  # fails here, not in a search, when the kernel interface changed
            self._rec = mg.RECORD_BYTES
            self._cap = 4096
            self._buf = np.empty((self._cap, self._rec), np.uint8)
        except Exception as e:  # the move generator's internals changed: use the public call
            self._fallback(e)

    def _fallback(self, err):
        warnings.warn(f"endgame: the move generator's compiled internals are not usable ({err!r}); "
                      "using heuri.movegen.generate (slower)", RuntimeWarning, stacklevel=3)
        self.fast = False

    def generate(self, letters, blanks, rack, bh: int) -> np.ndarray:
        """Placements (MOVE_DTYPE array) of ``rack`` ((L+1,) int64, not modified) on the
        board ``letters`` ((N, N) int8, -1 empty) / ``blanks`` ((N, N) bool), whose hash is
        ``bh``. The board and rack are the solver's own, so they are not checked."""
        if self.fast:
            try:
                return self._generate(letters, blanks, rack, bh)
            except Exception as e:  # noqa: BLE001 - a signature change shows only at the first call
                self._fallback(e)
        return self._mg_generate(letters, blanks, rack)

    def _mg_generate(self, letters, blanks, rack):
        from ..core.movegen import generate

        return generate(self.pack, letters, blanks, rack, bag_size=0, exchanges=False, rules=self.rules)

    def _generate(self, letters, blanks, rack, bh):
        # this thread's context: its scratch arrays are not shared with another thread's search
        ctx = self._mg.kernel_context(self.pack)
        if not rack.any():
            return np.zeros(0, MOVE_DTYPE)
        cc = self._cc.get(bh)
        if cc is None:
            if len(self._cc) >= self.max_boards:
                self._cc.clear()
            cc = self._cc[bh] = self._mg.cross_checks_kernel(ctx.g, ctx.hw, ctx.root, letters, blanks, ctx.values, ctx.L)
        bingo = ctx.bingo if self.rules is None else int(self.rules.bingo_bonus)
        r = rack.copy()  # the walk modifies and restores it; a copy keeps the caller's safe
        while True:
            n = self._mg.walk_placements(ctx, letters, blanks, r, cc, bingo, self._buf, self._cap)
            if n <= self._cap:
                break
            self._cap = max(n, 2 * self._cap)
            self._buf = np.empty((self._cap, self._rec), np.uint8)
        return self._buf[:n].copy().view(MOVE_DTYPE).reshape(n)
