"""Issue 12: the records and positions players really have, read right — one regression test
per fix, each from a small record or position written for it."""
from __future__ import annotations

import io
import json
import shutil
from math import comb

import numpy as np
import pytest

from heuri.cgp import format_cgp, lexicon_warning, parse_cgp
from heuri.cli import main
from heuri.errors import CgpError, GcgError
from heuri.evaluate import make_evaluator
from heuri.game import Position
from heuri.gcg import read_gcg, replay, write_gcg
from heuri.spec import load_spec

from shared_cases import CASES, require_cases

EN = load_spec("en")
EMPTY = "/".join(["15"] * 15)
HEAD = "#player1 p1 Player One\n#player2 p2 Player Two\n"
# 8H ANTSIER: 8 points doubled by the centre, + 50; N2 DITZIE(S) scored by the engine (38)
OPENING = HEAD + ">p1: AEINRST 8H ANTSIER +66 66\n>p2: DEIILTZ N2 DITZIE. +38 38\n"


# -- GCG ------------------------------------------------------------------------------------
def test_byte_order_mark_is_stripped(tmp_path):
    text = "#character-encoding UTF-8\n" + OPENING
    f = tmp_path / "bom.gcg"
    f.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    for src in (f, f.read_bytes(), "\ufeff" + text):
        g = read_gcg(src)
        assert g.pragma("character-encoding") == "UTF-8" and len(g.events) == 2
    # without an encoding pragma too
    assert len(read_gcg(b"\xef\xbb\xbf" + OPENING.encode()).events) == 2


def test_multi_line_note_is_one_note_and_round_trips():
    text = OPENING + "#note A long note\nthat runs over\n\nthree lines\n>p1: ?AEHLOW 9G HAW +28 94\n"
    g = read_gcg(text)
    notes = [p for p in g.pragmas if p.name == "note"]
    assert len(notes) == 1 and notes[0].value == "A long note\nthat runs over\nthree lines"
    assert len(g.events) == 3 and g.events[2].move == "9G HAW"
    g2 = read_gcg(write_gcg(g))
    assert [(p.name, p.value) for p in g2.pragmas] == [(p.name, p.value) for p in g.pragmas]
    # a stray line that follows no note is still refused, with its line
    with pytest.raises(GcgError) as e:
        read_gcg(OPENING + "stray text\n")
    assert e.value.kind == "malformed-line" and e.value.line == 5


def test_challenge_line_with_placeholder_rack_replays():
    text = OPENING + ">p2: UNKNOWN (challenge) +5 43\n>p1: ?AEHLOW 9G HAW +28 94\n"
    r = replay(read_gcg(text), EN)
    assert r.ok and r.steps[2].recorded_totals == [66, 43] and r.warnings == []
    # a rack field that is not a rack the set allows here is a warning, not a stop
    text = OPENING + ">p2: ZZ (challenge) +5 43\n"
    r = replay(read_gcg(text), EN)
    assert r.ok and r.warnings == [(5, "rack field 'ZZ' of the (challenge) line is not a rack the tile "
                                        "set allows here; ignored")]


def test_tolerated_oddities_are_warnings_with_their_line():
    g = read_gcg("#note before anything\n#player1 a Sam Smith\n#player2 b Sam Smith\n"
                 ">a: AEINRST 8H ANTSIER +66 66\n#rack2 DEIILTZ\n>b: DEIILTZ N2 DITZIE. +38 38\n")
    assert g.warnings == [(0, "players 'a' and 'b' share the full name 'Sam Smith'"),
                          (1, "#note before the first move: a note comments on the move before it"),
                          (5, "#rack2 DEIILTZ stands before the last move (line 6); a #rackN line "
                              "gives a rack after the last move")]
    r = replay(g, EN)
    assert r.ok and r.warnings[:3] == g.warnings


def test_end_rack_line_whose_tiles_differ_is_a_warning():
    # a six-zero ending: both players lose their racks; p2 writes ABC but scores (ABD)
    text = (HEAD + "".join(f">p{i % 2 + 1}: ABCDEFG - +0 0\n" for i in range(6))
            + ">p1: ABCDEFG (ABCDEFG) -16 -16\n>p2: ABC (ABD) -6 -6\n")
    r = replay(read_gcg(text), EN)
    assert r.ok and r.complete
    assert r.warnings == [(10, "end-of-game line: the tiles in parentheses (ABD) differ from the rack "
                               "ABC; scored on (ABD)")]


def test_racks_that_need_more_tiles_than_are_left_are_a_warning():
    # p1 keeps the only X after its play (leave X); p2 then claims a rack with an X
    text = HEAD + ">p1: AEINRSX 8H SNARE +12 12\n>p2: DEIILTX K4 EDIT.IX +30 30\n"
    r = replay(read_gcg(text), EN)
    assert r.warnings == [(4, "rack DEIILTX and the tiles known on the other rack need X more than "
                              "the tile set has left off the board")]
    assert replay(read_gcg(text), EN).ok
    require_cases()
    r = replay(read_gcg(CASES / "en" / "063.gcg"), EN, end_rule="auto")
    assert r.ok and [w[0] for w in r.warnings] == [21, 22]       # p2's 'IX' while p1 holds the X


# -- CGP rules reach the generator and the evaluators --------------------------------------------
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


# -- lexicon names ----------------------------------------------------------------------------
def test_lexicon_warning_names_both_word_lists(capsys):
    assert lexicon_warning(f"{EMPTY} A/ 0/0 0 lex SOWPODS;", EN) is None
    assert lexicon_warning(f"{EMPTY} A/ 0/0 0", EN) is None
    w = lexicon_warning(f"{EMPTY} A/ 0/0 0 lex NWL23;", EN)
    assert "NWL23" in w and EN.lexicon in w
    assert main(["moves", "--lang", "en", "--cgp", f"{EMPTY} AEINRST/ 0/0 0 lex NWL23;"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("heuri: warning: the position names lexicon NWL23") and "sowpods" in err


def test_siu_says_which_word_list_answers(pack_en):
    from heuri.siu import HeuriBackend, SiuServer

    out = io.StringIO()
    srv = SiuServer(HeuriBackend("en"), out)
    for line in ("siu", f"position cgp {EMPTY} AEINRST/ 0/0 0 lex NWL23;", "go gen"):
        srv.handle(line)
    lines = out.getvalue().splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("info string provenance"))
    assert lines[i + 1].startswith("info string the position names lexicon NWL23")
    assert lines[-1].startswith("bestmove ")


# -- rankings ordered by the value they show ----------------------------------------------------
def test_heuri3_ranking_is_ordered_by_v_and_starts_with_the_choice(pack_es):
    from pathlib import Path

    data = Path(__file__).parent / "data" / "es_pass_with_bingo.gcg"
    game = read_gcg(data)
    r = replay(game, pack_es.spec)
    checked = 0
    for n, st in enumerate(r.steps[:-1]):
        ev = r.steps[n + 1].event
        if not ev.rack or ev.kind not in ("play", "exchange", "pass"):
            continue
        board = st.board
        rack = np.bincount(pack_es.spec.parse_tiles(ev.rack), minlength=pack_es.spec.n_kinds)
        for opts in ({}, {"prune": False}, {"top": 3}):
            ev3 = make_evaluator(pack_es, "heuri3", **opts)
            rk = ev3.rank_arrays(board.letters, board.blanks, rack)
            assert (np.diff(rk.v) <= 1e-9).all(), (n, opts)
            assert rk.revalued[0]
        checked += 1
    assert checked >= 10


def test_cli_best_rows_follow_v(capsys):
    assert main(["best", "--gcg", "tests/data/es_pass_with_bingo.gcg", "--turn", "12", "--top", "200", "--json",
                 "--engine", "heuri3"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == 200 and rows[0]["move"] == "10H TU[LL].D"
    v = [r["v"] for r in rows]
    assert v == sorted(v, reverse=True)


# -- messages -----------------------------------------------------------------------------------
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


# -- replay over a folder -------------------------------------------------------------------------
def test_replay_folder_summary(tmp_path, capsys):
    (tmp_path / "a.gcg").write_text(OPENING)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.gcg").write_text(OPENING.replace("+38 38", "+40 40"))   # a mismatch
    (tmp_path / "c.gcg").write_text(HEAD + ">p1: AEINRST 8H ANTSIER +66 60\n")      # refused
    (tmp_path / "d.gcg").write_text(HEAD + "#lexicon CSW21\n" + ">p1: AEINRST 8H ANTSIER +66 66\n")
    (tmp_path / "notes.txt").write_text("not a record")
    code = main(["replay", "--lang", "en", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    counts = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 2 and cells[1].isdigit():
            counts[cells[0]] = int(cells[1])
    assert counts == {"read": 4, "replayed": 3, "complete": 0, "with mismatches": 1, "with warnings": 0,
                      "refused": 1, "refused: inconsistent-total": 1}
    assert "c.gcg:3" in out
    shutil.rmtree(tmp_path / "sub")
    (tmp_path / "c.gcg").unlink()
    assert main(["replay", "--lang", "en", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "nothing-here")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_player_numbers_start_at_one():
    # found by the fuzz suite: '#player0' indexed the player list from the end (IndexError)
    with pytest.raises(GcgError) as e:
        read_gcg("#player0 a A\n#player2 b B\n>a: AEINRST 8H ANTSIER +66 66\n")
    assert e.value.kind == "malformed-pragma" and e.value.line == 1


def test_blank_digraphs_survive_the_tables(tmp_path, capsys):
    # rich reads a lower-case '[ch]' (a blank standing for CH) as markup and drops it
    f = tmp_path / "ch.gcg"
    f.write_text("#player1 a A\n#player2 b B\n>a: ?AOSTRE 8H [ch]AO +10 10\n")
    assert main(["replay", "--lang", "es", str(f)]) == 1        # (0 + 1 + 1) × 2 = 4, not 10
    out = capsys.readouterr().out
    assert "│ 8H [ch]AO │" in out
    # a record without end lines replays with the pack's end rule under --end-rule auto
    assert "(end rule transfer)" in out
