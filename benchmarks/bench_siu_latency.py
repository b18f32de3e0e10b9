"""How soon SIU answers when it must cut something short: the seconds the SIU server takes
to end a search at its ``movetime``, and the seconds a match player takes to declare each
kind of engine failure (a forfeit), and the seconds heuri's own ``go sim infinite`` takes to
answer ``stop``.

    .venv/bin/python benchmarks/bench_siu_latency.py [--rounds 5] [--movetime 300]

Server: ``go auto movetime M`` to an in-process SIU server whose back end would search for
30 s unless stopped (the tests' fake back end, ``tests/test_siu.py``); prints the median and
the largest seconds from ``go`` to ``bestmove`` and their excess over M. Client: a
:class:`heuri.siu_client.SiuPlayer` with ``movetime_ms=100`` and a 0.5 s grace against the
tests' scripted engine (``tests/test_siu_client.py``) in each failure mode: garbage, an empty
bestmove, an illegal move, a phony, a refused position, silence (the timeout), a crash, no
``auto`` capability; prints the median and the largest seconds a failure takes, start-up
included. Simulation: heuri's SIU back end in process, ``go sim infinite`` on an English
midgame, ``stop`` sent 0, 0.02, 0.1 and 1 s after ``go`` (during the static ranking, the fast
rollout's table, the race), with the full and the fast rollout, then on an opening rack with two
blanks (stop at once, and ``go sim movetime M``); prints the median and the largest seconds from
``stop`` (or ``go``) to ``bestmove`` (SIU asks for 100 ms). The tests assert what happens in each case; these are the times it takes.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT

sys.path.insert(0, str(ROOT / "tests"))

MODES = ["garbage", "empty", "illegal", "phony", "refuse", "silent", "dies", "noauto"]


def server_stop_seconds(movetime_ms: int) -> float:
    """Seconds from ``go auto movetime`` to ``bestmove`` against a 30 s search."""
    from test_siu import FakeBackend, Wire

    be = FakeBackend(work_s=30)
    w = Wire(be)
    w.send("position cgp a b c d")
    t0 = time.perf_counter()
    w.send(f"go auto movetime {movetime_ms}")
    _, ok = w.read_until(lambda s: s.startswith("bestmove"), timeout=60)
    dt = time.perf_counter() - t0
    w.close()
    if not ok or not be.stopped:
        raise RuntimeError("the server did not stop the search at its movetime")
    return dt


def sim_seconds(cgp: str, rounds: int, go: str = "go sim infinite", after_s: float | None = 0.0,
                rollout: str = "full") -> list[float]:
    """Seconds to ``bestmove`` in heuri's own SIU back end (in process, English, ``SimRollout``
    ``rollout``), once per round: from ``stop`` when it comes ``after_s`` seconds after ``go``,
    from ``go`` when ``after_s`` is None (``go sim movetime M``). The first ``go`` of the session
    is not timed (it loads the pack and compiles the kernels)."""
    from heuri.play.siu.backend import HeuriBackend
    from test_siu import Wire

    w = Wire(HeuriBackend("en"))
    w.send(f"setoption name SimRollout value {rollout}")
    w.send(f"position cgp {cgp}")
    out = []
    for i in range(rounds + 1):
        t0 = time.perf_counter()
        w.send(go)
        if after_s is not None:
            time.sleep(after_s)
            t0 = time.perf_counter()
            w.send("stop")
        _, ok = w.read_until(lambda s: s.startswith("bestmove"), timeout=120)
        if not ok:
            raise RuntimeError(f"{go}: no bestmove within 120 s ({rollout}, stop after {after_s} s)")
        if i:
            out.append(time.perf_counter() - t0)
    w.send("quit")
    return out


def failure_seconds(fake: Path, mode: str, pack, opening) -> float:
    """Seconds until :meth:`SiuPlayer.choose` raises EngineFailure for ``mode``."""
    from heuri.siu_client import EngineFailure, SiuPlayer

    with tempfile.TemporaryDirectory() as tmp:
        pl = SiuPlayer(f"siu:{sys.executable} {fake} {mode}", {"Lexicon": "es"}, movetime_ms=100,
                       stderr_path=Path(tmp) / "engine.stderr", words=pack.words, grace_s=0.5,
                       start_timeout_s=10)
        t0 = time.perf_counter()
        try:
            pl.choose(opening)
        except EngineFailure:
            return time.perf_counter() - t0
        finally:
            pl.close()
    raise RuntimeError(f"mode {mode}: the engine's answer was accepted")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="measures of each figure (default 5)")
    ap.add_argument("--movetime", type=int, default=300, help="the server's movetime, ms (default 300)")
    args = ap.parse_args(argv)

    from heuri.game import Position
    from heuri.pack import load_pack
    from test_siu_client import EMPTY, FAKE

    xs = [server_stop_seconds(args.movetime) for _ in range(args.rounds)]
    m = args.movetime / 1000
    print(f"server, go auto movetime {args.movetime}: median {statistics.median(xs):.3f} s, "
          f"max {max(xs):.3f} s (over the movetime: median {statistics.median(xs) - m:+.3f} s, "
          f"max {max(xs) - m:+.3f} s; {args.rounds} rounds)")

    # a midgame of the tests: the static ranking, then the race, with stop at several moments
    mid = "/".join(["15"] * 7 + ["4CAT8"] + ["15"] * 7) + " AEINRST/ 0/10 0"
    print(f"{'go sim infinite, stop after':<28} {'rollout':<8} {'median s':>9} {'max s':>7}")
    for rollout in ("full", "fast"):
        for after in (0.0, 0.02, 0.1, 1.0):
            ts = sim_seconds(mid, args.rounds, after_s=after, rollout=rollout)
            print(f"{after:<28} {rollout:<8} {statistics.median(ts):>9.3f} {max(ts):>7.3f}")
    # an opening rack with two blanks: thousands of placements for heuri5's ranking to
    # re-value (about 12 s when complete), cut by the stop or at half the movetime
    blanks = f"{EMPTY} AEIRS??/ 0/0 0"
    ts = sim_seconds(blanks, args.rounds)
    print(f"{'AEIRS?? opening, stop at once':<37} {statistics.median(ts):>9.3f} {max(ts):>7.3f}")
    ts = sim_seconds(blanks, args.rounds, go=f"go sim movetime {args.movetime}", after_s=None)
    m = args.movetime / 1000
    print(f"{f'AEIRS?? opening, movetime {args.movetime}':<37} {statistics.median(ts):>9.3f} {max(ts):>7.3f} "
          f"(over the movetime: median {statistics.median(ts) - m:+.3f} s, max {max(ts) - m:+.3f} s)")

    pack = load_pack("es")
    opening = Position.from_cgp(f"{EMPTY} AEINRST/ 0/0 0", pack.spec)
    with tempfile.TemporaryDirectory() as tmp:
        fake = Path(tmp) / "fake_engine.py"
        fake.write_text(FAKE)
        print(f"{'failure':<10} {'median s':>9} {'max s':>7}")
        for mode in MODES:
            ts = [failure_seconds(fake, mode, pack, opening) for _ in range(args.rounds)]
            print(f"{mode:<10} {statistics.median(ts):>9.3f} {max(ts):>7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
