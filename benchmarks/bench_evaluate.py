"""Speed of the Heuri evaluators on midgame positions from self-play.

    python benchmarks/bench_evaluate.py [--langs es en fr] [--positions 500] [--full 100] [--seed 1]

Positions: greedy self-play games (heuri.movegen, top score each turn), recording the
position before each turn from turn 6 to 16 while the bag holds at least 7 tiles, until
``--positions`` per language. For each position it times (milliseconds, wall clock, one
thread):

- ``delta``: δ of the board (every key that can land as a bingo, blanks included;
  heuri.bingo.delta, as an (n_keys,) bool array), and ``delta bits``: the same as a bitset
  (``BoardDelta.delta_bits``, the form the kernels produce); both in a loop over the
  positions' boards; ``delta, between decisions``: δ again, timed inside the loop below,
  after the previous position's decisions have filled the caches with other data;
- ``delta after``: δ of the board after one placement (``BoardDelta.bits_after``, what
  Heuri_3 does for each placement it re-values), for the position's top-scoring move;
- ``e table``: e(L) and p(L) for every leave of the rack, δ given (probability.leave_table);
- ``heuri3``: a full Heuri_3 decision (move generation, δ, the e table, δ after the move for
  the best 20 placements, re-ranking);
- ``heuri3 exact``: exact mode (δ after the move for every placement that can still win:
  placements in decreasing order of the bound j + e(L | δ ≡ 1), stopping when the bound
  cannot beat the best re-valued v; the chosen move is the one re-valuing all of them would
  choose), and how often its chosen move differs from the N = 20 choice;
- ``heuri3 exact, all``: δ after literally every placement (``prune=False``), on the first
  ``--full`` positions, checked to choose the same move as the pruned exact mode;
- each evaluator of ``--also`` (default ``heuri4``: heuri3 + the next rack's handicap cost +
  the opponent's bingo term): a full decision.

Prints the median, 90th percentile and maximum of each, per language, in wall-clock
milliseconds and in CPU milliseconds of this process (``time.process_time``: on a shared
machine the wall clock also counts the time other processes hold the cores).
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def selfplay_positions(pack, n: int, rng: np.random.Generator) -> list[tuple]:
    """(letters, blanks, rack, unseen, bag_size) of midgame positions of greedy games."""
    from heuri.movegen import generate, leaves

    spec = pack.spec
    N, K, R = spec.board_size, spec.n_kinds, spec.rack_size
    out = []
    while len(out) < n:
        bag = list(np.repeat(np.arange(K), spec.distribution()))
        rng.shuffle(bag)
        racks = [np.zeros(K, np.int64), np.zeros(K, np.int64)]
        for r in racks:
            for _ in range(R):
                r[bag.pop()] += 1
        letters = np.full((N, N), -1, np.int8)
        blanks = np.zeros((N, N), bool)
        for turn in range(40):
            rack = racks[turn % 2]
            moves = generate(pack, letters, blanks, rack, bag_size=len(bag), exchanges=False)
            moves = moves[moves["kind"] == 0]
            if len(moves) == 0:
                break
            if 6 <= turn <= 16 and len(bag) >= R:
                unseen = racks[(turn + 1) % 2] + np.bincount(np.array(bag, np.int64), minlength=K)
                out.append((letters.copy(), blanks.copy(), rack.copy(), unseen, len(bag)))
                if len(out) == n:
                    break
            m = moves[int(np.argmax(moves["score"]))]
            ln = int(m["length"])
            for i in range(ln):
                if m["new"][i]:
                    r_, c_ = (int(m["row"]), int(m["col"]) + i) if m["across"] else (int(m["row"]) + i, int(m["col"]))
                    letters[r_, c_] = m["tiles"][i]
                    blanks[r_, c_] = m["blank"][i]
            rack[:] = leaves(rack, moves[[int(np.argmax(moves["score"]))]])[0]
            while rack.sum() < R and bag:
                rack[bag.pop()] += 1
    return out


def best_placement(pack, letters, blanks, rack):
    """(rows, cols, tiles) of the top-scoring placement, or None."""
    from heuri.evaluate import _new_squares
    from heuri.movegen import generate

    moves = generate(pack, letters, blanks, rack, exchanges=False)
    moves = moves[moves["kind"] == 0]
    if len(moves) == 0:
        return None
    return _new_squares(moves[int(np.argmax(moves["score"]))])


def stats(xs) -> str:
    w = np.asarray([x[0] for x in xs]) * 1e3
    c = np.asarray([x[1] for x in xs]) * 1e3
    return (f"wall median {np.median(w):7.2f} p90 {np.percentile(w, 90):7.2f} max {w.max():8.2f} | "
            f"cpu median {np.median(c):7.2f} p90 {np.percentile(c, 90):7.2f} max {c.max():8.2f} ms (n={len(w)})")


class clock:
    """Wall and CPU seconds of a block: ``with clock(out): ...`` appends (wall, cpu)."""

    def __init__(self, out):
        self.out = out

    def __enter__(self):
        self.w, self.c = time.perf_counter(), time.process_time()

    def __exit__(self, *exc):
        self.out.append((time.perf_counter() - self.w, time.process_time() - self.c))


FIELDS = ("kind", "row", "col", "across", "length", "tiles", "new", "blank")


def same_move(a, b) -> bool:
    """Same move record (field by field: the records' padding bytes are undefined)."""
    return all(np.array_equal(a[f], b[f]) for f in FIELDS)


def main(argv=None) -> None:
    import heuri
    from heuri.bingo import BoardDelta
    from heuri.evaluate import make_evaluator
    from heuri.probability import bingo_value, leave_table

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--langs", nargs="+", default=["es", "en", "fr"])
    ap.add_argument("--positions", type=int, default=500)
    ap.add_argument("--full", type=int, default=100,
                    help="positions also decided re-valuing every placement (slow)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--also", nargs="*", default=["heuri4"], metavar="EVALUATOR",
                    help="more evaluators to time a full decision of (default heuri4)")
    a = ap.parse_args(argv)
    for lang in a.langs:
        pack = heuri.load_pack(lang)
        rng = np.random.default_rng(a.seed)
        t0 = time.perf_counter()
        pos = selfplay_positions(pack, a.positions, rng)
        print(f"== {lang}: {len(pos)} positions from greedy self-play ({time.perf_counter() - t0:.1f} s)")
        val = bingo_value(pack.keys.sigma)
        ev = make_evaluator(pack, "heuri3")
        evx = make_evaluator(pack, "heuri3", exact=True)
        evf = make_evaluator(pack, "heuri3", exact=True, prune=False)
        # warm up the compiled kernels
        L, B, rack, U, bag = pos[0]
        BoardDelta(pack, L)
        ev.rank_arrays(L, B, rack, U, bag)
        evx.rank_arrays(L, B, rack, U, bag)
        evf.rank_arrays(L, B, rack, U, bag)
        also = {name: make_evaluator(pack, name) for name in a.also}
        for e in also.values():
            e.rank_arrays(L, B, rack, U, bag)
        t_also = {name: [] for name in also}
        t_d, t_dl, t_e, t_h3, t_x, t_f, n_cand, n_rev = [], [], [], [], [], [], [], []
        t_b = []
        diff = mismatch = 0
        # δ alone, one board after another (the index warm, each board new to it)
        for L, *_ in pos:
            with clock(t_d):
                BoardDelta(pack, L).delta
        for L, *_ in pos:
            with clock(t_b):
                BoardDelta(pack, L).delta_bits
        t_dc = []
        for i, (L, B, rack, U, bag) in enumerate(pos):
            with clock(t_dc):  # the same inside a decision's work (colder caches)
                d = BoardDelta(pack, L).delta
            bd = BoardDelta(pack, L)
            bd.delta_bits
            top = best_placement(pack, L, B, rack)
            if top is not None:
                with clock(t_dl):
                    bd.bits_after(*top)
            with clock(t_e):
                leave_table(pack, rack, U, d, val, bag)
            with clock(t_h3):
                r = ev.rank_arrays(L, B, rack, U, bag)
            n_cand.append(len(r))
            with clock(t_x):
                rx = evx.rank_arrays(L, B, rack, U, bag)
            n_rev.append(evx.last_revalued)
            for name, e in also.items():
                with clock(t_also[name]):
                    e.rank_arrays(L, B, rack, U, bag)
            diff += not same_move(r.moves[0], rx.moves[0])
            if i < a.full:
                with clock(t_f):
                    rf = evf.rank_arrays(L, B, rack, U, bag)
                mismatch += not same_move(rf.moves[0], rx.moves[0])
        print(f"  candidates per position: median {int(np.median(n_cand))}, p90 {int(np.percentile(n_cand, 90))}")
        print(f"  delta              {stats(t_d)}")
        print(f"  delta bits         {stats(t_b)}")
        print(f"  delta, between decisions {stats(t_dc)}")
        print(f"  delta after        {stats(t_dl)}")
        print(f"  e table            {stats(t_e)}")
        print(f"  heuri3 (N=20)      {stats(t_h3)}")
        for name, ts in t_also.items():
            print(f"  {name + ' (N=20)':18s} {stats(ts)}")
        print(f"  heuri3 exact       {stats(t_x)}")
        print(f"    placements re-valued in exact mode: median {np.median(n_rev):.0f}, p90 {np.percentile(n_rev, 90):.0f}")
        print(f"    chosen move differs N=20 vs exact: {diff} of {len(pos)} ({100 * diff / len(pos):.1f} %)")
        if t_f:
            print(f"  heuri3 exact, all  {stats(t_f)}")
            print(f"    same choice as the pruned exact mode: {len(t_f) - mismatch} of {len(t_f)}")


if __name__ == "__main__":
    main()
