"""The word graph: a minimised GADDAG over the pack's tile-id words → ``graph/*.npy``.

A GADDAG (Gordon 1994, "A faster Scrabble move generation algorithm", Software—Practice and
Experience 24(2)) holds, for each word ``w`` of ``n`` tiles and each ``i`` in ``1..n-1``, the
path ``rev(w[:i]) ^ w[i:]`` and, for ``i = n``, the path ``rev(w)`` (no separator). Reading
leftwards from any tile of a word and then, after the separator ``^``, rightwards, spells
the word; this is what move generation walks (``heuri.movegen``). The ``rev(w)`` paths
form a reversed DAWG inside the same graph, used for cross-checks and word look-ups.

Method: every path is written as a row of codes (tile + 2, separator 1, 0 pads),
the rows are sorted as byte strings, and the minimal automaton is built from the sorted
rows by the incremental algorithm of Daciuk, Mihov, Watson & Watson (2000, "Incremental
construction of minimal acyclic finite-state automata", Computational Linguistics 26(1)),
in numba with a hash table of registered states. Exact: the graph accepts exactly the
paths above (checked in tests/test_movegen.py against the word list).

Layout (one flat uint32 array, ``graph/gaddag.npy``): a node at word ``s`` is a header of
``hw`` words (``hw = 1`` when the language has at most 31 letters, else 2; the header is
word ``s``, or ``s`` low and ``s + 1`` high) — bit ``x`` set when the node has an arc for
letter ``x``, bit ``32 hw - 1`` set when it has a separator arc — then its arcs, one word
each: the separator arc first (if any), then one arc per set letter bit in increasing
letter order. An arc word is the child node (bits 0-30, 0 = none) and bit 31 *accepts* (a
path ends on this arc). So the arc for letter ``x`` is word
``s + hw + sep + popcount(header & ((1 << x) - 1))``: one look, no scan. The first ``hw``
words are an empty node, so node 0 means "no children". ``root.npy``: (2,) int64, the
root node and ``hw``; ``meta.json``: counts (words, paths, arcs, nodes, words of the
array), the alphabet and ``header_words``.

The same words give the same bytes (deterministic). Spanish (636,598 words): 6.3 M paths,
1.05 M arcs, 0.42 M nodes (5.8 MiB), about 10 s and 0.9 GB on one core.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from numba import njit

from heuri.spec import load_spec

from .common import write_json

MAXLEN = 16  # a path: at most 15 tiles plus the separator
ACCEPT = np.uint32(1 << 31)  # arc word: accepts


@njit(cache=True)
def _gaddag_rows(flat, offsets):
    """Every GADDAG path of every word as a padded row of codes (tile + 2, separator 1),
    shape (M, 16) uint8."""
    nw = len(offsets) - 1
    m = 0
    for k in range(nw):
        m += offsets[k + 1] - offsets[k]
    out = np.zeros((m, MAXLEN), np.uint8)
    r = 0
    for k in range(nw):
        a = offsets[k]
        n = offsets[k + 1] - a
        for i in range(1, n + 1):
            j = 0
            for t in range(i - 1, -1, -1):
                out[r, j] = flat[a + t] + 2
                j += 1
            if i < n:
                out[r, j] = 1
                j += 1
                for t in range(i, n):
                    out[r, j] = flat[a + t] + 2
                    j += 1
            r += 1
    return out


@njit(cache=True)
def _hash_arcs(tiles, nexts, accs, k):
    h = np.uint64(1469598103934665603)
    for i in range(k):
        v = np.uint64(nexts[i]) * np.uint64(1000003) + np.uint64(tiles[i]) * np.uint64(2) + np.uint64(accs[i])
        h = (h ^ v) * np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    return h


@njit(cache=True)
def _build(rows, sep):
    """Daciuk et al.'s incremental minimisation over sorted, distinct rows.

    Returns (arc_tile uint8, arc_next int64, arc_acc bool, arc_last bool, root)."""
    m = rows.shape[0]
    cap = 1 << 20
    a_tile = np.zeros(cap, np.uint8)
    a_next = np.zeros(cap, np.int64)
    a_acc = np.zeros(cap, np.bool_)
    a_last = np.zeros(cap, np.bool_)
    n_arcs = 1  # arc 0: dummy, node 0 = no children
    a_last[0] = True
    hcap = 1 << 20
    table = np.full(hcap, -1, np.int64)
    n_nodes = 0
    # open states along the current path: depth d has t_cnt[d] arcs
    t_tile = np.zeros((MAXLEN + 1, 64), np.uint8)
    t_next = np.zeros((MAXLEN + 1, 64), np.int64)
    t_acc = np.zeros((MAXLEN + 1, 64), np.bool_)
    t_cnt = np.zeros(MAXLEN + 1, np.int64)
    prev_len = 0
    for r in range(m + 1):
        if r < m:
            n = 0
            while n < MAXLEN and rows[r, n] != 0:
                n += 1
            cp = 0
            if r > 0:
                while cp < n and cp < prev_len and rows[r, cp] == rows[r - 1, cp]:
                    cp += 1
        else:
            n = 0
            cp = 0
        # finalise the states deeper than the common prefix, deepest first
        for d in range(prev_len, cp, -1):
            k = t_cnt[d]
            node = 0
            if k > 0:
                h = _hash_arcs(t_tile[d], t_next[d], t_acc[d], k)
                slot = np.int64(h & np.uint64(hcap - 1))
                while True:
                    cand = table[slot]
                    if cand < 0:
                        break
                    same = True
                    for i in range(k):
                        if (a_tile[cand + i] != t_tile[d, i] or a_next[cand + i] != t_next[d, i]
                                or a_acc[cand + i] != t_acc[d, i] or a_last[cand + i] != (i == k - 1)):
                            same = False
                            break
                    if same:
                        node = cand
                        break
                    slot = (slot + 1) & (hcap - 1)
                if node == 0:
                    if n_arcs + k > cap:
                        while n_arcs + k > cap:
                            cap *= 2
                        b_tile = np.zeros(cap, np.uint8); b_tile[:n_arcs] = a_tile[:n_arcs]; a_tile = b_tile
                        b_next = np.zeros(cap, np.int64); b_next[:n_arcs] = a_next[:n_arcs]; a_next = b_next
                        b_acc = np.zeros(cap, np.bool_); b_acc[:n_arcs] = a_acc[:n_arcs]; a_acc = b_acc
                        b_last = np.zeros(cap, np.bool_); b_last[:n_arcs] = a_last[:n_arcs]; a_last = b_last
                    node = n_arcs
                    for i in range(k):
                        a_tile[n_arcs] = t_tile[d, i]
                        a_next[n_arcs] = t_next[d, i]
                        a_acc[n_arcs] = t_acc[d, i]
                        a_last[n_arcs] = i == k - 1
                        n_arcs += 1
                    table[slot] = node
                    n_nodes += 1
                    if n_nodes * 2 > hcap:  # rehash
                        hcap *= 2
                        table = np.full(hcap, -1, np.int64)
                        s = 1
                        while s < n_arcs:
                            e = s
                            while not a_last[e]:
                                e += 1
                            hh = _hash_arcs(a_tile[s:e + 1], a_next[s:e + 1], a_acc[s:e + 1], e + 1 - s)
                            sl = np.int64(hh & np.uint64(hcap - 1))
                            while table[sl] >= 0:
                                sl = (sl + 1) & (hcap - 1)
                            table[sl] = s
                            s = e + 1
            t_next[d - 1, t_cnt[d - 1] - 1] = node
            t_cnt[d] = 0
        if r == m:
            break
        for d in range(cp, n):
            c = t_cnt[d]
            t_tile[d, c] = sep if rows[r, d] == 1 else rows[r, d] - 2
            t_next[d, c] = 0
            t_acc[d, c] = d == n - 1
            t_cnt[d] = c + 1
        prev_len = n
    # the root (depth 0): always a new node
    k = t_cnt[0]
    if n_arcs + k > cap:
        cap = n_arcs + k
        b_tile = np.zeros(cap, np.uint8); b_tile[:n_arcs] = a_tile[:n_arcs]; a_tile = b_tile
        b_next = np.zeros(cap, np.int64); b_next[:n_arcs] = a_next[:n_arcs]; a_next = b_next
        b_acc = np.zeros(cap, np.bool_); b_acc[:n_arcs] = a_acc[:n_arcs]; a_acc = b_acc
        b_last = np.zeros(cap, np.bool_); b_last[:n_arcs] = a_last[:n_arcs]; a_last = b_last
    root = n_arcs
    if k == 0:
        root = 0
    for i in range(k):
        a_tile[n_arcs] = t_tile[0, i]
        a_next[n_arcs] = t_next[0, i]
        a_acc[n_arcs] = t_acc[0, i]
        a_last[n_arcs] = i == k - 1
        n_arcs += 1
    return a_tile[:n_arcs], a_next[:n_arcs], a_acc[:n_arcs], a_last[:n_arcs], root, n_nodes + 1


@njit(cache=True)
def _relayout(tile, nxt, acc, last, root, sep, hw):
    """Arc lists (node = index of its first arc, arc 0 a dummy) → the flat uint32 layout
    of the module docstring with ``hw`` header words. Returns (words, root)."""
    n = len(tile)
    new_of = np.zeros(n, np.int64)  # old node start → new node start
    size = hw
    a = 1
    while a < n:
        new_of[a] = size
        k = 0
        while True:
            k += 1
            if last[a + k - 1]:
                break
        size += hw + k
        a += k
    if size >= 1 << 31:
        raise ValueError("word graph too large for 31-bit node indices")
    out = np.zeros(size, np.uint32)
    a = 1
    while a < n:
        s = new_of[a]
        h = np.uint64(0)
        j = s + hw
        while True:
            t = tile[a]
            if t == sep:
                h |= np.uint64(1) << np.uint64(32 * hw - 1)
            else:
                h |= np.uint64(1) << np.uint64(t)
            w = np.uint32(new_of[nxt[a]]) if nxt[a] != 0 else np.uint32(0)
            if acc[a]:
                w |= ACCEPT
            out[j] = w
            j += 1
            a += 1
            if last[a - 1]:
                break
        out[s] = np.uint32(h & np.uint64(0xFFFFFFFF))
        if hw == 2:
            out[s + 1] = np.uint32(h >> np.uint64(32))
    return out, new_of[root] if root != 0 else 0


def gaddag_paths(tiles_col: pa.ChunkedArray) -> np.ndarray:
    """Sorted distinct GADDAG rows (codes: tile + 2, separator 1, 0 pads), (M, 16) uint8."""
    arr = pa.concat_arrays(tiles_col.chunks) if tiles_col.num_chunks != 1 else tiles_col.chunk(0)
    flat = arr.values.to_numpy(zero_copy_only=False).astype(np.uint8)
    offsets = arr.offsets.to_numpy().astype(np.int64)
    offsets = offsets - offsets[0]
    rows = _gaddag_rows(flat, offsets)
    # sort as byte strings: code 0 pads, so a prefix sorts before its extensions
    srt = np.unique(rows.view(f"S{MAXLEN}").ravel())
    return np.frombuffer(srt.tobytes(), np.uint8).reshape(-1, MAXLEN) if len(srt) else rows[:0]


def build_graph(spec_file: Path, words_file: Path, outdir: Path) -> dict:
    """Pipeline step: words.parquet → ``outdir/{gaddag,root}.npy`` and ``meta.json``."""
    t0 = time.perf_counter()
    spec = load_spec(spec_file)
    L = spec.n_letters
    if L > 63:
        raise ValueError(f"{spec_file}: at most 63 letters fit the word graph's node header, got {L}")
    table = pq.read_table(words_file, columns=["tiles", "length"])
    lengths = table.column("length").to_numpy()
    keep = (lengths >= 2) & (lengths <= spec.board_size)
    tiles_col = table.column("tiles")
    if not keep.all():
        tiles_col = tiles_col.filter(pa.array(keep))
    rows = gaddag_paths(tiles_col)
    # numpy's S dtype drops trailing zero bytes; frombuffer above restores the padding.
    tile, nxt, acc, last, root, n_nodes = _build(rows, L)
    hw = 1 if L <= 31 else 2  # header words: 31 letter bits and the separator bit fit in one
    words, root = _relayout(tile, nxt, acc, last, root, L, hw)
    outdir.mkdir(parents=True, exist_ok=True)
    np.save(outdir / "gaddag.npy", words)
    np.save(outdir / "root.npy", np.array([root, hw], np.int64))
    meta = {"kind": "gaddag", "alphabet": L + 1, "separator": L, "words": int(keep.sum()),
            "paths": int(len(rows)), "arcs": int(len(tile) - 1), "nodes": int(n_nodes),
            "array_words": int(len(words)), "header_words": hw}
    write_json(meta, outdir / "meta.json")
    return {**meta, "seconds": round(time.perf_counter() - t0, 2)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="word graph (GADDAG)")
    ap.add_argument("spec", type=Path)
    ap.add_argument("words", type=Path)
    ap.add_argument("outdir", type=Path)
    a = ap.parse_args(argv)
    m = build_graph(a.spec, a.words, a.outdir)
    print(f"{a.outdir}: {m['words']} words, {m['paths']} paths, {m['arcs']} arcs, {m['nodes']} nodes, "
          f"{m['array_words'] * 4 / 2**20:.1f} MiB "
          f"in {m['seconds']} s")


if __name__ == "__main__":
    main()
