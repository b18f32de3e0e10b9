"""Simulation: heuri's candidates played forward against sampled racks.

The static engines value a move by its score and what its leave is worth next turn. A
simulation plays each of the engine's best candidates forward two plies, many times, against
racks the opponent may hold, and values it by what happened:

    value(c) = mean over rollouts of  s₀(c) − s₁ + v₂

- ``s₀``: the candidate's score; then we draw from a random bag order;
- ``s₁``: the opponent's reply on a rack drawn from the tiles we cannot see, chosen by the
  fast reply policy (``greedy``: the top score; valuing every leave's bingo chance costs
  most of a heuri policy's time, and the reply's leave is not valued here anyway);
- ``v₂``: our reply's value by the same policy: its score plus the bingo expectation of the
  leave it keeps (heuri's own evaluation of the position two plies on).

Every candidate of a rollout round sees the same opponent rack and the same bag order
(common random numbers), so the differences between candidates are measured with much less
noise than their values. Candidates are allocated by successive halving (Karnin, Koren and
Somekh 2013, "Almost optimal exploration in multi-armed bandits"): the time is cut into
``ceil(log2 n)`` rounds; each round rolls out every candidate still in the race equally
often, then keeps the better half by mean value. A ``stop`` or the clock ends the race; the
answer is the best mean among the candidates still in it.

With an inference of what the opponent kept (:mod:`heuri.search.inference`), each round
draws their leave from its posterior and only the rest of their rack from the unseen tiles.

With ``win``, the race ranks by the chance to win (:mod:`heuri.eval.win_probability`) instead
of the points; with ``threads``, rollouts run on several cores at once.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import HeuriError
from ..core.movegen import PLACEMENT, generate, generate_best, leaves as move_leaves, record_index


class SimulationError(HeuriError):
    """A simulation that cannot run: no candidate, a bad budget."""


@dataclass
class Candidate:
    """One candidate of the race: ``record`` (MOVE_DTYPE), ``static`` (the engine's value,
    points), ``values`` (one per rollout, points), ``alive`` (still in the race), ``pinned``
    (asked for by the caller: never halved out, :meth:`Simulator.simulate`'s ``include``)."""

    record: np.void
    static: float
    leave: np.ndarray
    values: list = field(default_factory=list)
    alive: bool = True
    wins: list = field(default_factory=list)
    pinned: bool = False

    @property
    def win(self) -> float:
        """The mean chance to win over the rollouts (:class:`Simulator` with ``win``), or
        -inf before any (or without a table)."""
        return float(np.mean(self.wins)) if self.wins else float("-inf")

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return float(np.mean(self.values)) if self.values else float("-inf")

    @property
    def stderr(self) -> float:
        n = len(self.values)
        return float(np.std(self.values, ddof=1) / math.sqrt(n)) if n > 1 else float("inf")


@dataclass
class SimResult:
    """``candidates`` (best first: alive by mean, then the eliminated by mean; by mean chance
    to win when the simulator values by it), ``best``
    (MOVE_DTYPE record), ``rollouts`` (rollouts played in all), ``seconds``, ``rounds``
    completed, ``stopped_by`` (``"time"``, ``"stop"``, ``"iterations"`` or ``"done"``)."""

    candidates: list
    best: np.void
    rollouts: int
    seconds: float
    rounds: int
    stopped_by: str


def _place(letters: np.ndarray, blanks: np.ndarray, rec) -> tuple[np.ndarray, np.ndarray]:
    """The board after a MOVE_DTYPE placement (copies; exchanges and passes change nothing)."""
    if int(rec["kind"]) != PLACEMENT:
        return letters, blanks
    letters = letters.copy()
    blanks = blanks.copy()
    r, c, across = int(rec["row"]), int(rec["col"]), bool(rec["across"])
    for i in range(int(rec["length"])):
        if rec["new"][i]:
            rr, cc = (r, c + i) if across else (r + i, c)
            letters[rr, cc] = rec["tiles"][i]
            blanks[rr, cc] = rec["blank"][i]
    return letters, blanks


def _used(rec, n_kinds: int, blank: int) -> np.ndarray:
    """Tiles a move takes from the rack (exchange: the tiles returned), (L+1,) int64."""
    out = np.zeros(n_kinds, np.int64)
    kind = int(rec["kind"])
    n = int(rec["length"])
    if kind == PLACEMENT:
        for i in range(n):
            if rec["new"][i]:
                out[blank if rec["blank"][i] else int(rec["tiles"][i])] += 1
    elif kind == 1:
        for i in range(n):
            out[int(rec["tiles"][i])] += 1
    return out


class Simulator:
    """Successive-halving simulation over a static engine's best candidates.

    - ``pack``: the language pack; ``engine``: the evaluator that picks and pre-values the
      candidates (default ``heuri5``); ``reply``: the evaluator that plays the opponent's
      replies (default ``greedy``); ``policy``: the one that plays and values our reply two
      plies on (default ``heuri2``); ``candidates``: how many of the engine's best moves
      race (default 8); ``seed``: the rollouts' draws; ``win``: race on the chance to win
      (the pack's win-probability table, :meth:`heuri.eval.win_probability.WinProbability.of_pack`)
      instead of the points: each rollout's points, added to the spread, become the chance
      to win with the bag it leaves, and a rollout that ends the game is a win, a draw or a
      loss; ``threads``: rollouts played on that many threads at once (the move generator
      and the evaluators release the GIL: two threads play about 1.8 times the rollouts of
      one on two cores), each on a draw of its own, the values taken in the draws' order
      (an iteration budget gives the same race with any count); ``prior``: rollouts' worth of
      weight on the static value (:meth:`_ranker`; 0, the default: the rollouts alone), so
      that a race of a few rollouts a candidate does not rank by their noise; ``table``:
      the fast rollout (:meth:`_play_out_table`): the opponent's top-scoring placement by
      :func:`heuri.core.movegen.generate_best`, and our move two plies on valued by
      lookup in the table of every leave's bingo expectation
      (:class:`heuri.eval.leave_values.LeaveValues`, Heuri_2's e for the unseen tiles of the
      position raced, built once a race), instead of a Heuri_2 ranking of each rack;
      ``reply_leave`` (with ``table``): the opponent's reply is their best ``j + e(L)`` from
      the same table instead of their top score, so that they keep a leave as a player does
      (about 40 % more time a move). Raises SimulationError for a ``win`` without the
      table, a bad count, ``prior`` with ``win``, or ``reply_leave`` without ``table``.

    With ``threads`` above 1 the rollouts' threads live until :meth:`close` (or the end of a
    ``with`` block); a simulator is used again after it, and starts them again.
    """

    def __init__(self, pack, engine: str = "heuri5", policy: str = "heuri2", candidates: int = 8, seed: int = 0,
                 reply: str = "greedy", win: bool = False, threads: int = 1, prior: float = 0.0,
                 table: bool = False, reply_leave: bool = False):
        from ..eval.evaluate import make_evaluator

        if candidates < 1:
            raise SimulationError(f"candidates {candidates}: give at least 1")
        if not 1 <= threads <= 64:
            raise SimulationError(f"threads {threads}: give 1 to 64")
        if not 0 <= prior <= 1e6:
            raise SimulationError(f"prior {prior}: give a number of rollouts from 0")
        if prior and win:
            raise SimulationError("prior draws the points towards the static value; it does not combine with win")
        if table and (policy != "heuri2" or reply != "greedy"):
            raise SimulationError("table plays greedy replies and values our move by Heuri_2's e: "
                                  f"policy {policy!r} and reply {reply!r} do not apply")
        if reply_leave and not table:
            raise SimulationError("reply_leave values the opponent's leave from the fast rollout's table: give table")
        self.prior = float(prior)
        self.table = bool(table)
        self.reply_leave = bool(reply_leave)
        self.leave_values = None  # the race's LeaveValues, with table
        self.threads = int(threads)
        self._executor = None
        self._workers: list = []
        self.policy_name, self.reply_name = policy, reply
        from ..eval.win_probability import WinProbability

        self.win_table = WinProbability.of_pack(pack) if win else None
        if win and self.win_table is None:
            raise SimulationError(f"the {pack.spec.code} pack has no win-probability table: build it with "
                                  f"snakemake --cores 2 build/{pack.spec.code}/win_probability.parquet")
        self.pack = pack
        self.spec = pack.spec
        self.engine = make_evaluator(pack, engine)
        self.policy = make_evaluator(pack, policy)
        self.reply = make_evaluator(pack, reply)
        self.n_candidates = int(candidates)
        self.rng = np.random.default_rng(seed)

    # -- one rollout ---------------------------------------------------------------------
    def _rollout(self, letters, blanks, rack, unseen, bag_size, cand: Candidate, opp_rack, order, rules) -> float:
        """``s₀ − s₁ + v₂`` for one candidate, the opponent's rack and the bag's order given."""
        return self._play_out(letters, blanks, rack, cand, opp_rack, order, rules)[0]

    def _first_ply(self, letters, blanks, rack, cand: Candidate, opp_rack, order):
        """The candidate played and our draw from ``order``: ``(s₀, letters, blanks, our rack,
        the bag left (a list, in draw order), out)``, ``out`` the rollout's result when we went
        out (the game ends, their rack counts double), else None."""
        spec = self.spec
        nk, blank = spec.n_kinds, spec.n_letters
        rec = cand.record
        s0 = float(rec["score"])
        L1, B1 = _place(letters, blanks, rec)
        ours = rack - _used(rec, nk, blank)
        bag = list(order)
        if int(rec["kind"]) == 1:  # an exchange: the tiles go back, at the bottom of our draw order
            bag = bag + list(np.repeat(np.arange(nk), _used(rec, nk, blank)))
        k = min(spec.rack_size - int(ours.sum()), len(bag))
        for t in bag[:k]:
            ours[t] += 1
        bag = bag[k:]
        out = None
        if int(ours.sum()) == 0 and not bag:
            from ..core.game import rack_value

            out = (s0 + 2.0 * rack_value(spec, opp_rack), 0, True)
        return s0, L1, B1, ours, bag, out

    def _play_out(self, letters, blanks, rack, cand: Candidate, opp_rack, order, rules) -> tuple[float, int, bool]:
        """``(s₀ − s₁ + v₂, tiles left in the bag, the game is over)`` for one rollout."""
        if self.table:
            return self._play_out_table(letters, blanks, rack, cand, opp_rack, order, rules)
        spec = self.spec
        nk, blank = spec.n_kinds, spec.n_letters
        s0, L1, B1, ours, bag, out = self._first_ply(letters, blanks, rack, cand, opp_rack, order)
        if out is not None:
            return out
        # the opponent's reply, valued from their side (they cannot see our rack)
        opp_unseen = np.bincount(np.asarray(bag, np.int64), minlength=nk).astype(np.int64) + ours
        r1 = self.reply.rank_arrays(L1, B1, opp_rack, opp_unseen, len(bag), rules=rules)
        if len(r1) == 0:
            return s0, len(bag), False
        m1 = r1.moves[0]
        s1 = float(r1.j[0])
        L2, B2 = _place(L1, B1, m1)
        theirs = opp_rack - _used(m1, nk, blank)
        k = min(spec.rack_size - int(theirs.sum()), len(bag))
        for t in bag[:k]:
            theirs[t] += 1
        bag = bag[k:]
        # our reply two plies on: its score and the bingo expectation of what it keeps
        our_unseen = np.bincount(np.asarray(bag, np.int64), minlength=nk).astype(np.int64) + theirs
        r2 = self.policy.rank_arrays(L2, B2, ours, our_unseen, len(bag), rules=rules)
        v2 = float(r2.v[0]) if len(r2) else 0.0
        return s0 - s1 + v2, len(bag), False

    def _play_out_table(self, letters, blanks, rack, cand: Candidate, opp_rack, order, rules):
        """:meth:`_play_out` with the fast policies: the opponent's top-scoring placement
        (none: they pass; with ``reply_leave`` their best ``j + e(L)``, an exchange
        included), and our best ``j + e(L)`` two plies on, e looked up in
        :attr:`leave_values` (0 for a leave that needs more tiles than the bag holds)."""
        spec = self.spec
        nk, blank, R = spec.n_kinds, spec.n_letters, spec.rack_size
        s0, L1, B1, ours, bag, out = self._first_ply(letters, blanks, rack, cand, opp_rack, order)
        if out is not None:
            return out
        if self.reply_leave:  # their best j + e(L), every move, e from the race's table
            replies = generate(self.pack, L1, B1, opp_rack, bag_size=len(bag), exchanges=True, rules=rules)
            if len(replies):
                replies = replies[[int(np.argmax(replies["score"] + self._table_e(opp_rack, replies, len(bag))))]]
            best = replies
        else:
            best = generate_best(self.pack, L1, B1, opp_rack, 1, rules=rules)
        s1 = 0.0
        L2, B2, theirs = L1, B1, opp_rack
        if len(best):
            m1 = best[0]
            s1 = float(m1["score"])
            L2, B2 = _place(L1, B1, m1)
            theirs = opp_rack - _used(m1, nk, blank)
            k = min(R - int(theirs.sum()), len(bag))
            for t in bag[:k]:
                theirs[t] += 1
            bag = bag[k:]
            if int(m1["kind"]) == 1:  # an exchange: their tiles go back after the draw
                bag = bag + list(np.repeat(np.arange(nk), _used(m1, nk, blank)))
        moves = generate(self.pack, L2, B2, ours, bag_size=len(bag), exchanges=True, rules=rules)
        if len(moves) == 0:
            return s0 - s1, len(bag), False
        v2 = float(np.max(moves["score"] + self._table_e(ours, moves, len(bag))))
        return s0 - s1 + v2, len(bag), False

    def _table_e(self, rack, moves, bag_size: int) -> np.ndarray:
        """e(L) of each move's leave from :attr:`leave_values` ((m,) float64 points): 0 for a
        leave that needs more tiles than the bag holds, and for the pass, which draws nothing
        (as :meth:`heuri.eval.evaluate.Evaluator.rank_arrays` values them)."""
        lv = move_leaves(rack, moves)
        e = self.leave_values.of(lv)
        e = np.where(self.spec.rack_size - lv.sum(axis=1).astype(np.int64) <= bag_size, e, 0.0)
        return np.where(moves["kind"] == 2, 0.0, e)

    # -- the race --------------------------------------------------------------------------
    def simulate(self, position, seconds: float | None = 1.0, iterations: int | None = None,
                 should_stop=None, on_round=None, opponent_leave=None, include=None) -> SimResult:
        """Race the engine's best candidates in ``position`` (a :class:`heuri.core.game.Position`,
        the player to move's rack known) for ``seconds`` (None: no clock) or until every
        candidate has ``iterations`` rollouts (None: no limit; one of the two is needed).
        ``should_stop``: polled during the static ranking's re-valuations, during the fast
        rollout's table and between rollouts (SIU ``stop``; stopped before any rollout, the
        ranking's best move answers); the ranking's re-valuations also stop at half of
        ``seconds`` (:meth:`heuri.eval.evaluate.Evaluator.rank_arrays`); ``on_round(result)``: called
        after each round (``info`` lines). ``opponent_leave``: a
        :class:`heuri.search.inference.LeaveInference` of what the opponent kept with their
        last move; each round then draws their leave from its posterior and the rest of their
        rack from the other unseen tiles (:meth:`opponent_racks`), instead of the whole rack
        from the unseen tiles. ``include``: moves (MOVE_DTYPE records of this position, e.g.
        the move a player made) that race beside the engine's best and are never halved out
        (``pinned``), so that each is measured with the full budget; one already among the
        candidates is pinned there, another is added with the engine's value of it. Raises
        SimulationError (also for an ``include`` move that is not a legal move here)."""
        if seconds is None and iterations is None and should_stop is None:
            raise SimulationError("a simulation needs a time (seconds) or an iteration count")
        if seconds is not None and not seconds > 0:
            raise SimulationError(f"time {seconds!r}: give a positive number of seconds")
        if iterations is not None and iterations < 1:
            raise SimulationError(f"iterations {iterations}: give at least 1")
        start = time.perf_counter()
        spec = self.spec
        b = position.board
        letters, blanks = b.letters, b.blanks
        rack = np.asarray(position.rack, np.int64)
        unseen = np.asarray(position.unseen(), np.int64)
        bag_size = position.bag_size
        # the ranking's re-valuations stop at half the clock (thousands of them for a rack
        # with blanks on an open board: seconds), so that the race has the other half
        rank_end = None if seconds is None else start + seconds / 2

        def ranking_stop() -> bool:
            return ((should_stop is not None and should_stop())
                    or (rank_end is not None and time.perf_counter() >= rank_end))

        ranking = self.engine.rank(position, should_stop=ranking_stop)
        if len(ranking) == 0:
            raise SimulationError("no legal move to simulate")
        n = min(self.n_candidates, len(ranking))
        cands = [Candidate(ranking.moves[i], float(ranking.v[i]), ranking.leaves[i]) for i in range(n)]
        if include is not None:
            self._pin(cands, ranking, np.atleast_1d(include))
        n = len(cands)
        rounds = max(1, math.ceil(math.log2(n))) if n > 1 else 1
        rollouts, done_rounds, stopped_by = 0, 0, "done"
        rack_size = min(spec.rack_size, int(unseen.sum()))
        draw = self.opponent_racks(unseen, opponent_leave)
        me = position.to_move
        spread = float(position.scores[me]) - max(float(x) for i, x in enumerate(position.scores) if i != me)

        def out_of_time() -> str | None:
            if should_stop is not None and should_stop():
                return "stop"
            if seconds is not None and time.perf_counter() - start >= seconds:
                return "time"
            return None

        def unraced(why: str) -> SimResult:  # no rollout played: the ranking's best move answers
            return SimResult(cands, cands[0].record, 0, time.perf_counter() - start, 0, why)

        if n == 1 or bag_size == 0:
            # one candidate, or an empty bag (the endgame search's business): nothing to race
            return unraced("done")
        if should_stop is not None and should_stop():  # stopped during the static ranking
            return unraced("stop")
        if self.table:
            from ..eval.leave_values import BuildStopped, LeaveValues

            try:
                self.leave_values = LeaveValues(self.pack, unseen, self.policy._septets, self.policy._val, bag_size,
                                                should_stop=should_stop)
            except BuildStopped:
                self.leave_values = None
                return unraced("stop")
            for w in self._workers[1:]:
                w.leave_values = self.leave_values
        for rnd in range(rounds):
            alive = [c for c in cands if c.alive]
            # the time left, shared equally by the rounds left (a round that ran over
            # shortens the next ones)
            now = time.perf_counter()
            round_end = None if seconds is None else now + (start + seconds - now) / (rounds - rnd)
            while True:
                why = out_of_time()
                if why:
                    stopped_by = why
                    break
                # an iteration budget is spread over the rounds: the survivors of the last
                # round reach ``iterations`` rollouts
                need = None if iterations is None else math.ceil(iterations * (rnd + 1) / rounds)
                if need is not None and min(c.n for c in alive) >= need:
                    break
                if round_end is not None and time.perf_counter() >= round_end and min(c.n for c in alive) >= 2:
                    break
                # one draw a thread (each plays every candidate on its draw); the values are
                # taken in the draws' order, so the threads' timing changes nothing
                batch = self.threads if need is None else max(1, min(self.threads, need - min(c.n for c in alive)))
                draws = [draw(rack_size) for _ in range(batch)]
                if batch == 1:
                    outcomes = [self._play_draw(self, alive, draws[0], letters, blanks, rack, position.spec,
                                                should_stop, partial=True)]
                else:
                    outcomes = list(self._pool().map(
                        lambda i: self._play_draw(self._workers[i], alive, draws[i], letters, blanks, rack,
                                                  position.spec, should_stop), range(batch)))
                for got in outcomes:
                    for c, (value, left, over) in zip(alive, got):
                        c.values.append(value)
                        if self.win_table is not None:
                            c.wins.append(self._win(spread + value, left, over))
                        rollouts += 1
                if should_stop is not None and should_stop():
                    stopped_by = "stop"
                    break
            done_rounds = rnd + 1
            if stopped_by in ("stop", "time") and rnd < rounds - 1:
                break
            if len(alive) > 1 and rnd < rounds - 1:
                # keep the better half by mean (ties: the engine's order)
                key = self._ranker(alive)
                ranked = sorted(alive, key=lambda c: -key(c))
                for c in ranked[max(1, math.ceil(len(ranked) / 2)):]:
                    c.alive = c.pinned
            if on_round is not None:
                on_round(self._result(cands, rollouts, start, done_rounds, stopped_by, self._ranker(cands)))
            if stopped_by in ("stop", "time"):
                break
        return self._result(cands, rollouts, start, done_rounds, stopped_by, self._ranker(cands))

    @staticmethod
    def _pin(cands: list, ranking, include: np.ndarray) -> None:
        """Pin the moves of ``include`` in ``cands`` (in place): a move the first candidates
        hold is pinned there, another legal move is added with the ranking's value of it
        (the ranking holds every legal move). Raises SimulationError for a move the ranking
        does not hold (off the board's rules or the rack)."""
        for rec in include:
            k = record_index(ranking.moves, rec)
            if k is None:
                raise SimulationError("a move to include is not a legal move of this position")
            if k < len(cands):
                cands[k].pinned = True
            else:
                cands.append(Candidate(ranking.moves[k], float(ranking.v[k]), ranking.leaves[k], pinned=True))

    @staticmethod
    def _play_draw(worker, alive, drawn, letters, blanks, rack, rules, should_stop, partial: bool = False) -> list:
        """Every candidate of ``alive`` played out on one draw by ``worker`` (this simulator
        or a thread's copy): ``[(value, bag left, over)]`` in ``alive``'s order. A ``stop``
        cuts the list: kept as far as it went when ``partial``, else dropped (a thread's
        draw is the whole of every candidate or nothing)."""
        opp, order = drawn
        out = []
        for c in alive:
            out.append(worker._play_out(letters, blanks, rack, c, opp, order, rules))
            if should_stop is not None and should_stop():
                return out if partial else []
        return out

    def close(self) -> None:
        """End the rollouts' threads (waiting for a race in progress); the next race starts
        them again. Nothing to do for one thread."""
        executor, self._executor = self._executor, None
        self._workers = []
        if executor is not None:
            executor.shutdown(wait=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _pool(self):
        """The threads' pool and their simulators (own evaluators: an evaluator keeps
        scratch arrays, so a thread does not share one), made on first use."""
        if self._executor is None:
            import copy
            from concurrent.futures import ThreadPoolExecutor

            from ..eval.evaluate import make_evaluator

            self._workers = [self]
            for _ in range(self.threads - 1):
                w = copy.copy(self)
                w.policy = make_evaluator(self.pack, self.policy_name)
                w.reply = make_evaluator(self.pack, self.reply_name)
                self._workers.append(w)
            self._executor = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="heuri-sim")
        return self._executor

    def _ranker(self, cands):
        """The key the race ranks ``cands`` by (:meth:`_key`); with a ``prior``, each mean
        is drawn towards the candidate's static value by ``prior`` rollouts' worth of
        weight, ``static + shift + n/(n + prior)·(mean − static − shift)``, ``shift`` the
        mean of ``mean − static`` over the measured candidates (a rollout's value and the
        static equity differ by a common amount: the opponent's reply, our next move)."""
        if self.prior <= 0:
            return self._key
        measured = [c for c in cands if c.values]
        shift = float(np.mean([c.mean - c.static for c in measured])) if measured else 0.0

        def key(c: Candidate) -> float:
            if not c.values:
                return float("-inf")
            return c.static + shift + c.n / (c.n + self.prior) * (c.mean - c.static - shift)

        return key

    def _key(self, c: Candidate) -> float:
        """What the race ranks a candidate by: its mean chance to win (with a table; the
        points break ties), else its mean points."""
        if self.win_table is None:
            return c.mean
        return c.win + 1e-9 * c.mean if c.values else float("-inf")

    def _win(self, spread: float, bag: int, over: bool) -> float:
        """Our chance to win after a rollout: ``spread`` (points, ours, the rollout's value
        added) with the opponent to move and ``bag`` tiles left, or the result when the game
        is ``over``."""
        from ..eval.win_probability import game_result

        if over:
            return game_result(spread)
        return float(self.win_table.p_after_move(spread, bag))

    def opponent_racks(self, unseen: np.ndarray, opponent_leave=None):
        """A function ``draw(rack_size) -> (rack, order)``: the opponent's rack ((L+1,)
        int64 counts) and the bag's order (tile ids) for one round, from ``unseen`` ((L+1,)
        counts: the bag and their rack as we see them). Without ``opponent_leave`` the rack
        is ``rack_size`` tiles of a random order of the unseen tiles; with it, a leave drawn
        from its posterior (the leaves it considered, by probability) and the rest of the
        rack from a random order of the other unseen tiles. A leave that the unseen tiles
        cannot hold (an inference made on another position) is not drawn: when none fits,
        the draw is the uniform one."""
        nk = self.spec.n_kinds
        tiles = np.repeat(np.arange(nk), unseen)
        leaves, p = None, None
        if opponent_leave is not None and len(opponent_leave.leaves):
            lv = np.asarray(opponent_leave.leaves, np.int64)
            fits = np.all(lv <= unseen, axis=1)
            w = np.where(fits, np.asarray(opponent_leave.posterior, np.float64), 0.0)
            if w.sum() > 0:
                leaves, p = lv, w / w.sum()

        def draw(rack_size: int):
            if leaves is None:
                perm = self.rng.permutation(tiles)
                return np.bincount(perm[:rack_size], minlength=nk).astype(np.int64), perm[rack_size:]
            kept = leaves[self.rng.choice(len(leaves), p=p)]
            k = max(0, rack_size - int(kept.sum()))
            perm = self.rng.permutation(np.repeat(np.arange(nk), unseen - kept))
            return kept + np.bincount(perm[:k], minlength=nk).astype(np.int64), perm[k:]

        return draw

    @staticmethod
    def _result(cands, rollouts, start, rounds, stopped_by, key=None) -> SimResult:
        key = key or (lambda c: c.mean)
        order = sorted(cands, key=lambda c: (not c.alive, -(key(c) if c.values else c.static - 1e9)))
        measured = [c for c in order if c.alive and c.values]
        best = (measured[0] if measured else cands[0]).record
        return SimResult(order, best, rollouts, time.perf_counter() - start, rounds, stopped_by)
