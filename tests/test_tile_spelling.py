"""Tile spellings come from the spec (heuri.tiletext): a language with L·L, NY, QU and Ç
(tests/data/hunspell_tiny) round-trips through CGP, GCG, SIU and the board display; the
spec loader refuses spellings the readers could not read back."""
from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest

from heuri.board import Board
from heuri.cgp import format_cgp, parse_cgp
from heuri.errors import MoveError, SpecError
from heuri.gcg import read_gcg, replay, write_gcg
from heuri.move import Move, Placement, format_rack, parse_rack
from heuri.spec import load_spec, recognise
from heuri.tiletext import check_spelling, scan

DATA = Path(__file__).parent / "data"
TINY = DATA / "hunspell_tiny"


@pytest.fixture(scope="module")
def spec():
    return load_spec(TINY / "spec.toml")


def test_spellings_tokenise_and_format(spec):
    ll, ny, qu, c = (spec.tile_id(s) for s in ("L·L", "NY", "QU", "Ç"))
    assert spec.tokenise(spec.normalise("col·legi")) == tuple(spec.tile_id(s) for s in "CO") + (ll,) + \
        tuple(spec.tile_id(s) for s in "EGI")
    assert spec.tokenise(spec.normalise("anys")) == (spec.tile_id("A"), ny, spec.tile_id("S"))
    assert spec.format_tiles([qu, spec.tile_id("E")]) == "[QU]E"
    assert parse_rack("[L·L][NY]Ç?A", spec) == [ll, ny, c, spec.blank, spec.tile_id("A")]
    assert format_rack([ll, ny, c, spec.blank], spec) == "[L·L][NY]Ç?"
    # decomposed input (C + combining cedilla) reads as the tile Ç
    assert parse_rack("C\u0327", spec) == [c]
    with pytest.raises(MoveError, match=r"'\[l·l\]' is not a tile \(expected upper-case"):
        parse_rack("[l·l]", spec)
    with pytest.raises(MoveError, match=r"'\[LL\]' is not a tile of Tiny Hunspell"):
        parse_rack("[LL]", spec)


def test_cgp_round_trip_and_board_display(spec):
    # COL·LEGI across from 8D with its L·L a blank, and an NY on I7
    row8 = "3CO[l·l]EGI6"
    rows = ["15"] * 15
    rows[7] = row8
    rows[6] = "8[NY]6"  # I7, above the I of COL·LEGI: [NY]I is not a word, but CGP does not care
    cgp = "/".join(rows) + " [L·L]Ç[QU]?AES/ 40/0 0 lex TINYHUN;"
    rec = parse_cgp(cgp, spec)
    assert format_cgp(rec) == cgp
    b = rec.board
    assert b.letters[7, 5] == spec.tile_id("L·L") and b.blanks[7, 5]
    assert b.letters[6, 8] == spec.tile_id("NY") and not b.blanks[6, 8]
    assert rec.racks[0] == (spec.tile_id("L·L"), spec.tile_id("Ç"), spec.tile_id("QU"), spec.blank,
                            spec.tile_id("A"), spec.tile_id("E"), spec.tile_id("S"))
    text = b.render()
    lines = text.splitlines()
    # cells are 4 wide (the longest spelling, L·L, plus one space); a blank in lower case
    assert lines[0].split() == list("ABCDEFGHIJKLMNO")
    assert lines[8].split()[1:] == ["=", ".", ".", "C", "O", "l·l", "E", "G", "I", ".", ".", "'", ".", ".", "="]
    assert lines[7].split()[9] == "NY"


GCG = """#character-encoding UTF-8
#player1 ana Ana
#player2 bet Bet
#lexicon TINYHUN1
>ana: CO[L·L]EGI? 8D CO[L·L]EGI +40 40
>bet: ASDE?TR F7 [ny].S +11 11
"""


def test_gcg_round_trip_and_replay(spec):
    game = read_gcg(GCG)
    assert write_gcg(game) == GCG
    # 8D C(dl 2·2) O L·L E G(centre) I: (4 + 1 + 10 + 1 + 3 + 1) × 2 = 40
    r = replay(game, spec)
    first = r.steps[0]
    assert first.event.rack == "CO[L·L]EGI?"
    assert r.board_at(1).letters[7, 5] == spec.tile_id("L·L")
    # F7 [ny] (a blank: 0) + F8 L·L played through (10) + F9 S (1) = 11, no premium squares
    assert r.mismatches == [] and len(r.steps) == 2
    assert r.board_at(2).blanks[6, 5] and r.board_at(2).letters[6, 5] == spec.tile_id("NY")
    bad = read_gcg(GCG.replace("+11 11", "+12 12"))
    assert [(m.line, m.recorded_score, m.engine_score) for m in replay(bad, spec).mismatches] == [(6, 12, 11)]


def test_siu_moves_round_trip(spec):
    for text in ("8D.CO[L·L]EGI", "8D.CO[l·l]EGI", "F7.[ny][L·L]S", "ex.[QU]Ç?", "pass"):
        board = None
        m = Move.from_siu(text, board, spec)
        assert m.siu(spec) == text
    m = Move.from_gcg("8D CO[l·l]EGI", None, spec)
    assert isinstance(m, Placement) and m.blank == (False, False, True, False, False, False)
    assert m.gcg(spec) == "8D CO[l·l]EGI"


def test_siu_session_with_l_l(tiny_hunspell_pack):
    """A whole SIU exchange in the tiny language: a position with [L·L] on the board and in
    the rack, moves written back with brackets."""
    from heuri.siu import HeuriBackend, serve

    rows = ["15"] * 15
    rows[7] = "3CO[l·l]EGI6"
    cgp = "/".join(rows) + " [L·L]ISUOA?/ 40/0 0"
    inp = io.StringIO(f"siu\nisready\nposition cgp {cgp}\ngo gen\nquit\n")
    out = io.StringIO()
    serve(HeuriBackend(str(tiny_hunspell_pack.root)), inp=inp, out=out)
    lines = out.getvalue().splitlines()
    best = [ln for ln in lines if ln.startswith("bestmove ")]
    assert len(best) == 1, lines
    moves = [ln.split()[3] for ln in lines if ln.startswith("info gen move ")]
    assert moves
    # every written move reads back in the same spelling (on the position's board)
    pos_board = parse_cgp(cgp, tiny_hunspell_pack.spec).board
    for mv in moves:
        assert Move.from_siu(mv, pos_board, tiny_hunspell_pack.spec).siu(tiny_hunspell_pack.spec, pos_board) == mv
    assert any("[L·L]" in mv or "[l·l]" in mv for mv in moves), moves  # I[L·L]USIO is a word


# -- the spec loader refuses what the readers could not read ---------------------------------
def _spec_with_tile(tmp_path, tile: str) -> Path:
    text = (TINY / "spec.toml").read_text(encoding="utf-8").replace('tile = "L·L"', f'tile = "{tile}"')
    d = tmp_path / "xx"
    d.mkdir()
    (d / "spec.toml").write_text(text, encoding="utf-8")
    return d / "spec.toml"


@pytest.mark.parametrize("tile", ["L.L", "L'L", "l·l", "L·", "L L", "L-L", "L1", "L··L"])
def test_spec_refuses_unreadable_spellings(tmp_path, tile):
    path = _spec_with_tile(tmp_path, tile)
    with pytest.raises(SpecError) as e:
        load_spec(path)
    msg = str(e.value)
    assert str(path) in msg and "[tiles] letters[9]" in msg and "field 'tile'" in msg
    assert "\n" not in msg


def test_spec_tile_total_must_add_up(tmp_path):
    text = (TINY / "spec.toml").read_text(encoding="utf-8").replace("total = 72", "total = 100")
    (tmp_path / "spec.toml").write_text(text, encoding="utf-8")
    with pytest.raises(SpecError, match=r"spec\.toml \[tiles\]: field 'total' = 100 but the letter counts "
                                         r"add up to 70 and \[blank\] count to 2 \(72\)"):
        load_spec(tmp_path / "spec.toml")


def test_scanner():
    assert scan("[L·L]a?[ny]", "?") == ["L·L", "a", "?", "ny"]
    assert check_spelling("Ŀ") == "upper" and check_spelling("ŀ") == "lower"
    assert check_spelling("ß") is None  # no upper-case single letter: a blank could not be told apart
    with pytest.raises(ValueError, match=r"unclosed '\['"):
        scan("[L·L", "")
    with pytest.raises(ValueError, match=r"'1' at position 2"):
        scan("A1", "")


# -- language recognition from the specs ------------------------------------------------------
def test_recognise_from_specs():
    assert recognise("FILE2017") == "es" and recognise("CSW21") == "en" and recognise("ODS8") == "fr"
    assert recognise(None, "english") == "en" and recognise("nonsense") is None
    folders = [TINY, DATA / "tiny"]
    assert recognise("TINYHUN1", folders=folders) == "hunspell_tiny"
    assert recognise("tiny_hunspell_1", folders=folders) == "hunspell_tiny"  # its own lexicon, as heuri writes it
    assert recognise(None, "tiny_hunspell", folders=folders) == "hunspell_tiny"
    assert recognise("FILE2017", folders=folders) is None


def test_packs_table_not_cut_when_piped(capsys, pack_es):
    """`heuri packs | cat` keeps every column (rich assumes 80 columns off a terminal)."""
    from heuri.cli import main

    assert main(["packs"]) == 0
    out = capsys.readouterr().out
    row = next(ln for ln in out.splitlines() if " es " in ln)
    assert "an-array-of-spanish-words 2.0.0" in row and "636,598" in row and "290,308" in row and "…" not in out


def test_build_option_documented_and_checked(capsys, tmp_path):
    from heuri.cli import build_parser, main

    text = build_parser().format_help()
    assert "--build DIR" in text and "HEURI_BUILD" in text
    assert main(["--build", str(tmp_path / "nowhere"), "packs"]) == 2
    assert "--build" in capsys.readouterr().err
