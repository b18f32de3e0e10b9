"""Simulation: rollouts a second a core, and where a rollout's time goes.

    python benchmarks/bench_simulation.py [--langs es en fr] [--positions 20] [--iterations 16]
                                          [--candidates 8] [--seed 1]

Reaches ``--positions`` midgame positions a language by seeded heuri2 self-play (game
``seed + i``, 6 to 12 moves in, the opponent's rack hidden as the player sees it), then runs
:class:`heuri.search.simulation.Simulator` on each with an iteration budget (``--iterations``:
the race's survivors reach that many rollouts; ``--candidates`` heuri5 moves race). It prints
for each language:

- rollouts a CPU second on one thread (the thread's own CPU time, so the figure holds on a
  machine shared with other work) and the median ms a rollout;
- the share of a rollout's time in the opponent's reply (``greedy``: one move generation), in
  our reply two plies on (``heuri2``: a move generation and every leave's bingo expectation)
  and in the rest (drawing, placing, bookkeeping), and the static ranking that picks the
  candidates, ms a position;
- two threads against one on the same races (the values are the same: the test suite checks
  it): wall-clock rollouts a second and the ratio, which needs two idle cores to mean anything.

With ``--magpie-seconds S`` and MAGPIE built (``$HEURI_PEERS``, default
``~/.cache/heuri-peers``: ``magpie/bin/magpie`` and its ``data/lexica/CSW_SOWPODS.kwg`` for
English, ``FRA_NPM.kwg`` for French: MAGPIE built from github:jvc56/MAGPIE with ``make magpie
BUILD=release``, MAGPIE-DATA's ``data/`` copied in, heuri's word list written as
``data/lexica/CSW_SOWPODS.txt`` and converted with ``bin/magpie convert text2kwg CSW_SOWPODS``,
the CSW21 leaves copied as ``CSW_SOWPODS.klv2``), each position
is also raced for S wall-clock seconds on one thread by heuri-sim's fast rollout and by
MAGPIE's ``gsimulate`` (its ``--candidates`` best static plays, 2 plies, no stopping rule),
alternating which goes first, and the script prints both counts a second: heuri's rollouts
and MAGPIE's iterations (one play's rollout each, as its ``Iters`` line counts them). A
language MAGPIE has no lexicon for, or a MAGPIE not found, is said and skipped.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import time
from pathlib import Path


def positions(pack, n: int, seed: int) -> list:
    """``n`` midgame positions of seeded heuri2 self-play (game ``seed + i``, move 6 + i % 7),
    the player to move's rack known and the opponent's hidden; games that end first are
    skipped."""
    from heuri.core.game import Game, Position
    from heuri.eval.evaluate import make_evaluator

    ev = make_evaluator(pack, "heuri2")
    out = []
    i = 0
    while len(out) < n and i < 4 * n:
        g = Game(pack.spec, seed=seed + i, words=pack.words)
        for _ in range(6 + i % 7):
            if g.over:
                break
            g.play(ev.choose(g.position))
        i += 1
        if g.over or g.position.bag_size < 14:
            continue
        out.append(Position.from_cgp(g.position.cgp(hide_others=True), pack.spec))
    return out


class _Timed:
    """Wraps an evaluator's ``rank_arrays`` and adds its thread CPU seconds to ``total``."""

    def __init__(self, fn):
        self.fn, self.total, self.calls = fn, 0.0, 0

    def __call__(self, *a, **k):
        t = time.thread_time()
        try:
            return self.fn(*a, **k)
        finally:
            self.total += time.thread_time() - t
            self.calls += 1


def measure(pack, poss, iterations: int, candidates: int, seed: int, table: bool = False) -> dict:
    """One thread: rollouts, CPU seconds (racing, and the static ranking), per-rollout ms, and
    the CPU seconds in the reply and in our move two plies on (with ``table``: the best-first
    generator, and the generator plus the lookup; the table's build apart)."""
    from heuri.core import movegen
    from heuri.eval import leave_values
    from heuri.search.simulation import Simulator

    sim = Simulator(pack, candidates=candidates, seed=seed, table=table)
    saved = movegen.generate_best, movegen.generate, leave_values.LeaveValues
    if table:
        reply, ours, build = _Timed(movegen.generate_best), _Timed(movegen.generate), _Timed(leave_values.LeaveValues)
        movegen.generate_best, movegen.generate, leave_values.LeaveValues = reply, ours, build
    else:
        reply, ours, build = _Timed(sim.reply.rank_arrays), _Timed(sim.policy.rank_arrays), _Timed(None)
        sim.reply.rank_arrays, sim.policy.rank_arrays = reply, ours
    rank = _Timed(sim.engine.rank)
    sim.engine.rank = rank
    try:
        sim.simulate(poss[0], seconds=None, iterations=2)  # compile and warm the caches
        reply.total = ours.total = rank.total = build.total = 0.0
        rollouts, cpu, per = 0, 0.0, []
        for p in poss:
            t, before = time.thread_time(), rank.total + build.total
            r = sim.simulate(p, seconds=None, iterations=iterations)
            dt = time.thread_time() - t
            rollouts += r.rollouts
            cpu += dt
            per.append(1000 * (dt - (rank.total + build.total - before)) / max(1, r.rollouts))
    finally:
        movegen.generate_best, movegen.generate, leave_values.LeaveValues = saved
    race = cpu - rank.total - build.total
    return {"rollouts": rollouts, "cpu": cpu, "race": race, "rank_ms": 1000 * rank.total / len(poss),
            "build_ms": 1000 * build.total / len(poss), "per_ms": statistics.median(per),
            "reply": reply.total / race, "policy": ours.total / race}


def wall(pack, poss, iterations: int, candidates: int, seed: int, threads: int,
         table: bool = False) -> tuple[int, float]:
    """Rollouts and wall seconds of the races with ``threads`` threads."""
    from heuri.search.simulation import Simulator

    sim = Simulator(pack, candidates=candidates, seed=seed, threads=threads, table=table)
    sim.simulate(poss[0], seconds=None, iterations=2)
    n, t = 0, time.perf_counter()
    for p in poss:
        n += sim.simulate(p, seconds=None, iterations=iterations).rollouts
    return n, time.perf_counter() - t


PEERS = Path(os.environ.get("HEURI_PEERS", Path.home() / ".cache" / "heuri-peers"))
#: MAGPIE's lexicon, letter distribution and leaves for heuri's lists (the names of benchmarks/README.md, Peers)
MAGPIE_DATA = {"en": ("CSW_SOWPODS", "english"), "fr": ("FRA_NPM", "french")}


def magpie_missing(lang: str) -> str | None:
    """Why MAGPIE cannot race ``lang`` here, or None."""
    if lang not in MAGPIE_DATA:
        return f"MAGPIE has no {lang} lexicon built from heuri's list (benchmarks/README.md, Peers: en and fr)"
    need = [PEERS / "magpie" / "bin" / "magpie", PEERS / "magpie" / "data" / "lexica" / f"{MAGPIE_DATA[lang][0]}.kwg"]
    gone = [str(p) for p in need if not p.exists()]
    return f"not found: {', '.join(gone)} (this script's docstring says how to build them)" if gone else None


def magpie_settings(lang: str, plays: int) -> str:
    """MAGPIE's command-line settings for ``lang`` (its lexicon and leave table built from
    heuri's list, its letter distribution, the word map when built), one thread, ``plays``
    moves kept."""
    lex, ld = MAGPIE_DATA[lang]
    wmp = (PEERS / "magpie" / "data" / "lexica" / f"{lex}.wmp").exists()
    return f"-lex {lex} -ld {ld} -leaves {lex} -wmp {str(wmp).lower()} -threads 1 -numplays {plays}"


def run_magpie(commands: str, timeout: float) -> str:
    """MAGPIE's output for ``commands`` (lines of its command language), one process a call
    (``set -mode sync``, plain output)."""
    return subprocess.run([str(PEERS / "magpie" / "bin" / "magpie"), "set", "-mode", "sync", "-savesettings", "false",
                           "-shw", "false", "-pretty", "false", "-hr", "false"], input=commands, cwd=PEERS / "magpie",
                          capture_output=True, text=True, timeout=timeout).stdout


def magpie_iterations(lang: str, cgp: str, seconds: float, plays: int) -> tuple[int, float]:
    """MAGPIE's ``gsimulate`` on one CGP for ``seconds`` on one thread: (iterations, seconds)."""
    out = run_magpie(f"cgp {cgp} {magpie_settings(lang, plays)} -plies 2 -iterations 100000000 -scondition none "
                     f"-tlim {seconds:g}\ngsimulate\n", 120 + 2 * seconds)
    it = re.search(r"Iters:\s+(\d+)", out)
    tm = re.search(r"Time:\s+([\d.]+) seconds", out)
    if not (it and tm):
        raise RuntimeError(f"MAGPIE's gsimulate printed no Iters/Time lines: {out[-300:]!r}")
    return int(it.group(1)), float(tm.group(1))


def against_magpie(pack, lang: str, poss, seconds: float, plays: int, seed: int) -> str:
    """heuri-sim's fast rollout and MAGPIE's gsimulate, ``seconds`` each a position on one
    thread, alternating: the line the table prints."""
    from heuri.search.simulation import Simulator

    why = magpie_missing(lang)
    if why:
        return f"{lang}: MAGPIE skipped: {why}"
    sim = Simulator(pack, candidates=plays, seed=seed, table=True)
    sim.simulate(poss[0], seconds=None, iterations=2)
    ours, theirs = [0, 0.0], [0, 0.0]
    for i, p in enumerate(poss):
        for who in ((0, 1) if i % 2 == 0 else (1, 0)):
            if who == 0:
                r = sim.simulate(p, seconds=seconds)
                ours[0] += r.rollouts
                ours[1] += r.seconds
            else:
                n, t = magpie_iterations(lang, p.cgp(), seconds, plays)
                theirs[0] += n
                theirs[1] += t
    return (f"{lang}: {seconds:g} s a position on one thread, {plays} candidates: heuri-sim table=1 "
            f"{ours[0] / ours[1]:,.0f} rollouts a second (its static ranking and table included); "
            f"MAGPIE gsimulate {theirs[0] / theirs[1]:,.0f} iterations a second")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--langs", nargs="+", default=["es", "en", "fr"])
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--iterations", type=int, default=16)
    ap.add_argument("--candidates", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-threads", action="store_true", help="skip the two-thread comparison")
    ap.add_argument("--magpie-seconds", type=float, default=0,
                    help="also race each position this long with heuri-sim table=1 and MAGPIE's gsimulate")
    ap.add_argument("--table", action="store_true",
                    help="the fast rollout (Simulator(table=True)): our move two plies on valued from the table of "
                         "every leave's e, built once a race (its time counted in the race)")
    a = ap.parse_args(argv)

    import heuri

    print(f"heuri-sim rollouts: {a.positions} midgame positions a language (heuri2 self-play, seed {a.seed}), "
          f"{a.candidates} candidates, {a.iterations} iterations")
    print(f"{'lang':4} {'rollouts':>8} {'a CPU s':>8} {'ms each':>8} {'reply':>6} {'ours':>6} {'rest':>6} "
          f"{'ranking ms':>10} {'table ms':>8} {'1 thr /s':>9} {'2 thr /s':>9} {'ratio':>6}")
    magpie_lines: list[str] = []
    for lang in a.langs:
        pack = heuri.load_pack(lang)
        poss = positions(pack, a.positions, a.seed)
        m = measure(pack, poss, a.iterations, a.candidates, a.seed, a.table)
        row = (f"{lang:4} {m['rollouts']:8d} {m['rollouts'] / m['race']:8.0f} {m['per_ms']:8.2f} "
               f"{100 * m['reply']:5.0f}% {100 * m['policy']:5.0f}% {100 * (1 - m['reply'] - m['policy']):5.0f}% "
               f"{m['rank_ms']:10.1f} {m['build_ms']:8.1f}")
        if not a.no_threads:
            n1, t1 = wall(pack, poss, a.iterations, a.candidates, a.seed, 1, a.table)
            n2, t2 = wall(pack, poss, a.iterations, a.candidates, a.seed, 2, a.table)
            row += f" {n1 / t1:9.0f} {n2 / t2:9.0f} {(n2 / t2) / (n1 / t1):6.2f}"
        print(row, flush=True)
        if a.magpie_seconds > 0:
            magpie_lines.append(against_magpie(pack, lang, poss, a.magpie_seconds, a.candidates, a.seed))
    print("a CPU s: rollouts a CPU second of the racing thread (the static ranking excluded); reply: the opponent's "
          "greedy reply; ours: heuri2 two plies on; ranking ms: heuri5's ranking of a position's candidates; "
          "table ms: the leave table's build a position (--table); 1/2 thr /s: wall-clock rollouts a second, "
          "the ranking and the table included.")
    for line in magpie_lines:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
