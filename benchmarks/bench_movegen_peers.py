"""heuri's move generator against MAGPIE's on the same positions, in alternating rounds.

    .venv/bin/python benchmarks/bench_movegen_peers.py                       # en es fr, 100 positions a class
    .venv/bin/python benchmarks/bench_movegen_peers.py --langs en --positions 200 --rounds 5
    .venv/bin/python benchmarks/bench_movegen_peers.py --matches "~/m/{lang}"  # other match records

Positions: midgame boards cut from the match records in ``--matches`` (``{lang}`` is
replaced by the language; default ``matches/{lang}/heuri3-vs-greedy``, made by
``heuri match --lang L --p1 heuri3 --p2 greedy --games 30``), see
``benchmarks/movegen_positions.py``; each board gets a rack with exactly 0, 1 and 2 blanks
(the three classes are reported separately) and is written as a CGP line with the mover's
rack only.

What is timed, per position, fastest of ``--repeat`` (5) calls: heuri's
``movegen.generate`` (every move: placements, exchanges, the pass; the Python call
included), heuri's ``movegen.generate_best(n=1)`` (the top-scoring placement; timed
right after heuri's pass in each round), and
MAGPIE's ``generate_moves`` with ``MOVE_RECORD_ALL`` (a timer linked against MAGPIE,
``$HEURI_PEERS/bench/magpie_bench``, benchmarks/README.md, *Peers*; MAGPIE also values
every move's leave; its cross-checks are made when the CGP is loaded, outside the timing;
heuri's are made in the call unless the board is the one of the previous call). The
heuri and MAGPIE passes alternate, ``--rounds`` times (the order swapped each round), so
that a change in the shared machine's load hits both; the ratio per round and over the
fastest of all rounds are printed. ``--digest`` prints instead, per language and blank
class, a SHA-256 of heuri's full move lists and best-1 answers (every record's bytes, in
order) with no timing: run it on two checkouts to see that a change of the generator left
every move as it was. The move counts are compared position by position
(MAGPIE counts the same moves: the same placements, exchanges and the pass).

MAGPIE is looked for in ``$HEURI_PEERS`` (default ``~/.cache/heuri-peers``: ``magpie/``
with its ``data/lexica/<LEX>.kwg`` and ``bench/magpie_bench``): English uses ``CSW_SOWPODS``
and French ``FRA_NPM``, both made from heuri's own word lists; Spanish has no MAGPIE
lexicon there (heuri only). Where something is missing the MAGPIE columns say so and the
heuri figures are still printed.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
PEERS = Path(os.environ.get("HEURI_PEERS", Path.home() / ".cache" / "heuri-peers"))
#: language → (MAGPIE lexicon, letter distribution)
MAGPIE_LEX = {"en": ("CSW_SOWPODS", "english"), "fr": ("FRA_NPM", "french"), "es": ("DISC_ES_NPM", "catalan_spanish_fise")}


def magpie_missing(lang: str) -> str | None:
    """Why MAGPIE cannot be timed for ``lang`` (None when it can)."""
    lex, _ = MAGPIE_LEX.get(lang, (None, None))
    need = [PEERS / "bench" / "magpie_bench", PEERS / "magpie" / "data" / "lexica" / f"{lex}.kwg"]
    miss = [str(p) for p in need if not p.exists()]
    return f"MAGPIE skipped: missing {', '.join(miss)} (benchmarks/README.md, Peers, says what they are)" if miss else None


def magpie_times(lang: str, cgp_file: str, repeat: int, wmp: bool) -> tuple[np.ndarray, np.ndarray]:
    """MAGPIE's (moves, fastest µs) per line of ``cgp_file``."""
    lex, ld = MAGPIE_LEX[lang]
    has_wmp = wmp and (PEERS / "magpie" / "data" / "lexica" / f"{lex}.wmp").exists()
    cmd = f"set -lex {lex} -ld {ld} -leaves {lex} -wmp {str(has_wmp).lower()} -threads 1"
    out = subprocess.run([str(PEERS / "bench" / "magpie_bench"), cmd, cgp_file, str(repeat)],
                         cwd=PEERS / "magpie", capture_output=True, text=True, check=True).stdout
    rows = [line.split() for line in out.splitlines() if line.strip()]
    if any(r[0] == "ERR" for r in rows):
        bad = [i for i, r in enumerate(rows) if r[0] == "ERR"]
        raise RuntimeError(f"MAGPIE refused {len(bad)} CGP lines of {cgp_file} (first: line {bad[0] + 1})")
    return np.array([int(r[0]) for r in rows]), np.array([float(r[1]) for r in rows])


def heuri_times(pack, calls, repeat: int, best: bool) -> tuple[np.ndarray, np.ndarray]:
    """heuri's (moves, fastest µs) per prepared call."""
    from heuri import movegen

    ns, us = [], []
    for letters, blanks, rack, bag, rules in calls:
        t_best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter_ns()
            if best:
                m = movegen.generate_best(pack, letters, blanks, rack, n=1)
            else:
                m = movegen.generate(pack, letters, blanks, rack, bag_size=bag, rules=rules)
            t_best = min(t_best, time.perf_counter_ns() - t0)
        ns.append(len(m))
        us.append(t_best / 1e3)
    return np.array(ns), np.array(us)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--langs", nargs="+", default=["en", "es", "fr"])
    ap.add_argument("--matches", default="matches/{lang}/heuri3-vs-greedy")
    ap.add_argument("--positions", type=int, default=100, help="positions a language and blank class")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--no-wmp", action="store_true", help="MAGPIE without its word map")
    ap.add_argument("--digest", action="store_true",
                    help="print a SHA-256 of heuri's move lists and best-1 answers a row, no timing")
    a = ap.parse_args(argv)

    from rich.console import Console
    from rich.table import Table

    from heuri import load_pack, movegen
    from heuri.game import Position
    from movegen_positions import cut_boards, lines_by_blanks

    con = Console(width=220)
    if a.digest:
        con.print = lambda *args, **kw: None  # the digests only
    has_best = hasattr(movegen, "generate_best")
    t = Table(title=f"all moves: heuri vs MAGPIE, fastest of {a.repeat}, {a.rounds} alternating rounds")
    for col in ("lang", "rack", "pos", "moves (mean)", "heuri median", "p90", "MAGPIE median", "p90",
                "ratio", "ratio by round", "same counts", "best-1 median", "full/best-1"):
        t.add_column(col, justify="left" if col in ("lang", "rack") else "right")
    notes = []
    tmp = tempfile.mkdtemp(prefix="heuri-bench-")
    for lang in a.langs:
        folder = Path(os.path.expanduser(a.matches.format(lang=lang)))
        if not (folder / "games").is_dir():
            notes.append(f"{lang}: no match records in {folder}/games (make them: .venv/bin/heuri match --lang "
                         f"{lang} --p1 heuri3 --p2 greedy --games 30 --out {folder})")
            continue
        pack = load_pack(lang)
        why = magpie_missing(lang)
        if why:
            notes.append(f"{lang}: {why}")
        cuts = cut_boards(folder, pack.spec)
        for nb, lines in lines_by_blanks(cuts, pack.spec, a.positions, a.seed).items():
            if not lines:
                continue
            path = os.path.join(tmp, f"{lang}-{nb}.cgp")
            Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
            calls = []
            for line in lines:
                p = Position.from_cgp(line, pack.spec)
                calls.append((p.board.letters, p.board.blanks, p.rack, p.bag_size, p.spec))
            if a.digest:
                import hashlib

                h = hashlib.sha256()
                for letters, blanks, rack, bag, rules in calls:
                    h.update(movegen.generate(pack, letters, blanks, rack, bag_size=bag, rules=rules).tobytes())
                    h.update(movegen.generate_best(pack, letters, blanks, rack, n=1).tobytes())
                print(f"{lang} {nb} blanks: {len(calls)} positions, sha256 {h.hexdigest()}", flush=True)
                continue
            heuri_times(pack, calls[:10], 1, False)  # warm-up (compiled code loaded)
            hs, ms, bs, ratios = [], [], [], []
            for r in range(a.rounds):
                order = ("heuri", "magpie") if r % 2 == 0 else ("magpie", "heuri")
                for who in order:
                    if who == "heuri":
                        hn, hu = heuri_times(pack, calls, a.repeat, False)
                        hs.append(hu)
                        if has_best:
                            bs.append(heuri_times(pack, calls, a.repeat, True)[1])
                    elif not why:
                        mn, mu = magpie_times(lang, path, a.repeat, not a.no_wmp)
                        ms.append(mu)
                if ms:
                    ratios.append(np.median(hs[-1]) / np.median(ms[-1]))
            h = np.min(hs, axis=0)
            row = [lang, f"{nb} blank" + ("s" if nb != 1 else ""), str(len(lines)), f"{hn.mean():,.0f}",
                   fmt(np.median(h)), fmt(np.percentile(h, 90))]
            if ms:
                m = np.min(ms, axis=0)
                row += [fmt(np.median(m)), fmt(np.percentile(m, 90)), f"{np.median(h) / np.median(m):.2f}",
                        ", ".join(f"{x:.2f}" for x in ratios), f"{int((mn == hn).sum())}/{len(hn)}"]
            else:
                row += ["-", "-", "-", "-", "-"]
            if has_best:
                bu = np.min(bs, axis=0)
                row += [fmt(np.median(bu)), f"{np.median(h) / np.median(bu):.1f}"]
            else:
                row += ["-", "-"]
            t.add_row(*row)
    con.print(t)
    for n in notes:
        con.print(n, highlight=False)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    con.print(f"ratio = heuri median / MAGPIE median (fastest over the rounds); best-1 = "
              f"generate_best(n=1) on the same positions, timed after heuri's pass in each round; "
              f"full/best-1 = heuri's all-moves median over best-1's; {os.cpu_count()} CPUs, load average "
              f"{load:.1f} at the end; MAGPIE word map {'off' if a.no_wmp else 'on'}", highlight=False)


if __name__ == "__main__":
    main()
