"""Lexicon files a player has (KWG, Quackle DAWG, plain list) → packs named after their
lexicon: the readers on small files written here by independent encoders, bad files, the
import's manifest and refusals, selection by lexicon name, and (when the files are on this
machine) the federation KWGs of MAGPIE-DATA against an independent decoder."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from heuri.errors import PackError, WordListError
from heuri.spec import load_spec
from pipeline.dawg import read_dawg
from pipeline.import_lexicon import import_lexicon
from pipeline.kwg import read_kwg
from pipeline.lexicon_file import read_lexicon

DATA = Path(__file__).parent / "data"
TINY = DATA / "tiny" / "spec.toml"
# The tiny language's words (tests/data/tiny/words.txt without its rejects), as tile numbers
# of a KWG: A = 1, B = 2, E = 3, T = 4 (the spec's letter order).
TINY_WORDS = ["AT", "BE", "EAT", "TEA", "TEE", "BAT", "TAB", "ABET", "BEAT", "BETA"]
NUM = {"A": 1, "B": 2, "E": 3, "T": 4}


# -- independent encoders: a trie, each sibling list contiguous ---------------------------
def _trie(words):
    root: dict = {}
    for w in words:
        node = root
        for x in w:
            node = node.setdefault(x, {})
        node[None] = True  # a word ends here
    return root


def encode_kwg(words) -> bytes:
    """A KWG (wolges' layout) of ``words`` (tuples of tile numbers): node 0 and node 1 point to
    the root list (the GADDAG part is not read by heuri, so the DAWG stands in for it)."""
    nodes = [0, 0]
    lists = []  # (trie node, index of its list)

    def place(children):
        start = len(nodes)
        keys = sorted(k for k in children if k is not None)
        nodes.extend([0] * len(keys))
        lists.append((children, start, keys))
        return start

    root = place(_trie(words))
    nodes[0] = nodes[1] = root
    i = 0
    while i < len(lists):
        children, start, keys = lists[i]
        for j, k in enumerate(keys):
            child = children[k]
            has_kids = any(c is not None for c in child)
            arc = place(child) if has_kids else 0
            nodes[start + j] = (k << 24) | (0x800000 if None in child else 0) | \
                (0x400000 if j == len(keys) - 1 else 0) | arc
        i += 1
    return np.array(nodes, dtype="<u4").tobytes()


def encode_dawg(words, letters) -> bytes:
    """A Quackle DAWG (version 1) of ``words`` (tuples of letter indices into ``letters``)."""
    nodes = [[0, 0, 0]]  # child, flags byte, playability
    lists = []

    def place(children):
        start = len(nodes)
        keys = sorted(k for k in children if k is not None)
        nodes.extend([[0, 0, 0] for _ in keys])
        lists.append((children, start, keys))
        return start

    nodes[0] = [place(_trie(words)), 64, 0]
    i = 0
    while i < len(lists):
        children, start, keys = lists[i]
        for j, k in enumerate(keys):
            child = children[k]
            arc = place(child) if any(c is not None for c in child) else 0
            nodes[start + j] = [arc, k | (64 if j == len(keys) - 1 else 0), 1 if None in child else 0]
        i += 1
    head = bytes([1]) + bytes(16) + len(set(words)).to_bytes(3, "big") + bytes([len(letters)])
    head += "".join(f"{t} " for t in letters).encode("utf-8")
    body = b"".join(c.to_bytes(3, "big") + bytes([f]) + p.to_bytes(3, "big") for c, f, p in nodes)
    return head + body


def decode_kwg_independently(raw: bytes) -> list[tuple[int, ...]]:
    """The DAWG words of a KWG, read recursively from the bytes (not pipeline.kwg)."""
    a = np.frombuffer(raw, dtype="<u4")
    out = []

    def walk(i, prefix):
        while True:
            v = int(a[i])
            w = prefix + (v >> 24,)
            if v & 0x800000:
                out.append(w)
            if v & 0x3FFFFF:
                walk(v & 0x3FFFFF, w)
            if v & 0x400000:
                return
            i += 1

    import sys

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    walk(int(a[0]) & 0x3FFFFF, ())
    return out


def sha_of(words) -> str:
    return hashlib.sha256("\n".join(sorted(words)).encode("utf-8")).hexdigest()


def tiny_numbers(words):
    return [tuple(NUM[c] for c in w) for w in words]


# -- readers -----------------------------------------------------------------------------
def test_kwg_reader_reads_every_word_once(tmp_path):
    f = tmp_path / "t.kwg"
    f.write_bytes(encode_kwg(tiny_numbers(TINY_WORDS)))
    got = read_kwg(f)
    assert sorted(got) == sorted(tiny_numbers(TINY_WORDS))
    assert len(got) == 10
    assert decode_kwg_independently(f.read_bytes()) == got


def test_dawg_reader_reads_header_and_words(tmp_path):
    f = tmp_path / "t.dawg"
    letters = ["A", "B", "E", "T"]
    words = [tuple(n - 1 for n in w) for w in tiny_numbers(TINY_WORDS)]
    f.write_bytes(encode_dawg(words, letters))
    got_letters, got, declared = read_dawg(f)
    assert got_letters == letters and declared == 10
    assert sorted(got) == sorted(words)


def test_truncated_kwg_names_file_and_offset(tmp_path):
    f = tmp_path / "cut.kwg"
    raw = encode_kwg(tiny_numbers(TINY_WORDS))
    f.write_bytes(raw[:-2])
    with pytest.raises(WordListError, match=rf"cut\.kwg: truncated KWG: {len(raw) - 2} bytes .* byte offset {len(raw) - 4}"):
        read_kwg(f)


def test_kwg_arc_past_the_end_names_the_node(tmp_path):
    a = np.frombuffer(encode_kwg(tiny_numbers(["AT"])), dtype="<u4").copy()
    # nodes: 0, 1 (roots), 2 = A (children at 3), 3 = T (accepts, end)
    assert list(a >> 24) == [0, 0, 1, 4]
    a[2] = (a[2] & ~np.uint32(0x3FFFFF)) | np.uint32(99)
    f = tmp_path / "bad.kwg"
    f.write_bytes(a.tobytes())
    with pytest.raises(WordListError, match=r"bad\.kwg: corrupt KWG: node 2 \(byte offset 8\) points to node 99, past the last node 3"):
        read_kwg(f)


def test_kwg_sibling_list_without_end_is_truncation(tmp_path):
    a = np.frombuffer(encode_kwg(tiny_numbers(["AT"])), dtype="<u4").copy()
    a[3] &= ~np.uint32(0x400000)  # T no longer ends its list: the list runs off the file
    f = tmp_path / "open.kwg"
    f.write_bytes(a.tobytes())
    with pytest.raises(WordListError, match=r"open\.kwg: truncated KWG: node 3 \(byte offset 12\)"):
        read_kwg(f)


def test_truncated_and_foreign_dawg(tmp_path):
    raw = encode_dawg([(0, 3)], ["A", "B", "E", "T"])
    f = tmp_path / "cut.dawg"
    f.write_bytes(raw[:-3])
    header = 21 + len("A B E T ")
    # 3 nodes of 7 bytes after the header; cut 3 bytes: the last whole node ends at header + 14
    with pytest.raises(WordListError, match=rf"cut\.dawg: truncated Quackle DAWG: .* byte offset {header} .*byte offset {header + 14}"):
        read_dawg(f)
    f.write_bytes(b"\0" * 70)
    with pytest.raises(WordListError, match=r"cut\.dawg: Quackle DAWG version 0 at byte offset 0"):
        read_dawg(f)


def test_plain_list_brackets_and_respelled_words(tmp_path):
    es = load_spec("es")
    lst = tmp_path / "es.txt"
    lst.write_text("chico\n[CH]ICO\n[C][H]ICO\nco[ñ]o\nc[Q]\n", encoding="utf-8")
    entries, info = read_lexicon(lst, es)
    # CHICO as written, [CH] as one tile, ÑO through brackets; [C][H] would be read back as CH
    assert entries == ["chico", "CHICO", "COÑO", "CQ"]
    assert info["refused"]["respelled"] == {"count": 1, "examples": ["[C][H]ICO"]}
    assert info["format"] == "text" and info["entries"] == 5


def test_kwg_respelled_and_outside_tiles_refused(tmp_path):
    es = load_spec("es")
    c, h, i, o = (es.tiles.index(x) + 1 for x in "CHIO")
    ch = es.tiles.index("CH") + 1
    f = tmp_path / "es.kwg"
    # CH-I-CO with the CH tile; C-H-I-C-O with two tiles (Spanish reads CH); a tile number 29
    f.write_bytes(encode_kwg([(ch, i, c, o), (c, h, i, c, o), (o, 29)]))
    entries, info = read_lexicon(f, es)
    assert entries == ["CHICO"]
    assert info["refused"]["respelled"] == {"count": 1, "examples": ["CHICO"]}
    assert info["refused"]["outside_tiles"] == {"count": 1, "examples": ["O<29>"]}


# -- import: the pack, its manifest, a taken name -------------------------------------------
@pytest.fixture()
def tiny_kwg_pack(tmp_path, monkeypatch):
    build = tmp_path / "build"
    monkeypatch.setenv("HEURI_BUILD", str(build))
    monkeypatch.delenv("HEURI_LEXICON", raising=False)
    f = tmp_path / "TINY1.kwg"
    f.write_bytes(encode_kwg(tiny_numbers(TINY_WORDS) + [(1, 5)]))  # AB<5>: no tile 5
    target, manifest, built = import_lexicon(f, str(TINY), build=build)
    return f, target, manifest, built, build


def test_import_builds_named_pack_with_the_files_words(tiny_kwg_pack):
    f, target, m, built, build = tiny_kwg_pack
    assert built and target == build / "tiny-TINY1"
    assert m["lexicon"] == "TINY1" and m["language"] == "tiny"
    assert m["lexicon_file"]["sha256"] == hashlib.sha256(f.read_bytes()).hexdigest()
    assert m["lexicon_file"]["format"] == "kwg" and m["lexicon_file"]["entries"] == 11
    assert m["lexicon_file"]["refused"]["outside_tiles"] == {"count": 1, "examples": ["A<5>"]}
    assert m["counts"]["words"] == 10
    on_disk = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    assert on_disk["lexicon_file"] == m["lexicon_file"]
    words = pq.read_table(target / "words.parquet").column("word").to_pylist()
    independent = ["".join("ABET"[x - 1] for x in w) for w in decode_kwg_independently(f.read_bytes()) if 5 not in w]
    assert sha_of(words) == sha_of(independent) and len(words) == 10
    assert not [p for p in build.iterdir() if p.name.startswith(".")]  # no temporary folder left


def test_second_lexicon_with_the_same_name_is_refused(tiny_kwg_pack, tmp_path):
    f, target, m, _, build = tiny_kwg_pack
    before = (target / "manifest.json").read_bytes()
    other = tmp_path / "other" / "TINY1.kwg"
    other.parent.mkdir()
    other.write_bytes(encode_kwg(tiny_numbers(["AT", "BE"])))
    with pytest.raises(PackError, match=r"lexicon TINY1: already built at .*tiny-TINY1.* another: give it another --name"):
        import_lexicon(other, str(TINY), build=build)
    assert (target / "manifest.json").read_bytes() == before
    # the same file again: nothing to do
    again, m2, built = import_lexicon(f, str(TINY), build=build)
    assert again == target and not built and m2["lexicon_file"]["sha256"] == m["lexicon_file"]["sha256"]


def test_corrupt_file_builds_nothing(tmp_path):
    f = tmp_path / "BAD.kwg"
    f.write_bytes(encode_kwg(tiny_numbers(TINY_WORDS))[:-1])
    build = tmp_path / "build"
    with pytest.raises(WordListError, match=r"BAD\.kwg: truncated KWG"):
        import_lexicon(f, str(TINY), build=build)
    assert not build.exists() or not any(build.iterdir())


def test_selection_by_lexicon_name(tiny_kwg_pack, monkeypatch):
    from heuri.pack import lexicon_language, load_pack, pack_for_record

    _, target, _, _, build = tiny_kwg_pack
    pack = load_pack("tiny", lexicon="tiny1")  # names are matched in any case
    assert pack.root == target and pack.spec.lexicon == "TINY1" and pack.spec.code == "tiny"
    assert pack.id.startswith("tiny:TINY1@")
    assert lexicon_language("TINY1") == "tiny"
    # the only tiny pack: the language's default
    assert load_pack("tiny").root == target
    assert pack_for_record("tiny", "TINY1").root == target
    with pytest.raises(PackError, match=r"^no pack of lexicon CSW21 under .*; build it from the lexicon file with: "
                                        r"heuri lexicon import CSW21\.kwg --lang tiny --name CSW21$"):
        load_pack("tiny", lexicon="CSW21")
    monkeypatch.setenv("HEURI_LEXICON", "TINY1")
    assert load_pack("tiny").root == target
    with pytest.raises(PackError, match=r"lexicon TINY1 is a tiny pack .*not es: give --lang tiny"):
        load_pack("es")


def test_siu_lexicon_option_selects_the_imported_pack(tiny_kwg_pack):
    """SIU's ``Lexicon`` option takes an imported lexicon's name (any case): its pack answers
    and the provenance names it; a lexicon with no pack is ``bad-option`` in one line naming
    the command that builds it, and the pack in use is kept."""
    from heuri.play.siu import HeuriBackend, SiuError

    _, target, _, _, _ = tiny_kwg_pack
    be = HeuriBackend(str(target))
    assert be.set_option("Lexicon", "tiny1") == []
    assert be.pack.root == target and be.pack.spec.lexicon == "TINY1"
    assert "lexicon=tiny:TINY1@" in be.provenance()
    with pytest.raises(SiuError) as e:
        be.set_option("Lexicon", "NWL23")
    msg = str(e.value)
    assert "\n" not in msg and "no pack of lexicon NWL23" in msg
    assert "heuri lexicon import NWL23.kwg --lang en --name NWL23" in msg  # NWL: an English lexicon
    assert msg.endswith(f"keeping {be.pack.id}") and be.pack.root == target


def test_cli_lexicon_import_and_missing_lexicon(tmp_path, capsys, monkeypatch):
    from heuri.cli import main

    build = tmp_path / "b"
    build.mkdir()
    # main() sets both from --build / --lexicon: monkeypatch restores them after the test
    monkeypatch.setenv("HEURI_LEXICON", "")
    monkeypatch.setenv("HEURI_BUILD", str(build))
    f = tmp_path / "words.txt"
    f.write_text("tab\nbat\nTEA\n", encoding="utf-8")
    assert main(["--build", str(build), "lexicon", "import", str(f), "--lang", str(TINY), "--name", "T3"]) == 0
    out = capsys.readouterr().out
    assert f"{build / 'tiny-T3'}: lexicon T3 (tiny), 3 words, source sha256 {hashlib.sha256(f.read_bytes()).hexdigest()}" in out
    assert main(["--build", str(build), "--lexicon", "NWL23", "packs"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no pack of lexicon NWL23" in err and "heuri lexicon import NWL23.kwg" in err


# -- the Polish and Dutch specs ------------------------------------------------------------
def test_polish_and_dutch_specs():
    pl, nl = load_spec("pl"), load_spec("nl")
    assert (pl.n_letters, pl.total_tiles, pl.tiles[:3], pl.tiles[-2:]) == (32, 100, ("A", "Ą", "B"), ("Ź", "Ż"))
    assert pl.values[pl.tiles.index("Ź")] == 9 and pl.counts[pl.tiles.index("A")] == 9
    assert (nl.n_letters, nl.total_tiles, nl.counts[nl.tiles.index("E")], nl.values[nl.tiles.index("Q")]) == (26, 102, 18, 10)
    # the bundled lists: the open Hunspell dictionaries (SOURCE.md beside each spec)
    assert pl.source_files() == {"dic": pl.path / "pl.dic.gz", "aff": pl.path / "pl.aff"}
    assert nl.source_files() == {"dic": nl.path / "nl.dic.gz", "aff": nl.path / "nl.aff"}
    assert pl.normalise("źdźbło") == "ŹDŹBŁO" and nl.normalise("één") == "EEN"
    # Dutch IJ is two tiles; the dictionary's one-character ĳ (U+0133) is made I + J
    assert nl.normalise("bĳna") == "BIJNA" and nl.tokenise("BIJNA") == tuple(nl.tiles.index(c) for c in "BIJNA")


def test_spec_without_a_bundled_list_builds_only_from_a_file(tmp_path):
    """A spec with ``[wordlist] source = "import"`` (no bundled list) has no default pack:
    building it without a lexicon file says which command builds one, and writes nothing."""
    from pipeline.build import build_pack

    d = tmp_path / "tinyimport"
    d.mkdir()
    text = TINY.read_text(encoding="utf-8").replace('file = "words.txt"', 'source = "import"')
    (d / "spec.toml").write_text(text, encoding="utf-8")
    spec = load_spec(d / "spec.toml")
    assert spec.wordlist_source == "import" and spec.source_files() == {}
    out = tmp_path / "out"
    with pytest.raises(WordListError, match=r'source = "import": no bundled word list; build a pack from a lexicon '
                                            r"file with: heuri lexicon import FILE --lang tiny$"):
        build_pack(d / "spec.toml", out)
    assert not any(out.rglob("*.parquet"))


def test_polish_record_replays_on_the_polish_spec():
    from heuri.gcg import replay_file
    from shared_cases import CASES

    # No Polish word list here (OSPS is the player's file): tiles, squares and scores only.
    r = replay_file(CASES / "pl" / "001.gcg", load_spec("pl"), "auto")
    assert (len(r.steps), len(r.mismatches), r.complete) == (53, 0, True)


def test_polish_record_words_in_the_open_polish_list():
    """The real Polish record on the bundled pack (npm dictionary-pl): 0 mismatches, and of
    the 65 distinct words its 43 plays form, the open list holds all but TRYP and KÓP."""
    from heuri.gcg import replay_file
    from heuri.pack import load_pack
    from shared_cases import CASES

    try:
        pack = load_pack("pl")
    except PackError as e:
        pytest.skip(f"no usable pl pack: {e}")
    r = replay_file(CASES / "pl" / "001.gcg", pack.spec, "auto", words=pack.words)
    plays = [st for st in r.steps if st.event.kind == "play"]
    formed = {w for st in plays for w in st.words}
    assert (len(r.mismatches), r.complete, len(plays), len(formed)) == (0, True, 43, 65)
    assert sorted(w for w in formed if w not in pack.words) == ["KÓP", "TRYP"]
    assert [u for _, _, u in r.off_list] == [["TRYP"], ["KÓP"]]


# -- the federation KWGs, when a MAGPIE-DATA checkout is named ---------------------------------
MAGPIE = os.environ.get("HEURI_MAGPIE_DATA", "")
KWGS = {"FRA20": "fr", "DISC2": "ca", "TWL06": "en", "TWL14": "en", "TWL98": "en", "CSW21": "en", "CSW24": "en",
        "NWL20": "en", "NWL23": "en", "OSPS49": "pl", "RD29": "de", "DSW25": "nl"}


@pytest.mark.parametrize("name", sorted(KWGS))
def test_federation_kwg_words_equal_an_independent_decoding(name):
    path = Path(MAGPIE) / "data" / "lexica" / f"{name}.kwg"
    if not MAGPIE or not path.is_file():
        pytest.skip(f"{name}.kwg not here: set HEURI_MAGPIE_DATA to a MAGPIE-DATA checkout (data/lexica/{name}.kwg)")
    spec = load_spec(KWGS[name])
    raw = path.read_bytes()
    independent = ["".join(spec.tiles[x - 1] for x in w) for w in decode_kwg_independently(raw)]
    entries, info = read_lexicon(path, spec)
    assert len(entries) == len(independent) and sha_of(entries) == sha_of(independent)
    from heuri.pack import lexicon_packs

    hit = lexicon_packs().get(name)
    if hit is not None:  # a pack built from it: its words are the file's
        words = pq.read_table(hit[0] / "words.parquet").column("word").to_pylist()
        assert hit[1]["lexicon_file"]["sha256"] == hashlib.sha256(raw).hexdigest()
        assert len(words) == len(independent) and sha_of(words) == sha_of(independent)


def test_a_lexicon_keeps_the_words_an_open_list_filter_drops(tmp_path):
    """French's spec drops two-letter entries without a vowel from open lists (abbreviations
    such as KG); a federation's lexicon is the authority on its words: FRA20 holds VS, so an
    imported lexicon keeps every word it spells."""
    f = tmp_path / "FRTEST.txt"
    f.write_text("VS\nKG\nAS\nRATE\nETAIS\n", encoding="utf-8")
    target, manifest, built = import_lexicon(f, "fr", build=tmp_path / "build")
    words = pq.read_table(target / "words.parquet").column("word").to_pylist()
    assert built and words == ["AS", "ETAIS", "KG", "RATE", "VS"]
    assert manifest["rejected"]["short_without_vowel"]["count"] == 0
    assert load_spec("fr").path.joinpath("spec.toml").read_text(encoding="utf-8").count("short_without_vowel") == 1
    # a pack of the same file built when the filter applied (its manifest counts VS refused):
    # stale when loaded, built again (whole) by importing the file again
    from heuri.core.pack import load_pack

    m = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    m["rejected"]["short_without_vowel"] = {"count": 1, "examples": ["VS"]}
    (target / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    with pytest.raises(PackError, match=r"stale fr pack of lexicon FRTEST: an open-list filter dropped 1 of the "
                                        r"file's words .*\(e\.g\. VS\); import it again: heuri lexicon import .*FRTEST\.txt "
                                        r"--lang fr"):
        load_pack(target)
    again, m2, built = import_lexicon(f, "fr", build=tmp_path / "build")
    assert again == target and built and m2["rejected"]["short_without_vowel"]["count"] == 0
    pack = load_pack(target)
    assert all(w in pack.words for w in ("VS", "KG", "RATE")) and "ZZ" not in pack.words
    assert sorted(p.name for p in (tmp_path / "build").iterdir()) == ["fr-FRTEST"]
