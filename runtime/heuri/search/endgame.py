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
width-limited step) runs compiled too. Both:

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
to the end of the game (the spec's rules, ``../shared/RULES.md``):

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

import threading
import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from . import endgame_core as core
from .endgame_kernels import FastGen, build_order, stale_best
from ..core.errors import HeuriError

_INF = 10 ** 6
_PROVEN = 1000  # table depth of a value searched to the end of every line
_EXACT, _LOWER, _UPPER = 0, 1, 2
_MASK = (1 << 64) - 1


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


class EndgameError(HeuriError):
    """An endgame search was asked for a position it cannot search: tiles in the bag, an
    unknown rack, or racks and board that need more tiles than the set holds."""


class _OutOfBudget(Exception):
    """Raised inside the search when a node, generation or time limit is reached; its
    argument names the limit ("nodes", "move lists", "time", "stop")."""


@dataclass
class EndgameResult:
    """Outcome of a search.

    - ``move``: the chosen move (:class:`heuri.move.Move`);
    - ``value``: spread (points) the move adds from now to the end of the game for the
      player to move, against the best replies (the true minimax value when ``exact``,
      else the horizon estimate of the last completed iteration);
    - ``final_spread``: the mover's score minus the opponent's at the end of that line;
    - ``exact``: the last completed iteration reached the end of the game on every line
      and no width limit removed a move;
    - ``depth``: placements searched along a line in the last completed iteration;
      ``nodes``, ``generations``: positions visited and move-generator calls spent;
      ``seconds``: wall time; ``pv``: the principal variation (both players' moves, the
      chosen move first; to the end of the game when ``exact``);
    - ``stopped``: a limit stopped a deeper iteration; ``stopped_by``: which one ("nodes",
      "move lists", "time", "stop": SIU ``stop`` or its ``movetime``), "" when none did.
    """

    move: object
    value: int
    final_spread: int
    exact: bool
    depth: int
    nodes: int
    generations: int
    pv: list = field(default_factory=list)
    seconds: float = 0.0
    stopped: bool = False
    stopped_by: str = ""


@dataclass
class RankedMove:
    """One row of :meth:`EndgameSearch.analyse`: a root move, its value (spread to the end,
    points), whether that value is exact, and its principal variation (the move first)."""

    move: object
    value: int
    exact: bool
    pv: list


def check_tiles(position) -> None:
    """Raise EndgameError when the board and the racks of ``position`` need more of a tile
    than the tile set holds (the position cannot arise; searching it would be meaningless)."""
    spec = position.spec
    used = position.board.tile_counts() + sum(np.asarray(r, dtype=np.int64) for r in position.racks)
    over = np.flatnonzero(used > spec.distribution())
    if len(over):
        names = ", ".join("?" if t == spec.blank else spec.symbol(int(t)) for t in over)
        raise EndgameError(f"the board and racks need more tiles than the tile set holds ({names})")


def rack_value(values: np.ndarray, rack: np.ndarray) -> int:
    """Sum of face values of a count vector (points); ``values``: (L+1,) int64."""
    return int(np.dot(values, rack))


class _MoveList:
    """The placements of one rack on one board, ordered for the search (going out first,
    then score descending).

    Built in two steps, because most move lists are only read by the last ply before the
    horizon (:meth:`EndgameSearch._last_ply`, NumPy over the whole list): at once the arrays
    ``a_score``, ``a_out`` (empties the rack), ``a_leave`` (points left on the rack),
    ``a_zero`` (scores 0), in search order (``order`` into the generator's records ``raw``);
    on the first interior visit (:meth:`expand`) the per-move lists the search loop reads
    without NumPy calls: ``score``, ``out``, ``leave_val``, ``leave_hash`` (rack hash of the
    leave), ``dhash`` (board hash change), and the leaves ``lv`` and the flat squares /
    letters / blank flags of the new tiles (one compiled pass, :func:`_expand_kernel`)."""

    __slots__ = ("raw", "order", "rack", "score", "out", "leave_val", "leave_hash", "dhash", "flat", "lt", "bl",
                 "nn", "lv", "n", "full", "best_out", "a_score", "a_out", "a_leave", "a_zero", "expanded", "base", "n_lead")

    def __init__(self, recs, rack, solver):
        self.raw = recs
        self.rack = rack.copy()
        self.n = n = len(recs)
        self.full = True
        self.expanded = False
        self.order, self.a_score, self.a_out, self.a_leave = build_order(
            recs["score"], recs["n_tiles"], recs["length"], recs["tiles"], recs["new"], recs["blank"],
            int(rack.sum()), rack_value(solver.values, rack), solver.values)
        self.a_zero = self.a_score == 0
        self.best_out = 0 if n and self.a_out[0] else None  # the top-scoring way out
        self.base = None  # the search order without a table move (EndgameSearch._order)
        self.n_lead = int(self.a_out.sum())  # the ways out lead the order, then the rest by score

    def keep(self, k: int):
        """Keep only the first ``k`` moves of the order (a width limit)."""
        self.order = self.order[:k]
        self.n = k
        self.a_score, self.a_out = self.a_score[:k], self.a_out[:k]
        self.a_leave, self.a_zero = self.a_leave[:k], self.a_zero[:k]

    def expand(self, solver):
        """Compute the per-move lists of an interior node (once; :func:`_expand_kernel`)."""
        self.expanded = True
        raw, n = self.raw, self.n
        self.score = self.a_score.tolist()
        self.out = self.a_out.tolist()
        self.leave_val = self.a_leave.tolist()
        dh, lh, sq, lt, bl, nn, lv = _expand_kernel(
            self.order, raw["row"], raw["col"], raw["across"], raw["length"], raw["tiles"], raw["new"],
            raw["blank"], self.rack, solver.zboard, solver.zrack, solver.L, solver.N)
        self.dhash = dh.tolist()
        self.leave_hash = lh.tolist()
        self.flat, self.lt, self.bl, self.nn, self.lv = sq, lt, bl, nn.tolist(), lv

    def squares(self, i):
        """Flat squares, letters (int8) and blank flags of move ``i``'s new tiles."""
        k = self.nn[i]
        return self.flat[i, :k], self.lt[i, :k], self.bl[i, :k]

    def rec(self, i):
        """The MOVE_DTYPE record of move ``i`` (search order)."""
        return self.raw[self.order[i]]


@njit(cache=True)
def _expand_kernel(order, row, col, across, length, tiles, new, blank, rack, zboard, zrack, L, N):
    """Per move (in ``order``): the board hash change (XOR of the Zobrist words of the new
    tiles), the rack hash of the leave, the new tiles' flat squares / letters / blank flags
    (compacted to the left, ``nn`` of them) and the leave (count vector)."""
    n = order.shape[0]
    dh = np.zeros(n, np.uint64)
    lh = np.zeros(n, np.uint64)
    sq = np.zeros((n, 15), np.int64)
    lt = np.zeros((n, 15), np.int8)
    bl = np.zeros((n, 15), np.bool_)
    nn = np.zeros(n, np.int64)
    lv = np.zeros((n, L + 1), np.int64)
    for k in range(n):
        m = order[k]
        for t in range(L + 1):
            lv[k, t] = rack[t]
        h = np.uint64(0)
        c = 0
        for j in range(length[m]):
            if not new[m, j]:
                continue
            r = row[m] + (0 if across[m] else j)
            cc = col[m] + (j if across[m] else 0)
            f = r * N + cc
            x = tiles[m, j]
            b = blank[m, j]
            h ^= zboard[(f * L + x) * 2 + (1 if b else 0)]
            sq[k, c] = f
            lt[k, c] = x
            bl[k, c] = b
            c += 1
            lv[k, L if b else x] -= 1
        nn[k] = c
        dh[k] = h
        g = np.uint64(0)
        for t in range(L + 1):
            g ^= zrack[t, lv[k, t]]
        lh[k] = g
    return dh, lh, sq, lt, bl, nn, lv


class _Watch:
    """Runs a compiled search call; with a deadline or a stop callable, on a worker thread
    (the kernels release the interpreter lock) while this thread sets the stop flag
    ``flag[0]`` when the deadline passes or ``stop()`` says so."""

    def __init__(self, flag, deadline, stop):
        self.flag, self.deadline, self.stop = flag, deadline, stop
        self.why = ""  # "time" or "stop": what set the flag last

    def __call__(self, fn, *args):
        self.flag[0] = 0
        self.why = ""
        if self.deadline is None and self.stop is None:
            return fn(*args)
        out: list = []

        def work():
            try:
                out.append((True, fn(*args)))
            except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
                out.append((False, e))

        th = threading.Thread(target=work, daemon=True)
        th.start()
        while th.is_alive():
            th.join(0.002)
            if self.deadline is not None and time.perf_counter() > self.deadline:
                self.flag[0], self.why = 1, "time"
            elif self.stop is not None and self.stop():
                self.flag[0], self.why = 1, "stop"
        ok, val = out[0]
        if not ok:
            raise val
        return val


def _child_order(base: list, best_out, tt_move: int) -> list:
    """A node's children in search order, for both searches: ``base`` (the top-scoring way
    out ``best_out`` first when there is one, None otherwise, then the placements that do
    not go out, by score), led by the table's move ``tt_move`` (-1 the pass, -2 none) and
    ending with the pass unless it leads.

    >>> _child_order([4, 0, 1, 2], 4, 1)
    [4, 1, 0, 2, -1]
    >>> _child_order([0, 1, 2], None, -1)
    [-1, 0, 1, 2]
    """
    if tt_move == -2 or (base and tt_move == base[0]):
        return base + [-1]
    head = [base[0], tt_move] if best_out is not None else [tt_move]
    return head + [k for k in base if k != tt_move and k != best_out] + ([-1] if tt_move != -1 else [])


def _pvs(child, alpha, beta, null_first: bool):
    """A child's value for the player to move and whether it is proven, by principal-variation
    search: ``child(a, b)`` searches it in the window (a, b) of the player to move and returns
    (value, proven). After a node's first child (``null_first``) the null window
    (alpha, alpha + 1) comes first, and the full window only when the value lands inside
    (alpha, beta)."""
    if null_first and beta > alpha + 1:
        val, pr = child(alpha, alpha + 1)
        if not alpha < val < beta:
            return val, pr
    return child(alpha, beta)


class EndgameSearch:
    """Exact endgame solver for one language pack (see the module docstring).

    Parameters: ``pack`` (LanguagePack); ``max_nodes`` (positions visited per search);
    ``max_generations`` (move-generator calls per search); ``time_limit`` (seconds, None:
    none); ``width`` (placements kept per position, best scores first; None = all, the
    exact search); ``max_depth`` (placements along a line).

    :meth:`search` returns the best move; :meth:`analyse` also values the other root moves.
    Not thread-safe (one search at a time per object).
    """

    #: the compiled search's arena of move lists (moves): 400 a move list of the limit, within
    #: these bounds; when it fills, an iteration forgets the lists and starts again once
    ARENA_MIN, ARENA_MAX = 262_144, 4_000_000

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

    # -- hashing and move lists ---------------------------------------------------------
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

    def _moves(self, bh: int, rack: np.ndarray, rh: int, expand: bool = False) -> _MoveList:
        """The ordered placements of ``rack`` on the current board (cached by hash);
        ``expand``: with the per-move lists (:meth:`_MoveList.expand`)."""
        key = (bh, rh)
        ml = self._ml.get(key)
        if ml is not None:
            if expand and not ml.expanded:
                ml.expand(self)
            return ml
        if self._gens >= self.max_generations:
            raise _OutOfBudget("move lists")
        if self._deadline is not None and time.perf_counter() > self._deadline:
            raise _OutOfBudget("time")
        self._gens += 1
        # placements only (an exchange needs tiles in the bag; the pass is the search's own
        # child); the cross-checks of the board are kept by its hash
        recs = self._gen.generate(self._letters, self._blanks, rack, bh)
        ml = _MoveList(recs, rack, self)
        if self.width is not None and ml.n > self.width:
            keep = max(self.width, int(ml.a_out.sum()))
            ml.full = keep >= ml.n
            ml.keep(keep)
        if self._ml_moves > 3_000_000:  # bound the memory (about 1 KiB a move)
            self._ml.clear()
            self._ml_moves = 0
        self._ml[key] = ml
        self._ml_moves += ml.n
        if expand:
            ml.expand(self)
        return ml

    def _prove(self, key, v, flag):
        """Record a value proven to the end of the game (``flag``: exact, lower or upper
        bound) in the proven-bounds table; the depth-limited entry of the same node may
        later be replaced by a horizon estimate, these bounds are not."""
        pb = self._pb.get(key)
        lo, hi = pb if pb is not None else (-_INF, _INF)
        if flag != _UPPER and v > lo:
            lo = v
        if flag != _LOWER and v < hi:
            hi = v
        self._pb[key] = (lo, hi)

    def _tick(self):
        self._nodes += 1
        if self._nodes > self.max_nodes:
            raise _OutOfBudget("nodes")
        if (self._nodes & 255) == 0:
            if self._deadline is not None and time.perf_counter() > self._deadline:
                raise _OutOfBudget("time")
            if self._stop is not None and self._stop():
                raise _OutOfBudget("stop")

    # -- search ---------------------------------------------------------------------------
    def _negamax(self, bh, me, rme, vme, opp, ropp, vopp, sl, depth, alpha, beta, ply=0, st_me=None,
                 st_opp=None):
        """Value of the position for the player to move (rack ``me``, hash ``rme``, points
        ``vme``) and whether it was proven (no line reached the horizon). ``sl``: scoreless
        turns so far; ``depth``: placements left before the horizon; ``ply``: turns from
        the search's start (the stamp of the tiles placed here); ``st_me`` / ``st_opp``:
        the mover's / the opponent's latest move list on this line and its ply
        ``(list, ply)`` or None (:func:`heuri.endgame_kernels.stale_best`)."""
        self._tick()
        if depth <= 0:
            return vopp - vme, False
        key = (bh, rme, ropp, sl)
        pb = self._pb.get(key)
        if pb is not None:  # proven bounds: kept when a later search overwrites the entry
            if pb[0] >= beta or pb[0] == pb[1]:
                return pb[0], True
            if pb[1] <= alpha:
                return pb[1], True
        ent = self._tt.get(key)
        # no table move: the pass first. It keeps the board, so its subtree reuses move lists
        # already generated here and gives a bound cheaply (measured: deeper iterations
        # within the same generation budget than trying placements first)
        tt_move = -1
        a0 = alpha
        if ent is not None:
            v, flag, d, tt_move = ent
            if d >= depth:
                proven = d >= _PROVEN
                if flag == _EXACT:
                    return v, proven
                if flag == _LOWER and v >= beta:
                    return v, proven
                if flag == _UPPER and v <= alpha:
                    return v, proven
        if depth == 1 and st_me is not None and (bh, rme) not in self._ml:
            # a placement of the mover's earlier list that this board still allows may
            # already refute the opponent's move: then no move list is needed here
            sml, since = st_me
            raw = sml.raw
            b, _, bt, _ = stale_best(sml.order, raw["row"], raw["col"], raw["across"], raw["length"], raw["tiles"],
                                     raw["new"], raw["blank"], raw["score"], self._letters.ravel(), self._stamp,
                                     since, me, int(me.sum()), vme, self.values, self.L, self.N, vopp,
                                     sl + 1 >= self.max_scoreless, sml.n_lead, beta)
            if bt >= beta:  # a way out (or a game-ending zero): a proven lower bound
                self._stale_cuts += 1
                self._tt[key] = (bt, _LOWER, _PROVEN, -2)
                self._prove(key, bt, _LOWER)
                return bt, True
            if b >= beta:
                self._stale_cuts += 1
                self._tt[key] = (b, _LOWER, 1, -2)
                return b, False
        elif depth > 1 and st_me is not None and (ent is None or ent[3] == -2) and (bh, rme) not in self._ml:
            # an interior node met for the first time: the best placement of the mover's
            # earlier list that this board still allows is searched before any move list is
            # made here; when it refutes the opponent's move, none is needed
            got = self._stale_first(bh, me, rme, vme, opp, ropp, vopp, sl, depth, alpha, beta, ply, st_me, st_opp)
            if got is not None:
                val, pr = got
                self._stale_cuts += 1
                self._tt[key] = (val, _LOWER, _PROVEN if pr else depth, -2)
                if pr:
                    self._prove(key, val, _LOWER)
                return val, pr
        ml = self._moves(bh, me, rme)
        if depth == 1:
            return self._last_ply(key, ml, bh, me, rme, vme, opp, ropp, vopp, sl, alpha, beta, ply, st_opp)
        if not ml.expanded:
            ml.expand(self)
        proven = ml.full
        best = -_INF
        best_i = -2
        best_proven = True
        sl1 = sl + 1
        ends = sl1 >= self.max_scoreless
        # a placement that goes out ends the game: the top-scoring one is the only one worth
        # trying (every other way out scores less and also ends the game)
        order = self._order(ml, tt_move)
        letters = self._letters.ravel()
        blanks = self._blanks.ravel()
        stamp = self._stamp
        mine = (ml, ply)
        ply1 = ply + 1
        for i in order:
            if i == -1:  # the pass
                if ends:
                    val, pr = vopp - vme, True
                else:
                    def child(a, b):  # the pass: the opponent to move on the same board
                        v, p = self._negamax(bh, opp, ropp, vopp, me, rme, vme, sl1, depth, -b, -a, ply1,
                                             st_opp, mine)
                        return -v, p
                    val, pr = _pvs(child, alpha, beta, best > -_INF)
            else:
                s = ml.score[i]
                if ml.out[i]:
                    val, pr = s + 2 * vopp, True
                else:
                    s_l = sl1 if s == 0 else 0
                    lv = ml.leave_val[i]
                    if s_l >= self.max_scoreless:
                        val, pr = s - lv + vopp, True
                    else:
                        sq, lt, bl = ml.squares(i)
                        letters[sq] = lt
                        blanks[sq] = bl
                        stamp[sq] = ply
                        try:
                            nb, rl, lh = bh ^ ml.dhash[i], ml.lv[i], ml.leave_hash[i]

                            def child(a, b):  # the placement scores s, then the opponent moves
                                cv, p = self._negamax(nb, opp, ropp, vopp, rl, lh, lv, s_l, depth - 1, s - b,
                                                      s - a, ply1, st_opp, mine)
                                return s - cv, p
                            val, pr = _pvs(child, alpha, beta, best > -_INF)
                        finally:
                            letters[sq] = -1
                            blanks[sq] = False
                            stamp[sq] = -1
            if val > best:
                best, best_i, best_proven = val, i, pr
                if val > alpha:
                    alpha = val
                if alpha >= beta:
                    proven = pr
                    break
            proven = proven and pr
        if best >= beta:
            flag = _LOWER
            proven = best_proven
        elif best <= a0:
            flag = _UPPER
        else:
            flag = _EXACT
        self._tt[key] = (best, flag, _PROVEN if proven else depth, best_i)
        if proven:
            self._prove(key, best, flag)
        return best, proven

    def _stale_first(self, bh, me, rme, vme, opp, ropp, vopp, sl, depth, alpha, beta, ply, st_me, st_opp):
        """Search the best placement of the mover's earlier list ``st_me`` that the board
        still allows (:func:`heuri.endgame_kernels.stale_best`); ``(value, proven)`` when
        it reaches ``beta`` (a lower bound of the node), else None."""
        sml, since = st_me
        raw = sml.raw
        ends = sl + 1 >= self.max_scoreless
        b, kb, bt, kt = stale_best(sml.order, raw["row"], raw["col"], raw["across"], raw["length"], raw["tiles"],
                                   raw["new"], raw["blank"], raw["score"], self._letters.ravel(), self._stamp, since,
                                   me, int(me.sum()), vme, self.values, self.L, self.N, vopp, ends, sml.n_lead,
                                   beta)
        if kt >= 0 and bt >= beta:
            return bt, True
        if kb < 0:
            return None
        rec = raw[sml.order[kb]]
        s = int(rec["score"])
        across = bool(rec["across"])
        r0, c0 = int(rec["row"]), int(rec["col"])
        sq, lt, bl = [], [], []
        lv = me.copy()
        dh = 0
        tv = 0
        for j in range(int(rec["length"])):
            if not rec["new"][j]:
                continue
            f = (r0 + (0 if across else j)) * self.N + c0 + (j if across else 0)
            x, blank = int(rec["tiles"][j]), bool(rec["blank"][j])
            sq.append(f)
            lt.append(x)
            bl.append(blank)
            dh ^= int(self.zboard[(f * self.L + x) * 2 + blank])
            lv[self.L if blank else x] -= 1
            tv += 0 if blank else int(self.values[x])
        lval = vme - tv
        s_l = sl + 1 if s == 0 else 0
        if not lv.any():
            return None  # a way out below beta: the full list decides
        if s_l >= self.max_scoreless:
            return None
        letters, blanks, stamp = self._letters.ravel(), self._blanks.ravel(), self._stamp
        letters[sq] = lt
        blanks[sq] = bl
        stamp[sq] = ply
        try:
            cv, pr = self._negamax(bh ^ dh, opp, ropp, vopp, lv, self._rack_hash(lv), lval, s_l, depth - 1,
                                   s - beta, s - alpha, ply + 1, st_opp, st_me)
        finally:
            letters[sq] = -1
            blanks[sq] = False
            stamp[sq] = -1
        val = s - cv
        return (val, pr) if val >= beta else None

    def _last_ply(self, key, ml, bh, me, rme, vme, opp, ropp, vopp, sl, alpha, beta, ply=0, st_opp=None):
        """A node with one placement left before the horizon, valued over its whole move
        list at once (NumPy): a placement that goes out is worth its score + twice the
        opponent's rack (proven); one that ends the game on scoreless turns, its score −
        its leave + the opponent's rack (proven); any other, the same formula as the
        child's horizon estimate (not proven). The pass is searched (it keeps the depth) when
        every placement is proven; else it gets the horizon estimate too."""
        vals = ml.a_score + np.where(ml.a_out, 2 * vopp, vopp - ml.a_leave)
        sl1 = sl + 1
        ends = sl1 >= self.max_scoreless
        if ends:
            term = ml.a_out | ml.a_zero
        else:
            term = ml.a_out
        best, best_i, proven = -_INF, -2, ml.full
        if ml.n:
            k = int(np.argmax(vals))
            best, best_i = int(vals[k]), k
            if best >= beta:
                pv = np.where(term, vals, -_INF)
                kp = int(np.argmax(pv))
                if pv[kp] >= beta:  # a proven lower bound
                    self._tt[key] = (int(pv[kp]), _LOWER, _PROVEN, kp)
                    self._prove(key, int(pv[kp]), _LOWER)
                    return int(pv[kp]), True
                self._tt[key] = (best, _LOWER, 1, best_i)
                return best, False
            proven = proven and bool(term.all())
        if ends:
            pval, ppr = vopp - vme, True
        elif not proven:
            # a placement here is already a horizon estimate, so the node cannot be proven:
            # value the pass by the same estimate (both racks stay) instead of searching the
            # opponent's moves on this board (the next iteration searches it)
            pval, ppr = vopp - vme, False
        else:
            a = max(alpha, best)
            cv, ppr = self._negamax(bh, opp, ropp, vopp, me, rme, vme, sl1, 1, -beta, -a, ply + 1, st_opp, (ml, ply))
            pval = -cv
        if pval > best:
            best, best_i = pval, -1
        proven = proven and ppr
        if best >= beta:
            flag = _LOWER
            proven = ppr if best_i == -1 else proven
        elif best <= alpha:
            flag = _UPPER
        else:
            flag = _EXACT
        self._tt[key] = (best, flag, _PROVEN if proven else 1, best_i)
        if proven:
            self._prove(key, best, flag)
        return best, proven

    @staticmethod
    def _order(ml: _MoveList, tt_move: int) -> list:
        """Children in search order: the table's move (-1, the pass, when the node has no
        entry yet; -2: none), the top-scoring way out (the others cannot be better: they
        also end the game and score less), the other placements by score, then the pass if
        not already first."""
        base = ml.base
        if base is None:
            bo = ml.best_out
            base = ml.base = ([bo] if bo is not None else []) + [k for k in range(ml.n) if not ml.out[k]]
        return _child_order(base, ml.best_out, tt_move)

    # -- public -----------------------------------------------------------------------------
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

    def _solve(self, args, on_depth=None):
        """Iterative deepening; returns (value, depth, exact, stopped) of the last completed
        iteration or None."""
        found = None
        stopped = False
        n_tiles = int(args[1].sum() + args[4].sum())
        st_opp = self._root_st_opp = None
        self._walk = None
        for depth in range(1, min(self.max_depth, n_tiles) + 1):
            try:
                if depth > 1 and st_opp is None:
                    # the opponent's move list on the root board: the first replies tried
                    # against each root move (stale_best), before any list is made there
                    st_opp = self._root_st_opp = (self._moves(args[0], args[4], args[5]), 0)
                val, proven = self._negamax(*args, depth, -_INF, _INF, 0, None, st_opp)
            except _OutOfBudget as e:
                stopped = True
                self._stopped_by = e.args[0] if e.args else "limits"
                break
            found = (val, depth, proven)
            # the principal variation now, while the table holds this iteration's values
            # (a deeper iteration stopped by a limit leaves values the walk cannot match)
            self._walk = (self._pv(args, val, depth, st_opp=st_opp), self._pv_first)
            if on_depth is not None:
                on_depth(val, depth, proven)
            if proven:
                break
        if found is None:
            return None
        return found + (stopped,)

    def _child(self, args, ml, i, depth, ply=0, st_opp=None):
        """Value of root-like node ``args``'s child ``i`` (-1: the pass) against a full
        window at ``depth``: ``(value, proven, child_args)``, child_args None when the
        move ends the game or reaches the horizon. The board is left as it was. ``ply``,
        ``st_opp``: the node's ply and the opponent's latest list on the line (as in
        :meth:`_negamax`)."""
        bh, me, rme, vme, opp, ropp, vopp, sl = args
        mine = (ml, ply)
        if i == -1:
            if sl + 1 >= self.max_scoreless:
                return vopp - vme, True, None
            nxt = (bh, opp, ropp, vopp, me, rme, vme, sl + 1)
            cv, pr = self._negamax(*nxt, depth, -_INF, _INF, ply + 1, st_opp, mine)
            return -cv, pr, nxt
        s = ml.score[i]
        s_l = sl + 1 if s == 0 else 0
        lv = ml.leave_val[i]
        if ml.out[i]:
            return s + 2 * vopp, True, None
        if s_l >= self.max_scoreless:
            return s - lv + vopp, True, None
        if depth == 1:
            return s + vopp - lv, False, None
        nxt = (bh ^ ml.dhash[i], opp, ropp, vopp, ml.lv[i], ml.leave_hash[i], lv, s_l)
        self._place(ml, i, ply)
        try:
            cv, pr = self._negamax(*nxt, depth - 1, -_INF, _INF, ply + 1, st_opp, mine)
        finally:
            self._unplace(ml, i)
        return s - cv, pr, nxt

    def _unlimited(self):
        """Context: fresh limits for re-searching positions the solution already visited
        (the PV walk, the table of :meth:`analyse`): as many nodes and generations again as
        the search itself was allowed, a fifth of its time limit, and no stop."""
        solver = self

        class _Ctx:
            def __enter__(self):
                self.saved = (solver.max_nodes, solver.max_generations, solver._deadline, solver._stop)
                solver.max_nodes = solver._nodes + solver.max_nodes
                solver.max_generations = solver._gens + solver.max_generations
                # a time-limited search gets a fifth of its time again for the walk
                solver._deadline = (None if solver.time_limit is None
                                    else time.perf_counter() + max(0.05, 0.2 * solver.time_limit))
                solver._stop = None

            def __exit__(self, *exc):
                solver.max_nodes, solver.max_generations, solver._deadline, solver._stop = self.saved

        return _Ctx()

    def _pv_table(self, args, limit: int = 60) -> list:
        """The line of the table's best moves from node ``args`` (no search): the fallback
        of :meth:`_pv` when its re-search does not fit the limits."""
        line, undo = [], []
        try:
            while len(line) < limit:
                bh, me, rme, vme, opp, ropp, vopp, sl = args
                ent = self._tt.get((bh, rme, ropp, sl))
                ml = self._ml.get((bh, rme))
                if ent is None or ml is None or ent[3] == -2:
                    break
                if not ml.expanded:
                    ml.expand(self)
                i = ent[3]
                line.append(None if i == -1 else ml.rec(i))
                if i == -1:
                    if sl + 1 >= self.max_scoreless:
                        break
                    args = (bh, opp, ropp, vopp, me, rme, vme, sl + 1)
                    continue
                if ml.out[i] or (ml.score[i] == 0 and sl + 1 >= self.max_scoreless):
                    break
                self._place(ml, i)
                undo.append((ml, i))
                args = (bh ^ ml.dhash[i], opp, ropp, vopp, ml.lv[i], ml.leave_hash[i], ml.leave_val[i],
                        sl + 1 if ml.score[i] == 0 else 0)
        finally:
            for ml, i in reversed(undo):
                self._unplace(ml, i)
        return line

    def _pv(self, args, value, depth, limit: int = 60, ply=0, st_me=None, st_opp=None) -> list:
        """The principal variation from node ``args`` of value ``value`` at ``depth``:
        repeatedly the first child (table move first) whose value equals the node's;
        MOVE_DTYPE records, None for a pass. Ends at the end of the game or the horizon.
        ``ply``, ``st_me``, ``st_opp``: as in :meth:`_negamax`."""
        line: list = []
        undo: list = []
        self._pv_first = -2
        args0 = args
        with self._unlimited():
            try:
                while depth > 0 and len(line) < limit:
                    bh, me, rme = args[0], args[1], args[2]
                    ml = self._moves(bh, me, rme, True)
                    ent = self._tt.get((bh, rme, args[5], args[7]))
                    chosen = None
                    for i in self._order(ml, ent[3] if ent is not None else -2):
                        val, _, nxt = self._child(args, ml, i, depth, ply, st_opp)
                        if val == value:
                            chosen = (i, nxt)
                            break
                    if chosen is None:  # a depth-limited table entry disagreed: stop the line here
                        break
                    i, nxt = chosen
                    if not line:
                        self._pv_first = i
                    line.append(None if i == -1 else ml.rec(i))
                    if nxt is None:
                        break
                    if i >= 0:
                        self._place(ml, i, ply)
                        undo.append((ml, i))
                        depth -= 1
                    value = (ml.score[i] if i >= 0 else 0) - value
                    args = nxt
                    st_me, st_opp = st_opp, (ml, ply)
                    ply += 1
            except _OutOfBudget:
                line = None
            finally:
                for ml, i in reversed(undo):
                    self._unplace(ml, i)
        if line is None:
            line = self._pv_table(args0)
            ent = self._tt.get((args0[0], args0[2], args0[5], args0[7]))
            self._pv_first = ent[3] if ent is not None else -2
        return line

    def _place(self, ml, i, ply=-1):
        sq, lt, bl = ml.squares(i)
        self._letters.ravel()[sq] = lt
        self._blanks.ravel()[sq] = bl
        self._stamp[sq] = ply

    def _unplace(self, ml, i):
        sq = ml.squares(i)[0]
        self._letters.ravel()[sq] = -1
        self._blanks.ravel()[sq] = False
        self._stamp[sq] = -1

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

    def search_py(self, position, on_depth=None) -> EndgameResult | None:
        """Solve ``position`` (a :class:`heuri.game.Position` with an empty bag) for the
        player to move. Returns an :class:`EndgameResult`, or None when the first iteration
        does not fit the limits (play the fallback). ``on_depth(value, depth, exact)`` is
        called after each completed iteration. Raises EndgameError when the bag is not
        empty, a rack is unknown, or the racks and board need more tiles than the set holds."""
        t0 = time.perf_counter()
        bh, me, opp = self._setup(position)
        args = self._root_args(bh, me, opp, int(position.scoreless))
        found = self._solve(args, on_depth)
        if found is None:
            return None
        val, depth, exact, stopped = found
        recs, self._root_first = self._walk
        if not recs:  # the walk found no child of the value (cannot happen when exact): the table's move
            ent = self._tt.get((args[0], args[2], args[5], args[7]))
            i = ent[3] if ent is not None else -1
            ml = self._ml[(args[0], args[2])]
            if not ml.expanded:
                ml.expand(self)
            recs = [None if i < 0 else ml.rec(i)]
            self._root_first = i
        pv = self._moves_of(recs)
        spread0 = int(position.scores[position.to_move]) - int(position.scores[1 - position.to_move])
        return EndgameResult(move=pv[0], value=int(val), final_spread=spread0 + int(val), exact=bool(exact),
                             depth=depth, nodes=self._nodes, generations=self._gens, pv=pv,
                             seconds=time.perf_counter() - t0, stopped=stopped, stopped_by=self._stopped_by)

    # -- the compiled search (heuri.endgame_core) --------------------------------------------
    def _core_state(self, rules):
        """The compiled search's arrays (built once, sized by the limits), with the bingo
        bonus of the position's rules."""
        from ..core import movegen as mg

        if self._core is None:
            ctx = mg.kernel_context(self.pack)
            lg = lambda x: max(0, int(x) - 1).bit_length()  # noqa: E731 - ceil(log2)
            arena = int(min(self.ARENA_MAX, max(self.ARENA_MIN, 400 * self.max_generations)))
            tt_bits = min(22, max(14, lg(4 * self.max_nodes)))
            list_bits = min(20, max(10, lg(2 * self.max_generations)))
            cross_bits = min(12, max(8, lg(self.max_generations)))
            # a line holds at most as many placements as the two racks hold tiles (each places
            # one or more): a deeper max_depth allocates nothing more
            depth_cap = min(self.max_depth, 2 * self.spec.rack_size)
            max_ply = (depth_cap + 2) * (self.max_scoreless + 2) + 8
            zsl = np.asarray(self._zs, dtype=np.uint64)
            st = core.make_state(ctx, self.N, self.L, self.spec.rack_size, max_ply, arena, tt_bits, list_bits,
                                 cross_bits, 100_000, self.zboard, self.zrack, zsl, self.values)
            self._core = list(st)
        G = list(self._core[0])
        G[10] = np.int64(rules.bingo_bonus)
        self._core[0] = tuple(G)
        return self._core

    def _search_core(self, position, on_depth=None) -> EndgameResult | None:
        t0 = time.perf_counter()
        bh, me, opp = self._setup(position)
        st = self._core_state(position.spec)
        G, A, LT, T, X, B, Z, W = st
        RK, C, flag = W[0], W[3], W[4]
        core.reset_tables(LT, T, X)
        C[:] = 0
        C[core.C_N], C[core.C_L], C[core.C_CAP] = self.N, self.L, A[0].shape[0]
        C[core.C_MAXN], C[core.C_MAXG], C[core.C_MAXSL] = self.max_nodes, self.max_generations, self.max_scoreless
        C[core.C_WIDTH] = self.width or 0
        B[0][:] = self._letters
        B[1][:] = self._blanks
        B[4][:] = -1
        RK[0], RK[1] = me, opp
        rme, ropp = self._rack_hash(me), self._rack_hash(opp)
        vme, vopp = rack_value(self.values, me), rack_value(self.values, opp)
        sl = int(position.scoreless)
        bh = np.uint64(bh)
        run = _Watch(flag, self._deadline, self._stop)
        n_tiles = int(me.sum() + opp.sum())
        root_opp = None
        found = None
        stopped = False
        pv: list = []
        first = -2
        for depth in range(1, min(self.max_depth, n_tiles) + 1):
            fresh = False  # the move lists were forgotten once in this iteration
            while True:
                so = (-1, 0, 0, 0)
                if depth > 1:
                    if root_opp is None:
                        li = run(core.moves, G, A, LT, X, B, Z, W, bh, 1, np.uint64(ropp))
                        if li >= 0:
                            root_opp = (LT[2][li], LT[3][li], LT[4][li], 0)
                    so = root_opp
                if so is not None:
                    val, proven = run(core.negamax, G, A, LT, T, X, B, Z, W, bh, 0, np.uint64(rme), vme, 1,
                                      np.uint64(ropp), vopp, sl, depth, -_INF, _INF, 0, -1, 0, 0, 0, *so)
                if C[core.C_ABORT] != core.AB_ARENA or fresh:
                    break
                # the arena of move lists is full: forget the lists (the table stays; its moves
                # index lists that are generated again the same) and search this depth again
                fresh = True
                C[core.C_ABORT] = 0
                C[core.C_TOP] = 0
                LT[2][:] = -1
                root_opp = None
            if C[core.C_ABORT]:
                stopped = True
                self._stopped_by = (run.why or "time" if flag[0] else
                                    "nodes" if C[core.C_NODES] > C[core.C_MAXN] else
                                    "move lists" if C[core.C_GENS] >= C[core.C_MAXG] else "limits")
                break
            found = (int(val), depth, bool(proven))
            self._core_root = (bh, rme, vme, ropp, vopp, sl)
            line, first = self._core_pv(st, run, bh, rme, vme, ropp, vopp, sl, depth, int(val), so)
            # decoded now: a later iteration may refill the arena (AB_ARENA: the lists are
            # forgotten and generated anew elsewhere), and then these indices name other moves
            pv = self._core_moves(A, line)
            if on_depth is not None:
                on_depth(int(val), depth, bool(proven))
            if proven:
                break
        self._nodes, self._gens, self._stale_cuts = int(C[core.C_NODES]), int(C[core.C_GENS]), int(C[core.C_STALE])
        if found is None:
            return None
        val, depth, exact = found
        self._root_first = first
        spread0 = int(position.scores[position.to_move]) - int(position.scores[1 - position.to_move])
        return EndgameResult(move=pv[0], value=val, final_spread=spread0 + val, exact=exact, depth=depth,
                             nodes=self._nodes, generations=self._gens, pv=pv,
                             seconds=time.perf_counter() - t0, stopped=stopped, stopped_by=self._stopped_by)

    def _core_pv(self, st, run, bh, rme, vme, ropp, vopp, sl, depth, value, so, limit: int = 60):
        """The principal variation of the compiled search's last iteration (as :meth:`_pv`:
        repeatedly the first child in search order whose full-window value equals the
        node's), as arena indices (-1: the pass), and the root child's index in its list
        (-1 the pass, -2 none). Re-searched with fresh limits (as many nodes and lists again,
        a fifth of the time limit: :meth:`_unlimited`); from the table's moves when that does
        not fit. The board is left as it was."""
        G, A, LT, T, X, B, Z, W = st
        C, RK = W[3], W[0]
        saved = C[core.C_MAXN], C[core.C_MAXG]
        C[core.C_MAXN] = C[core.C_NODES] + self.max_nodes
        C[core.C_MAXG] = C[core.C_GENS] + self.max_generations
        dl = None if self.time_limit is None else time.perf_counter() + max(0.05, 0.2 * self.time_limit)
        walk = _Watch(W[4], dl, None)
        line: list = []
        placed: list = []
        first = -2
        me, opp, ply = 0, 1, 0
        s2 = so
        u64 = np.uint64
        try:
            while depth > 0 and len(line) < limit:
                li = walk(core.moves, G, A, LT, X, B, Z, W, bh, me, u64(rme))
                if li < 0:
                    break
                start, n, lead = int(LT[2][li]), int(LT[3][li]), int(LT[4][li])
                slot = core.tt_probe(T, bh ^ Z[2][sl], u64(rme), u64(ropp))
                tt_move = int(T[6][slot]) if slot >= 0 else -2
                chosen, end = None, False
                sl1 = sl + 1
                row = 2 + ply
                for i in self._core_order(n, lead, tt_move if tt_move < n else -2):
                    end = False
                    if i == -1:
                        if sl1 >= self.max_scoreless:
                            val, end = vopp - vme, True
                        else:
                            cv, _ = walk(core.negamax, G, A, LT, T, X, B, Z, W, bh, opp, u64(ropp), vopp, me, u64(rme),
                                         vme, sl1, depth, -_INF, _INF, ply + 1, *s2, start, n, lead, ply)
                            val = -int(cv)
                    else:
                        m = start + i
                        s, lv = int(A[0][m]), int(A[2][m])
                        s_l = sl1 if s == 0 else 0
                        if A[1][m]:
                            val, end = s + 2 * vopp, True
                        elif s_l >= self.max_scoreless:
                            val, end = s - lv + vopp, True
                        elif depth == 1:
                            val, end = s + vopp - lv, True
                        else:
                            lh = self._core_leave(A, RK, m, me, row)
                            self._core_place(A, B, m, ply)
                            try:
                                cv, _ = walk(core.negamax, G, A, LT, T, X, B, Z, W, bh ^ A[3][m], opp, u64(ropp), vopp,
                                             row, u64(lh), lv, s_l, depth - 1, -_INF, _INF, ply + 1, *s2, start, n,
                                             lead, ply)
                            finally:
                                self._core_place(A, B, m, -1)
                            val = s - int(cv)
                    if C[core.C_ABORT]:
                        break
                    if val == value:
                        chosen = i
                        break
                if C[core.C_ABORT] or chosen is None:
                    break
                if not line:
                    first = chosen
                line.append(-1 if chosen == -1 else start + chosen)
                if end:
                    break
                if chosen == -1:
                    me, rme, vme, opp, ropp, vopp = opp, ropp, vopp, me, rme, vme
                    sl, value = sl1, -value
                else:
                    m = start + chosen
                    s = int(A[0][m])
                    lh = self._core_leave(A, RK, m, me, row)
                    self._core_place(A, B, m, ply)
                    placed.append(m)
                    depth -= 1
                    bh = bh ^ A[3][m]
                    me, rme, vme, opp, ropp, vopp = opp, ropp, vopp, row, lh, int(A[2][m])
                    sl, value = (sl1 if s == 0 else 0), s - value
                s2 = (start, n, lead, ply)
                ply += 1
        finally:
            for m in reversed(placed):
                self._core_place(A, B, m, -1)
            aborted = bool(C[core.C_ABORT]) or not line
            C[core.C_MAXN], C[core.C_MAXG] = saved
            C[core.C_ABORT] = 0
            W[4][0] = 0
        if aborted:  # the table's moves
            out = np.full(limit, -3, np.int64)
            st0 = self._core_root
            n, first = core.pv_table(A, LT, T, Z, W, B, st0[0], 0, u64(st0[1]), st0[2], 1, u64(st0[3]), st0[4],
                                     st0[5], out, limit)
            line = [int(x) for x in out[:n]]
            first = int(first)
        if not line:  # cannot happen once an iteration completed
            line, first = [-1], -1
        return line, first

    @staticmethod
    def _core_order(n: int, lead: int, tt_move: int) -> list:
        """:meth:`_order` for an arena list of ``n`` moves whose first ``lead`` go out."""
        base = ([0] if lead > 0 else []) + list(range(lead, n))
        return _child_order(base, 0 if lead > 0 else None, tt_move)

    def _core_leave(self, A, RK, m, me, row) -> int:
        """Write the leave of arena move ``m`` from rack row ``me`` into row ``row``; its hash."""
        RK[row] = RK[me]
        for c in range(int(A[4][m])):
            RK[row, self.L if A[7][m, c] else int(A[6][m, c])] -= 1
        return self._rack_hash(RK[row])

    @staticmethod
    def _core_place(A, B, m, ply):
        """Put arena move ``m``'s tiles on the compiled search's board (``ply`` -1: take them off)."""
        k = int(A[4][m])
        sq = A[5][m, :k].astype(np.int64)
        if ply < 0:
            B[2][sq], B[3][sq], B[4][sq] = -1, False, -1
        else:
            B[2][sq], B[3][sq], B[4][sq] = A[6][m, :k], A[7][m, :k], ply

    def _core_moves(self, A, line) -> list:
        """Moves (Placement / Pass) of a line of arena indices, replayed from the root board."""
        from ..core.move import Pass, Placement

        letters, blanks, N = self._letters.copy(), self._blanks.copy(), self.N
        moves = []
        for m in line:
            if m < 0:
                moves.append(Pass())
                continue
            sq = A[5][m, :A[4][m]].astype(np.int64)
            letters.ravel()[sq] = A[6][m, :A[4][m]]
            blanks.ravel()[sq] = A[7][m, :A[4][m]]
            r0, c0, acr, ln = int(A[8][m]), int(A[9][m]), bool(A[10][m]), int(A[11][m])
            fs = [(r0 + (0 if acr else j)) * N + c0 + (j if acr else 0) for j in range(ln)]
            new = set(int(x) for x in sq)
            moves.append(Placement(r0, c0, acr, tuple(int(letters.ravel()[f]) for f in fs),
                                   tuple(f in new for f in fs),
                                   tuple(bool(f in new and blanks.ravel()[f]) for f in fs)))
        return moves

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
                except _OutOfBudget:  # the table stops at the moves valued within the limits
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
