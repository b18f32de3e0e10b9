"""Language specs: the real tile sets and rules, tokenising, tile text."""
import pytest

from heuri.errors import TileError
from heuri.spec import list_languages, load_spec


def test_languages():
    assert {"es", "en", "fr"} <= set(list_languages())


@pytest.mark.parametrize("lang, tiles, points, kinds", [
    ("es", 100, 192, 29), ("en", 100, 187, 27), ("fr", 102, 197, 27)])
def test_tile_sets(lang, tiles, points, kinds):
    s = load_spec(lang)
    assert (s.total_tiles, s.total_points, s.n_kinds) == (tiles, points, kinds)


def test_spanish_average_tile_value_is_paper_1_92():
    assert load_spec("es").average_tile_value == pytest.approx(1.92)


def test_rules():
    es, en, fr = (load_spec(x) for x in ("es", "en", "fr"))
    assert (en.end_rule, fr.end_rule, es.end_rule) == ("double", "transfer", "transfer")
    assert (en.exchange_min_bag, fr.exchange_min_bag, es.exchange_min_bag) == (7, 7, 1)
    assert es.blank_cannot_represent == ("K", "W")
    assert en.board[7][7] == "*" and en.board[0][0] == "T" and en.board[0][3] == "d"


def test_spanish_tokenising_is_greedy_digraphs():
    es = load_spec("es")
    assert es.format_tiles(es.tokenise("LLORRAR")) == "[LL]O[RR]AR"
    assert es.format_tiles(es.tokenise("CHICO")) == "[CH]ICO"
    assert es.tokenise("KIWI") is None  # no K or W tile
    assert es.normalise("pingüino") == "PINGUINO"
    assert es.normalise("niño") == "NIÑO"


def test_french_normalising():
    fr = load_spec("fr")
    assert fr.normalise("cœur") == "COEUR"
    assert fr.normalise("élève") == "ELEVE"
    assert fr.normalise("garçon") == "GARCON"
    assert fr.tokenise("ABAT-JOUR") is None


def test_parse_and_format_tiles():
    es = load_spec("es")
    ids = es.parse_tiles("A[CH]?ñ")
    assert es.format_tiles(ids, blank="?") == "A[CH]?Ñ"
    with pytest.raises(TileError, match="'K' is not a tile of Spanish"):
        es.parse_tiles("KA")
    with pytest.raises(TileError, match="unclosed"):
        es.parse_tiles("A[CH")
