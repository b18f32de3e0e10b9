"""Match throughput: games per minute of `heuri match` with --jobs J.

    python benchmarks/bench_match.py [--lang es] [--p1 heuri3] [--p2 greedy] [--games 20] [--jobs 1 2]

For each jobs value, runs ``heuri match`` in a fresh interpreter (a temporary --out, the same
seed; so every configuration pays the same start-up) and prints: wall time (start-up
included), games per minute, and the median and p90 of the per-game engine time (the sum of
both players' thinking time in one game, from the games table). The wall figure is what a
user sees; on a machine shared with other work it varies from run to run: run it more than
once.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, p90  # noqa: E402



def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", default="es")
    ap.add_argument("--p1", default="heuri3")
    ap.add_argument("--p2", default="greedy")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--jobs", type=int, nargs="+", default=[2])
    a = ap.parse_args()

    import pyarrow.parquet as pq

    print(f"{a.lang}: {a.p1} vs {a.p2}, {a.games} games, seed {a.seed}")
    print(f"{'jobs':>4} {'wall s':>8} {'games/min':>10} {'engine s/game median':>21} {'p90':>6} {'turns/game':>10}")
    for jobs in a.jobs:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "m"
            cmd = [sys.executable, "-m", "heuri", "match", "--lang", a.lang, "--p1", a.p1, "--p2", a.p2,
                   "--games", str(a.games), "--seed", str(a.seed), "--jobs", str(jobs), "--out", str(out),
                   "--quiet"]
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            wall = time.perf_counter() - t0
            rows = pq.read_table(out / "games.parquet").to_pylist()
        per_game = [(r["ms_per_move_p1"] * r["moves_p1"] + r["ms_per_move_p2"] * r["moves_p2"]) / 1000
                    for r in rows]
        turns = statistics.mean(r["turns"] for r in rows)
        print(f"{jobs:>4} {wall:>8.1f} {60 * a.games / wall:>10.1f} {statistics.median(per_game):>21.2f} "
              f"{p90(per_game):>6.2f} {turns:>10.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
