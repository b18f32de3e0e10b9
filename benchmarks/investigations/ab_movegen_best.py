"""Best-1 against the full list, and an older movegen.py against this one, in one process.

    git show main:runtime/heuri/movegen.py > /tmp/movegen_main.py
    .venv/bin/python benchmarks/investigations/ab_movegen_best.py --old /tmp/movegen_main.py --matches "/tmp/m17/{lang}" --langs en fr es
    .venv/bin/python benchmarks/investigations/ab_movegen_best.py --old /tmp/movegen_main.py --matches "/tmp/m17/{lang}" --langs en --blanks 1

Positions: those of ``bench_movegen_peers.py`` (the same cut, seed and rack draw:
``--positions`` a class, racks with exactly ``--blanks`` blanks). The old module is the
given file compiled beside :mod:`heuri.movegen` (without numba's disk cache: some seconds
at the start), so that both see the same load. Per position and round, each of the four
calls (old and new ``generate(..., exchanges=False)`` and ``generate_best(n=1)``) is timed
as the fastest of ``--repeat``, in an order that alternates from position to position;
``--rounds`` rounds. Printed per language: the medians (µs, each position's fastest over
the rounds), the median over the positions of full / best-1 (old and new, then by round)
and of new / old for best-1 and for the full list. The old file must read the pack's
artifacts the way it did (a movegen.py of this repository).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]  # here, and benchmarks/


def load_old(path: Path):
    """The movegen.py at ``path`` as the module ``heuri._movegen_old`` (no disk cache)."""
    src = Path(path).read_text(encoding="utf-8").replace("cache=True", "cache=False")
    spec = importlib.util.spec_from_loader("heuri._movegen_old", loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "heuri"
    sys.modules[spec.name] = mod
    exec(compile(src, str(path), "exec"), mod.__dict__)
    return mod


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, required=True, help="an older runtime/heuri/movegen.py")
    ap.add_argument("--langs", nargs="+", default=["en"])
    ap.add_argument("--matches", default="matches/{lang}/heuri3-vs-greedy")
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--blanks", type=int, default=0, choices=(0, 1, 2))
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args(argv)

    from heuri import load_pack
    from heuri import movegen as new
    from heuri.game import Position
    from movegen_positions import cut_boards, lines_by_blanks

    old = load_old(a.old)
    for lang in a.langs:
        pack = load_pack(lang)
        cuts = cut_boards(Path(os.path.expanduser(a.matches.format(lang=lang))), pack.spec)
        calls = []
        for line in lines_by_blanks(cuts, pack.spec, a.positions, a.seed)[a.blanks]:
            p = Position.from_cgp(line, pack.spec)
            calls.append((p.board.letters, p.board.blanks, p.rack))
        fns = [("full_old", lambda c: old.generate(pack, *c, exchanges=False)),
               ("best_old", lambda c: old.generate_best(pack, *c, n=1)),
               ("full_new", lambda c: new.generate(pack, *c, exchanges=False)),
               ("best_new", lambda c: new.generate_best(pack, *c, n=1))]
        for c in calls[:3]:  # compile and warm
            for _, f in fns:
                f(c)
        T = {k: np.full((a.rounds, len(calls)), np.inf) for k, _ in fns}
        for r in range(a.rounds):
            for i, c in enumerate(calls):
                for k, f in (fns if (r + i) % 2 == 0 else fns[::-1]):
                    best = float("inf")
                    for _ in range(a.repeat):
                        t0 = time.perf_counter_ns()
                        f(c)
                        best = min(best, time.perf_counter_ns() - t0)
                    T[k][r, i] = best / 1e3
        m = {k: v.min(axis=0) for k, v in T.items()}

        def ratio(x, y):
            return float(np.median(m[x] / m[y])), ", ".join(f"{np.median(T[x][r] / T[y][r]):.2f}"
                                                             for r in range(a.rounds))

        print(f"{lang}, {a.blanks} blanks, {len(calls)} positions, {a.rounds} rounds, fastest of {a.repeat}, "
              f"load average {os.getloadavg()[0]:.1f}")
        print("  medians: " + ", ".join(f"{k} {np.median(v):.1f} µs" for k, v in m.items()))
        for name, x, y in (("full / best-1, old", "full_old", "best_old"), ("full / best-1, new", "full_new", "best_new"),
                           ("best-1 new / old", "best_new", "best_old"), ("full new / old", "full_new", "full_old")):
            v, by = ratio(x, y)
            print(f"  {name}: {v:.3f} (by round {by})")


if __name__ == "__main__":
    main()
