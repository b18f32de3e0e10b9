"""CGP reader/writer: exact round trips, positions, errors; a CGP's rule operations reaching
the move generator and the evaluators; the lexicon it names."""
from __future__ import annotations

from math import comb

import numpy as np
import pytest

from heuri.cgp import format_cgp, guess_language, lexicon_warning, parse_cgp
from heuri.cli import main
from heuri.errors import CgpError
from heuri.evaluate import make_evaluator
from heuri.game import Position
from heuri.move import Move
from heuri.spec import load_spec

EN = load_spec("en")
ES = load_spec("es")

EMPTY = "/".join(["15"] * 15)
# Maven paper endgame (open-protocols cgp/README.md example 2).
MAVEN = ("5BERGS5/4PA3U5/2QAID3R5/3BEE3F2S2/1P1ET2VIATIC2/MA1TAW3c2H2/ES3IS2E2A2/AT1FOLIA4V2/"
         "LI1L1EX1E6/1N1O1D2N2Y3/1GNU2C1JETE3/2ER2OHO2N3/2O3GOY6/1INDOW1U7/4DORR7 IKLMTZ/AEINRU? 0/0 0 lex OSPD1;")


@pytest.mark.parametrize("text,spec", [
    (f"{EMPTY} AEINRST/ 0/0 0 lex FISE2;", ES),
    (f"{EMPTY} AELNOQT/ 0/0 0 lex NWL18; lm -2;", EN),
    (MAVEN, EN),
    (f"{EMPTY} / 12/-5 3", EN),
    (f"{EMPTY} ?ABC/DEF 100/250 5 lex CSW21; bb 50; etl 7; mcnz 6; ld english;", EN),
    ("7[CH]I[ch]A4/" + "/".join(["15"] * 14) + " [LL][RR]?/ 14/0 0 lex FILE2017; ld spanish;", ES),
])
def test_round_trip_exact(text, spec):
    rec = parse_cgp(text, spec)
    assert format_cgp(rec) == text


def test_fields_and_board():
    rec = parse_cgp(MAVEN, EN)
    assert rec.racks[0] == tuple(EN.tile_id(c) for c in "IKLMTZ")
    assert rec.racks[1][-1] == EN.blank and rec.scores == (0, 0) and rec.zeros == 0
    assert rec.op("lex") == "OSPD1"
    b = rec.board
    assert b.tile_count() == 100 - 13          # 87 tiles on the board, 13 on racks
    assert b.letters[0, 5] == EN.tile_id("B") and b.blanks[5, 9] and b.letters[5, 9] == EN.tile_id("C")
    rec2 = parse_cgp("7[CH]I[ch]A4/" + "/".join(["15"] * 14) + " / 0/0 0", ES)
    assert rec2.board.letters[0, 7] == ES.tile_id("CH") and rec2.board.blanks[0, 9]


def test_rule_overrides():
    rec = parse_cgp(f"{EMPTY} ABC/ 0/0 0 bb 35; etl 1; mcnz 4;", EN)
    r = rec.rules()
    assert (r.bingo_bonus, r.exchange_min_bag, r.max_scoreless_turns) == (35, 1, 4)
    assert EN.bingo_bonus == 50


def test_position_from_cgp_hidden_opponent_and_back():
    p = Position.from_cgp(f"{EMPTY} AEINRST/ 0/0 0 lex NWL23;", EN)
    assert p.rack_text() == "AEINRST" and p.hidden == (0, 7) and p.bag_size == 100 - 7 - 7
    assert p.cgp() == f"{EMPTY} AEINRST/ 0/0 0 lex NWL23;"
    m = Move.from_gcg("8D RETSINA", p.board, p.spec)
    assert p.check(m) == 66
    q = p.after(m, drawn=[EN.tile_id("Q")])
    assert q.scores == (66, 0) and q.to_move == 1
    assert q.cgp().startswith("15/15/15/15/15/15/15/3RETSINA5/") and " /Q 0/66 0" in q.cgp()


@pytest.mark.parametrize("text,kind", [
    ("15/15 A/ 0/0 0", "bad-board"),
    (f"{EMPTY.replace('15', '14', 1)} A/ 0/0 0", "bad-board"),
    (f"{EMPTY} A/ 0/0", "missing-fields"),
    (f"{EMPTY} A/B 0 0", "bad-scores"),
    (f"{EMPTY} A3/ 0/0 0", "bad-rack"),
    (f"{EMPTY} A/ 0/x 0", "bad-scores"),
    (f"{EMPTY} A/ 0/0 -1", "bad-zeros"),
    (f"{EMPTY} ZZ/ 0/0 0", "rack-not-in-bag"),
    (f"{EMPTY} A/ 0/0 0 bb fifty;", "bad-op"),
    ("7Ñ7/" + "/".join(["15"] * 14) + " A/ 0/0 0", "bad-board"),   # not an English tile
])
def test_errors(text, kind):
    with pytest.raises(CgpError) as e:
        parse_cgp(text, EN)
    assert e.value.kind == kind


def test_guess_language():
    assert guess_language(f"{EMPTY} A/ 0/0 0 lex FISE2;") == "es"
    assert guess_language(f"{EMPTY} A/ 0/0 0 lex CSW21;") == "en"
    assert guess_language(f"{EMPTY} A/ 0/0 0 ld french;") == "fr"
    assert guess_language(f"{EMPTY} A/ 0/0 0") is None


def test_game_position_cgp_hides_opponent_on_request():
    from heuri.game import Game

    g = Game(EN, seed=4)
    p = g.position
    full, hidden = p.cgp(), p.cgp(hide_others=True)
    assert full.split()[1] == f"{p.rack_text(0)}/{p.rack_text(1)}"
    assert hidden.split()[1] == f"{p.rack_text(0)}/"
    q = Position.from_cgp(hidden, EN)
    assert q.hidden == (0, 7) and q.bag_size == p.bag_size and (q.unseen() == p.unseen()).all()


def test_cli_moves_json(capsys):
    pytest.importorskip("heuri.movegen")
    import json

    from heuri.cli import main

    assert main(["moves", "--lang", "en", "--cgp", f"{EMPTY} AEINRST/ 0/0 0 lex CSW21;", "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert {"move": "8D RETSINA", "word": "8D RETSINA", "score": 66, "tiles_played": 7, "leave": ""} in rows
    assert rows[0]["score"] == 66
    assert rows[-1] == {"move": "-", "word": "pass", "score": 0, "tiles_played": 0, "leave": "AEINRST"}
    assert {"move": "-AE", "word": "-AE", "score": 0, "tiles_played": 2, "leave": "INRST"} in rows
    assert sum(r["move"].startswith("-") and r["move"] != "-" for r in rows) == 2 ** 7 - 1   # distinct exchanges
    assert main(["moves", "--cgp", f"{EMPTY} QV/ 0/0 0 lex CSW21;", "--json"]) == 0           # language from lex
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert sorted((r["move"], r["score"], r["tiles_played"], r["leave"]) for r in rows) == \
        [("-", 0, 0, "QV"), ("-Q", 0, 1, "V"), ("-QV", 0, 2, ""), ("-V", 0, 1, "Q")]   # no word with Q, V


# -- a CGP's rule operations reach the generator and the evaluators; lexicon names; messages --


def test_cgp_bingo_bonus_reaches_generator_and_evaluator(pack_en):
    plain = Position.from_cgp(f"{EMPTY} AEINRST/ 0/0 0", pack_en.spec)
    bb35 = Position.from_cgp(f"{EMPTY} AEINRST/ 0/0 0 bb 35;", pack_en.spec)
    assert plain.moves(pack_en)["score"].max() == 66
    assert bb35.moves(pack_en)["score"].max() == 16 + 35
    for name in ("heuri2", "heuri3"):
        a = make_evaluator(pack_en, name).rank(plain)
        b = make_evaluator(pack_en, name).rank(bb35)
        # a whole-rack bingo keeps nothing: e = Σ p(s)·(bonus + kσ) loses 15·p
        assert a.j[0] == 66 and b.j[0] == 51 and a.p[0] == pytest.approx(b.p[0])
        assert b.e[0] == pytest.approx(a.e[0] - 15 * a.p[0], rel=1e-9)
    # the same evaluator object goes back to the pack's bonus for the next position
    ev = make_evaluator(pack_en, "heuri3")
    e1 = ev.rank(bb35).e[0]
    assert ev.rank(plain).e[0] == pytest.approx(a.e[0]) and e1 == pytest.approx(b.e[0])


def _late_position(spec, bag: int) -> str:
    """A CGP with AEINRST to move, BCDEFGH on the other rack and exactly ``bag`` tiles in
    the bag (the blanks among them): the other tiles of the set fill the board row by row
    (the generator needs no words on the board)."""
    from heuri.board import Board
    from heuri.cgp import format_board

    left = spec.distribution().copy()
    for t in spec.parse_tiles("AEINRST" + "BCDEFGH"):
        left[t] -= 1
    tiles = np.repeat(np.arange(spec.n_letters), left[:spec.n_letters])
    tiles = tiles[:len(tiles) + int(left[spec.blank]) - bag]
    letters = np.full(225, -1, np.int8)
    letters[:len(tiles)] = tiles
    board = Board(spec, letters.reshape(15, 15), np.zeros((15, 15), bool))
    return f"{format_board(board)} AEINRST/BCDEFGH 0/0 0"


def test_cgp_exchange_limit_reaches_generator(pack_en):
    text = _late_position(pack_en.spec, 6)
    pos = Position.from_cgp(text, pack_en.spec)
    assert pos.bag_size == 6
    assert (pos.moves(pack_en)["kind"] == 1).sum() == 0                 # the pack: at least 7 in the bag
    pos = Position.from_cgp(text + " etl 1;", pack_en.spec)
    n = (pos.moves(pack_en)["kind"] == 1).sum()
    assert n == sum(comb(7, k) for k in range(1, 7))                   # 1..6 of 7 distinct tiles: 126
    ranked = make_evaluator(pack_en, "heuri3").rank(pos)
    assert (ranked.moves["kind"] == 1).sum() == n
    # and a stricter limit than the pack's removes them
    pos = Position.from_cgp(_late_position(pack_en.spec, 20) + " etl 21;", pack_en.spec)
    assert (pos.moves(pack_en)["kind"] == 1).sum() == 0


def test_lexicon_warning_names_both_word_lists(capsys):
    assert lexicon_warning(f"{EMPTY} A/ 0/0 0 lex SOWPODS;", EN) is None
    assert lexicon_warning(f"{EMPTY} A/ 0/0 0", EN) is None
    w = lexicon_warning(f"{EMPTY} A/ 0/0 0 lex NWL23;", EN)
    assert "NWL23" in w and EN.lexicon in w
    assert main(["moves", "--lang", "en", "--cgp", f"{EMPTY} AEINRST/ 0/0 0 lex NWL23;"]) == 0
    err = capsys.readouterr().err
    assert "heuri: warning: the position names lexicon NWL23" in err and "sowpods" in err  # after any compile notice


def test_empty_cgp_and_missing_semicolon_messages(capsys):
    assert main(["moves", "--cgp", ""]) == 2
    err = capsys.readouterr().err
    assert "the CGP is empty" in err and "four" not in err and "4 fields" in err and "language" not in err
    with pytest.raises(CgpError):
        parse_cgp("", EN)
    assert main(["moves", "--cgp", f"{EMPTY} AEINRST/ 0/0 0 lex CSW21"]) == 2
    err = capsys.readouterr().err
    assert "each operation ends with ';'" in err and "cannot tell the language" not in err
    # canonical CGP round trip is unchanged
    s = f"{EMPTY} AEINRST/ 0/0 0 lex CSW21;"
    assert format_cgp(parse_cgp(s, EN)) == s

