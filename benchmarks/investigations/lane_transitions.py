"""How often a bingo lane appears or goes between a move and the mover's next turn.

For each pair of consecutive boards of game records (after a move, after the reply), with
at least 14 unseen tiles: δ of both boards over the pack's Heuri_3 keys
(:func:`heuri.bingo.delta`), each key weighted by p(s | ∅) over the unseen tiles (a rack
drawn from them, :func:`heuri.probability.p_key`). Prints the share of that probability that
lands after the move, and the two transition rates: a key that cannot land after the move
but can after the reply (o), and one that can land but cannot after the reply (b).

    .venv/bin/python benchmarks/investigations/lane_transitions.py --lang en "$HEURI_CASES/en/*.gcg"
"""
from __future__ import annotations

import argparse
import glob

import numpy as np

import heuri
from heuri.bingo import delta
from heuri.errors import HeuriError
from heuri.gcg import read_gcg_file, replay
from heuri.probability import board_counts, key_rows, p_key


def key_counts(pack) -> np.ndarray:
    """The keys as tile counts, (n_keys, n_kinds) int64."""
    rows = key_rows(pack).astype(np.int64)
    out = np.zeros((len(rows), pack.spec.n_kinds), np.int64)
    for j in range(rows.shape[1]):
        np.add.at(out, (np.arange(len(rows)), rows[:, j]), 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", help="a glob of GCG files")
    ap.add_argument("--lang", required=True)
    ap.add_argument("--max", type=int, default=None, help="at most this many records")
    a = ap.parse_args()
    pack = heuri.load_pack(a.lang)
    spec = pack.spec
    K = key_counts(pack)
    files = sorted(glob.glob(a.records))[: a.max]
    n0 = n01 = n1 = n10 = 0.0
    pairs = skipped = 0
    for f in files:
        try:
            boards = [s.board for s in replay(read_gcg_file(f), spec).steps]
        except HeuriError as e:  # a record that does not replay is left out, and counted
            skipped += 1
            print(f"left out {f}: {e}")
            continue
        ds: dict = {}
        for t in range(len(boards) - 1):
            b0 = boards[t]
            if not (b0.letters >= 0).any():
                continue
            U = spec.distribution() - board_counts(spec, b0.letters, b0.blanks)
            if U.sum() < 14:
                continue
            for i in (t, t + 1):
                if i not in ds:
                    ds[i] = delta(pack, boards[i].letters)
            w = p_key(U, np.zeros_like(U), K)
            d0, d1 = ds[t], ds[t + 1]
            n0 += w[~d0].sum(); n01 += w[~d0 & d1].sum()
            n1 += w[d0].sum(); n10 += w[d0 & ~d1].sum()
            pairs += 1
    print(f"{a.lang}: {len(files) - skipped} records ({skipped} left out), {pairs} pairs of boards")
    print(f"lands after the move: {n1 / (n0 + n1):.3f} of the bingo probability")
    print(f"o = P(lands after the reply | not after the move) = {n01 / n0:.3f}")
    print(f"b = P(not after the reply | lands after the move) = {n10 / n1:.3f}")


if __name__ == "__main__":
    main()
