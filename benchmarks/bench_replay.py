"""Time replaying every game record of the cases folder (``$HEURI_CASES``, else the fourteen
of tests/data/gcg; read + replay with the engine's
own scoring and word warnings), per file and in total.

    .venv/bin/python benchmarks/bench_replay.py [--repeat 5]

Prints, per language, the files replayed, events checked, median and p90 time per file,
and the total time per pass over all cases (median over repeats). Malformed files count
too (they stop at their first error, as `heuri replay` does).
"""
from __future__ import annotations

import argparse
import csv
import statistics
import time

import numpy as np

from heuri.errors import HeuriError
from heuri.gcg import read_gcg_file, replay
from heuri.pack import load_pack

from _common import cases_folder

CASES = cases_folder()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rows = list(csv.DictReader(open(CASES / "MANIFEST.tsv", encoding="utf-8"), delimiter="\t"))
    packs = {lang: load_pack(lang) for lang in ("en", "es", "fr")}
    words = {lang: p.words for lang, p in packs.items()}
    per_file: dict[str, list[float]] = {}
    events: dict[str, int] = {}
    totals = []
    for _ in range(args.repeat):
        t_all = time.perf_counter()
        for row in rows:
            lang = row["language"]
            if lang not in packs:
                continue
            t0 = time.perf_counter()
            try:
                r = replay(read_gcg_file(CASES / row["file"]), packs[lang].spec, end_rule="auto", words=words[lang])
                events[row["file"]] = len(r.steps)
            except HeuriError:
                events[row["file"]] = 0
            per_file.setdefault(row["file"], []).append(time.perf_counter() - t0)
        totals.append(time.perf_counter() - t_all)
    print(f"{'lang':<5} {'files':>5} {'events':>7} {'median ms/file':>15} {'p90 ms/file':>12} {'µs/event':>9}")
    for lang in ("en", "es", "fr"):
        files = [r["file"] for r in rows if r["language"] == lang]
        med = [statistics.median(per_file[f]) for f in files]
        ev = sum(events[f] for f in files)
        print(f"{lang:<5} {len(files):>5} {ev:>7} {1e3 * np.median(med):>15.2f} {1e3 * np.percentile(med, 90):>12.2f} "
              f"{1e6 * sum(med) / max(ev, 1):>9.1f}")
    print(f"all cases, one pass: median {statistics.median(totals):.3f} s, p90 {np.percentile(totals, 90):.3f} s "
          f"over {args.repeat} passes")


if __name__ == "__main__":
    main()
