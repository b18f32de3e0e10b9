"""Which engine chooses the better move, judged by a long simulation: heuri's engines (static
and simulating) and MAGPIE's players on the same positions, each choice valued by MAGPIE's
own simulation run far longer than a match allows.

    .venv/bin/python benchmarks/investigations/sim_oracle.py matches/strength/en/heuri6-vs-magpie \\
        --lang en --engine-name heuri6 --positions 120 --oracle-seconds 4 \\
        --engines heuri5 "heuri-sim@iterations=24,candidates=4,prior=8" magpie magpie-sim

A match of 1,000 games tells two engines apart to about three points of win rate, and costs an
hour or more on two cores; most of its noise is the tiles, not the choices. This study looks
at the choices alone. The positions are the turns one engine played in a match's records
(its rack is recorded; only turns with tiles in the bag, where a simulation plays). Each
engine listed chooses a move in each position: an engine of ``heuri match`` (``heuri5``,
``heuri-sim@...``; its choice is a function of the position), ``magpie`` (MAGPIE's best static
equity) or ``magpie-sim`` (MAGPIE's simulation as ``siu_magpie.py --sim-seconds 1`` plays it:
its 15 best static moves, 2 plies, stopping at 99 % or ``--magpie-sim-seconds``). Then the
distinct moves chosen are simulated together by MAGPIE (``addmoves`` and ``simulate``: 2
plies, MAGPIE's leave table of the language (CSW21 in English), every move sampled in turn
with no stopping rule, ``--oracle-seconds`` on one thread), and each engine's choice gets
that simulation's equity (points: the spread after the plies plus the leave value) and
chance to win.

For each engine the table gives the positions where its choice differs from the first
engine's, and its mean equity and win chance minus the first engine's, over all positions,
with 1.96 standard errors of the mean. The judge is a simulation with MAGPIE's leave table and
MAGPIE's static player in its plies, so it favours moves MAGPIE's evaluation likes: compare
heuri's engines with each other, and read the MAGPIE rows as what the judge's own player
gets. Each position's oracle run is independent of the engines' order.

``--out FILE`` also writes each position (the choices and the judge's values) as a JSON
line; ``sim_oracle.py pool FILE ...`` puts such files together and gives every two engines'
difference position by position.

MAGPIE is found as in ``benchmarks/bench_simulation.py`` (``$HEURI_PEERS``, default
``~/.cache/heuri-peers``; English and French); without it the script says so and stops.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import shlex
import sys
import time
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]  # here, and benchmarks/
from bench_simulation import magpie_missing, magpie_settings, run_magpie  # noqa: E402
from equity_gap import positions as match_positions  # noqa: E402

#: MAGPIE's simulation rows (``-pretty false``): index, move, leave (absent when every tile
#: is played), score, a mark (``-``, or ``X`` for a play its stopping rule set aside), win %,
#: its standard error, equity, its standard error, static equity, iterations and six more
SIM_ROW = re.compile(r"^\d+:\s+(pass|\(exch \S+\)|\S+ \S+)\s+(.*)$")
#: MAGPIE's static rows: index, move, leave, score, equity
STATIC_ROW = re.compile(r"^\d+:\s+(pass|\(exch \S+\)|\S+ \S+)\s")


def magpie_to_siu(move: str) -> str:
    """MAGPIE's notation to SIU text: ``2H ROSI(E)RE`` → ``2H.ROSIERE``, ``(exch RRS)`` →
    ``ex.RRS``, ``pass``. Exchanged tiles are sorted (:func:`siu_key`)."""
    if move == "pass":
        return "pass"
    if move.startswith("(exch "):
        return "ex." + "".join(sorted(move[6:-1]))
    coord, tiles = move.split()
    return coord.upper() + "." + tiles.replace("(", "").replace(")", "")


def siu_key(text: str) -> str:
    """A move's SIU text with an exchange's tiles sorted, so that both engines' texts meet."""
    return "ex." + "".join(sorted(text[3:])) if text.startswith("ex.") else text


def siu_to_magpie(text: str) -> str:
    """SIU text to what MAGPIE's ``addmoves`` reads: ``8H.WORD`` → ``8H WORD`` (played-through
    letters written out), ``ex.QV`` → ``ex QV``, ``pass``."""
    return "pass" if text == "pass" else text.replace(".", " ", 1)


class Magpie:
    """MAGPIE's command line for one language, one run a request
    (:func:`bench_simulation.run_magpie`)."""

    def __init__(self, lang: str):
        self.lang = lang

    def settings(self, plays: int) -> str:
        return magpie_settings(self.lang, plays) + " -s1 equity -s2 equity"

    def static_best(self, cgp: str) -> str:
        out = run_magpie(f"cgp {cgp} {self.settings(1)}\ngenerate\n", 60)
        rows = [m.group(1) for m in map(STATIC_ROW.match, out.splitlines()) if m]
        if not rows:
            raise RuntimeError(f"MAGPIE's generate printed no move for {cgp!r}: {out[-300:]!r}")
        return magpie_to_siu(rows[0])

    def sim_best(self, cgp: str, seconds: float) -> str:
        out = run_magpie(f"cgp {cgp} {self.settings(15)} -plies 2 -iterations 1000000 -scondition 99 "
                        f"-tlim {seconds:g}\ngsimulate\n", 60 + 2 * seconds)
        rows = self._sim_rows(out)
        if not rows:
            raise RuntimeError(f"MAGPIE's gsimulate printed no move for {cgp!r}: {out[-300:]!r}")
        return next(iter(rows))

    def judge(self, cgp: str, moves: list[str], seconds: float) -> dict:
        """{SIU text: (equity, win %)} of MAGPIE's simulation of ``moves`` together."""
        add = "".join(f"addmoves {siu_to_magpie(m)}\n" for m in moves)  # one a line: an error names its move
        # round robin, no stopping rule: every move gets the same rollouts (MAGPIE's BAI would
        # stop early on moves it finds "similar", such as two anagrams on the same squares)
        out = run_magpie(f"cgp {cgp} {self.settings(len(moves))} -plies 2 -iterations 100000000 -scondition none "
                        f"-threshold none -sr rr -tlim {seconds:g}\n{add}simulate\n", 60 + 2 * seconds)
        rows = self._sim_rows(out)
        missing = [m for m in moves if siu_key(m) not in rows]
        if missing:
            errors = [line for line in out.splitlines() if line.startswith("(error")]
            raise RuntimeError(f"MAGPIE did not simulate {missing} of {moves} in {cgp!r}: {errors}")
        return {m: rows[siu_key(m)] for m in moves}

    @staticmethod
    def _sim_rows(out: str) -> dict:
        rows = {}
        for line in out.splitlines():
            m = SIM_ROW.match(line)
            if not m:
                continue
            rest = m.group(2).split()
            if len(rest) < 14:
                continue
            i = len(rest) - 13  # the marker column (- or X), then twelve numbers
            rows[magpie_to_siu(m.group(1))] = (float(rest[i + 3]), float(rest[i + 1]))
        return rows


def pool(files: list[str]) -> int:
    """``sim_oracle.py pool FILE ...``: the positions of ``--out`` files (the same engines in
    each) together, and for every two engines the later minus the earlier, position by
    position: equity and win % with 1.96 standard errors, and the positions where their
    choices differ."""
    rows = []
    for f in files:
        with open(f) as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    if not rows:
        print(f"no positions in {' '.join(files)}")
        return 1
    names = list(rows[0]["chosen"])
    if any(list(r["chosen"]) != names for r in rows):
        print(f"the files do not hold the same engines ({', '.join(names)} in the first)")
        return 1

    def value(r, n, k):
        return r["judged"][r["chosen"][n]][k]

    print(f"{len(rows)} positions of {' '.join(files)}")
    print(f"{'later minus earlier':<100} {'differs':>8} {'equity [95 %]':>16} {'win % [95 %]':>16}")
    for j, a in enumerate(names):
        for b in names[j + 1:]:
            eq_m, eq_h = mean_ci([value(r, b, 0) - value(r, a, 0) for r in rows])
            w_m, w_h = mean_ci([value(r, b, 1) - value(r, a, 1) for r in rows])
            n = sum(r["chosen"][a] != r["chosen"][b] for r in rows)
            print(f"{b + ' minus ' + a:<100} {n:>8} {eq_m:>+8.2f} ± {eq_h:<5.2f} {w_m:>+8.2f} ± {w_h:<5.2f}")
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["pool"]:
        return pool(argv[1:])
    from heuri.core.game import Position
    from heuri.core.pack import load_pack
    from heuri.play.players import make_player

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("match", help="a match folder (its games/*.gcg) whose records hold one engine's racks")
    ap.add_argument("--lang", required=True)
    ap.add_argument("--engine-name", default="heuri6", help="whose turns to take (its name in the records)")
    ap.add_argument("--engines", nargs="+", required=True,
                    help="heuri match engine names, magpie, magpie-sim; the first is the reference")
    ap.add_argument("--positions", type=int, default=100, help="at most this many positions")
    ap.add_argument("--every", type=int, default=7, help="take one turn in this many (spread over the games)")
    ap.add_argument("--offset", type=int, default=0, help="which of the --every turns: 0 to every - 1 (another sample)")
    ap.add_argument("--oracle-seconds", type=float, default=4.0, help="MAGPIE's simulation of the choices, seconds")
    ap.add_argument("--magpie-sim-seconds", type=float, default=1.0)
    ap.add_argument("--out", type=Path, default=None,
                    help="also write each position (JSON lines: the choices, their equity and win %%) here")
    args = ap.parse_args(argv)
    if not 0 <= args.offset < args.every:
        ap.error(f"--offset {args.offset}: give 0 to {args.every - 1} (--every {args.every})")
    why = magpie_missing(args.lang)
    if why:
        print(f"skipped: MAGPIE {why}")
        return 0
    pack = load_pack(args.lang)
    spec = pack.spec
    magpie = Magpie(args.lang)
    players = {n: None if n in ("magpie", "magpie-sim") else make_player(n, pack) for n in args.engines}
    eq = {n: [] for n in args.engines}
    win = {n: [] for n in args.engines}
    secs = {n: 0.0 for n in args.engines}
    differs = {n: 0 for n in args.engines}
    for j, n in enumerate(args.engines):
        print(f"[{j + 1}] {n}")
    k = 0
    if args.out is not None and args.out.exists():
        ap.error(f"--out {args.out}: the file exists; give a new name")
    out = args.out.open("w") if args.out is not None else None
    try:
        for i, (name, won, turn, cgp, rack, played, bag) in enumerate(
                match_positions(Path(args.match), pack, args.engine_name)):
            if bag == 0 or i % args.every != args.offset:
                continue
            pos = Position.from_cgp(cgp, spec)
            core = " ".join(cgp.split()[:4])
            chosen = {}
            for n in args.engines:
                t = time.perf_counter()
                if n == "magpie":
                    chosen[n] = magpie.static_best(core)
                elif n == "magpie-sim":
                    chosen[n] = magpie.sim_best(core, args.magpie_sim_seconds)
                else:
                    chosen[n] = siu_key(players[n].choose(pos).siu(spec, pos.board))
                secs[n] += time.perf_counter() - t
            moves = list(dict.fromkeys(chosen.values()))
            if len(moves) > 1:
                judged = magpie.judge(core, moves, args.oracle_seconds)
            else:
                judged = {moves[0]: (0.0, 0.0)}
            ref = args.engines[0]
            for n in args.engines:
                eq[n].append(judged[chosen[n]][0] - judged[chosen[ref]][0])
                win[n].append(judged[chosen[n]][1] - judged[chosen[ref]][1])
                differs[n] += chosen[n] != chosen[ref]
            k += 1
            if out is not None:
                out.write(json.dumps({"game": name, "turn": turn, "bag": bag, "cgp": core, "chosen": chosen,
                                      "judged": {m: list(v) for m, v in judged.items()}}) + "\n")
                out.flush()
            print(f"{k:4d} {name} turn {turn} bag {bag}: " +
                  "  ".join(f"[{j + 1}] {chosen[n]}" for j, n in enumerate(args.engines)), flush=True)
            if k % 25 == 0 and k < args.positions:
                report(args, k, eq, win, secs, differs)
            if k >= args.positions:
                break
    finally:
        if out is not None:
            out.close()
        for p in players.values():
            if p is not None and hasattr(p, "close"):
                p.close()
    report(args, k, eq, win, secs, differs)
    print("command: " + shlex.join([sys.executable, *sys.argv]))
    return 0


def mean_ci(xs) -> tuple[float, float]:
    """The mean of ``xs`` and 1.96 standard errors of it (nan for fewer than two)."""
    a = np.asarray(xs, np.float64)
    if len(a) < 2:
        return (float(a.mean()) if len(a) else 0.0), float("nan")
    return float(a.mean()), 1.96 * float(a.std(ddof=1)) / math.sqrt(len(a))


def report(args, k: int, eq: dict, win: dict, secs: dict, differs: dict) -> None:
    """The table of the first ``k`` positions (printed every 25 and at the end)."""
    print(f"\n{k} positions of {args.match} ({args.engine_name}'s turns, bag not empty); judge: MAGPIE's "
          f"simulation of the choices, {args.oracle_seconds:g} s, 2 plies; reference: {args.engines[0]}")
    print(f"{'engine':<48} {'differs':>8} {'equity minus ref [95 %]':>26} {'win % minus ref [95 %]':>26} {'s a move':>9}")
    for n in args.engines:
        m, h = mean_ci(eq[n])
        w, hw = mean_ci(win[n])
        print(f"{n:<48} {differs[n]:>8} {m:>+14.2f} ± {h:<9.2f} {w:>+14.2f} ± {hw:<9.2f} {secs[n] / max(k, 1):>9.2f}",
              flush=True)


if __name__ == "__main__":
    sys.exit(main())
