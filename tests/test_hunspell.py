"""The hunspell word-list source (pipeline/hunspell.py): a hand-made dictionary expands to
exactly the forms listed by hand, bad inputs give one-line errors naming the file and the
field, and a language added only as a folder plays a match whose records replay without
--lang."""
from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest

from heuri.errors import WordListError
from pipeline.hunspell import expand

DATA = Path(__file__).parent / "data"
TINY = DATA / "hunspell_tiny"

# tiny.dic's 30 stems through tiny.aff's rules, by hand: S adds -s (-os after s), F adds -a
# after a consonant, D prefixes d' before a vowel; gata is FORBIDDENWORD.
ACCEPTED = sorted("""gat gats any anys ull ulls col·legi col·legis braç braçs sal sals sol sols
gel gels nen nens nena tot tots tota gos gosos aquell aquells aquella nit nits set sets que qui
il·lusió cel cels dit dits tal ell ells ella tinc a o""".split())


def test_tiny_dictionary_expands_to_the_hand_list(tmp_path):
    report = expand(TINY / "spec.toml", tmp_path / "w.txt.gz", tmp_path / "r.json")
    got = gzip.open(tmp_path / "w.txt.gz", "rt", encoding="utf-8").read().split("\n")
    assert got[:-1] == ACCEPTED and got[-1] == ""
    r = report["rejected"]
    assert r["apostrophe"] == {"count": 2, "examples": ["d'ulls", "d'ull"]}
    assert r["hyphen"] == {"count": 1, "examples": ["fes-ho"]}
    assert r["unparsed_flags"] == {"count": 0, "examples": []}
    assert r["case"] == {"count": 2, "examples": ["Joan", "Gal·les"]}
    # no W, K or Y tile (Y only inside NY); digits are never tiles
    assert r["outside_tiles"] == {"count": 3, "examples": ["whisky", "whiskys", "10è"]}
    # gata comes from gat/F and from the forbidden stem gata/X: hunspell -G refuses it
    assert report["not_accepted"] == {"count": 1, "examples": ["gata"]}
    # 30 stems → 55 generated lines (gata twice); 46 distinct candidates
    assert (report["stems"], report["generated"], report["candidates"], report["accepted"]) == (30, 55, 46, 45)
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8")) == report


def test_pack_from_hunspell_counts(tiny_hunspell_pack):
    m = tiny_hunspell_pack.manifest
    assert m["counts"]["words"] == 43  # the 45 accepted forms but a and o (one tile)
    assert m["rejected"]["one_tile"] == {"count": 2, "examples": ["a", "o"]}
    assert m["hunspell"]["not_accepted"]["count"] == 1
    assert set(m["inputs"]) == {"spec", "dic", "aff", "wordlist"}
    assert "COL·LEGIS" in tiny_hunspell_pack.words and "ANYS" in tiny_hunspell_pack.words


def _copy_spec(tmp_path, edit=lambda s: s, files=("tiny.dic", "tiny.aff")) -> Path:
    d = tmp_path / "hunspell_tiny"
    d.mkdir()
    for f in files:
        shutil.copy(TINY / f, d / f)
    (d / "spec.toml").write_text(edit((TINY / "spec.toml").read_text(encoding="utf-8")), encoding="utf-8")
    return d / "spec.toml"


def test_missing_affix_file(tmp_path):
    spec = _copy_spec(tmp_path, files=("tiny.dic",))
    with pytest.raises(WordListError) as e:
        expand(spec, tmp_path / "w.txt.gz", tmp_path / "r.json")
    msg = str(e.value)
    assert msg.startswith(f"{spec} [wordlist] aff = 'tiny.aff': ") and "not found" in msg and "\n" not in msg
    assert not (tmp_path / "w.txt.gz").exists()


def test_tiles_that_spell_no_word(tmp_path):
    # a tile set of X, Z and W only
    def edit(s):
        head, rest = s.split("letters = [", 1)
        rest = rest.split("]\n", 1)[1]
        return (head.replace("total = 72", "total = 5") + 'letters = [\n  { tile = "X", count = 1, value = 1 },\n'
                '  { tile = "Z", count = 1, value = 1 },\n  { tile = "W", count = 1, value = 1 },\n]\n' + rest)
    spec = _copy_spec(tmp_path, edit)
    with pytest.raises(WordListError) as e:
        expand(spec, tmp_path / "w.txt.gz", tmp_path / "r.json")
    msg = str(e.value)
    assert msg.startswith(f"{spec} [tiles] letters: no form of ") and "outside_tiles 50" in msg and "\n" not in msg


def test_pipeline_step_error_is_one_line(tmp_path):
    import subprocess
    import sys

    spec = _copy_spec(tmp_path, files=("tiny.dic",))
    run = subprocess.run([sys.executable, "-m", "pipeline.hunspell", str(spec), str(tmp_path / "w.gz"),
                          str(tmp_path / "r.json")], capture_output=True, text=True,
                         cwd=Path(__file__).parents[1])
    assert run.returncode == 1
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("error: ") and "aff" in run.stderr


def test_folder_language_match_replays_without_lang(tmp_path, monkeypatch, capsys):
    """A language that exists only as lexicons/<code>/ and build/<code>/ of some checkout:
    heuri --build finds its pack, a match writes records, and heuri replay recognises the
    language from the records' #lexicon through the pack's spec."""
    from heuri.cli import main
    from pipeline.build import build_pack

    lex = tmp_path / "lexicons"
    lex.mkdir()
    spec = _copy_spec(lex)
    build = tmp_path / "build"
    build_pack(spec, build / "hunspell_tiny")
    # --build sets HEURI_BUILD for the process: let monkeypatch restore it afterwards
    monkeypatch.setenv("HEURI_BUILD", str(tmp_path / "elsewhere"))
    out = tmp_path / "match"
    assert main(["--build", str(build), "match", "--lang", "hunspell_tiny", "--p1", "heuri3", "--p2", "greedy",
                 "--games", "4", "--jobs", "1", "--out", str(out), "--quiet"]) == 0
    records = sorted((out / "games").glob("*.gcg"))
    assert len(records) == 4
    texts = [r.read_text(encoding="utf-8") for r in records]
    assert all("#lexicon tiny_hunspell_1" in t for t in texts)
    assert any(re.search(r"\[(L·L|NY|QU|l·l|ny|qu)\]", t) for t in texts)
    capsys.readouterr()
    for r in records:
        assert main(["--build", str(build), "replay", str(r)]) == 0, capsys.readouterr()
    assert len(re.findall(r"game\s+complete,\s+0\s+mismatches", capsys.readouterr().out)) == 4




def test_filters_on_generated_lines():
    """Each filter on lines as unmunch writes them (bytes), in the documented order."""
    from heuri.spec import load_spec
    from pipeline.hunspell import KINDS, _Counter, candidates

    spec = load_spec(TINY / "spec.toml")
    lines = [b"gat\n", "l\u2019aigua\n".encode(), b"fes-ho/_Z|\n", b"conxes/_Z|\n", b"Joan\n", b"UNESCO\n",
             b"kiwi\n", b"gat\n", b"\n", "braç\n".encode(), b"sols/S|\n"]
    rej = _Counter(KINDS)
    keep, n = candidates(lines, spec, rej)
    # the stem of an unparsed_flags line goes on through the filters (hunspell -G decides on
    # it): sols is kept, conxes has no X tile here
    assert keep == {"gat", "braç", "sols"} and n == 10
    assert {k: v["examples"] for k, v in rej.d.items()} == {
        "apostrophe": ["l\u2019aigua"], "hyphen": ["fes-ho/_Z|"], "unparsed_flags": ["conxes/_Z|", "sols/S|"],
        "case": ["Joan", "UNESCO"], "no_vowel": [], "outside_tiles": ["conxes", "kiwi"]}
    rej = _Counter(KINDS)
    keep, _ = candidates([b"Gats\n", b"UNESCO\n", b"gat\n"], spec, rej, case="title")
    assert keep == {"Gats", "gat"} and rej.d["case"]["examples"] == ["UNESCO"]


def test_no_vowel_filter_drops_abbreviations():
    """With ``[wordlist] vowels``, a form without any of them is an abbreviation or symbol
    (kg, tv, btw): left out as ``no_vowel``; the stem of a flags line too. Accented and
    ligature vowels count (Dutch ĳ)."""
    from heuri.spec import load_spec
    from pipeline.hunspell import KINDS, _Counter, candidates

    spec = load_spec(Path(__file__).parents[1] / "lexicons" / "nl" / "spec.toml")
    lines = [b"kg\n", b"tv/KcZc|\n", b"btw\n", "bĳ\n".encode(), "één\n".encode(), b"dag\n", b"hm\n"]
    rej = _Counter(KINDS)
    keep, n = candidates(lines, spec, rej, vowels="aeiouyéĳ")
    assert keep == {"bĳ", "één", "dag"} and n == 7
    assert rej.d["no_vowel"] == {"count": 4, "examples": ["kg", "tv", "btw", "hm"]}
    rej = _Counter(KINDS)
    keep, _ = candidates(lines, spec, rej)  # no vowels listed: no such filter
    assert keep == {"kg", "tv", "btw", "bĳ", "één", "dag", "hm"} and rej.d["no_vowel"]["count"] == 0


def test_vowels_field_must_be_lower_case_letters(tmp_path):
    from pipeline.hunspell import vowels_rule

    f = tmp_path / "spec.toml"
    f.write_text('[wordlist]\nvowels = "aeiou"\n', encoding="utf-8")
    assert vowels_rule(f) == "aeiou"
    f.write_text('[wordlist]\nvowels = "AE1"\n', encoding="utf-8")
    with pytest.raises(WordListError, match=r"spec\.toml \[wordlist\]: field 'vowels' must be a string of lower-case "
                                            r"letters, got 'AE1'"):
        vowels_rule(f)
