"""Where heuri's equity goes against a leave-table engine: heuri's choices against MAGPIE's
static choice in the same positions, by phase and by kind of move.

    .venv/bin/python benchmarks/investigations/equity_gap.py matches/strength/en/heuri3-vs-magpie --lang en

For every turn heuri played in the match's records (its rack is recorded), the position is
sent to MAGPIE (``go gen``: its static top move, score + leave value) and heuri's evaluator
ranks the same position. Per phase (opening: the first two turns; midgame: bag > 14;
bag 8-14; bag 1-7; endgame: bag empty) and for won and lost games, the table gives the
positions, how often the two engines choose the same move, how often each exchanges, the
mean leave each keeps, and heuri's own v of its choice minus its v of MAGPIE's choice (≥ 0:
by heuri's evaluation MAGPIE's move is never better, so a large gap in lost games points at
what heuri values that MAGPIE does not).

MAGPIE is found as in benchmarks/strength.py (``$HEURI_PEERS``, ``$HEURI_PEER_ADAPTERS``).
"""
from __future__ import annotations

import argparse
import shlex
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]  # here, and benchmarks/
from phase_points import phase  # noqa: E402  (the same phases in both tables)
from strength import peer_command  # noqa: E402


def positions(folder: Path, pack, heuri_name: str):
    """(game file, won, turn, CgpRecord text, rack ids, heuri's move text, bag) for each of
    heuri's turns with a recorded rack; a record that does not read is said on stderr and
    skipped."""
    from heuri.board import Board
    from heuri.cgp import CgpRecord, format_cgp
    from heuri.errors import GcgError
    from heuri.gcg import read_gcg_file, replay

    spec = pack.spec
    full = int(spec.distribution().sum())
    for f in sorted((folder / "games").glob("*.gcg")):
        try:
            g = read_gcg_file(f)
            r = replay(g, spec, end_rule="auto")
        except GcgError as e:  # a record heuri cannot read (an older writer's): said, and left out
            print(f"skipped {f.name}: {e}", file=sys.stderr)
            continue
        seat = next(i for i, (nick, name) in enumerate(g.players) if name.startswith(heuri_name))
        final = r.steps[-1].recorded_totals
        won = final[seat] > final[1 - seat]
        turn = 0
        for k, st in enumerate(r.steps):
            ev = st.event
            if ev.kind not in ("play", "exchange", "pass"):
                continue
            turn += 1
            if ev.player != seat or not ev.rack:
                continue
            board = r.board_at(k)
            totals = r.steps[k - 1].recorded_totals if k else [0, 0]
            rack = spec.parse_tiles(ev.rack)
            bag = full - int((board.letters >= 0).sum()) - 2 * spec.rack_size
            rec = CgpRecord(Board(spec, board.letters, board.blanks), (tuple(rack), None),
                            (totals[seat], totals[1 - seat]), 0)
            yield f.name, won, turn, format_cgp(rec), rack, ev.move, max(bag, 0)


def main(argv=None) -> int:
    from rich.console import Console
    from rich.table import Table

    from heuri.evaluate import make_evaluator
    from heuri.game import Position
    from heuri.move import Move, Pass
    from heuri.pack import load_pack
    from heuri.siu_client import SiuEngine, parse_command

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("match", help="a match folder of heuri vs MAGPIE (its games/*.gcg)")
    ap.add_argument("--lang", required=True)
    ap.add_argument("--engine", default="heuri3", help="heuri's evaluator (and its name in the records)")
    ap.add_argument("--limit", type=int, default=None, help="at most this many positions")
    args = ap.parse_args(argv)
    cmd, opts, what = peer_command(args.lang, "magpie")
    if cmd is None:
        print(f"skipped: MAGPIE {what}")
        return 0
    pack = load_pack(args.lang)
    spec = pack.spec
    ev = make_evaluator(pack, args.engine)
    eng = SiuEngine(parse_command(cmd))
    eng.start()
    stats = defaultdict(lambda: defaultdict(float))
    n = 0
    try:
        for name, won, turn, cgp, rack, played, bag in positions(Path(args.match), pack, args.engine):
            pos = Position.from_cgp(cgp, spec)
            best, _ = eng.search(cgp, "go gen", 30.0)
            theirs = Pass() if best == "pass" else Move.from_siu(best, pos.board, spec)
            mine = Move.from_gcg(played, pos.board, spec) if played != "-" else Pass()
            rk = ev.rank(pos)
            texts = [Move.from_record(m, spec).gcg(spec) for m in rk.moves]
            vi = {t: float(v) for t, v in zip(texts, rk.v)}
            gap = vi.get(mine.gcg(spec), np.nan) - vi.get(theirs.gcg(spec), np.nan)
            for key in (phase((turn - 1) // 2, bag), "all"):  # (turn - 1) // 2: the player's own turn
                s = stats[(key, "won" if won else "lost")]
                s["n"] += 1
                s["same"] += mine == theirs
                s["heuri_exch"] += type(mine).__name__ == "Exchange"
                s["peer_exch"] += type(theirs).__name__ == "Exchange"
                s["heuri_keep"] += len(rack) - mine.n_tiles
                s["peer_keep"] += len(rack) - theirs.n_tiles
                if not np.isnan(gap):
                    s["gap"] += gap
                    s["gap_n"] += 1
            n += 1
            if args.limit and n >= args.limit:
                break
    finally:
        eng.close()
    t = Table(title=f"{args.engine} vs MAGPIE static choice, {n} positions of {args.match}")
    for col in ("phase", "games", "positions", "same move", "exchanges heuri / MAGPIE",
                "tiles kept heuri / MAGPIE", "heuri v gap"):
        t.add_column(col, justify="left" if col in ("phase", "games") else "right")
    order = ["opening", "midgame", "bag 8-14", "bag 1-7", "endgame", "all"]
    for (ph, res), s in sorted(stats.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])):
        k = s["n"]
        t.add_row(ph, res, str(int(k)), f"{100 * s['same'] / k:.0f} %",
                  f"{100 * s['heuri_exch'] / k:.1f} % / {100 * s['peer_exch'] / k:.1f} %",
                  f"{s['heuri_keep'] / k:.2f} / {s['peer_keep'] / k:.2f}",
                  f"{s['gap'] / max(s['gap_n'], 1):.2f}")
    Console(width=140).print(t)
    print(f"MAGPIE: {what}; command: {shlex.join(sys.argv)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
