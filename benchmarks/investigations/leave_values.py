"""What heuri's evaluators make of a one-tile leave, against MAGPIE's leave table.

For each tile x: the value heuri4 and heuri5 give to keeping x alone rather than nothing
(e(x) − c(x) + P(x), minus the same for the empty leave; an open board: every key lands;
the unseen tiles: the full set less x; a full bag), and, when the peer engines
are built (``$HEURI_PEERS``, default ``~/.cache/heuri-peers``), the value of
the leave x in MAGPIE's table (CSW21 for en, FRA20 for fr; a ``.klv2`` file: a word graph
of leaves and one float a leave). Without the peers the MAGPIE column is left out, and the
script says so. The opponent's term does not depend on the leave: it is not in the figures.

    .venv/bin/python benchmarks/investigations/leave_values.py --lang en
"""
from __future__ import annotations

import argparse
import os
import struct
import sys
from pathlib import Path

import numpy as np

KLV = {"en": "CSW21", "fr": "FRA20"}


def read_klv2(path: Path, alphabet: str) -> dict[str, float]:
    """The leaves of a ``.klv2`` file as ``{leave text: value}``: a u32 node count, the word
    graph's u32 nodes (tile in bits 24-31, accepts bit 23, last sibling bit 22, first child
    in bits 0-21; the root's child list is named by node 0), a u32 leave count and one
    float32 a leave, the leaves in the graph's depth-first order. ``alphabet[t]`` is tile t."""
    b = path.read_bytes()
    (n,) = struct.unpack_from("<I", b, 0)
    nodes = np.frombuffer(b, "<u4", n, 4)
    (m,) = struct.unpack_from("<I", b, 4 + 4 * n)
    vals = np.frombuffer(b, "<f4", m, 8 + 4 * n)
    order: list[str] = []
    sys.setrecursionlimit(10_000)  # the graph is a few levels deep (leaves of up to 6 tiles)

    def walk(i: int, pre: str) -> None:
        while True:
            node = int(nodes[i])
            word = pre + alphabet[node >> 24]
            if (node >> 23) & 1:
                order.append(word)
            if node & 0x3FFFFF:
                walk(node & 0x3FFFFF, word)
            if (node >> 22) & 1:
                return
            i += 1

    walk(int(nodes[0]) & 0x3FFFFF, "")
    if len(order) != m:
        raise ValueError(f"{path}: {len(order)} leaves in the graph, {m} values")
    out = {w: float(v) for w, v in zip(order, vals)}
    return out


def heuri_single_tiles(pack, name: str) -> np.ndarray:
    """(K,) points: the value the evaluator ``name`` gives keeping each tile alone rather
    than nothing (see the module docstring)."""
    from heuri.evaluate import make_evaluator
    from heuri.leave_quality import next_rack_cost
    from heuri.probability import leave_table

    spec = pack.spec
    ev = make_evaluator(pack, name)
    dist = np.asarray(spec.distribution(), np.int64)
    every = np.ones(len(pack.keys), bool)
    bag = 50
    out = np.zeros(spec.n_kinds)
    for x in range(spec.n_kinds):
        rack = np.zeros(spec.n_kinds, np.int64)
        rack[x] = 1
        U = dist.copy()
        U[x] -= 1
        leaves, e, p = leave_table(pack, rack, U, every, ev._val, bag)
        v = e - next_rack_cost(ev._kinds, leaves, U, bag, ev.weights)
        if ev.power > 0:
            w = pack.tile_power
            t = spec.rack_size - leaves.sum(axis=1)
            v = v + ev.power * (1 - p) * (leaves @ w + t * (U @ w) / U.sum())
        one = int(np.flatnonzero(leaves[:, x] == 1)[0])
        out[x] = v[one] - v[1 - one]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", default="en", choices=sorted(KLV) + ["es"])
    a = ap.parse_args(argv)
    from heuri.pack import load_pack

    pack = load_pack(a.lang)
    spec = pack.spec
    h4, h5 = heuri_single_tiles(pack, "heuri4"), heuri_single_tiles(pack, "heuri5")
    peers = Path(os.environ.get("HEURI_PEERS", Path.home() / ".cache" / "heuri-peers"))
    klv_file = peers / "magpie" / "data" / "lexica" / f"{KLV.get(a.lang, '-')}.klv2"
    magpie = None
    if klv_file.is_file():
        magpie = read_klv2(klv_file, "?" + "".join(chr(65 + i) for i in range(26)))
    else:
        print(f"MAGPIE's leave table not found ({klv_file}): its column is left out "
              f"(build MAGPIE and its leave tables under $HEURI_PEERS)", file=sys.stderr)
    sym = ["?" if i == spec.blank else spec.tiles[i] for i in range(spec.n_kinds)]
    print(f"{'tile':>4} {'power':>6} {'heuri4':>7} {'heuri5':>7}" + (f" {'MAGPIE':>7}" if magpie else ""))
    for i in np.argsort(-h5):
        row = f"{sym[i]:>4} {pack.tile_power[i]:+6.1f} {h4[i]:+7.1f} {h5[i]:+7.1f}"
        if magpie:
            row += f" {magpie.get(sym[i], float('nan')):+7.1f}"
        print(row)
    if magpie:
        keys = [i for i in range(spec.n_kinds) if sym[i] in magpie]
        m = np.array([magpie[sym[i]] for i in keys])
        for name, h in (("heuri4", h4), ("heuri5", h5)):
            d = h[keys] - m
            print(f"{name}: mean |heuri − MAGPIE| {np.abs(d).mean():.1f} points, correlation "
                  f"{np.corrcoef(h[keys], m)[0, 1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
