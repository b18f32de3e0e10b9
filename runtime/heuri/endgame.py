"""Endgame search: with the bag empty both racks are known, so the rest of the game is a
two-player game of perfect information; search it.

Why (issue 5; HEURI.md): with an empty bag Heuri's e(L) is 0 for every leave, so every
heuri evaluator would play greedily and throw away games that are won by going out in two
moves, by blocking, or by not getting stuck with a high tile.

Method: negamax with alpha-beta pruning (Knuth & Moore, "An analysis of alpha-beta
pruning", Artificial Intelligence 6, 1975) over both players' placements and the pass,
inside iterative deepening (depth 1, 2, ... plies). The value of a line is the spread it
adds, from the point of view of the player to move, up to the end of the game:

- a placement that empties the mover's rack ends the game; the mover gains its score plus
  the end-of-game swing (``end_rule`` "double": +2·opponent's rack; "transfer": +rack to the
  mover and −rack to the opponent: the same +2·rack on the spread);
- when the scoreless turns reach ``spec.max_scoreless_turns`` the game ends and each player
  loses their own rack;
- at the depth limit (the horizon) a line that has not ended is valued as its spread plus
  the opponent's rack value minus the mover's (tiles still on a rack at the end count
  against their owner); the value is exact only when no line reached the horizon.

Limits: ``max_generations`` calls of the move generator (the costly part; move lists are
cached by board and rack, so deeper iterations reuse the shallower ones) and ``max_nodes``
visited positions. Both are counts, not times, so the same position always gives the same
move (a match replays exactly from its seed). When even the depth-1 search does not fit the
limits, :meth:`EndgameSearch.search` returns None and the caller plays its fallback (greedy:
the top-scoring move). ``width`` keeps only the best-scoring placements of each position
(plus every move that goes out and the pass); None keeps them all (exact search).

>>> EndgameSearch.__init__.__defaults__
(20000, 1500, 12, 10)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import HeuriError


class EndgameError(HeuriError):
    """An endgame search was asked for a position it cannot search (the bag is not empty or
    a rack is unknown)."""


class _OutOfBudget(Exception):
    """Raised inside the search when a node or generation limit is reached."""


@dataclass
class EndgameResult:
    """Outcome of a search.

    - ``move``: the chosen move (:class:`heuri.move.Move`);
    - ``value``: spread (points) the move adds from now to the end of the game for the
      player to move, against the best reply found (horizon-estimated unless ``exact``);
    - ``final_spread``: the mover's score minus the opponent's at the end of that line;
    - ``exact``: the search reached the end of the game on every line (and no width limit
      removed a move), so ``value`` is the true minimax value;
    - ``depth``: plies of the last completed iteration; ``nodes``, ``generations``: the
      positions visited and move-generator calls spent; ``pv``: the expected line (moves
      of both players, the chosen move first).
    """

    move: object
    value: int
    final_spread: int
    exact: bool
    depth: int
    nodes: int
    generations: int
    pv: list = field(default_factory=list)


def _dtype():
    from .movegen import MOVE_DTYPE

    return MOVE_DTYPE


def rack_value(values: np.ndarray, rack: np.ndarray) -> int:
    """Sum of face values of a count vector (points); ``values``: (L+1,) int64."""
    return int(np.dot(values, rack))


class EndgameSearch:
    """Alpha-beta endgame search for one language pack (see the module docstring).

    Parameters: ``pack`` (LanguagePack); ``max_nodes`` (positions visited per search);
    ``max_generations`` (move-generator calls per search); ``width`` (placements kept per
    position, best scores first; None = all); ``max_depth`` (plies).
    """

    def __init__(self, pack, max_nodes: int = 20000, max_generations: int = 1500, width: int | None = 12,
                 max_depth: int = 10):
        self.pack = pack
        self.spec = pack.spec
        self.values = self.spec.value_vector()
        self.L = self.spec.n_letters
        self.max_nodes = max_nodes
        self.max_generations = max_generations
        self.width = width
        self.max_depth = max_depth
        self._cache: dict = {}

    # -- moves --------------------------------------------------------------------------------
    def _moves(self, letters: np.ndarray, blanks: np.ndarray, rack: np.ndarray):
        """Placements of ``rack`` on the board, ordered for the search: moves that go out
        first, then by score (descending), ties in generator order. Returns
        ``(records, full)``: a MOVE_DTYPE array (width-limited) and whether nothing was cut."""
        key = (letters.tobytes(), blanks.tobytes(), rack.tobytes())
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        if self._gens >= self.max_generations:
            raise _OutOfBudget
        self._gens += 1
        from .movegen import generate

        recs = generate(self.pack, letters, blanks, rack, bag_size=0, exchanges=False)
        recs = recs[recs["kind"] == 0]
        n_rack = int(rack.sum())
        out = recs["n_tiles"].astype(np.int64) == n_rack
        # stable sort: going out first, then score descending
        order = np.lexsort((-recs["score"].astype(np.int64), ~out))
        recs = recs[order]
        full = True
        if self.width is not None and len(recs) > self.width:
            n_out = int(out.sum())
            keep = max(self.width, n_out)
            full = keep >= len(recs)
            recs = recs[:keep]
        res = (recs, full)
        self._cache[key] = res
        return res

    def _apply(self, letters, blanks, rec):
        """Board arrays after placing a MOVE_DTYPE record's new tiles (copies)."""
        n = int(rec["length"])
        idx = np.arange(n)
        new = rec["new"][:n]
        if rec["across"]:
            rr = np.full(n, int(rec["row"])); cc = int(rec["col"]) + idx
        else:
            rr = int(rec["row"]) + idx; cc = np.full(n, int(rec["col"]))
        l2 = letters.copy(); b2 = blanks.copy()
        l2[rr[new], cc[new]] = rec["tiles"][:n][new]
        b2[rr[new], cc[new]] = rec["blank"][:n][new]
        return l2, b2

    def _used(self, rec) -> np.ndarray:
        """Count vector (L+1,) of the rack tiles a record uses (blank = L)."""
        n = int(rec["length"])
        new = rec["new"][:n]
        ids = np.where(rec["blank"][:n], self.L, rec["tiles"][:n].astype(np.int64))[new]
        return np.bincount(ids, minlength=self.L + 1).astype(np.int64)

    def _end_swing(self, out_rack_value: int) -> int:
        """Spread change for the player who goes out when the opponent holds
        ``out_rack_value`` points: +2×rack under both end rules (double: +2R to the mover;
        transfer: +R to the mover, −R to the opponent)."""
        return 2 * out_rack_value

    # -- search -------------------------------------------------------------------------------
    def _negamax(self, letters, blanks, me, opp, scoreless, depth, alpha, beta, pv_out):
        """Value (spread from now to the end, for the player to move, rack ``me``)."""
        self._nodes += 1
        if self._nodes > self.max_nodes:
            raise _OutOfBudget
        v_me = rack_value(self.values, me)
        v_opp = rack_value(self.values, opp)
        if depth == 0:
            self._horizon = True
            return v_opp - v_me
        recs, full = self._moves(letters, blanks, me)
        if not full:
            self._cut = True
        n_me = int(me.sum())
        best = -10 ** 9
        best_pv: list = []
        # the pass (and any zero-score placement) counts toward the scoreless-turn end
        children = list(range(len(recs))) + [-1]
        for i in children:
            line: list = []
            if i < 0:
                s = 0
                if scoreless + 1 >= self.spec.max_scoreless_turns:
                    val = -v_me + v_opp
                else:
                    val = -self._negamax(letters, blanks, opp, me, scoreless + 1, depth - 1, -beta, -alpha, line)
                move = None
            else:
                rec = recs[i]
                s = int(rec["score"])
                used = self._used(rec)
                left = me - used
                if int(rec["n_tiles"]) == n_me:
                    val = s + self._end_swing(v_opp)
                else:
                    l2, b2 = self._apply(letters, blanks, rec)
                    sl = scoreless + 1 if s == 0 else 0
                    if sl >= self.spec.max_scoreless_turns:
                        val = s - rack_value(self.values, left) + v_opp
                    else:
                        val = s - self._negamax(l2, b2, opp, left, sl, depth - 1, -beta, -alpha, line)
                move = rec
            if val > best:
                best = val
                best_pv = [move] + line
            if best > alpha:
                alpha = best
            if alpha >= beta:
                break
        pv_out[:] = best_pv
        return best

    def search(self, position) -> EndgameResult | None:
        """Search ``position`` (a :class:`heuri.game.Position` with an empty bag) for the
        player to move. Returns an :class:`EndgameResult`, or None when the depth-1 search
        does not fit the limits (play the fallback). Raises EndgameError when the bag is
        not empty or the opponent's rack is unknown."""
        if position.bag_size != 0:
            raise EndgameError(f"endgame search needs an empty bag; the bag holds {position.bag_size} tiles")
        if any(position.hidden):
            raise EndgameError("endgame search needs both racks; the opponent's rack is unknown")
        board = position.board
        letters = np.ascontiguousarray(board.letters, dtype=np.int8)
        blanks = np.ascontiguousarray(board.blanks, dtype=bool)
        me = np.asarray(position.rack, dtype=np.int64).copy()
        # with the bag empty, the unseen tiles are exactly the opponent's rack
        opp = np.asarray(position.unseen(), dtype=np.int64).copy()
        spread0 = int(position.scores[position.to_move]) - sum(
            int(s) for i, s in enumerate(position.scores) if i != position.to_move)
        self._cache = {}
        self._nodes = 0
        self._gens = 0
        found = None
        for depth in range(1, self.max_depth + 1):
            self._horizon = False
            self._cut = False
            pv: list = []
            try:
                val = self._negamax(letters, blanks, me, opp, int(position.scoreless), depth,
                                    -10 ** 9, 10 ** 9, pv)
            except _OutOfBudget:
                break
            found = (val, depth, pv, not self._horizon and not self._cut)
            if not self._horizon:
                break  # every line reached the end of the game: deeper plies change nothing
        if found is None:
            return None
        val, depth, pv, exact = found
        from .move import Move, Pass

        moves = [Pass() if r is None else Move.from_record(r, self.spec) for r in pv]
        return EndgameResult(move=moves[0], value=int(val), final_spread=spread0 + int(val), exact=exact,
                             depth=depth, nodes=self._nodes, generations=self._gens, pv=moves)
