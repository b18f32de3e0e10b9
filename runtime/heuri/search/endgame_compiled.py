"""The compiled endgame search: :class:`CompiledSearch` drives the numba kernels of
:mod:`heuri.search.endgame_core` (every node compiled, the tables as preallocated arrays)
for :meth:`heuri.search.endgame.EndgameSearch.search`, and reads their principal variation
back as moves. The same search as :mod:`heuri.search.endgame_reference`, node for node;
the module docstring of :mod:`heuri.search.endgame` describes the method. The class is a
part of :class:`~heuri.search.endgame.EndgameSearch` and reads its state."""
from __future__ import annotations

import threading
import time

import numpy as np

from . import endgame_core as core
from .endgame_base import INF, EndgameResult, child_order, rack_value


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


class CompiledSearch:
    """The compiled endgame search (see the module docstring); a part of
    :class:`heuri.search.endgame.EndgameSearch`."""

    #: the compiled search's arena of move lists (moves): 400 a move list of the limit, within
    #: these bounds; when it fills, an iteration forgets the lists and starts again once
    ARENA_MIN, ARENA_MAX = 262_144, 4_000_000

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
                                      np.uint64(ropp), vopp, sl, depth, -INF, INF, 0, -1, 0, 0, 0, *so)
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
                                         vme, sl1, depth, -INF, INF, ply + 1, *s2, start, n, lead, ply)
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
                                             row, u64(lh), lv, s_l, depth - 1, -INF, INF, ply + 1, *s2, start, n,
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
        return child_order(base, 0 if lead > 0 else None, tt_move)

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
