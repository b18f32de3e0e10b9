"""Move evaluators: greedy, Heuri_1, Heuri_2 and Heuri_3 (docs/method.md, paper §4).

Each evaluator ranks every candidate move of a turn (placements, exchanges when the rule
allows them, the pass) by a value ``v`` and reports for each: ``j`` (the move's score,
points; 0 for an exchange or the pass), ``e`` (the expected bingo value of the leave next
turn, points), ``p`` (the probability of drawing into a bingo key), ``v``, the leave, and
the *fish* flag (``e > j``).

- ``greedy``: ``v = j``.
- ``heuri1``: ``v = j + p·b − d``, ``p`` over the septets, ``b = 50 + k(σ_L + ā·t)`` (ā the
  language's average tile value, 1.92 in Spanish; t = R − |L| tiles drawn) and ``d`` the
  defensive penalty (:func:`defensive_penalty`, 20/10/5; ``penalty=False`` turns it off).
  Here ``e`` is reported as ``p·b``.
- ``heuri2``: ``v = j + e``, ``e = Σ_{s ∈ septets} p(s | L)·(50 + k·σ(s))``, k = 2.5.
- ``heuri3``: ``v = j + e``, ``e = Σ_{s ∈ septets ∪ reduced octets} δ(s)·p(s | L)·(50 + kσ(s))``
  with δ the board-dependent landability of :mod:`heuri.bingo`. δ of the current board is
  computed once per turn; every candidate is first valued with it, then the best ``top``
  (N = 20) placements are re-valued with δ of the board after the move and re-ranked
  (``exact=True`` re-values every placement; ``top=0`` none: every move by δ of the
  current board). Exchanges and the pass leave the board
  unchanged, so the current δ is exact for them. The final order is that of the v each
  move shows: a placement whose current-board v would stand above the best re-valued v is
  re-valued too (only past the top N, rarely), so the move played is always the first. By default (``prune=True``) the placements to
  re-value are visited in decreasing order of the bound ``j + e(L | δ ≡ 1)`` and the visit
  stops once the bound cannot beat the best re-valued v: the chosen move is exactly the one
  re-valuing them all would choose (tested), at a fraction of the cost.

Entry points: ``make_evaluator(pack, name, **options)``; then ``ev.rank(position)`` (a
:class:`heuri.game.Position`) or ``ev.rank_arrays(letters, blanks, rack, unseen, bag_size)``
→ :class:`Ranking`; ``ev.choose(position)`` → :class:`heuri.move.Move`.

The fast path for match runners: build the evaluator once per pack and process
(``ev = make_evaluator(pack, "heuri3")``; it keeps its compiled kernels and index), then call
``ev.choose(position)`` each turn (``heuri.players.make_player`` does this), or
``ev.best_record(letters, blanks, rack, unseen, bag_size)`` on raw arrays to get the MOVE_DTYPE
record without building Move objects. Heuri_3 with N = 20 takes about 15-25 ms of CPU a
decision (benchmarks/bench_evaluate.py). Deterministic: the same position gives the same
move (ties go to the move generator's order).
"""
from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ..core.errors import HeuriError
from .probability import bingo_value, draw_weights, default_bag_size, key_rows, key_runs, leave_table, leave_tables

VOWELS = frozenset("AEIOU")


class EvaluatorError(HeuriError):
    """An unknown evaluator name or a bad option."""


@dataclass
class Ranking:
    """Candidates of one turn, best first (arrays of equal length n).

    - ``moves``: (n,) MOVE_DTYPE records; ``j`` (n,) int64 points; ``e``, ``p``, ``v`` (n,)
      float64; ``leaves`` (n, L+1) uint8; ``fish`` (n,) bool (e > j); ``revalued`` (n,)
      bool (Heuri_3: e and p computed with δ of the board after the move); ``terms``: name →
      (n,) float64 points, the parts of v besides j and e (``leave``: − the next rack's
      playability cost; ``lanes``: − the weighted change of the opponent's bingo
      expectation; ``power``: the next rack's scoring power; ``blank``: a kept blank's
      later bingo chance; ``defence``: − Heuri_1's defensive penalty). Empty for greedy,
      heuri2 and heuri3.
    """

    moves: np.ndarray
    j: np.ndarray
    e: np.ndarray
    p: np.ndarray
    v: np.ndarray
    leaves: np.ndarray
    fish: np.ndarray
    revalued: np.ndarray
    #: the value's other named terms, points, each (n,) float64 in the ranking's order, so
    #: that ``v = j + e + Σ terms`` (:mod:`heuri.eval.explain` names them for a player)
    terms: dict = None

    def __len__(self) -> int:
        return len(self.moves)

    def rows(self, spec, top: int | None = None, board=None, coords: str = "standard") -> list[dict]:
        """The first ``top`` candidates as dicts with exactly the keys ``move`` (GCG
        notation), ``word`` (the move as people read it, :func:`heuri.formats.render.move_text`
        in ``coords``: ``8G CA(RR)OÑE``; ``board``, the position's board, shows played-through
        blanks in lower case), ``score`` (the move's points; the method's j), ``bingo_expectation``
        (the expected value of a bingo next turn with the leave, points; e),
        ``bingo_probability`` (the probability of that bingo; p), ``equity`` (the value the
        engine ranks by, points; v), ``leave`` (``?`` for a blank, ``[CH]`` brackets) and
        ``fish`` (the bingo expectation exceeds the score); the floats are rounded to 4
        decimals. docs/method.md gives the formulas."""
        from ..core.move import Move
        from ..formats.render import move_text

        out = []
        n = len(self) if top is None else min(top, len(self))
        for i in range(n):
            mv = Move.from_record(self.moves[i], spec)
            lv = self.leaves[i]
            leave = spec.format_tiles(np.repeat(np.arange(len(lv)), lv), blank="?")
            out.append({"move": mv.gcg(spec), "word": move_text(mv, spec, board, coords), "score": int(self.j[i]),
                        "bingo_expectation": round(float(self.e[i]), 4),
                        "bingo_probability": round(float(self.p[i]), 4), "equity": round(float(self.v[i]), 4),
                        "leave": leave, "fish": bool(self.fish[i])})
        return out


@njit(cache=True, nogil=True)
def _delta_sums(before, after, holding, rows, val, U, leave, t, cu):
    """Σ (δ' − δ)·val·p(s | L) and Σ (δ' − δ)·p(s | L) over the keys whose δ changes
    between the bitsets ``before`` and ``after`` ((ceil(n/64),) uint64, bit s % 64 of word
    s // 64), unnormalised (the caller divides by C(N, t)). ``holding``: the same bitset
    of the keys that hold the leave (the others have p = 0). rows: (n, R) uint8 sorted
    key tiles; val (n,) float64 points; U, leave (K,) counts; t = R − |L|; cu (K, D) the
    draw weights (:func:`heuri.eval.probability.draw_weights`). Keys that need more of a
    tile than U has have p = 0 and add nothing."""
    de = 0.0
    dp = 0.0
    R = rows.shape[1]
    one = np.uint64(1)
    for i in range(before.shape[0]):
        v = (before[i] ^ after[i]) & holding[i]
        while v:
            b = trailing_zeros(v)
            v &= v - one
            k = i * 64 + b
            a = 1.0
            drawn = 0
            j = 0
            while j < R:
                x = rows[k, j]
                c = 1
                while j + c < R and rows[k, j + c] == x:
                    c += 1
                j += c
                d = c - leave[x]
                if d < 0 or d > U[x]:
                    a = 0.0
                    break
                if d > 0:
                    a *= cu[x, d]
                    drawn += d
            if a == 0.0 or drawn != t:
                continue
            sgn = 1.0 if (after[i] >> np.uint64(b)) & one else -1.0
            de += sgn * a * val[k]
            dp += sgn * a
    return de, dp


@njit(cache=True, nogil=True)
def _delta_sums_ov(before, after, holding, runs, val, U, leave, t, cu, ours, ov):
    """:func:`_delta_sums` and, in the same pass, the opponent's Σ (δ' − δ)·val·p(s | ∅)
    (unnormalised: the caller divides by C(N, R)) over every key whose δ changes, the
    opponent's rack being R tiles of U; ``ours``: False skips our sums (the bag cannot fill
    our rack). The opponent's per-key terms are given: ``ov`` (n,) float64,
    Π_x C(U_x, s_x)·val[s] of every key (:func:`heuri.probability.leave_tables`, computed
    once a decision), so a key whose δ changes costs a load for the opponent's sum and the
    tile walk only when it holds our leave (``runs``: the keys as runs of equal tiles,
    :func:`heuri.probability.key_runs`). The same sums in the same order as a walk of every
    changed key's tiles (tests/test_evaluate.py keeps that walk as the reference: the same
    floats). Returns (de, dp, de_opp)."""
    de = 0.0
    dp = 0.0
    do = 0.0
    R = runs.shape[1]
    one = np.uint64(1)
    for i in range(before.shape[0]):
        v = before[i] ^ after[i]
        if v == 0:
            continue
        hv = holding[i] if ours else np.uint64(0)
        ai = after[i]
        while v:
            b = trailing_zeros(v)
            bit = one << np.uint64(b)
            v &= v - one
            k = i * 64 + b
            sgn = 1.0 if ai & bit else -1.0
            do += sgn * ov[k]
            if not hv & bit:
                continue
            a = 1.0  # ours: Π cu[x, s_x − L_x], Π C(U_x, s_x − L_x) for a uniform draw
            drawn = 0
            mine = True
            for j in range(R):
                y = runs[k, j]
                if y == 0:  # padding: the key's runs are done
                    break
                x = y >> 3
                c = y & 7
                d = c - leave[x]
                if d < 0 or d > U[x]:
                    mine = False
                    break
                if d > 0:
                    a *= cu[x, d]
                    drawn += d
            if mine and drawn == t:
                de += sgn * a * val[k]
                dp += sgn * a
    return de, dp, do


def _leave_codes(rack: np.ndarray, leaves: np.ndarray) -> np.ndarray:
    """Row of each leave in probability.sub_multisets(rack) (mixed radix)."""
    idx = np.zeros(len(leaves), np.int64)
    stride = 1
    for x in np.flatnonzero(rack):
        idx += leaves[:, x].astype(np.int64) * stride
        stride *= int(rack[x]) + 1
    return idx


def _new_squares(rec):
    """(rows, cols, tiles) of the squares a placement record fills from the rack."""
    n = int(rec["length"])
    new = np.asarray(rec["new"][:n])
    i = np.flatnonzero(new)
    if rec["across"]:
        rows = np.full(len(i), int(rec["row"]))
        cols = int(rec["col"]) + i
    else:
        rows = int(rec["row"]) + i
        cols = np.full(len(i), int(rec["col"]))
    return rows, cols, np.asarray(rec["tiles"][:n])[i].astype(np.int8)


# -- defensive penalty -----------------------------------------------------------------------
def _penalty_maps(spec, letters: np.ndarray):
    """Per-square penalties (N, N) int for a new tile: (any tile, vowel only).

    Interpretation of paper §4.2 (González et al. 2008), on the board before the move: a
    new tile on a line (row or column) strictly between two empty triple-word squares at
    most 8 squares apart (a 9× word could cover both) costs 20; a vowel next to an empty
    premium word square on a line holding an empty triple- and an empty double-word
    square within 8 squares of each other and of the tile (a 6×) costs 10; a tile within
    a span of at most 8 squares holding two empty double-word squares (a 4×) costs 5."""
    N = spec.board_size
    lay = np.array([list(r) for r in spec.board])
    empty = np.asarray(letters) < 0
    tw = (lay == "T") & empty
    dw = ((lay == "D") | (lay == "*")) & empty
    any_pen = np.zeros((N, N), np.int64)
    vow_pen = np.zeros((N, N), np.int64)
    for transpose in (False, True):
        T = tw.T if transpose else tw
        D = dw.T if transpose else dw
        A = np.zeros((N, N), np.int64)
        V = np.zeros((N, N), np.int64)
        for r in range(N):
            t = np.flatnonzero(T[r])
            d = np.flatnonzero(D[r])
            for a in t:
                for b in t:
                    if a < b <= a + 7:
                        A[r, a + 1:b] = np.maximum(A[r, a + 1:b], 20)
            for a in d:
                for b in d:
                    if a < b <= a + 7:
                        A[r, a:b + 1] = np.maximum(A[r, a:b + 1], 5)
            for a in t:
                for b in d:
                    lo, hi = min(a, b), max(a, b)
                    if hi - lo <= 7:
                        for q in (a - 1, a + 1, b - 1, b + 1):
                            if 0 <= q < N and max(hi, q) - min(lo, q) <= 7:
                                V[r, q] = max(V[r, q], 10)
        if transpose:
            A, V = A.T, V.T
        any_pen = np.maximum(any_pen, A)
        vow_pen = np.maximum(vow_pen, V)
    return any_pen, vow_pen


def defensive_penalty(spec, letters: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """Heuri_1's d for each move (n,) float64 (see :func:`_penalty_maps`); 0 for exchanges
    and the pass. Vowels: tiles whose symbol is one of A E I O U."""
    any_pen, vow_pen = _penalty_maps(spec, letters)
    vowel = np.array([t in VOWELS for t in spec.tiles] + [False])
    n = len(moves)
    d = np.zeros(n)
    pl = np.flatnonzero(moves["kind"] == 0)
    if len(pl) == 0:
        return d
    m = moves[pl]
    i = np.arange(15)
    rows = np.where(m["across"][:, None], m["row"][:, None], m["row"][:, None] + i[None, :]).astype(np.int64)
    cols = np.where(m["across"][:, None], m["col"][:, None] + i[None, :], m["col"][:, None]).astype(np.int64)
    live = m["new"] & (i[None, :] < m["length"][:, None])
    N = spec.board_size
    rows = np.clip(rows, 0, N - 1)
    cols = np.clip(cols, 0, N - 1)
    tiles = np.clip(m["tiles"].astype(np.int64), 0, spec.n_letters)
    pen = np.where(live, any_pen[rows, cols], 0)
    pv = np.where(live & vowel[tiles], vow_pen[rows, cols], 0)
    d[pl] = np.maximum(pen, pv).max(axis=1)
    return d


# -- evaluators ------------------------------------------------------------------------------
class Evaluator:
    """Base class: candidate generation and ranking. Subclasses set :meth:`_values`.

    Options (keyword arguments): ``k`` (2.5, the σ multiplier of a bingo's value).
    """

    name = "base"

    def __init__(self, pack, k: float = 2.5):
        from ..core.bounds import BoundsError, check_float

        self.pack = pack
        self.spec = pack.spec
        try:  # NaN would make every comparison false: the pass would beat a bingo
            self.k = check_float(k, f"{self.name}: k", 0, 1000)
        except BoundsError as e:
            raise EvaluatorError(str(e)) from None
        self._sigma = np.asarray(pack.keys.sigma)
        self._val_pack = self._val = self._bingo_values(self.spec.bingo_bonus)
        self._bonus = float(self.spec.bingo_bonus)

    def _use_rules(self, rules) -> None:
        """Bingo values for this decision: the bonus of ``rules`` (a CGP's ``bb``) when it
        differs from the pack's (the paper's 50 is the bingo bonus)."""
        bonus = float(self.spec.bingo_bonus if rules is None else rules.bingo_bonus)
        if bonus != self._bonus:
            self._bonus = bonus
            self._val = (self._val_pack if bonus == self.spec.bingo_bonus
                         else self._bingo_values(bonus))

    #: points subtracted from every bingo's value (0: the paper's 50 + kσ; see :class:`Heuri4`)
    bingo_offset = 0.0
    #: where the δ of a board comes from (:class:`heuri.eval.bingo.BoardDeltaCache`, shared
    #: by the evaluators of a server); None: made afresh each decision. δ depends on the
    #: board alone, so sharing it changes no value.
    board_deltas = None

    def _bingo_values(self, bonus: float) -> np.ndarray:
        """(n_keys,) float64 points: 50 + kσ(s) with the bonus, less :attr:`bingo_offset`
        (never below 0)."""
        val = bingo_value(self._sigma, self.k, bonus)
        return np.maximum(val - self.bingo_offset, 0.0) if self.bingo_offset else val

    # entry points ---------------------------------------------------------------------
    def rank(self, position, moves: np.ndarray | None = None, should_stop=None) -> Ranking:
        """Rank the candidates of a :class:`heuri.game.Position` for the player to move.
        U = ``position.unseen()`` (bag + other racks), bag size ``position.bag_size``;
        ``should_stop`` as in :meth:`rank_arrays`."""
        b = position.board
        return self.rank_arrays(b.letters, b.blanks, position.rack, position.unseen(),
                                position.bag_size, moves=moves, rules=position.spec, should_stop=should_stop)

    def rank_arrays(self, letters, blanks, rack, unseen=None, bag_size: int | None = None,
                    moves: np.ndarray | None = None, rules=None, should_stop=None) -> Ranking:
        """Rank the candidates of raw arrays: ``letters`` (N, N) int8 (-1 empty),
        ``blanks`` (N, N) bool, ``rack`` (L+1,) counts, ``unseen`` U (L+1,) counts (default:
        full set − board − rack), ``bag_size`` (default: |U| − R). ``moves``: the
        candidates (MOVE_DTYPE) if already generated; default: every legal move from
        :func:`heuri.movegen.generate` (exchanges when the bag allows, the pass). ``rules``:
        a LanguageSpec with the position's rules (a CGP's ``bb``, ``etl``; a Position's
        ``spec``): its bingo bonus and exchange limit replace the pack's, in the moves
        generated and in the bingo values (50 + kσ counts the bonus). ``should_stop``: None,
        or a callable polled between the re-valuations of placements on the board after
        them (Heuri_3 and later; a few ms each, and thousands of them for a rack with
        blanks on an open board); once it returns True the placements not yet re-valued
        keep their current-board value (``revalued`` False), so the ranking is the best
        one found so far (a clock's or ``stop``'s ranking, not the complete one).

        The complete ranking is exact; a stopped one is not the same on another machine."""
        from ..core.movegen import generate, leaves as move_leaves
        from .probability import augmented_bag

        spec = self.spec
        self._use_rules(rules)
        letters = np.asarray(letters, np.int8)
        blanks = np.asarray(blanks, bool)
        rack = np.asarray(rack, np.int64)
        U = augmented_bag(spec, letters, blanks, rack) if unseen is None else np.asarray(unseen, np.int64)
        if bag_size is None:
            bag_size = default_bag_size(U, spec.rack_size)
        if moves is None:
            moves = generate(self.pack, letters, blanks, rack, bag_size=bag_size, exchanges=True, rules=rules)
            moves = _with_pass(moves)
        lv = move_leaves(rack, moves) if len(moves) else np.zeros((0, spec.n_kinds), np.uint8)
        j = moves["score"].astype(np.int64)
        e, p, extra = self._values(letters, blanks, rack, U, int(bag_size), moves, lv)
        # The pass draws nothing (t = 0): its "next rack" is the rack in hand, and a bingo
        # that rack holds is a move of this very turn, valued by its own j. Counting it
        # again as e (p = 1) made heuri pass with a playable bingo, turn after turn, so the
        # pass is valued at e = p = 0 (a deviation from the paper's "pass: L = rack, t = 0").
        is_pass = moves["kind"] == 2
        if is_pass.any():
            e = np.where(is_pass, 0.0, e)
            p = np.where(is_pass, 0.0, p)
        v = j + e - extra.get("d", 0.0)
        rev = np.zeros(len(moves), bool)
        order = np.lexsort((np.arange(len(moves)), -v))
        if "refine" in extra:  # fills the lanes term of the placements it re-values
            order, e, p, v, rev = extra["refine"](order, e, p, v, should_stop)
        terms = {name: np.broadcast_to(np.asarray(x, np.float64), (len(moves),))[order]
                 for name, x in extra.get("terms", {}).items()}
        return Ranking(moves[order], j[order], e[order], p[order], v[order], lv[order],
                       (e > j)[order], rev[order], terms)

    def best_record(self, letters, blanks, rack, unseen=None, bag_size=None, rules=None):
        """The best candidate's MOVE_DTYPE record (see :meth:`rank_arrays`)."""
        r = self.rank_arrays(letters, blanks, rack, unseen, bag_size, rules=rules)
        return r.moves[0]

    def choose(self, position):
        """The move to play (:class:`heuri.move.Move`): the top of :meth:`rank`; the pass
        when there is no candidate."""
        from ..core.move import Move, Pass

        r = self.rank(position)
        if len(r) == 0:
            return Pass()
        return Move.from_record(r.moves[0], self.spec)

    def _values(self, letters, blanks, rack, U, bag_size, moves, lv):
        raise NotImplementedError


def _with_pass(moves: np.ndarray) -> np.ndarray:
    """Append the pass when the generator did not list it."""
    if len(moves) and (moves["kind"] == 2).any():
        return moves
    rec = np.zeros(1, moves.dtype)
    rec["kind"] = 2
    rec["tiles"] = -1
    return np.concatenate([moves, rec])


class Greedy(Evaluator):
    """v = j: the top-scoring move (ties: the move generator's order)."""

    name = "greedy"

    def _values(self, letters, blanks, rack, U, bag_size, moves, lv):
        z = np.zeros(len(moves))
        return z, z.copy(), {}


class Heuri1(Evaluator):
    """v = j + p·b − d (González et al. 2008; paper §4.2). Options: ``k`` (2.5),
    ``penalty`` (True: d = 20/10/5 from :func:`defensive_penalty`)."""

    name = "heuri1"

    def __init__(self, pack, k: float = 2.5, penalty: bool = True):
        super().__init__(pack, k)
        self.penalty = bool(penalty)
        self._septets = np.asarray(pack.keys.is_septet)

    def _values(self, letters, blanks, rack, U, bag_size, moves, lv):
        spec = self.spec
        leaves, _, p_tab = leave_table(self.pack, rack, U, self._septets, self._val, bag_size)
        li = _leave_codes(rack, lv)
        p = p_tab[li]
        vals = spec.value_vector()
        sigma_l = lv.astype(np.int64) @ vals
        t = spec.rack_size - lv.sum(axis=1).astype(np.int64)
        b = self._bonus + self.k * (sigma_l + spec.average_tile_value * t)
        e = p * b
        extra = {}
        if self.penalty:
            extra["d"] = defensive_penalty(spec, letters, moves)
            extra["terms"] = {"defence": -extra["d"]}
        return e, p, extra


class Heuri2(Evaluator):
    """v = j + e, e over the septets (Ramírez et al. 2009). Option ``k`` (2.5)."""

    name = "heuri2"

    def __init__(self, pack, k: float = 2.5):
        super().__init__(pack, k)
        self._septets = np.asarray(pack.keys.is_septet)

    def _values(self, letters, blanks, rack, U, bag_size, moves, lv):
        _, e_tab, p_tab = leave_table(self.pack, rack, U, self._septets, self._val, bag_size)
        li = _leave_codes(rack, lv)
        return e_tab[li], p_tab[li], {}


class LeaveModel(Evaluator):
    """v = j + e(L), e Heuri_2's bingo expectation of the leave read from one table of every
    leave (:class:`heuri.eval.leave_values.LeaveValues`) over the pure septets, for a full
    bag of the language's tiles: what a player who knows the game's leaves but not this
    board or these unseen tiles values. Not an engine of the front ends: a fast model of the
    opponent for :mod:`heuri.search.inference` (the table is built once, about 0.1 s; then
    a rack costs its move generation, about a millisecond, where Heuri_2 walks the keys for
    each rack). Options: ``k`` (2.5)."""

    name = "leave-model"

    def __init__(self, pack, k: float = 2.5):
        super().__init__(pack, k)
        self._table = None

    def _values(self, letters, blanks, rack, U, bag_size, moves, lv):
        if self._table is None:
            from .leave_values import LeaveValues

            full = self.spec.distribution().astype(np.int64)
            self._table = LeaveValues(self.pack, full, np.asarray(self.pack.keys.is_septet), self._val,
                                      int(full.sum()))
        e = self._table.of(lv) if bag_size > 0 else np.zeros(len(moves))
        return e, np.zeros(len(moves)), {}


class Heuri3(Evaluator):
    """v = j + e, e over pure septets ∪ reduced octets weighted by δ (González et al. 2012,
    the paper's engine). Options: ``k`` (2.5), ``top`` (N = 20 placements re-valued with δ
    of the board after the move), ``exact`` (False; True re-values every placement),
    ``prune`` (default True: the placements to re-value are taken in decreasing order of
    the bound j + e(L | δ ≡ 1) and the scan stops when the bound cannot beat the best
    re-valued v (or an exchange's or the pass's v); the chosen move is the same as
    re-valuing all of them, the moves left out keep their current-board v, below the best
    re-valued v; the ranking is ordered by the v it shows. ``prune=False`` re-values all of them). ``last_revalued``:
    placements re-valued in the last decision."""

    name = "heuri3"

    def __init__(self, pack, k: float = 2.5, top: int = 20, exact: bool = False, prune: bool = True):
        super().__init__(pack, k)
        if top < 0:
            raise EvaluatorError(f"heuri3: top must be >= 0, got {top}")
        self.top = int(top)
        self.exact = bool(exact)
        self.prune = bool(prune)
        self._all = np.ones(len(pack.keys), bool)
        self.last_delta = None
        self.last_revalued = 0

    def _values(self, letters, blanks, rack, U, bag_size, moves, lv):
        from .bingo import BoardDelta

        spec = self.spec
        # keys with more blanks than the player can still hold have p = 0: skip their δ
        nb = min(int(rack[spec.blank] + U[spec.blank]), spec.rack_size)
        bd = (BoardDelta(self.pack, letters, max_blanks=nb) if self.board_deltas is None
              else self.board_deltas.get(self.pack, letters, nb))
        self.last_delta = bd
        q = float(self.lanes)
        N = int(U.sum())
        R = spec.rack_size
        refining = not (self.top == 0 and not self.exact)
        opp_w = float(self.opponent)
        opp_on = refining and opp_w > 0 and N >= R
        n_place = int((moves["kind"] == 0).sum())
        # the every-key table: the lanes blend, and the bound of the pruned re-valuation
        every = q > 0 or (refining and self.prune and (n_place if self.exact else min(self.top, n_place)) > 1)
        # one pass over the keys: e(L | δ), e(L | every key lands) and the opponent's per-key
        # terms (the same floats as separate passes)
        cu = self._draw_weights(U)  # our draw: C(U_x, d), or from what the opponent kept
        _, e_tab, p_tab, e_all_tab, p_all_tab, ov = leave_tables(
            self.pack, rack, U, bd.delta, self._val, bag_size, every=every, opponent=opp_on, draw=cu)
        e_o_known = None  # the opponent's whole expectation when it is not our empty leave's e
        if opp_on:
            ov, e_o_known = self._opponent_terms(ov, U, bd)
        li = _leave_codes(rack, lv)
        e = e_d = e_tab[li]
        p = p_d = p_tab[li]
        if q > 0:  # Heuri4's lanes: a key that cannot land now may land next turn
            e_all, p_all = e_all_tab[li], p_all_tab[li]
            e = (1 - q) * e_d + q * e_all
            p = (1 - q) * p_d + q * p_all
        cost = self._leave_cost(rack, U, bag_size, li)  # None, or (n,) points subtracted from v
        terms = {} if cost is None else {"leave": -cost}
        fut = self._blank_future(rack, bag_size, lv, e_tab, p_tab, li)
        if fut is not None:  # a kept blank's bingo chance on the turn after next (Heuri4)
            cost = -fut if cost is None else cost - fut
            terms["blank"] = fut
        pw = self._tile_power(rack, U, bag_size, lv, p_tab, li)
        if pw is not None:  # the next non-bingo move's scoring power of the tiles kept (Heuri4)
            cost = -pw if cost is None else cost - pw
            terms["power"] = pw
        lanes_term = np.zeros(len(moves))  # − w_opp·Δe_opp, set where a placement is re-valued
        if opp_w > 0:
            terms["lanes"] = lanes_term
        base = {"terms": terms} if cost is None else {"d": cost, "terms": terms}
        if self.top == 0 and not self.exact:
            # nothing to re-value: every move by δ of the current board (the re-valued
            # moves' ranking below would put the exchanges and the pass above every placement)
            self.last_revalued = 0
            return e, p, base
        rows_k = key_rows(self.pack)
        runs_k = key_runs(self.pack)
        if opp_on:  # the opponent's rack: R tiles of U, p(s | ∅) (Heuri4, opponent term)
            no_leave = np.zeros(spec.n_kinds, np.int64)
            c_opp = comb(N, R)

        def refine(order, e, p, v, should_stop=None):
            v0 = v
            e = e.copy(); p = p.copy(); v = v.copy()
            ed = e_d.copy(); pd = p_d.copy()  # by δ alone (= e, p unless lanes > 0)
            holding = {}  # leave code → bitset of the keys holding that leave
            rev = moves["kind"] != 0  # exchanges, pass: the board does not change, δ is exact
            placements = order[moves["kind"][order] == 0]
            chosen = placements if self.exact else placements[: self.top]
            bound = None
            if self.prune and len(chosen) > 1:
                e_up = e_all_tab
                ub = moves["score"].astype(np.float64) + e_up[li]
                if cost is not None:
                    ub = ub - cost
                if opp_on:  # closing lanes gains at most the opponent's whole expectation,
                    # which is our empty leave's e when the bag can fill our rack (the same draw)
                    if e_o_known is not None:
                        e_o = e_o_known
                    elif bag_size >= R:
                        e_o = float(e_tab[0])
                    else:
                        e_o = float(leave_table(self.pack, no_leave, U, bd.delta, self._val, N)[1][0])
                    ub = ub + opp_w * e_o
                chosen = chosen[np.argsort(-ub[chosen], kind="stable")]
                bound = ub
                fixed = v[moves["kind"] != 0]
                best = fixed.max() if len(fixed) else -np.inf
            self.last_revalued = 0

            def revalue(i):
                self.last_revalued += 1
                rev[i] = True
                t = R - int(lv[i].sum())
                draws = not (t > bag_size or t > N or t < 0)
                if not draws and not opp_on:
                    return
                rows, cols, tiles = _new_squares(moves[i])
                after = bd.bits_after(rows, cols, tiles)
                de = dp = d_opp = 0.0
                code = int(li[i])
                if code not in holding:  # one bitset per distinct leave
                    holding[code] = bd.ix.holding(lv[i])
                if opp_on:  # our sums and the change of the opponent's bingo expectation
                    de, dp, d_opp = _delta_sums_ov(bd.delta_bits, after, holding[code], runs_k,
                                                   self._val, U, lv[i].astype(np.int64), t, cu,
                                                   draws, ov)
                    d_opp = opp_w * d_opp / c_opp
                else:
                    de, dp = _delta_sums(bd.delta_bits, after, holding[code], rows_k, self._val, U,
                                         lv[i].astype(np.int64), t, cu)
                if de or dp or d_opp:
                    if de or dp:
                        c = comb(N, t)
                        ed[i] = max(ed[i] + de / c, 0.0)
                        pd[i] = max(pd[i] + dp / c, 0.0)
                        e[i] = ed[i] if q == 0 else (1 - q) * ed[i] + q * e_all[i]
                        p[i] = pd[i] if q == 0 else (1 - q) * pd[i] + q * p_all[i]
                    v[i] = moves["score"][i] + e[i] - d_opp - (0.0 if cost is None else cost[i])
                    lanes_term[i] = -d_opp

            stopped = False
            for i in chosen:
                if bound is not None:
                    if bound[i] < best:
                        break
                if should_stop is not None and should_stop():
                    stopped = True
                    break
                revalue(i)
                if bound is not None:
                    best = max(best, v[i])
            # A ranking is read in the order of the v it shows: a placement left with its
            # current-board v above the best re-valued v would be listed above the move
            # played. Re-value those too (rare: only past the top N), best first, until none
            # is left above the best; then every move is ordered by the v it shows.
            top_v = v[rev].max() if rev.any() else -np.inf
            for i in order:  # in decreasing order of the current-board v, v0
                if v0[i] < top_v or stopped:
                    break
                if not rev[i]:
                    if should_stop is not None and should_stop():
                        break
                    revalue(i)
                    top_v = max(top_v, v[i])
            final = order[np.lexsort((np.arange(len(order)), -v[order]))]
            return final.astype(np.int64), e, p, v, rev

        return e, p, {**base, "refine": refine}

    #: weight of the opponent's bingo term (0 in Heuri_3; see :class:`Heuri4`)
    opponent = 0.0
    #: weight of "every key lands" in e (0 in Heuri_3; see :class:`Heuri4`)
    lanes = 0.0

    def _draw_weights(self, U):
        """The weights of our next draw, (K, D) float64: the uniform draw from the unseen
        tiles ``U`` (:func:`heuri.eval.probability.draw_weights`); :class:`Heuri6` with
        ``draw=1`` draws from what the opponent likely left in the bag."""
        return draw_weights(U)

    def _opponent_terms(self, ov, U, bd):
        """The opponent's per-key terms and, when they are not the uniform draw's, their
        whole expectation on the current board (the bound of the pruned re-valuation):
        ``(ov, None)`` here, their rack R tiles of U (:class:`Heuri6` draws it from what
        they likely kept)."""
        return ov, None

    def _leave_cost(self, rack, U, bag_size, li):
        """Points subtracted from each candidate's v for its leave, (n,) float64, or None
        (Heuri_3: none; see :class:`Heuri4`)."""
        return None

    #: weight of a kept blank's bingo chance on the turn after next (0 in Heuri_3; see
    #: :class:`Heuri4`)
    future = 0.0
    #: weight of the tiles' scoring power (0 in Heuri_3; see :class:`Heuri4`)
    power = 0.0

    def _tile_power(self, rack, U, bag_size, lv, p_tab, li):
        """Points added to each candidate's v for the scoring power of the next rack, (n,)
        float64, or None when ``power`` is 0:
        ``power``·(1 − p(L))·(Σ_x L_x·w_x + t·w̄_U), with w the pack's tile power
        (:attr:`heuri.pack.LanguagePack.tile_power`: the points one tile adds to the best
        non-bingo move), t the tiles drawn (R − |L|, at most the bag) and w̄_U the mean
        power of the unseen tiles (what a drawn tile brings on average). A next turn that
        is a bingo (probability p(L), δ of the current board) is valued by e; the others
        score the mean non-bingo move (the bingo offset) plus what the rack's tiles add.
        None too when the bag is empty: a tile kept then is a tile that may be stuck on the
        rack at the end (the endgame search's business, not a leave's). Raises PackError
        when the pack has no tile power."""
        if self.power <= 0 or bag_size <= 0:
            return None
        w = self.pack.tile_power
        R = self.spec.rack_size
        N = int(U.sum())
        wbar = float(U @ w) / N if N else 0.0
        t = np.clip(np.minimum(R - lv.sum(axis=1).astype(np.int64), min(int(bag_size), N)), 0, None)
        return self.power * (1.0 - p_tab[li]) * (lv.astype(np.float64) @ w + t * wbar)

    def _blank_future(self, rack, bag_size, lv, e_tab, p_tab, li):
        """Points added to each candidate's v for the blanks its leave keeps, (n,) float64,
        or None when ``future`` is 0, the rack has no blank, or the bag cannot refill a rack
        twice: ``future``·(1 − p(L))·(e(B) − e(∅)), B the leave's blanks alone. A blank that
        does not make a bingo next turn (probability 1 − p(L)) is still held, and is worth
        its bingo expectation again on the turn after (e of the blanks alone with a fresh
        draw, on the current board: the same keys, δ and pool). Heuri's e looks one turn
        ahead only, so a blank spent on an ordinary move costs just its next-turn share."""
        b = self.spec.blank
        if self.future <= 0 or rack[b] == 0:
            return None
        R = self.spec.rack_size
        if bag_size is None or bag_size < 2 * R:
            return None
        only = np.zeros((int(rack[b]) + 1, len(rack)), lv.dtype)
        only[:, b] = np.arange(int(rack[b]) + 1)
        e_b = e_tab[_leave_codes(rack, only)]  # e of 0, 1, 2 blanks alone
        gain = e_b[lv[:, b].astype(np.int64)] - e_b[0]
        return self.future * (1.0 - p_tab[li]) * gain


#: mean score of a non-bingo placement in real games, points: a bingo next turn
#: is worth its score *less* the move the rack would have made anyway. English: 26.9 over
#: the 2,087 non-bingo placements of 129 English tournament records (657 bingos there
#: average 78.7; tests/data/gcg holds a sample of that collection); the other languages:
#: the same figure from their records (few: es 28.3 over 13, fr 26.3 over 16), rounded.
NON_BINGO_SCORE = {"en": 27.0, "es": 28.0, "fr": 26.0}


class Heuri4(Heuri3):
    """Heuri_3 plus two board- and pool-aware terms, both computed every turn
    from probabilities on the real board and the unseen pool (nothing learned):

        v = j + e − c(L) − w_opp·Δe_opp

    - ``c(L)``: the expected playability cost of the next rack, L plus a hypergeometric
      draw from U (vowel/consonant balance, duplicates, a Q without a U):
      :func:`heuri.leave_quality.next_rack_cost` with ``weights``
      (:class:`heuri.leave_quality.LeaveWeights`); ``leave=False`` turns it off.
    - ``Δe_opp``: the change, from the board before the move to the board after it, of the
      opponent's bingo expectation Σ_s δ(s)·p(s | ∅)·(50 + kσ(s)), their rack drawn from U
      (R tiles; the same keys and δ as our e); computed for the placements re-valued with δ
      of the board after the move (exchanges and the pass do not change the board);
      ``opponent`` is its weight w_opp (1.0; 0 turns it off).
    - every bingo value (ours and the opponent's) is 50 + kσ(s) − ``offset``: a bingo next
      turn replaces the move the rack would have made anyway, so only its excess over a
      non-bingo move counts (the paper's e counts the whole bingo, as if a non-bingo turn
      scored 0). Default: :data:`NON_BINGO_SCORE` of the language (the mean non-bingo
      score in real games; 0 for a language without a figure).

    - ``lanes`` q (0 by default): e = (1 − q)·e(L | δ after the move) + q·e(L | every key
      lands), the same blend for p: the opponent's reply opens lanes as well as it closes
      them, so a key that cannot land right after our move may land on our next turn
      (Heuri_3 is q = 0; q = 1 values every septet and reduced octet as landing).
    - ``future`` w (0 by default): + w·(1 − p(L))·(e(B) − e(∅)) for a leave L that keeps the
      blanks B: a blank not used in a bingo next turn is still held on the turn after
      (:meth:`Heuri3._blank_future`); off when the bag holds fewer than two racks.
    - ``power`` (0 by default; 1 in :class:`Heuri5`): the scoring power of the next rack,
      :meth:`Heuri3._tile_power`.

    Other options as :class:`Heuri3`."""

    name = "heuri4"

    def __init__(self, pack, k: float = 2.5, top: int = 20, exact: bool = False, prune: bool = True,
                 opponent: float = 1.0, leave: bool = True, weights=None, offset: float | None = None,
                 lanes: float = 0.0, future: float = 0.0, power: float = 0.0):
        import math

        from .leave_quality import DEFAULT_WEIGHTS, RackKinds

        for key, x in (("power", power), ("future", future), ("offset", offset), ("lanes", lanes),
                       ("opponent", opponent)):
            # NaN passes every `< 0` check below and poisons every value: refused first
            if x is not None and not (isinstance(x, (int, float)) and math.isfinite(x)):
                raise EvaluatorError(f"{self.name}: {key} must be a finite number, got {x!r}")
        if power < 0:
            raise EvaluatorError(f"{self.name}: power must be >= 0, got {power}")
        self.power = float(power)

        if future < 0:
            raise EvaluatorError(f"heuri4: future must be >= 0, got {future}")
        self.future = float(future)

        if offset is None:
            offset = NON_BINGO_SCORE.get(pack.spec.code, 0.0)
        if offset < 0:
            raise EvaluatorError(f"heuri4: offset must be >= 0, got {offset}")
        self.bingo_offset = float(offset)
        if not 0 <= lanes <= 1:
            raise EvaluatorError(f"heuri4: lanes must be in [0, 1], got {lanes}")
        self.lanes = float(lanes)
        super().__init__(pack, k, top, exact, prune)
        if opponent < 0:
            raise EvaluatorError(f"heuri4: opponent must be >= 0, got {opponent}")
        self.opponent = float(opponent)
        self.leave = bool(leave)
        self.weights = DEFAULT_WEIGHTS if weights is None else weights
        self._kinds = RackKinds(self.spec)

    def _leave_cost(self, rack, U, bag_size, li):
        if not self.leave:
            return None
        from .leave_quality import next_rack_cost
        from .probability import sub_multisets

        return next_rack_cost(self._kinds, sub_multisets(rack), U, bag_size, self.weights)[li]


class Heuri5(Heuri4):
    """:class:`Heuri4` plus the scoring power of the next rack, and the
    opponent's lanes weighted 3:

        v = j + e − c(L) − 3·Δe_opp + (1 − p(L))·(Σ_x L_x·w_x + t·w̄_U)

    ``w`` is the pack's tile power (:attr:`heuri.pack.LanguagePack.tile_power`, from
    pipeline/tile_power.py: the points one tile on the rack adds to the best non-bingo
    move, measured by the move generator on midgame boards); ``t`` the tiles drawn and
    ``w̄_U`` the mean power of the unseen tiles (:meth:`Heuri3._tile_power`). Heuri's e
    values a next turn that is a bingo; Heuri4 valued every other next turn alike (the
    bingo offset), so that keeping a Z or an X looked worse than keeping an I (the Z cuts
    the bingo chances and nothing counted the points it scores). The opponent's term is
    weighted 3, not 1: their rack is not a random draw (they keep leaves for bingos: the
    racks of the English match records bingo 1.25 times as often as random racks from the
    same unseen tiles would), a lane left open stays open for the turns after, and it also
    opens scoring spots that are not bingos; the weight was chosen by paired matches
    against MAGPIE (en, fr) and heuri2 (es) among 1, 1.5, 2, 3 and 4 (README, "Strength
    against the peers"). The other terms and options as :class:`Heuri4` (``power`` = 1.0
    and ``opponent`` = 3.0 here). Raises PackError (on the first decision) for a pack
    built without the tile power."""

    name = "heuri5"

    def __init__(self, pack, power: float = 1.0, opponent: float = 3.0, **options):
        super().__init__(pack, power=power, opponent=opponent, **options)


class Heuri6(Heuri5):
    """:class:`Heuri5` whose opponent's term draws their rack from what they likely kept:

        v = j + e − c(L) − 3·Δe_opp' + (1 − p(L))·(Σ_x L_x·w_x + t·w̄_U)

    ``Δe_opp'`` is Heuri5's change of the opponent's bingo expectation with their next
    septet's probability the posterior predictive Σ_L π(L)·p(s | L) over what they kept
    (:func:`heuri.eval.probability.opponent_mixture`) instead of the uniform p(s | ∅): a
    player who played two tiles and kept five kept them for a reason, and a lane opened
    for them is worth more than a random rack says; one who just played seven tiles holds
    a random draw. The posterior (leaves and their probabilities) comes from
    :mod:`heuri.search.inference`, set by the player before each decision with
    :meth:`set_opponent_leaves`; without one (the first move, a position given alone)
    Heuri6 values every move as Heuri5. Options as :class:`Heuri5`, and ``draw`` (0; 1
    also draws our own next rack from what they likely left in the bag: the keys' chances
    in ``e`` and ``p`` weighted by :func:`heuri.eval.probability.own_draw_weights`)."""

    name = "heuri6"

    def __init__(self, pack, samples: int = 24, temperature: float = 6.0, draw: int = 0, **options):
        super().__init__(pack, **options)
        if not (1 <= samples <= 100000) or samples != int(samples) or not temperature > 0:
            raise EvaluatorError(f"heuri6: samples must be a whole number 1..100000 and temperature > 0, "
                                 f"got {samples} and {temperature}")
        if draw not in (0, 1):
            raise EvaluatorError(f"heuri6: draw must be 0 or 1, got {draw}")
        #: 1: our next draw comes from what the opponent likely left in the bag
        self.draw = int(draw)
        #: the inference's budget, read by the player that runs it: racks valued (every
        #: leave when there are at most that many) and the model's temperature τ (points)
        self.samples = int(samples)
        self.temperature = float(temperature)
        self._posterior = None  # (leaves (m, K) int64, posterior, prior (m,) float64) or None
        self._deciding = None  # the posterior of the decision under way

    def set_opponent_leaves(self, leaves, posterior, prior=None) -> None:
        """What the opponent kept, for the next decision only: ``leaves`` (m, K) counts (the
        blank last), ``posterior`` and ``prior`` (m,) their probabilities after and before
        their move (:class:`heuri.search.inference.LeaveInference`); ``None`` forgets it.
        Leaves that the next position's unseen tiles cannot hold are left out then."""
        if leaves is None:
            self._posterior = None
            return
        post = np.asarray(posterior, np.float64)
        self._posterior = (np.asarray(leaves, np.int64).reshape(len(post), -1), post,
                           np.asarray(prior, np.float64))

    def _values(self, letters, blanks, rack, U, bag_size, moves, lv):
        # the posterior is this decision's alone, used or not (the opponent's term is off
        # when the unseen tiles cannot fill their rack)
        self._deciding, self._posterior = self._posterior, None
        return super()._values(letters, blanks, rack, U, bag_size, moves, lv)

    def _draw_weights(self, U):
        post = self._deciding
        if post is None or not self.draw:
            return super()._draw_weights(U)
        from .probability import own_draw_weights

        return own_draw_weights(U, post[0], post[1], post[2], self.spec.rack_size)

    def _opponent_terms(self, ov, U, bd):
        post = self._deciding
        if post is None:
            return ov, None
        from .probability import opponent_mixture

        ov = opponent_mixture(self.pack, bd.ix.holding, U, post[0], post[1], post[2], ov)
        return ov, float(ov[np.asarray(bd.delta, bool)].sum()) / comb(int(U.sum()), self.spec.rack_size)


from .engines import DEFAULT_ENGINE  # noqa: E402,F401  (re-exported: the front ends' default)

#: evaluator name → class (the names of :data:`heuri.eval.engines.EVALUATOR_NAMES`); the
#: registry's variants (``heuri4-leave``, ...) are these classes with options
EVALUATORS = {"greedy": Greedy, "heuri1": Heuri1, "heuri2": Heuri2, "heuri3": Heuri3,
              "heuri4": Heuri4, "heuri5": Heuri5, "heuri6": Heuri6}


def evaluator_class(name: str) -> type[Evaluator] | None:
    """The class of an evaluator or registry engine name (``heuri4-leave`` → :class:`Heuri4`),
    None for a name the registry does not know."""
    from .engines import evaluator_of

    try:
        return EVALUATORS.get(evaluator_of(name)[0])
    except KeyError:
        return None


def engine_options(name: str, k: float | None = None, top_n: int | None = None, exact: bool = False,
                   penalty: bool = True) -> dict:
    """The options of :func:`make_evaluator` that a front end's settings give (``heuri
    best``, SIU's ``K``/``BestN``, ``heuri serve``), written once for all of them: ``k``
    (bingo value 50 + k·σ, docs/method.md) for every engine but greedy; ``top`` (placements
    re-valued with δ after the move) and ``exact`` for the engines that re-value (heuri3
    and the heuri4 family); ``penalty`` for heuri1. None or the default leaves the
    engine's own default; values are not checked here (each front end says what is wrong
    in its own terms).

    >>> engine_options("heuri4", k=2.0, top_n=30)
    {'k': 2.0, 'top': 30}
    >>> engine_options("greedy", k=2.0, top_n=30)
    {}
    """
    cls = evaluator_class(name)
    opts: dict = {}
    if name != "greedy" and k is not None:
        opts["k"] = float(k)
    if cls is not None and issubclass(cls, Heuri3):
        if top_n is not None:
            opts["top"] = int(top_n)
        if exact:
            opts["exact"] = True
    if cls is Heuri1 and not penalty:
        opts["penalty"] = False
    return opts


def make_evaluator(pack, name: str = "heuri3", **options) -> Evaluator:
    """The evaluator called ``name`` for ``pack``, with its options (see each class): an
    evaluator (greedy, heuri1 .. heuri5) or a registry variant of one (``heuri4-leave``:
    :class:`Heuri4` with the variant's options, ``options`` applied over them; the
    evaluator's ``name`` is then the variant's). Raises EvaluatorError for an unknown name
    or option."""
    from .engines import ENGINES, evaluator_of

    try:
        base, preset = evaluator_of(name)
    except KeyError:
        names = list(EVALUATORS) + [n for n, e in ENGINES.items() if e.options]
        raise EvaluatorError(f"unknown evaluator {name!r}; choose one of {', '.join(names)}") from None
    try:
        ev = EVALUATORS[base](pack, **{**preset, **options})
    except TypeError as ex:
        raise EvaluatorError(f"{name}: {ex}") from None
    if base != name:
        ev.name = name
    return ev

#: the compiled kernels of this module whose numba cache tells whether a first run compiles
#: (read by the command line's compile notice, ``heuri.apps.cli.kernels_cached``)
CACHED_KERNELS = (_delta_sums_ov,)
