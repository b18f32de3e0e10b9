"""Speed of heuri.movegen.generate on midgame positions from seeded self-play.

    .venv/bin/python benchmarks/bench_movegen.py                 # en es, 500 positions each
    .venv/bin/python benchmarks/bench_movegen.py --langs en es fr --positions 1000

For each language: ``--positions`` midgame positions (at least 2 moves played, at least 7
tiles in the bag) reached by self-play (tests/reference_movegen.self_play: top-scoring or
random moves, seed fixed), and for each position three racks drawn from the unseen tiles:
no blank, one blank, two blanks. Each call is timed alone (``time.perf_counter_ns``) after
a warm-up, the fastest of ``--repeat`` passes kept per call; placements only
(``exchanges=False``) and, separately, all moves (exchanges and the pass too). Prints the
median and 90th percentile per rack class (wall clock, and CPU time of the thread, which
other processes on a shared machine disturb less), the mean number of moves, and the
median ns per move.

Compile figures come from fresh subprocesses with an empty numba cache folder: "cold" =
first ``generate`` call that compiles everything (import excluded), "cache" = the same
first call in a second process that loads the compiled code from that folder.

Targets (2-core machine): no blank <= 150 µs median (250 µs p90), one blank <=
1.5 ms median, two blanks <= 6 ms median; compile <= 5 s, cache load <= 0.3 s.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import ROOT, fmt_us as fmt  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))

FIRST_CALL = r"""
import time, numpy as np
from heuri import load_pack
import heuri.movegen as mg
pack = load_pack("{lang}")
pack.graph
L = pack.spec.n_letters
r = np.zeros(L + 1, np.int64); r[:5] = 1; r[L] = 2
letters = np.full((15, 15), -1, np.int8); blanks = np.zeros((15, 15), bool)
t = time.perf_counter()
mg.generate(pack, letters, blanks, r, bag_size=50)
mg.leaves(r, mg.generate(pack, letters, blanks, r, bag_size=50))
mg.cross_checks(pack, letters, blanks)
print(time.perf_counter() - t)
"""


def first_call_seconds(lang: str, cache_dir: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", FIRST_CALL.format(lang=lang)], env=env,
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return float(out.stdout.strip().splitlines()[-1])


def positions(pack, n: int, seed: int):
    from reference_movegen import random_rack, self_play

    rng = np.random.default_rng(seed)
    out = []
    for k, (letters, blanks, _rack, unseen, bag) in enumerate(self_play(pack, 40 * n, seed=seed)):
        if (letters >= 0).sum() < 8 or bag < 7:
            continue
        racks = [random_rack(pack.spec, unseen, b, rng) for b in (0, 1, 2)]
        out.append((letters, blanks, racks, bag))
        if len(out) == n:
            break
    return out


def time_calls(pack, pos, blanks_class: int, exchanges: bool):
    """Per call: wall-clock µs, CPU µs of this thread, number of moves."""
    from heuri.movegen import generate

    ts, cs, ns = [], [], []
    for letters, blanks, racks, bag in pos:
        r = racks[blanks_class]
        c0 = time.thread_time_ns()
        t0 = time.perf_counter_ns()
        m = generate(pack, letters, blanks, r, bag_size=bag, exchanges=exchanges)
        ts.append(time.perf_counter_ns() - t0)
        cs.append(time.thread_time_ns() - c0)
        ns.append(len(m))
    return np.array(ts) / 1e3, np.array(cs) / 1e3, np.array(ns)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--langs", nargs="+", default=["en", "es"])
    ap.add_argument("--positions", type=int, default=500)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--repeat", type=int, default=3, help="timing passes; the fastest per call is kept")
    ap.add_argument("--no-compile", action="store_true", help="skip the cold-compile subprocesses")
    a = ap.parse_args(argv)

    from rich.console import Console
    from rich.table import Table

    from heuri import load_pack
    from heuri.movegen import generate

    console = Console()
    if not a.no_compile:
        with tempfile.TemporaryDirectory() as d:
            cold = first_call_seconds(a.langs[0], d)
            warm = first_call_seconds(a.langs[0], d)
        console.print(f"numba compile, first call in a fresh process: cold {cold:.2f} s, "
                      f"from the on-disk cache {warm:.3f} s")
    t = Table(title=f"generate(): {a.positions} midgame positions a language, self-play seed {a.seed}")
    for col in ("lang", "rack", "moves (mean)", "median", "p90", "CPU median", "CPU p90", "ns/move",
                "all moves: median"):
        t.add_column(col, justify="left" if col in ("lang", "rack") else "right")
    for lang in a.langs:
        pack = load_pack(lang)
        pos = positions(pack, a.positions, a.seed)
        for letters, blanks, racks, bag in pos[:20]:  # warm-up
            generate(pack, letters, blanks, racks[2], bag_size=bag)
        for b, name in ((0, "no blank"), (1, "one blank"), (2, "two blanks")):
            best = cpu = all_us = None
            for _ in range(a.repeat):
                us, cu, n = time_calls(pack, pos, b, exchanges=False)
                best = us if best is None else np.minimum(best, us)
                cpu = cu if cpu is None else np.minimum(cpu, cu)
                al, _, _ = time_calls(pack, pos, b, exchanges=True)
                all_us = al if all_us is None else np.minimum(all_us, al)
            t.add_row(lang, name, f"{n.mean():,.0f}", fmt(np.median(best)), fmt(np.percentile(best, 90)),
                      fmt(np.median(cpu)), fmt(np.percentile(cpu, 90)),
                      f"{np.median(best * 1e3 / np.maximum(n, 1)):,.0f}", fmt(np.median(all_us)))
    console.print(t)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    console.print("placements only (exchanges=False) unless said; each call timed alone "
                  f"(wall clock, and CPU time of the thread), fastest of {a.repeat} passes; "
                  f"{os.cpu_count()} CPUs, load average {load:.1f} at the end")


if __name__ == "__main__":
    main()
