"""A move's value as named terms (heuri.eval.explain): the terms add up to the engine's
equity for every engine of the registry, on real positions; the French opening of
tests/data/gcg/fr/001.gcg (ABEEGRV on an empty board) explained with its real figures."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data"


def _position(pack, path, n):
    """(letters, blanks, rack, U, bag size) after ``n`` events of a real record, with the rack
    of event n + 1."""
    from heuri.eval.probability import augmented_bag
    from heuri.formats.gcg import read_gcg_file, replay

    spec = pack.spec
    r = replay(read_gcg_file(path), spec)
    ev = r.steps[n].event
    board = r.board_at(n)
    rack = np.bincount(spec.parse_tiles(ev.rack), minlength=spec.n_kinds).astype(np.int64)
    U = augmented_bag(spec, board.letters, board.blanks, rack)
    return board, rack, U, max(0, int(U.sum()) - spec.rack_size)


@pytest.fixture(scope="module")
def fr_opening(pack_fr):
    return _position(pack_fr, DATA / "gcg" / "fr" / "001.gcg", 1)


@pytest.fixture(scope="module")
def en_midgame(pack_en):
    # after 10 events of a real English game: a board with lanes to open and close
    return _position(pack_en, DATA / "gcg" / "en" / "001.gcg", 10)


def _rank(pack, pos, engine):
    from heuri.eval.evaluate import make_evaluator

    board, rack, U, bag = pos
    return make_evaluator(pack, engine).rank_arrays(board.letters, board.blanks, rack, U, bag)


def test_terms_sum_to_the_equity_for_every_engine(pack_fr, pack_en, fr_opening, en_midgame):
    from heuri.eval.engines import ENGINES
    from heuri.eval.explain import explain_ranking

    for pack, pos in ((pack_fr, fr_opening), (pack_en, en_midgame)):
        for name in ENGINES:
            rk = _rank(pack, pos, name)
            assert len(rk) > 20
            terms = explain_ranking(rk, pack.spec)
            gap = max(abs(t.total() - t.equity) for t in terms)
            assert gap < 1e-9, (name, gap)
            # the terms an engine does not use are 0
            used = {k for t in terms for k, x in t.terms().items() if x != 0}
            if name == "greedy":
                assert used == {"score"}
            elif name in ("heuri2", "heuri3", "heuri2-noend", "heuri3-noend", "heuri3-peg"):
                assert used <= {"score", "bingo"}
            elif name.startswith("heuri5"):
                assert {"score", "bingo", "leave", "power", "lanes"} <= used
                assert "defence" not in used


def test_french_opening_exchange_v_over_verbe(pack_fr, fr_opening):
    """heuri5 exchanges the V (equity 28.20) rather than play VERBE for 28 (19.96): VERBE keeps
    AG (a bingo next turn worth 15.27 against 34.21 with ABEEGR) and opens the board's
    lanes to the opponent (−16.61: three times their bingo expectation gained)."""
    from heuri.eval.explain import ExplainError, explain_ranking, find_move, move_terms

    board = fr_opening[0]
    rk = _rank(pack_fr, fr_opening, "heuri5")
    best = move_terms(rk, pack_fr.spec, 0)
    assert best.move == "-V" and best.leave_tiles == "ABEEGR"
    assert (best.score, best.lanes) == (0.0, 0.0)
    assert best.bingo == pytest.approx(34.21, abs=0.005)
    assert best.bingo_probability == pytest.approx(0.68, abs=0.005)
    assert best.equity == pytest.approx(28.20, abs=0.005)
    i = find_move(rk, pack_fr.spec, "8D VERBE", board)
    verbe = move_terms(rk, pack_fr.spec, i)
    assert verbe.move == "8D VERBE" and verbe.leave_tiles == "AG" and verbe.lanes_known
    assert verbe.score == 28.0
    assert verbe.bingo == pytest.approx(15.27, abs=0.005)
    assert verbe.lanes == pytest.approx(-16.61, abs=0.005)
    assert verbe.equity == pytest.approx(19.96, abs=0.005)
    d = best.difference(verbe)
    assert d["score"] == -28.0
    assert d["bingo"] + d["lanes"] == pytest.approx(18.94 + 16.61, abs=0.01)
    assert d["equity"] == pytest.approx(8.24, abs=0.01)
    assert sum(d[k] for k in best.terms()) == pytest.approx(d["equity"], abs=1e-9)
    # the same move found from other spellings of it
    assert find_move(rk, pack_fr.spec, "  8D VERBE ", board) == i
    with pytest.raises(ExplainError, match="not among"):  # lower case: blanks, not on the rack
        find_move(rk, pack_fr.spec, "8D verbe", board)
    assert move_terms(rk, pack_fr.spec, find_move(rk, pack_fr.spec, "-V", board)).rank == 1
    assert explain_ranking(rk, pack_fr.spec, 3)[0] == best


def test_find_move_errors(pack_fr, fr_opening):
    from heuri.core.errors import MoveError
    from heuri.eval.explain import ExplainError, find_move, move_terms

    rk = _rank(pack_fr, fr_opening, "greedy")
    with pytest.raises(ExplainError, match="'8D ZZZ' is not among the"):
        find_move(rk, pack_fr.spec, "8D ZZZ", fr_opening[0])
    with pytest.raises(MoveError, match="expected '<coordinate> <word>'"):
        find_move(rk, pack_fr.spec, "VERBE", fr_opening[0])
    with pytest.raises(ExplainError, match="move index 5000"):
        move_terms(rk, pack_fr.spec, 5000)
    assert issubclass(ExplainError, ValueError)


def test_cli_best_explain_and_why_not(pack_fr, capsys):
    import json

    from heuri.cli import main

    gcg = str(DATA / "gcg" / "fr" / "001.gcg")
    assert main(["best", "--gcg", gcg, "--turn", "2", "--explain", "--json", "--top", "2"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["move"] for r in rows] == ["-V", "8D GAVEE"]
    assert rows[0]["terms"]["equity"] == rows[0]["equity"] == pytest.approx(28.1994, abs=1e-4)
    assert rows[1]["terms"]["lanes_known"] is False  # pruned: not re-valued after the move

    assert main(["best", "--gcg", gcg, "--turn", "2", "--explain", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "Legend" in out and "lanes for the opponent: Bingo lanes the move opens" in out

    # a move the engine did not re-value is re-valued for the answer (its lanes computed)
    assert main(["best", "--gcg", gcg, "--turn", "2", "--why-not", "8H BRAVEE", "--json"]) == 0
    w = json.loads(capsys.readouterr().out)
    assert w["choice"]["move"] == "-V" and w["choice"]["equity"] == pytest.approx(28.1994, abs=1e-4)
    assert w["move"]["lanes_known"] is True
    assert w["move"]["lanes"] == pytest.approx(-19.79, abs=0.005)
    assert w["difference"]["equity"] == pytest.approx(28.1994 - w["move"]["equity"], abs=1e-3)

    assert main(["best", "--gcg", gcg, "--turn", "2", "--why-not", "8D VERBE"]) == 0
    out = capsys.readouterr().out
    assert "heuri5 prefers -V (equity 28.20) to 8D VERBE (equity 19.96, ranked 63): 8.24" in out
    assert "lanes for the opponent: 16.61 points in favour of -V" in out

    assert main(["best", "--gcg", gcg, "--turn", "2", "--why-not", "8D VERBZ"]) == 2
    assert "'8D VERBZ' is not among the 321 legal moves" in capsys.readouterr().err


def test_web_explain_endpoint(pack_fr):
    """POST /api/explain: the terms of the ranked moves, the legend, and "why not" a move."""
    import warnings

    from heuri.web.app import create_app
    from heuri.web.service import Service

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        client = TestClient(create_app(Service(packs={"fr": pack_fr}), warm=False, port=8765),
                            base_url="http://127.0.0.1:8765")
    cgp = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ABEEGRV/ 0/0 0"
    r = client.post("/api/explain", json={"lang": "fr", "cgp": cgp, "top": 3})
    assert r.status_code == 200
    d = r.json()
    assert d["engine"] == "heuri5" and d["count"] == 321 and d["why_not"] is None
    assert [t["move"] for t in d["terms"]] == ["-V", "8D GAVEE", "8H BRAVEE"]
    assert d["terms"][0]["equity"] == pytest.approx(28.1994, abs=1e-4)
    assert [x[0] for x in d["legend"]] == ["score", "bingo", "lanes", "leave", "power", "blank", "defence"]
    r = client.post("/api/explain", json={"lang": "fr", "cgp": cgp, "move": "8D VERBE"})
    w = r.json()["why_not"]
    assert w["move"]["move"] == "8D VERBE" and w["move"]["rank"] == 63
    assert w["difference"]["equity"] == pytest.approx(8.2356, abs=1e-4)
    assert w["difference"]["lanes"] == pytest.approx(16.6057, abs=1e-4)
    r = client.post("/api/explain", json={"lang": "fr", "cgp": cgp, "move": "8D VERBZ"})
    assert r.status_code == 400 and "'8D VERBZ' is not among the 321 legal moves" in r.json()["error"]
    r = client.post("/api/explain", json={"lang": "fr", "cgp": cgp, "moves": "8D VERBE"})
    assert r.status_code == 400


def test_turn_numbers_are_moves_of_the_game(capsys):
    """Turn N is the Nth move of the record, both players counted; the withdrawal of en/001's
    MAZEY (line 8, ``--``) is not a turn: turn 6 is p2's ALGAE, and ``show --turn 5`` draws
    the board after turn 5 with MAZEY taken off again."""
    from heuri.cli import main

    gcg = str(DATA / "gcg" / "en" / "001.gcg")
    assert main(["show", gcg, "--lang", "en", "--turn", "5"]) == 0
    out = capsys.readouterr().out
    assert "after turn 5 (line 8): >p1: AEIMPYZ -- -67 110" in out
    assert "* p2 (Player Two):  164  AAEGL" in out
    assert main(["best", "--gcg", gcg, "--lang", "en", "--turn", "6", "--json", "--top", "1",
                 "--engine", "greedy"]) == 0
    import json

    row = json.loads(capsys.readouterr().out)
    assert row["move"] == "H11 ALGAE" and row["score"] == 26  # the record's move is greedy's here
    assert main(["best", "--gcg", gcg, "--lang", "en", "--turn", "0"]) == 2
    assert "give 1 to" in capsys.readouterr().err


def test_find_move_reads_the_whole_word_form(pack_fr):
    """Turn 4 of fr/001: p2 plays E3 FILAG. through the E of VERBE; the whole word with the
    played-through tile in parentheses, or written out, is the same move."""
    from heuri.eval.explain import find_move, move_terms

    pos = _position(pack_fr, DATA / "gcg" / "fr" / "001.gcg", 3)
    rk = _rank(pack_fr, pos, "greedy")
    i = find_move(rk, pack_fr.spec, "E3 FILAG.", pos[0])
    assert move_terms(rk, pack_fr.spec, i).move == "E3 FILAG." and move_terms(rk, pack_fr.spec, i).score == 20
    assert find_move(rk, pack_fr.spec, "E3 FILAG(E)", pos[0]) == i
    assert find_move(rk, pack_fr.spec, "E3 FILAGE", pos[0]) == i


def test_find_move_reads_spanish_words_as_they_are_shown(pack_es, capsys):
    """Turn 13 of tests/data/es_pass_with_bingo.gcg: 10H TULL(I)D, as the tables print it
    (LL one tile, written as letters), is the GCG move 10H TU[LL].D; a bare word that only
    reads as GCG (two L tiles) is still found that way; --why-not takes the printed form."""
    from heuri.cli import main
    from heuri.eval.explain import find_move, move_terms

    pos = _position(pack_es, DATA / "es_pass_with_bingo.gcg", 12)
    rk = _rank(pack_es, pos, "heuri5")
    i = find_move(rk, pack_es.spec, "10H TU[LL].D", pos[0])
    assert move_terms(rk, pack_es.spec, i).move == "10H TU[LL].D" and move_terms(rk, pack_es.spec, i).score == 29
    assert find_move(rk, pack_es.spec, "10H TULL(I)D", pos[0]) == i
    assert find_move(rk, pack_es.spec, "10H TULLID", pos[0]) == i
    assert main(["best", "--gcg", str(DATA / "es_pass_with_bingo.gcg"), "--turn", "13",
                 "--why-not", "10H TULL(I)D"]) == 0
    out = capsys.readouterr().out
    assert "TULL(I)D" in out and "E8 TALLUD(A)" in out
