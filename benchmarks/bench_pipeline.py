"""Pipeline and pack-loading figures.

    python benchmarks/bench_pipeline.py [--cores 2] [--langs es en fr]

1. Builds the packs from an empty build folder (a temporary work directory that links to
   lexicons/, pipeline/ and runtime/), reporting wall time and the peak memory of the
   largest job; then runs Snakemake again and checks it has nothing to do.
2. Loads each pack in a fresh interpreter 5 times (``heuri.load_pack``) and reports the
   median and worst time, import of heuri excluded and included.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT  # noqa: E402



def build(cores: int, langs: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in ("lexicons", "pipeline", "runtime"):
            (work / name).symlink_to(ROOT / name)
        cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(work),
               "--cores", str(cores), "--quiet", "all", "--", *langs]
        t = time.perf_counter()
        subprocess.run(cmd, check=True, cwd=work)
        wall = time.perf_counter() - t
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 / 1024
        again = subprocess.run(cmd[:-len(langs) - 3] + ["--dry-run", *langs], cwd=work,
                               capture_output=True, text=True)
        idle = "Nothing to be done" in again.stdout + again.stderr
        print(f"snakemake --cores {cores} {' '.join(langs)} from empty build/: {wall:.1f} s, "
              f"peak memory of the largest job {peak:.2f} GiB; second run does nothing: {idle}")


def load_times(lang: str, runs: int = 5) -> None:
    code = ("import time; t0 = time.perf_counter(); import heuri; t1 = time.perf_counter(); "
            f"p = heuri.load_pack({lang!r}); t2 = time.perf_counter(); "
            "print(t2 - t1, t2 - t0)")
    load, total = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ}).stdout.split()
        load.append(float(out[0])); total.append(float(out[1]))
    print(f"load_pack({lang!r}) in a fresh process: median {statistics.median(load) * 1000:.0f} ms, "
          f"worst {max(load) * 1000:.0f} ms (with `import heuri`: median {statistics.median(total) * 1000:.0f} ms)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--langs", nargs="+", default=["es", "en", "fr"])
    ap.add_argument("--skip-build", action="store_true")
    a = ap.parse_args()
    if not a.skip_build:
        build(a.cores, a.langs)
    for lang in a.langs:
        load_times(lang)


if __name__ == "__main__":
    main()
