"""The bingo index: what ``heuri.bingo`` needs to compute δ (which keys can land as a bingo
on a board) in a few compiled passes → ``bingo/*.npy``.

δ(s) = 1 when the key ``s`` can be played as an R-tile word placed legally, or, for a reduced
octet, as an (R+1)-tile word through exactly one board tile (docs/method.md, paper §4.3); a key
with blanks lands when one of the keys obtained by giving one blank a letter does (the blank
plays that letter on the same squares). The run-time method (``heuri.bingo``): the simple
lanes OR precomputed *closed key bitsets*, the others intersect per-position per-letter word
bitsets and walk up from the keys they find to their blank parents.

Files (R = the spec's rack size, L = letters, n = keys in ``keys/``, n7 / n8 = the words of
R / R+1 tiles; a bitset over the keys is ceil(n/64) uint64, bit s % 64 of word s // 64):

- ``kb7.npy`` (R, L, ceil(n/64)) uint64 and ``kb8.npy`` (R+1, L, ceil(n/64)) uint64: closed
  key bitsets. Bit s of ``kb7[i, c]`` is set when key s lands through some R-tile word with
  letter c at position i (blanks included: a key with blanks is in when a child is);
  ``kb8[j, x]`` the same for the reduced octets completed by letter x at position j of an
  (R+1)-tile word. A lane with a single constrained square (R tiles) or with no constrained
  square besides its board tile (R+1 tiles) lands exactly the OR of a few of these rows.
- ``s7_bits.npy`` (R, R, L, ceil(n7/64)) uint64, ``s7_key.npy`` (R, n7) int32 and
  ``s7_start.npy`` (R, L+1) int64 (``s8_*`` the same for the (R+1)-tile words): the words
  sorted with position j first, once per j. ``s7_bits[j, i, c]`` has bit w set when word w
  (in that order) has letter c at position i; ``s7_key[j, w]`` is the word's key (a
  septet; ``s8_key[j, w]`` the reduced octet completed by the word's tile at j) and
  ``s7_start[j, c]`` where the words with letter c at position j begin. A lane whose board
  tile is x at position j (or whose most selective square is j) then reads only the
  chunks of that letter's run.
- ``parents.npy`` (n, R) int32: the keys with one more blank that have key s as a child
  (at most R: one for each distinct tile of s made a blank), −1 padded: one cache line
  per key when δ walks up from a key to its blank parents.
- ``meta.json``: the counts.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from heuri.spec import load_spec

from .common import write_json

BITS = 6


def word_rows(table: pa.Table, n: int) -> np.ndarray:
    """Distinct tile rows of the words of exactly n tiles, (m, n) uint8, sorted."""
    lengths = table.column("length").to_numpy()
    idx = np.flatnonzero(lengths == n)
    if len(idx) == 0:
        return np.zeros((0, n), np.uint8)
    col = table.column("tiles").take(pa.array(idx))
    flat = pa.concat_arrays([c.flatten() for c in col.chunks]).to_numpy()
    return np.unique(flat.reshape(-1, n).astype(np.uint8), axis=0)


def encode(rows: np.ndarray) -> np.ndarray:
    """Sorted tile rows → int64 key codes (same as pipeline.keys.encode)."""
    code = np.zeros(len(rows), np.int64)
    for j in range(rows.shape[1]):
        code = (code << BITS) | rows[:, j].astype(np.int64)
    return code


def bitsets(rows: np.ndarray, n_letters: int) -> np.ndarray:
    """(P, L, ceil(m/64)) uint64 position/letter bitsets of the rows (see module doc)."""
    m, P = rows.shape
    nw = (m + 63) // 64
    out = np.zeros((P, n_letters, nw), np.uint64)
    pad = nw * 64 - m
    for i in range(P):
        for c in range(n_letters):
            bits = np.concatenate([rows[:, i] == c, np.zeros(pad, bool)])
            out[i, c] = np.packbits(bits, bitorder="little").view("<u8")
    return out


def lookup(codes: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Index of each ``want`` code in sorted ``codes``, -1 when absent."""
    pos = np.searchsorted(codes, want)
    pos = np.minimum(pos, len(codes) - 1)
    return np.where(codes[pos] == want, pos, -1)


def sorted_by_position(rows: np.ndarray, keys: np.ndarray, n_letters: int):
    """For each position j: the rows sorted with column j first (then the whole row).
    Returns (bits (P, P, L, nw) uint64, key (P, m) int32, start (P, L+1) int64): see the
    module doc; ``keys`` (m, P) int32 is the key of row w through position j."""
    m, P = rows.shape
    nw = (m + 63) // 64
    bits = np.zeros((P, P, n_letters, nw), np.uint64)
    key = np.zeros((P, m), np.int32)
    start = np.zeros((P, n_letters + 1), np.int64)
    for j in range(P):
        o = np.lexsort(tuple(rows[:, i] for i in range(P - 1, -1, -1)) + (rows[:, j],))
        bits[j] = bitsets(rows[o], n_letters)
        key[j] = keys[o, j]
        start[j] = np.searchsorted(rows[o, j], np.arange(n_letters + 1))
    return bits, key, start


def parent_table(order, ptr, child, n_keys: int, width: int) -> np.ndarray:
    """(n_keys, width) int32: row s lists the keys whose blank-children lists hold s, −1
    padded (see the module doc)."""
    owner = np.repeat(order.astype(np.int64), np.diff(ptr))
    child = child.astype(np.int64)
    o = np.lexsort((owner, child))
    owner, child = owner[o], child[o]
    start = np.searchsorted(child, child)  # first edge of each child
    rank = np.arange(len(child)) - start
    assert len(rank) == 0 or rank.max() < width, "a key has more blank parents than tiles"
    out = np.full((n_keys, width), -1, np.int32)
    out[child, rank] = owner
    return out


def closure_edges(order, ptr, child, n_blanks):
    """(parent, child) edges of the blank closure grouped by the child's blank count:
    a list, entry b the (parents, children) int64 arrays of children with b blanks."""
    owner = np.repeat(order.astype(np.int64), np.diff(ptr))
    child = child.astype(np.int64)
    nbc = n_blanks[child]
    return [(owner[nbc == b], child[nbc == b]) for b in range(int(n_blanks.max(initial=0)))]


def closed_bitsets(rows: np.ndarray, row_key: np.ndarray, n_keys: int, n_letters: int,
                   edges) -> np.ndarray:
    """(P, L, ceil(n_keys/64)) uint64: bit s of out[i, c] set when key s is reached from a
    word with letter c at position i (``row_key[w, i]`` its key) or is a key with blanks
    one of whose children is (``edges`` from :func:`closure_edges`, applied level by
    level, fewer blanks first)."""
    m, P = rows.shape
    n64 = (n_keys + 63) // 64
    out = np.zeros((P, n_letters, n64), np.uint64)
    for i in range(P):
        for c in range(n_letters):
            land = np.zeros(n64 * 64, bool)
            land[row_key[rows[:, i] == c, i]] = True
            for par, ch in edges:
                land[par[land[ch]]] = True
            out[i, c] = np.packbits(land, bitorder="little").view("<u8")
    return out


def build_bingo_index(spec_file: Path, outdir: Path) -> dict:
    """Pipeline step: words.parquet + keys/ → ``outdir/bingo/*.npy``. Returns counts."""
    spec = load_spec(spec_file)
    outdir = Path(outdir)
    R, L, blank = spec.rack_size, spec.n_letters, spec.blank
    table = pq.read_table(outdir / "words.parquet", columns=["tiles", "length"])
    kcodes = np.load(outdir / "keys" / "code.npy")
    kcounts = np.load(outdir / "keys" / "counts.npy")
    w7 = word_rows(table, R)
    w8 = word_rows(table, R + 1)
    w7_key = lookup(kcodes, encode(np.sort(w7, axis=1))).astype(np.int32)
    w8_key = np.zeros((len(w8), R + 1), np.int32)
    for j in range(R + 1):
        rest = np.sort(np.delete(w8, j, axis=1), axis=1)
        w8_key[:, j] = lookup(kcodes, encode(rest))
    assert (w7_key >= 0).all() and (w8_key >= 0).all(), "key set misses a word's key"

    # blank children: replace one blank of each key by each letter
    nb = kcounts[:, blank].astype(np.int64)
    order = np.flatnonzero(nb > 0)
    order = order[np.argsort(nb[order], kind="stable")].astype(np.int32)
    rows = np.zeros((len(kcodes), R), np.uint8)
    c = kcodes.copy()
    for j in range(R - 1, -1, -1):
        rows[:, j] = c & 63
        c >>= BITS
    brow = rows[order]  # sorted: blanks last (blank = L is the largest id)
    children = []
    owners = []
    for letter in range(L):
        v = brow.copy()
        v[:, R - 1] = letter  # the last column holds a blank in every such row
        ch = lookup(kcodes, encode(np.sort(v, axis=1)))
        ok = ch >= 0
        children.append(ch[ok])
        owners.append(np.flatnonzero(ok))
    ch = np.concatenate(children).astype(np.int32)
    ow = np.concatenate(owners)
    srt = np.lexsort((ch, ow))  # each key's children together
    ch, ow = ch[srt], ow[srt]
    ptr = np.zeros(len(order) + 1, np.int64)
    np.add.at(ptr, ow + 1, 1)
    ptr = np.cumsum(ptr)

    bd = outdir / "bingo"
    bd.mkdir(parents=True, exist_ok=True)

    def save(name, arr):  # atomic: a process that maps the old file keeps reading it
        tmp = bd / f".{name}.tmp.npy"
        np.save(tmp, arr)
        os.replace(tmp, bd / name)

    w7_cols = np.repeat(w7_key[:, None], R, axis=1)  # the septet's key, whatever the position
    written = set()
    for name, rows, keys in (("s7", w7, w7_cols), ("s8", w8, w8_key)):
        bits, key, start = sorted_by_position(rows, keys, L)
        for part, arr in (("bits", bits), ("key", key), ("start", start)):
            save(f"{name}_{part}.npy", arr)
            written.add(f"{name}_{part}.npy")
    save("parents.npy", parent_table(order, ptr, ch, len(kcodes), R))
    edges = closure_edges(order, ptr, ch, nb)
    save("kb7.npy", closed_bitsets(w7, w7_cols, len(kcodes), L, edges))
    save("kb8.npy", closed_bitsets(w8, w8_key, len(kcodes), L, edges))
    written |= {"parents.npy", "kb7.npy", "kb8.npy"}
    for old in bd.glob("*.npy"):  # files of an older layout of this step
        if old.name not in written:
            old.unlink()
    meta = {"rack_size": R, "words_r": int(len(w7)), "words_r1": int(len(w8)),
            "blank_keys": int(len(order)), "blank_edges": int(len(ch))}
    write_json(meta, bd / "meta.json")
    return meta


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="bingo index for δ (heuri.bingo)")
    ap.add_argument("spec", type=Path)
    ap.add_argument("outdir", type=Path)
    a = ap.parse_args(argv)
    print(build_bingo_index(a.spec, a.outdir))


if __name__ == "__main__":
    main()
