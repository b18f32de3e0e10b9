"""Alphagram hashes of the long words → ``long_alphagrams/`` (for heuri.movegen's best-N bounds).

A placement of all ``rack_size`` tiles of a rack, or all but one or two, through ``k`` >= 1
board tiles makes a main word of at least ``rack_size - 1`` tiles whose multiset is (the
rack, or the rack less one or two tiles) plus those board tiles. The move generator's upper bound
(``heuri.movegen._bounds``) can rule such a span out when no word has that multiset: it
looks the multiset's hash up in this sorted set.

The hash of a multiset of tiles is the sum, modulo 2**64, of one random 64-bit number per
tile (``zobrist[t]`` for each copy of tile ``t``): additive, so the generator adds the board
tiles' numbers to the rack's. A collision (two multisets with one hash) can only let a
span through that has no word: it loosens a bound, never prunes a real move.

Files:

- ``zobrist.npy``: (64,) uint64, the number of each tile id (entries past L are unused),
  from splitmix64 with a fixed seed (the same every build);
- ``hashes.npy``: (n,) uint64, sorted and distinct: the hashes of the alphagrams of every
  word of at least ``rack_size - 1`` tiles;
- ``meta.json``: ``alphagrams`` (distinct alphagrams of those words), ``hashes`` (distinct
  hashes: equal unless two collide), ``min_tiles`` and the alphagrams by tile count.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from heuri.spec import load_spec

from .common import write_json
from .keys import alphagram_rows

SEED = 0x17A1_F4A6_12A3_5E5D
_M64 = (1 << 64) - 1


def zobrist(n: int = 64, seed: int = SEED) -> np.ndarray:
    """``n`` pseudo-random uint64 (splitmix64 from ``seed``): one per tile id."""
    out = np.zeros(n, np.uint64)
    x = seed
    for i in range(n):
        x = (x + 0x9E3779B97F4A7C15) & _M64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        out[i] = z ^ (z >> 31)
    return out


def tile_hashes(z: np.ndarray, tiles_flat: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The hash of each word (row ``i`` = tiles ``tiles_flat[offsets[i]:offsets[i + 1]]``,
    every row non-empty): uint64 sums of ``z`` over its tiles, modulo 2**64."""
    return np.add.reduceat(z[tiles_flat.astype(np.int64)], offsets[:-1].astype(np.int64))


def build_long_alphagrams(spec_file: Path, words_file: Path, outdir: Path) -> dict:
    """Pipeline step; returns the meta dict (also written to ``outdir/meta.json``)."""
    spec = load_spec(spec_file)
    min_tiles = spec.rack_size - 1
    t = pq.read_table(words_file, columns=["tiles", "length"])
    length = t.column("length").to_numpy()
    sel = np.flatnonzero(length >= min_tiles)
    tiles = t.column("tiles").take(sel).combine_chunks()
    z = zobrist()
    if len(sel):
        h = np.unique(tile_hashes(z, tiles.values.to_numpy(), tiles.offsets.to_numpy()))
    else:
        h = np.zeros(0, np.uint64)
    by_len = {}
    for n in range(min_tiles, spec.board_size + 1):
        rows = alphagram_rows(t.column("tiles"), length, n)
        if len(rows):
            by_len[str(n)] = int(len(rows))
    outdir.mkdir(parents=True, exist_ok=True)
    np.save(outdir / "zobrist.npy", z)
    np.save(outdir / "hashes.npy", h.astype(np.uint64))
    meta = {"min_tiles": min_tiles, "alphagrams": int(sum(by_len.values())), "hashes": int(len(h)),
            "alphagrams_by_tiles": by_len}
    write_json(meta, outdir / "meta.json")
    return meta


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="alphagram hashes of the long words")
    ap.add_argument("spec", type=Path)
    ap.add_argument("words", type=Path)
    ap.add_argument("outdir", type=Path)
    a = ap.parse_args(argv)
    m = build_long_alphagrams(a.spec, a.words, a.outdir)
    print(f"{a.outdir}: {m['alphagrams']} alphagrams of {m['min_tiles']}+ tiles, {m['hashes']} hashes")


if __name__ == "__main__":
    main()
