"""Exact endgame solver: share proved exact, median and p90 seconds on the
bag-empty endgames met in self-play.

    python benchmarks/bench_endgame.py [--lang es en] [--games 200] [--engine heuri3-noend]
                                       [--seed 1] [--nodes 1000000] [--time 30] [--save FILE]
                                       [--load FILE] [--first N] [--rows FILE] [--python]
                                       [--width W] [--generations G]

For each language, plays ``--games`` self-play games of ``--engine`` against itself (seeds
``seed, seed+1, ...``) up to the first position with an empty bag and both racks non-empty
(the endgame as it is met; ``--every``: every bag-empty position to the end of the game,
as a match player meets them), then solves each with :class:`heuri.endgame.EndgameSearch`
under ``--nodes`` visited positions and ``--time`` seconds. Prints, per language: endgames,
share proved exact, median / p90 / max seconds, median nodes and generations, the depth
(placements) reached, and the tiles on both racks. ``--save`` writes the endgames as CGP
lines (one a line, the language first) for re-runs (``--load``; ``--first N``: only the first
N of each language). ``--rows`` writes one line per endgame (language, tiles on the racks,
seconds, exact, depth, value, move, CGP, nodes), tab-separated, for comparisons (MAGPIE:
``benchmarks/compare_magpie_endgame.py``). ``nodes/s``: all the endgames' nodes over all their
seconds. ``--python``: the search in Python (:meth:`heuri.endgame.EndgameSearch.search_py`,
the solver before the compiled one) instead of the compiled search; the same values.
``--width W``: keep W placements a position (a width-limited search, as the match players'
second endgame step: ``--width 12 --generations 1500 --nodes 20000``); ``--generations``: the
move-list budget (default: ``--nodes``). The match players' two steps replay with
``--rows`` of both searches compared line by line.
"""
from __future__ import annotations

import argparse
import statistics
import time

from _common import p90  # noqa: E402


def endgames(pack, engine: str, games: int, seed: int, every: bool = False):
    """The first bag-empty position of each self-play game (CGP lines); ``every``: every
    bag-empty position to the end of the game (what a match player meets)."""
    from heuri.game import Game
    from heuri.players import make_player

    pl = make_player(engine, pack)
    out = []
    for g in range(games):
        game = Game(pack.spec, seed=seed + g)
        while not game.over and game.position.bag_size > 0:
            game.play(pl.choose(game.position))
        while not game.over:
            out.append(game.position.cgp())
            if not every:
                break
            game.play(pl.choose(game.position))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", nargs="+", default=["es", "en"])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--engine", default="heuri3-noend")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--time", type=float, default=30.0)
    ap.add_argument("--every", action="store_true", help="every bag-empty position of the games, not just the first")
    ap.add_argument("--save", default=None)
    ap.add_argument("--load", default=None)
    ap.add_argument("--first", type=int, default=None, help="only the first N endgames of each language")
    ap.add_argument("--rows", default=None, help="write one tab-separated line per endgame to this file")
    ap.add_argument("--python", action="store_true", help="the Python search (search_py), not the compiled one")
    ap.add_argument("--width", type=int, default=None, help="placements kept a position (default: all)")
    ap.add_argument("--generations", type=int, default=None, help="move lists the search may make (default: --nodes)")
    a = ap.parse_args()

    import heuri
    from heuri.endgame import EndgameSearch
    from heuri.game import Position

    saved = []
    rows = open(a.rows, "w", encoding="utf-8") if a.rows else None
    loaded: dict = {}
    if a.load:
        for line in open(a.load, encoding="utf-8"):
            lang, cgp = line.rstrip("\n").split("\t")
            loaded.setdefault(lang, []).append(cgp)
    print(f"{'lang':4} {'endgames':>8} {'exact %':>8} {'median s':>9} {'p90 s':>7} {'max s':>7} "
          f"{'nodes med':>9} {'gens med':>8} {'depth med':>9} {'tiles med':>9} {'nodes/s':>8}")
    for lang in a.lang:
        pack = heuri.load_pack(lang)
        cgps = loaded.get(lang) if a.load else endgames(pack, a.engine, a.games, a.seed, a.every)
        if a.first is not None:
            cgps = cgps[:a.first]
        saved += [(lang, c) for c in cgps]
        solver = EndgameSearch(pack, max_nodes=a.nodes, max_generations=a.generations or a.nodes,
                               time_limit=a.time, width=a.width)
        run = solver.search_py if a.python else solver.search
        run(Position.from_cgp(cgps[0], pack.spec))  # compile / load the numba cache
        secs, exact, nodes, gens, depth, tiles = [], 0, [], [], [], []
        for c in cgps:
            pos = Position.from_cgp(c, pack.spec)
            t0 = time.perf_counter()
            r = run(pos)
            secs.append(time.perf_counter() - t0)
            tiles.append(int(pos.racks[0].sum() + pos.racks[1].sum()))
            if rows is not None:
                rows.write(f"{lang}\t{tiles[-1]}\t{secs[-1]:.3f}\t{bool(r and r.exact)}\t{r.depth if r else 0}\t"
                           f"{r.value if r else ''}\t{r.move.gcg(pack.spec) if r else ''}\t{c}\t{r.nodes if r else 0}\n")
                rows.flush()
            if r is None:
                continue
            exact += r.exact
            nodes.append(r.nodes)
            gens.append(r.generations)
            depth.append(r.depth)
        n = len(cgps)
        med = statistics.median
        print(f"{lang:4} {n:8d} {100 * exact / n:8.1f} {med(secs):9.3f} {p90(secs):7.2f} {max(secs):7.2f} "
              f"{med(nodes) if nodes else 0:9.0f} {med(gens) if gens else 0:8.0f} "
              f"{med(depth) if depth else 0:9.0f} {med(tiles):9.0f} {sum(nodes) / max(sum(secs), 1e-9):8.0f}")
    if a.save:
        with open(a.save, "w", encoding="utf-8") as f:
            for lang, c in saved:
                f.write(f"{lang}\t{c}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
