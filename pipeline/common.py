"""Helpers shared by the pipeline steps: hashing inputs, writing Parquet deterministically."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

# The format the manifest records: the runtime's (heuri.core.pack, the one place it is set).
from heuri.core.pack import PACK_FORMAT  # noqa: E402,F401


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_parquet(table: pa.Table, path: Path) -> None:
    """Write a table with fixed settings (zstd, no timestamps) so that the same input gives
    the same file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd", write_statistics=True)


def write_json(obj, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False, sort_keys=False) + "\n", encoding="utf-8")
