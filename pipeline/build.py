"""Build a whole pack in-process, without Snakemake: ``build_pack(spec, outdir)``.

For tests and small hand-made lexicons; the Snakefile runs the same steps as separate
jobs. ``python -m pipeline.build lexicons/xx/spec.toml build/xx``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from .anagrams import build_anagrams
from .keys import build_keys
from .manifest import build_manifest
from .tiles import build_tiles
from .words import build_words

#: Extra steps other modules register: callables (spec_file, outdir) -> None, run in order
#: after the keys and before the manifest (e.g. the move generator's word graph).
EXTRA_STEPS: list = []

from .wordgraph import build_step as _wordgraph_step  # noqa: E402  (heuri.movegen's GADDAG)

EXTRA_STEPS.append(_wordgraph_step)

from .bingo_index import build_step as _bingo_step  # noqa: E402  (heuri.bingo's δ index)

EXTRA_STEPS.append(_bingo_step)

from .long_alphagrams import build_step as _long_step  # noqa: E402  (heuri.movegen's best-N bounds)

EXTRA_STEPS.append(_long_step)

from .tile_power import build_step as _power_step  # noqa: E402  (heuri.evaluate's Heuri5)

EXTRA_STEPS.append(_power_step)


def build_pack(spec_file: Path, outdir: Path, wordlist: Path | None = None) -> dict:
    """Run every pipeline step for one language into ``outdir``; returns the manifest.
    A Hunspell spec (``[wordlist] source = "hunspell"``) is first expanded into
    ``outdir/hunspell/`` (pipeline/hunspell.py). ``wordlist``: a list to read instead of the
    spec's own source (a lexicon file's words, pipeline/import_lexicon.py)."""
    from heuri.spec import load_spec

    spec_file, outdir = Path(spec_file), Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    build_tiles(spec_file, outdir / "tiles.parquet")
    if wordlist is not None:
        wordlist = Path(wordlist)
    elif load_spec(spec_file).wordlist_source == "import":
        from heuri.errors import WordListError

        raise WordListError(f"{spec_file} [wordlist]: source = \"import\": no bundled word list; build a pack "
                            f"from a lexicon file with: heuri lexicon import FILE --lang {load_spec(spec_file).code}")
    elif load_spec(spec_file).wordlist_source == "hunspell":
        from .hunspell import expand

        (outdir / "hunspell").mkdir(exist_ok=True)
        wordlist = outdir / "hunspell" / "words.txt.gz"
        expand(spec_file, wordlist, outdir / "hunspell" / "report.json")
    build_words(spec_file, outdir / "words.parquet", outdir / "rejects.json", wordlist)
    build_anagrams(outdir / "words.parquet", outdir / "anagrams.parquet")
    build_keys(spec_file, outdir / "words.parquet", outdir)
    for step in EXTRA_STEPS:
        step(spec_file, outdir)
    return build_manifest(spec_file, outdir, outdir / "manifest.json", wordlist)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec", type=Path)
    ap.add_argument("outdir", type=Path)
    a = ap.parse_args(argv)
    m = build_pack(a.spec, a.outdir)
    print(f"{a.outdir}: {m['counts']['words']} words, {m['counts']['keyset']} keys")


if __name__ == "__main__":
    main()
