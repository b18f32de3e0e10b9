"""The bingo index: what ``heuri.bingo`` needs to compute δ (which keys can land as a bingo
on a board) in a few compiled passes → ``bingo/*.npy``.

δ(s) = 1 when the key ``s`` can be played as an R-tile word placed legally, or, for a reduced
octet, as an (R+1)-tile word through exactly one board tile (HEURI.md, paper §4.3). The
run-time method works on *words*, not keys: per-position, per-letter bitsets over the R- and
(R+1)-tile words are intersected at the constrained squares of each lane, and the words that
fit are mapped to their blank-free key; a key with blanks can land when one of the keys
obtained by giving one blank a letter can (the blank plays that letter on the same squares).

Files (R = the spec's rack size, L = letters, K = L+1, n = keys in ``keys/``):

- ``w7.npy`` (n7, R) uint8 and ``w8.npy`` (n8, R+1) uint8: the words of R and R+1 tiles.
- ``w7_key.npy`` (n7,) int32: key index of the word's alphagram (a blank-free septet).
- ``w8_key.npy`` (n8, R+1) int32: key index of the word's alphagram minus its tile at
  position j (a blank-free reduced octet completed by that tile).
- ``b7.npy`` (R, L, ceil(n7/64)) uint64 and ``b8.npy`` (R+1, L, ceil(n8/64)) uint64: bit w
  of ``b7[i, c]`` (word w // 64, bit w % 64) is set when word w has letter c at position i.
- ``blank_order.npy`` (nb,) int32: the keys holding a blank, fewer blanks first;
  ``blank_ptr.npy`` (nb+1,) int64 and ``blank_child.npy`` int32: the keys obtained by
  replacing one blank of ``blank_order[i]`` by a letter (those in the key set), the ones
  with the most witness words (or children) first.
- ``lex.npy`` (m,) uint64 sorted: every word of at most 10 tiles encoded
  ``length << 60 | Σ tile_i << 6·(9 − i)``, for cross-check look-ups; ``lex_long_hi.npy``
  and ``lex_long_lo.npy``: the longer words as (first 10 tiles, rest) code pairs, sorted.
- ``parents.npy`` (n, R) int32: the keys with one more blank that have key s as a child
  (at most R: one for each distinct tile of s made a blank), −1 padded: one cache line
  per key when δ walks up from a key to its blank parents.
- ``s7_bits.npy`` (R, R, L, ceil(n7/64)) uint64, ``s7_key.npy`` (R, n7) int32 and
  ``s7_start.npy`` (R, L+1) int64 (and ``s8_*`` the same for the (R+1)-tile words): the
  words re-sorted with position j first, once per j: row j of ``s7_bits`` are the
  bitsets of the words in that order, ``s7_key[j]`` their keys (``s8_key[j, w]`` the
  reduced octet completed by the tile at j) and ``s7_start[j, c]`` where the words with
  letter c at position j begin. A lane whose board tile is x at position j (or whose most
  selective square is j) then reads only the chunks of that letter's run.
- ``kb7.npy`` (R, L, ceil(n/64)) uint64 and ``kb8.npy`` (R+1, L, ceil(n/64)) uint64: *closed
  key bitsets*. Bit s of ``kb7[i, c]`` is set when key s lands through some R-tile word with
  letter c at position i (blanks included: a key with blanks is in when a child is);
  ``kb8[j, x]`` the same for the reduced octets completed by letter x at position j of an
  (R+1)-tile word. A lane with a single constrained square (R tiles) or with no constrained
  square besides its board tile (R+1 tiles) lands exactly the OR of a few of these rows, so
  ``heuri.bingo`` needs no per-word or per-key work for the commonest lanes.
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


def lex_codes(table: pa.Table, max_len: int = 15):
    """Word codes for look-ups: ``(lex, long_hi, long_lo)``. ``lex`` (m,) uint64 sorted: the
    words of at most 10 tiles, ``n << 60 | Σ_{i<n} t_i << 6(9 − i)``; ``long_hi``/``long_lo``
    (m2,) uint64 sorted by (hi, lo): longer words, hi = the same code of the first 10 tiles
    with n in the top bits, lo = ``Σ_{i≥10} t_i << 6(4 − (i − 10))``."""
    out, his, los = [], [], []
    for n in range(1, max_len + 1):
        rows = word_rows(table, n)
        if len(rows) == 0:
            continue
        code = np.full(len(rows), np.uint64(n) << np.uint64(60), np.uint64)
        for i in range(min(n, 10)):
            code |= rows[:, i].astype(np.uint64) << np.uint64(BITS * (9 - i))
        if n <= 10:
            out.append(code)
        else:
            lo = np.zeros(len(rows), np.uint64)
            for i in range(10, n):
                lo |= rows[:, i].astype(np.uint64) << np.uint64(BITS * (4 - (i - 10)))
            his.append(code)
            los.append(lo)
    lex = np.unique(np.concatenate(out)) if out else np.zeros(0, np.uint64)
    hi = np.concatenate(his) if his else np.zeros(0, np.uint64)
    lo = np.concatenate(los) if los else np.zeros(0, np.uint64)
    o = np.lexsort((lo, hi))
    return lex, hi[o], lo[o]


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
    ch = np.concatenate(children)
    ow = np.concatenate(owners)
    # each key's children, the likeliest to land first (most witness words, or most
    # children for a key with blanks): δ's propagation stops at the first child that lands
    score = (np.bincount(w7_key, minlength=len(kcodes))
             + np.bincount(w8_key.ravel(), minlength=len(kcodes))).astype(np.int64)
    nchild = np.bincount(order[ow], minlength=len(kcodes))
    score = np.where(nb > 0, nchild, score)
    srt = np.lexsort((ch, -score[ch], ow))
    ch, ow = ch[srt].astype(np.int32), ow[srt]
    ptr = np.zeros(len(order) + 1, np.int64)
    np.add.at(ptr, ow + 1, 1)
    ptr = np.cumsum(ptr)

    bd = outdir / "bingo"
    bd.mkdir(parents=True, exist_ok=True)

    def save(name, arr):  # atomic: a process that maps the old file keeps reading it
        tmp = bd / f".{name}.tmp.npy"
        np.save(tmp, arr)
        os.replace(tmp, bd / name)

    save("w7.npy", w7)
    save("w8.npy", w8)
    save("w7_key.npy", w7_key)
    save("w8_key.npy", w8_key)
    save("b7.npy", bitsets(w7, L))
    save("b8.npy", bitsets(w8, L))
    w7_cols = np.repeat(w7_key[:, None], R, axis=1)  # the septet's key, whatever the position
    for name, rows, keys in (("s7", w7, w7_cols), ("s8", w8, w8_key)):
        bits, key, start = sorted_by_position(rows, keys, L)
        save(f"{name}_bits.npy", bits)
        save(f"{name}_key.npy", key)
        save(f"{name}_start.npy", start)
    save("blank_order.npy", order)
    save("blank_ptr.npy", ptr)
    save("blank_child.npy", ch)
    save("parents.npy", parent_table(order, ptr, ch, len(kcodes), R))
    edges = closure_edges(order, ptr, ch, nb)
    save("kb7.npy", closed_bitsets(w7, w7_cols, len(kcodes), L, edges))
    save("kb8.npy", closed_bitsets(w8, w8_key, len(kcodes), L, edges))
    lex, long_hi, long_lo = lex_codes(table, spec.board_size)
    save("lex.npy", lex)
    save("lex_long_hi.npy", long_hi)
    save("lex_long_lo.npy", long_lo)
    meta = {"rack_size": R, "words_r": int(len(w7)), "words_r1": int(len(w8)),
            "blank_keys": int(len(order)), "blank_edges": int(len(ch))}
    write_json(meta, bd / "meta.json")
    return meta


def build_step(spec_file: Path, outdir: Path) -> None:
    """pipeline.build.EXTRA_STEPS entry: the bingo index of the pack in ``outdir``."""
    build_bingo_index(spec_file, outdir)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="bingo index for δ (heuri.bingo)")
    ap.add_argument("spec", type=Path)
    ap.add_argument("outdir", type=Path)
    a = ap.parse_args(argv)
    print(build_bingo_index(a.spec, a.outdir))


if __name__ == "__main__":
    main()
