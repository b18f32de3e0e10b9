"""The exact endgame solver's search, compiled: the negamax of :mod:`heuri.endgame` with every
node in numba, the move generator's compiled walk called from inside it.

Why (the profile of ``benchmarks/bench_endgame.py``): with the negamax in Python
around the compiled move generator, about 60 % of a search's time was the interpreter's own
(calls, dict look-ups, tuples, small NumPy calls), so a search visited ~20,000-40,000 nodes a
second. Here a node costs a few microseconds.

The search is the same as :meth:`heuri.endgame.EndgameSearch._negamax` (same order of the
children, the same principal-variation windows, the same stale-move reuse, the same horizon
estimate and proven flags), so it proves the same values; what differs is storage:

- the move lists live in one preallocated *arena* (per move: score, goes out, points left,
  board-hash change, the new tiles' squares / letters / blank flags, and the main word's
  first square, direction and length for the stale-move footprint test), each list in search
  order (going out first, then score descending, ties in generation order); a direct-mapped
  table of (board hash, rack hash) -> (start, count, ways out) finds a list again. When the
  arena is full the search stops (a limit, like the node count);
- the transposition table is preallocated arrays, buckets of two entries keyed by the board
  hash (XOR a word per scoreless-turn count) and both rack hashes, the shallower entry of a
  bucket replaced; each entry also holds the bounds proven to the end of the game (a later
  depth-limited store of the same position keeps them; a new position in the slot drops
  them: losing an entry costs nodes, never exactness);
- cross-checks of a board are kept in a direct-mapped cache by board hash;
- racks are rows of one array: rows 0 and 1 the root's, row 2 + ply the leave of the move
  made at that ply (a child's subtree only writes rows below it);
- a search stops when a count runs out (nodes, move lists, arena) or when ``W[4][0]`` (the
  stop flag, set by the caller's watcher thread for time limits and SIU ``stop``) is set;
  then it unwinds with ``C[_ABORT]`` non-zero and its values must be discarded.

Array layout (all built by :class:`heuri.endgame.EndgameSearch`): ``G`` the move generator's
context, ``A`` the arena, ``LT`` the list table, ``T`` the transposition table, ``X`` the
cross-check cache, ``B`` the board (2-D letters / blanks, their flat views, the ply stamp of
each square), ``Z`` the Zobrist words, ``W`` (racks, generator buffer, tile values, counters,
stop flag, scratch). See :func:`make_state`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..core.movegen import cross_checks_kernel, search_kernel
from .endgame_kernels import perp_run_clear

INF = 10 ** 6
PROVEN = 1000
EXACT, LOWER, UPPER = 0, 1, 2

# counters (W[3])
# C_WIDTH: placements kept per list (0: all; EndgameSearch's width, the ways out always kept)
C_NODES, C_GENS, C_MAXN, C_MAXG, C_TOP, C_ABORT, C_STALE, C_MAXSL, C_N, C_L, C_CAP, C_WIDTH = range(12)
N_COUNTERS = 16
# abort reasons
AB_LIMIT, AB_BUFFER, AB_ARENA = 1, 2, 3

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)
_M3 = np.uint64(0x165667B19E3779F9)
_S29 = np.uint64(29)
_S31 = np.uint64(31)


def make_state(ctx, N, L, R, max_ply, arena_cap, tt_bits, list_bits, cross_bits, buf_cap, zboard, zrack, zsl,
               values):
    """The arrays of a compiled search (the tuples ``G, A, LT, T, X, B, Z, W`` of the module
    docstring). ``ctx``: the move generator's context (:func:`heuri.core.movegen.kernel_context`); ``N``
    board size, ``L`` letters, ``R`` rack size; ``max_ply``: the deepest line (rows of the
    rack array); ``arena_cap``: moves the arena holds; ``tt_bits`` / ``list_bits`` /
    ``cross_bits``: log2 of the table sizes; ``buf_cap``: moves one generator call may
    list. Large arrays are ``np.zeros`` (pages are touched only as they are used)."""
    from ..core.movegen import NO_LONG_HASHES, NO_RACK_WORDS, NO_TOP_KEYS, NO_TOP_SCORES

    I64, U64, B8, SK, SL = ctx.scratch
    G = (ctx.g, np.int64(ctx.hw), np.int64(ctx.root), ctx.values, ctx.lmul, ctx.wmul, np.int64(ctx.centre[0]),
         np.int64(ctx.centre[1]), np.uint64(ctx.blank_ok), np.int64(ctx.rack_size), np.int64(ctx.bingo), I64, U64, B8,
         SK, SL, NO_RACK_WORDS, NO_LONG_HASHES, NO_TOP_SCORES, NO_TOP_KEYS)  # search_kernel's last four, in its order
    A = (np.zeros(arena_cap, np.int32), np.zeros(arena_cap, np.bool_), np.zeros(arena_cap, np.int32),
         np.zeros(arena_cap, np.uint64), np.zeros(arena_cap, np.int8), np.zeros((arena_cap, R), np.int16),
         np.zeros((arena_cap, R), np.int8), np.zeros((arena_cap, R), np.bool_), np.zeros(arena_cap, np.int8),
         np.zeros(arena_cap, np.int8), np.zeros(arena_cap, np.bool_), np.zeros(arena_cap, np.int8))
    nl = 1 << list_bits
    LT = (np.zeros(nl, np.uint64), np.zeros(nl, np.uint64), np.full(nl, -1, np.int64), np.zeros(nl, np.int64),
          np.zeros(nl, np.int64), np.zeros(nl, np.bool_))
    nt = 1 << tt_bits
    T = (np.zeros(nt, np.uint64), np.zeros(nt, np.uint64), np.zeros(nt, np.uint64), np.zeros(nt, np.int32),
         np.zeros(nt, np.int8), np.zeros(nt, np.int16), np.zeros(nt, np.int32), np.zeros(nt, np.int32),
         np.zeros(nt, np.int32), np.zeros(nt, np.bool_))
    nx = 1 << cross_bits
    X = (np.zeros(nx, np.uint64), np.zeros(nx, np.bool_), np.zeros((nx, 2, N, N), np.uint64),
         np.zeros((nx, 2, N, N), np.int32), np.zeros((nx, 2, N, N), np.bool_))
    letters = np.full((N, N), -1, np.int8)
    blanks = np.zeros((N, N), np.bool_)
    B = (letters, blanks, letters.reshape(N * N), blanks.reshape(N * N), np.full(N * N, -1, np.int64))
    Z = (zboard, zrack, zsl)
    C = np.zeros(N_COUNTERS, np.int64)
    C[C_N], C[C_L], C[C_CAP] = N, L, arena_cap
    W = (np.zeros((max_ply + 3, L + 1), np.int64), np.zeros((buf_cap, 56), np.uint8), values, C,
         np.zeros(1, np.int64), np.zeros(L + 1, np.int64))
    return G, A, LT, T, X, B, Z, W


def reset_tables(LT, T, X):
    """Forget every list, table entry and cross-check (a new search)."""
    LT[2][:] = -1
    T[9][:] = False
    X[1][:] = False


# -- tables ---------------------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _tt_slot(T, k1, k2, k3):
    h = k1 ^ (k2 * _M1) ^ (k3 * _M2)
    h = (h ^ (h >> _S29)) * _M3
    h ^= h >> _S31
    mask = np.uint64(T[0].shape[0] - 1)
    return np.int64(h & mask & ~np.uint64(1))


@njit(cache=True, nogil=True)
def tt_probe(T, k1, k2, k3):
    """The slot of the entry of key (k1, k2, k3), or -1."""
    i = _tt_slot(T, k1, k2, k3)
    for j in range(i, i + 2):
        if T[9][j] and T[0][j] == k1 and T[1][j] == k2 and T[2][j] == k3:
            return j
    return -1


@njit(cache=True, nogil=True)
def tt_store(T, k1, k2, k3, v, flag, d, best):
    """Store a depth-limited result; returns the slot (its proven bounds kept when the key
    was there, reset when the slot is taken by a new key)."""
    i = _tt_slot(T, k1, k2, k3)
    s = -1
    for j in range(i, i + 2):
        if T[9][j] and T[0][j] == k1 and T[1][j] == k2 and T[2][j] == k3:
            s = j
            break
    if s < 0:
        if not T[9][i]:
            s = i
        elif not T[9][i + 1]:
            s = i + 1
        else:
            s = i if T[5][i] <= T[5][i + 1] else i + 1
        T[0][s], T[1][s], T[2][s] = k1, k2, k3
        T[7][s], T[8][s] = -INF, INF
        T[9][s] = True
    T[3][s], T[4][s], T[5][s], T[6][s] = v, flag, d, best
    return s


@njit(cache=True, nogil=True, inline="always")
def _prove(T, s, v, flag):
    if flag != UPPER and v > T[7][s]:
        T[7][s] = v
    if flag != LOWER and v < T[8][s]:
        T[8][s] = v


@njit(cache=True, nogil=True, inline="always")
def _lt_slot(LT, bh, rh):
    h = (bh ^ (rh * _M2)) * _M1
    h ^= h >> _S31
    return np.int64(h & np.uint64(LT[0].shape[0] - 1))


@njit(cache=True, nogil=True)
def list_find(LT, bh, rh):
    """The list table slot of (board hash, rack hash), or -1."""
    i = _lt_slot(LT, bh, rh)
    if LT[2][i] >= 0 and LT[0][i] == bh and LT[1][i] == rh:
        return i
    return -1


@njit(cache=True, nogil=True)
def moves(G, A, LT, X, B, Z, W, bh, me, rh):
    """The list table slot of the placements of rack row ``me`` (hash ``rh``) on the board
    (hash ``bh``), generated into the arena when missing; -1 when a limit stops it (then
    ``C[C_ABORT]`` is set)."""
    i = list_find(LT, bh, rh)
    if i >= 0:
        return i
    C = W[3]
    if C[C_GENS] >= C[C_MAXG] or W[4][0] != 0:
        C[C_ABORT] = AB_LIMIT
        return -1
    C[C_GENS] += 1
    rack = W[0][me]
    L = C[C_L]
    N = C[C_N]
    values = W[2]
    total = 0
    rv = 0
    for t in range(L + 1):
        total += rack[t]
        rv += rack[t] * values[t]
    n = 0
    buf = W[1]
    letters, blanks = B[0], B[1]
    if total > 0:
        xi = np.int64(bh & np.uint64(X[0].shape[0] - 1))
        if not (X[1][xi] and X[0][xi] == bh):
            m, cs, hs = cross_checks_kernel(G[0], G[1], G[2], letters, blanks, G[3], L)
            X[2][xi] = m
            X[3][xi] = cs
            X[4][xi] = hs
            X[0][xi] = bh
            X[1][xi] = True
        r = rack.copy()
        cap = buf.shape[0]
        n = search_kernel(G[0], G[1], G[2], letters, blanks, r, G[3], G[4], G[5], G[6], G[7], G[8], L, G[9], G[10],
                    X[2][xi], X[3][xi], X[4][xi], buf, cap, G[11], G[12], G[13], G[14], G[15], 0, False,
                    np.uint64(0), G[16], G[17], G[18], G[19])
        if n > cap:
            C[C_ABORT] = AB_BUFFER
            return -1
    key = np.empty(n, np.int64)
    outs = 0
    for k in range(n):
        sc = np.int64(buf[k, 52]) | (np.int64(buf[k, 53]) << 8) | (np.int64(buf[k, 54]) << 16)
        o = np.int64(buf[k, 50]) == total
        outs += 1 if o else 0
        key[k] = -(sc + (100_000 if o else 0))
    order = np.argsort(key, kind="mergesort")
    # a width limit keeps the first moves of the order, every way out among them
    # (heuri.endgame.EndgameSearch._moves); a cut list proves nothing
    width = C[C_WIDTH]
    cut = False
    if width > 0 and n > width:
        keep = max(width, outs)
        cut = keep < n
        n = keep
    top = C[C_TOP]
    if top + n > C[C_CAP]:
        C[C_ABORT] = AB_ARENA
        return -1
    zb = Z[0]
    lead = 0
    for q in range(n):
        k = order[q]
        p = top + q
        sc = np.int64(buf[k, 52]) | (np.int64(buf[k, 53]) << 8) | (np.int64(buf[k, 54]) << 16)
        o = np.int64(buf[k, 50]) == total
        if o:
            lead += 1
        A[0][p] = sc
        A[1][p] = o
        r0 = np.int64(buf[k, 1])
        c0 = np.int64(buf[k, 2])
        acr = buf[k, 3] != 0
        ln = np.int64(buf[k, 4])
        A[8][p] = r0
        A[9][p] = c0
        A[10][p] = acr
        A[11][p] = ln
        h = np.uint64(0)
        c = 0
        tv = 0
        for j in range(ln):
            if buf[k, 20 + j] == 0:
                continue
            rr = r0 + (0 if acr else j)
            cc = c0 + (j if acr else 0)
            f = rr * N + cc
            x = np.int64(buf[k, 5 + j])
            b = buf[k, 35 + j] != 0
            h ^= zb[(f * L + x) * 2 + (1 if b else 0)]
            A[5][p, c] = f
            A[6][p, c] = x
            A[7][p, c] = b
            c += 1
            if not b:
                tv += values[x]
        A[4][p] = c
        A[3][p] = h
        A[2][p] = rv - tv
    C[C_TOP] = top + n
    i = _lt_slot(LT, bh, rh)
    LT[0][i] = bh
    LT[1][i] = rh
    LT[2][i] = top
    LT[3][i] = n
    LT[4][i] = lead
    LT[5][i] = cut
    return i


# -- the board -----------------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _place(A, B, m, ply):
    for c in range(A[4][m]):
        f = A[5][m, c]
        B[2][f] = A[6][m, c]
        B[3][f] = A[7][m, c]
        B[4][f] = ply


@njit(cache=True, nogil=True, inline="always")
def _unplace(A, B, m):
    for c in range(A[4][m]):
        f = A[5][m, c]
        B[2][f] = -1
        B[3][f] = False
        B[4][f] = -1


@njit(cache=True, nogil=True, inline="always")
def _leave(A, Z, W, m, me, dst, rh):
    """Write the leave of move ``m`` from rack row ``me`` into row ``dst``; its rack hash."""
    RK = W[0]
    zr = Z[1]
    L = W[3][C_L]
    for t in range(L + 1):
        RK[dst, t] = RK[me, t]
    for c in range(A[4][m]):
        t = L if A[7][m, c] else np.int64(A[6][m, c])
        k = RK[dst, t]
        rh ^= zr[t, k] ^ zr[t, k - 1]
        RK[dst, t] = k - 1
    return rh


# -- stale moves ---------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def stale_scan(A, B, W, start, n, lead, since, me, vme, vopp, ends, beta):
    """:func:`heuri.endgame_kernels.stale_best` over an arena list: ``(best, kb, bt, kt)``,
    the best horizon value of the list's placements that the board still allows unchanged
    and its arena index (-1: none), and the same among the moves that end the game."""
    best, kb, bt, kt = -INF, np.int64(-1), -INF, np.int64(-1)
    C = W[3]
    L = C[C_L]
    N = C[C_N]
    values = W[2]
    rack = W[0][me]
    need = W[5]
    total = 0
    for t in range(L + 1):
        total += rack[t]
    letters = B[2]
    stamp = B[4]
    for t in range(L + 1):
        need[t] = 0
    for k in range(n):
        m = start + k
        s = np.int64(A[0][m])
        if k >= lead and s + 2 * vopp <= best and s + 2 * vopp <= bt:
            break  # the rest scores no more: none can improve either answer
        nn = A[4][m]
        tv = 0
        ok = True
        used = 0
        for c in range(nn):
            b = A[7][m, c]
            x = np.int64(A[6][m, c])
            t = L if b else x
            need[t] += 1
            used += 1
            if need[t] > rack[t]:
                ok = False
                break
            if not b:
                tv += values[x]
        for c in range(used):  # clear the counts again (cheaper than zeroing L + 1)
            need[L if A[7][m, c] else np.int64(A[6][m, c])] = 0
        if not ok:
            continue
        out = nn == total
        v = s + 2 * vopp if out else s + vopp - (vme - tv)
        term = out or (ends and s == 0)
        if v <= best and (not term or v <= bt):
            continue
        acr = A[10][m]
        dr = 0 if acr else 1
        dc = 1 if acr else 0
        r0 = np.int64(A[8][m])
        c0 = np.int64(A[9][m])
        ln = np.int64(A[11][m])
        for q in range(2):
            e = -1 if q == 0 else ln
            r = r0 + dr * e
            c = c0 + dc * e
            if 0 <= r < N and 0 <= c < N and stamp[r * N + c] >= since:
                ok = False
        q = 0
        while ok and q < nn:
            f = np.int64(A[5][m, q])
            q += 1
            if letters[f] >= 0:
                ok = False
                break
            r = f // N
            c = f - r * N
            if not perp_run_clear(letters, stamp, since, r, c, dr, dc, N):
                ok = False
                break
        if not ok:
            continue
        if v > best:
            best, kb = v, m
        if term and v > bt:
            bt, kt = v, m
            if bt >= beta:
                break
    return best, kb, bt, kt


# -- search --------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def negamax(G, A, LT, T, X, B, Z, W, bh, me, rme, vme, opp, ropp, vopp, sl, depth, alpha, beta, ply,
            s1, n1, l1, p1, s2, n2, l2, p2):
    """Value of the position for the player to move (rack row ``me``, hash ``rme``, points
    ``vme``; the opponent's ``opp``, ``ropp``, ``vopp``) and whether it is proven, as
    :meth:`heuri.endgame.EndgameSearch._negamax`. ``sl``: scoreless turns so far; ``depth``:
    placements left; ``ply``: turns from the root; ``(s1, n1, l1, p1)``: the mover's latest
    list on the line (arena start, count, ways out, ply; ``s1 < 0``: none); ``(s2, ...)``:
    the opponent's. After a stop (``C[C_ABORT]``) the returned values mean nothing."""
    C = W[3]
    C[C_NODES] += 1
    if C[C_NODES] > C[C_MAXN] or W[4][0] != 0:
        C[C_ABORT] = AB_LIMIT
        return 0, False
    if depth <= 0:
        return vopp - vme, False
    zsl = Z[2]
    k1 = bh ^ zsl[sl]
    slot = tt_probe(T, k1, rme, ropp)
    tt_move = -1
    found = slot >= 0
    if found:
        lo = np.int64(T[7][slot])
        hi = np.int64(T[8][slot])
        if lo >= beta or lo == hi:
            return lo, True
        if hi <= alpha:
            return hi, True
        v = np.int64(T[3][slot])
        flag = T[4][slot]
        d = np.int64(T[5][slot])
        tt_move = np.int64(T[6][slot])
        if d >= depth:
            pr = d >= PROVEN
            if flag == EXACT:
                return v, pr
            if flag == LOWER and v >= beta:
                return v, pr
            if flag == UPPER and v <= alpha:
                return v, pr
    max_sl = C[C_MAXSL]
    a0 = alpha
    if s1 >= 0 and list_find(LT, bh, rme) < 0:
        if depth == 1:
            b, _, bt, _ = stale_scan(A, B, W, s1, n1, l1, p1, me, vme, vopp, sl + 1 >= max_sl, beta)
            if bt >= beta:
                C[C_STALE] += 1
                s = tt_store(T, k1, rme, ropp, bt, LOWER, PROVEN, -2)
                _prove(T, s, bt, LOWER)
                return bt, True
            if b >= beta:
                C[C_STALE] += 1
                tt_store(T, k1, rme, ropp, b, LOWER, 1, -2)
                return b, False
        elif not found or tt_move == -2:
            # (heuri.endgame.EndgameSearch._stale_first) the best still-legal placement of the
            # mover's earlier list, searched first: a cut when it reaches beta. Written here,
            # not as a function: a cached numba function may only recurse into itself
            b, kb, bt, kt = stale_scan(A, B, W, s1, n1, l1, p1, me, vme, vopp, sl + 1 >= max_sl, beta)
            got = False
            gval = np.int64(0)
            gpr = False
            if kt >= 0 and bt >= beta:
                got, gval, gpr = True, bt, True
            elif kb >= 0:
                s = np.int64(A[0][kb])
                L = C[C_L]
                RK = W[0]
                leave_row = 2 + ply
                lh = _leave(A, Z, W, kb, me, leave_row, rme)
                left = 0
                tv = 0
                for t in range(L + 1):
                    left += RK[leave_row, t]
                for c in range(A[4][kb]):
                    if not A[7][kb, c]:
                        tv += W[2][A[6][kb, c]]
                s_l = sl + 1 if s == 0 else 0
                if left > 0 and s_l < max_sl:
                    _place(A, B, kb, ply)
                    cv, cpr = negamax(G, A, LT, T, X, B, Z, W, bh ^ A[3][kb], opp, ropp, vopp, leave_row, lh, vme - tv,
                                      s_l, depth - 1, s - beta, s - alpha, ply + 1, s2, n2, l2, p2, s1, n1, l1, p1)
                    _unplace(A, B, kb)
                    if C[C_ABORT]:
                        return 0, False
                    if s - cv >= beta:
                        got, gval, gpr = True, s - cv, cpr
            if got:
                C[C_STALE] += 1
                s = tt_store(T, k1, rme, ropp, gval, LOWER, PROVEN if gpr else depth, -2)
                if gpr:
                    _prove(T, s, gval, LOWER)
                return gval, gpr
    li = moves(G, A, LT, X, B, Z, W, bh, me, rme)
    if li < 0:
        return 0, False
    start = LT[2][li]
    n = LT[3][li]
    lead = LT[4][li]
    uncut = not LT[5][li]  # no width limit cut the list
    sl1 = sl + 1
    ends = sl1 >= max_sl
    if depth == 1:
        # (heuri.endgame.EndgameSearch._last_ply) one placement left: the whole list valued
        # at once
        best, best_i, proven = -INF, np.int64(-2), uncut
        if n:
            kb = -1
            kp = -1
            bp = -INF
            allterm = True
            for k in range(n):
                m = start + k
                s = np.int64(A[0][m])
                o = A[1][m]
                v = s + (2 * vopp if o else vopp - np.int64(A[2][m]))
                if v > best:
                    best, kb = v, k
                term = o or (ends and s == 0)
                if term:
                    if v > bp:
                        bp, kp = v, k
                else:
                    allterm = False
            best_i = kb
            if best >= beta:
                if kp >= 0 and bp >= beta:
                    s = tt_store(T, k1, rme, ropp, bp, LOWER, PROVEN, kp)
                    _prove(T, s, bp, LOWER)
                    return bp, True
                tt_store(T, k1, rme, ropp, best, LOWER, 1, best_i)
                return best, False
            proven = proven and allterm
        if ends:
            pval, ppr = vopp - vme, True
        elif not proven:
            pval, ppr = vopp - vme, False
        else:
            a = max(alpha, best)
            cv, ppr = negamax(G, A, LT, T, X, B, Z, W, bh, opp, ropp, vopp, me, rme, vme, sl1, depth, -beta, -a, ply + 1,
                              s2, n2, l2, p2, start, n, lead, ply)
            if W[3][C_ABORT]:
                return 0, False
            pval = -cv
        if pval > best:
            best, best_i = pval, -1
        proven = proven and ppr
        if best >= beta:
            flag = LOWER
            proven = ppr if best_i == -1 else proven
        elif best <= alpha:
            flag = UPPER
        else:
            flag = EXACT
        s = tt_store(T, k1, rme, ropp, best, flag, PROVEN if proven else 1, best_i)
        if proven:
            _prove(T, s, best, flag)
        return best, proven
    proven = uncut
    best = -INF
    best_i = np.int64(-2)
    best_proven = True
    # the order of :meth:`heuri.endgame.EndgameSearch._order`
    if tt_move >= n:
        tt_move = -2
    h0 = np.int64(-3)
    h1 = np.int64(-3)
    hcount = 0
    if tt_move == -2 or tt_move == 0:
        pass_last = True
    else:
        if lead > 0:
            h0, h1, hcount = 0, tt_move, 2
        else:
            h0, hcount = tt_move, 1
        pass_last = tt_move != -1
    nbase = (1 + n - lead) if lead > 0 else n
    ply1 = ply + 1
    leave_row = 2 + ply
    step = 0
    while True:
        if step < hcount:
            i = h0 if step == 0 else h1
        else:
            j = step - hcount
            if j < nbase:
                i = (0 if j == 0 else lead + j - 1) if lead > 0 else j
                if hcount > 0 and (i == h0 or i == h1):
                    step += 1
                    continue
            elif j == nbase and pass_last:
                i = -1
            else:
                break
        step += 1
        if i == -1:
            if ends:
                val, pr = vopp - vme, True
            else:
                if best > -INF and beta > alpha + 1:
                    cv, pr = negamax(G, A, LT, T, X, B, Z, W, bh, opp, ropp, vopp, me, rme, vme, sl1, depth,
                                     -alpha - 1, -alpha, ply1, s2, n2, l2, p2, start, n, lead, ply)
                    if C[C_ABORT]:
                        return 0, False
                    val = -cv
                    full = alpha < val < beta
                else:
                    full = True
                if full:
                    cv, pr = negamax(G, A, LT, T, X, B, Z, W, bh, opp, ropp, vopp, me, rme, vme, sl1, depth,
                                     -beta, -alpha, ply1, s2, n2, l2, p2, start, n, lead, ply)
                    if C[C_ABORT]:
                        return 0, False
                    val = -cv
        else:
            m = start + i
            s = np.int64(A[0][m])
            if A[1][m]:
                val, pr = s + 2 * vopp, True
            else:
                s_l = sl1 if s == 0 else 0
                lv = np.int64(A[2][m])
                if s_l >= max_sl:
                    val, pr = s - lv + vopp, True
                else:
                    lh = _leave(A, Z, W, m, me, leave_row, rme)
                    nb = bh ^ A[3][m]
                    _place(A, B, m, ply)
                    if best > -INF and beta > alpha + 1:
                        cv, pr = negamax(G, A, LT, T, X, B, Z, W, nb, opp, ropp, vopp, leave_row, lh, lv, s_l,
                                         depth - 1, s - alpha - 1, s - alpha, ply1, s2, n2, l2, p2, start, n,
                                         lead, ply)
                        val = s - cv
                        full = (C[C_ABORT] == 0) and alpha < val < beta
                    else:
                        full = True
                    if full and C[C_ABORT] == 0:
                        cv, pr = negamax(G, A, LT, T, X, B, Z, W, nb, opp, ropp, vopp, leave_row, lh, lv, s_l,
                                         depth - 1, s - beta, s - alpha, ply1, s2, n2, l2, p2, start, n, lead,
                                         ply)
                        val = s - cv
                    _unplace(A, B, m)
                    if C[C_ABORT]:
                        return 0, False
        if val > best:
            best, best_i, best_proven = val, i, pr
            if val > alpha:
                alpha = val
            if alpha >= beta:
                proven = pr
                break
        proven = proven and pr
    if best >= beta:
        flag = LOWER
        proven = best_proven
    elif best <= a0:
        flag = UPPER
    else:
        flag = EXACT
    s = tt_store(T, k1, rme, ropp, best, flag, PROVEN if proven else depth, best_i)
    if proven:
        _prove(T, s, best, flag)
    return best, proven



@njit(cache=True, nogil=True)
def pv_table(A, LT, T, Z, W, B, bh, me, rme, vme, opp, ropp, vopp, sl, out, limit):
    """The line of the table's best moves from the root, no search (the fallback of
    :func:`pv_walk` when its re-search does not fit the limits); arena indices (-1: pass)
    in ``out``; returns ``(count, first)``. Only lists already in the arena are followed."""
    C = W[3]
    max_sl = C[C_MAXSL]
    cnt = 0
    first = np.int64(-2)
    ply = 0
    placed = np.empty(limit, np.int64)
    npl = 0
    while cnt < limit:
        slot = tt_probe(T, bh ^ Z[2][sl], rme, ropp)
        li = list_find(LT, bh, rme)
        if slot < 0 or li < 0:
            break
        i = np.int64(T[6][slot])
        if i == -2 or i >= LT[3][li]:
            break
        if cnt == 0:
            first = i
        if i == -1:
            out[cnt] = -1
            cnt += 1
            if sl + 1 >= max_sl:
                break
            bh, me, rme, vme, opp, ropp, vopp, sl = bh, opp, ropp, vopp, me, rme, vme, sl + 1
        else:
            m = LT[2][li] + i
            out[cnt] = m
            cnt += 1
            s = np.int64(A[0][m])
            if A[1][m] or (s == 0 and sl + 1 >= max_sl):
                break
            leave_row = 2 + ply
            lh = _leave(A, Z, W, m, me, leave_row, rme)
            _place(A, B, m, ply)
            placed[npl] = m
            npl += 1
            bh, me, rme, vme, opp, ropp, vopp, sl = (bh ^ A[3][m], opp, ropp, vopp, leave_row, lh,
                                                     np.int64(A[2][m]), sl + 1 if s == 0 else 0)
        ply += 1
        if 2 + ply >= W[0].shape[0]:
            break
    for q in range(npl - 1, -1, -1):
        _unplace(A, B, placed[q])
    return cnt, first
