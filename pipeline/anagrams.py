"""Anagram buckets: alphagram → the words spelled by exactly those tiles → ``anagrams.parquet``.

Columns (sorted by length then alphagram): ``alphagram`` (str), ``length`` (uint8),
``words`` (list<str>, sorted), ``n_words`` (uint32).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import polars as pl

from .common import write_parquet


def build_anagrams(words_file: Path, out: Path) -> int:
    """Pipeline step. Returns the number of buckets."""
    words = pl.read_parquet(words_file, columns=["word", "length", "alphagram"])
    buckets = (
        words.group_by("alphagram", "length")
        .agg(pl.col("word").sort().alias("words"))
        .with_columns(pl.col("words").list.len().cast(pl.UInt32).alias("n_words"))
        .sort("length", "alphagram")
    )
    write_parquet(buckets.to_arrow(), out)
    return buckets.height


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="anagram buckets")
    ap.add_argument("words", type=Path)
    ap.add_argument("out", type=Path)
    a = ap.parse_args(argv)
    print(f"{a.out}: {build_anagrams(a.words, a.out)} buckets")


if __name__ == "__main__":
    main()
