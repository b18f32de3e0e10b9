"""Pre-endgame search: the bag holds 1 to 7 tiles, so the tiles the player to move
cannot see (the unseen tiles: the bag and the opponent's rack) are known exactly; enumerate
every draw.

For each candidate move (the evaluator's top ``top`` moves, plus the ``empty_top``
top-scoring placements that empty the bag) and each possible draw, weighted by its exact
probability (multivariate hypergeometric over the unseen tiles: the bag is a random subset
of them, the opponent holds the rest):

- a move that empties the bag (``n_tiles >= bag``): the mover draws the whole bag ``D``; the
  opponent holds ``unseen − D``; the resulting bag-empty endgame, the opponent to move, is
  solved by :class:`heuri.endgame.EndgameSearch` under ``endgame_limits`` (exact when the
  limits allow, else the best move of the last completed depth, and the row says so);
- a move that leaves tiles in the bag (a pass, an exchange, a placement of fewer tiles):
  the mover draws ``D``, the bag keeps ``R``, the opponent holds the rest and replies with
  the top-scoring placement; the line is valued there (score difference and the racks'
  values left as in the solver's horizon) and marked ``1-ply``: an estimate, not a search.

Each line gives the final spread (current spread + the spread the line adds): a win when
it is > 0, a draw when 0. Candidates are ranked by win probability (a draw counts half),
ties by expected spread (Quackle, MAGPIE and Woogles' PEG tables report the same figures).

With the opponent's last move inferred (:mod:`heuri.search.inference`: a posterior ``π`` over
the leave ``L`` they kept, with ``ρ`` the same leaves' prior), each draw's weight is scaled by

    r(D) = Σ_L π(L)·p(D | L) / Σ_L ρ(L)·p(D | L),   p(D | L) = Π_x C(U_x − L_x, D_x) / C(N − |L|, k)

(the tiles they kept are not in the bag, whose tiles are the rest of the unseen tiles in a
random split): with every leave enumerated, the chance of ``D`` given what their move says
(law of total probability); with a sample, the ratio estimate of
:func:`heuri.eval.probability.opponent_mixture`. A move that says nothing (``π = ρ``) leaves
the weights as they were. The bag's contents behind a 1-ply line stay uniform.

Cut-offs: a bag of more than ``max_bag`` (default 7) tiles is refused (PegError, naming the
bag size). When a candidate's draws exceed ``max_draws`` (default 40) distinct multisets,
only the ``max_draws`` likeliest are searched, their probabilities reweighted to sum to 1,
and the row's method ends in ``~`` (the result's ``note`` says so); a 1-ply line takes the
``max_replies`` (6) likeliest contents of the bag. With one tile in the bag every draw is
searched (at most one per distinct unseen tile).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..eval.engines import DEFAULT_ENGINE
from ..core.errors import HeuriError


class PegError(HeuriError):
    """A pre-endgame asked for a position it cannot search (bag empty or above the cut-off,
    the mover's rack unknown, more tiles than the set holds)."""


@dataclass
class PegRow:
    """One candidate: ``move``; ``wins``/``draws``/``losses``: probabilities over the draws
    (sum 1); ``spread``: expected spread at the end of the game (points, the mover's view);
    ``method``: ``endgame`` (every draw's endgame solved), ``endgame*`` (some not exact),
    ``1-ply`` (the opponent's top-scoring reply only); ``draws_n``: distinct draws."""

    move: object
    wins: float
    draws: float
    losses: float
    spread: float
    method: str
    draws_n: int
    exact_share: float = 1.0

    @property
    def win_prob(self) -> float:
        """Wins plus half the draws (probability)."""
        return self.wins + 0.5 * self.draws


@dataclass
class PegResult:
    """Outcome: ``rows`` ranked (best first), ``bag_size``, ``seconds``, ``note`` (the
    cut-offs that applied, empty when none)."""

    rows: list
    bag_size: int
    seconds: float
    note: str = ""
    move: object = field(default=None)


def weighted_draws(counts: np.ndarray, k: int):
    """Every multiset of ``k`` tiles drawn from the count vector ``counts`` with its number
    of ways (product of binomials): yields ``(draw, ways)``, draw a count vector like
    ``counts``. Divide ``ways`` by C(counts.sum(), k) for the probability."""
    kinds = [t for t in range(len(counts)) if counts[t] > 0]
    cur = np.zeros(len(counts), np.int64)

    def rec(j, left, ways):
        if left == 0:
            yield cur.copy(), ways
            return
        if j == len(kinds):
            return
        t = kinds[j]
        rest = sum(int(counts[u]) for u in kinds[j + 1:])
        for c in range(min(int(counts[t]), left), -1, -1):
            if left - c > rest:
                break
            cur[t] = c
            yield from rec(j + 1, left - c, ways * math.comb(int(counts[t]), c))
        cur[t] = 0

    yield from rec(0, k, 1)


def draw_ratios(unseen: np.ndarray, draws: list, leaves: np.ndarray, posterior: np.ndarray,
                prior: np.ndarray) -> np.ndarray:
    """``r(D)`` of the module docstring for each draw: ``unseen`` (L+1,) counts, ``draws`` a
    list of (L+1,) count vectors of one size ``k``, ``leaves`` (n, L+1) the leaves the
    inference considered, ``posterior`` and ``prior`` (n,) their weights. Returns (len(draws),)
    float64; 1 for a draw that no leave considered allows (nothing said about it). Raises
    PegError for weights that are not one per leave, or negative."""
    U = np.asarray(unseen, np.int64)
    L = np.asarray(leaves, np.int64).reshape(-1, len(U))
    pi, rho = np.asarray(posterior, np.float64), np.asarray(prior, np.float64)
    if len(pi) != len(L) or len(rho) != len(L) or (pi < 0).any() or (rho < 0).any():
        raise PegError(f"draw weights: {len(L)} leaves with {len(pi)} posterior and {len(rho)} prior weights "
                       f"(expected one non-negative weight each)")
    rest = U[None, :] - L                      # the unseen tiles less each leave: bag + their draw
    ok = (rest >= 0).all(axis=1)
    out = np.ones(len(draws))
    for i, D in enumerate(draws):
        D = np.asarray(D, np.int64)
        k = int(D.sum())
        num = den = 0.0
        for j in np.flatnonzero(ok & (rest >= D[None, :]).all(axis=1)):
            p = math.prod(math.comb(int(a), int(d)) for a, d in zip(rest[j], D) if d) / math.comb(int(rest[j].sum()), k)
            num += pi[j] * p
            den += rho[j] * p
        if den > 0:
            out[i] = num / den
    return out


def _likeliest(draws, cap: int):
    """At most ``cap`` of ``draws`` (``(draw, ways)`` pairs), the likeliest first, with the
    total of the kept ways (so ``ways / total`` are the reweighted probabilities) and whether
    any draw was left out."""
    allr = sorted(draws, key=lambda x: -x[1])
    kept = allr[:cap]
    return kept, sum(w for _, w in kept), len(allr) > cap


def _record_key(r) -> bytes:
    """A MOVE_DTYPE record's identity: its fields' bytes, not the record's, whose alignment
    padding holds whatever the buffer held (the same move ranked by the evaluator and
    listed by Position.moves differed there, and was shown twice)."""
    return b"".join(r[f].tobytes() for f in r.dtype.names)


class PegSearch:
    """Pre-endgame search for one pack (see the module docstring). Parameters: ``top``
    (evaluator candidates), ``empty_top`` (extra bag-emptying placements, best scores
    first), ``evaluator`` (name for :func:`heuri.evaluate.make_evaluator`; default
    :data:`heuri.DEFAULT_ENGINE`), ``evaluator_options`` (its keywords, e.g.
    ``{"opponent": 1.5}``), ``endgame_limits`` (keywords of
    :class:`heuri.endgame.EndgameSearch` for each draw), ``max_bag``, ``max_draws``, ``max_replies`` (see the module docstring)."""

    def __init__(self, pack, top: int = 5, empty_top: int = 5, evaluator: str = DEFAULT_ENGINE,
                 endgame_limits: dict | None = None, max_bag: int = 7, max_draws: int = 40,
                 max_replies: int = 6, evaluator_options: dict | None = None):
        from .endgame import EndgameSearch
        from ..eval.evaluate import make_evaluator

        self.pack = pack
        self.spec = pack.spec
        self.top = top
        self.empty_top = empty_top
        self.max_bag = max_bag
        self.max_draws = max_draws
        self.max_replies = max_replies
        self.evaluator = make_evaluator(pack, evaluator, **(evaluator_options or {}))
        self.limits = endgame_limits or {"max_generations": 30, "max_nodes": 3000}
        self.solver = EndgameSearch(pack, **self.limits)
        self.values = np.asarray(self.spec.value_vector(), dtype=np.int64)
        self._inference = None  # the search's: what the opponent kept (search's argument)

    def _check(self, position):
        from .endgame import check_tiles

        try:
            check_tiles(position)
        except HeuriError as e:
            raise PegError(str(e)) from None
        b = position.bag_size
        if b == 0:
            raise PegError("pre-endgame search needs tiles in the bag; the bag is empty (use the endgame search)")
        if b > self.max_bag:
            raise PegError(f"pre-endgame search takes 1 to {self.max_bag} tiles in the bag; the bag holds {b}")
        if position.hidden[position.to_move]:
            raise PegError("pre-endgame search needs the rack of the player to move")
        if position.over:
            raise PegError("the game is over in this position; nothing to search")

    def candidates(self, position):
        """Candidate moves: the evaluator's top ``top`` and the ``empty_top`` top-scoring
        placements that empty the bag (MOVE_DTYPE records, no repeats)."""
        ranked = self.evaluator.rank(position)
        recs = list(ranked.moves[:self.top])
        allm = position.moves(self.pack)
        b = position.bag_size
        empt = allm[(allm["kind"] == 0) & (allm["n_tiles"] >= b)]
        empt = empt[np.argsort(-empt["score"].astype(np.int64), kind="stable")][:self.empty_top]
        seen = {_record_key(r) for r in recs}
        for r in empt:
            if _record_key(r) not in seen:
                recs.append(r)
                seen.add(_record_key(r))
        return recs

    def search(self, position, inference=None) -> PegResult:
        """Rank the candidates of ``position`` (1 to ``max_bag`` tiles in the bag, the
        mover's rack known; the opponent's rack may be unknown: it is the unseen tiles
        minus the bag). ``inference``: what the opponent's last move says they kept (a
        :class:`heuri.search.inference.LeaveInference`, or None for the uniform split); it
        weighs the draws (module docstring). Raises PegError."""
        from ..core.move import Move

        t0 = time.perf_counter()
        self._check(position)
        self._inference = inference
        spec = self.spec
        b = position.bag_size
        me = position.to_move
        U = position.unseen()  # the bag and the opponent's rack
        nU = int(U.sum())
        spread0 = int(position.scores[me]) - int(position.scores[1 - me])
        rows = []
        notes = set()
        for rec in self.candidates(position):
            mv = Move.from_record(rec, spec)
            rows.append(self._candidate(position, mv, rec, U, nU, b, spread0, notes))
        rows.sort(key=lambda r: (-r.win_prob, -r.spread))
        return PegResult(rows=rows, bag_size=b, seconds=time.perf_counter() - t0, note="; ".join(sorted(notes)),
                         move=rows[0].move if rows else None)

    def _candidate(self, position, mv, rec, U, nU, b, spread0, notes) -> PegRow:
        import dataclasses

        from ..core.move import Placement

        kind = int(rec["kind"])
        n = int(rec["n_tiles"]) if kind == 0 else 0
        score = int(rec["score"]) if kind == 0 else 0
        leave = position.rack - mv.rack_counts(self.spec)
        board = position.board.play(mv) if isinstance(mv, Placement) else position.board
        k = min(n, b) if kind == 0 else (min(int(rec["n_tiles"]), b) if kind == 1 else 0)
        draws = list(weighted_draws(U, k))
        inf = self._inference
        if inf is not None and k > 0:
            r = draw_ratios(U, [D for D, _ in draws], inf.leaves, inf.posterior, inf.prior)
            draws = [(D, ways * float(x)) for (D, ways), x in zip(draws, r) if x > 0]
        draws, total, cut = _likeliest(draws, self.max_draws)
        if cut:
            notes.add(f"over {self.max_draws} distinct draws: the {self.max_draws} likeliest, reweighted")
        w = d = lo = es = 0.0
        exact_w = 0.0
        solver = self.solver
        empties = kind == 0 and n >= b
        scoreless = 0 if score else position.scoreless + 1
        for D, ways in draws:
            p = ways / total
            if empties:
                rack_me = leave + D
                opp = U - D
                pos2 = dataclasses.replace(position, board=board, racks=self._racks(position, rack_me, opp),
                                           bag=np.zeros_like(U), to_move=1 - position.to_move,
                                           scoreless=scoreless, hidden=(0, 0), scores=position.scores)
                res = solver.search(pos2)
                if res is None:
                    val = int(rack_me @ self.values) - int(opp @ self.values)  # horizon: racks only
                    ex = False
                else:
                    val, ex = -res.value, res.exact
                line = score + val
            else:
                # leaves tiles in the bag: the opponent's top-scoring reply (1-ply estimate)
                line, ex = self._one_ply(position, board, leave, D, U, b - k, score, kind == 1, mv), False
            final = spread0 + line
            w += p * (final > 0)
            d += p * (final == 0)
            lo += p * (final < 0)
            es += p * final
            exact_w += p * ex
        method = "endgame" if empties and exact_w > 1 - 1e-9 else ("endgame*" if empties else "1-ply")
        if cut:
            method += "~"
        return PegRow(mv, w, d, lo, es, method, len(draws), exact_w)

    def _racks(self, position, rack_me, opp):
        racks = [None, None]
        racks[position.to_move] = rack_me.astype(np.int64)
        racks[1 - position.to_move] = opp.astype(np.int64)
        return tuple(racks)

    def _one_ply(self, position, board, leave, D, U, bag_left, score, exchange, mv) -> int:
        """Mean over the bag's possible contents of: my score − the opponent's top score
        + the horizon value of the racks (mine count against me)."""
        from ..core.movegen import generate

        rest = U - D  # the bag's other tiles and the opponent's rack (exchanged tiles are in neither)
        rack_me = leave + D
        acc = 0.0
        bags, total, _ = _likeliest(weighted_draws(rest, bag_left), self.max_replies)
        for R, ways in bags:
            opp = rest - R
            recs = generate(self.pack, board.letters, board.blanks, opp, bag_size=bag_left, exchanges=False)
            s_opp = int(recs["score"].max()) if len(recs) else 0  # the pass scores 0
            acc += ways / total * (score - s_opp + int(opp @ self.values) - int(rack_me @ self.values))
        return int(round(acc))
