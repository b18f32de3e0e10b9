"""Time `heuri analyze` per game: the analysis (replay + ranking every turn with --engine,
the endgame search with the bag empty) and the HTML page (boards, plots), one process.

    .venv/bin/python benchmarks/bench_analyze.py [--selfplay 6] [--max-en 20] [--engine heuri4]

Games: the well-formed real records of the cases folder (``$HEURI_CASES``, else
tests/data/gcg; MANIFEST expect == ok) in es,
fr and the first --max-en in en, plus --selfplay Spanish games of heuri3 against greedy
played here (seeds 1, 2, ...). The first game of each language warms the pack and the
compiled kernels and is left out. Prints, per language, the games, turns, median / p90 /
max seconds a game for the analysis and for the page, the CPU seconds a game (what the
process used: less sensitive than the wall clock to other work on a shared machine), and
the whole figure; the target is 3 s a game on the 2-core machine.
"""
from __future__ import annotations

import argparse
import csv
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from heuri import DEFAULT_ENGINE
from heuri.analyze import Analyzer
from heuri.report import game_html

from _common import cases_folder  # noqa: E402

CASES = cases_folder()


def selfplay(pack, seed: int) -> str:
    from heuri.game import Game
    from heuri.gcg import game_to_gcg, write_gcg
    from heuri.players import make_player

    game = Game(pack.spec, seed=seed, words=pack.words)
    players = [make_player("heuri3", pack), make_player("greedy", pack)]
    while not game.over:
        game.play(players[game.position.to_move].choose(game.position))
    return write_gcg(game_to_gcg(game, nicks=("heuri3", "greedy"), lexicon=pack.spec.lexicon))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--selfplay", type=int, default=6, help="Spanish self-play games to add (default 6)")
    ap.add_argument("--max-en", type=int, default=20, help="English records to time (default 20)")
    ap.add_argument("--engine", default=DEFAULT_ENGINE, help=f"the ranking engine (default {DEFAULT_ENGINE}, as heuri analyze)")
    args = ap.parse_args()
    rows = list(csv.DictReader(open(CASES / "MANIFEST.tsv", encoding="utf-8"), delimiter="\t"))
    jobs = [(r["language"], CASES / r["file"]) for r in rows
            if r["expect"] == "ok" and r["language"] in ("es", "fr")]
    jobs += [("en", CASES / r["file"]) for r in rows if r["expect"] == "ok" and r["language"] == "en"][:args.max_en]
    A = Analyzer(args.engine)
    tmp = Path(tempfile.mkdtemp(prefix="bench-analyze-"))
    pack_es, _, _ = A.tools("es")
    for s in range(1, args.selfplay + 1):
        p = tmp / f"selfplay-{s}.gcg"
        p.write_text(selfplay(pack_es, s), encoding="utf-8")
        jobs.append(("es self-play", p))
    stats: dict[str, list] = {}
    warm = set()
    game_html(A.analyze(jobs[0][1], lang=jobs[0][0].split()[0]))  # imports, templates, Matplotlib
    for label, path in jobs:
        lang = label.split()[0]
        if lang not in warm:
            A.analyze(path, lang=lang)
            warm.add(lang)
        t0, c0 = time.perf_counter(), time.process_time()
        g = A.analyze(path, lang=lang)
        t1 = time.perf_counter()
        game_html(g)
        t2, c2 = time.perf_counter(), time.process_time()
        stats.setdefault(label, []).append((len(g.rows), t1 - t0, t2 - t1, c2 - c0))
    print(f"{'games':<14}{'n':>4}{'turns':>7}   analysis s/game: median  p90   max   page s/game: median  max   "
          f"total median  CPU s median")
    allt, allc = [], []
    for label, xs in stats.items():
        a = np.array([x[1] for x in xs]); h = np.array([x[2] for x in xs]); tot = a + h
        cpu = np.array([x[3] for x in xs])
        allt.extend(tot)
        allc.extend(cpu)
        print(f"{label:<14}{len(xs):>4}{sum(x[0] for x in xs):>7}   {' ' * 17}{np.median(a):6.2f} "
              f"{np.percentile(a, 90):5.2f} {a.max():5.2f}   {' ' * 13}{np.median(h):6.2f} {h.max():4.2f}   "
              f"{np.median(tot):6.2f}        {np.median(cpu):6.2f}")
    allt, allc = np.array(allt), np.array(allc)
    print(f"all: {len(allt)} games, {statistics.median(allt):.2f} s a game median, {allt.mean():.2f} mean, "
          f"{allt.max():.2f} max (analysis + page, wall clock; target 3 s); CPU {statistics.median(allc):.2f} s "
          f"median, {allc.mean():.2f} mean, {allc.max():.2f} max")
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: wall-clock figures grow with it)")


if __name__ == "__main__":
    main()
