"""Match throughput (issue 5): games per minute of `heuri match` with --jobs J.

    python benchmarks/bench_match.py [--lang es] [--p1 heuri3] [--p2 greedy] [--games 20] [--jobs 1 2]

For each jobs value, plays a fresh match (a temporary --out, the same seed) through
``heuri.match.run_match`` and prints: wall time (pack and worker start-up included), games
per minute, and the median and p90 of the per-game engine time (the sum of both players'
thinking time in one game, from the games table). The wall figure is what a user sees; on a
machine shared with other work it varies from run to run, so run it more than once.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "runtime"))


def p90(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.9 * len(xs)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", default="es")
    ap.add_argument("--p1", default="heuri3")
    ap.add_argument("--p2", default="greedy")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--jobs", type=int, nargs="+", default=[2])
    a = ap.parse_args()

    from heuri.match import run_match

    print(f"{a.lang}: {a.p1} vs {a.p2}, {a.games} games, seed {a.seed}")
    print(f"{'jobs':>4} {'wall s':>8} {'games/min':>10} {'engine s/game median':>21} {'p90':>6} {'turns/game':>10}")
    for jobs in a.jobs:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            res = run_match(a.lang, a.p1, a.p2, a.games, seed=a.seed, jobs=jobs, out=Path(tmp) / "m",
                            progress=False)
            wall = time.perf_counter() - t0
        per_game = [(r["ms_per_move_p1"] * r["moves_p1"] + r["ms_per_move_p2"] * r["moves_p2"]) / 1000
                    for r in res.rows]
        turns = statistics.mean(r["turns"] for r in res.rows)
        print(f"{jobs:>4} {wall:>8.1f} {60 * a.games / wall:>10.1f} {statistics.median(per_game):>21.2f} "
              f"{p90(per_game):>6.2f} {turns:>10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
