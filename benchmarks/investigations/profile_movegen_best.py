"""Why best-1 (``movegen.generate_best(n=1)``) saves what it saves: counts that do not depend on the load.

    .venv/bin/python benchmarks/investigations/profile_movegen_best.py --matches "/tmp/m17/{lang}" --langs en
    .venv/bin/python benchmarks/investigations/profile_movegen_best.py --matches "/tmp/m17/{lang}" --langs en fr es --blanks 1

Positions: the midgame boards of ``bench_movegen_peers.py`` (the same cut, seed and rack
draw: ``--positions`` a class, racks with exactly ``--blanks`` blanks). The walk is counted
with an instrumented copy of :mod:`heuri.movegen` built in memory (its source with three
counters added, compiled without numba's disk cache: about 10 s at the start): per anchor,
the steps (a tile tried on a square), whether it was walked, and the highest score found
there. Printed per language, medians over the positions:

- steps and anchors walked by the full walk and by best-1;
- the bound of each anchor best-1 walks over the best score really found there (full walk);
- the anchors whose bound reaches the top score (any order walks them) and the steps of
  their full walks; the same with the bingo bonus left out of the spans' bounds (where the
  anchor holds no bingo: what knowing bingo spans exactly would save) and with each
  anchor's real best as its bound;
- of the anchors whose bound reaches the top score but whose real best does not, the tiles
  of the span that gives the bound;
- best-1's steps when it starts with the top score as its threshold (an oracle), against
  its steps starting from 0.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]  # here, and benchmarks/


def instrumented():
    """heuri.movegen with counters: I64 row 27 = steps per anchor, row 28 = best score found
    per anchor (-1 none), row 29 = 1 when the anchor was walked; ``top_key[0]`` > 0 on entry
    of a best-1 call = the starting threshold (the oracle)."""
    import heuri.movegen as mg

    src = Path(mg.__file__).read_text(encoding="utf-8")
    edits = [
        ("    RV = I64[23, :64]\n", "    RV = I64[23, :64]\n    PST = I64[27]\n    PBS = I64[28]\n    PAW = I64[29]\n"),
        ("            # take the tile\n", "            PST[idx] += 1\n            # take the tile\n"),
        ("        seq = 0\n        tl = a > 0", "        PAW[idx] = 1\n        seq = 0\n        tl = a > 0"),
        ("                seq += 1\n", "                seq += 1\n                if sc_ > PBS[idx]:\n                    PBS[idx] = sc_\n"),
        ("np.zeros((27, W), np.int64)", "np.zeros((30, W), np.int64)"),
        ("    thr = 0  # best mode: spans whose bound is below it cannot enter the best_n (scores >= 0)\n",
         "    thr = top_key[0] if best_n == 1 and top_key[0] > 0 else 0\n    top_key[0] = 0\n"),
        ("cache=True", "cache=False"),
    ]
    for a, b in edits:
        if a not in src:
            raise SystemExit(f"the instrumented copy no longer fits movegen.py (missing {a.strip()[:60]!r})")
        src = src.replace(a, b)
    spec = importlib.util.spec_from_loader("heuri._movegen_counted", loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "heuri"
    sys.modules[spec.name] = mod
    exec(compile(src, "<movegen instrumented>", "exec"), mod.__dict__)
    return mod


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--langs", nargs="+", default=["en"])
    ap.add_argument("--matches", default="matches/{lang}/heuri3-vs-greedy")
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--blanks", type=int, default=0, choices=(0, 1, 2))
    ap.add_argument("--seed", type=int, default=17)
    a = ap.parse_args(argv)

    from heuri import load_pack
    from heuri.game import Position
    from movegen_positions import cut_boards, lines_by_blanks

    mg = instrumented()
    for lang in a.langs:
        pack = load_pack(lang)
        cuts = cut_boards(Path(os.path.expanduser(a.matches.format(lang=lang))), pack.spec)
        calls = []
        for line in lines_by_blanks(cuts, pack.spec, a.positions, a.seed)[a.blanks]:  # bench_movegen_peers.py's racks
            p = Position.from_cgp(line, pack.spec)
            calls.append((p.board.letters, p.board.blanks, p.rack))
        R = {k: [] for k in ("full_steps", "best_steps", "full_anchors", "best_anchors", "ge", "ge_steps",
                             "ge_nobingo", "ge_nobingo_steps", "ge_exact", "ge_exact_steps")}
        tight, spans = [], Counter()
        oracle = [0, 0]
        for letters, blanks, rack in calls:
            ctx = mg.kernel_context(pack)
            I64, U64, B8, SK, SL = ctx.scratch
            N = ctx.N
            I64[27:30] = 0
            I64[28] = -1
            full = mg.generate(pack, letters, blanks, rack, exchanges=False)
            if len(full) == 0:
                continue
            fsteps, fbest, fwalk = I64[27].copy(), I64[28].copy(), I64[29].copy()
            top = int(full["score"].max())
            I64[27:30] = 0
            ctx.top[1][0] = 0  # no oracle: the threshold starts at 0
            b = mg.generate_best(pack, letters, blanks, rack, n=1)
            assert int(b["score"][0]) == top
            le, bl = mg._board(ctx, letters, blanks)
            na = mg._anchors(le, not (le >= 0).any(), ctx.centre[0], ctx.centre[1], I64[17], I64[18], I64[19])
            bsteps, bwalk = I64[27][:na].copy(), I64[29][:na] > 0
            bound, sk = I64[21][:na].copy(), SK[:na].copy()
            oracle[0] += int(bsteps.sum())
            I64[27] = 0
            ctx.top[1][0] = top
            mg.generate_best(pack, letters, blanks, rack, n=1)
            oracle[1] += int(I64[27][:na].sum())
            # the bounds again with no bingo bonus (_bounds is what generate_best called)
            r = mg._rack_in(ctx, rack)
            sept, compl, sb = mg._rack_info(pack, ctx, r)
            cc = ctx.cross
            ph = mg._long_hashes(pack, ctx)
            mg._bounds(ctx.g, ctx.hw, ctx.root, le, bl, ctx.values, ctx.lmul, ctx.wmul, cc[0], cc[1], cc[2],
                       r.copy(), ctx.L, ctx.rack_size, 0, ctx.blank_ok, sept, compl, sb, ph, I64[17], I64[18],
                       I64[19], na, I64[21], SK, SL, I64[0, :N], I64[1, :N], U64[0, :N], I64[2, :N], B8[0, :N],
                       I64[3, :N], I64[4, :N], I64[22, :N], I64[23, :64], I64[6], I64[7], I64[15], I64[16], I64[13],
                       U64[2:])
            for k in range(na):  # every anchor's look-ups done (the walk does them for the anchors it reaches)
                I64[21][k] = mg._verified_bound(SK, U64[2:], ph, r, ctx.L, ctx.rack_size, k)
            nobingo = np.maximum(I64[21][:na], fbest[:na])  # an anchor holding a bingo keeps its real best
            fs, fb = fsteps[:na], fbest[:na]
            R["full_steps"].append(fs.sum())
            R["best_steps"].append(bsteps.sum())
            R["full_anchors"].append(int((fwalk[:na] > 0).sum()))
            R["best_anchors"].append(int(bwalk.sum()))
            for name, bd in (("ge", bound), ("ge_nobingo", nobingo), ("ge_exact", fb)):
                R[name].append(int((bd >= top).sum()))
                R[name + "_steps"].append(int(fs[bd >= top].sum()))
            tight += [bound[k] / fb[k] for k in np.nonzero(bwalk & (fb > 0))[0]]
            for k in np.nonzero((bound >= top) & (fb < top))[0]:
                best = None
                for kl in range(sk.shape[1]):
                    for kr in range(sk.shape[2]):
                        if sk[k, kl, kr] == bound[k] and (kr + 1 == sk.shape[2] or sk[k, kl, kr + 1] < bound[k]):
                            best = kl + kr + 1
                spans[best] += 1
        print(f"{lang}, {a.blanks} blanks, {len(R['full_steps'])} positions (medians):")
        print(f"  steps: full {np.median(R['full_steps']):,.0f}, best-1 {np.median(R['best_steps']):,.0f}; "
              f"anchors walked: full {np.median(R['full_anchors']):.1f}, best-1 {np.median(R['best_anchors']):.1f}")
        t = np.array(tight)
        print(f"  bound / real best of the anchors best-1 walks: median {np.median(t):.2f}, "
              f"p25 {np.percentile(t, 25):.2f}, p75 {np.percentile(t, 75):.2f}")
        print(f"  anchors with a bound >= the top score: {np.median(R['ge']):.1f} (their full walks "
              f"{np.median(R['ge_steps']):,.0f} steps); bingo spans exact: {np.median(R['ge_nobingo']):.1f} "
              f"({np.median(R['ge_nobingo_steps']):,.0f}); real bests as bounds: {np.median(R['ge_exact']):.1f} "
              f"({np.median(R['ge_exact_steps']):,.0f})")
        tot = sum(spans.values()) or 1
        print("  tiles of the span giving the bound, anchors above the top that do not reach it: "
              + ", ".join(f"{k}: {100 * v / tot:.0f} %" for k, v in sorted(spans.items(), key=lambda x: (x[0] is None, x[0]))))
        print(f"  best-1 steps in all: from threshold 0 {oracle[0]:,}, from the top score (oracle) {oracle[1]:,}")


if __name__ == "__main__":
    main()
