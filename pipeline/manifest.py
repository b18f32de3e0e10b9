"""``manifest.json``: every count of a pack, the checksums of its inputs, the versions used.

A pack is *stale* when the spec or word list checksums, or ``pack_format``, differ from
what the runtime sees (``heuri.pack.load_pack`` checks this).
"""
from __future__ import annotations

import argparse
import json
import platform
import shutil
from importlib.metadata import version
from pathlib import Path

import pyarrow.parquet as pq

from heuri.spec import load_spec

from .common import PACK_FORMAT, sha256_file, write_json


def _rel(path: Path) -> str:
    """A path as the manifest records it: relative to the working directory (the
    repository root when Snakemake runs) when it lies inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _long_counts(builddir: Path) -> dict:
    """``long_alphagrams`` (distinct alphagrams of the words of rack_size - 1 tiles or more,
    pipeline/long_alphagrams.py) when that artifact is there."""
    meta = builddir / "long_alphagrams" / "meta.json"
    if not meta.is_file():
        return {}
    return {"long_alphagrams": json.loads(meta.read_text(encoding="utf-8"))["alphagrams"]}


def _power_counts(builddir: Path) -> dict:
    """``tile_power_boards`` and ``tile_power_racks`` (the sample of pipeline/tile_power.py)
    when that artifact is there."""
    meta = builddir / "tile_power.json"
    if not meta.is_file():
        return {}
    m = json.loads(meta.read_text(encoding="utf-8"))
    return {"tile_power_boards": m["boards"], "tile_power_racks": m["racks"]}


def build_manifest(spec_file: Path, builddir: Path, out: Path, wordlist: Path | None = None) -> dict:
    """Pipeline step: counts and checksums → manifest.json; a copy of the spec goes beside
    it (``spec.toml``) so that a pack folder is self-contained.

    ``inputs`` holds the sha256 of the spec, of each committed source (``wordlist``, or
    ``dic`` and ``aff`` for a Hunspell dictionary) and of the word list the words step
    read (``wordlist``: for Hunspell, the expanded list); a Hunspell pack also gets the
    expansion's counts and rejected kinds (``hunspell``, from ``hunspell/report.json``)."""
    spec = load_spec(spec_file)
    shutil.copyfile(spec_file, builddir / "spec.toml")
    if wordlist is None:
        wordlist = builddir / "hunspell" / "words.txt.gz" if spec.wordlist_source == "hunspell" \
            else spec.path / spec.wordlist_file
    inputs = {"spec": {"file": _rel(spec_file), "sha256": sha256_file(spec_file)}}
    for kind, path in spec.source_files().items():
        inputs[kind] = {"file": _rel(path), "sha256": sha256_file(path)}
    inputs["wordlist"] = {"file": _rel(wordlist), "sha256": sha256_file(wordlist)}
    rejects = json.loads((builddir / "rejects.json").read_text(encoding="utf-8"))
    keys = json.loads((builddir / "keys.json").read_text(encoding="utf-8"))
    lengths = pq.read_table(builddir / "words.parquet", columns=["length"]).column("length").to_numpy()
    by_len = {str(n): int((lengths == n).sum()) for n in range(2, spec.board_size + 1) if (lengths == n).any()}
    manifest = {
        "language": spec.code,
        "name": spec.name,
        "lexicon": spec.lexicon,
        "pack_format": PACK_FORMAT,
        "inputs": inputs,
        "counts": {
            "tiles": spec.total_tiles,
            "tile_kinds": spec.n_kinds,
            "words": rejects["kept"],
            "words_by_length": by_len,
            "anagram_buckets": pq.read_metadata(builddir / "anagrams.parquet").num_rows,
            **keys,
            **_long_counts(builddir),
            **_power_counts(builddir),
        },
        "rejected": {k: v for k, v in rejects.items() if k not in ("kept", "input")},
        "wordlist_entries": rejects["input"],
        "versions": {
            "python": platform.python_version(),
            **{p: version(p) for p in ("heuri", "numpy", "polars", "pyarrow", "snakemake")},
        },
    }
    report = builddir / "hunspell" / "report.json"
    if spec.wordlist_source == "hunspell" and report.is_file():
        manifest["hunspell"] = json.loads(report.read_text(encoding="utf-8"))
    write_json(manifest, out)
    return manifest


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="pack manifest")
    ap.add_argument("spec", type=Path)
    ap.add_argument("builddir", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--wordlist", type=Path, default=None, help="the list the words step read")
    a = ap.parse_args(argv)
    m = build_manifest(a.spec, a.builddir, a.out, a.wordlist)
    print(f"{a.out}: {m['counts']['words']} words, {m['counts']['keyset']} keys")


if __name__ == "__main__":
    main()
