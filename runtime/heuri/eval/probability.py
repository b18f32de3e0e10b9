"""The augmented bag U, the exact draw probability p(s | L) and the leave tables e(L).

Definitions (docs/method.md, paper §4): keeping leave ``L`` and drawing ``t = R − |L|``
tiles (``R`` = the spec's rack size, 7) uniformly from the augmented bag ``U`` (every tile the
player cannot see: full distribution − board − own rack, |U| = N), the probability that the
new rack is exactly the multiset ``s`` is the multivariate hypergeometric

    p(s | L) = [L ⊆ s] · Π_x C(U_x, (s − L)_x) / C(N, t)

over tile kinds ``x`` (blank included). The events "new rack = s" are disjoint, so sums over
distinct keys are exact expectations:

    e(L) = Σ_s w(s) · p(s | L),        p_any(L) = Σ_s m(s) · p(s | L)

with ``w(s) = m(s) · (50 + k·σ(s))`` and ``m(s)`` a 0/1 mask over the key set (all septets for
Heuri_2, δ over septets ∪ reduced octets for Heuri_3).

Bag size versus |U|. Draws are modelled from ``U`` (the opponent's rack is unseen, so from
the player's view every unseen tile is equally likely to come out of the bag); ``N = |U|``
is the denominator. The *bag size* (``|U|`` minus the opponent's rack) only decides whether
the draw can happen at all: when the bag holds fewer than ``t`` tiles the rack cannot reach
``R`` tiles and p(s | L) = 0 for every s. When the caller does not know the bag size,
:func:`default_bag_size` assumes the opponent holds a full rack: ``max(0, N − R)``.

Speed: :func:`leave_table` computes e and p_any for every distinct leave of the rack (at most
128) in one compiled pass over the keys. The product over the tile kinds *not* in the rack
does not depend on the leave; keys are grouped by their counts of the rack's kinds (at most a
few thousand groups), and only the groups are combined with the leaves.
"""
from __future__ import annotations

import threading
from math import comb

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ..core.errors import HeuriError

MAX_COUNT = 32  # largest tile count of one kind the binomial table covers


class ProbabilityError(HeuriError):
    """Inconsistent counts: a rack or board holds more tiles of a kind than the language has."""


def _binomial_table(n: int = MAX_COUNT, k: int = 16) -> np.ndarray:
    """C(a, b) for a < n, b < k as float64 (exact: every value is far below 2**53)."""
    t = np.zeros((n, k), np.float64)
    for a in range(n):
        for b in range(min(a, k - 1) + 1):
            t[a, b] = comb(a, b)
    return t


BINOM = _binomial_table()


def draw_weights(U: np.ndarray) -> np.ndarray:
    """The weights of a uniform draw from the unseen tiles, per kind: ``W[x, d] = C(U_x, d)``,
    (K, 16) float64 (``U``: (K,) counts). The kernels below weight a draw of ``d_x`` tiles
    of each kind by ``Π_x W[x, d_x]``; divided by C(N, t) it is the multivariate
    hypergeometric chance of the draw."""
    return BINOM[np.asarray(U, np.int64)]


def _draw(U, draw):
    if draw is None:
        return draw_weights(U)
    draw = np.ascontiguousarray(draw, np.float64)
    if draw.shape != (len(U), BINOM.shape[1]):
        raise ProbabilityError(f"draw weights of shape {draw.shape}, expected {(len(U), BINOM.shape[1])}")
    return draw


# -- the augmented bag ---------------------------------------------------------------------
def board_counts(spec, letters: np.ndarray, blanks: np.ndarray) -> np.ndarray:
    """Tiles on a board as a count vector, shape (L+1,), int64: a blank on the board counts
    as a blank (id L), not as the letter it stands for.

    ``letters``: (N, N) int8, -1 empty; ``blanks``: (N, N) bool (common.md board contract)."""
    letters = np.asarray(letters)
    blanks = np.asarray(blanks, bool)
    occ = letters >= 0
    out = np.bincount(letters[occ & ~blanks].astype(np.int64), minlength=spec.n_kinds)[: spec.n_kinds]
    out = out.astype(np.int64)
    out[spec.blank] += int((occ & blanks).sum())
    return out


def augmented_bag(spec, letters: np.ndarray, blanks: np.ndarray, rack: np.ndarray) -> np.ndarray:
    """U = full distribution − board tiles − own rack, shape (L+1,), int64 (docs/method.md).

    ``rack``: count vector (L+1,). Raises ProbabilityError naming the tile kind when the
    board plus the rack hold more tiles of a kind than the language has."""
    u = spec.distribution() - board_counts(spec, letters, blanks) - np.asarray(rack, np.int64)
    if (u < 0).any():
        x = int(np.flatnonzero(u < 0)[0])
        raise ProbabilityError(
            f"augmented bag: board + rack hold {int(spec.distribution()[x] - u[x])} of tile "
            f"{spec.symbol(x)!r}, the {spec.code} set has {int(spec.distribution()[x])}")
    return u


def default_bag_size(U: np.ndarray, rack_size: int = 7) -> int:
    """Bag size when only U is known: the opponent holds a full rack, ``max(0, |U| − R)``."""
    return max(0, int(np.sum(U)) - rack_size)


# -- single probabilities ------------------------------------------------------------------
def p_key(U: np.ndarray, leave: np.ndarray, key_counts: np.ndarray, bag_size: int | None = None,
          rack_size: int = 7) -> np.ndarray:
    """p(s | L) for each row s of ``key_counts`` ((n, L+1) or (L+1,)), float64, exact formula
    of docs/method.md; 0 when L ⊄ s or the bag holds fewer than t = R − |L| tiles.

    Vectorised NumPy over the keys; meant for checks and small key sets (the evaluators
    use :func:`leave_table`)."""
    U = np.asarray(U, np.int64)
    leave = np.asarray(leave, np.int64)
    s = np.atleast_2d(np.asarray(key_counts, np.int64))
    N = int(U.sum())
    t = rack_size - int(leave.sum())
    if bag_size is None:
        bag_size = default_bag_size(U, rack_size)
    if t < 0 or bag_size < t or N < t:
        return np.zeros(len(s))
    need = s - leave
    ok = (need >= 0).all(axis=1) & (need <= U).all(axis=1)
    needc = np.clip(need, 0, BINOM.shape[1] - 1)
    Uc = np.broadcast_to(np.clip(U, 0, MAX_COUNT - 1), s.shape)
    terms = BINOM[Uc, needc]
    p = np.where(ok, terms.prod(axis=1), 0.0) / comb(N, t)
    return p


def bingo_value(sigma, k: float = 2.5, bonus: float = 50.0):
    """Value of a bingo with key s: 50 + k·σ(s) points (Heuri_2/3, paper §4.3; k = 2.5);
    ``bonus`` replaces the 50, the bingo bonus, under other rules (a CGP's ``bb``)."""
    return float(bonus) + k * np.asarray(sigma, np.float64)


def heuri1_b(sigma_leave: float, t: int, avg_tile_value: float, k: float = 2.5, bonus: float = 50.0) -> float:
    """Heuri_1's expected bingo value b = 50 + k·(σ_L + ā·t) (paper §4.2; Spanish ā = 1.92:
    σ_L = 3, t = 4 gives 76.7); ``bonus`` replaces the 50 (the bingo bonus)."""
    return float(bonus) + k * (sigma_leave + avg_tile_value * t)


# -- the leaves of a rack ------------------------------------------------------------------
def sub_multisets(rack: np.ndarray) -> np.ndarray:
    """Every distinct sub-multiset of ``rack`` (count vector (K,)), shape (m, K) uint8,
    m = Π (r_x + 1) ≤ 128 for 7 tiles. Order: mixed radix over the rack's kinds in id
    order, the first kind fastest; row 0 is the empty leave, the last row the whole rack."""
    rack = np.asarray(rack, np.int64)
    kinds = np.flatnonzero(rack)
    radix = rack[kinds] + 1
    m = int(np.prod(radix)) if len(kinds) else 1
    out = np.zeros((m, len(rack)), np.uint8)
    idx = np.arange(m)
    for j, x in enumerate(kinds):
        out[:, x] = idx % radix[j]
        idx = idx // radix[j]
    return out


def leave_index(rack: np.ndarray, leave: np.ndarray) -> int:
    """Row of ``leave`` in :func:`sub_multisets` (rack) (mixed radix). Raises
    ProbabilityError when the leave is not part of the rack."""
    rack = np.asarray(rack, np.int64)
    leave = np.asarray(leave, np.int64)
    if (leave > rack).any() or (leave < 0).any():
        raise ProbabilityError(f"leave {leave.tolist()} is not part of rack {rack.tolist()}")
    i, stride = 0, 1
    for x in np.flatnonzero(rack):
        i += int(leave[x]) * stride
        stride *= int(rack[x]) + 1
    return i


# -- key tile rows (cached per pack) ---------------------------------------------------------
_ROWS: dict = {}


def key_rows(pack) -> np.ndarray:
    """The key set as sorted tile rows, shape (n, R) uint8 (decoded from ``keys.code``, 6
    bits a tile, first tile in the high bits); cached per pack folder."""
    k = str(pack.root)
    r = _ROWS.get(k)
    if r is None:
        R = pack.spec.rack_size
        codes = np.asarray(pack.keys.code)
        r = np.zeros((len(codes), R), np.uint8)
        c = codes.copy()
        for j in range(R - 1, -1, -1):
            r[:, j] = c & 63
            c >>= 6
        _ROWS[k] = r
    return r


_RUNS: dict = {}


def key_runs(pack) -> np.ndarray:
    """The key set as runs of equal tiles, shape (n, R): entry j is ``8·x + c`` for the j-th
    distinct tile kind x of the key (ascending, as in :func:`key_rows`) held c times (c ≥ 1,
    so an entry is never 0), then 0 padding; uint8 for up to 31 tile kinds (8·31 + 7 = 255),
    uint16 for more (Polish: 33); cached per pack folder (the leave kernel's input: no run
    detection per key and decision). Raises ProbabilityError for a rack of more than 7
    tiles (a count takes 3 bits)."""
    k = str(pack.root)
    r = _RUNS.get(k)
    if r is None:
        if pack.spec.rack_size > 7:
            raise ProbabilityError(f"{pack.spec.code}: a rack of {pack.spec.rack_size} tiles; key runs "
                                   f"hold 7 of a kind")
        dtype = np.uint8 if pack.spec.n_kinds <= 31 else np.uint16
        rows = key_rows(pack).astype(np.int64)
        n, R = rows.shape
        r = np.zeros((n, R), dtype)
        start = np.ones((n, R), bool)
        start[:, 1:] = rows[:, 1:] != rows[:, :-1]
        # count of each run: distance to the next start
        cnt = np.zeros((n, R), np.int64)
        for j in range(R - 1, -1, -1):
            nxt = cnt[:, j + 1] if j + 1 < R else np.zeros(n, np.int64)
            cont = ~start[:, j + 1] if j + 1 < R else np.zeros(n, bool)
            cnt[:, j] = 1 + np.where(cont, nxt, 0)
        slot = np.cumsum(start, axis=1) - 1
        for j in range(R):
            m = start[:, j]
            r[np.flatnonzero(m), slot[m, j]] = (8 * rows[m, j] + cnt[m, j]).astype(dtype)
        _RUNS[k] = r
    return r


# -- the leave table kernel ------------------------------------------------------------------
# one scratch pair per thread (and a second pair for the every-key table of leave_tables):
# the kernel releases the interpreter lock (heuri serve's thread pool runs two at once), and
# it writes into its scratch
_SCRATCH = threading.local()


def _scratch(size: int, which: str = "ge"):
    s = getattr(_SCRATCH, which, None)
    if s is None or len(s[0]) < size:
        s = (np.zeros(size, np.float64), np.zeros(size, np.float64))
        setattr(_SCRATCH, which, s)
    return s


_NONE_F = np.zeros(0, np.float64)


@njit(cache=True, nogil=True)
def _spread(touched, nt, ge, gp, nk, base, kinds, rack, U, cu, lstride, m):
    """The groups' sums (``ge``/``gp`` at the ``nt`` codes of ``touched``, zeroed again
    here) spread over the leaves l ≤ group: e_num[l] += ge·Π cu[x, g_x − l_x] (cu: the
    draw weights, C(U_x, d) for a uniform draw; :func:`draw_weights`)."""
    e_num = np.zeros(m, np.float64)
    p_num = np.zeros(m, np.float64)
    g = np.zeros(nk + 1, np.int64)
    lim = np.zeros(nk + 1, np.int64)
    lv = np.zeros(nk + 1, np.int64)
    for q in range(nt):
        code = touched[q]
        se = ge[code]
        sp = gp[code]
        ge[code] = 0.0
        gp[code] = 0.0
        rem = code
        for j in range(nk):
            g[j] = rem % base[j]
            rem //= base[j]
            x = kinds[j]
            lim[j] = g[j] if g[j] < rack[x] else rack[x]
            lv[j] = 0
        # odometer over the leaves l ≤ lim
        while True:
            term = 1.0
            li = 0
            for j in range(nk):
                d = g[j] - lv[j]
                x = kinds[j]
                if d > U[x]:
                    term = 0.0
                    break
                term *= cu[x, d]
                li += lv[j] * lstride[j]
            if term != 0.0:
                e_num[li] += se * term
                p_num[li] += sp * term
            j = 0
            while j < nk:
                lv[j] += 1
                if lv[j] <= lim[j]:
                    break
                lv[j] = 0
                j += 1
            if j == nk:
                break
    return e_num, p_num


@njit(cache=True, nogil=True, inline="always")
def _add_group(ge, gp, touched, nt, code, a, v):
    """Add a key's weight ``a`` (and ``a·v`` points) to leave group ``code`` of the sums
    ``ge``/``gp``, listing the group in ``touched`` the first time it is hit; returns the
    new count of touched groups."""
    if ge[code] == 0.0 and gp[code] == 0.0:
        touched[nt] = code
        nt += 1
    ge[code] += a * v
    gp[code] += a
    return nt


@njit(cache=True, nogil=True)
def _leave_kernel2(runs, use, val, U, rack, binom, cu, ge, gp, ge2, gp2, ov):
    """:func:`_leave_kernel` over the keys of ``use`` and, in the same pass over the keys,
    the same table over every key (when ``ge2`` is not empty: zeroed scratch like ``ge``)
    and, when ``ov`` is not empty ((n,) float64, written), each key's unnormalised
    p(s | ∅)·val: Π_x C(U_x, s_x) · val[s] (0 when U lacks a tile of s), the product taken
    in the key's tile order. Returns (e_num, p_num, e2_num, p2_num) ((0,) arrays for the
    table not asked for). ``runs``: :func:`key_runs` (the keys' tiles as runs). Our draw
    is weighted by ``cu`` (K, D) (:func:`draw_weights`), the opponent's ``ov`` by the
    uniform C(U_x, c) of ``binom``."""
    K = U.shape[0]
    slot = np.full(K, -1, np.int64)
    kinds = np.zeros(K, np.int64)
    nk = 0
    for x in range(K):
        if rack[x] > 0:
            slot[x] = nk
            kinds[nk] = x
            nk += 1
    # group code: mixed radix with base b_j = min(R, r_x + U_x) + 1 per rack kind
    R = runs.shape[1]
    base = np.ones(nk + 1, np.int64)
    gstride = np.ones(nk + 1, np.int64)
    lstride = np.ones(nk + 1, np.int64)
    for j in range(nk):
        x = kinds[j]
        b = rack[x] + U[x]
        if b > R:
            b = R
        base[j] = b + 1
        gstride[j + 1] = gstride[j] * base[j]
        lstride[j + 1] = lstride[j] * (rack[x] + 1)
    m = lstride[nk]
    both = ge2.shape[0] > 0
    want_ov = ov.shape[0] > 0
    n = runs.shape[0]
    touched = np.empty(min(gstride[nk], n + 1), np.int64)
    touched2 = np.empty(min(gstride[nk], n + 1) if both else 0, np.int64)
    nt = 0
    nt2 = 0
    for i in range(n):
        u = use[i]
        if not (u or both or want_ov):
            continue
        a = 1.0
        o = 1.0  # Π_x C(U_x, s_x), every kind (the opponent's empty leave)
        code = 0
        ok = True
        for j in range(R):
            y = runs[i, j]
            if y == 0:  # padding: the key's runs are done
                break
            x = y >> 3
            c = y & 7
            o *= binom[U[x], c]  # 0 when c > U_x (the table holds 0 there)
            sl = slot[x]
            if sl < 0:
                if c > U[x]:
                    ok = False
                    break
                a *= cu[x, c]
            else:
                if c >= base[sl]:
                    ok = False
                    break
                code += c * gstride[sl]
        if want_ov:
            # not ok: c > U_x for some kind (c ≥ base > r_x + U_x for a rack kind), so o = 0
            ov[i] = o * val[i] if ok else 0.0
        # a == 0: the draw weights rule the key out; added, it would leave its group's sums
        # at zero, and the group would be listed again at each such key, past touched's end
        if not ok or a == 0.0:
            continue
        if u:
            nt = _add_group(ge, gp, touched, nt, code, a, val[i])
        if both:
            nt2 = _add_group(ge2, gp2, touched2, nt2, code, a, val[i])
    e_num, p_num = _spread(touched, nt, ge, gp, nk, base, kinds, rack, U, cu, lstride, m)
    if both:
        e2, p2 = _spread(touched2, nt2, ge2, gp2, nk, base, kinds, rack, U, cu, lstride, m)
    else:
        e2 = np.zeros(0, np.float64)
        p2 = np.zeros(0, np.float64)
    return e_num, p_num, e2, p2


@njit(cache=True, nogil=True)
def _leave_kernel(runs, use, val, U, rack, binom, cu, ge, gp):
    """e and p_any (unnormalised by C(N, t)) for every sub-multiset of ``rack``.

    runs (n, R) uint8 or uint16 the keys' tile runs (:func:`key_runs`); use (n,) bool; val
    (n,) float64; U, rack (K,) int64; binom: :data:`BINOM`; cu (K, D) float64 the draw
    weights (:func:`draw_weights`); ge, gp: zeroed scratch of size ≥ Π (bases); returned
    zeroed again.
    Returns (e_num, p_num) of shape (m,), m = Π (r_x + 1), index in sub_multisets order.

    Keys are grouped by their counts of the rack's kinds (the product over the other
    kinds does not depend on the leave), then each group is spread over the leaves it
    holds (:func:`_spread`)."""
    none = np.zeros(0, np.float64)
    e_num, p_num, _, _ = _leave_kernel2(runs, use, val, U, rack, binom, cu, ge, gp, none, none, none)
    return e_num, p_num


def _check_counts(spec, rack, U):
    R = spec.rack_size
    if rack.sum() > R:
        raise ProbabilityError(f"rack {spec.format_tiles(np.repeat(np.arange(len(rack)), rack), '?')} "
                               f"holds {int(rack.sum())} tiles, the {spec.code} rack holds {R}")
    if (U >= MAX_COUNT).any():
        raise ProbabilityError(f"augmented bag holds {int(U.max())} tiles of one kind (max {MAX_COUNT - 1})")


def _group_size(rack, U, R) -> int:
    size = 1
    for x in np.flatnonzero(rack):
        size *= min(R, int(rack[x] + U[x])) + 1
    return size


def _normalise(leaves, e_num, p_num, N, R, bag_size):
    """e, p of the leaves from the unnormalised sums: divided by C(N, t); 0 when the bag
    holds fewer than t = R − |L| tiles (or N < t)."""
    t = R - leaves.sum(axis=1).astype(np.int64)
    denom = np.array([comb(N, int(ti)) if 0 <= ti <= N else 0 for ti in range(R + 1)], np.float64)
    d = denom[t]
    okay = (t <= bag_size) & (d > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.where(okay, e_num / np.where(d > 0, d, 1.0), 0.0)
        p = np.where(okay, p_num / np.where(d > 0, d, 1.0), 0.0)
    return e, p


def _leave_inputs(pack, rack, U, bag_size):
    """The checked inputs of :func:`leave_table` and :func:`leave_tables`: ``(R, rack, U, N,
    bag_size, leaves, rows)`` (rack and U as int64 counts, N = |U|, the default bag size
    filled in, the leaves in :func:`sub_multisets` order, the keys' tile runs)."""
    R = pack.spec.rack_size
    rack = np.asarray(rack, np.int64)
    U = np.asarray(U, np.int64)
    _check_counts(pack.spec, rack, U)
    if bag_size is None:
        bag_size = default_bag_size(U, R)
    return R, rack, U, int(U.sum()), bag_size, sub_multisets(rack), key_runs(pack)


def leave_table(pack, rack: np.ndarray, U: np.ndarray, use: np.ndarray, val: np.ndarray,
                bag_size: int | None = None, draw: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """e(L) and p_any(L) for every distinct leave L of ``rack``, in one pass over the keys.

    - ``rack``: (K,) count vector; ``U``: (K,) augmented bag (:func:`augmented_bag`).
    - ``use``: (n,) bool over ``pack.keys`` (the mask m(s): septets, or δ ∧ key set);
      ``val``: (n,) float64 bingo values (:func:`bingo_value`), points.
    - ``bag_size``: tiles in the bag (default :func:`default_bag_size`); a leave needing
      more draws than that gets e = p = 0.
    - ``draw``: (K, D) float64 weights of our draw in place of C(U_x, d) (None: the
      uniform draw; :func:`own_draw_weights` draws from what the opponent likely kept).

    Returns ``(leaves, e, p)``: leaves (m, K) uint8 in :func:`sub_multisets` order, e (m,)
    float64 points, p (m,) float64 probabilities. Exact (float64 sums of exact products).
    Raises ProbabilityError when the rack holds more than R tiles."""
    R, rack, U, N, bag_size, leaves, rows = _leave_inputs(pack, rack, U, bag_size)
    ge, gp = _scratch(_group_size(rack, U, R))
    e_num, p_num = _leave_kernel(rows, np.asarray(use, np.bool_), np.asarray(val, np.float64),
                                 U, rack, BINOM, _draw(U, draw), ge, gp)
    e, p = _normalise(leaves, e_num, p_num, N, R, bag_size)
    return leaves, e, p


def leave_tables(pack, rack: np.ndarray, U: np.ndarray, use: np.ndarray, val: np.ndarray,
                 bag_size: int | None = None, every: bool = True, opponent: bool = False,
                 draw: np.ndarray | None = None):
    """:func:`leave_table` with the mask ``use`` and, in the same pass over the keys, the
    same table with every key used (``every``: Heuri_3's bound e(L | δ ≡ 1)) and each
    key's opponent term (``opponent``: Π_x C(U_x, s_x)·val(s), the unnormalised
    p(s | ∅)·val of a rack of R tiles drawn from U; divide by C(N, R)). Each result is
    exactly what the separate computation gives (the same sums in the same order).
    ``draw`` weights our draw as in :func:`leave_table`; the opponent's term stays the
    uniform draw's.

    Returns ``(leaves, e, p, e_every, p_every, ov)``: the first three as
    :func:`leave_table`; ``e_every``/``p_every`` (m,) float64 or None; ``ov`` (n_keys,)
    float64 points or None. Raises ProbabilityError like :func:`leave_table`."""
    R, rack, U, N, bag_size, leaves, rows = _leave_inputs(pack, rack, U, bag_size)
    size = _group_size(rack, U, R)
    ge, gp = _scratch(size)
    ge2, gp2 = _scratch(size, "ge2") if every else (_NONE_F, _NONE_F)
    ov = np.empty(len(rows), np.float64) if opponent else _NONE_F
    e_num, p_num, e2_num, p2_num = _leave_kernel2(rows, np.asarray(use, np.bool_),
                                                  np.asarray(val, np.float64), U, rack, BINOM,
                                                  _draw(U, draw), ge, gp, ge2, gp2, ov)
    e, p = _normalise(leaves, e_num, p_num, N, R, bag_size)
    e2 = p2 = None
    if every:
        e2, p2 = _normalise(leaves, e2_num, p2_num, N, R, bag_size)
    return leaves, e, p, e2, p2, (ov if opponent else None)


@njit(cache=True, nogil=True)
def _mixture_kernel(holding, leaves, coef_a, coef_b, runs, U, binom, out_a, out_b):
    """Add coef_a[j]·Π_x C(U_x − L_x, s_x − L_x) to ``out_a[s]`` and the same product with
    coef_b[j] to ``out_b[s]``, for each leave ``L`` = ``leaves[j]`` and each key ``s`` of its
    bitset ``holding[j]`` (the keys holding L, so s_x ≥ L_x), in one walk of the key's runs;
    a key that needs more of a tile than U − L has adds nothing. ``runs``: :func:`key_runs`."""
    one = np.uint64(1)
    R = runs.shape[1]
    for j in range(leaves.shape[0]):
        for i in range(holding.shape[1]):
            v = holding[j, i]
            while v:
                b = trailing_zeros(v)
                v &= v - one
                k = i * 64 + b
                a1 = coef_a[j]
                a2 = coef_b[j]
                for r in range(R):
                    y = runs[k, r]
                    if y == 0:  # padding: the key's runs are done
                        break
                    x = y >> 3
                    free = U[x] - leaves[j, x]
                    d = (y & 7) - leaves[j, x]
                    if d > free:
                        a1 = 0.0
                        a2 = 0.0
                        break
                    if d > 0:
                        a1 *= binom[free, d]
                        a2 *= binom[free, d]
                out_a[k] += a1
                out_b[k] += a2


def _told_leaves(what: str, U, leaves, posterior, prior, rack_size: int):
    """The inference's leaves as counts with their posterior and prior weights, checked, and
    those that say something of the draw kept: not empty, held by ``U``, at most the rack,
    some weight. Returns ``(U, leaves, post, pri)`` (int64, int64 (m', K), float64 (m',)).
    Raises ProbabilityError (named ``what``) for weights of another length or negative."""
    U = np.asarray(U, np.int64)
    leaves = np.asarray(leaves, np.int64).reshape(-1, len(U))
    post = np.asarray(posterior, np.float64)
    pri = np.asarray(prior, np.float64)
    if post.shape != (len(leaves),) or pri.shape != (len(leaves),) or (post < 0).any() or (pri < 0).any():
        raise ProbabilityError(f"{what}: {len(post)} posterior and {len(pri)} prior weights "
                               f"for {len(leaves)} leaves, each >= 0")
    sizes = leaves.sum(axis=1)
    ok = (leaves <= U).all(axis=1) & (sizes <= rack_size) & (sizes > 0) & ((post > 0) | (pri > 0))
    return U, leaves[ok], post[ok], pri[ok]


def opponent_mixture(pack, holding, U: np.ndarray, leaves: np.ndarray, posterior: np.ndarray,
                     prior: np.ndarray, ov: np.ndarray) -> np.ndarray:
    """The opponent's per-key terms when what they kept is known in law: their rack is a
    leave ``L`` with probability π(L) (``posterior``) plus R − |L| tiles drawn from U − L.
    The posterior predictive of their next septet is Σ_L π(L)·p(s | L), and the uniform draw's
    p(s | ∅) is the same sum with the prior ρ(L); over the leaves considered (every leave,
    or a sample of them) each key's uniform term is scaled by their ratio, in the scale of
    :func:`leave_tables`' ``ov``:

        ov'(s) = ov(s)·Σ_L π(L)·p(s | L) / Σ_L ρ(L)·p(s | L)
        p(s | L) = Π_x C(U_x − L_x, s_x − L_x) / C(N − |L|, R − |L|)   (s ⊇ L, else 0)

    With every leave enumerated this is exactly Σ_L π(L)·p(s | L); with a sample, the ratio
    estimate: the sampling noise of the two sums largely cancels, a move that says nothing
    (π = ρ) gives ov back unchanged, and a key no leave considered is part of keeps its
    uniform term.

    - ``holding``: a callable, leave (K,) counts → (ceil(n_keys/64),) uint64 bitset of the
      keys holding it (:meth:`heuri.eval.bingo.BingoIndex.holding`);
    - ``U``: (K,) counts, the tiles unseen by the player to move (the opponent's rack and
      the bag); ``leaves``: (m, K) counts; ``posterior``, ``prior``: (m,) float64 ≥ 0
      (:class:`heuri.search.inference.LeaveInference`'s; any common scale);
    - ``ov``: (n_keys,) float64, the uniform terms (:func:`leave_tables` with
      ``opponent=True``), not modified.

    An empty leave (it holds every key and says nothing of the next septet), or one that U
    cannot hold or larger than the rack, is left out of both sums. Returns ov' (n_keys,)
    float64. Raises ProbabilityError for weights of another length than ``leaves`` or
    negative."""
    R = pack.spec.rack_size
    U, leaves, post, pri = _told_leaves("opponent mixture", U, leaves, posterior, prior, R)
    if not len(leaves):
        return ov.copy()
    N = int(U.sum())
    sizes = leaves.sum(axis=1)
    scale = np.array([1.0 / comb(N - int(n), R - int(n)) for n in sizes], np.float64)
    bits = np.stack([holding(lv) for lv in leaves])
    a = np.zeros(len(ov), np.float64)
    b = np.zeros(len(ov), np.float64)
    _mixture_kernel(bits, leaves, post / post.sum() * scale, pri / pri.sum() * scale, key_runs(pack), U, BINOM,
                    a, b)
    out = ov.copy()
    seen = b > 0
    out[seen] *= a[seen] / b[seen]
    return out


def own_draw_weights(U: np.ndarray, leaves: np.ndarray, posterior: np.ndarray, prior: np.ndarray,
                     rack_size: int = 7) -> np.ndarray:
    """The weights of our next draw when what the opponent kept is known in law: they hold
    a leave ``L`` with probability π(L) (``posterior``) plus tiles drawn after it, and our
    draw of ``t`` tiles from the bag is then a uniform draw from ``U − L`` (their draw is as
    random as ours). Its chance is a mixture over the leaves; kind by kind, the uniform
    weight ``C(U_x, d)`` is scaled by the ratio of the posterior and prior means:

        W[x, d] = C(U_x, d) · Σ_L π(L)·C(U_x − L_x, d) / Σ_L ρ(L)·C(U_x − L_x, d)

    over the leaves considered (every leave, or a sample), ``ρ`` their prior (``prior``).
    The kernels multiply ``W`` over the kinds drawn and divide by ``C(N, t)``
    (:func:`leave_table` with ``draw=W``). This is exact for π = ρ (W = C(U_x, d): a move
    that says nothing changes nothing) and for a draw of one kind with every leave of the
    prior considered (the mixture of ``C(U_x − L_x, d) / C(N − |L|, d)``); for draws of
    several kinds it takes the kinds as independent, where the mixture does not. A kind no
    considered leave leaves enough of (the prior sum 0) gets 0.

    - ``U``: (K,) counts, the tiles unseen by the player to move (the opponent's rack and
      the bag); ``leaves``: (m, K) counts; ``posterior``, ``prior``: (m,) float64 ≥ 0
      (:class:`heuri.search.inference.LeaveInference`'s; any common scale).

    Empty leaves (they say nothing), leaves that U cannot hold and leaves larger than the
    rack are left out of both sums; with none left, the uniform weights. Returns (K, D)
    float64. Raises ProbabilityError for weights of another length than ``leaves`` or
    negative."""
    U, leaves, post, pri = _told_leaves("own draw", U, leaves, posterior, prior, rack_size)
    W = draw_weights(U)  # a new array (fancy indexing copies)
    if not len(leaves) or post.sum() <= 0 or pri.sum() <= 0:
        return W
    post, pri = post / post.sum(), pri / pri.sum()
    left = BINOM[U[None, :] - leaves]  # (m, K, D): C(U_x − L_x, d)
    num = np.einsum("m,mkd->kd", post, left)
    den = np.einsum("m,mkd->kd", pri, left)
    with np.errstate(divide="ignore", invalid="ignore"):
        W *= np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return W


#: the compiled kernels of this module whose numba cache tells whether a first run compiles
#: (read by the command line's compile notice, ``heuri.apps.cli.kernels_cached``); not the
#: mixture kernel, which only heuri6 compiles (a second or two, on its first decision)
CACHED_KERNELS = (_leave_kernel2,)
