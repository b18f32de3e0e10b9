"""Hunspell dictionary (.dic + .aff) → a word list: the surface forms a Hunspell checker
accepts, for languages whose only published word source is a spelling dictionary.

The affix rules are Hunspell's, applied by Hunspell's own tools (Debian packages
``hunspell-tools`` and ``hunspell``), not by heuri:

1. ``unmunch DIC AFF`` writes every stem with every affix combination its flags allow, one
   form a line. Its output is large (about 3 GB for Catalan: mostly elided forms such as
   ``l'amic``) and it over-generates (it does not apply every rule of the .aff), so it is
   **streamed** through the filters below and never stored.
2. The filters, in this order, each counted with examples in the report (counts are of
   generated lines, so a form unmunch repeats counts each time):

   - ``apostrophe``: forms with ``'`` or ``’`` (elisions: ``l'aigua``, ``d'ell``);
   - ``hyphen``: forms with ``-`` (pronoun clitics ``dona-li``, compounds);
   - ``unparsed_flags``: lines with a ``/`` (a stem whose flags unmunch printed instead of
     applying: ``conxes/_Z|``, Dutch ``alpenkraai/CaCp|``: unmunch misreads some two-letter
     flags). The stem before the ``/`` is still a candidate, put through the filters below
     and ``hunspell -G`` like any form (unmunch prints no other line for it);
   - ``case``: forms that are not all lower case (proper nouns, acronyms, abbreviations:
     ``Barcelona``, ``UNESCO``); a Scrabble word is a common word. A language that
     capitalises common words (German nouns) sets ``[wordlist] case = "title"`` in its
     spec: forms with a capital first letter and the rest lower case are then kept too
     (proper nouns with them: a spelling dictionary does not tell them apart);
   - ``no_vowel``: for a spec that lists its vowels (``[wordlist] vowels = "aeiouy"``),
     forms without any of them: abbreviations and unit symbols written in lower case, which
     the Polish and Dutch dictionaries list unmarked beside common words (``kg``, ``cm``,
     ``np``, ``tj``, ``tv``, ``btw``); a few interjections go with them (``hm``, ``brr``);
   - ``outside_tiles``: forms the spec's tiles cannot spell after its normalising (digits,
     ``.``, letters the tile set lacks: Catalan ``k``, ``w``, a ``y`` not in ``ny``).

3. The distinct forms left are checked by ``hunspell -G`` (print the correct words only)
   with the same dictionary; those it rejects are counted as ``not_accepted`` (unmunch's
   over-generation). What it accepts is the word list, sorted, gzip-compressed (the
   words step then normalises and tokenises it like any list).

The report (``report.json``, copied into the pack's manifest as ``hunspell``) gives the
stems, the generated lines, each rejected kind's count and first examples, the distinct
candidates, ``accepted`` and ``not_accepted``, and the tool versions.

Usage: ``python -m pipeline.hunspell lexicons/ca/spec.toml OUT_WORDS.txt.gz OUT_REPORT.json``.
"""
from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from heuri.errors import WordListError
from heuri.spec import LanguageSpec, load_spec

from .common import sha256_file, write_json

N_EXAMPLES = 10
KINDS = ("apostrophe", "hyphen", "unparsed_flags", "case", "no_vowel", "outside_tiles")
TOOLS = {"unmunch": "hunspell-tools", "hunspell": "hunspell"}
#: Hunspell SET names → Python codecs (the .aff's encoding; UTF-8 when absent is wrong:
#: Hunspell's default is ISO8859-1).
CODECS = {"UTF-8": "utf-8", "ISO8859-1": "latin-1", "ISO8859-15": "iso8859-15", "ISO8859-2": "iso8859-2",
          "KOI8-R": "koi8-r", "KOI8-U": "koi8-u", "CP1251": "cp1251", "ISO8859-7": "iso8859-7",
          "ISO8859-13": "iso8859-13", "ISCII-DEVANAGARI": "iscii"}


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise WordListError(f"{name}: not installed; the hunspell step needs Debian's "
                            f"{TOOLS[name]} (apt-get install -y hunspell hunspell-tools)")
    return path


def _read(path: Path) -> bytes:
    return gzip.open(path, "rb").read() if path.suffix == ".gz" else path.read_bytes()


def encoding_of(aff: bytes, where: str) -> str:
    """The Python codec of an .aff's ``SET`` line (ISO8859-1 when there is none, as in
    Hunspell). Raises WordListError naming ``where`` for an encoding Python lacks."""
    m = re.search(rb"^SET\s+(\S+)", aff, re.M)
    name = m.group(1).decode("ascii", "replace").upper() if m else "ISO8859-1"
    codec = CODECS.get(name)
    if codec is None:
        raise WordListError(f"{where}: SET {name}: an encoding the hunspell step does not know ({sorted(CODECS)})")
    return codec


class _Counter:
    """Rejected kinds: a count and examples of each, spread over the whole stream (the
    1st, 2nd, 3rd, then the 4th, 8th, 16th … rejection, the first two and the latest
    eight kept), so that the examples are not all from the start of the alphabet."""

    def __init__(self, kinds):
        self.d = {k: {"count": 0, "examples": []} for k in kinds}

    def add(self, kind: str, form, codec: str = "utf-8") -> None:
        """Count one rejection; ``form`` is str, or bytes in ``codec`` (decoded only when
        kept as an example: most rejections are never decoded)."""
        r = self.d[kind]
        n = r["count"] = r["count"] + 1
        if n <= 3 or n & (n - 1) == 0:
            ex = r["examples"]
            ex.append(form.decode(codec, "replace") if isinstance(form, bytes) else form)
            if len(ex) > N_EXAMPLES:
                del ex[2]


CASES = ("lower", "title")


def case_rule(spec_file: Path) -> str:
    """The spec's ``[wordlist] case`` (default ``"lower"``); raises WordListError naming
    the file and field for another value."""
    import tomllib

    wl = tomllib.loads(Path(spec_file).read_text(encoding="utf-8")).get("wordlist", {})
    case = wl.get("case", "lower")
    if case not in CASES:
        raise WordListError(f"{spec_file} [wordlist]: field 'case' must be one of {CASES}, got {case!r}")
    return case


def vowels_rule(spec_file: Path) -> str:
    """The spec's ``[wordlist] vowels`` (lower-case letters, accented ones included; default
    ``""``: no ``no_vowel`` filter); raises WordListError naming the file and field for a
    value that is not a string of letters."""
    import tomllib

    wl = tomllib.loads(Path(spec_file).read_text(encoding="utf-8")).get("wordlist", {})
    vowels = wl.get("vowels", "")
    if not isinstance(vowels, str) or not all(c.isalpha() and c == c.lower() for c in vowels):
        raise WordListError(f"{spec_file} [wordlist]: field 'vowels' must be a string of lower-case letters, "
                            f"got {vowels!r}")
    return vowels


def _case_ok(form: str, case: str) -> bool:
    if form == form.lower():
        return True
    return case == "title" and form[:1].isupper() and form[1:] == form[1:].lower()


def candidates(lines, spec: LanguageSpec, rejects: _Counter, codec: str = "utf-8",
               case: str = "lower", vowels: str = "") -> tuple[set[str], int]:
    """Filter generated forms (an iterable of bytes in ``codec``, one form a line):
    returns the distinct forms that pass every filter and the number of lines read.
    Rejections go to ``rejects`` (kinds of :data:`KINDS`); ``case`` is the spec's
    ``[wordlist] case``, ``vowels`` its ``[wordlist] vowels`` (empty: no ``no_vowel``
    filter). The stem of an ``unparsed_flags`` line (``stem/FLAGS``) goes on through
    the filters after it."""
    vowel_set = frozenset(vowels)
    keep: set[str] = set()
    outside: set[str] = set()  # forms already found unspellable: tokenise each form once
    # Most generated lines are elisions: test the bytes before decoding (180 M lines for
    # Catalan). ’ is tested in UTF-8 only (other Hunspell encodings lack it).
    curly = "\u2019".encode(codec) if codec == "utf-8" else b"\0"
    n = 0
    for raw in lines:
        raw = raw.strip()
        if not raw:
            continue
        n += 1
        if b"'" in raw or curly in raw:
            rejects.add("apostrophe", raw, codec)
            continue
        if b"-" in raw:
            rejects.add("hyphen", raw, codec)
            continue
        if b"/" in raw:
            rejects.add("unparsed_flags", raw, codec)
            raw = raw.split(b"/", 1)[0]
            if not raw:
                continue
        form = raw.decode(codec, "replace")
        if not _case_ok(form, case):
            rejects.add("case", form)
        elif form in keep:
            continue
        elif vowel_set and vowel_set.isdisjoint(form.lower()):
            rejects.add("no_vowel", form)
        elif form in outside or spec.tokenise(spec.normalise(form)) is None:
            outside.add(form)
            rejects.add("outside_tiles", form)
        else:
            keep.add(form)
    return keep, n


def expand(spec_file: Path, out_words: Path, out_report: Path) -> dict:
    """Pipeline step: the spec's Hunspell dictionary → ``out_words`` (gzip, one accepted
    form a line, sorted) and ``out_report`` (JSON). Returns the report.

    Raises WordListError (one line, naming the spec file and field) when the .dic or .aff
    is missing, a tool is not installed, the .aff's encoding is unknown, unmunch or
    hunspell fails, or no form survives (the tiles cannot spell any word)."""
    spec = load_spec(spec_file)
    if spec.wordlist_source != "hunspell":
        raise WordListError(f"{spec_file} [wordlist]: field 'source' is {spec.wordlist_source!r}, not 'hunspell'")
    files = spec.source_files()
    for kind in ("dic", "aff"):
        if not files[kind].is_file():
            raise WordListError(f"{spec_file} [wordlist] {kind} = {getattr(spec, 'hunspell_' + kind)!r}: "
                                f"{files[kind]} not found (a Hunspell dictionary is a .dic and its .aff)")
    case = case_rule(spec_file)
    vowels = vowels_rule(spec_file)
    unmunch, hunspell = _tool("unmunch"), _tool("hunspell")
    aff = _read(files["aff"])
    codec = encoding_of(aff, f"{spec_file} [wordlist] aff ({files['aff']})")
    rejects = _Counter(KINDS)
    with tempfile.TemporaryDirectory(prefix="heuri-hunspell-") as tmp:
        # Plain copies under one name: unmunch takes paths, hunspell -d a base name.
        base = Path(tmp) / "dict"
        base.with_suffix(".aff").write_bytes(aff)
        dic = _read(files["dic"])
        # Hunspell reads a .dic line that starts with a tab as a comment; unmunch would
        # print it as a word (dictionary-de has its licence there).
        lines = dic.split(b"\n")
        comments = sum(1 for ln in lines if ln.startswith(b"\t"))
        if comments:
            dic = b"\n".join(ln for ln in lines if not ln.startswith(b"\t"))
        base.with_suffix(".dic").write_bytes(dic)
        stems = dic.split(b"\n", 1)[0].strip()
        env = {**os.environ, "LC_ALL": "C.UTF-8"}
        proc = subprocess.Popen([unmunch, str(base.with_suffix(".dic")), str(base.with_suffix(".aff"))],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        with proc.stdout:
            keep, generated = candidates(proc.stdout, spec, rejects, codec, case, vowels)
        if proc.wait() != 0:
            raise WordListError(f"{spec_file} [wordlist]: unmunch failed on {files['dic']} + {files['aff']} "
                                f"(exit {proc.returncode})")
        cand = Path(tmp) / "candidates.txt"
        cand.write_bytes("".join(f"{w}\n" for w in sorted(keep)).encode(codec, "replace"))
        with open(cand, "rb") as f:
            run = subprocess.run([hunspell, "-d", str(base), "-G", "-i", codec_name(codec)], stdin=f,
                                 capture_output=True, env=env)
        if run.returncode != 0:
            raise WordListError(f"{spec_file} [wordlist]: hunspell -G failed: "
                                f"{run.stderr.decode('utf-8', 'replace').strip()[:200]}")
        accepted = set(run.stdout.decode(codec, "replace").split()) & keep
    not_accepted = sorted(keep - accepted)
    words = sorted(accepted)
    if not words:
        raise WordListError(f"{spec_file} [tiles] letters: no form of {files['dic']} can be spelled with these "
                            f"tiles and is accepted by hunspell ({generated} generated; "
                            f"{_counts(rejects.d)})")
    with gzip.GzipFile(out_words, "wb", mtime=0) as f:  # mtime 0: same input, same bytes
        f.write("".join(f"{w}\n" for w in words).encode("utf-8"))
    report = {
        "dic": {"file": str(files["dic"]), "sha256": sha256_file(files["dic"])},
        "aff": {"file": str(files["aff"]), "sha256": sha256_file(files["aff"])},
        "encoding": codec,
        "case": case,
        "vowels": vowels,
        "stems": int(stems) if stems.isdigit() else None,
        "dic_comment_lines": comments,
        "generated": generated,
        "rejected": rejects.d,
        "candidates": len(keep),
        "not_accepted": {"count": len(not_accepted), "examples": not_accepted[:: max(1, len(not_accepted) // N_EXAMPLES)][:N_EXAMPLES]},
        "accepted": len(words),
        "tools": {"hunspell": _hunspell_version(hunspell), "unmunch": "hunspell-tools (same source)"},
    }
    write_json(report, out_report)
    return report


def _counts(kinds: dict) -> str:
    return ", ".join(f"{k} {v['count']}" for k, v in kinds.items())


def codec_name(codec: str) -> str:
    """Python codec → the encoding name hunspell's ``-i`` takes."""
    return {"utf-8": "UTF-8", "latin-1": "ISO8859-1"}.get(codec, codec.upper())


def _hunspell_version(path: str) -> str:
    out = subprocess.run([path, "-v"], capture_output=True, text=True).stdout
    m = re.search(r"Hunspell (\S+?)\)", out)
    return m.group(1) if m else out.strip()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="expand a Hunspell dictionary into a word list")
    ap.add_argument("spec", type=Path)
    ap.add_argument("words", type=Path)
    ap.add_argument("report", type=Path)
    a = ap.parse_args(argv)
    try:
        r = expand(a.spec, a.words, a.report)
    except ValueError as e:  # SpecError, WordListError: one line, no traceback
        raise SystemExit(f"error: {e}") from None
    print(f"{a.words}: {r['accepted']} forms accepted of {r['generated']} generated "
          f"({_counts(r['rejected'])}, "
          f"not accepted {r['not_accepted']['count']})")


if __name__ == "__main__":
    main()
