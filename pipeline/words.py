"""Normalise a word list and tokenise it into tiles → ``words.parquet`` + ``rejects.json``.

Rejections are counted with examples, never dropped silently: entries that do not tokenise
into the language's tiles (hyphens, apostrophes, letters outside the set), one-tile entries,
entries longer than the board, duplicates created by normalising (``à`` and ``a``), and,
for a spec with ``[wordlist] short_without_vowel = { max_tiles = N, vowels = "AEIOUY" }``,
entries of at most N tiles with none of those letters (``short_without_vowel``: the unit
symbols and abbreviations a general-purpose list holds, French ``KG``, ``CM``, ``PH``).

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


def short_without_vowel_rule(spec_file: Path) -> tuple[int, str]:
    """The spec's ``[wordlist] short_without_vowel`` as ``(max_tiles, vowels)`` (upper-case
    letters); ``(0, "")`` when absent. Raises WordListError naming the file and the field
    for a value of the wrong shape."""
    import tomllib

    wl = tomllib.loads(Path(spec_file).read_text(encoding="utf-8")).get("wordlist", {})
    rule = wl.get("short_without_vowel")
    if rule is None:
        return 0, ""
    n, vowels = (rule.get("max_tiles"), rule.get("vowels")) if isinstance(rule, dict) else (None, None)
    if (not isinstance(n, int) or isinstance(n, bool) or n < 2 or not isinstance(vowels, str) or not vowels
            or not all(c.isalpha() and c == c.upper() for c in vowels)):
        raise WordListError(f"{spec_file} [wordlist]: field 'short_without_vowel' must be "
                            f"{{ max_tiles = N (2 or more), vowels = \"AEIOU...\" (upper-case letters) }}, "
                            f"got {rule!r}")
    return n, vowels


def normalise_words(spec: LanguageSpec, entries: list[str], short_without_vowel: tuple[int, str] = (0, "")
                    ) -> tuple[list[str], list[tuple[int, ...]], dict]:
    """Normalise and tokenise entries. Returns (words, tile tuples, rejects) where rejects
    maps a reason to ``{"count": n, "examples": [...]}`` and ``input`` counts entries.
    ``short_without_vowel``: ``(max_tiles, vowels)``, entries of at most ``max_tiles``
    tiles without any of ``vowels`` are rejected (:func:`short_without_vowel_rule`)."""
    reasons = ("untokenisable", "one_tile", "too_long", "duplicate", "short_without_vowel")
    max_short, vowels = short_without_vowel
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
        elif len(tiles) <= max_short and not any(ch in vowels for ch in w):
            reject("short_without_vowel", entry)
        elif w in seen:
            reject("duplicate", entry)
        else:
            seen[w] = tiles
    words = sorted(seen)
    return words, [seen[w] for w in words], {"input": len(entries), **rejects}


def _first_examples(rejects: dict) -> list[str]:
    return [e for k, v in rejects.items() if k != "input" for e in v["examples"]][:5]


def build_words(spec_file: Path, out_words: Path, out_rejects: Path, wordlist: Path | None = None,
                lexicon: bool = False) -> int:
    """Pipeline step: spec + word list → words.parquet, rejects.json. Returns words kept.

    ``wordlist``: the list to read (default the spec's ``[wordlist] file``; for a Hunspell
    spec, the list pipeline/hunspell.py expanded). ``lexicon``: the list is a lexicon's
    (a federation's file, pipeline/import_lexicon.py): every word it spells is kept, and the
    spec's filters for open lists (``short_without_vowel``) do not apply. Raises
    WordListError naming the list and the spec's ``[tiles]`` when no entry can be spelled
    with the tiles."""
    spec = load_spec(spec_file)
    path = wordlist if wordlist is not None else spec.path / spec.wordlist_file
    entries = read_wordlist(path)
    rule = (0, "") if lexicon else short_without_vowel_rule(spec_file)
    words, tiles, rejects = normalise_words(spec, entries, rule)
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
