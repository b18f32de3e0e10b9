"""Inference: what the opponent kept, from the move they just made.

The opponent's rack was drawn from the tiles we could not see, but it is not a random draw
any more once they have moved: a player who kept a good leave played the tiles they played
*because* of what they kept. Bayes' rule with heuri's own evaluator as the model of the
player:

    P(R | m) ∝ P(R) · P(m | R)

- ``R``: the opponent's rack before the move; for a placement of the tiles ``T``,
  ``R = T + L`` with ``L`` the leave they kept, of size ``r − |T|`` (``r``: their rack size).
  For an exchange of ``n`` tiles or a pass, ``R`` is any rack of ``r`` tiles.
- ``P(R)``: the multivariate hypergeometric probability of drawing ``R`` from the unseen
  tiles ``U`` (bag + their rack, as we saw them before the move):
  ``P(R) = Π_i C(U_i, R_i) / C(|U|, r)``.
- ``P(m | R)``: the chance that a player holding ``R`` chooses ``m``, modelled as a soft
  maximum of the evaluator's values over every move ``R`` allows:
  ``P(m | R) = exp(v(m)/τ) / Σ_{m'} exp(v(m')/τ)``, with ``τ`` (points) the player's
  "temperature": ``τ → 0`` is a player who always makes the engine's choice, a large ``τ``
  a player whose moves say little. For an exchange of ``n`` unseen tiles the sum runs over
  every exchange of ``n`` tiles (we see the count, not the tiles).

The posterior over the kept leave: exact enumeration over the distinct leaves when they are
few (``max_exact``), else importance sampling: leaves ``L`` drawn uniformly from ``U − T``
(without replacement, ``q(L) ∝ Π C(U_i − T_i, L_i)``) and weighted by
``P(R)/q(L) ∝ Π L_i! / (L_i + T_i)!`` times the likelihood (the constant factors cancel when
the weights are normalised). Repeated leaves are valued once.

This module computes; :mod:`heuri.apps.cli` (``heuri infer``) and the SIU backend
(``go infer``) present it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from math import lgamma

import numpy as np

from ..core.errors import HeuriError
from ..core.movegen import EXCHANGE, PASS, PLACEMENT


class InferenceError(HeuriError):
    """Inference cannot be set up: a move that uses tiles nobody could hold, a rack size that
    the unseen tiles cannot fill, an unknown evaluator."""


@dataclass(frozen=True)
class LeaveInference:
    """The posterior over the opponent's kept leave after their move.

    - ``leaves``: (n, L+1) uint8, the distinct leaves considered (blank last), most probable
      first;
    - ``posterior``: (n,) float64, their posterior probabilities (sum 1);
    - ``prior``: (n,) float64, the same leaves' probabilities before the move was seen,
      normalised over the leaves considered (sum 1);
    - ``exact``: every possible leave was enumerated (else ``samples`` racks were drawn, or
      the enumeration, taken in a random order, was cut by the clock after ``samples``);
    - ``samples``: racks drawn or enumerated before the cut (0 when exact);
      ``evaluated``: distinct racks valued;
    - ``leave_size``: tiles kept; ``temperature``: τ (points); ``engine``: the evaluator.
    """

    leaves: np.ndarray
    posterior: np.ndarray
    prior: np.ndarray
    exact: bool
    samples: int
    evaluated: int
    leave_size: int
    temperature: float
    engine: str

    def tile_expectation(self) -> tuple[np.ndarray, np.ndarray]:
        """``(posterior, prior)`` expected count of each tile kind in the leave, (L+1,)
        float64 each."""
        lv = self.leaves.astype(np.float64)
        return self.posterior @ lv, self.prior @ lv

    def probability_of(self, leave: np.ndarray) -> tuple[float, float]:
        """``(posterior, prior)`` probability of one leave (count vector); 0 for a leave
        that was not considered."""
        hit = np.all(self.leaves == np.asarray(leave, np.uint8), axis=1)
        return float(self.posterior[hit].sum()), float(self.prior[hit].sum())


# -- the move's identity in a move list -------------------------------------------------------
_ZOBRIST_CACHE: dict[tuple[int, int], np.ndarray] = {}


def _zobrist(n_squares: int, n_letters: int) -> np.ndarray:
    key = (n_squares, n_letters)
    if key not in _ZOBRIST_CACHE:
        rng = np.random.default_rng(20261204)
        _ZOBRIST_CACHE[key] = rng.integers(1, 2**63 - 1, size=(n_squares, n_letters, 2), dtype=np.int64)
    return _ZOBRIST_CACHE[key]


def placement_keys(moves: np.ndarray, size: int, n_letters: int) -> np.ndarray:
    """A key per move that depends only on the new tiles (square, letter, blank or not),
    so that a one-tile play written across or down is the same move: (n,) int64, the XOR of
    one random number per new tile; 0 for exchanges and passes."""
    z = _zobrist(size * size, n_letters)
    n = len(moves)
    out = np.zeros(n, np.int64)
    if n == 0:
        return out
    across = moves["across"].astype(np.int64)
    row = moves["row"].astype(np.int64)
    col = moves["col"].astype(np.int64)
    place = moves["kind"] == PLACEMENT
    for i in range(moves["tiles"].shape[1]):
        new = moves["new"][:, i] & place & (i < moves["length"])
        if not new.any():
            continue
        sq = (row + i * (1 - across)) * size + col + i * across
        letter = np.clip(moves["tiles"][:, i].astype(np.int64), 0, n_letters - 1)
        k = z[np.clip(sq, 0, size * size - 1), letter, moves["blank"][:, i].astype(np.int64)]
        out ^= np.where(new, k, 0)
    return out


# -- enumeration and sampling --------------------------------------------------------------
def placement_key(move, size: int, n_letters: int) -> int:
    """:func:`placement_keys` of one :class:`heuri.core.move.Placement` (a move read from a
    record or typed), to find it in a generated move list."""
    from ..core.movegen import MOVE_DTYPE

    rec = np.zeros(1, MOVE_DTYPE)
    rec[0]["kind"], rec[0]["row"], rec[0]["col"] = PLACEMENT, move.row, move.col
    rec[0]["across"], rec[0]["length"] = move.across, len(move.tiles)
    rec[0]["tiles"][:len(move.tiles)] = move.tiles
    rec[0]["new"][:len(move.tiles)] = move.new
    rec[0]["blank"][:len(move.tiles)] = move.blank
    return int(placement_keys(rec, size, n_letters)[0])


def _multisets(avail: np.ndarray, k: int, limit: int) -> list[np.ndarray] | None:
    """Every count vector ``x <= avail`` with ``sum(x) == k``; None when there are more than
    ``limit``."""
    out: list[np.ndarray] = []
    n = len(avail)
    suffix = np.concatenate([np.cumsum(avail[::-1])[::-1], [0]])
    cur = np.zeros(n, np.int64)

    def rec(i: int, left: int) -> bool:
        if left == 0:
            out.append(cur.copy())
            return len(out) <= limit
        if i == n or suffix[i] < left:
            return True
        for c in range(min(int(avail[i]), left), -1, -1):
            cur[i] = c
            if not rec(i + 1, left - c):
                cur[i] = 0
                return False
        cur[i] = 0
        return True

    if not rec(0, k):
        return None
    return out


def _log_comb(n: int, k: int) -> float:
    return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)


def _log_prior(unseen: np.ndarray, rack: np.ndarray) -> float:
    """log Π C(U_i, R_i) (the hypergeometric numerator)."""
    return float(sum(_log_comb(int(u), int(r)) for u, r in zip(unseen, rack) if r))


def _log_weight_sampled(leave: np.ndarray, played: np.ndarray) -> float:
    """log P(R)/q(L) up to a constant: log Π L_i! / (L_i + T_i)!."""
    return float(sum(lgamma(l + 1) - lgamma(l + t + 1) for l, t in zip(leave, played) if t))


def _draw(avail: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    tiles = np.repeat(np.arange(len(avail)), avail)
    pick = rng.choice(len(tiles), size=k, replace=False)
    return np.bincount(tiles[pick], minlength=len(avail)).astype(np.int64)


# -- the likelihood -------------------------------------------------------------------------
def _softmax_share(values: np.ndarray, chosen: np.ndarray, tau: float) -> float:
    """Σ_{chosen} exp(v/τ) / Σ exp(v/τ), computed stably."""
    if not chosen.any():
        return 0.0
    z = (values - values.max()) / tau
    w = np.exp(z)
    return float(w[chosen].sum() / w.sum())


def infer_leave(evaluator, letters: np.ndarray, blanks: np.ndarray, unseen: np.ndarray, bag_size: int,
                move, *, observer_rack: np.ndarray | None = None, rack_size: int | None = None,
                temperature: float = 6.0, max_exact: int = 400, samples: int = 200,
                time_limit: float | None = None, seed: int = 0, rules=None,
                should_stop=None) -> LeaveInference:
    """The posterior over what the opponent kept (module docstring).

    - ``evaluator``: a :class:`heuri.eval.evaluate.Evaluator` (its pack gives the language);
      the model of the player;
    - ``letters`` (N, N) int8 (-1 empty), ``blanks`` (N, N) bool: the board *before* the move;
    - ``unseen``: (L+1,) counts, the tiles we could not see before the move (bag + their
      rack); ``bag_size``: tiles in the bag before the move;
    - ``move``: their move, a :class:`heuri.core.move.Move` (placement, exchange of known or
      unknown tiles, pass);
    - ``observer_rack``: (L+1,) our rack (unseen to them: it is part of their ``U``);
    - ``rack_size``: their rack size before the move (default ``|unseen| − bag_size``);
    - ``temperature``: τ in points; ``max_exact``: enumerate when there are at most this many
      distinct leaves; ``samples``: racks drawn otherwise; ``time_limit``: seconds, stops the
      sampling early (the answer is then over the racks drawn so far); ``seed``: the draws;
      ``should_stop``: a callable, polled between racks (SIU's ``stop``), that ends the
      sampling the same way.

    Raises InferenceError when the move's tiles are not among the unseen tiles or the rack
    size is impossible.
    """
    from ..core.move import Exchange, Pass, Placement

    spec = evaluator.spec
    U = np.asarray(unseen, np.int64)
    n_kinds = len(U)
    ours = np.zeros(n_kinds, np.int64) if observer_rack is None else np.asarray(observer_rack, np.int64)
    r = int(U.sum()) - int(bag_size) if rack_size is None else int(rack_size)
    if r <= 0 or r > spec.rack_size:
        raise InferenceError(f"the opponent's rack size {r} (unseen {int(U.sum())} − bag {bag_size}) "
                             f"is not 1..{spec.rack_size}")
    tau = float(temperature)
    if not tau > 0:
        raise InferenceError(f"temperature {temperature!r}: expected a positive number of points")

    played = np.zeros(n_kinds, np.int64)
    if isinstance(move, Placement):
        kind = PLACEMENT
        played = np.asarray(move.rack_counts(spec), np.int64)
        n_ex = 0
    elif isinstance(move, Exchange):
        kind, n_ex = EXCHANGE, int(move.count)
        if bag_size < spec.exchange_min_bag:
            raise InferenceError(f"an exchange needs at least {spec.exchange_min_bag} tiles in the bag; "
                                 f"it held {bag_size}")
    elif isinstance(move, Pass):
        kind, n_ex = PASS, 0
    else:
        raise InferenceError(f"move {move!r}: expected a placement, an exchange or a pass")
    if np.any(played > U):
        raise InferenceError("the move plays tiles that were not among the unseen tiles: "
                             + spec.format_tiles(np.repeat(np.arange(n_kinds), np.maximum(played - U, 0)), blank="?"))
    if int(played.sum()) > r or n_ex > r:
        raise InferenceError(f"the move uses {max(int(played.sum()), n_ex)} tiles; the rack held {r}")

    size = letters.shape[0]
    target = placement_key(move, size, spec.n_letters) if kind == PLACEMENT else 0

    k = r - int(played.sum())  # tiles kept (a placement); the whole rack is the hypothesis otherwise
    free = U - played
    cache: dict[bytes, list[tuple[bytes, float]]] = {}

    def leaves_given_rack(rack: np.ndarray) -> list[tuple[bytes, float]]:
        """[(leave bytes, P(m and this leave | rack))] for one rack."""
        key = rack.tobytes()
        if key in cache:
            return cache[key]
        opp_unseen = U - rack + ours
        rk = evaluator.rank_arrays(letters, blanks, rack, opp_unseen, bag_size, rules=rules)
        v = rk.v
        if kind == PLACEMENT:
            hit = (rk.moves["kind"] == PLACEMENT) & (placement_keys(rk.moves, size, spec.n_letters) == target)
            out = [((rack - played).astype(np.uint8).tobytes(), _softmax_share(v, hit, tau))]
        elif kind == PASS:
            hit = rk.moves["kind"] == PASS
            out = [(rack.astype(np.uint8).tobytes(), _softmax_share(v, hit, tau))]
        else:
            hit = (rk.moves["kind"] == EXCHANGE) & (rk.moves["n_tiles"] == n_ex)
            out = []
            if hit.any():
                z = np.exp((v - v.max()) / tau)
                total = z.sum()
                for i in np.flatnonzero(hit):
                    out.append((rk.leaves[i].astype(np.uint8).tobytes(), float(z[i] / total)))
        cache[key] = out
        return out

    post: dict[bytes, float] = {}
    prior: dict[bytes, float] = {}
    hyp_size = k if kind == PLACEMENT else r
    hyp_avail = free if kind == PLACEMENT else U
    every = _multisets(hyp_avail, hyp_size, max_exact)
    exact = every is not None
    drawn = 0
    if exact:
        logp = np.array([_log_prior(U, (h + played) if kind == PLACEMENT else h) for h in every])
        w = np.exp(logp - logp.max())
        pairs = list(zip(every, w))
    else:
        rng = np.random.default_rng(seed)
        pairs = []
    start = time.perf_counter()

    def add(h: np.ndarray, w_prior: float) -> None:
        rack = h + played if kind == PLACEMENT else h
        for lv, lik in leaves_given_rack(rack):
            post[lv] = post.get(lv, 0.0) + w_prior * lik
        # the prior over leaves: the hypothesis's own leave (a placement) or, for an
        # exchange/pass, the rack's leaves weighted as the prior of the rack alone
        if kind == PLACEMENT or kind == PASS:
            lv0 = (h if kind == PLACEMENT else rack).astype(np.uint8).tobytes()
            prior[lv0] = prior.get(lv0, 0.0) + w_prior
        else:
            outs = leaves_given_rack(rack)
            for lv, _ in outs:
                prior[lv] = prior.get(lv, 0.0) + w_prior / max(len(outs), 1)

    def out_of_time() -> bool:
        return ((time_limit is not None and time.perf_counter() - start > time_limit)
                or (should_stop is not None and should_stop()))

    if exact:
        # in a random order, so that a search cut by the clock has valued an unbiased part
        for n_done, i in enumerate(np.random.default_rng(seed).permutation(len(pairs))):
            if n_done >= 8 and out_of_time():
                exact, drawn = False, n_done
                break
            h, w = pairs[i]
            add(h, float(w))
    else:
        while drawn < samples:
            h = _draw(hyp_avail, hyp_size, rng)
            drawn += 1
            w_is = np.exp(_log_weight_sampled(h, played)) if kind == PLACEMENT else 1.0
            add(h, float(w_is))
            if drawn >= 8 and out_of_time():
                break

    keys = list(prior.keys() | post.keys())
    if not keys:
        raise InferenceError("no rack the opponent could hold allows that move")
    L = np.array([np.frombuffer(kk, np.uint8) for kk in keys]).reshape(len(keys), n_kinds)
    p_post = np.array([post.get(kk, 0.0) for kk in keys])
    p_prior = np.array([prior.get(kk, 0.0) for kk in keys])
    if p_post.sum() <= 0:
        # the model gives the move no chance from any rack considered (a move the evaluator
        # never lists, e.g. a phony): say nothing more than the prior
        p_post = p_prior.copy()
    p_post /= p_post.sum()
    p_prior /= p_prior.sum()
    order = np.lexsort((np.arange(len(keys)), -p_post))
    return LeaveInference(L[order], p_post[order], p_prior[order], exact, drawn, len(cache),
                          hyp_size if kind == PLACEMENT else r - n_ex, tau, type(evaluator).__name__.lower())


def infer_from_position(evaluator, position, move, **options) -> LeaveInference:
    """:func:`infer_leave` for a :class:`heuri.core.game.Position` *before* the opponent's
    move: the opponent is the player to move, their rack unknown (a CGP with their rack
    left empty) or known (then it is set aside: we infer as if we had not seen it); the
    observer is the next seat, whose rack is taken as known. ``options``: as
    :func:`infer_leave`."""
    seat = position.to_move
    observer = (seat + 1) % position.n_players
    unseen = position.unseen(observer)
    ours = np.asarray(position.racks[observer], np.int64)
    rack_size = int(position.racks[seat].sum()) + int(position.hidden[seat]) if position.hidden else None
    if not rack_size:
        rack_size = min(position.spec.rack_size, int(unseen.sum()))
    bag_size = int(unseen.sum()) - rack_size
    b = position.board
    return infer_leave(evaluator, b.letters, b.blanks, unseen, bag_size, move, observer_rack=ours,
                       rack_size=rack_size, rules=position.spec, **options)
