"""Normalise a word list and tokenise it into tiles → ``words.parquet`` + ``rejects.json``.

Rejections are counted with examples, never dropped silently: entries that do not tokenise
into the language's tiles (hyphens, apostrophes, letters outside the set), one-tile entries,
entries longer than the board, and duplicates created by normalising (``à`` and ``a``).

Output columns (sorted by ``word``): ``word`` (str, the normalised spelling), ``tiles``
(list<uint8>, tile ids), ``length`` (uint8, number of tiles), ``alphagram`` (str, tiles
sorted by id, multi-letter tiles in brackets).
"""
from __future__ import annotations

import argparse
import gzip
from pathlib import Path

import pyarrow as pa

from heuri.errors import WordListError
from heuri.spec import LanguageSpec, load_spec

from .common import write_json, write_parquet

N_EXAMPLES = 10


def read_wordlist(path: Path) -> list[str]:
    """Lines of a (gzip-compressed or plain) UTF-8 word list, blank lines skipped.

    Raises WordListError naming the file when it is missing, not UTF-8 (with the line), or
    empty."""
    if not path.is_file():
        raise WordListError(f"{path}: word list not found (each lexicons/<lang>/ needs the file named in spec.toml [wordlist] file)")
    raw = gzip.open(path, "rb").read() if path.suffix == ".gz" else path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise WordListError(f"{path}:{line}: not UTF-8 ({e.reason})") from None
    lines = [ln.strip() for ln in text.splitlines()]
    words = [ln for ln in lines if ln]
    if not words:
        raise WordListError(f"{path}: the word list is empty")
    return words


def normalise_words(spec: LanguageSpec, entries: list[str]) -> tuple[list[str], list[tuple[int, ...]], dict]:
    """Normalise and tokenise entries. Returns (words, tile tuples, rejects) where rejects
    maps a reason to ``{"count": n, "examples": [...]}`` and ``input`` counts entries."""
    reasons = ("untokenisable", "one_tile", "too_long", "duplicate")
    rejects = {r: {"count": 0, "examples": []} for r in reasons}

    def reject(reason: str, entry: str) -> None:
        r = rejects[reason]
        r["count"] += 1
        if len(r["examples"]) < N_EXAMPLES:
            r["examples"].append(entry)

    seen: dict[str, tuple[int, ...]] = {}
    max_len = spec.board_size
    for entry in entries:
        w = spec.normalise(entry)
        tiles = spec.tokenise(w)
        if tiles is None or not w:
            reject("untokenisable", entry)
        elif len(tiles) < 2:
            reject("one_tile", entry)
        elif len(tiles) > max_len:
            reject("too_long", entry)
        elif w in seen:
            reject("duplicate", entry)
        else:
            seen[w] = tiles
    words = sorted(seen)
    return words, [seen[w] for w in words], {"input": len(entries), **rejects}


def _first_examples(rejects: dict) -> list[str]:
    return [e for k, v in rejects.items() if k != "input" for e in v["examples"]][:5]


def build_words(spec_file: Path, out_words: Path, out_rejects: Path, wordlist: Path | None = None) -> int:
    """Pipeline step: spec + word list → words.parquet, rejects.json. Returns words kept.

    ``wordlist``: the list to read (default the spec's ``[wordlist] file``; for a Hunspell
    spec, the list pipeline/hunspell.py expanded). Raises WordListError naming the list and
    the spec's ``[tiles]`` when no entry can be spelled with the tiles."""
    spec = load_spec(spec_file)
    path = wordlist if wordlist is not None else spec.path / spec.wordlist_file
    entries = read_wordlist(path)
    words, tiles, rejects = normalise_words(spec, entries)
    if not words:
        counts = ", ".join(f"{k} {v['count']}" for k, v in rejects.items() if k != "input" and v["count"])
        raise WordListError(f"{path}: no entry can be spelled with the tiles of {spec_file} [tiles] letters "
                            f"({rejects['input']} entries: {counts}; e.g. {_first_examples(rejects)})")
    alphagrams = [spec.format_tiles(sorted(t)) for t in tiles]
    table = pa.table({
        "word": pa.array(words, pa.string()),
        "tiles": pa.array([list(t) for t in tiles], pa.list_(pa.uint8())),
        "length": pa.array([len(t) for t in tiles], pa.uint8()),
        "alphagram": pa.array(alphagrams, pa.string()),
    })
    write_parquet(table, out_words)
    write_json({"kept": len(words), **rejects}, out_rejects)
    return len(words)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="normalise and tokenise a word list")
    ap.add_argument("spec", type=Path)
    ap.add_argument("words", type=Path)
    ap.add_argument("rejects", type=Path)
    ap.add_argument("--wordlist", type=Path, default=None, help="the list to read (default: the spec's [wordlist] file)")
    a = ap.parse_args(argv)
    try:
        n = build_words(a.spec, a.words, a.rejects, a.wordlist)
    except ValueError as e:  # SpecError, WordListError: one line, no traceback
        raise SystemExit(f"error: {e}") from None
    print(f"{a.words}: {n} words")


if __name__ == "__main__":
    main()
