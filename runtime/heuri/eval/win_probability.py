"""Win probability: the chance that the player to move wins, given the spread and the bag.

A lead of 40 points with 60 tiles in the bag is a small edge; the same lead with the bag
empty almost always wins. The chance is a property of the game (the tile set, the word
list, the board) and of how well both sides play, not a leave table: the pipeline measures it
on heuri's own self-play (``pipeline/win_probability.py``) and this module reads and applies
it.

The model, one per bag size ``b`` (tiles in the bag before the move):

    P(win | s, b) = 1 / (1 + exp(−(s + offset_b) / scale_b))

with ``s`` the mover's spread (their score minus the opponent's, points), ``offset_b``
(points) what moving first is worth at that bag size (the mover scores before the opponent
answers) and ``scale_b`` (points) how far the game can still swing. A draw counts half. Each
bag size is fitted by logistic regression (maximum likelihood, Newton's method) on the
positions of the self-play games with a bag within :data:`WINDOW` tiles of ``b``, so that the
few positions of each single bag size are pooled with their neighbours'. The empty bag is
fitted alone: the endgame (both racks known, several positions a game) is not the game of
one to three tiles in the bag, and pooled with them it pulled their offsets up by 6 to 9
points.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import HeuriError

#: bag sizes within this many tiles of ``b`` are pooled to fit bag size ``b``
WINDOW = 3
#: the smallest and largest scale (points) a fit may give: a bag with too few positions, or
#: one where every game was decided, would otherwise give a scale of 0 or of thousands
SCALE_BOUNDS = (2.0, 400.0)


def game_result(margin: float) -> float:
    """A player's result from their final margin (points): 1 won, 0.5 a draw, 0 lost.

    >>> game_result(12), game_result(0), game_result(-3)
    (1.0, 0.5, 0.0)
    """
    return 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0


class WinProbabilityError(HeuriError):
    """A win-probability table that cannot be fitted or read (no positions, bad columns)."""


@dataclass(frozen=True)
class WinProbability:
    """The fitted table: ``offset`` and ``scale`` ((B+1,) float64 points, indexed by bag
    size 0..B), ``positions`` ((B+1,) int64: the self-play positions each fit pooled).
    A bag above ``B`` is read as ``B``."""

    offset: np.ndarray
    scale: np.ndarray
    positions: np.ndarray

    def p(self, spread, bag):
        """The mover's chance to win (a draw half): float or array broadcast from
        ``spread`` (points) and ``bag`` (tiles in the bag, int ≥ 0).

        >>> t = WinProbability(np.array([0.0]), np.array([10.0]), np.array([1]))
        >>> round(t.p(0, 0), 3), round(t.p(10, 5), 3)
        (0.5, 0.731)
        """
        b = np.clip(np.asarray(bag, np.int64), 0, len(self.offset) - 1)
        z = (np.asarray(spread, np.float64) + self.offset[b]) / self.scale[b]
        out = 1.0 / (1.0 + np.exp(-z))
        return float(out) if np.ndim(out) == 0 else out

    def p_after_move(self, spread, bag):
        """The chance to win of the player who has just moved, the opponent to move: ``1 −
        p(−spread, bag)``, with ``spread`` theirs (points) and ``bag`` the tiles left.

        >>> t = WinProbability(np.array([0.0]), np.array([10.0]), np.array([1]))
        >>> round(t.p_after_move(10, 5), 3)
        0.731
        """
        return 1.0 - self.p(-np.asarray(spread, np.float64), bag)

    def table(self) -> dict[str, np.ndarray]:
        """The columns of ``win_probability.parquet``: ``bag`` int16, ``offset`` and
        ``scale`` float64 points, ``positions`` int64."""
        return {"bag": np.arange(len(self.offset), dtype=np.int16), "offset": self.offset,
                "scale": self.scale, "positions": self.positions}

    @classmethod
    def of_pack(cls, pack) -> "WinProbability | None":
        """The table built beside ``pack`` (:attr:`heuri.core.pack.LanguagePack.win_probability_table`),
        or None when it was not built."""
        cols = pack.win_probability_table
        return None if cols is None else cls.from_table(cols)

    @classmethod
    def from_table(cls, columns: dict) -> "WinProbability":
        """Read the columns :meth:`table` writes (bags 0..B in order). Raises
        WinProbabilityError naming a missing column or a bag out of order."""
        for name in ("bag", "offset", "scale", "positions"):
            if name not in columns:
                raise WinProbabilityError(f"win-probability table: no column {name!r}")
        bag = np.asarray(columns["bag"], np.int64)
        if not np.array_equal(bag, np.arange(len(bag))):
            raise WinProbabilityError("win-probability table: the bags are not 0, 1, 2, ... in order")
        scale = np.asarray(columns["scale"], np.float64)
        if len(scale) == 0 or not np.all(scale > 0):
            raise WinProbabilityError("win-probability table: a scale is not positive")
        return cls(np.asarray(columns["offset"], np.float64), scale,
                   np.asarray(columns["positions"], np.int64))


def move_win_chances(table: WinProbability, spread: float, bag: int, ranking, rack_tiles: int,
                     top: int) -> np.ndarray:
    """Our chance to win after each of a ranking's first ``top`` candidates, (min(top, n),)
    float64 in [0, 1]: the static engine's choice near the end of the bag.

    Heuri's value of a move is an expectation: its score ``j``, the bingo of the next turn
    (probability ``p``, expected points ``e``) and the value's other terms ``x = v − j − e``
    (leave quality, the opponent's lanes, scoring power). Two moves of equal value are not
    worth the same when the game is nearly decided: trailing by 60 with 8 tiles in the bag, a
    leave that bingos one time in two is worth more than its expected 25 points, since only a
    bingo wins. Each candidate is read as two outcomes, the bingo or not, each turned into a
    chance to win by the table with the opponent to move:

        W = p·(1 − P(−(s + j + x − c + e/p), b′)) + (1 − p)·(1 − P(−(s + j + x − c), b′))

    ``s``: ``spread``, ours before the move (points); ``b′``: the bag after the move (the
    tiles a placement takes from it; an exchange or a pass leaves it as it is); ``c``: the
    mean of ``v − j`` over the candidates weighed, since the table already counts an average
    next turn for the side not to move. ``ranking``: :class:`heuri.eval.evaluate.Ranking`;
    ``rack_tiles``: the tiles on our rack (the tiles a placement plays are those it does not
    leave). The example's two moves have equal value; trailing by 60, the one that keeps
    the better bingo chance is the likelier win.

    >>> from types import SimpleNamespace as N
    >>> t = WinProbability(np.zeros(9), np.full(9, 20.0), np.ones(9, np.int64))
    >>> mv = np.zeros(2, [("kind", "i1")])
    >>> r = N(moves=mv, j=np.array([30, 10]), e=np.array([5.0, 25.0]), p=np.array([0.1, 0.5]),
    ...       v=np.array([35.0, 35.0]), leaves=np.array([[3], [5]]))
    >>> [round(float(w), 3) for w in move_win_chances(t, -60.0, 8, r, 7, 10)]
    [0.142, 0.179]
    """
    n = min(int(top), len(ranking.j))
    j = np.asarray(ranking.j[:n], np.float64)
    e = np.asarray(ranking.e[:n], np.float64)
    p = np.clip(np.asarray(ranking.p[:n], np.float64), 0.0, 1.0)
    v = np.asarray(ranking.v[:n], np.float64)
    x = v - j - e
    c = float((v - j).mean()) if n else 0.0
    placed = rack_tiles - np.asarray(ranking.leaves[:n]).sum(axis=1)
    placing = np.asarray(ranking.moves["kind"][:n]) == 0
    after = np.where(placing, np.maximum(bag - np.maximum(placed, 0), 0), bag)
    base = spread + j + x - c
    bingo = np.divide(e, p, out=np.zeros(n), where=p > 0)
    return p * table.p_after_move(base + bingo, after) + (1.0 - p) * table.p_after_move(base, after)


def _logistic_fit(s: np.ndarray, y: np.ndarray, iterations: int = 50) -> tuple[float, float]:
    """Maximum-likelihood ``(a, c)`` of ``P(y=1) = σ(a·s + c)`` (``y`` in [0, 1], a draw 0.5),
    by Newton's method with a small ridge (the fit stays finite when the classes separate)."""
    x = np.column_stack([s, np.ones_like(s)])
    w = np.zeros(2)
    ridge = np.diag([1e-6, 1e-6])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        g = x.T @ (p - y) + ridge @ w
        h = (x * (p * (1 - p))[:, None]).T @ x + ridge
        step = np.linalg.solve(h, g)
        w = w - step
        if np.abs(step).max() < 1e-9:
            break
    return float(w[0]), float(w[1])


def fit_win_probability(spread, bag, result, window: int = WINDOW) -> WinProbability:
    """Fit the table from self-play positions: ``spread`` (n,) points, the mover's;
    ``bag`` (n,) int, tiles in the bag; ``result`` (n,) the mover's result (1 won, 0.5 a
    draw, 0 lost). Bag sizes 0..max(bag). Raises WinProbabilityError without positions."""
    s = np.asarray(spread, np.float64)
    b = np.asarray(bag, np.int64)
    y = np.asarray(result, np.float64)
    if len(s) == 0 or not (len(s) == len(b) == len(y)):
        raise WinProbabilityError("win probability: no positions to fit (or columns of different lengths)")
    top = int(b.max())
    offset = np.zeros(top + 1)
    scale = np.zeros(top + 1)
    positions = np.zeros(top + 1, np.int64)
    lo_s, hi_s = SCALE_BOUNDS
    for k in range(top + 1):
        # the empty bag is the endgame, a game of its own (both racks known, no draw): it is
        # neither pooled into the small bags nor they into it
        near = (b == 0) if k == 0 else (np.abs(b - k) <= window) & (b > 0)
        positions[k] = int(near.sum())
        if positions[k] < 10:
            offset[k], scale[k] = 0.0, hi_s  # too few positions: a coin toss, nearly
            continue
        a, c = _logistic_fit(s[near], y[near])
        sc = float(np.clip(1.0 / a if a > 0 else hi_s, lo_s, hi_s))
        offset[k], scale[k] = c * sc, sc
    return WinProbability(offset, scale, positions)
