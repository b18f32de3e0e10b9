"""Duplicate: the draw rule, the master game (tops against the brute-force generator),
records, arbitration of a hand-made sheet, the trainer's logic and its screen."""
from __future__ import annotations

import asyncio
import io
import shutil
from pathlib import Path

import numpy as np
import pytest

from heuri.duplicate import (DuplicateError, arbitrate, can_draw, count_classes, draw_rack, is_valid_draw,
                             load_master, master_game, pick_top, sheet, to_gcg)
from heuri.gcg import write_gcg

DATA = Path(__file__).parent / "data"
SHEET = DATA / "duplicate" / "fr-seed1-sheet.csv"


def counts(spec, text):
    return np.bincount(spec.parse_tiles(text), minlength=spec.n_kinds).astype(np.int64)


@pytest.fixture(scope="module")
def fr_game(pack_fr):
    return master_game(pack_fr, seed=1)


@pytest.fixture(scope="module")
def es_game(pack_es):
    return master_game(pack_es, seed=3)


@pytest.fixture(scope="module")
def tiny_dup_pack(tmp_path_factory):
    """The hand-made tiny language with a [duplicate] table (1 vowel and 1 consonant a draw)."""
    from heuri.pack import load_pack
    from pipeline.build import build_pack

    src = tmp_path_factory.mktemp("tinydup") / "tinydup"
    src.mkdir()
    shutil.copy(DATA / "tiny" / "words.txt", src / "words.txt")
    text = (DATA / "tiny" / "spec.toml").read_text().replace('code = "tiny"', 'code = "tinydup"')
    text += ('\n[duplicate]\nsource = "test"\nvowels = ["A", "E"]\nboth = []\nblank = "both"\n'
             'early_turns = 2\nearly_minimum = 1\nlate_minimum = 1\ntie_rule = "board-order"\n'
             'wrong_score = "warning"\nfree_warnings = 3\nwarning_penalty = 5\n')
    (src / "spec.toml").write_text(text)
    out = tmp_path_factory.mktemp("tinydup-build") / "tinydup"
    build_pack(src / "spec.toml", out)
    return load_pack(out)


# -- the draw rule ------------------------------------------------------------------------------
def test_draw_rule_counts(pack_fr, pack_es):
    fr, es = pack_fr.spec, pack_es.spec
    assert count_classes(fr, counts(fr, "AEYBC??")) == (5, 5)     # Y and blanks count as both
    assert count_classes(es, counts(es, "AY[CH][LL][RR]Ñ?")) == (2, 6)
    assert is_valid_draw(fr, counts(fr, "ABCDFGH"), 15) is False  # 1 vowel up to turn 15
    assert is_valid_draw(fr, counts(fr, "ABCDFGH"), 16) is True   # 1 of each from turn 16
    assert is_valid_draw(fr, counts(fr, "AEIOUYB"), 1) is True    # Y is a consonant too
    assert is_valid_draw(es, counts(es, "AEIOUYB"), 1) is True
    assert is_valid_draw(es, counts(es, "AEIOUA[CH]"), 1) is False


def test_can_draw_is_the_end_condition(pack_fr):
    fr = pack_fr.spec
    assert can_draw(fr, counts(fr, "BCDFGHJKLMNPQRST"), 20) is False   # no vowel left
    assert can_draw(fr, counts(fr, "ABCDFGHJ"), 3) is False             # one vowel, 2 needed
    assert can_draw(fr, counts(fr, "ABCDFGHJ"), 16) is True
    assert can_draw(fr, counts(fr, "?BCDFGHJ"), 3) is False             # the blank covers 1 of 2
    assert can_draw(fr, counts(fr, "??BCDFGH"), 3) is True
    assert can_draw(fr, counts(fr, "AE"), 5) is False                   # no consonant
    assert can_draw(fr, counts(fr, ""), 16) is False


def test_invalid_draw_goes_back_whole(pack_fr):
    fr = pack_fr.spec
    leave = fr.parse_tiles("BCDFGH")          # six consonants: one more tile cannot make 2 vowels
    bag = fr.parse_tiles("AEIOUSTRN")
    before = sorted(leave + bag)
    d = draw_rack(fr, np.random.default_rng(5), leave, bag, turn=1)
    assert d.rejected and sorted(d.rejected[0][:6]) == sorted(leave)   # the leave went back too
    assert len(d.rejected[0]) == 7
    assert d.leave == () and len(d.new) == 7
    assert is_valid_draw(fr, d.counts(fr), 1)
    assert all(not is_valid_draw(fr, counts(fr, fr.format_tiles(r, "?")), 1) for r in d.rejected)
    assert sorted(list(d.tiles) + bag) == before                        # no tile lost or made
    # From turn 16 one vowel suffices: B..H + one tile may still be rejected, never forced.
    assert draw_rack(fr, np.random.default_rng(5), leave, fr.parse_tiles("STRN"), turn=3) is None


def test_a_long_run_of_rejections_ends_in_a_built_rack(pack_fr):
    from heuri.duplicate import MAX_REDRAWS

    fr = pack_fr.spec
    bag = fr.parse_tiles("AE" + "B" * 300)        # 2 vowels among 302 tiles: valid draws are rare
    d = draw_rack(fr, np.random.default_rng(0), [], bag, turn=1)
    assert d.forced and len(d.rejected) == MAX_REDRAWS
    assert sorted(fr.format_tiles(d.tiles, "?")) == sorted("AEBBBBB") and len(bag) == 295


def test_master_game_obeys_the_draw_rule(fr_game, es_game, pack_fr):
    for game in (fr_game, es_game):
        spec = game.spec
        prev = None
        for t in game.turns:
            assert is_valid_draw(spec, t.draw.counts(spec), t.number), (t.number, t.draw.text(spec))
            for r in t.draw.rejected:
                rc = np.bincount(np.asarray(r), minlength=spec.n_kinds)
                assert not is_valid_draw(spec, rc, t.number) and len(r) <= spec.rack_size
            if prev is not None and not t.draw.rejected:      # the leave is the last rack less its top
                left = prev.draw.counts(spec) - prev.top.rack_counts(spec)
                assert (np.bincount(np.asarray(t.draw.leave, dtype=np.int64), minlength=spec.n_kinds)
                        == left).all()
            prev = t
        assert game.end == "no valid draw"
        pool = spec.distribution() - game.final_board().tile_counts()   # the last leave + the bag
        assert not can_draw(spec, pool, len(game.turns) + 1)
    assert fr_game.total == 791 and len(fr_game.turns) == 24 and fr_game.bingos == 2
    assert sum(len(t.draw.rejected) for t in fr_game.turns) == 6


def test_master_game_is_deterministic(pack_fr, fr_game):
    again = master_game(pack_fr, seed=1)
    assert again.game_id == fr_game.game_id == "fr-8d5e444590a0"
    assert master_game(pack_fr, seed=2).game_id != fr_game.game_id


def test_tops_equal_the_brute_force_top(fr_game, es_game, tiny_dup_pack):
    from reference_movegen import ReferenceGenerator

    tiny = master_game(tiny_dup_pack, seed=4)
    assert len(tiny.turns) >= 2
    for game, pack, turns in ((tiny, tiny_dup_pack, None), (es_game, None, None), (fr_game, None, 6)):
        spec = game.spec
        if pack is None:
            from heuri.pack import load_pack
            pack = load_pack(spec.code)
        ref = ReferenceGenerator(pack)
        for t in game.turns[:turns]:
            moves = ref.placements(t.board.letters, t.board.blanks, t.draw.counts(spec))
            best = max(m[-1] for m in moves)
            assert t.score == best, (spec.code, t.number)
            assert len(t.tops) == sum(m[-1] == best for m in moves)
            assert t.bingo_moves == sum(m[-2] == spec.rack_size for m in moves)


def test_tie_rule_is_board_order(pack_fr):
    from heuri.movegen import generate

    from heuri.board import Board

    spec = pack_fr.spec
    b = Board.empty(spec)
    moves = generate(pack_fr, b.letters, b.blanks, counts(spec, "AEIRSTU"), exchanges=False)
    i = pick_top(spec, moves)
    tops = moves[moves["score"] == moves["score"].max()]
    assert moves[i]["score"] == tops["score"][0] and len(tops) > 1
    key = sorted((int(m["row"]), int(m["col"]), not m["across"]) for m in tops)[0]
    assert (int(moves[i]["row"]), int(moves[i]["col"]), not moves[i]["across"]) == key


def test_spanish_digraphs_in_draws_and_tops(es_game):
    spec = es_game.spec
    digraphs = {spec.tile_id(x) for x in ("CH", "LL", "RR")}
    drawn = {x for t in es_game.turns for x in t.draw.tiles}
    played = {x for t in es_game.turns for x, n, b in zip(t.top.tiles, t.top.new, t.top.blank) if n and not b}
    assert digraphs <= drawn and digraphs <= played
    t1 = es_game.turns[0]
    assert (t1.draw.text(spec), t1.top_word(spec), t1.score) == ("A[CH]DESST", "8D [CH]ESAS", 28)
    assert es_game.turns[17].top_word(spec) == "M6 UVi[LL]A"
    assert (es_game.total, len(es_game.turns)) == (927, 21)


# -- records ------------------------------------------------------------------------------------
def test_gcg_round_trip_and_replay(tmp_path, es_game, pack_es):
    from heuri.gcg import read_gcg, replay

    path = tmp_path / "es3.gcg"
    path.write_text(write_gcg(to_gcg(es_game)), encoding="utf-8")
    text = path.read_text()
    assert "#game-type duplicate" in text and f"#id heuri {es_game.game_id}" in text
    assert "#note turn 1: draw A[CH]DESST (2 vowels, 5 consonants; valid)" in text
    assert "#description duplicate rules: " in text
    assert read_gcg(path).warnings == []  # no #note before the first move
    back = load_master(path, pack_es)
    assert back.game_id == es_game.game_id and back.total == es_game.total
    kept = [(a.draw.text(pack_es.spec), b.draw.text(pack_es.spec)) for a, b in zip(back.turns, es_game.turns)
            if not b.draw.rejected]
    assert len(kept) >= 15 and all(a == b for a, b in kept)     # the leave+new split read back
    assert [t.top_word(pack_es.spec) for t in back.turns] == [t.top_word(pack_es.spec) for t in es_game.turns]
    r = replay(read_gcg(path), pack_es.spec, words=pack_es.words)
    assert r.mismatches == [] and len(r.steps) == len(es_game.turns)


def test_sheet_columns_and_cgp(es_game, pack_es, tmp_path):
    from heuri.game import Position

    df = sheet(es_game)
    assert df.columns[:4] == ["turn", "draw", "leave", "new"] and len(df) == len(es_game.turns)
    row = df.row(1, named=True)
    assert (row["draw"], row["position"], row["word"], row["score"], row["cumulative"]) == \
        ("DT+AAEIN", "H1", "TANDEAIS", 83, 111)
    pos = Position.from_cgp(row["cgp"], pack_es.spec)
    t = es_game.turns[1]
    assert pos.board == t.board and (pos.rack == t.draw.counts(pack_es.spec)).all() and pos.scores[0] == 28
    assert df["lexicon"].unique().to_list() == [pack_es.spec.lexicon] == [es_game.lexicon]  # the word list used
    df.write_parquet(tmp_path / "s.parquet")


def test_load_master_refuses_other_records(tmp_path, pack_fr):
    p = tmp_path / "x.gcg"
    p.write_text("#player1 a A\n#player2 b B\n>a: AEINRST 8D RETSINA +66 66\n")
    with pytest.raises(DuplicateError, match="not a duplicate master game"):
        load_master(p, pack_fr)
    p.write_text("#game-type duplicate\n#player1 master M\n>master: EEGJMUV 8D JUGEE +40 40\n")
    with pytest.raises(DuplicateError, match=r"x.gcg:3: field 'score': recorded 40, the board gives 42"):
        load_master(p, pack_fr)
    p.write_text("#game-type duplicate\n#player1 master M\n>master: EEGJMUV 8H JUGE +24 24\n")
    with pytest.raises(DuplicateError, match=r"x.gcg:3: field 'move': '8H JUGE' scores 24 but the top of EEGJMUV "
                                             r"on this board is 42 \(8D JUGEE\)"):
        load_master(p, pack_fr)


# -- arbitration --------------------------------------------------------------------------------
def test_hand_made_sheet_ranking(fr_game, pack_fr):
    from heuri.arbitration import ranking_frame, ranking_html, read_sheets

    subs = read_sheets([SHEET], fr_game)
    res = arbitrate(fr_game, subs, pack_fr.words)
    got = [(r.player, r.total, r.tops, r.warnings, r.penalty) for r in res]
    assert got == [("dave", 141, 4, 4, 5), ("alice", 114, 3, 0, 0), ("bob", 58, 1, 1, 0), ("carol", 38, 1, 0, 0)]
    bob = res[2].verdicts
    assert [v.kind for v in bob[:3]] == ["valid", "wrong-score", "missing"] and bob[1].points == 34
    carol = res[3].verdicts
    assert carol[0].kind == "illegal" and "JUGEX, not in the word list" in carol[0].reason
    assert carol[1].kind == "illegal" and "lacks" in carol[1].reason
    assert res[1].percent == pytest.approx(100 * 114 / 791)
    frame = ranking_frame(fr_game, res)
    assert frame["rank"].to_list() == [1, 2, 3, 4] and frame["t1"].to_list() == [42, 42, 24, 0]
    html = ranking_html(fr_game, res, ui_lang="en")
    assert "<td class=\"l\">dave</td>" in html and "fr-8d5e444590a0" in html
    assert f"Lexicon: {fr_game.lexicon}." in html and fr_game.lexicon
    assert "illegal: move &#39;8D JUGEX&#39; forms JUGEX, not in the word list" in html
    assert "wrong score: announced 30, the move scores 34" in html
    # a French game's page speaks French by default (FISF words), the same figures
    fr = ranking_html(fr_game, res)
    assert '<html lang="fr">' in fr and "<td class=\"l\">dave</td>" in fr
    assert f"Lexique : {fr_game.lexicon}." in fr and "Classement du duplicate (français)" in fr
    assert "score erroné : annoncé 30, le coup vaut 34" in fr and "absent : aucun bulletin rendu" in fr
    assert "Lexicon:" not in fr and "wrong score" not in fr
    es = ranking_html(fr_game, res, ui_lang="es")
    assert "puntuación errónea: anunciado 30, la jugada vale 34" in es and "Clasificación de duplicada" in es


def test_sheet_errors_name_file_line_field(fr_game, tmp_path):
    from heuri.arbitration import read_sheets

    def err(body):
        p = tmp_path / "s.csv"
        p.write_text("player,turn,move,score,game\n" + body)
        with pytest.raises(DuplicateError) as e:
            read_sheets([p], fr_game)
        assert "\n" not in str(e.value)
        return str(e.value)

    assert err("ann,1,8D JUGEE,42,\nann,1,JUGEE 8D,42,\n").endswith(
        "s.csv:3: field 'move': 'JUGEE' is not a coordinate: expected row+column (8D, across) or column+row "
        "(D8, down)")
    assert "s.csv:2: field 'move': '8D' is not '<coordinate> <word>'" in err("ann,1,8D,42,\n")
    assert "s.csv:2: field 'move': coordinate 'Z9' is off the 15x15 board" in err("ann,1,Z9 JUGEE,42,\n")
    assert "s.csv:2: field 'turn': 25 is out of range (the master game has turns 1 to 24)" in err("ann,25,8D JUGEE,,\n")
    assert "s.csv:2: field 'turn': 'x' is not a turn number" in err("ann,x,8D JUGEE,,\n")
    assert "s.csv:2: field 'score': 'lots' is not a number" in err("ann,1,8D JUGEE,lots,\n")
    assert ("s.csv:2: field 'game': 'fr-000000000000' is a sheet for another game (this master game is "
            "fr-8d5e444590a0)") in err("ann,1,8D JUGEE,42,fr-000000000000\n")
    p = tmp_path / "h.csv"
    p.write_text("name,turn,move\nann,1,8D JUGEE\n")
    with pytest.raises(DuplicateError, match=r"h.csv:1: field 'player': missing column"):
        read_sheets([p], fr_game)


def test_wrong_score_rule_zero(fr_game, pack_fr):
    import dataclasses

    from heuri.arbitration import read_sheets
    from heuri.duplicate import MasterGame

    spec = dataclasses.replace(pack_fr.spec, duplicate=dataclasses.replace(pack_fr.spec.duplicate, wrong_score="zero"))
    game = MasterGame(spec, "fr", 1, fr_game.turns, fr_game.end, fr_game.lexicon)
    res = {r.player: r for r in arbitrate(game, read_sheets([SHEET], game), pack_fr.words)}
    assert (res["dave"].total, res["dave"].tops, res["dave"].warnings, res["dave"].penalty) == (0, 0, 0, 0)
    assert res["bob"].total == 24 and res["alice"].total == 114


def test_twice_in_a_turn_scores_zero(fr_game, pack_fr, tmp_path):
    from heuri.arbitration import read_sheets

    p = tmp_path / "s.csv"
    p.write_text("player,turn,move,score\nann,1,8D JUGEE,42\nann,1,8H JUGE,24\n")
    r = arbitrate(fr_game, read_sheets([p], fr_game), pack_fr.words)[0]
    assert r.verdicts[0].kind == "illegal" and r.total == 0


def test_cli_new_and_score(tmp_path, capsys):
    from heuri.cli import main

    out = tmp_path / "g" / "fr1.gcg"
    assert main(["duplicate", "new", "--lang", "fr", "--seed", "1", "--out", str(out)]) == 0
    assert out.is_file() and out.with_suffix(".csv").is_file() and out.with_suffix(".parquet").is_file()
    assert "#note turn 1: draw EEGJMUV (3 vowels, 4 consonants; valid); rejected ADLMSTX;" in out.read_text()
    assert main(["duplicate", "new", "--lang", "fr", "--seed", "1", "--out", str(out)]) == 2   # no overwrite
    assert "already exist" in capsys.readouterr().err
    sheets = tmp_path / "sheets"
    sheets.mkdir()
    shutil.copy(SHEET, sheets / "all.csv")
    assert main(["duplicate", "score", "--game", str(out), "--sheets", str(sheets)]) == 0
    ranking = (tmp_path / "g" / "fr1-ranking.csv").read_text().splitlines()
    assert ranking[1].startswith("1,dave,141,17.83,4,4,5,0,20,42,34,38,32,0")
    assert (tmp_path / "g" / "fr1-ranking.html").is_file()
    (sheets / "bad.csv").write_text("player,turn,move,score\nzoe,99,8D JUGEE,42\n")
    capsys.readouterr()
    assert main(["duplicate", "score", "--game", str(out), "--sheets", str(sheets), "--force"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "bad.csv:2: field 'turn': 99 is out of range" in err


# -- the trainer ----------------------------------------------------------------------------------
def test_trainer_logic(fr_game, pack_fr, tmp_path):
    from heuri.arbitration import read_sheets
    from heuri.errors import MoveError
    from heuri.trainer import Trainer

    tr = Trainer(fr_game, pack_fr.words, "ann")
    with pytest.raises(MoveError, match="JUGEX, not in the word list"):
        tr.try_move("8D JUGEX")
    with pytest.raises(MoveError, match="must cover the centre"):
        tr.try_move("H4 JUGE")
    with pytest.raises(MoveError, match="is not .<coordinate> <word>."):
        tr.try_move("JUGE")
    assert tr.try_move("8H JUGE") == 24
    r = tr.finish_turn("8H JUGE", seconds=12.0)
    assert (r.score, r.is_top, len(r.refused)) == (24, False, 3)
    assert tr.try_move("E3 VAINQUE") == 34
    tr.finish_turn("E3 VAINQUE")
    tr.finish_turn(None, timed_out=True)
    assert (tr.total, tr.top_total, tr.tops) == (58, 114, 1)
    assert tr.percent == pytest.approx(100 * 58 / 114)
    tr.write_sheet(tmp_path / "me.csv")
    res = arbitrate(fr_game, read_sheets([tmp_path / "me.csv"], fr_game), pack_fr.words)[0]
    assert (res.total, res.tops, res.warnings) == (58, 1, 0)


def test_trainer_screen(fr_game, pack_fr):
    """The real prompt loop, fed through a pipe: a refused move, a sub-top, a top, then Ctrl-D."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from rich.console import Console

    from heuri.trainer import Trainer, run_async

    buf = io.StringIO()
    con = Console(file=buf, width=120)
    tr = Trainer(fr_game, pack_fr.words)

    async def go():
        with create_pipe_input() as inp:
            session = PromptSession(input=inp, output=DummyOutput())
            inp.send_text("8D JUGEX\r8H JUGE\r")
            task = asyncio.ensure_future(run_async(tr, 60, con, session, pause=False))
            for _ in range(200):
                await asyncio.sleep(0.02)
                if len(tr.results) == 1:
                    break
            inp.send_text("E3 VAINQ.E\r")
            for _ in range(200):
                await asyncio.sleep(0.02)
                if len(tr.results) == 2:
                    break
            inp.send_text("\x04")
            return await asyncio.wait_for(task, 10)

    asyncio.run(go())
    out = buf.getvalue()
    assert "refused: move '8D JUGEX' forms JUGEX, not in the word list" in out
    assert "you: 8H JUGE 24   top: 8D JUGEE 42   -18" in out
    assert "you: E3 VAINQ.E 34   top: E3 VAINQ(U)E 34   top!   total 58 / 76 = 76.3 %, 1 tops" in out
    assert [r.score for r in tr.results] == [24, 34]


# -- the spec table --------------------------------------------------------------------------------
def test_spec_duplicate_table(tmp_path, tiny_pack):
    from heuri.errors import SpecError
    from heuri.spec import load_spec

    fr = load_spec("fr").duplicate
    assert (fr.vowels, fr.both, fr.blank, fr.early_turns, fr.early_minimum, fr.late_minimum) == \
        (("A", "E", "I", "O", "U"), ("Y",), "both", 15, 2, 1)
    assert (fr.wrong_score, fr.free_warnings, fr.warning_penalty) == ("warning", 3, 5)
    assert load_spec("es").duplicate.both == ()
    with pytest.raises(DuplicateError, match=r"Tiny \(tiny\): its spec.toml has no \[duplicate\] table"):
        master_game(tiny_pack, seed=1)
    base = (DATA / "tiny" / "spec.toml").read_text()
    table = ('\n[duplicate]\nsource = "x"\nvowels = ["A", "E"]\nboth = []\nblank = "both"\nearly_turns = 2\n'
             'early_minimum = 1\nlate_minimum = 1\ntie_rule = "board-order"\nwrong_score = "warning"\n'
             'free_warnings = 3\nwarning_penalty = 5\n')
    for change, message in ((('vowels = ["A", "E"]', 'vowels = ["A", "Q"]'), r"'vowels' lists \['Q'\]"),
                            (('blank = "both"', 'blank = "any"'), "blank must be one of"),
                            (('early_turns = 2', 'early_turns = "2"'), "field 'early_turns' must be int"),
                            (('tie_rule = "board-order"\n', ''), "missing field 'tie_rule'")):
        p = tmp_path / "spec.toml"
        p.write_text(base + table.replace(*change))
        with pytest.raises(SpecError, match=r"\[duplicate\]: " + message):
            load_spec(p)


def test_septet_probability_is_the_hypergeometric_sum(pack_fr, fr_game):
    from heuri.duplicate import septet_probability
    from heuri.probability import key_rows, p_key

    spec = pack_fr.spec
    rows = key_rows(pack_fr)[np.asarray(pack_fr.keys.is_septet)]
    kc = np.zeros((len(rows), spec.n_kinds), np.int64)
    for j in range(rows.shape[1]):
        np.add.at(kc, (np.arange(len(rows)), rows[:, j].astype(np.int64)), 1)
    t = fr_game.turns[2]                       # leave M kept from turn 2
    leave = np.bincount(np.asarray(t.draw.leave, dtype=np.int64), minlength=spec.n_kinds)
    U = spec.distribution() - t.board.tile_counts() - leave
    want = float(p_key(U, leave, kc, bag_size=int(U.sum())).sum())
    assert t.p_septet == pytest.approx(want, rel=1e-9)
    assert septet_probability(pack_fr, t.board, leave) == pytest.approx(want, rel=1e-9)
    assert 0.0 < fr_game.turns[0].p_septet < 1.0


def test_trainer_screen_shows_tile_brackets(es_game, pack_es):
    """A Spanish refusal keeps its [ch] (a blank CH), which rich would read as markup."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from rich.console import Console

    from heuri.trainer import Trainer, run_async

    buf = io.StringIO()
    tr = Trainer(es_game, pack_es.words)

    async def go():
        with create_pipe_input() as inp:
            inp.send_text("8d [ch]esas\r8D [CH]ESAS\r")
            task = asyncio.ensure_future(run_async(tr, 60, Console(file=buf, width=150),
                                                   PromptSession(input=inp, output=DummyOutput()), pause=False))
            for _ in range(200):
                await asyncio.sleep(0.02)
                if tr.results:
                    break
            inp.send_text("\x04")
            return await asyncio.wait_for(task, 10)

    asyncio.run(go())
    out = buf.getvalue()
    assert "refused: move '8d [ch]esas': the draw A[CH]DESST lacks ?????" in out
    assert "you: 8D [CH]ESAS 28   top: 8D CHESAS 28 (equal tops: 8D CHETAS)   top!" in out
    assert "draw: A[CH]DESST" in out


def test_fisf_notation(fr_game, pack_fr, tmp_path):
    """The French federation's references: rows A-O, columns 1-15, row letter first = across."""
    from heuri.arbitration import read_sheets
    from heuri.errors import MoveError
    from heuri.trainer import Trainer

    tr = Trainer(fr_game, pack_fr.words, notation="fisf")
    assert tr.try_move("H4 JUGEE") == 42                  # GCG 8D JUGEE
    assert tr.top(fr_game.turns[0]) == "H4 JUGEE" and tr.top(fr_game.turns[1]) == "5C VAINQ(U)E"
    with pytest.raises(MoveError, match=r"'H16 JUGEE' \(FISF; GCG '8P JUGEE'\): coordinate '8P' is off"):
        tr.try_move("H16 JUGEE")
    tr.finish_turn("H4 JUGEE")
    with pytest.raises(MoveError, match=r"^'E3 VAINQUE' \(FISF; GCG '5C VAINQUE'\): move '5C VAINQUE' does not touch"):
        tr.try_move("E3 VAINQUE")
    assert tr.try_move("5C VAINQUE") == 34                # GCG E3 VAINQUE (column 5 = E, row C = 3)
    p = tmp_path / "s.csv"
    p.write_text("player,turn,move,score\nann,1,H4 JUGEE,42\nann,2,5C VAINQUE,34\n")
    res = arbitrate(fr_game, read_sheets([p], fr_game, "fisf"), pack_fr.words)[0]
    assert (res.total, res.tops) == (76, 2) and res.verdicts[0].move == "8D JUGEE"
    text = fr_game.turns[1].board.render(rows_as_letters=True).splitlines()
    assert text[0].split()[:3] == ["1", "2", "3"] and text[8].split()[:5] == ["H", "=", ".", ".", "J"]
