"""Where a match's points go: each side's points per game by phase of the game, from the
records alone ("where does the equity go").

    .venv/bin/python benchmarks/investigations/phase_points.py matches/strength/en/heuri4-vs-magpie --engine heuri4

For every game of a match folder (its ``games/*.gcg``), each turn is put in a phase by the
bag before the move (opening: each side's first turn; midgame: bag > 14; bag 8-14; bag 1-7;
endgame: bag empty, with the end-of-game rack adjustments), and the table gives, per phase,
heuri's and the peer's mean points per game, their difference with a 95 % normal interval
over games (paired: both sides of the same game), bingos (7 tiles played) per game and
exchanges per game, and blanks played in moves that are not bingos. Won and lost games are also shown apart. Nothing is recomputed: the
scores are the records' own.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

PHASES = ("opening", "midgame", "bag 8-14", "bag 1-7", "endgame", "all")


def phase(turn_of_player: int, bag: int) -> str:
    """The phase of a turn: ``turn_of_player`` is 0 for a player's first turn; ``bag`` the
    tiles in the bag before the move."""
    if bag == 0:
        return "endgame"
    if turn_of_player == 0:
        return "opening"
    if bag <= 7:
        return "bag 1-7"
    if bag <= 14:
        return "bag 8-14"
    return "midgame"


def game_phases(path: Path, spec, engine: str):
    """(won, tie, {phase: [heuri points, peer points, heuri bingos, peer bingos, heuri exch,
    peer exch, heuri's blanks in non-bingos, peer's]}) of one record; ``engine`` is heuri's name in the ``#player`` lines."""
    from heuri.gcg import read_gcg_file

    g = read_gcg_file(path)
    seat = next(i for i, (nick, name) in enumerate(g.players) if name.split()[0] == engine)
    full = int(spec.distribution().sum())
    R = spec.rack_size
    out = defaultdict(lambda: np.zeros(8))
    on_board = 0
    drawn = 2 * R  # tiles out of the bag: both opening racks
    turns = [0, 0]
    totals = [0, 0]
    for ev in g.events:
        side = 0 if ev.player == seat else 1
        if ev.kind in ("play", "exchange", "pass"):
            bag = max(full - drawn, 0)
            ph = phase(turns[ev.player], bag)
            turns[ev.player] += 1
            row = out[ph]
            row[side] += ev.score
            if ev.kind == "play":
                n = sum(1 for c in ev.move.split()[1] if c != "." and c not in "()[]")
                # a digraph in brackets is one tile: count tiles placed, not characters
                n = len(spec.parse_tiles(ev.move.split()[1].replace(".", ""))) if "[" in ev.move else n
                if n == R:
                    row[2 + side] += 1
                else:  # a blank spent on a move that is not a bingo (lower case in GCG)
                    row[6 + side] += sum(1 for c in ev.move.split()[1] if c.islower())
                drawn += min(n, bag)
                on_board += n
            elif ev.kind == "exchange":
                row[4 + side] += 1
        else:  # end-of-game rack points, challenges, time penalties
            out["endgame"][side] += ev.score
        totals[side] = ev.total
    return totals[0] > totals[1], totals[0] == totals[1], out


def main(argv=None) -> int:
    from rich.console import Console
    from rich.table import Table

    from heuri.pack import load_pack

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("match", type=Path, help="a match folder (its games/*.gcg)")
    ap.add_argument("--engine", default="heuri4", help="heuri's name in the records (default heuri4)")
    ap.add_argument("--lang", default=None, help="the pack (default: the match's match.json)")
    args = ap.parse_args(argv)
    files = sorted((args.match / "games").glob("*.gcg"))
    if not files:
        print(f"error: no games/*.gcg in {args.match}", file=sys.stderr)
        return 2
    lang = args.lang
    if lang is None:
        import json
        lang = json.loads((args.match / "match.json").read_text())["lang"]
    spec = load_pack(lang).spec
    per = {"all games": defaultdict(list), "won": defaultdict(list), "lost": defaultdict(list)}
    for f in files:
        won, tie, ph = game_phases(f, spec, args.engine)
        total = sum(ph.values(), np.zeros(8))
        groups = ["all games"] + ([] if tie else ["won" if won else "lost"])
        for grp in groups:
            for p in PHASES:
                per[grp][p].append(total if p == "all" else ph.get(p, np.zeros(8)))
    t = Table(title=f"{args.engine} vs the peer by phase, {len(files)} games of {args.match}")
    for col in ("games", "phase", "heuri pts/game", "peer pts/game", "difference [95 %]",
                "bingos heuri / peer", "exchanges heuri / peer", "blanks in non-bingos"):
        t.add_column(col, justify="left" if col in ("games", "phase") else "right")
    for grp, rows in per.items():
        for p in PHASES:
            a = np.array(rows[p]) if rows[p] else np.zeros((0, 8))
            if not len(a):
                continue
            d = a[:, 0] - a[:, 1]
            half = 1.96 * d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
            m = a.mean(axis=0)
            t.add_row(f"{grp} ({len(a)})" if p == PHASES[0] else "", p, f"{m[0]:.1f}", f"{m[1]:.1f}",
                      f"{d.mean():+.1f} [{d.mean() - half:+.1f}, {d.mean() + half:+.1f}]",
                      f"{m[2]:.2f} / {m[3]:.2f}", f"{m[4]:.2f} / {m[5]:.2f}", f"{m[6]:.2f} / {m[7]:.2f}")
    Console(width=140).print(t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
