"""Tile distribution of a language → ``tiles.parquet``.

Columns (one row per tile kind, by id, the blank last): ``id`` (uint8), ``tile`` (str,
``#`` for the blank), ``count`` (uint8), ``value`` (uint8).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import pyarrow as pa

from heuri.spec import load_spec

from .common import write_parquet


def build_tiles(spec_file: Path, out: Path) -> int:
    spec = load_spec(spec_file)
    table = pa.table({
        "id": pa.array(range(spec.n_kinds), pa.uint8()),
        "tile": pa.array(list(spec.tiles) + ["#"], pa.string()),
        "count": pa.array(list(spec.counts) + [spec.blank_count], pa.uint8()),
        "value": pa.array(list(spec.values) + [spec.blank_value], pa.uint8()),
    })
    write_parquet(table, out)
    return spec.total_tiles


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="tile distribution")
    ap.add_argument("spec", type=Path)
    ap.add_argument("out", type=Path)
    a = ap.parse_args(argv)
    print(f"{a.out}: {build_tiles(a.spec, a.out)} tiles")


if __name__ == "__main__":
    main()
