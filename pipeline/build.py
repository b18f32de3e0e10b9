"""Build a whole pack in-process, without Snakemake: ``build_pack(spec, outdir)``.

For tests and small hand-made lexicons; the Snakefile runs the same steps as separate
jobs. ``python -m pipeline.build lexicons/xx/spec.toml build/xx``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from heuri.core.pack import PACK_STEPS

from .anagrams import build_anagrams
from .bingo_index import build_bingo_index
from .keys import build_keys
from .long_alphagrams import build_long_alphagrams
from .manifest import build_manifest
from .tile_power import build_tile_power
from .tiles import build_tiles
from .wordgraph import build_graph
from .words import build_words

#: How each step of :data:`heuri.core.pack.PACK_STEPS` runs in process: ``(spec_file,
#: outdir, wordlist)`` → None (the manifest's returns the manifest). The Snakefile runs the
#: same modules as separate jobs.
RUNNERS = {
    "tiles": lambda spec, out, wl: build_tiles(spec, out / "tiles.parquet"),
    "words": lambda spec, out, wl: build_words(spec, out / "words.parquet", out / "rejects.json", wl),
    "anagrams": lambda spec, out, wl: build_anagrams(out / "words.parquet", out / "anagrams.parquet"),
    "keys": lambda spec, out, wl: build_keys(spec, out / "words.parquet", out),
    "wordgraph": lambda spec, out, wl: build_graph(spec, out / "words.parquet", out / "graph"),
    "bingo_index": lambda spec, out, wl: build_bingo_index(spec, out),
    "long_alphagrams": lambda spec, out, wl: build_long_alphagrams(spec, out / "words.parquet",
                                                                   out / "long_alphagrams"),
    "tile_power": lambda spec, out, wl: build_tile_power(spec, out),
    "manifest": lambda spec, out, wl: build_manifest(spec, out, out / "manifest.json", wl),
}
assert list(RUNNERS) == [step.name for step in PACK_STEPS], "pipeline.build.RUNNERS must follow PACK_STEPS"


def build_pack(spec_file: Path, outdir: Path, wordlist: Path | None = None, lexicon: bool = False) -> dict:
    """Run every step of :data:`heuri.core.pack.PACK_STEPS` for one language into ``outdir``;
    returns the manifest. A Hunspell spec (``[wordlist] source = "hunspell"``) is first
    expanded into ``outdir/hunspell/`` (pipeline/hunspell.py). ``wordlist``: a list to read
    instead of the spec's own source; ``lexicon``: that list is a lexicon file's words
    (pipeline/import_lexicon.py), kept whole (:func:`pipeline.words.build_words`).

    Raises WordListError for a spec with no bundled word list (``source = "import"``) and
    no ``wordlist``."""
    from heuri.core.spec import load_spec

    spec_file, outdir = Path(spec_file), Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    source = load_spec(spec_file).wordlist_source
    if wordlist is not None:
        wordlist = Path(wordlist)
    elif source == "import":
        from heuri.core.errors import WordListError

        raise WordListError(f"{spec_file} [wordlist]: source = \"import\": no bundled word list; build a pack "
                            f"from a lexicon file with: heuri lexicon import FILE --lang {load_spec(spec_file).code}")
    elif source == "hunspell":
        from .hunspell import expand

        (outdir / "hunspell").mkdir(exist_ok=True)
        wordlist = outdir / "hunspell" / "words.txt.gz"
        expand(spec_file, wordlist, outdir / "hunspell" / "report.json")
    manifest = None
    for step in PACK_STEPS:
        if step.name == "words" and lexicon:
            # a federation's lexicon is the authority on its words: no open-list filter
            build_words(spec_file, outdir / "words.parquet", outdir / "rejects.json", wordlist, lexicon=True)
            continue
        manifest = RUNNERS[step.name](spec_file, outdir, wordlist)
    return manifest


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec", type=Path)
    ap.add_argument("outdir", type=Path)
    a = ap.parse_args(argv)
    m = build_pack(a.spec, a.outdir)
    print(f"{a.outdir}: {m['counts']['words']} words, {m['counts']['keyset']} keys")


if __name__ == "__main__":
    main()
