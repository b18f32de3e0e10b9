"""Moves as people read them (heuri.formats.render.move_text / parse_move_text) and the
French federation's coordinates, on real records and real boards."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heuri.core.errors import MoveError
from heuri.core.move import Exchange, Move, Pass, Placement, format_coord, parse_coord
from heuri.core.spec import load_spec
from heuri.formats.gcg import read_gcg_file, replay
from heuri.formats.render import line_text, move_text, parse_move_text, recoord
from shared_cases import CASES

ES_RECORD = CASES / "es" / "001.gcg"


# -- coordinates -----------------------------------------------------------------------------------
def test_fisf_coordinates_name_the_same_squares():
    # standard 8D (row 8, column D, across) is FISF H4; standard D8 (down) is FISF 4H
    assert format_coord(7, 3, True, "fisf") == "H4" and format_coord(7, 3, False, "fisf") == "4H"
    assert parse_coord("H4", coords="fisf") == parse_coord("8D") == (7, 3, True)
    assert parse_coord("4h", coords="fisf") == parse_coord("D8") == (7, 3, False)
    assert parse_coord("O15", coords="fisf") == (14, 14, True) and format_coord(0, 14, False, "fisf") == "15A"
    with pytest.raises(MoveError, match=r"'P4' is off the 15x15 board"):
        parse_coord("P4", coords="fisf")
    with pytest.raises(MoveError, match=r"expected row letter\+column \(H4, across\)"):
        parse_coord("H", coords="fisf")
    with pytest.raises(MoveError, match=r"coordinate notation 'french': expected one of standard, fisf"):
        format_coord(0, 0, True, "french")


# -- real records ----------------------------------------------------------------------------------
def _record_moves(path, spec):
    r = replay(read_gcg_file(path), spec)
    for i, step in enumerate(r.steps):
        ev = step.event
        if ev.kind in ("play", "exchange", "pass"):
            board = r.board_at(i)
            yield ev, board, Move.from_gcg(ev.move, board, spec)


@pytest.mark.parametrize("lang", ["es", "fr", "en"])
def test_every_move_of_a_real_record_round_trips(lang):
    spec = load_spec(lang)
    n = 0
    for _, board, m in _record_moves(CASES / lang / "001.gcg", spec):
        for coords in ("standard", "fisf"):
            text = move_text(m, spec, board, coords)
            assert parse_move_text(text, spec, board, coords) == m
            assert parse_move_text(text, spec, None, coords) == m  # the parentheses alone say what was there
            n += 1
    assert n > 30


def test_real_records_read_as_players_write_them():
    es, fr, en = load_spec("es"), load_spec("fr"), load_spec("en")
    seen = {ev.line: (move_text(m, es, b), move_text(m, es, b, "fisf")) for ev, b, m in _record_moves(ES_RECORD, es)}
    assert seen[13] == ("6G (L)UELLO", "F7 (L)UELLO")   # GCG 6G .UE[LL]O: the LL tile, no brackets
    assert seen[32] == ("9A MARR(O)", "I1 MARR(O)")     # GCG 9A MA[RR].
    assert seen[18] == ("1G CHICAS", "A7 CHICAS")       # GCG 1G [CH]ICAS (across: row A, column 7)
    assert seen[20] == ("N4 ÑaJO", "14D ÑaJO")          # a blank in lower case (down: column 14, row D)
    fr_seen = {ev.line: move_text(m, fr, b, "fisf") for ev, b, m in _record_moves(CASES / "fr" / "001.gcg", fr)}
    assert fr_seen[10] == "5C FILAG(E)"                 # GCG E3 FILAG. (down: column 5, row C)
    assert fr_seen[11] == "F4 M(A)X"                    # GCG 6D M.X (across: row F, column 4)
    en_seen = {ev.line: move_text(m, en, b) for ev, b, m in _record_moves(CASES / "en" / "001.gcg", en)}
    assert en_seen[6] == "1H MA(s)TERLy"                # a played-through blank, lower case


def test_a_move_through_the_rr_tile_on_a_real_board(pack_es):
    """The board at the end of a real Spanish record (9A MA[RR]. its last play): moves
    through the RR tile, as the move generator finds them for the rack ACDEHOS."""
    from heuri.core.movegen import generate

    spec = pack_es.spec
    r = replay(read_gcg_file(ES_RECORD), spec)
    board = r.board_at(23)
    assert r.steps[22].event.move == "9A MA[RR]."
    rack = np.bincount(spec.parse_tiles("ACDEHOS"), minlength=spec.n_kinds).astype(np.int64)
    moves = generate(pack_es, board.letters, board.blanks, rack, exchanges=False)
    shown = {move_text(Move.from_record(rec, spec), spec, board): int(rec["score"]) for rec in moves}
    assert shown["C8 A(RR)E(A)"] == 19 and shown["9A (MARRO)S"] == 27
    m = parse_move_text("C8 A(RR)E(A)", spec, board)
    assert m == Move.from_gcg("C8 A.E.", board, spec) and board.score(m) == 19
    assert move_text(m, spec, board, "fisf") == "3H A(RR)E(A)"
    assert parse_move_text("3H A(RR)E(A)", spec, board, "fisf") == m
    assert parse_move_text("C8 A[RR]E(A)", spec, board) == m  # GCG's brackets, letters on the board written out
    with pytest.raises(MoveError, match=r"\(RR\) at 7C but that square is empty"):
        parse_move_text("C7 (RR)AE", spec, board)
    with pytest.raises(MoveError, match=r"'R' at 9C but the board has RR there"):
        parse_move_text("C8 A(R)E(A)", spec, board)
    with pytest.raises(MoveError, match=r"unbalanced '\)' at position 2"):
        parse_move_text("C8 A)RR(E", spec, board)


def test_a_word_whose_letters_would_join_is_bracketed():
    """A C tile then an H tile (no word of the lexicon has one: its words are read longest
    tile first) is written so that it reads back as two tiles."""
    es = load_spec("es")
    C, H, CH, A = (es.tiles.index(x) for x in ("C", "H", "CH", "A"))
    two = Placement(7, 3, True, (C, H, A), (True, True, True), (False, False, False))
    one = Placement(7, 3, True, (CH, A), (True, True), (False, False))
    assert move_text(two, es) == "8D C[H]A" and move_text(one, es) == "8D CHA"
    assert parse_move_text("8D C[H]A", es) == two and parse_move_text("8D CHA", es) == one
    mixed = Placement(7, 3, True, (CH, C, H), (True, False, False), (False, False, False))
    assert move_text(mixed, es) == "8D [CH](C[H])" and parse_move_text("8D [CH](C[H])", es) == mixed


def test_exchanges_and_passes():
    es = load_spec("es")
    assert move_text(Pass(), es) == "pass" and parse_move_text("pass", es) == Pass() == parse_move_text("-", es)
    ex = Exchange((es.tiles.index("CH"), es.blank), 2)
    assert move_text(ex, es) == "-[CH]?" and parse_move_text("-[CH]?", es) == ex
    assert parse_move_text("-4", es) == Exchange(None, 4)
    assert recoord("8G CA(RR)OÑE", "fisf") == "H7 CA(RR)OÑE" and recoord("-QV", "fisf") == "-QV"


@st.composite
def _placements(draw, spec):
    n = spec.board_size
    length = draw(st.integers(1, 8))
    across = draw(st.booleans())
    row = draw(st.integers(0, n - 1 if across else n - length))
    col = draw(st.integers(0, n - length if across else n - 1))
    tiles = tuple(draw(st.lists(st.integers(0, len(spec.tiles) - 1), min_size=length, max_size=length)))
    new = tuple(draw(st.lists(st.booleans(), min_size=length, max_size=length)))
    blank = tuple(b and nw for b, nw in zip(draw(st.lists(st.booleans(), min_size=length, max_size=length)), new))
    return Placement(row, col, across, tiles, new, blank)


@pytest.mark.parametrize("lang", ["es", "ca", "fr"])
def test_parse_of_the_display_form_gives_the_move_back(lang):
    """parse(format(m)) == m for any placement (any tiles, phonies included), both notations."""
    spec = load_spec(lang)

    @settings(max_examples=150, deadline=None)
    @given(_placements(spec), st.sampled_from(["standard", "fisf"]))
    def check(m, coords):
        text = move_text(m, spec, coords=coords)
        assert parse_move_text(text, spec, coords=coords) == m, text

    check()


# -- the command line ------------------------------------------------------------------------------
def test_cli_best_and_moves_show_whole_words(pack_es, capsys):
    from heuri.cli import main

    assert main(["best", "--gcg", str(ES_RECORD), "--turn", "13", "--top", "3", "--json", "--coords", "fisf"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["move"], r["word"], r["score"]) for r in rows] == [
        ("15D DEBUT", "O4 DEBUT", 47), ("C5 DEBUT", "3E DEBUT", 20), ("5C DUBD.", "E3 DUBD(A)", 18)]
    assert main(["best", "--gcg", str(ES_RECORD), "--turn", "13", "--top", "3"]) == 0
    assert "5C DUBD(A)" in capsys.readouterr().out


def test_cli_endgame_table_shows_whole_words(pack_en, capsys):
    from heuri.cli import main
    from test_endgame import NO_VS_A

    assert main(["endgame", "--lang", "en", "--cgp", NO_VS_A, "--top", "2", "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["move"], r["word"]) for r in rows] == [("11H ON", "11H ON"), ("1A O.", "1A O(F)")]
    assert main(["endgame", "--lang", "en", "--cgp", NO_VS_A, "--top", "2", "--coords", "fisf"]) == 0
    out = capsys.readouterr().out
    assert "K8 ON" in out and "A1 O(F)" in out and "best K8 ON value +15" in out


def test_line_text_plays_each_move_on_the_board_before_the_next():
    en = load_spec("en")
    from heuri.core.board import Board

    b = Board.empty(en)
    first = Move.from_gcg("8D aT", b, en)
    second = Move.from_gcg("D7 B.D", b.play(first), en)
    assert line_text([first, second], en, b) == "8D aT D7 B(a)D"
    assert line_text([first, Pass()], en, b, "fisf") == "H4 aT pass"


# -- the web API -----------------------------------------------------------------------------------
WEB_GAME = __import__("pathlib").Path(__file__).parent / "data" / "es_pass_with_bingo.gcg"
OPENING = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEIRS[CH]?/ 0/0 0"


@pytest.fixture(scope="module")
def web(pack_es):
    pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e .[web])")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from heuri.web.app import create_app
    from heuri.web.service import Service

    with TestClient(create_app(Service(packs={"es": pack_es}), port=8765), base_url="http://127.0.0.1:8765") as c:
        yield c


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_web_answers_carry_the_word_beside_the_move(web):
    d = web.post("/api/game", json={"gcg": WEB_GAME.read_text(encoding="utf-8"), "name": WEB_GAME.name,
                                    "coords": "fisf"}).json()
    shown = [(t["move"], t["word"]) for t in d["turns"]]
    assert shown[1] == ("K4 ALBR.CIE", "11D ALBR(I)CIE") and shown[3] == ("H1 HE[RR].", "8A HERR(E)")
    assert shown[9] == ("A9 ASE[CH].DO", "1I ASECH(A)DO") and shown[14] == ("-", "pass")
    cgp = next(t for t in d["turns"] if t["rack"] == "ABDJ[LL]TU")["cgp"]
    rows = web.post("/api/best", json={"lang": "es", "cgp": cgp, "top": 2, "engine": "heuri3",
                                       "coords": "fisf"}).json()["rows"]
    assert [(r["move"], r["word"], r["score"]) for r in rows] == [("10H TU[LL].D", "J8 TULL(I)D", 29),
                                                                 ("1N JU", "A14 JU", 36)]
    moves = web.post("/api/moves", json={"lang": "es", "cgp": cgp, "top": 1}).json()["moves"]
    assert (moves[0]["move"], moves[0]["word"]) == ("E9 [LL]AJU.", "E9 LLAJU(A)")  # the top score
    # a move typed as people write it, in FISF: the same move as GCG's 8D [CH]IScARE
    p = web.post("/api/preview", json={"lang": "es", "cgp": OPENING, "move": "H4 CHIScARE", "coords": "fisf"}).json()
    assert (p["move"], p["word"], p["score"]) == ("8D [CH]IScARE", "H4 CHIScARE", 80)
    r = web.post("/api/preview", json={"lang": "es", "cgp": OPENING, "move": "8D CHIScARE", "coords": "french"})
    assert r.status_code == 400 and "coords: 'french'; choose one of standard, fisf" in r.text


# -- the analysis report ---------------------------------------------------------------------------
def test_the_report_writes_whole_words_in_fisf(pack_fr):
    from heuri.apps.analyze import Analyzer
    from heuri.apps.report import game_html, index_html

    g = Analyzer("heuri3").analyze(str(CASES / "fr" / "001.gcg"), lang="fr", game_id="001", pack=pack_fr)
    row = next(r for r in g.rows if r["line"] == 10)
    assert (row["move"], row["word"]) == ("E3 FILAG.", "E3 FILAG(E)")  # the table keeps standard coordinates
    page = game_html(g, coords="fisf")
    assert "<b>5C FILAG(E)</b>" in page and "E3 FILAG" not in page
    # the board labelled to match: rows A-O down the side, columns 1-15 across the top
    assert 'class="cl" data-i="0">1</text>' in page and 'class="rl" data-i="7">H</text>' in page
    best = next(r for r in g.rows if r["analysed"] and "(" in (r["best_word"] or ""))
    before = g.views[g.rows.index(best)].before
    assert best["best_word"] == move_text(Move.from_gcg(best["best"], before, pack_fr.spec), pack_fr.spec, before)
    assert f"<b>{recoord(best['best_word'], 'fisf')}</b>" in page
    index = index_html([g.summary()], g.rows, engine="heuri3", coords="fisf")
    worst = sorted((r for r in g.rows if r["analysed"] and r["rack_known"] and r["equity_lost"] is not None),
                   key=lambda r: -r["equity_lost"])[0]
    assert f"<td>{recoord(worst['word'], 'fisf')}</td><td>{recoord(worst['best_word'], 'fisf')}</td>" in index



def test_replay_names_a_mismatched_play_by_its_word(tmp_path, capsys):
    from heuri.cli import main

    record = tmp_path / "mismatch.gcg"
    record.write_text("#lexicon FILE2017\n#player1 p1 One\n#player2 p2 Two\n>p1: APRSTUZ 8G PUT +10 10\n"
                      ">p2: AAEGILN G5 ALI.EGAN +60 60\n", encoding="utf-8")  # ALIPEGAN scores 63
    assert main(["replay", str(record), "--coords", "fisf"]) == 1
    out = capsys.readouterr().out
    assert "7E ALI(P)EGAN" in out and "G5 ALI.EGAN" not in out
