"""The scoring power of each tile → ``tile_power.parquet`` (for heuri.evaluate's Heuri5).

Heuri's e(L) values a leave only by the bingos it can draw into, and a constant (the mean
non-bingo score) for every other next turn. But the next non-bingo move scores more with a
Z or an X on the rack than with an I: holding a high-scoring tile is worth points even when
no bingo comes, and an engine that ignores it plays its Z and X off for little
(heuri4 valued keeping a Z 17 points below MAGPIE's leave table, a single I 2 points above).

This step measures, with the pack's own move generator, how many points each tile adds to
the best non-bingo move a rack can make, on real-looking midgame boards:

1. ``games`` games of the greedy player against itself (seeded bags), and from each one
   board every few turns of its midgame (at least 12 tiles on the board and two racks'
   worth of tiles neither on the board nor on the mover's rack);
2. on each board, ``racks`` racks of ``rack_size`` tiles drawn uniformly (seeded) from the
   tiles not on the board, and for each rack the best score of a placement of fewer than
   ``rack_size`` tiles (a non-bingo move; 0 when it has none);
3. least squares of that score on the rack's tile counts, with one intercept per board
   (the board's own level cancels), then centred so that the mean power over the full
   tile distribution is 0.

``power[x]`` is then the points one tile ``x`` on the rack adds to the next non-bingo move,
against an average tile of the set. Nothing is learned from game results: the greedy games
only make boards; the figure is a property of the word list, the tile values and the board.
Deterministic: the same pack gives the same table.

Files: ``tile_power.parquet`` (columns ``id`` int16 tile id, ``tile`` str the tile's text,
``blank`` as ``?``; ``power`` float64 points; one row per tile kind, ids in order) and
``tile_power.json`` (the sample: games, boards, racks, mean best non-bingo score, seed).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow as pa

from .common import write_json, write_parquet

GAMES = 100
RACKS = 30
EVERY = 2  # a board every EVERY turns of the midgame
SEED = 20261203
MIN_BOARD = 12


def _pack(spec_file: Path, outdir: Path):
    """The pack being built, read from ``outdir`` before its manifest exists."""
    from heuri.pack import LanguagePack
    from heuri.spec import load_spec

    return LanguagePack(load_spec(spec_file), outdir, {"counts": {}})


def midgame_boards(pack, games: int = GAMES, seed: int = SEED, every: int = EVERY) -> list:
    """Boards of ``games`` greedy self-play games: ``(letters, blanks, unseen)`` tuples
    (``letters`` (N, N) int8, ``blanks`` (N, N) bool, ``unseen`` (K,) int64 the tiles not on
    the board), one every ``every`` turns while the board holds at least 12 tiles and at
    least two racks of tiles are off the board and off the mover's rack."""
    from heuri.evaluate import make_evaluator
    from heuri.game import Game

    spec = pack.spec
    greedy = make_evaluator(pack, "greedy")
    dist = np.asarray(spec.distribution(), np.int64)
    out = []
    for g in range(games):
        game = Game(spec, seed=seed + g)
        turn = 0
        while not game.over and turn < 200:
            p = game.position
            on = p.board.tile_counts()
            if (int((p.board.letters >= 0).sum()) >= MIN_BOARD and turn % every == 0
                    and int((dist - on).sum() - p.rack.sum()) >= 2 * spec.rack_size):
                out.append((p.board.letters.copy(), p.board.blanks.copy(), (dist - on).astype(np.int64)))
            game.play(greedy.choose(p))
            turn += 1
    return out


def best_non_bingo(pack, letters, blanks, rack) -> int:
    """The best score of a placement of fewer than ``rack_size`` tiles of ``rack`` (points;
    0 when there is none)."""
    from heuri.movegen import generate

    m = generate(pack, letters, blanks, rack, exchanges=False)
    m = m[(m["kind"] == 0) & (m["n_tiles"] < pack.spec.rack_size)]
    return int(m["score"].max()) if len(m) else 0


def fit_power(counts: np.ndarray, scores: np.ndarray, board: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Least squares of ``scores`` (n,) on ``counts`` (n, K) with one intercept per
    ``board`` (n,) int label, centred so that ``weights @ power == 0`` (``weights``: the
    tile distribution). Returns ``power`` (K,) float64 points. A tile never drawn gets 0
    before centring (the minimum-norm solution)."""
    X = counts.astype(np.float64)
    y = scores.astype(np.float64)
    for b in np.unique(board):  # board fixed effects: demean within each board
        i = board == b
        X[i] -= X[i].mean(axis=0)
        y[i] -= y[i].mean()
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    w = np.asarray(weights, np.float64)
    return coef - (w @ coef) / w.sum()


def build_tile_power(spec_file: Path, outdir: Path, games: int = GAMES, racks: int = RACKS,
                     seed: int = SEED) -> dict:
    """Pipeline step: ``outdir/tile_power.parquet`` and ``outdir/tile_power.json``; returns
    the JSON's dict. Needs the pack's keys and word graph in ``outdir``."""
    outdir = Path(outdir)
    pack = _pack(Path(spec_file), outdir)
    spec = pack.spec
    boards = midgame_boards(pack, games, seed)
    rng = np.random.default_rng(seed)
    K = spec.n_kinds
    counts = np.zeros((len(boards) * racks, K), np.int64)
    scores = np.zeros(len(boards) * racks, np.int64)
    label = np.repeat(np.arange(len(boards)), racks)
    r = 0
    for letters, blanks, unseen in boards:
        pool = np.repeat(np.arange(K), unseen)
        for _ in range(racks):
            rack = np.bincount(rng.choice(pool, spec.rack_size, replace=False), minlength=K)
            counts[r] = rack
            scores[r] = best_non_bingo(pack, letters, blanks, rack)
            r += 1
    power = fit_power(counts, scores, label, spec.distribution()) if len(boards) else np.zeros(K)
    tiles = [("?" if i == spec.blank else spec.tiles[i]) for i in range(K)]
    write_parquet(pa.table({"id": pa.array(np.arange(K), pa.int16()), "tile": tiles,
                            "power": pa.array(power, pa.float64())}), outdir / "tile_power.parquet")
    meta = {"games": games, "boards": len(boards), "racks": int(len(scores)), "seed": seed,
            "mean_best_non_bingo": round(float(scores.mean()), 3) if len(scores) else 0.0}
    write_json(meta, outdir / "tile_power.json")
    return meta


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="the scoring power of each tile (greedy boards, sampled racks)")
    ap.add_argument("spec", type=Path)
    ap.add_argument("outdir", type=Path)
    a = ap.parse_args(argv)
    m = build_tile_power(a.spec, a.outdir)
    print(f"{a.outdir}/tile_power.parquet: {m['boards']} boards, {m['racks']} racks, "
          f"mean best non-bingo {m['mean_best_non_bingo']}")


if __name__ == "__main__":
    main()
