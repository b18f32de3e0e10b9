"""Board: premiums, scoring by hand, legality of given placements, rendering."""
from __future__ import annotations

import numpy as np
import pytest

from heuri.board import Board, premium_arrays
from heuri.errors import MoveError
from heuri.move import Move
from heuri.spec import load_spec

EN = load_spec("en")
ES = load_spec("es")


def play(board, text):
    m = Move.from_gcg(text, board, board.spec)
    board.check(m)
    return board.play(m), board.score(m)


def test_premium_counts_match_rules_md():
    lm, wm = premium_arrays(EN.board)
    # docs/rules.md: 8 TW, 17 DW (centre included), 12 TL, 24 DL.
    assert (wm == 3).sum() == 8 and (wm == 2).sum() == 17
    assert (lm == 3).sum() == 12 and (lm == 2).sum() == 24
    assert wm[7, 7] == 2 and wm[0, 0] == 3 and lm[7, 3] == 2 and lm[1, 5] == 3


@pytest.mark.parametrize("text,word,score", [
    ("8D RETSINA", "RETSINA", 66),   # R on D8 (DL): (1*2 + 1+1+1+1+1+1) * 2 (centre) + 50
    ("8E JOINT", "JOINT", 24),       # no letter premium: (8+1+1+1+1) * 2
    ("8D JOINT", "JOINT", 40),       # J on D8 (DL): (16+1+1+1+1) * 2
    ("8H JOINT", "JOINT", 26),       # T on L8 (DL): (8+1+1+1+1*2) * 2
])
def test_first_move_scores_by_hand(text, word, score):
    b = Board.empty(EN)
    m = Move.from_gcg(text, b, EN)
    assert b.check(m) == [word]
    assert b.score(m) == score


def test_blank_scores_zero_whatever_letter():
    b = Board.empty(EN)
    a = b.score(Move.from_gcg("8D jOINT", b, EN))
    z = b.score(Move.from_gcg("8D zOINT", b, EN))
    assert a == z == (0 * 2 + 4) * 2


def test_cross_word_next_to_board_blank_counts():
    b, s1 = play(Board.empty(EN), "8D RETsINA")     # blank s on G8
    assert s1 == (2 + 1 + 1 + 0 + 1 + 1 + 1) * 2 + 50
    m = Move.from_gcg("G7 A.", b, EN)             # A on G7 (DL) above the blank: AS down
    assert b.check(m) == ["AS"]
    assert b.score(m) == 1 * 2 + 0
    m1 = Move.from_gcg("7G A", b, EN)             # the same tile written across: no main word
    assert b.check(m1) == ["AS"] and b.score(m1) == 2
    # a cross-word through the board blank formed by a longer play along row 9
    m2 = Move.from_gcg("9F AX", b, EN)            # A under T (TA), X under s (sX? not checked)
    assert b.check(m2) == ["AX", "TA", "SX"]
    # AX: A on F9 (plain) 1 + X on G9 (DL) 16 = 17; TA: 1 + 1 = 2; sX: 0 + 16 = 16
    assert b.score(m2) == 17 + 2 + 16


def test_play_through_two_separate_groups():
    b, s = play(Board.empty(EN), "8G CAT")        # C G8, A H8 (centre), T I8
    assert s == (3 + 1 + 1) * 2
    b, s = play(b, "G8 .OW")                       # COW down: O on G9 (DL), W on G10
    assert s == 3 + 1 * 2 + 4
    b, s = play(b, "I8 .OE")                       # TOE down: O on I9 (DL), E on I10
    assert s == 1 + 2 + 1
    m = Move.from_gcg("10F A.A.S", b, EN)          # F10 A (TL), W, H10 A, E, J10 S (TL)
    assert b.check(m) == ["AWAES"]
    assert b.score(m) == 3 + 4 + 1 + 1 + 3
    assert m.gcg(EN) == "10F A.A.S" and m.gcg(EN, dots=False) == "10F AWAES"


def test_legality_errors_have_kinds():
    b, _ = play(Board.empty(EN), "8D RETSINA")
    expect = [
        (b, "8D RETSINA", None, "square-occupied"),     # parsed without the board: all new
        (b, "8B QI", b, "word-extends"),                # D8 R follows QI
        (b, "2B QI", b, "not-connected"),
        (Board.empty(EN), "1A QI", None, "centre-not-covered"),
    ]
    for board, text, parse_board, kind in expect:
        with pytest.raises(MoveError) as e:
            board.check(Move.from_gcg(text, parse_board, EN))
        assert e.value.kind == kind, text
        assert text.split()[0] in str(e.value)
    with pytest.raises(MoveError) as e:
        Move.from_gcg("O10 PILATES", None, EN)
    assert e.value.kind == "play-out-of-bounds"
    with pytest.raises(MoveError) as e:
        Move.from_gcg("9D .A", b, EN)
    assert e.value.kind == "playthrough-mismatch"
    with pytest.raises(MoveError) as e:
        b.check(Move.from_gcg("D8 R", b, EN))
    assert e.value.kind == "no-tiles"


def test_phony_and_formed_words():
    b = Board.empty(EN)
    m = Move.from_gcg("8G QXZ", b, EN)
    assert b.check(m) == ["QXZ"]
    with pytest.raises(MoveError) as e:
        b.check(m, words={"QI"})
    assert e.value.kind == "phony" and "QXZ" in str(e.value)


def test_spanish_blank_cannot_be_k_and_digraph_tiles():
    b = Board.empty(ES)
    with pytest.raises(Exception):
        Move.from_gcg("8H kA", b, ES)               # K is not a Spanish tile at all
    m = Move.from_gcg("8G [CH]I[ch]A", b, ES)
    assert b.check(m) == ["CHICHA"]
    assert b.score(m) == (5 + 1 + 0 + 1) * 2       # CH=5, blank ch=0, centre ×2
    # C + H tiles spell "CH" as two tiles: a different tile sequence, same spelling
    m2 = Move.from_gcg("8G CHI", b, ES)
    assert len(m2.tiles) == 3 and b.check(m2) == ["CHI"]


def test_play_is_immutable_and_counts():
    b0 = Board.empty(EN)
    b1, _ = play(b0, "8D RETsINA")
    assert b0.is_empty() and b1.tile_count() == 7
    v = b1.tile_counts()
    assert v[EN.blank] == 1 and v[EN.tile_id("S")] == 0 and v.sum() == 7
    assert b1.letters[7, 6] == EN.tile_id("S") and b1.blanks[7, 6]


def test_render_shows_premiums_and_tiles():
    b1, _ = play(Board.empty(EN), "8D RETsINA")
    lines = b1.render().splitlines()
    assert lines[0].split() == [chr(65 + i) for i in range(15)]
    assert lines[1].split() == ["1", "=", ".", ".", "'", ".", ".", ".", "=", ".", ".", ".", "'", ".", ".", "="]
    assert lines[8].split() == ["8", "=", ".", ".", "R", "E", "T", "s", "I", "N", "A", ".", "'", ".", ".", "="]
    es = Board.empty(ES).play(Move.from_gcg("8G [CH]I[ch]A", None, ES)).render().splitlines()
    assert es[8].split()[7:11] == ["CH", "I", "ch", "A"]


def test_canonical_one_tile_direction():
    b, _ = play(Board.empty(EN), "8D RETsINA")
    down = Move.from_gcg("7G A", b, EN)                      # no left/right neighbour: down
    c = b.canonical(down)
    assert c.gcg(EN) == "G7 A." and c.across is False and b.score(c) == b.score(down)
    side = Move.from_gcg("K8 S", b, EN)                       # right of RETsINA: across over the run
    c2 = b.canonical(side)
    assert c2.gcg(EN) == "8D .......S" and c2.n_tiles == 1 and b.check(c2) == ["RETSINAS"]
    two = Move.from_gcg("9D AB", b, EN)
    assert b.canonical(two) is two
    assert b.canonical(Move.from_gcg("K8 s", b, EN)).blank == (False,) * 7 + (True,)
