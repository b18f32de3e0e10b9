"""The chance to win given the spread and the bag → ``win_probability.parquet``.

Self-play of one of heuri's engines against itself (default ``heuri2``, with its endgame
search: a fast engine of the family, about 0.2 s a game on one core), seeded bags; every
position before a move is one sample: the mover's spread (their score minus the
opponent's), the tiles in the bag, and how the game ended for the mover (1 won, 0.5 a draw,
0 lost). :func:`heuri.eval.win_probability.fit_win_probability` fits one logistic curve a
bag size (pooled with the neighbouring bag sizes). Nothing here is a leave table: the
figure is a property of the game played well by both sides.

Files: ``win_probability.parquet`` (columns ``bag`` int16, ``offset`` and ``scale``
float64 points, ``positions`` int64: one row a bag size, 0 to the largest seen) and
``win_probability.json`` (the sample: engine, games, positions, seed, the first mover's
win rate). Deterministic: the same pack, engine, games and seed give the same table.

``python -m pipeline.win_probability build/en [--games N] [--engine NAME] [--seed S]``
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow as pa

from .common import write_json, write_parquet

GAMES = 400
ENGINE = "heuri2"
SEED = 20261205


def self_play_samples(pack, games: int = GAMES, engine: str = ENGINE, seed: int = SEED):
    """``(spread, bag, result, first_won)`` from ``games`` self-play games of ``engine``:
    (n,) float64 points, (n,) int64 tiles, (n,) float64 the mover's result; the share of
    games the first mover won (a draw half)."""
    from heuri.eval.win_probability import game_result
    from heuri.play.match import play_game
    from heuri.play.players import make_player

    players = {engine: make_player(engine, pack)}
    spread, bag, result, first = [], [], [], 0.0
    for g in range(games):
        _, _, game = play_game(pack, players, engine, engine, seed=seed, pair=g, seat=0)
        final = game.position.scores
        for pos, _move, _score in game.history:
            me = pos.to_move
            other = 1 - me
            spread.append(float(pos.scores[me] - pos.scores[other]))
            bag.append(int(pos.bag_size))
            result.append(game_result(int(final[me]) - int(final[other])))
        start = game.history[0][0].to_move
        first += game_result(int(final[start]) - int(final[1 - start]))
    return (np.asarray(spread), np.asarray(bag, np.int64), np.asarray(result), first / max(1, games))


def build_win_probability(builddir: Path, games: int = GAMES, engine: str = ENGINE, seed: int = SEED) -> dict:
    """Play, fit and write the two files into ``builddir`` (a built pack's folder); returns
    the sample's summary (the JSON file's content)."""
    from heuri.core.pack import load_pack
    from heuri.eval.win_probability import fit_win_probability

    builddir = Path(builddir)
    pack = load_pack(builddir)
    spread, bag, result, first = self_play_samples(pack, games, engine, seed)
    table = fit_win_probability(spread, bag, result)
    cols = table.table()
    write_parquet(pa.table({"bag": pa.array(cols["bag"], pa.int16()), "offset": pa.array(cols["offset"]),
                            "scale": pa.array(cols["scale"]), "positions": pa.array(cols["positions"])}),
                  builddir / "win_probability.parquet")
    meta = {"engine": engine, "games": int(games), "positions": int(len(spread)), "seed": int(seed),
            "first_mover_wins": round(first, 4), "lexicon": pack.spec.lexicon}
    write_json(meta, builddir / "win_probability.json")
    return meta


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("builddir", type=Path, help="a built pack's folder (build/en)")
    ap.add_argument("--games", type=int, default=GAMES)
    ap.add_argument("--engine", default=ENGINE)
    ap.add_argument("--seed", type=int, default=SEED)
    a = ap.parse_args(argv)
    if a.games < 1:
        ap.error(f"--games {a.games}: give at least 1")
    m = build_win_probability(a.builddir, a.games, a.engine, a.seed)
    print(f"{a.builddir}/win_probability.parquet: {m['games']} games of {m['engine']}, {m['positions']} positions, "
          f"first mover wins {100 * m['first_mover_wins']:.1f} %")


if __name__ == "__main__":
    main()
