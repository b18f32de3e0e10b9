"""Heuri's bingo keys from the words → septets, pure septets, reduced octets, key set.

Definitions (docs/method.md, paper §3): a *septet* is a sorted 7-tile multiset
(blank ``#`` allowed, at most two; 7 is the spec's rack_size, 2 its blank count) from which a 7-tile word can be made; a *reduced octet*
is a sorted 7-tile multiset that becomes an 8-tile word when one more tile (on the board)
is added — the *completers* are the tiles that do it; a *pure septet* is a septet that is
not a reduced octet. Heuri_3's key set is septets ∪ reduced octets.

Method: every 7-tile alphagram, and every 8-tile alphagram minus each of its tiles, with
0, 1 or 2 of its tiles replaced by the blank; rows are encoded as one integer (6 bits a
tile, tiles sorted, blank = L sorts last) and deduplicated with ``np.unique``; completers
are OR-ed into a uint64 bitmask per key. Vectorised, exact, and checked in the tests
against a slow independent search over the words.

Outputs (Parquet, sorted by key code): ``septets.parquet`` (key, tiles, blanks, sigma,
pure), ``pure_septets.parquet`` (the pure rows), ``reduced_octets.parquet`` (key, tiles,
blanks, sigma, completers as a list of tile symbols, completer_mask) and, for memory-mapping
at run time, ``keys/*.npy`` over the key set: ``counts`` (n, L+1) uint8, ``sigma`` (n,)
int16, ``flags`` (n,) uint8 (1 = septet, 2 = reduced octet), ``completers`` (n,) uint64,
``code`` (n,) int64.
"""
from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from heuri.errors import SpecError
from heuri.spec import LanguageSpec, load_spec

from .common import write_json, write_parquet

BITS = 6  # bits per tile in a key code: up to 63 letters + blank


def alphagram_rows(tiles_col: pa.ChunkedArray, lengths: np.ndarray, n: int) -> np.ndarray:
    """Distinct sorted tile rows of the words with exactly n tiles, shape (m, n) uint8."""
    idx = np.flatnonzero(lengths == n)
    if len(idx) == 0:
        return np.zeros((0, n), np.uint8)
    flat = pa.concat_arrays([c.flatten() for c in tiles_col.take(pa.array(idx)).chunks]).to_numpy()
    rows = np.sort(flat.reshape(-1, n).astype(np.uint8), axis=1)
    return np.unique(rows, axis=0)


def with_blanks(rows: np.ndarray, blank: int, max_blanks: int = 2) -> np.ndarray:
    """Each row, and each row with 1..max_blanks of its positions replaced by the blank,
    re-sorted. Shape (m * Σ C(k, b), k) uint8 (duplicates kept; the caller dedups)."""
    k = rows.shape[1]
    out = [rows]
    for b in range(1, max_blanks + 1):
        for pos in itertools.combinations(range(k), b):
            v = rows.copy()
            v[:, list(pos)] = blank
            out.append(v)
    return np.sort(np.concatenate(out), axis=1)


def encode(rows: np.ndarray) -> np.ndarray:
    """Sorted tile rows → int64 codes (first tile in the high bits), order-preserving."""
    code = np.zeros(len(rows), np.int64)
    for j in range(rows.shape[1]):
        code = (code << BITS) | rows[:, j].astype(np.int64)
    return code


def decode(codes: np.ndarray, k: int) -> np.ndarray:
    """Inverse of :func:`encode`: shape (n, k) uint8."""
    out = np.zeros((len(codes), k), np.uint8)
    c = codes.copy()
    for j in range(k - 1, -1, -1):
        out[:, j] = c & ((1 << BITS) - 1)
        c >>= BITS
    return out


def septet_codes(w7: np.ndarray, blank: int, max_blanks: int = 2) -> np.ndarray:
    """Sorted distinct codes of the septets made from 7-tile alphagrams (with blanks)."""
    return np.unique(encode(with_blanks(w7, blank, max_blanks)))


def reduced_octet_codes(w8: np.ndarray, blank: int, max_blanks: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(codes, completer masks) of the reduced octets made from 8-tile alphagrams: for each
    alphagram and each of its tiles x, the other 7 (with 0-2 blanks) keyed with bit x."""
    codes, masks = [], []
    for i in range(w8.shape[1]):
        rest = np.delete(w8, i, axis=1)
        x = w8[:, i].astype(np.uint64)
        # one row per blank variant of `rest`, each completed by x
        variants = with_blanks(rest, blank, max_blanks)
        reps = len(variants) // max(len(rest), 1)
        codes.append(encode(variants))
        masks.append(np.tile(np.left_shift(np.uint64(1), x), reps))
    if not codes:
        return np.zeros(0, np.int64), np.zeros(0, np.uint64)
    code = np.concatenate(codes)
    mask = np.concatenate(masks)
    order = np.argsort(code, kind="stable")
    code, mask = code[order], mask[order]
    uniq, start = np.unique(code, return_index=True)
    return uniq, np.bitwise_or.reduceat(mask, start) if len(code) else mask


def sigma(rows: np.ndarray, spec: LanguageSpec) -> np.ndarray:
    """σ(s): sum of face values of a key's tiles (blank = its value, 0), shape (n,) int16."""
    return spec.value_vector()[rows].sum(axis=1).astype(np.int16)


def count_vectors(rows: np.ndarray, n_kinds: int) -> np.ndarray:
    """Tile rows → count vectors, shape (n, n_kinds) uint8."""
    out = np.zeros((len(rows), n_kinds), np.uint8)
    for j in range(rows.shape[1]):
        np.add.at(out, (np.arange(len(rows)), rows[:, j]), 1)
    return out


def mask_symbols(mask: int, spec: LanguageSpec) -> list[str]:
    return [spec.tiles[t] for t in range(spec.n_letters) if (mask >> t) & 1]


def build_keys(spec_file: Path, words_file: Path, outdir: Path) -> dict:
    """Pipeline step: words.parquet → key artifacts in ``outdir``. Returns the counts."""
    spec = load_spec(spec_file)
    table = pq.read_table(words_file, columns=["tiles", "length"])
    lengths = table.column("length").to_numpy()
    blank = spec.blank
    k = spec.rack_size  # 7: septets and reduced octets; a spec may set another rack size
    if (k + 1) * BITS > 63:
        raise SpecError(f"{spec_file} [rules]: rack_size {k} too large for key codes (at most {63 // BITS - 1})")
    nb = min(spec.blank_count, k)
    w7 = alphagram_rows(table.column("tiles"), lengths, k)
    w8 = alphagram_rows(table.column("tiles"), lengths, k + 1)
    s_codes = septet_codes(w7, blank, nb)
    r_codes, r_masks = reduced_octet_codes(w8, blank, nb)

    s_rows = decode(s_codes, k)
    pure = ~np.isin(s_codes, r_codes)
    r_rows = decode(r_codes, k)

    def key_table(rows, codes, extra):
        return pa.table({
            "key": pa.array([spec.format_tiles(r) for r in rows], pa.string()),
            "tiles": pa.FixedSizeListArray.from_arrays(pa.array(rows.reshape(-1), pa.uint8()), k),
            "blanks": pa.array((rows == blank).sum(axis=1).astype(np.uint8)),
            "sigma": pa.array(sigma(rows, spec)),
            **extra,
        })

    write_parquet(key_table(s_rows, s_codes, {"pure": pa.array(pure)}), outdir / "septets.parquet")
    write_parquet(key_table(s_rows[pure], s_codes[pure], {}), outdir / "pure_septets.parquet")
    write_parquet(key_table(r_rows, r_codes, {
        "completers": pa.array([mask_symbols(int(m), spec) for m in r_masks], pa.list_(pa.string())),
        "completer_mask": pa.array(r_masks, pa.uint64()),
    }), outdir / "reduced_octets.parquet")

    # The Heuri_3 key set (septets ∪ reduced octets) as flat arrays for memory-mapping.
    k_codes = np.union1d(s_codes, r_codes)
    k_rows = decode(k_codes, k)
    flags = np.isin(k_codes, s_codes).astype(np.uint8) | (np.isin(k_codes, r_codes).astype(np.uint8) << 1)
    comp = np.zeros(len(k_codes), np.uint64)
    comp[np.searchsorted(k_codes, r_codes)] = r_masks
    kd = outdir / "keys"
    kd.mkdir(parents=True, exist_ok=True)
    np.save(kd / "code.npy", k_codes)
    np.save(kd / "counts.npy", count_vectors(k_rows, spec.n_kinds))
    np.save(kd / "sigma.npy", sigma(k_rows, spec))
    np.save(kd / "flags.npy", flags)
    np.save(kd / "completers.npy", comp)
    counts = {
        f"alphagrams_{k}": int(len(w7)),
        f"alphagrams_{k + 1}": int(len(w8)),
        "septets": int(len(s_codes)),
        "pure_septets": int(pure.sum()),
        "reduced_octets": int(len(r_codes)),
        "septets_also_reduced_octets": int((~pure).sum()),
        "keyset": int(len(k_codes)),
    }
    write_json(counts, outdir / "keys.json")
    return counts


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="septets, pure septets and reduced octets")
    ap.add_argument("spec", type=Path)
    ap.add_argument("words", type=Path)
    ap.add_argument("outdir", type=Path)
    a = ap.parse_args(argv)
    print(build_keys(a.spec, a.words, a.outdir))


if __name__ == "__main__":
    main()
