"""Every leave's bingo expectation for one set of unseen tiles, as a table.

Heuri_2's ``e(L)`` (docs/method.md) is the expected bingo value of a leave ``L`` next turn:

    e(L) = Σ_{septets s ⊇ L} Π_x C(U_x, s_x − L_x) / C(|U|, R − |L|) · (50 + k·σ(s))

:func:`heuri.eval.probability.leave_table` computes it for the sub-multisets of one rack, in a
pass over the keys: about 4 ms a rack, which is most of a simulation rollout's time when our
move two plies on is valued that way. :class:`LeaveValues` computes it once for *every* leave
of up to ``R − 1`` tiles, with one pass over the septets that adds each septet's term to every
leave it holds, and then values any rack's leaves by lookup. The table depends on ``U`` and on
the bag's size only, so a simulation builds it once for the unseen tiles of the position it
races (the rollouts' own unseen tiles, a dozen fewer, are approximated by them).

A leave of k tiles is stored at ``offset[k] + rank``. Its tiles are numbered from the last
kind (tile x as ``y = K − 1 − x``) and sorted, ``y_0 ≤ … ≤ y_{k−1}``; the rank is the
colexicographic rank of the strictly increasing ``b_i = y_i + i``, ``Σ_i C(b_i, i + 1)`` (the
combinatorial number system), and ``offset[k]`` counts the multisets of fewer tiles. Numbering
from the last kind puts the leaves of consecutive keys (sorted by their first tiles) near each
other in the table, which halves the build's time. English (27 kinds) has 1.1 million leaves
of at most 6 tiles, Spanish (29) 1.6 million, Polish (33) 3.3 million.
"""
from __future__ import annotations

from math import ceil, comb

import numpy as np
from numba import njit

from .probability import BINOM, MAX_COUNT, ProbabilityError, key_runs

#: C(a, b) for a < 80, b < 9, int64 (the ranks' binomials: a ≤ kinds + R − 2)
_RANK_BINOM = np.array([[comb(a, b) for b in range(9)] for a in range(80)], np.int64)


@njit(cache=True, nogil=True)
def _every_leave_sums(runs, use, val, U, binom, rbinom, offset, R, K, out):
    """out[offset[|L|] + rank(L)] += Π_x C(U_x, s_x − L_x)·val(s) for every key s of ``use``
    and every sub-multiset L of s of at most R − 1 tiles (the unnormalised sums of e).

    A depth-first walk over each key's runs (x_j held c_j times): depth j chooses how many
    l_j of x_j the leave keeps, carrying the product of the runs before it (a zero product
    ends the branch) and the rank of the tiles chosen so far, so a leave costs one step."""
    nkeys, width = runs.shape
    xs = np.zeros(width, np.int64)
    cs = np.zeros(width, np.int64)
    lcur = np.zeros(width, np.int64)
    wst = np.zeros(width + 1)
    rst = np.zeros(width + 1, np.int64)
    ist = np.zeros(width + 1, np.int64)
    rrun = np.zeros(width, np.int64)
    for s in range(nkeys):
        if not use[s]:
            continue
        r = 0
        for j in range(width):
            if runs[s, j] == 0:
                break
            r += 1
        # the runs in descending tile order, a tile x ranked as K − 1 − x: the keys come sorted
        # by their first tiles, so consecutive keys' leaves land near each other in the table
        for j in range(r):
            q = np.int64(runs[s, r - 1 - j])
            xs[j] = K - 1 - (q >> 3)
            cs[j] = q & 7
        wst[0] = val[s]
        rst[0] = 0
        ist[0] = 0
        lcur[0] = -1
        j = 0
        while j >= 0:
            lcur[j] += 1
            l = lcur[j]
            if l > cs[j]:
                j -= 1
                continue
            i = ist[j]
            if l == 0:
                rrun[j] = rst[j]
            else:  # one more x_j in the leave, at sorted position i + l − 1
                rrun[j] += rbinom[xs[j] + i + l - 1, i + l]
            u = U[K - 1 - xs[j]]
            d = cs[j] - l
            if d > u:
                continue
            w = wst[j] * binom[u, d]
            if j == r - 1:
                if i + l < R:
                    out[offset[i + l] + rrun[j]] += w
            else:
                wst[j + 1] = w
                rst[j + 1] = rrun[j]
                ist[j + 1] = i + l
                lcur[j + 1] = -1
                j += 1


@njit(cache=True, nogil=True)
def _leave_ranks(leaves, rbinom, offset):
    """The table index of each row of ``leaves`` ((m, K) counts); -1 for a leave of more
    tiles than the table holds."""
    m, K = leaves.shape
    out = np.empty(m, np.int64)
    top = offset.shape[0] - 1
    for q in range(m):
        rank = 0
        i = 0
        for y in range(K):  # tile x = K − 1 − y ranked as y (:func:`_every_leave_sums`)
            for _ in range(leaves[q, K - 1 - y]):
                if i < top:
                    rank += rbinom[y + i, i + 1]
                i += 1
        out[q] = offset[i] + rank if i < top else -1
    return out


class BuildStopped(Exception):
    """A :class:`LeaveValues` build ended by its ``should_stop`` (no table is made)."""


class LeaveValues:
    """e(L) of every leave of at most R − 1 tiles for the unseen tiles ``U``.

    - ``pack``: the language pack (its keys); ``U``: (K,) int64 counts of the unseen tiles
      (bag and the other racks, as the player sees them); ``use``: (n_keys,) bool, the keys
      that count (Heuri_2: the septets); ``val``: (n_keys,) float64 bingo values, points
      (:func:`heuri.eval.probability.bingo_value`); ``bag_size``: tiles in the bag (a leave
      that needs more draws gets e = 0, as in :func:`heuri.eval.probability.leave_table`).

    :meth:`of` gives the e of each row of a leaves array, equal to ``leave_table``'s for the
    same ``U`` and bag (``tests/test_leave_values.py``: to 1e-9, the sums are added in
    another order). Building takes one pass over the septets (about 0.1 s in English and
    Spanish, on a core shared with other work);
    the table is (number of leaves,) float64. ``should_stop``: polled sixteen times during the
    build (a simulation's ``stop``); when it answers True the build ends with
    :class:`BuildStopped`. Raises ProbabilityError for counts the binomial table does not
    hold."""

    def __init__(self, pack, U, use, val, bag_size: int, should_stop=None):
        spec = pack.spec
        R, K = spec.rack_size, spec.n_kinds
        U = np.asarray(U, np.int64)
        if U.shape != (K,) or (U < 0).any() or (U >= MAX_COUNT).any():
            raise ProbabilityError(f"unseen tiles {U.tolist()}: {K} counts from 0 to {MAX_COUNT - 1} expected")
        if K + R > len(_RANK_BINOM):
            raise ProbabilityError(f"{spec.code}: {K} tile kinds; the leave ranks hold {len(_RANK_BINOM) - R}")
        self.R = R
        # offset[k]: the multisets of fewer than k tiles over K kinds, C(K + j − 1, j) of j tiles
        self.offset = np.cumsum([0] + [comb(K + j - 1, j) for j in range(R)]).astype(np.int64)
        sums = np.zeros(int(self.offset[-1]), np.float64)
        runs, use, val = key_runs(pack), np.asarray(use, np.bool_), np.asarray(val, np.float64)
        # the keys in slices, so that a stop is heard within a sixteenth of the build (the
        # kernel adds into ``sums``: the slices' sums are the whole's)
        slices = 16 if should_stop is not None else 1
        step = max(1, ceil(len(runs) / slices))
        for a in range(0, len(runs), step):
            if should_stop is not None and should_stop():
                raise BuildStopped("the leave table's build was stopped")
            _every_leave_sums(runs[a:a + step], use[a:a + step], val[a:a + step], U, BINOM, _RANK_BINOM,
                              self.offset, R, K, sums)
        N = int(U.sum())
        for k in range(R):
            t = R - k
            d = comb(N, t) if t <= N else 0
            a, b = int(self.offset[k]), int(self.offset[k + 1])
            sums[a:b] = sums[a:b] / d if (d > 0 and t <= bag_size) else 0.0
        self.e = sums

    def __len__(self) -> int:
        return len(self.e)

    def of(self, leaves: np.ndarray) -> np.ndarray:
        """e of each row of ``leaves`` ((m, K) counts), (m,) float64 points; a leave of R
        tiles (the rack kept whole: a pass) gets 0."""
        idx = _leave_ranks(np.ascontiguousarray(leaves), _RANK_BINOM, self.offset)  # the movegen's uint8 as is
        return np.where(idx >= 0, self.e[np.maximum(idx, 0)], 0.0)
