"""The pipeline's artifacts: hand-listed keys of the tiny lexicon, exact counts of the real
word lists, and an independent slow check of the real keys on samples."""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from heuri.errors import SpecError, WordListError
from heuri.spec import load_spec
from pipeline.build import build_pack
from pipeline.words import build_words

DATA = Path(__file__).parent / "data"


def keys_of(pack, name):
    return set(pack.table(name).column("key").to_pylist())


# -- the tiny lexicon: every key listed by hand ------------------------------------------
# Words: TAB BAT BEAT ABET BETA TEA EAT AT BE TEE (+ rejects: A, CAT, a duplicate TEA, TÉA).
# Racks of 3, one blank. 3-tile alphagrams ABT, AET, EET; 4-tile alphagram ABET.

def test_tiny_words_and_rejects(tiny_pack):
    m = tiny_pack.manifest
    assert m["counts"]["words"] == 10
    assert m["wordlist_entries"] == 14
    assert m["rejected"]["one_tile"] == {"count": 1, "examples": ["a"]}
    assert m["rejected"]["untokenisable"] == {"count": 1, "examples": ["cat"]}
    # TEA twice more: once as TEA, once as TÉA folded to TEA
    assert m["rejected"]["duplicate"] == {"count": 2, "examples": ["TEA", "téa"]}
    assert m["counts"]["words_by_length"] == {"2": 2, "3": 5, "4": 3}


def test_tiny_septets_by_hand(tiny_pack):
    # each 3-tile alphagram, and each with one tile made a blank (#)
    assert keys_of(tiny_pack, "septets") == {"ABT", "AB#", "AT#", "BT#", "AET", "AE#", "ET#", "EET", "EE#"}


def test_tiny_reduced_octets_by_hand(tiny_pack):
    t = tiny_pack.table("reduced_octets").to_pylist()
    got = {r["key"]: set(r["completers"]) for r in t}
    # ABET minus one tile (the completer), and those with one tile made a blank
    assert got == {
        "BET": {"A"}, "AET": {"B"}, "ABT": {"E"}, "ABE": {"T"},
        "ET#": {"A", "B"}, "BT#": {"A", "E"}, "BE#": {"A", "T"},
        "AT#": {"B", "E"}, "AE#": {"B", "T"}, "AB#": {"E", "T"},
    }
    masks = {r["key"]: r["completer_mask"] for r in t}
    assert masks["ET#"] == 0b0011  # A (id 0) and B (id 1)


def test_tiny_pure_septets_and_keyset(tiny_pack):
    assert keys_of(tiny_pack, "pure_septets") == {"EET", "EE#"}
    k = tiny_pack.keys
    assert len(k) == 12  # 9 septets + 10 reduced octets - 7 in both
    assert int(k.is_pure_septet.sum()) == 2
    # σ of EET = 1 + 1 + 2 and of EE# = 2 (blank 0)
    sig = dict(zip(pq.read_table(tiny_pack.root / "pure_septets.parquet").column("key").to_pylist(),
                   pq.read_table(tiny_pack.root / "pure_septets.parquet").column("sigma").to_pylist()))
    assert sig == {"EET": 4, "EE#": 2}
    c = tiny_pack.manifest["counts"]
    assert (c["septets"], c["pure_septets"], c["reduced_octets"], c["keyset"]) == (9, 2, 10, 12)


def test_tiny_anagram_buckets(tiny_pack):
    rows = {r["alphagram"]: r["words"] for r in tiny_pack.table("anagrams").to_pylist()}
    assert rows["ABET"] == ["ABET", "BEAT", "BETA"]
    assert rows["ABT"] == ["BAT", "TAB"]
    assert len(rows) == 6  # AT BE ABT AET EET ABET


def test_tiny_build_is_deterministic(tmp_path):
    a = build_pack(DATA / "tiny" / "spec.toml", tmp_path / "a" / "tiny")
    b = build_pack(DATA / "tiny" / "spec.toml", tmp_path / "b" / "tiny")
    assert a["counts"] == b["counts"]
    for name in ("words", "septets", "reduced_octets", "anagrams", "tiles"):
        assert (tmp_path / "a" / "tiny" / f"{name}.parquet").read_bytes() == \
               (tmp_path / "b" / "tiny" / f"{name}.parquet").read_bytes(), name


# -- the real word lists -------------------------------------------------------------------

EXPECTED_WORDS = {"es": 636_598, "en": 267_751, "fr": 311_495}
# Paper (§3, Spanish lexicon): 126,972 septets, 282,214 reduced octets, 288,044 key set.
PAPER_ES = {"septets": 126_972, "reduced_octets": 282_214, "keyset": 288_044}


def test_real_word_counts(real_pack):
    assert real_pack.manifest["counts"]["words"] == EXPECTED_WORDS[real_pack.code]


def test_real_counts_exact(real_pack):
    # Pinned from the word lists in lexicons/ (any change to the lists or the method shows here).
    want = {
        "es": (130_064, 6_434, 283_874, 290_308),
        "en": (145_697, 12_485, 328_281, 340_766),
        "fr": (88_908, 3_394, 206_254, 209_648),
    }[real_pack.code]
    c = real_pack.manifest["counts"]
    assert (c["septets"], c["pure_septets"], c["reduced_octets"], c["keyset"]) == want


def test_spanish_counts_within_3_percent_of_paper(pack_es):
    c = pack_es.manifest["counts"]
    for k, v in PAPER_ES.items():
        assert abs(c[k] - v) / v < 0.03, (k, c[k], v)


def test_french_rejects(pack_fr):
    r = pack_fr.manifest["rejected"]
    assert r["untokenisable"]["count"] == 4746  # hyphenated entries (A-T-IL, ABAT-JOUR, ...)
    assert "ABAT-JOUR" in r["untokenisable"]["examples"]
    assert r["too_long"]["count"] == 7394
    assert pack_fr.manifest["wordlist_entries"] == 336_524


def test_spanish_digraphs_are_tiles(pack_es):
    spec = pack_es.spec
    words = pack_es.table("words")
    i = words.column("word").to_pylist().index("CHORRO")
    assert spec.format_tiles(words.column("tiles")[i].as_py()) == "[CH]O[RR]O"
    assert words.column("length")[i].as_py() == 4


# -- an independent, slow check on samples: septet-ness by scanning the words ----------------

def _word_counts(pack, n):
    t = pack.table("words")
    lengths = t.column("length").to_numpy()
    idx = np.flatnonzero(lengths == n)
    rows = np.array([t.column("tiles")[int(i)].as_py() for i in idx], dtype=np.int64)
    out = np.zeros((len(rows), pack.spec.n_kinds), np.int64)
    for j in range(n):
        np.add.at(out, (np.arange(len(rows)), rows[:, j]), 1)
    return out


def _slow_is_septet(words7, key):
    real = key.copy(); real[-1] = 0            # blanks can be anything
    return bool(np.all(words7 >= real, axis=1).any())


def _slow_completers(words8, key, n_letters):
    real = key.copy(); real[-1] = 0
    out = set()
    for x in range(n_letters):
        need = real.copy(); need[x] += 1
        if np.all(words8 >= need, axis=1).any():
            out.add(x)
    return out


@pytest.mark.parametrize("lang", ["es", "en"])
def test_keys_match_slow_scan(lang):
    from heuri.pack import load_pack

    pack = load_pack(lang)
    spec = pack.spec
    rng = np.random.default_rng(7)
    w7, w8 = _word_counts(pack, 7), _word_counts(pack, 8)
    k = pack.keys
    codes = set(np.asarray(k.code).tolist())
    # sample keys from the key set (each must be confirmed) ...
    for i in rng.choice(len(k), 60, replace=False):
        key = np.asarray(k.counts[i]).astype(np.int64)
        assert _slow_is_septet(w7, key) == bool(k.is_septet[i])
        want = _slow_completers(w8, key, spec.n_letters)
        got = {x for x in range(spec.n_letters) if (int(k.completers[i]) >> x) & 1}
        assert got == want
    # ... and random racks from the full bag: a rack is a key exactly when the scan says so
    from pipeline.keys import encode

    bag = np.repeat(np.arange(spec.n_kinds), spec.distribution())
    for _ in range(60):
        rack = np.sort(rng.choice(bag, 7, replace=False))
        cv = np.bincount(rack, minlength=spec.n_kinds)
        is_key = int(encode(rack[None, :])[0]) in codes
        slow = _slow_is_septet(w7, cv) or bool(_slow_completers(w8, cv, spec.n_letters))
        assert is_key == slow


# -- bad input ---------------------------------------------------------------------------------

def _copy_tiny(tmp_path) -> Path:
    d = tmp_path / "tiny"
    shutil.copytree(DATA / "tiny", d)
    return d


def test_missing_wordlist(tmp_path):
    d = _copy_tiny(tmp_path)
    (d / "words.txt").unlink()
    with pytest.raises(WordListError, match=r"words\.txt: word list not found"):
        build_words(d / "spec.toml", tmp_path / "w.parquet", tmp_path / "r.json")


def test_empty_wordlist(tmp_path):
    d = _copy_tiny(tmp_path)
    (d / "words.txt").write_text("\n\n")
    with pytest.raises(WordListError, match="empty"):
        build_words(d / "spec.toml", tmp_path / "w.parquet", tmp_path / "r.json")


def test_wordlist_not_utf8_names_line(tmp_path):
    d = _copy_tiny(tmp_path)
    (d / "words.txt").write_bytes(b"tab\nbat\nb\xe9ta\n")
    with pytest.raises(WordListError, match=r"words\.txt:3: not UTF-8"):
        build_words(d / "spec.toml", tmp_path / "w.parquet", tmp_path / "r.json")


def test_unknown_characters_are_counted(tmp_path):
    d = _copy_tiny(tmp_path)
    (d / "words.txt").write_text("tab\nta1b\nzzz\n")
    build_words(d / "spec.toml", tmp_path / "w.parquet", tmp_path / "r.json")
    r = json.loads((tmp_path / "r.json").read_text())
    assert r["kept"] == 1
    assert r["untokenisable"] == {"count": 2, "examples": ["ta1b", "zzz"]}


def test_gzip_wordlist(tmp_path):
    d = _copy_tiny(tmp_path)
    with gzip.open(d / "words.txt.gz", "wt") as f:
        f.write("tab\nbat\n")
    s = (d / "spec.toml").read_text().replace('file = "words.txt"', 'file = "words.txt.gz"')
    (d / "spec.toml").write_text(s)
    assert build_words(d / "spec.toml", tmp_path / "w.parquet", tmp_path / "r.json") == 2


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.replace('rack_size = 3\n', ''), r"\[rules\]: missing field 'rack_size'"),
    (lambda s: s.replace('count = 3, value = 1 },\n  { tile = "B"', 'count = "3", value = 1 },\n  { tile = "B"'),
     r"letters\[0\]: field 'count' must be int"),
    (lambda s: s.replace('end_rule = "double"', 'end_rule = "triple"'), "end_rule must be one of"),
    (lambda s: s.replace('"T..d...*...d..T"', '"T..d.......d..T"'), "exactly one centre"),
    (lambda s: s.replace('"T..d...*...d..T"', '"T..d...*...d..X"'), r"row 8 has \['X'\]"),
    (lambda s: s.replace('"T..d...*...d..T"', '"T..d...*...d.."'), "15 strings of 15 characters"),
    (lambda s: s.replace('[blank]', '[blanks]'), "missing field 'blank'"),
    (lambda s: s.replace('{ tile = "E"', '{ tile = "A"'), "tile 'A' appears twice"),
    (lambda s: s + "\n[[oops", "not valid TOML"),
])
def test_bad_spec(tmp_path, edit, message):
    d = _copy_tiny(tmp_path)
    (d / "spec.toml").write_text(edit((d / "spec.toml").read_text()))
    with pytest.raises(SpecError, match=message) as e:
        load_spec(d / "spec.toml")
    assert "spec.toml" in str(e.value)


def test_missing_spec(tmp_path):
    with pytest.raises(SpecError, match="no language spec here"):
        load_spec(tmp_path)


# -- the long words' alphagram hashes (pipeline/long_alphagrams.py) -------------------------

def test_long_alphagrams_real(real_pack):
    """Pinned counts of the distinct alphagrams of 6+ tiles (rack size - 1; equal to the
    anagram buckets of 6+ tiles for en), sorted distinct hashes, every long word's tiles in
    the set (200 sampled) and a multiset that spells no word not in it."""
    from pipeline.long_alphagrams import tile_hashes

    d = real_pack.root / "long_alphagrams"
    meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
    want = {"en": 224_951, "fr": 256_641, "es": 466_807}[real_pack.code]
    assert meta["alphagrams"] == want == real_pack.manifest["counts"]["long_alphagrams"]
    assert meta["min_tiles"] == real_pack.spec.rack_size - 1
    h = np.load(d / "hashes.npy")
    z = np.load(d / "zobrist.npy")
    assert h.dtype == np.uint64 and len(h) == meta["hashes"] == want  # no collision in these lists
    assert (np.diff(h) > 0).all()
    if real_pack.code == "en":
        an = pq.read_table(real_pack.root / "anagrams.parquet", columns=["length"]).column("length").to_numpy()
        assert int((an >= 6).sum()) == want
    words = pq.read_table(real_pack.root / "words.parquet", columns=["tiles", "length"])
    length = words.column("length").to_numpy()
    rng = np.random.default_rng(17)
    idx = rng.choice(np.flatnonzero(length >= 6), 200, replace=False)
    tiles = words.column("tiles").take(idx).combine_chunks()
    got = tile_hashes(z, tiles.values.to_numpy(), tiles.offsets.to_numpy())
    assert np.isin(got, h).all()
    # QQQQQXXXX spells no word
    spec = real_pack.spec
    q, x = spec.parse_tiles("Q")[0], spec.parse_tiles("X")[0]
    nonword = np.array([q] * 5 + [x] * 4, np.uint8)
    assert not np.isin(tile_hashes(z, nonword, np.array([0, 9])), h).any()


def test_long_alphagrams_tiny(tiny_pack):
    """The tiny lexicon (racks of 3, so words of 2+ tiles): the alphagrams AT BE ABT AET EET
    ABET, BEAT's tiles in the set, TTT's not."""
    from pipeline.long_alphagrams import tile_hashes

    d = tiny_pack.root / "long_alphagrams"
    meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
    assert meta["min_tiles"] == 2
    assert meta["alphagrams_by_tiles"] == {"2": 2, "3": 3, "4": 1}
    assert meta["alphagrams"] == tiny_pack.manifest["counts"]["long_alphagrams"] == 6
    h, z = np.load(d / "hashes.npy"), np.load(d / "zobrist.npy")
    spec = tiny_pack.spec
    beat = np.array(spec.parse_tiles("BEAT"), np.uint8)
    ttt = np.array(spec.parse_tiles("TTT"), np.uint8)
    assert np.isin(tile_hashes(z, beat, np.array([0, 4])), h).all()
    assert not np.isin(tile_hashes(z, ttt, np.array([0, 3])), h).any()


# -- each tile's scoring power (pipeline/tile_power.py) -------------------------------------

def test_fit_power_recovers_a_linear_model():
    """Scores made exactly as board level + Σ counts·w: the fit gives w back, centred on the
    distribution (the board levels cancel in the fixed effects)."""
    from pipeline.tile_power import fit_power

    rng = np.random.default_rng(5)
    w = np.array([4.0, -1.0, 0.5, 2.0])
    dist = np.array([3, 5, 2, 1])
    counts = rng.integers(0, 3, size=(400, 4))
    board = np.repeat(np.arange(40), 10)
    scores = 30 + 7 * board + counts @ w
    got = fit_power(counts, scores, board, dist)
    assert np.allclose(got, w - (dist @ w) / dist.sum())
    assert abs(dist @ got) < 1e-9


def test_tile_power_real(real_pack):
    """The real packs: one row a tile kind, centred on the distribution, the most powerful
    tile a 10-point one that a common two-letter word takes (Z in Spanish and English; Z or X
    in French, where both are worth 10 and XI, EX and ZA... weigh alike), the blank worth a few
    points, the sample's size in the manifest."""
    spec = real_pack.spec
    w = real_pack.tile_power
    assert w.shape == (spec.n_kinds,)
    assert abs(np.asarray(spec.distribution()) @ w) < 1e-6
    top = spec.tiles[int(np.argmax(w))]
    assert top in ({"Z", "X"} if spec.code == "fr" else {"Z"}) and w.max() > 10
    assert spec.values[spec.tiles.index(top)] == 10
    assert 3 < w[spec.blank] < 8
    meta = json.loads((real_pack.root / "tile_power.json").read_text(encoding="utf-8"))
    assert meta["boards"] > 500 and meta["racks"] == 30 * meta["boards"]
    assert real_pack.manifest["counts"]["tile_power_boards"] == meta["boards"]


def test_tile_power_boards_are_deterministic(pack_en):
    """The greedy games that make the boards replay from their seed."""
    from pipeline.tile_power import midgame_boards

    a = midgame_boards(pack_en, games=2)
    b = midgame_boards(pack_en, games=2)
    assert len(a) == len(b) > 5
    assert all((x[0] == y[0]).all() and (x[2] == y[2]).all() for x, y in zip(a, b))


def test_tile_power_tiny(tiny_pack):
    """The tiny lexicon never reaches a midgame board: no sample, every power 0."""
    meta = json.loads((tiny_pack.root / "tile_power.json").read_text(encoding="utf-8"))
    assert meta["boards"] == 0 and meta["racks"] == 0
    assert not tiny_pack.tile_power.any()


def test_french_pack_drops_its_abbreviations(pack_fr):
    """The French list's fourteen two-letter unit symbols and abbreviations are rejected and
    counted; no two-letter word of the pack lacks a vowel."""
    import polars as pl

    got = pack_fr.manifest["rejected"]["short_without_vowel"]
    assert got["count"] == 14 and got["examples"][:4] == ["CC", "CF", "CG", "CH"]
    words = pl.read_parquet(pack_fr.root / "words.parquet")
    two = words.filter(pl.col("length") == 2)["word"].to_list()
    assert len(two) == 67 and not [w for w in two if not set(w) & set("AEIOUY")]


def test_short_entries_without_a_vowel_are_dropped(tmp_path):
    """``short_without_vowel``: two-letter entries without a vowel go (counted), longer ones
    and those with a vowel stay; a malformed rule names the file and the field."""
    from heuri.errors import WordListError
    from heuri.spec import load_spec
    from pipeline.words import normalise_words, short_without_vowel_rule

    spec = load_spec("fr")
    words, _, rejects = normalise_words(spec, ["kg", "ph", "ma", "pst", "vs", "ré"], (2, "AEIOUY"))
    assert words == ["MA", "PST", "RE"]
    assert rejects["short_without_vowel"] == {"count": 3, "examples": ["kg", "ph", "vs"]}
    assert short_without_vowel_rule(spec.path / "spec.toml") == (2, "AEIOUY")  # the French spec's rule
    good = tmp_path / "good.toml"
    good.write_text('[wordlist]\nshort_without_vowel = { max_tiles = 2, vowels = "AEIOUY" }\n', encoding="utf-8")
    assert short_without_vowel_rule(good) == (2, "AEIOUY")
    bad = tmp_path / "spec.toml"
    bad.write_text('[wordlist]\nshort_without_vowel = { max_tiles = 1, vowels = "aeiou" }\n', encoding="utf-8")
    with pytest.raises(WordListError, match="short_without_vowel"):
        short_without_vowel_rule(bad)
