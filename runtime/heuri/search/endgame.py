"""Exact endgame solver: with the bag empty both racks are known, so the rest of the game is
a two-player game of perfect information; solve it.

Why (docs/method.md): with an empty bag Heuri's e(L) is 0 for every leave, so
every heuri evaluator would play greedily and throw away games that are won by going out in
two moves, by blocking, or by not getting stuck with a high tile.

Method (the scheme of Macondo's and MAGPIE's solvers). :meth:`EndgameSearch.search` runs it
compiled (:mod:`heuri.endgame_core`: every node in numba, the move generator's compiled walk
called from inside, the tables as preallocated arrays); :meth:`EndgameSearch.search_py` is
the same search in Python around the compiled move generator (the reference the tests compare
with; :meth:`EndgameSearch.analyse` uses it). A width limit (the match players' second,
width-limited step) runs compiled too.

The code: this module is the API (:class:`EndgameSearch`, :func:`time_budget`, the limits);
:mod:`heuri.search.endgame_reference` holds the Python search and
:mod:`heuri.search.endgame_compiled` the driver of the compiled one
(:mod:`heuri.search.endgame_core`, with the move lists of
:mod:`heuri.search.endgame_kernels`); :mod:`heuri.search.endgame_base` what they share
(the result and error types, :func:`~heuri.search.endgame_base.child_order`). Both searches:

- negamax with alpha-beta pruning (Knuth & Moore, "An analysis of alpha-beta pruning",
  Artificial Intelligence 6, 1975) over every placement and the pass of each position;
- a transposition table keyed by a Zobrist hash (Zobrist 1970: one random 64-bit word per
  (square, letter, blank?), XORed in as tiles are placed) of the board, with the rack of the
  player to move, the rack of the other player and the scoreless-turn count; the value of a
  position from the mover's point of view depends only on these, so the side to move is the
  "mover/other" order of the racks;
- iterative deepening on the number of *placements* (passes do not count: a run of passes
  is bounded by the scoreless-turn limit, so every line ends), the best move of the previous
  iteration (stored in the table) tried first, then the top-scoring move that goes out (the
  only way out worth trying), then by score;
- the move list of a (board, rack) is generated once (the move generator's compiled walk,
  with the board's cross-checks kept by board hash: :class:`heuri.endgame_kernels.FastGen`)
  and kept with everything the search needs per move (score, leave, hash change), so deeper
  iterations and transpositions reuse it; the board is updated in place and restored. A
  node without a table entry tries the pass first: it keeps the board, so its subtree
  mostly reuses move lists already made and gives an alpha bound cheaply;
- most nodes need no move list of their own (the scheme of Macondo's and MAGPIE's reuse of
  the parent's moves): a placement from the player's previous list on the line (two plies
  up; for the opponent's first turn, its list on the root board) is still legal, with the
  same score, when no tile placed since touches its footprint and the rack still holds its
  tiles (:func:`heuri.endgame_kernels.stale_best`). At a node met for the first time the
  best such placement is tried first; when it refutes the move that led there (value ≥
  beta) the node is cut without calling the move generator. Values are unchanged: a cut
  needs only one legal move worth beta, and a node that is not cut makes its full list;
- principal-variation search (Marsland & Campbell, "Parallel search of strongly ordered game
  trees", Computing Surveys 14(4), 1982): after a node's first child, each child is searched
  with a null window (alpha, alpha + 1) and again with the full window only when it lands
  inside it. The top-scoring way out is tried first (it ends the game: a free value, and a
  proven cut when it reaches beta);
- a second table keeps, per position, the bounds proven to the end of the game (a way out
  reaching beta, a subtree with no horizon): a later iteration may overwrite the node's
  depth-limited entry with a horizon estimate, but never these bounds, which cut or settle
  the node at any depth.

The value of a line is the spread it adds, from the point of view of the player to move, up
to the end of the game (the spec's rules, docs/rules.md):

- a placement that empties the mover's rack ends the game; the spread moves by its score
  plus twice the opponent's rack under both end rules (``double``: +2R to the mover;
  ``transfer``: +R to the mover and −R to the opponent);
- when the scoreless turns (passes and zero-point placements) reach
  ``spec.max_scoreless_turns`` the game ends and each player loses their own rack: a
  player who cannot go out (the stuck-tile case) passes, and the search sees both the
  passes and the penalties;
- at the depth limit (the horizon) a line that has not ended is valued as its spread plus
  the opponent's rack minus the mover's. The result is ``exact`` only when the last
  iteration reached no horizon: every line was searched to the end of the game.

Limits: ``max_nodes`` visited positions, ``max_generations`` move-generator calls and
``time_limit`` seconds. Nodes and generations are counts, so a search under them gives the
same answer every time (a match replays from its seed); a time limit does not. When a limit
stops an iteration, the result is the best move of the last completed iteration, marked not
exact; when even the first iteration does not fit, :meth:`EndgameSearch.search` returns None
(the caller plays its fallback: greedy). ``width`` (None: all) keeps only the best-scoring
placements of a position (plus the moves that go out and the pass); a cut marks the result
not exact.

>>> EndgameSearch.__init__.__defaults__
(1000000, 100000, None, None, 30)
"""
from __future__ import annotations

import time

import numpy as np

from .endgame_base import EndgameError, EndgameResult, OutOfBudget, RankedMove, check_tiles, rack_value
from .endgame_compiled import CompiledSearch
from .endgame_kernels import FastGen
from .endgame_reference import ReferenceSearch

#: positions and move lists a second of search that a time limit buys (:func:`time_budget`),
#: for the Python search (:meth:`EndgameSearch.search_py`, which :meth:`EndgameSearch.analyse`
#: and ``heuri endgame`` use) and the compiled one (:meth:`EndgameSearch.search`): about twice
#: the pace each keeps on an idle reference machine (1,000,000 positions in about 10 s and
#: 3 s), so that on a timed search the clock, not a count, is the limit that binds
PACE = {"python": (200_000, 20_000), "compiled": (700_000, 70_000)}
#: the most nodes and move lists :func:`time_budget` gives: the Python search's tables and
#: move lists grow with the positions it visits (measured: 300,000 positions of a 14-tile
#: Spanish endgame, +382 MB, about 1.3 KB each), so a long time limit stops at 2,000,000
#: positions (about 2.6 GB) and says so; the compiled search's arrays are sized with fixed
#: caps whatever the counts
BUDGET_CAP = {"python": (2_000_000, 200_000), "compiled": (10 ** 12, 10 ** 11)}
#: the limits of an untimed search (:class:`EndgameSearch`'s defaults)
DEFAULT_NODES, DEFAULT_GENERATIONS = 1_000_000, 100_000


def time_budget(seconds: float | None, search: str = "python") -> dict:
    """The node and move-list limits (:class:`EndgameSearch` keywords ``max_nodes`` and
    ``max_generations``) for a search of ``seconds`` (None: until stopped): the search's
    pace (:data:`PACE`) times the seconds, never below the untimed defaults and never above
    :data:`BUDGET_CAP`. ``search``: "python" or "compiled". Raises ValueError for a time
    that is not a finite positive number.

    >>> time_budget(8)
    {'max_nodes': 1600000, 'max_generations': 160000}
    >>> time_budget(3600)
    {'max_nodes': 2000000, 'max_generations': 200000}
    >>> time_budget(1, "compiled")
    {'max_nodes': 1000000, 'max_generations': 100000}
    """
    cap_n, cap_g = BUDGET_CAP[search]
    if seconds is None:
        return {"max_nodes": cap_n, "max_generations": cap_g}
    if not (isinstance(seconds, (int, float)) and 0 < seconds < float("inf")):
        raise EndgameError(f"endgame search: time limit {seconds!r}: give a finite number of seconds above 0")
    rate_n, rate_g = PACE[search]
    return {"max_nodes": int(min(cap_n, max(DEFAULT_NODES, rate_n * seconds))),
            "max_generations": int(min(cap_g, max(DEFAULT_GENERATIONS, rate_g * seconds)))}


class EndgameSearch(ReferenceSearch, CompiledSearch):
    """Exact endgame solver for one language pack (see the module docstring).

    Parameters: ``pack`` (LanguagePack); ``max_nodes`` (positions visited per search);
    ``max_generations`` (move-generator calls per search); ``time_limit`` (seconds, None:
    none); ``width`` (placements kept per position, best scores first; None = all, the
    exact search); ``max_depth`` (placements along a line).

    :meth:`search` returns the best move; :meth:`analyse` also values the other root moves.
    Not thread-safe (one search at a time per object).
    """

    def __init__(self, pack, max_nodes: int = DEFAULT_NODES, max_generations: int = DEFAULT_GENERATIONS,
                 time_limit: float | None = None, width: int | None = None, max_depth: int = 30):
        from ..core.bounds import check_float, check_int

        # limits come from users (heuri endgame, SIU go, engine names): whole, finite, in range
        max_nodes = check_int(max_nodes, "endgame search: max_nodes", 0, BUDGET_CAP["compiled"][0])
        max_generations = check_int(max_generations, "endgame search: max_generations", 0,
                                    BUDGET_CAP["compiled"][1])
        max_depth = check_int(max_depth, "endgame search: max_depth", 1, 1000)
        if time_limit is not None:
            time_limit = check_float(time_limit, "endgame search: time_limit", 0, 10 ** 7, lo_open=True)
        if width is not None:
            width = check_int(width, "endgame search: width", 1, 10 ** 6)
        self.pack = pack
        self.spec = pack.spec
        self.values = np.asarray(self.spec.value_vector(), dtype=np.int64)
        self.L = self.spec.n_letters
        self.N = self.spec.board_size
        self.max_nodes = max_nodes
        self.max_generations = max_generations
        self.time_limit = time_limit
        self.width = width
        self.max_depth = max_depth
        self.max_scoreless = int(self.spec.max_scoreless_turns)
        rng = np.random.default_rng(0x5EED)
        self.zboard = rng.integers(0, 2 ** 63, size=self.N * self.N * self.L * 2, dtype=np.int64).astype(np.uint64)
        self.zboard ^= rng.integers(0, 2, size=self.zboard.shape, dtype=np.int64).astype(np.uint64) << np.uint64(63)
        self.zrack = rng.integers(0, 2 ** 63, size=(self.L + 1, self.spec.rack_size + 1),
                                  dtype=np.int64).astype(np.uint64)
        self._zs = [int(x) for x in rng.integers(0, 2 ** 62, size=64)]
        self._stop = None  # a callable: True asks the search to stop (SIU ``stop``)
        self._rules = self.spec
        self._gen = FastGen(pack)
        self._reset()
        self.compiled = True  # search() uses the compiled search (heuri.endgame_core) when it can
        self._core = None

    def _reset(self):
        self._tt: dict = {}
        self._pb: dict = {}  # (lower, upper) bounds proven to the end of the game, by table key
        self._ml: dict = {}
        self._ml_moves = 0
        self._nodes = 0
        self._gens = 0
        self._stale_cuts = 0
        self._stopped_by = ""

    def _rack_hash(self, rack: np.ndarray) -> int:
        return int(np.bitwise_xor.reduce(self.zrack[np.arange(self.L + 1), rack]))

    def _board_hash(self, letters: np.ndarray, blanks: np.ndarray) -> int:
        flat = np.flatnonzero(letters.ravel() >= 0)
        if len(flat) == 0:
            return 0
        zi = (flat * self.L + letters.ravel()[flat].astype(np.int64)) * 2 + blanks.ravel()[flat]
        return int(np.bitwise_xor.reduce(self.zboard[zi]))

    def _setup(self, position):
        check_tiles(position)
        if position.bag_size != 0:
            raise EndgameError(f"endgame search needs an empty bag; the bag holds {position.bag_size} tiles")
        if any(position.hidden):
            raise EndgameError("endgame search needs both racks; the opponent's rack is unknown")
        if position.n_players != 2:
            raise EndgameError(f"endgame search is for two players; this game has {position.n_players}")
        if position.over:
            raise EndgameError("the game is over in this position; nothing to search")
        # the position's rules (a CGP's bb and mcnz) over the pack's
        self._rules = position.spec
        self._gen.rules = position.spec
        self.max_scoreless = int(position.spec.max_scoreless_turns)
        board = position.board
        self._letters = np.ascontiguousarray(board.letters, dtype=np.int8).copy()
        self._blanks = np.ascontiguousarray(board.blanks, dtype=bool).copy()
        # the line ply at which each tile was placed (-1: the position's own tiles); see
        # heuri.endgame_kernels.stale_best
        self._stamp = np.full(self._letters.size, -1, np.int64)
        me = np.asarray(position.rack, dtype=np.int64).copy()
        opp = np.asarray(position.unseen(), dtype=np.int64).copy()  # bag empty: the opponent's rack
        self._reset()
        self._deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        bh = self._board_hash(self._letters, self._blanks)
        return bh, me, opp

    def _root_args(self, bh, me, opp, sl):
        return (bh, me, self._rack_hash(me), rack_value(self.values, me), opp, self._rack_hash(opp),
                rack_value(self.values, opp), sl)

    def _moves_of(self, recs) -> list:
        from ..core.move import Move, Pass

        return [Pass() if r is None else Move.from_record(r, self.spec) for r in recs]

    def search(self, position, on_depth=None) -> EndgameResult | None:
        """Solve ``position`` (a :class:`heuri.game.Position` with an empty bag) for the
        player to move: the compiled search (:mod:`heuri.endgame_core`) when it can run (the
        move generator's compiled internals usable; a width limit too), else the
        Python one (:meth:`search_py`; the same values). Returns an :class:`EndgameResult`,
        or None when the first iteration does not fit the limits (play the fallback).
        ``on_depth(value, depth, exact)`` is called after each completed iteration. Raises
        EndgameError when the bag is not empty, a rack is unknown, or the racks and board
        need more tiles than the set holds."""
        if self.compiled and self._gen.fast:
            return self._search_core(position, on_depth)
        return self.search_py(position, on_depth)

    def analyse(self, position, top: int = 10) -> tuple[EndgameResult | None, list[RankedMove]]:
        """Solve ``position`` and value its ``top`` most promising root moves (the best
        move, then the search order: the top-scoring way out, placements by score, the
        pass), each with a full window at the depth of the solution, so each value is exact
        when that depth proved it. Returns ``(result, rows)``, the rows ordered by value
        (best first; ties in search order). Raises EndgameError as :meth:`search`."""
        res = self.search_py(position)
        if res is None:
            return None, []
        bh, me, opp = self._setup_keep(position)
        args = self._root_args(bh, me, opp, int(position.scoreless))
        rows: list[RankedMove] = []
        with self._unlimited():
            ml = self._moves(args[0], args[1], args[2], True)
            first = self._root_first
            picks = [first] + [k for k in self._order(ml, -2) if k != first]
            for k in picks[:top]:
                try:
                    val, pr, nxt = self._child(args, ml, k, res.depth, 0, self._root_st_opp)
                except OutOfBudget:  # the table stops at the moves valued within the limits
                    break
                rec = None if k == -1 else ml.rec(k)
                line = [rec]
                if nxt is not None:
                    if k >= 0:
                        self._place(ml, k, 0)
                    try:
                        line += self._pv(nxt, (ml.score[k] if k >= 0 else 0) - val,
                                         res.depth - (1 if k >= 0 else 0), ply=1, st_me=self._root_st_opp,
                                         st_opp=(ml, 0))
                    finally:
                        if k >= 0:
                            self._unplace(ml, k)
                rows.append(RankedMove(self._moves_of([rec])[0], int(val), bool(pr and ml.full),
                                       self._moves_of(line)))
        rows.sort(key=lambda r: -r.value)
        return res, rows

    def _setup_keep(self, position):
        """The root's board and racks again, keeping the table and move lists of the last
        search (for :meth:`analyse`)."""
        tt, pb, ml, mm, nodes, gens = self._tt, self._pb, self._ml, self._ml_moves, self._nodes, self._gens
        out = self._setup(position)
        self._tt, self._pb, self._ml, self._ml_moves, self._nodes, self._gens = tt, pb, ml, mm, nodes, gens
        self._deadline = None
        return out
