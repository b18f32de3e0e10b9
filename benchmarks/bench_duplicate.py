"""Duplicate master games: seconds per game, and a batch for statistics.

    .venv/bin/python benchmarks/bench_duplicate.py                          # fr es en, 200 games each
    .venv/bin/python benchmarks/bench_duplicate.py --langs fr --games 1000 --jobs 2

For each language: a warm-up game (compiling or loading the move generator's cache), then
``--timed`` master games timed one by one (seeds 1..timed; ``time.perf_counter``): median,
mean and slowest seconds a game (target: a whole master game in <= 2 s). Then a batch of
``--games`` master games (seeds 1..games) with a progress bar showing the running mean top
total and bingos a game; at the end a table: games, mean top total (points) with its
standard deviation and 95 % interval of the mean, turns, bingos (tops placing the whole
rack), rejected draws and seconds per game. ``--out FILE.csv`` keeps one row per game.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from _common import ROOT  # noqa: E402



def one(args) -> dict:
    """Play the master game of one seed; its figures. ``explain``: with each turn's
    p(septet) as ``heuri duplicate new`` computes it."""
    lang, seed, explain = args
    from heuri import load_pack
    from heuri.duplicate import master_game

    t = time.perf_counter()
    g = master_game(load_pack(lang), seed=seed, explain=explain)
    return {"lang": lang, "seed": seed, "total": g.total, "turns": len(g.turns), "bingos": g.bingos,
            "rejected": sum(len(x.draw.rejected) for x in g.turns), "end": g.end,
            "seconds": time.perf_counter() - t}


def timed(lang: str, n: int, explain: bool) -> list[float]:
    one((lang, 10_000, explain))  # warm-up: numba cache, pack load
    return [one((lang, s, explain))["seconds"] for s in range(1, n + 1)]


def batch(lang: str, games: int, jobs: int) -> list[dict]:
    from tqdm import tqdm

    rows = []
    bar = tqdm(total=games, desc=f"{lang} master games", unit="game")
    work = [(lang, s, False) for s in range(1, games + 1)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as ex:
            it = ex.map(one, work, chunksize=8)
            for r in it:
                rows.append(r)
                bar.update()
                bar.set_postfix(top=f"{statistics.fmean(x['total'] for x in rows):.1f}",
                                bingos=f"{statistics.fmean(x['bingos'] for x in rows):.2f}")
    else:
        for w in work:
            rows.append(one(w))
            bar.update()
            bar.set_postfix(top=f"{statistics.fmean(x['total'] for x in rows):.1f}",
                            bingos=f"{statistics.fmean(x['bingos'] for x in rows):.2f}")
    bar.close()
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--langs", nargs="+", default=["fr", "es", "en"])
    ap.add_argument("--games", type=int, default=200, help="master games in the batch, per language")
    ap.add_argument("--timed", type=int, default=20, help="master games timed one by one, per language")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes for the batch")
    ap.add_argument("--out", help="CSV with one row per game of the batch")
    a = ap.parse_args(argv)
    from rich.console import Console
    from rich.table import Table

    sys.path.insert(0, str(ROOT))
    t1 = Table(title="seconds per master game (one process, after a warm-up game)")
    for col in ("lang", "mode", "games", "median s", "mean s", "max s"):
        t1.add_column(col, justify="right")
    t2 = Table(title="master games: statistics")
    for col in ("lang", "games", "mean top total", "sd", "95 % CI of the mean", "turns", "bingos/game",
                "rejected draws/game", "s/game (batch)"):
        t2.add_column(col, justify="right")
    every = []
    for lang in a.langs:
        for explain, mode in ((True, "heuri duplicate new (tops + p(septet))"), (False, "tops only")):
            s = timed(lang, a.timed, explain)
            t1.add_row(lang, mode, str(len(s)), f"{statistics.median(s):.3f}", f"{statistics.fmean(s):.3f}",
                       f"{max(s):.3f}")
        t0 = time.perf_counter()
        rows = batch(lang, a.games, a.jobs)
        wall = time.perf_counter() - t0
        every += rows
        tot = [r["total"] for r in rows]
        sd = statistics.stdev(tot) if len(tot) > 1 else 0.0
        half = 1.96 * sd / len(tot) ** 0.5
        mean = statistics.fmean(tot)
        t2.add_row(lang, str(len(rows)), f"{mean:.1f}", f"{sd:.1f}", f"[{mean - half:.1f}, {mean + half:.1f}]",
                   f"{statistics.fmean(r['turns'] for r in rows):.1f}",
                   f"{statistics.fmean(r['bingos'] for r in rows):.2f}",
                   f"{statistics.fmean(r['rejected'] for r in rows):.2f}", f"{wall / len(rows):.3f}")
    con = Console(width=140)
    con.print(t1)
    con.print(t2)
    if a.out:
        import polars as pl

        pl.DataFrame(every).write_csv(a.out)
        print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
