"""Turn an npm word-list tarball into ``lexicons/<lang>/words.txt.gz`` (maintainer tool).

Not part of the build: the committed ``words.txt.gz`` is the pipeline's input. Run it
when a word list is upgraded, then record the new version in ``SOURCE.md``::

    npm pack an-array-of-spanish-words@2.0.0
    python -m pipeline.fetch_wordlist an-array-of-spanish-words-2.0.0.tgz lexicons/es/words.txt.gz

The output is one entry per line, in the package's order, Unicode NFC and upper case;
nothing is dropped here (the pipeline's normalise step rejects and counts entries).
"""
from __future__ import annotations

import argparse
import gzip
import json
import tarfile
import unicodedata
from pathlib import Path


def read_entries(tarball: Path) -> list[str]:
    """Entries of an npm word-list tarball: ``package/index.json`` (a JSON array of
    strings) or the first ``package/*.txt`` (one word per line).

    Raises ValueError if the tarball holds neither."""
    with tarfile.open(tarball) as tf:
        names = tf.getnames()
        if "package/index.json" in names:
            data = json.load(tf.extractfile("package/index.json"))
            return [str(x) for x in data]
        txt = sorted(n for n in names if n.startswith("package/") and n.endswith(".txt"))
        if txt:
            return tf.extractfile(txt[0]).read().decode("utf-8").split()
    raise ValueError(f"{tarball}: no package/index.json or package/*.txt word list inside")


def write_wordlist(entries: list[str], out: Path) -> int:
    """Write entries (NFC, upper case, one a line) gzip-compressed with a fixed mtime, so
    the same input gives the same bytes. Returns the number of lines written."""
    lines = [unicodedata.normalize("NFC", e.strip()).upper() for e in entries if e.strip()]
    with open(out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        gz.write(("\n".join(lines) + "\n").encode("utf-8"))
    return len(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tarball", type=Path)
    ap.add_argument("out", type=Path)
    args = ap.parse_args(argv)
    if args.out.exists():
        raise SystemExit(f"{args.out} exists: remove it first (nothing is overwritten)")
    n = write_wordlist(read_entries(args.tarball), args.out)
    print(f"{args.out}: {n} entries")


if __name__ == "__main__":
    main()
