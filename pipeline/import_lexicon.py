"""A player's lexicon file (KWG, Quackle DAWG or plain list) → a language pack named after
its lexicon: ``<build>/<lang>-<NAME>/``, beside the default packs.

    python -m pipeline.import_lexicon FRA20.kwg --lang fr [--name FRA20] [--build DIR]
    heuri lexicon import FRA20.kwg --lang fr                 (the same, from the CLI)

The file is read first (pipeline/lexicon_file.py: a truncated or corrupt file is an error
naming the file and the byte offset, and nothing is built); its words are written to
``source/words.txt.gz`` in the pack and built by the same steps as every pack
(pipeline/build.py, with the language's spec), every word the file spells kept: the
spec's filters for open lists (``short_without_vowel``) do not apply to a lexicon. The pack
is built in a hidden folder and moved into place only when complete.

The manifest records the lexicon: ``lexicon`` (its name) and ``lexicon_file`` (the name,
format, the file's path, size and SHA-256, the entries read, the count a DAWG header
declares, and the words refused before the words step, by kind with examples); the words
step's refusals are under ``rejected`` as in every pack.

A lexicon name is one pack: importing a file under a name that a built pack already has is
refused when the file differs (nothing is overwritten), and does nothing when it is the same
file (same SHA-256) for the same language.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

from heuri.core.pack import dropped_lexicon_words
from heuri.errors import PackError, WordListError
from heuri.spec import load_spec, spec_path

from .common import sha256_file, write_json

NAME_RX = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.]{0,39}")


def default_name(path: Path) -> str:
    """The lexicon name a file gives by default: its name without the format's suffixes
    (``FRA20.kwg`` → ``FRA20``, ``CSW21.txt.gz`` → ``CSW21``)."""
    name = Path(path).name
    for suffix in (".gz", ".kwg", ".dawg", ".txt", ".text", ".lst"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


def pack_dir_name(lang: str, name: str) -> str:
    """The folder of an imported pack under the build root: ``<lang>-<NAME>``."""
    return f"{lang}-{name}"


def imported_packs(build: Path) -> list[tuple[Path, dict]]:
    """``(folder, manifest)`` of every pack under ``build`` built from a lexicon file."""
    out = []
    for m in sorted(Path(build).glob("*/manifest.json")) if Path(build).is_dir() else []:
        if m.parent.name.startswith("."):  # another import under way
            continue
        try:
            manifest = json.loads(m.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if "lexicon_file" in manifest:
            out.append((m.parent, manifest))
    return out


def import_lexicon(source: Path, lang: str, name: str | None = None, fmt: str | None = None,
                   build: Path | None = None, log=None) -> tuple[Path, dict, bool]:
    """Build the pack of the lexicon file ``source`` for the language ``lang`` (a code of
    lexicons/, or a spec folder or ``.toml``). Returns ``(pack folder, manifest, built)``;
    ``built`` is False when the same file was already imported under ``name``.

    Raises WordListError for a bad file or name (naming the file, and the byte offset or line)
    and PackError when ``name`` is taken by a pack of another file or language, or its folder
    exists without being that pack; nothing is written then."""
    from heuri.pack import build_root

    source = Path(source)
    build = Path(build) if build is not None else build_root()
    name = name or default_name(source)
    if not NAME_RX.fullmatch(name):
        raise WordListError(f"{source}: lexicon name {name!r}: use 1-40 letters, digits, '_' or '.', "
                            f"starting with a letter or digit (--name)")
    if not source.is_file():
        raise WordListError(f"{source}: no such lexicon file")
    spec_file = spec_path(lang)
    spec = load_spec(spec_file)
    sha = sha256_file(source)
    target = build / pack_dir_name(spec.code, name)
    for folder, m in imported_packs(build):
        if m.get("lexicon", "").casefold() != name.casefold():
            continue
        same = m["lexicon_file"].get("sha256") == sha and m.get("language") == spec.code
        if same and folder.resolve() == target.resolve():
            if not dropped_lexicon_words(m):
                return folder, m, False
            stale = folder  # built before lexicons were kept whole: built again, then replaced
            break
        raise PackError(f"lexicon {name}: already built at {folder} from {m['lexicon_file'].get('file')} "
                        f"(sha256 {m['lexicon_file'].get('sha256', '')[:12]}, language {m.get('language')}); "
                        f"this file (sha256 {sha[:12]}, language {spec.code}) is another: give it another --name, "
                        f"or delete {folder} first")
    else:
        stale = None
    # (Snakemake makes the target folder, empty, before the rule runs)
    if stale is None and target.exists() and not (target.is_dir() and not any(target.iterdir())):
        raise PackError(f"{target}: exists but is not the pack of lexicon {name} (no manifest with that "
                        f"lexicon); move it away or delete it first")
    say = log or (lambda msg: None)
    t0 = time.perf_counter()
    from .lexicon_file import read_lexicon

    entries, info = read_lexicon(source, spec, fmt)
    say(f"{source}: {info['entries']:,} entries read ({info['format']}, {time.perf_counter() - t0:.1f} s)")
    if not entries:
        raise WordListError(f"{source}: no word of this {info['format']} file can be spelled with the tiles of "
                            f"{spec_file} ({json.dumps(info['refused'], ensure_ascii=False)})")
    build.mkdir(parents=True, exist_ok=True)
    tmp = build / f".{target.name}.importing-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        import gzip

        from .build import build_pack

        (tmp / "source").mkdir(parents=True)
        wordlist = tmp / "source" / "words.txt.gz"
        with gzip.open(wordlist, "wt", encoding="utf-8", compresslevel=6) as f:
            f.write("\n".join(entries) + "\n")
        manifest = build_pack(spec_file, tmp, wordlist=wordlist, lexicon=True)
        manifest["lexicon"] = name
        manifest["lexicon_file"] = {
            "name": name, "format": info["format"], "file": str(source.resolve()), "bytes": source.stat().st_size,
            "sha256": sha, "entries": info["entries"], "declared": info["declared"], "refused": info["refused"],
        }
        # The language's own word sources were not read: the lexicon file's words were.
        manifest["inputs"] = {"spec": manifest["inputs"]["spec"],
                              "wordlist": {"file": "source/words.txt.gz", "sha256": sha256_file(wordlist)}}
        write_json(manifest, tmp / "manifest.json")
        old = None
        if stale is not None:  # the same file's pack, built with words left out: set aside, then removed
            old = build / f".{target.name}.replaced-{os.getpid()}"
            os.rename(stale, old)
        elif target.is_dir():
            target.rmdir()  # empty (checked above)
        os.rename(tmp, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    say(f"{target}: {manifest['counts']['words']:,} words ({time.perf_counter() - t0:.1f} s)")
    return target, manifest, True


def refusal_summary(manifest: dict) -> str:
    """One line: the entries refused, by kind (import and words step), or ``""``."""
    parts = []
    for kind, r in {**manifest["lexicon_file"]["refused"], **manifest.get("rejected", {})}.items():
        if r["count"]:
            parts.append(f"{kind} {r['count']:,} (e.g. {', '.join(r['examples'][:3])})")
    return "; ".join(parts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="build a language pack from a lexicon file (KWG, Quackle DAWG, "
                                             "or a plain list)")
    ap.add_argument("file", type=Path)
    ap.add_argument("--lang", required=True, help="the language spec (lexicons/<lang>/)")
    ap.add_argument("--name", help="the lexicon's name (default: the file name without its suffix)")
    ap.add_argument("--format", choices=("kwg", "dawg", "text"), help="default: from the file name")
    ap.add_argument("--build", type=Path, help="the folder of packs (default: $HEURI_BUILD, else <repo>/build)")
    a = ap.parse_args(argv)
    try:
        target, m, built = import_lexicon(a.file, a.lang, a.name, a.format, a.build,
                                          log=lambda s: print(s, file=sys.stderr))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{target}: lexicon {m['lexicon']}, {m['counts']['words']:,} words"
          + ("" if built else " (already built from this file)"))
    refused = refusal_summary(m)
    if refused:
        print(f"refused: {refused}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
