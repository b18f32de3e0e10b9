"""CGP reader/writer: exact round trips, positions, errors."""
from __future__ import annotations

import pytest

from heuri.cgp import format_cgp, guess_language, parse_cgp
from heuri.errors import CgpError
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
    assert {"move": "8D RETSINA", "score": 66, "tiles_played": 7, "leave": ""} in rows
    assert rows[0]["score"] == 66 and rows[-1] == {"move": "-", "score": 0, "tiles_played": 0, "leave": "AEINRST"}
    assert {"move": "-AE", "score": 0, "tiles_played": 2, "leave": "INRST"} in rows
    assert sum(r["move"].startswith("-") and r["move"] != "-" for r in rows) == 2 ** 7 - 1   # distinct exchanges
    assert main(["moves", "--cgp", f"{EMPTY} QV/ 0/0 0 lex CSW21;", "--json"]) == 0           # language from lex
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert sorted((r["move"], r["score"], r["tiles_played"], r["leave"]) for r in rows) == \
        [("-", 0, 0, "QV"), ("-Q", 0, 1, "V"), ("-QV", 0, 2, ""), ("-V", 0, 1, "Q")]   # no word with Q, V
