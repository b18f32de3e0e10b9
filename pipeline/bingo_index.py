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
    save("blank_order.npy", order)
    save("blank_ptr.npy", ptr)
    save("blank_child.npy", ch)
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
