"""heuri's endgame solver against MAGPIE's: agreement of the values and of the
chosen moves on the same bag-empty English endgames.

    python benchmarks/bench_endgame.py --lang en --games 200 --time 5 --rows rows_en.tsv
    python benchmarks/compare_magpie_endgame.py rows_en.tsv [--time 5] [--first 100] [--out FILE]
    python benchmarks/compare_magpie_endgame.py --summary FILE   # the table of an --out file

Reads the per-endgame lines ``bench_endgame.py --rows`` writes (heuri's value, move and
whether it is exact, with the CGP), asks MAGPIE's ``endgame`` command (one thread, at most
``--time`` seconds, up to 25 plies) the same CGP on heuri's own word list (``CSW_SOWPODS``,
built from the en pack as benchmarks/README.md, *Peers*, says), and prints: endgames, values
equal, chosen moves equal (the same placement, or both pass), the same figures on the
endgames heuri proved exact, and MAGPIE's median depth (plies, passes included) and
seconds. MAGPIE is a measurement tool outside the project: it is looked for in
``$HEURI_PEERS/magpie`` (default ``~/.cache/heuri-peers``); when it is missing the script
says so and stops. MAGPIE's end-of-game rules are the English pack's: going out adds twice
the opponent's rack, six scoreless turns end the game with each rack lost.

MAGPIE's ``-etlim`` is not a hard limit: it finishes the depth it is on (on a blank rack
with 7 tiles a side, depth 4 took 150 s under a 5 s limit), and an endgame it has not
answered within 120 s + 4 x ``--time`` is skipped (counted on stderr). ``--out`` is written
as the run goes, so ``--summary`` prints the table of a run that was stopped.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

PEERS = Path(os.environ.get("HEURI_PEERS", Path.home() / ".cache" / "heuri-peers"))
HEAD = re.compile(r"Endgame \(depth: (\d+), time: ([\d.]+)s")


def magpie_endgame(magpie: Path, cgp: str, seconds: float) -> dict:
    """MAGPIE's endgame answer for ``cgp``: {move (GCG-like text, played-through letters
    as dots), value (spread to the end), depth (plies), seconds} or {error}."""
    cmds = (f"cgp {cgp} -lex CSW_SOWPODS -ld english -wmp true -threads 1\n"
            f"endgame -eplies 25 -etlim {seconds}\n")
    p = subprocess.run([str(magpie / "bin" / "magpie"), "set", "-mode", "sync", "-savesettings", "false",
                        "-shw", "false", "-pretty", "false", "-hr", "false"], input=cmds, cwd=magpie,
                       capture_output=True, text=True, timeout=120 + 4 * seconds)
    lines = p.stdout.splitlines()
    for i, line in enumerate(lines):
        m = HEAD.search(line)
        if m and i + 2 < len(lines):
            tok = lines[i + 2].split()
            if tok[0].lower() == "pass":
                move, rest = "pass", " ".join(tok[1:])
            else:
                move = f"{tok[0]} {re.sub(r'[(]([^)]*)[)]', lambda g: '.' * len(g.group(1)), tok[1])}"
                rest = " ".join(tok[2:])
            # columns: score (a pass has none), the end bonus in parentheses when the move
            # goes out ("(AEIRTWY +22)"), value, final spread, then the rest of the PV
            nums = [t for t in re.sub(r"[(][^)]*[)]", " ", rest).split() if re.fullmatch(r"[-+]?\d+", t)]
            k = 0 if move == "pass" else 1
            if len(nums) < k + 2:
                return {"error": [f"unparsed line: {lines[i + 2]}"]}
            value = int(nums[k])
            return {"move": move, "value": value, "depth": int(m.group(1)), "seconds": float(m.group(2))}
    return {"error": (p.stdout + p.stderr).strip().splitlines()[-1:] or ["no output"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="?", help="bench_endgame.py --rows file (English lines are used)")
    ap.add_argument("--summary", default=None, help="print the table of an --out file and stop")
    ap.add_argument("--time", type=float, default=5.0, help="MAGPIE's time limit, seconds")
    ap.add_argument("--first", type=int, default=100)
    ap.add_argument("--start", type=int, default=0, help="skip the first START English lines (resume a run)")
    ap.add_argument("--out", default=None, help="one line per endgame: heuri's and MAGPIE's answers")
    a = ap.parse_args()
    if a.summary:
        res = []
        for line in open(a.summary, encoding="utf-8"):
            f = line.rstrip("\n").split("\t")
            r = {"exact": f[0] == "True", "value": int(f[1]), "move": f[2]}
            m = {"value": int(f[3]), "move": f[4], "depth": int(f[5]), "seconds": float(f[6])}
            res.append((r, m, f[2] == f[4]))
        return _table(res)
    if not a.rows:
        ap.error("a --rows file (or --summary FILE) is needed")
    magpie = PEERS / "magpie"
    if not (magpie / "bin" / "magpie").exists() or not (magpie / "data" / "lexica" / "CSW_SOWPODS.kwg").exists():
        print(f"MAGPIE not found in {magpie} (benchmarks/README.md, Peers, says how to build it): skipped")
        return 0
    rows = []
    for line in open(a.rows, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if f[0] == "en" and f[5] != "":
            rows.append({"exact": f[3] == "True", "value": int(f[5]), "move": f[6], "cgp": f[7]})
    rows = rows[a.start:a.first]
    out = open(a.out, "w", encoding="utf-8") if a.out else None
    res = []
    for k, r in enumerate(rows):
        try:
            m = magpie_endgame(magpie, r["cgp"], a.time)
        except subprocess.TimeoutExpired:
            m = {"error": "timed out"}
        if "error" in m:
            print(f"{k}: MAGPIE error {m['error']}", file=sys.stderr)
            continue
        ours = "pass" if r["move"].lower().startswith("pass") or r["move"] == "-" else r["move"]
        res.append((r, m, ours == m["move"]))
        if out:
            out.write(f"{r['exact']}\t{r['value']}\t{ours}\t{m['value']}\t{m['move']}\t{m['depth']}\t"
                      f"{m['seconds']}\t{r['cgp']}\n")
            out.flush()
    return _table(res)


def _table(res) -> int:
    """Print the agreement table of ``res``: (heuri's row, MAGPIE's answer, same move)."""
    if not res:
        print("no endgame answered")
        return 1

    def line(name, sub):
        if not sub:
            print(f"{name:22} {0:5d}")
            return
        same_v = sum(r["value"] == m["value"] for r, m, _ in sub)
        same_m = sum(e for _, _, e in sub)
        print(f"{name:22} {len(sub):5d} {100 * same_v / len(sub):8.1f} {100 * same_m / len(sub):8.1f} "
              f"{statistics.median(m['depth'] for _, m, _ in sub):8.0f} "
              f"{statistics.median(m['seconds'] for _, m, _ in sub):8.2f}")

    print(f"{'':22} {'n':>5} {'value =%':>8} {'move =%':>8} {'M depth':>8} {'M sec':>8}")
    line("all", res)
    line("heuri exact", [x for x in res if x[0]["exact"]])
    line("heuri not exact", [x for x in res if not x[0]["exact"]])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
