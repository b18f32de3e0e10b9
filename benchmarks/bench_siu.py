"""Overhead of playing over SIU against playing in process.

    python benchmarks/bench_siu.py [--lang es] [--engine greedy] [--p1 ENGINE] [--games 200] [--seed 1]

Plays the same paired games twice with :func:`heuri.match.play_game`, player 1 always in
process (``--p1``, default the same engine): once with player 2 = ``--engine`` in process,
once with player 2 =
``siu:heuri siu --lang L`` (the same engine over the protocol, one engine process for all
games, ``go auto movetime 600000`` so that no limit cuts a search). Reports for player 2:
moves, total seconds in ``choose``, moves per second, the median and 90th percentile of the
milliseconds per move, the engine's start-up (handshake + first ``readyok``), and whether
every game came out identical both ways (it should: heuri is deterministic).

``--engine greedy`` isolates the protocol's own cost (greedy's move choice takes ~1 ms);
``--engine heuri3`` shows it against the real engine's per-move work.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from tempfile import TemporaryDirectory

from _common import p90  # noqa: E402


class Timed:
    """A player wrapper that records the wall time of every ``choose`` (seconds)."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.times: list[float] = []

    @property
    def info(self):
        return getattr(self.inner, "info", {})

    def choose(self, position):
        t = time.perf_counter()
        m = self.inner.choose(position)
        self.times.append(time.perf_counter() - t)
        return m


def run(pack, p2, p1_engine: str, games: int, seed: int):
    from heuri.match import play_game
    from heuri.players import make_player

    p1 = make_player(p1_engine, pack)
    t2 = Timed(p2)
    hist = []
    t0 = time.perf_counter()
    for g in range(games):
        _, _, game = play_game(pack, {"p1": p1, "p2": t2}, "p1", "p2", seed, g // 2, g % 2, words=pack.words)
        hist.append([(m, s) for _, m, s in game.history])
    return t2.times, hist, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", default="es")
    ap.add_argument("--engine", default="greedy", choices=["greedy", "heuri1", "heuri2", "heuri3"])
    ap.add_argument("--p1", default=None, choices=["greedy", "heuri1", "heuri2", "heuri3"],
                    help="player 1 (in process), default: --engine")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    p1 = args.p1 or args.engine

    from heuri import load_pack
    from heuri.players import make_player
    from heuri.siu_client import SiuPlayer

    pack = load_pack(args.lang)
    # warm the compiled code in this process first (both ways then start warm)
    run(pack, make_player(args.engine, pack), p1, 1, args.seed + 1000)

    t_in, h_in, wall_in = run(pack, make_player(args.engine, pack), p1, args.games, args.seed)
    with TemporaryDirectory() as tmp:
        siu = SiuPlayer(f"siu:heuri siu --lang {args.lang}", {"Engine": args.engine}, movetime_ms=600000,
                        stderr_path=Path(tmp) / "engine.stderr", words=pack.words)
        t = time.perf_counter()
        siu._ensure()
        startup = time.perf_counter() - t
        try:
            t_siu, h_siu, wall_siu = run(pack, siu, p1, args.games, args.seed)
        finally:
            siu.close()

    same = sum(a == b for a, b in zip(h_in, h_siu))
    print(f"{args.lang}, {args.games} games, player 1 {p1} in process, player 2 {args.engine} "
          f"in process vs over SIU (seed {args.seed})")
    print(f"{'player 2':<12} {'moves':>6} {'s in choose':>12} {'moves/s':>9} {'median ms':>10} {'p90 ms':>8} "
          f"{'match wall s':>13}")
    for name, ts, wall in (("in process", t_in, wall_in), ("over SIU", t_siu, wall_siu)):
        print(f"{name:<12} {len(ts):>6} {sum(ts):>12.2f} {len(ts) / sum(ts):>9.1f} "
              f"{1000 * statistics.median(ts):>10.2f} {1000 * p90(ts):>8.2f} {wall:>13.1f}")
    print(f"SIU overhead per move: {1000 * (sum(t_siu) / len(t_siu) - sum(t_in) / len(t_in)):.2f} ms mean, "
          f"{1000 * (statistics.median(t_siu) - statistics.median(t_in)):.2f} ms median; "
          f"engine start-up (handshake + first readyok) {startup:.2f} s once")
    print(f"identical games both ways: {same}/{args.games}")


if __name__ == "__main__":
    main()
