"""The endgame search in Python: the reference the compiled search is checked against.

:class:`ReferenceSearch` holds the search of :meth:`heuri.search.endgame.EndgameSearch.search_py`
(and of :meth:`~heuri.search.endgame.EndgameSearch.analyse`): negamax with alpha-beta,
principal-variation search, iterative deepening, a transposition table and a table of
bounds proven to the end of the game, stale moves from the line's earlier move lists, in
Python around the compiled move generator (:class:`heuri.search.endgame_kernels.FastGen`).
The module docstring of :mod:`heuri.search.endgame` describes the method; the class is a
part of :class:`~heuri.search.endgame.EndgameSearch` and reads its state (the pack's
numbers, the Zobrist words, the limits, the board being searched)."""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from .endgame_base import EXACT, INF, LOWER, PROVEN, UPPER, EndgameResult, OutOfBudget, child_order, rack_value
from .endgame_kernels import build_order, stale_best


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
        raw = self.raw
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


class ReferenceSearch:
    """The Python endgame search (see the module docstring); a part of
    :class:`heuri.search.endgame.EndgameSearch`."""

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
            raise OutOfBudget("move lists")
        if self._deadline is not None and time.perf_counter() > self._deadline:
            raise OutOfBudget("time")
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
        lo, hi = pb if pb is not None else (-INF, INF)
        if flag != UPPER and v > lo:
            lo = v
        if flag != LOWER and v < hi:
            hi = v
        self._pb[key] = (lo, hi)

    def _tick(self):
        self._nodes += 1
        if self._nodes > self.max_nodes:
            raise OutOfBudget("nodes")
        if (self._nodes & 255) == 0:
            if self._deadline is not None and time.perf_counter() > self._deadline:
                raise OutOfBudget("time")
            if self._stop is not None and self._stop():
                raise OutOfBudget("stop")

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
                proven = d >= PROVEN
                if flag == EXACT:
                    return v, proven
                if flag == LOWER and v >= beta:
                    return v, proven
                if flag == UPPER and v <= alpha:
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
                self._tt[key] = (bt, LOWER, PROVEN, -2)
                self._prove(key, bt, LOWER)
                return bt, True
            if b >= beta:
                self._stale_cuts += 1
                self._tt[key] = (b, LOWER, 1, -2)
                return b, False
        elif depth > 1 and st_me is not None and (ent is None or ent[3] == -2) and (bh, rme) not in self._ml:
            # an interior node met for the first time: the best placement of the mover's
            # earlier list that this board still allows is searched before any move list is
            # made here; when it refutes the opponent's move, none is needed
            got = self._stale_first(bh, me, rme, vme, opp, ropp, vopp, sl, depth, alpha, beta, ply, st_me, st_opp)
            if got is not None:
                val, pr = got
                self._stale_cuts += 1
                self._tt[key] = (val, LOWER, PROVEN if pr else depth, -2)
                if pr:
                    self._prove(key, val, LOWER)
                return val, pr
        ml = self._moves(bh, me, rme)
        if depth == 1:
            return self._last_ply(key, ml, bh, me, rme, vme, opp, ropp, vopp, sl, alpha, beta, ply, st_opp)
        if not ml.expanded:
            ml.expand(self)
        proven = ml.full
        best = -INF
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
                    val, pr = _pvs(child, alpha, beta, best > -INF)
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
                            val, pr = _pvs(child, alpha, beta, best > -INF)
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
            flag = LOWER
            proven = best_proven
        elif best <= a0:
            flag = UPPER
        else:
            flag = EXACT
        self._tt[key] = (best, flag, PROVEN if proven else depth, best_i)
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
        best, best_i, proven = -INF, -2, ml.full
        if ml.n:
            k = int(np.argmax(vals))
            best, best_i = int(vals[k]), k
            if best >= beta:
                pv = np.where(term, vals, -INF)
                kp = int(np.argmax(pv))
                if pv[kp] >= beta:  # a proven lower bound
                    self._tt[key] = (int(pv[kp]), LOWER, PROVEN, kp)
                    self._prove(key, int(pv[kp]), LOWER)
                    return int(pv[kp]), True
                self._tt[key] = (best, LOWER, 1, best_i)
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
            flag = LOWER
            proven = ppr if best_i == -1 else proven
        elif best <= alpha:
            flag = UPPER
        else:
            flag = EXACT
        self._tt[key] = (best, flag, PROVEN if proven else 1, best_i)
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
        return child_order(base, ml.best_out, tt_move)

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
                val, proven = self._negamax(*args, depth, -INF, INF, 0, None, st_opp)
            except OutOfBudget as e:
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
            cv, pr = self._negamax(*nxt, depth, -INF, INF, ply + 1, st_opp, mine)
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
            cv, pr = self._negamax(*nxt, depth - 1, -INF, INF, ply + 1, st_opp, mine)
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
                    st_opp = (ml, ply)
                    ply += 1
            except OutOfBudget:
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
