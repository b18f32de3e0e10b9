"""The non-bingo quality of a leave: the expected playability cost of the next rack.

Heuri's e(L) ≥ 0 only counts the bingos a leave can draw into; a leave such as ``UUV`` or
``IIX`` then looks as good as an empty leave with no bingo chance, and heuri keeps (and
fishes with) racks a player would not keep. This module values the *next rack*, not the
leave, in the spirit of the method: the rack ``L + D`` with ``D`` drawn uniformly from the
augmented bag ``U`` (multivariate hypergeometric, exactly as p(s | L) in
:mod:`heuri.probability`), and prices three well-known handicaps of a rack by their expected
cost in points next turn:

- **vowel/consonant balance**: a rack of ``n`` tiles holding ``v`` vowels (the tiles A E I O
  U; a blank is counted on whichever side helps) costs
  ``w_balance · max(0, |v − φ·n| − slack)`` with ``φ`` the vowel share of the language's
  letter tiles (English 42/98: 3 of 7 is ideal) and ``slack = 0.8`` tiles (English: 3 vowels
  of 7 cost nothing, 2 or 4 cost 1 point, 1 or 5 cost 6, none 11, 6 of 7 cost 11);
- **duplicates**: ``w_duplicate · c(c − 1)/2`` for each letter kind held ``c`` times (a pair
  costs ``w_duplicate``, three of a kind three times that); blanks are exempt;
- **Q without U**: ``w_q`` when the rack holds a Q and neither a U nor a blank (languages with
  both tiles).

The draw has ``d = min(R − |L|, bag size, |U|)`` tiles (with fewer tiles in the bag than
the leave needs, the next rack is short). The expectation is exact: the balance over the
joint (vowel, blank, consonant) draw, the duplicates through each kind's marginal
hypergeometric law (expectation is linear), the Q through the probability of drawing no U
and no blank. The weights are hand-set, in points (:data:`DEFAULT_WEIGHTS`); nothing is
learned by self-play.

Worked example (tests/test_leave_quality.py): U = {A, A, B, B} (N = 4), leave {B}, one
tile drawn. P(A) = P(B) = 1/2; the rack AB has no pair, BB has one: the duplicate cost is
½ · w_duplicate.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

VOWEL_TILES = frozenset("AEIOU")
MAX_N = 160  # largest |U| the binomial table covers (every language here has ≤ 102 tiles)


def _binomials(n: int = MAX_N, k: int = 16) -> np.ndarray:
    """C(a, b) for a < n, b < k as float64 (b > a gives 0)."""
    t = np.zeros((n, k), np.float64)
    for a in range(n):
        for b in range(min(a, k - 1) + 1):
            t[a, b] = comb(a, b)
    return t


BC = _binomials()


@dataclass(frozen=True)
class LeaveWeights:
    """The handicap prices of :mod:`heuri.leave_quality`, points: ``balance`` per vowel
    beyond the slack, ``slack`` (tiles), ``duplicate`` per pair of one letter, ``q`` for a Q
    without a U or a blank."""

    balance: float = 5.0
    slack: float = 0.8
    duplicate: float = 3.0
    q: float = 10.0


DEFAULT_WEIGHTS = LeaveWeights()


class RackKinds:
    """What the cost needs of a language's tile set: ``vowel`` (K,) bool, ``blank`` id,
    ``q``/``u`` ids (or −1), ``share`` the vowel share of the letter tiles (0..1)."""

    def __init__(self, spec):
        self.K = spec.n_kinds
        self.blank = spec.blank
        self.vowel = np.array([t in VOWEL_TILES for t in spec.tiles] + [False])
        dist = spec.distribution()
        letters = dist[: spec.n_letters]
        self.share = float(letters[self.vowel[: spec.n_letters]].sum() / max(1, letters.sum()))
        self.q = spec.tiles.index("Q") if "Q" in spec.tiles else -1
        self.u = spec.tiles.index("U") if "U" in spec.tiles else -1
        self.rack_size = spec.rack_size


def _draws(leaves: np.ndarray, U: np.ndarray, bag_size: int, R: int) -> np.ndarray:
    """Tiles each leave draws, (m,) int64: min(R − |L|, bag size, |U|), never below 0."""
    t = R - leaves.sum(axis=1).astype(np.int64)
    return np.clip(np.minimum(t, min(int(bag_size), int(U.sum()))), 0, None)


def balance_cost(kinds: RackKinds, leaves: np.ndarray, U: np.ndarray, d: np.ndarray,
                 w: LeaveWeights = DEFAULT_WEIGHTS) -> np.ndarray:
    """E[balance cost of L + D], (m,) float64 points, over the joint hypergeometric law of
    the vowels, blanks and consonants among the d drawn tiles (``leaves`` (m, K) counts,
    ``U`` (K,) counts, ``d`` (m,) draws)."""
    leaves = leaves.astype(np.int64)
    N = int(U.sum())
    uv = int(U[kinds.vowel].sum())
    ub = int(U[kinds.blank])
    uc = N - uv - ub
    lv = leaves[:, kinds.vowel].sum(axis=1)[:, None, None]
    lb = leaves[:, kinds.blank][:, None, None]
    dd = d[:, None, None]
    n = leaves.sum(axis=1)[:, None, None] + dd
    D = int(d.max(initial=0))
    dv = np.arange(D + 1)[None, :, None]  # vowels drawn
    db = np.arange(D + 1)[None, None, :]  # blanks drawn
    dc = dd - dv - db  # consonants drawn
    ok = dc >= 0
    p = np.where(ok, BC[uv, dv] * BC[ub, db] * BC[uc, np.clip(dc, 0, None)] / BC[N, dd], 0.0)
    v = lv + dv
    b = lb + db
    # the blanks go to whichever side is short: the vowel count can be v .. v + b
    ideal = kinds.share * n
    dev = np.maximum(0.0, np.maximum(v - ideal, ideal - (v + b)))
    return (p * w.balance * np.maximum(0.0, dev - w.slack)).sum(axis=(1, 2))


def duplicate_cost(kinds: RackKinds, leaves: np.ndarray, U: np.ndarray, d: np.ndarray,
                   w: LeaveWeights = DEFAULT_WEIGHTS) -> np.ndarray:
    """E[Σ_x w·c_x(c_x − 1)/2] over the letter kinds x of L + D, (m,) float64 points: by
    linearity, each kind's count drawn is hypergeometric(N, U_x, d)."""
    leaves = leaves.astype(np.int64)
    N = int(U.sum())
    letters = np.arange(kinds.K) != kinds.blank
    Ux = U[letters].astype(np.int64)  # (K',)
    Lx = leaves[:, letters]  # (m, K')
    D = int(d.max(initial=0))
    k = np.arange(D + 1)[None, :, None]  # tiles of the kind drawn
    rest = d[:, None, None] - k
    p = np.where(rest >= 0, BC[Ux[None, None, :], k] * BC[(N - Ux)[None, None, :], np.clip(rest, 0, None)]
                 / BC[N, d][:, None, None], 0.0)
    c = Lx[:, None, :] + k
    return w.duplicate * (p * (c * (c - 1) / 2.0)).sum(axis=(1, 2))


def q_cost(kinds: RackKinds, leaves: np.ndarray, U: np.ndarray, d: np.ndarray,
           w: LeaveWeights = DEFAULT_WEIGHTS) -> np.ndarray:
    """w_q · P(L + D holds a Q and neither a U nor a blank), (m,) float64 points (0 for a
    language without both Q and U)."""
    if kinds.q < 0 or kinds.u < 0:
        return np.zeros(len(leaves))
    N = int(U.sum())
    a = int(U[kinds.u] + U[kinds.blank])  # tiles that rescue a Q
    uq = int(U[kinds.q])
    none = BC[N - a, d] / BC[N, d]  # no U and no blank drawn
    none_noq = BC[N - a - uq, d] / BC[N, d]  # ... and no Q either
    has_q = leaves[:, kinds.q] > 0
    rescued = (leaves[:, kinds.u] > 0) | (leaves[:, kinds.blank] > 0)
    p = np.where(has_q, none, none - none_noq)
    return np.where(rescued, 0.0, w.q * p)


def next_rack_cost(kinds: RackKinds, leaves: np.ndarray, U: np.ndarray, bag_size: int,
                   w: LeaveWeights = DEFAULT_WEIGHTS) -> np.ndarray:
    """Expected handicap cost of the next rack for each leave, (m,) float64 points (the sum
    of :func:`balance_cost`, :func:`duplicate_cost` and :func:`q_cost`). ``leaves`` (m, K)
    counts; ``U`` (K,) the augmented bag; ``bag_size`` tiles in the bag (it caps the draw)."""
    leaves = np.asarray(leaves)
    U = np.asarray(U, np.int64)
    if U.sum() >= MAX_N:
        raise ValueError(f"next_rack_cost: the unseen pool holds {int(U.sum())} tiles (max {MAX_N - 1})")
    d = _draws(leaves, U, bag_size, kinds.rack_size)
    return (balance_cost(kinds, leaves, U, d, w) + duplicate_cost(kinds, leaves, U, d, w)
            + q_cost(kinds, leaves, U, d, w))
