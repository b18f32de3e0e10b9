"""Pre-endgame search: seconds per decision with 1 tile and with 2-7 tiles in the bag.

    python benchmarks/bench_peg.py [--lang es] [--games 20] [--engine heuri3-noend] [--seed 1]

Plays ``--games`` self-play games of ``--engine`` against itself up to the first position
with 1 to 7 tiles in the bag (the opponent's rack hidden, as the player sees it), runs
:class:`heuri.peg.PegSearch` with its defaults, and prints per bag size group (1, 2-7): the
positions, median / p90 / max seconds, candidates per decision, the share of candidates whose
every endgame was exact, and how often the chosen move differs from the evaluator's first.
"""
from __future__ import annotations

import argparse
import statistics
import time

from _common import p90  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", default="es")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--engine", default="heuri3-noend", help="the self-play engine that reaches the positions")
    ap.add_argument("--evaluator", default=None, help="the pre-endgame search's evaluator (default: PegSearch's, heuri.DEFAULT_ENGINE)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    import heuri
    from heuri.game import Game, Position
    from heuri.move import Move
    from heuri.peg import PegSearch
    from heuri.players import make_player

    pack = heuri.load_pack(a.lang)
    pl = make_player(a.engine, pack)
    ps = PegSearch(pack) if a.evaluator is None else PegSearch(pack, evaluator=a.evaluator)
    groups: dict = {"1": [], "2-7": []}
    for g in range(a.games):
        game = Game(pack.spec, seed=a.seed + g)
        while not game.over and game.position.bag_size > 7:
            game.play(pl.choose(game.position))
        p = game.position
        if game.over or p.bag_size == 0:
            continue
        pos = Position.from_cgp(p.cgp(hide_others=True), pack.spec)
        t0 = time.perf_counter()
        res = ps.search(pos)
        dt = time.perf_counter() - t0
        first = Move.from_record(ps.evaluator.rank(pos).moves[0], pack.spec)
        exact = sum(r.method == "endgame" for r in res.rows) / max(1, len(res.rows))
        groups["1" if p.bag_size == 1 else "2-7"].append((dt, len(res.rows), exact, res.move != first))
    print(f"{a.lang}: {a.engine} self-play, {a.games} games, seed {a.seed}")
    print(f"{'bag':>4} {'positions':>9} {'median s':>9} {'p90 s':>7} {'max s':>7} {'candidates':>10} "
          f"{'exact rows %':>12} {'changed %':>9}")
    for k, rows in groups.items():
        if not rows:
            print(f"{k:>4} {0:9d}")
            continue
        secs = [r[0] for r in rows]
        print(f"{k:>4} {len(rows):9d} {statistics.median(secs):9.2f} {p90(secs):7.2f} {max(secs):7.2f} "
              f"{statistics.mean(r[1] for r in rows):10.1f} {100 * statistics.mean(r[2] for r in rows):12.1f} "
              f"{100 * statistics.mean(r[3] for r in rows):9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
