"""Property-based fuzzing of every parser that takes a user's text: GCG records,
CGP positions, move notation (GCG and SIU), racks, and the SIU command loop. Every input
gives a result or the project's own error (a HeuriError) whose message names the input's
place; never another exception. Round trips: parse → format → parse is the same value for
moves, racks and CGP.

The suite runs a few thousand examples in all; ``HEURI_FUZZ_EXAMPLES=N`` sets the examples
per test for a long run (e.g. ``HEURI_FUZZ_EXAMPLES=10000 pytest tests/test_fuzz.py``).
"""
from __future__ import annotations

import io
import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heuri.board import Board
from heuri.cgp import CgpRecord, format_cgp, parse_cgp
from heuri.errors import CgpError, GcgError, HeuriError, MoveError
from heuri.game import Position
from heuri.gcg import read_gcg, replay
from heuri.move import Exchange, Move, Pass, Placement, format_rack, parse_rack
from heuri.spec import load_spec

EXAMPLES = int(os.environ.get("HEURI_FUZZ_EXAMPLES", "250"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize="HEURI_FUZZ_EXAMPLES" not in os.environ,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
SPECS = {c: load_spec(c) for c in ("es", "en", "fr")}
ES, EN = SPECS["es"], SPECS["en"]


# -- text pieces a user might type --------------------------------------------------------------
def _tile_texts(spec):
    out = []
    for t in spec.tiles:
        out += [f"[{t}]" if len(t) > 1 else t, (f"[{t}]" if len(t) > 1 else t).lower()]
    return out


PIECES = sorted(set(_tile_texts(ES) + _tile_texts(EN) + [
    "?", ".", "[", "]", "[CH", "[]", "[c]", "Ñ", "ñ", "ß", "é", "1", "0", "15", "16", "-", "--", "+", " ",
    "(", ")", ";", ":", "/", "#", ">", "\t", "\ufeff", "\u00a0", "ﬁ", "İ", "x" * 3])) 
tile_text = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
any_text = st.one_of(tile_text, st.text(max_size=30))
coord = st.one_of(st.builds(lambda r, c: f"{r}{c}", st.integers(0, 17), st.sampled_from("ABCHOPQaho")),
                  st.builds(lambda r, c: f"{c}{r}", st.integers(0, 17), st.sampled_from("ABCHOPQaho")),
                  any_text)


def _assert_own_error(e: Exception, *places: str) -> None:
    """The project's error, naming at least one of ``places`` (or a field name)."""
    assert isinstance(e, HeuriError), f"{type(e).__name__}: {e}"
    msg = str(e)
    assert msg, "an error without a message"
    if places:
        assert any(p and p in msg for p in places), f"{msg!r} names none of {places!r}"


# -- racks ---------------------------------------------------------------------------------------
@FUZZ
@given(text=any_text, lang=st.sampled_from(sorted(SPECS)))
def test_rack_text_parses_or_says_where(text, lang):
    spec = SPECS[lang]
    try:
        ids = parse_rack(text, spec)
    except Exception as e:  # noqa: BLE001 — the property is about the exception's type
        _assert_own_error(e, "rack")
        return
    assert all(0 <= t < spec.n_kinds for t in ids)


@FUZZ
@given(data=st.data(), lang=st.sampled_from(sorted(SPECS)))
def test_rack_round_trip(data, lang):
    spec = SPECS[lang]
    ids = data.draw(st.lists(st.integers(0, spec.n_kinds - 1), max_size=spec.rack_size))
    text = format_rack(ids, spec)
    assert sorted(parse_rack(text, spec)) == sorted(ids)
    assert format_rack(parse_rack(text, spec), spec) == text


# -- moves ---------------------------------------------------------------------------------------
def _board(spec, seed: int) -> Board:
    """A board with a few words' worth of random tiles (legality of words is not needed to
    parse notation: playthrough squares just have to match)."""
    rng = np.random.default_rng(seed)
    letters = np.full((15, 15), -1, np.int8)
    for _ in range(rng.integers(0, 4)):
        r, c, n = rng.integers(0, 15), rng.integers(0, 11), rng.integers(2, 5)
        letters[r, c:c + n] = rng.integers(0, spec.n_letters, n)
    blanks = (letters >= 0) & (rng.random((15, 15)) < 0.1)
    return Board(spec, letters, blanks)


@FUZZ
@given(c=coord, word=any_text, seed=st.integers(0, 50), lang=st.sampled_from(sorted(SPECS)),
       siu=st.booleans())
def test_move_notation_parses_or_says_where(c, word, seed, lang, siu):
    spec = SPECS[lang]
    board = _board(spec, seed)
    text = f"{c}.{word}" if siu else f"{c} {word}"
    try:
        mv = Move.from_siu(text, board, spec) if siu else Move.from_gcg(text, board, spec)
    except Exception as e:  # noqa: BLE001
        _assert_own_error(e, text.strip()[:8], "move", "play", "exchange", "coordinate", "word", "tile")
        return
    assert isinstance(mv, (Placement, Exchange, Pass))


@FUZZ
@given(text=any_text, seed=st.integers(0, 50), siu=st.booleans())
def test_free_move_text_parses_or_says_where(text, seed, siu):
    board = _board(ES, seed)
    try:
        (Move.from_siu if siu else Move.from_gcg)(text, board, ES)
    except Exception as e:  # noqa: BLE001
        _assert_own_error(e)


@pytest.fixture(scope="module")
def generated_moves(pack_es, pack_en):
    """Legal moves of real generator runs on random boards (placements with blanks and
    playthroughs, exchanges, the pass), for the round-trip property."""
    from heuri.movegen import generate

    out = []
    rng = np.random.default_rng(7)
    for pack in (pack_es, pack_en):
        spec = pack.spec
        pos = Position.from_cgp("/".join(["15"] * 15) + " A/ 0/0 0", spec)
        for seed in range(6):
            board = pos.board if seed == 0 else _board(spec, seed)
            rack = np.zeros(spec.n_kinds, np.int64)
            for t in rng.choice(spec.n_letters, 6):
                rack[t] += 1
            rack[spec.blank] = 1
            recs = generate(pack, board.letters, board.blanks, rack, bag_size=50)
            pick = rng.choice(len(recs), min(60, len(recs)), replace=False) if len(recs) else []
            out += [(spec, board, Move.from_record(recs[i], spec)) for i in pick]
    return out


def test_move_round_trip(generated_moves):
    assert len(generated_moves) > 300
    for spec, board, mv in generated_moves:
        for dots in (True, False):
            text = mv.gcg(spec, dots=dots, board=board)
            assert Move.from_gcg(text, board, spec) == mv, text
        text = mv.siu(spec, board)
        assert Move.from_siu(text, board, spec) == mv, text


# -- CGP -----------------------------------------------------------------------------------------
ROW_PIECES = st.sampled_from(["1", "2", "5", "7", "15", "14", "0", "A", "b", "[CH]", "[ch]", "Ñ", "[LL]",
                              "[RR]", "[Q]", "?", "x", "[", "]", "16", "."])
row = st.lists(ROW_PIECES, max_size=8).map("".join)
board_field = st.one_of(st.lists(row, min_size=13, max_size=16).map("/".join),
                        st.just("/".join(["15"] * 15)), any_text)
racks_field = st.one_of(st.builds(lambda a, b: f"{a}/{b}", tile_text, tile_text), any_text)
ops_field = st.one_of(st.just(""), st.lists(st.builds(lambda n, a: f"{n} {a};", st.sampled_from(
    ["lex", "ld", "bb", "etl", "mcnz", "foo"]), st.sampled_from(["CSW21", "35", "-1", "x", "", "FISE2", "english"])),
    max_size=3).map(" ".join), any_text)
cgp_text = st.builds(lambda b, r, s, z, o: f"{b} {r} {s} {z} {o}".strip(), board_field, racks_field,
                     st.sampled_from(["0/0", "12/-3", "1/2/3", "a/b", "", "0"]),
                     st.sampled_from(["0", "3", "-1", "x", ""]), ops_field)


@FUZZ
@given(text=st.one_of(cgp_text, any_text), lang=st.sampled_from(sorted(SPECS)))
def test_cgp_parses_or_says_where(text, lang):
    spec = SPECS[lang]
    try:
        rec = parse_cgp(text, spec)
        pos = Position.from_cgp(text, spec)
    except Exception as e:  # noqa: BLE001
        _assert_own_error(e, "CGP", "rack", "tile")
        return
    assert isinstance(rec, CgpRecord) and pos.bag_size >= 0


@FUZZ
@given(data=st.data(), lang=st.sampled_from(sorted(SPECS)))
def test_cgp_round_trip(data, lang):
    spec = SPECS[lang]
    dist = spec.distribution()
    n_sq = data.draw(st.integers(0, 60))
    squares = data.draw(st.lists(st.integers(0, 224), min_size=n_sq, max_size=n_sq, unique=True))
    left = dist.copy()
    letters = np.full(225, -1, np.int8)
    blanks = np.zeros(225, bool)
    for sq in squares:
        t = data.draw(st.integers(0, spec.n_letters - 1))
        if left[t] > 0:
            letters[sq], left[t] = t, left[t] - 1
        elif left[spec.blank] > 0:
            letters[sq], blanks[sq], left[spec.blank] = t, True, left[spec.blank] - 1
    board = Board(spec, letters.reshape(15, 15), blanks.reshape(15, 15))
    racks = []
    for _ in range(2):
        ids = []
        for t in data.draw(st.lists(st.integers(0, spec.n_kinds - 1), max_size=spec.rack_size)):
            if left[t] > 0:
                ids.append(t)
                left[t] -= 1
        racks.append(tuple(sorted(ids)) if ids or data.draw(st.booleans()) else None)
    if racks[0] is None and racks[1] is None:
        racks[0] = ()
    if racks[0] == () and racks[1] == ():
        racks[1] = None
    ops = tuple(data.draw(st.lists(st.sampled_from([("lex", "CSW21"), ("bb", "35"), ("etl", "1"),
                                                    ("mcnz", "4"), ("ld", "english")]), max_size=3)))
    rec = CgpRecord(board, tuple(racks), (data.draw(st.integers(-50, 900)), data.draw(st.integers(0, 900))),
                    data.draw(st.integers(0, 5)), ops)
    text = format_cgp(rec)
    back = parse_cgp(text, spec)
    assert format_cgp(back) == text
    assert np.array_equal(back.board.letters, board.letters) and np.array_equal(back.board.blanks, board.blanks)
    assert back.racks == tuple(None if r is None else tuple(r) for r in racks) or \
        [sorted(r or ()) for r in back.racks] == [sorted(r or ()) for r in racks]
    assert back.scores == rec.scores and back.zeros == rec.zeros and back.ops == ops


# -- GCG -----------------------------------------------------------------------------------------
pragma = st.one_of(st.builds(lambda n, v: f"#{n} {v}", st.sampled_from(
    ["player1", "player2", "player3", "lexicon", "note", "rack1", "rack2", "character-encoding", "game-type",
     "title", "tile-distribution", "id", "rack9"]), any_text))
score = st.sampled_from(["+0", "+66", "-5", "+5", "66", "+x", "", "+14"])
total = st.sampled_from(["0", "66", "-5", "71", "x", ""])
body = st.one_of(st.builds(lambda c, w: f"{c} {w}", coord, tile_text), st.builds(lambda r: f"-{r}", tile_text),
                 st.sampled_from(["-", "--", "(challenge)", "(time)", "-3", "(OPEG)", "()"]),
                 st.builds(lambda r: f"({r})", tile_text))
event = st.builds(lambda n, r, b, s, t: f">{n}: {r} {b} {s} {t}", st.sampled_from(["p1", "p2", "p3", "", "p1 "]),
                  tile_text, body, score, total)
gcg_line = st.one_of(pragma, event, any_text, st.just(""))
GOOD_HEAD = ["#character-encoding UTF-8", "#player1 p1 Player One", "#player2 p2 Player Two"]


@FUZZ
@given(lines=st.lists(gcg_line, max_size=12), head=st.booleans(), bom=st.booleans(),
       crlf=st.booleans(), lang=st.sampled_from(["es", "en"]))
def test_gcg_reads_and_replays_or_says_where(lines, head, bom, crlf, lang):
    text = "\n".join((GOOD_HEAD if head else []) + lines)
    text = ("\ufeff" if bom else "") + (text.replace("\n", "\r\n") if crlf else text)
    try:
        game = read_gcg(text)
        replay(game, SPECS[lang])
    except Exception as e:  # noqa: BLE001
        _assert_own_error(e, "<gcg>")
        if isinstance(e, GcgError) and e.line:
            assert re.search(rf"<gcg>:{e.line}\b", str(e))


@FUZZ
@given(data=st.binary(max_size=200))
def test_gcg_bytes_read_or_say_where(data):
    try:
        read_gcg(b"\n".join(x.encode() for x in GOOD_HEAD) + b"\n" + data)
    except Exception as e:  # noqa: BLE001
        _assert_own_error(e, "<gcg>")


# -- the SIU command loop --------------------------------------------------------------------------
SIU_WORDS = ["siu", "isready", "setoption", "name", "value", "Lexicon", "Engine", "BestN", "K", "Candidates",
             "Endgame", "position", "cgp", "moves", "rack", "go", "gen", "auto", "endgame", "sim", "movetime",
             "depth", "searchmoves", "stop", "siunewgame", "es", "en", "heuri3", "greedy", "0",
             "5", "-1", "x", "8D.CASA", "8H.ANTSIER", "pass", "ex.AB", "true", "false"]
siu_line = st.one_of(st.lists(st.sampled_from(SIU_WORDS), min_size=1, max_size=7).map(" ".join),
                     st.builds(lambda c: f"position cgp {c}", cgp_text),
                     st.builds(lambda c, m: f"position cgp {'/'.join(['15'] * 15)} AEINRST/ 0/0 0 moves {m}",
                               st.sampled_from(["8H.ANTSIER", "x", "8H.QQ", "pass ex.A"]), st.just("")).map(str),
                     any_text)


@pytest.fixture(scope="module")
def siu_server(pack_es, pack_en):
    from heuri.siu import HeuriBackend, SiuServer

    out = io.StringIO()
    srv = SiuServer(HeuriBackend("es"), out)
    srv.handle("siu")
    return srv, out


@FUZZ
@given(lines=st.lists(siu_line, min_size=1, max_size=6))
def test_siu_loop_answers_every_line(siu_server, lines):
    srv, out = siu_server
    for line in lines:
        start = out.tell()
        srv.handle(line)                      # never raises: errors are protocol lines
        said = out.getvalue()[start:]
        assert "error internal" not in said, (line, said)
        gos = line.split()[:1] == ["go"]
        if gos:
            assert said.count("bestmove ") + said.count("info string error") >= 1, (line, said)
    srv.handle("siunewgame")


# -- mutations of real records and positions (reach the replay and the position checks) -------
RECORD = (Path(__file__).parent / "data" / "es_pass_with_bingo.gcg").read_text(encoding="utf-8")
REC_LINES = RECORD.splitlines()
mutation = st.tuples(st.sampled_from(["drop", "dup", "swap", "token", "char", "digit"]),
                     st.integers(0, 10 ** 6), st.integers(0, 10 ** 6), st.sampled_from(PIECES + ["+5", "-", "99"]))


def _mutate(lines: list[str], ops) -> list[str]:
    lines = list(lines)
    for op, a, b, piece in ops:
        if not lines:
            break
        i, j = a % len(lines), b % len(lines)
        if op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(j, lines[i])
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "token":
            toks = lines[i].split(" ")
            toks[b % len(toks)] = piece
            lines[i] = " ".join(toks)
        elif op == "char" and lines[i]:
            k = b % len(lines[i])
            lines[i] = lines[i][:k] + piece + lines[i][k + 1:]
        elif op == "digit":
            lines[i] = re.sub(r"\d+", lambda m: str(int(m.group()) + (b % 7) - 3), lines[i], count=1)
    return lines


@FUZZ
@given(ops=st.lists(mutation, min_size=1, max_size=4))
def test_mutated_real_record_replays_or_says_where(ops):
    text = "\n".join(_mutate(REC_LINES, ops))
    try:
        replay(read_gcg(text), ES)
    except Exception as e:  # noqa: BLE001
        _assert_own_error(e, "<gcg>")
        if isinstance(e, GcgError) and e.line:
            assert re.search(rf"<gcg>:{e.line}\b", str(e))


@pytest.fixture(scope="module")
def real_cgps():
    """The CGP of every position of the es record (rack of the next event, other rack
    unknown), written by heuri's own writer."""
    from heuri.cgp import format_board

    r = replay(read_gcg(RECORD), ES)
    out = []
    for k, st_ in enumerate(r.steps[:-1]):
        nxt = r.steps[k + 1].event
        tot = st_.recorded_totals
        out.append(f"{format_board(st_.board)} {nxt.rack}/ {tot[nxt.player]}/{tot[1 - nxt.player]} 0")
    return out


@FUZZ
@given(k=st.integers(0, 10 ** 6), ops=st.lists(mutation, min_size=1, max_size=3))
def test_mutated_real_cgp_parses_or_says_where(real_cgps, k, ops):
    base = real_cgps[k % len(real_cgps)]
    text = _mutate([base], [(op if op in ("char", "digit", "token") else "char", a, b, p) for op, a, b, p in ops])[0]
    try:
        pos = Position.from_cgp(text, ES)
    except Exception as e:  # noqa: BLE001
        _assert_own_error(e, "CGP", "rack", "tile")
        return
    assert pos.bag_size >= 0 and format_cgp(parse_cgp(text, ES))
