"""Racks typed as players write them: Spanish CH, LL and RR without brackets, and the
language told from the tiles of a board or rack."""
from __future__ import annotations

import pytest

from heuri.core.cgp import cgp_spellings, guess_language, parse_cgp
from heuri.core.errors import CgpError, MoveError
from heuri.core.move import parse_rack
from heuri.core.spec import load_spec, recognise_tiles

EMPTY = "/".join(["15"] * 15)


@pytest.fixture(scope="module")
def es():
    return load_spec("es")


def test_digraphs_read_when_only_that_fits(es):
    # 9 letters as written; A, CH, E, LL, Ñ, O and the blank are 7 tiles
    got = parse_rack("ACHELLÑO?", es, size=7)
    assert [es.symbol(t) for t in got] == ["A", "CH", "E", "LL", "Ñ", "O", "#"]
    rec = parse_cgp(f"{EMPTY} ACHELLÑO?/ 0/0 0", es)
    assert es.format_tiles(rec.racks[0], blank="?") == "A[CH]E[LL]ÑO?"
    # R R with no room to spare: RR is one tile
    assert es.format_tiles(parse_rack("PERROSAS", es, size=7), blank="?") == "PE[RR]OSAS"


def test_letters_stay_single_tiles_when_they_fit(es):
    # C and H are tiles too: 7 letters that fit are 7 tiles
    assert [es.symbol(t) for t in parse_rack("CCHHLLA", es, size=7)] == ["C", "C", "H", "H", "L", "L", "A"]
    assert len(parse_rack("CHICO", es, size=7)) == 5
    assert len(parse_rack("A[CH]E", es, size=7)) == 3


def test_too_many_tiles_says_how_to_write_them(es):
    with pytest.raises(CgpError) as e:
        parse_cgp(f"{EMPTY} ACHELLÑOSS/ 0/0 0", es)
    assert str(e.value) == ("CGP rack 1 'ACHELLÑOSS' has 10 tiles, more than 7; a tile of several letters is "
                            "written in brackets ([CH], [LL], [RR]): CH without them is 2 tiles, C and H")
    # CH, LL, RR joined or not: 9, 8, 8, 8, 7, 7, 7 and 6 tiles: three readings fit 7
    with pytest.raises(MoveError, match=r"has 9 tiles, more than 7; reading letters as \[CH\], \[LL\], \[RR\] "
                                        r"fits 7 tiles in more than one way"):
        parse_rack("CHLLRRAAA", es, size=7)
    en = load_spec("en")
    with pytest.raises(MoveError) as e:
        parse_rack("AEIOUSTR", en, size=7)
    assert str(e.value) == "rack 'AEIOUSTR' has 8 tiles, more than 7"


def test_language_from_the_tiles():
    assert cgp_spellings(f"7CA[RR]OÑE1/{'/'.join(['15'] * 14)} AEI?ST[CH]/ 0/0 0") == \
        {"C", "A", "RR", "O", "Ñ", "E", "I", "S", "T", "CH"}
    assert guess_language(f"{EMPTY} ACHELLÑO?/ 0/0 0") == "es"
    assert guess_language(f"{EMPTY} A[LL]EIOS/ 0/0 0") == "es"
    assert guess_language(f"7ca[rr]oñe1/{'/'.join(['15'] * 14)} AEIOST?/ 0/0 0") == "es"  # blanks on the board
    assert guess_language(f"{EMPTY} AEIOSTÇ/ 0/0 0") == "ca"
    assert guess_language(f"{EMPTY} AEIOSTR/ 0/0 0") is None  # letters of several languages
    assert guess_language(f"{EMPTY} AEIOSTR/ 0/0 0 lex FILE2017;") == "es"  # the name decides first
    assert recognise_tiles({"K", "Ñ"}) is None  # no language has both
    assert recognise_tiles(set()) is None
