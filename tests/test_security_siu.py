"""Bad numbers and bad lines at the command line, in engine names and over SIU, and the
limits of the endgame search that say so: each probe of a careless or hostile user gets a
one-line error naming the input (or an ``info string`` saying what was capped), never a
silently wrong answer, a huge allocation or an echo of megabytes and control bytes."""
from __future__ import annotations

import argparse
import io
import subprocess
import sys
from pathlib import Path

import pytest

from heuri.bounds import BoundsError, check_float, check_int, excerpt
from heuri.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
EMPTY = "/".join(["15"] * 15)


# -- the command line ------------------------------------------------------------------------
CGP = f"{EMPTY} AEINRST/ 0/0 0"
BAD_ARGS = [
    (["best", "--cgp", CGP, "-k", "nan"], "-k", "not a finite number"),
    (["best", "--cgp", CGP, "-k", "inf"], "-k", "not a finite number"),
    (["best", "--cgp", CGP, "-k=-inf"], "-k", "not a finite number"),  # "-k -inf" reads as two options
    (["best", "--cgp", CGP, "-k", "1e400"], "-k", "not a finite number"),  # overflows to inf
    (["best", "--cgp", CGP, "-k", "0"], "-k", "out of range"),
    (["best", "--cgp", CGP, "-k", "1e9"], "-k", "out of range"),
    (["best", "--cgp", CGP, "-k", "abc"], "-k", "not a number"),
    (["best", "--cgp", CGP, "--top", "0"], "--top", "out of range"),
    (["best", "--cgp", CGP, "--top", "1e3"], "--top", "not a whole number"),
    (["best", "--cgp", CGP, "--top", "9" * 5000], "--top", "not a whole number"),  # beyond int()'s digits
    (["best", "--cgp", CGP, "--top", "9" * 400], "--top", "out of range"),
    (["best", "--cgp", CGP, "--top-n", "-1"], "--top-n", "out of range"),
    (["best", "--gcg", "x.gcg", "--turn", "-1"], "--turn", "out of range"),
    (["show", "x.gcg", "--turn", "nan"], "--turn", "not a whole number"),
    (["endgame", "--cgp", CGP, "--time", "nan"], "--time", "not a finite number"),
    (["endgame", "--cgp", CGP, "--time", "inf"], "--time", "not a finite number"),
    (["endgame", "--cgp", CGP, "--time", "0"], "--time", "out of range"),
    (["endgame", "--cgp", CGP, "--time", "-5"], "--time", "out of range"),
    (["endgame", "--cgp", CGP, "--time=-inf"], "--time", "not a finite number"),
    (["endgame", "--cgp", CGP, "--nodes", "0"], "--nodes", "out of range"),
    (["endgame", "--cgp", CGP, "--nodes", "1.5"], "--nodes", "not a whole number"),
    (["endgame", "--cgp", CGP, "--top", "0"], "--top", "out of range"),
    (["peg", "--cgp", CGP, "--top", "100000"], "--top", "out of range"),
    (["match", "--lang", "es", "--games", "nan"], "--games", "not a whole number"),
    (["match", "--lang", "es", "--games", "1e400"], "--games", "not a whole number"),
    (["match", "--lang", "es", "--games", "99999999999"], "--games", "out of range"),
    (["match", "--lang", "es", "--games", "2", "--jobs", "100000"], "--jobs", "out of range"),
    (["match", "--lang", "es", "--games", "2", "--seed", "-1"], "--seed", "out of range"),
    (["match", "--lang", "es", "--games", "2", "--seed", str(2 ** 64)], "--seed", "out of range"),
    (["match", "--lang", "es", "--games", "2", "--first-game", "2.5"], "--first-game", "not a whole number"),
    (["match", "--lang", "es", "--games", "2", "--movetime", "inf"], "--movetime", "not a whole number"),
    (["match", "--lang", "es", "--games", "2", "--endgame-generations", "1e99"], "--endgame-generations",
     "not a whole number"),
    (["match", "--lang", "es", "--games", "2", "--endgame-width", "nan"], "--endgame-width", "not a whole number"),
    (["analyze", "x.gcg", "--jobs", "0"], "--jobs", "out of range"),
    (["duplicate", "new", "--seed", "-1"], "--seed", "out of range"),
    (["duplicate", "new", "--seed", "nan"], "--seed", "not a whole number"),
    (["duplicate", "play", "--time", "nan"], "--time", "not a finite number"),
    (["duplicate", "play", "--time", "0"], "--time", "out of range"),
    (["serve", "--port", "nan"], "--port", "not a whole number"),
]


@pytest.mark.parametrize("argv,option,why", BAD_ARGS, ids=[" ".join(a[0][:1] + a[0][-2:])[:40] for a in BAD_ARGS])
def test_cli_refuses_bad_numbers_naming_the_option(argv, option, why, capsys):
    with pytest.raises(SystemExit) as e:
        build_parser().parse_args(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    # argparse's form: the usage, then one line naming the subcommand and the option
    assert err[-1].startswith(f"heuri {argv[0]}") and f"error: argument {option}: " in err[-1]
    assert why in err[-1] and len(err[-1]) < 200


@pytest.mark.parametrize("argv,needle", [
    (["--games", "-4"], "--games -4: a match needs at least 1 game"),
    (["--jobs", "-1"], "--jobs -1: use at least 1 worker process"),
    (["--first-game", "-2"], "--first-game -2: must be an even number >= 0"),
    (["--endgame-generations", "0"], "--endgame-generations 0: must be at least 1"),
])
def test_match_lower_bounds_are_one_line_errors(argv, needle, tmp_path, capsys):
    """heuri match's lower bounds are its own checks (heuri.match), one line, status 2."""
    from heuri.cli import main

    base = ["match", "--lang", "en", "--games", "2", "--out", str(tmp_path / "o"), "--quiet"]
    assert main(base + argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("heuri: error: ") and needle in err and "\n" not in err


def test_cli_takes_the_numbers_in_range():
    a = build_parser().parse_args(["best", "--cgp", CGP, "-k", "2.5", "--top", "3", "--top-n", "30"])
    assert (a.k, a.top, a.top_n) == (2.5, 3, 30)
    a = build_parser().parse_args(["endgame", "--cgp", CGP, "--time", "0.5", "--nodes", "1000"])
    assert (a.time, a.nodes) == (0.5, 1000)
    a = build_parser().parse_args(["match", "--lang", "es", "--games", "4", "--jobs", "2", "--seed", "0",
                                   "--first-game", "2", "--movetime", "500"])
    assert (a.games, a.jobs, a.seed, a.first_game, a.movetime) == (4, 2, 0, 2, 500)


def _subparsers(parser):
    for act in parser._actions:
        if isinstance(act, argparse._SubParsersAction):
            for name, sub in act.choices.items():
                yield name, sub
                yield from ((f"{name} {n}", s) for n, s in _subparsers(sub))


def test_no_numeric_option_is_left_unchecked():
    """Every option that takes a number goes through heuri.bounds (a bare int or float type
    would let NaN, inf or a negative count through)."""
    bare = [(name, act.option_strings) for name, sub in _subparsers(build_parser()) for act in sub._actions
            if act.type in (int, float)]
    assert bare == []


def test_cli_best_k_nan_in_a_subprocess():
    """The probe as a user types it: one error line, exit status 2, nothing on stdout."""
    r = subprocess.run([sys.executable, "-m", "heuri", "best", "--lang", "en", "--cgp", CGP, "-k", "nan"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120,
                       env={**__import__("os").environ, "PYTHONPATH": str(ROOT / "runtime")})
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines()[-1] == ("heuri best: error: argument -k: 'nan': not a finite number; "
                                                 "give more than 0 and up to 100")


def test_bounds_checks():
    assert check_float("2.5", "-k", 0, 100, lo_open=True) == 2.5
    assert check_int(" 12 ", "--top", 1, 100) == 12
    for bad in ("nan", "NaN", "inf", "-Infinity", "1e400", float("nan"), float("inf")):
        with pytest.raises(BoundsError, match="not a finite number"):
            check_float(bad, "x")
    with pytest.raises(BoundsError, match="too large"):
        check_float(10 ** 400, "x")
    for bad in (True, 2.0, None, [1], "1e3", "nan"):
        with pytest.raises(BoundsError, match="not a whole number"):
            check_int(bad, "n")
    with pytest.raises(BoundsError, match=r"n 100000000000\.\.\. \(401 digits\): out of range"):
        check_int(10 ** 400, "n", 0, 10)


def test_excerpt_is_short_and_printable():
    assert excerpt("8D.ZA") == "8D.ZA"
    big = excerpt("x" * 10_000_000)
    assert len(big) <= 80 and big.endswith("... (10000000 characters)")
    ctrl = excerpt("go\x1b[2J\x07\x00\r\u2028 Ñ")
    assert ctrl == "go\\x1b[2J\\x07\\x00\\x0d\\u2028 Ñ"
    assert all(c.isprintable() for c in excerpt("\x00\x01\x1f\x7f\x85" * 1000))
    # a cut never splits an escape
    assert excerpt("\x01" * 100, 40) == "\\x01\\x01\\x01\\x01\\x01... (100 characters)"


# -- engine names and evaluators -----------------------------------------------------------
@pytest.mark.parametrize("name,msg", [
    ("heuri4@k=nan", "option k 'nan': not a finite number"),
    ("heuri4@k=inf", "option k 'inf': not a finite number"),
    ("heuri4@offset=-inf", "option offset '-inf': not a finite number"),
    ("heuri4@opponent=1e400", "option opponent '1e400': not a finite number"),
    ("heuri4@opponent=1e300", "option opponent 1e+300: out of range"),
    ("heuri4@k=-1", "option k -1: out of range"),
    ("heuri4@exact_nodes=0", "exact_nodes must be at least 1"),
    ("heuri4@exact_nodes=1e10", "option exact_nodes 1e+10: out of range"),
    ("heuri4@exact_nodes=nan", "option exact_nodes 'nan': not a finite number"),
    ("heuri3-peg@top=1e12", "option top 1e+12: out of range"),
])
def test_engine_options_refuse_nan_inf_and_huge(name, msg):
    from heuri.players import EngineError, check_engine

    with pytest.raises(EngineError, match=msg.replace("+", r"\+")):
        check_engine(name)


def test_engine_name_errors_quote_a_short_excerpt():
    from heuri.players import EngineError, check_engine

    with pytest.raises(EngineError) as e:
        check_engine("heuri4@k=" + "\x1b" * 10_000)
    assert len(str(e.value)) < 300 and "\x1b" not in str(e.value)
    with pytest.raises(EngineError) as e:
        check_engine("x" * 100_000)
    assert len(str(e.value)) < 500


def test_evaluators_refuse_non_finite_options(pack_en):
    from heuri.evaluate import EvaluatorError, make_evaluator

    for name, opts in [("heuri3", {"k": float("nan")}), ("heuri1", {"k": float("inf")}),
                       ("heuri4", {"opponent": float("nan")}), ("heuri4", {"offset": float("inf")}),
                       ("heuri5", {"power": float("nan")})]:
        with pytest.raises(EvaluatorError, match="finite"):
            make_evaluator(pack_en, name, **opts)


# -- SIU ------------------------------------------------------------------------------------
def test_parse_go_caps_every_number():
    from heuri.siu import GO_LIMITS, parse_go

    g = parse_go("endgame depth 999999999 movetime 99999999999 iterations 7 threads 5000 stopcondition 250".split())
    assert (g.depth, g.movetime_ms, g.iterations, g.threads, g.stopcondition) == (64, 3_600_000, 7, 1024, 100)
    assert g.capped == [("depth", 999999999, 64), ("movetime", 99999999999, 3_600_000),
                        ("threads", 5000, 1024), ("stopcondition", 250, 100)]
    # below the least: no search can use it, so it is refused, never raised to the bound
    g = parse_go("sim depth 0 movetime 0 iterations 0 threads 0 stopcondition 0".split())
    assert GO_LIMITS["depth"][0] == GO_LIMITS["movetime"][0] == 1
    assert (g.depth, g.movetime_ms, g.iterations, g.threads, g.stopcondition) == (None, None, None, None, 0)
    assert g.bad == [(p, "0", "at least 1") for p in ("depth", "movetime", "iterations", "threads")]
    assert g.capped == [] and g.given == ["stopcondition"]
    g = parse_go(["depth", "-3", "movetime", "9" * 5000, "depth", "nan", "iterations"])
    assert g.depth is None and g.movetime_ms is None
    # 5,000 digits: more than Python reads as an int, refused before any arithmetic
    assert g.bad == [("depth", "-3", "at least 1"), ("movetime", "9" * 5000, "not a whole number"),
                     ("depth", "nan", "not a whole number"), ("iterations", None, "no value")]
    g = parse_go("endgame depth 12 movetime 30000".split())
    assert (g.depth, g.movetime_ms, g.capped) == (12, 30000, [])


class _Backend:
    """A backend that records the go it was given and answers at once."""

    def __new__(cls):
        from heuri.siu import Backend

        class B(Backend):
            def __init__(self):
                self.params = None

            def set_position(self, cgp, moves, rack):
                return cgp

            def honoured(self, mode):
                return {"depth"} if mode == "endgame" else set()

            def search(self, position, params, stop, emit):
                self.params = params
                return "pass"

        return B()


def _server():
    from heuri.siu import SiuServer

    out = io.StringIO()
    backend = _Backend()
    return SiuServer(backend, out), backend, out


def test_siu_go_endgame_depth_is_capped_and_says_so():
    srv, backend, out = _server()
    srv.handle("position cgp a b c d")
    srv.handle("go endgame depth 999999999 movetime 99999999999")
    lines = out.getvalue().splitlines()
    assert backend.params.depth == 64 and backend.params.movetime_ms == 3_600_000
    assert "info string capped depth 64 (asked 999999999; heuri's limit)" in lines
    assert "info string capped movetime 3600000 (asked 99999999999; heuri's limit)" in lines
    # before the provenance line, with the other notes on the parameters
    assert lines.index("info string capped depth 64 (asked 999999999; heuri's limit)") < \
        [i for i, s in enumerate(lines) if s.startswith("info string provenance")][0]
    assert lines[-1] == "bestmove pass"
    # a capped parameter the mode ignores is only said to be ignored
    out.truncate(0), out.seek(0)
    srv.handle("go gen depth 999999999")
    lines = out.getvalue().splitlines()
    assert "info string ignored depth" in lines and not [s for s in lines if "capped" in s]


def test_siu_go_with_a_zero_or_negative_number_answers_one_error_line_and_searches_without_it():
    srv, backend, out = _server()
    srv.handle("position cgp a b c d")
    srv.handle("go endgame movetime -5 iterations 0")
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["info string error bad-parameter movetime -5: at least 1; searching without it",
                         "info string error bad-parameter iterations 0: at least 1; searching without it"]
    assert lines[2].startswith("info string provenance") and lines[-1] == "bestmove pass"
    assert backend.params.movetime_ms is None and backend.params.iterations is None
    assert not [s for s in lines if "ignored" in s or "capped" in s]
    out.truncate(0), out.seek(0)
    srv.handle("go endgame movetime 0 iterations x" + "y" * 200)
    lines = out.getvalue().splitlines()
    assert lines[0] == "info string error bad-parameter movetime 0: at least 1; searching without it"
    assert lines[1].startswith("info string error bad-parameter iterations x") and len(lines[1]) < 140
    assert lines[-1] == "bestmove pass" and sum(s.startswith("bestmove") for s in lines) == 1


def test_siu_echoes_a_short_printable_excerpt():
    srv, _, out = _server()
    srv.handle("frob\x1b[2J\x07" + "Z" * 10_000_000)
    srv.handle("setoption name " + "\x00" * 5000 + " value 1")
    srv.handle("position cgp a b c d")
    srv.handle("go gen searchmoves " + "\x1b" * 1000)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("info string error unknown-command frob\\x1b[2J\\x07ZZZ")
    assert lines[0].endswith("... (10000009 characters)") and len(lines[0]) <= 120
    assert lines[1].startswith("info string ignored setoption \\x00") and len(lines[1]) <= 140
    for s in lines:
        assert all(c.isprintable() for c in s) and len(s) <= 500


def test_siu_refuses_a_line_too_long_and_goes_on():
    from heuri.siu import MAX_LINE, BoundedInput, SiuServer

    huge = "position cgp " + "A" * 10_000_000 + "\x1b\n"
    inp = BoundedInput(io.StringIO(huge + "frob\n" + "x" * (MAX_LINE + 5)))
    first = inp.readline()
    assert len(first) == MAX_LINE + 1  # what run() sees of the long line: too long, refused
    assert inp.readline() == "frob\n"  # the rest of the long line was dropped
    assert len(inp.readline()) == MAX_LINE + 1 and inp.readline() == ""
    out = io.StringIO()
    srv = SiuServer(_Backend(), out)
    assert srv.run(BoundedInput(io.StringIO(huge + "isready\n"))) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"info string error line-too-long a line of more than {MAX_LINE:,} characters "
                               f"was ignored: position cgp AAAA")
    assert len(lines[0]) <= 200 and lines[1:] == ["readyok"]


def test_endgame_allocation_does_not_grow_with_max_depth(pack_es):
    """The compiled search's rack rows are sized by the deepest line: two racks' tiles, not
    the depth asked (999,999,999 once asked for 1.57 TiB)."""
    from heuri.endgame import EndgameSearch

    rows = []
    for depth in (14, 64, 1000):
        es = EndgameSearch(pack_es, max_depth=depth, max_nodes=1, max_generations=1)
        rows.append(es._core_state(pack_es.spec)[7][0].shape[0])
    assert rows[0] == rows[1] == rows[2]
    with pytest.raises(BoundsError, match="max_depth"):
        EndgameSearch(pack_es, max_depth=999_999_999)
    for bad in ({"max_nodes": float("nan")}, {"time_limit": float("inf")}, {"time_limit": 0}, {"width": -1}):
        with pytest.raises(BoundsError):
            EndgameSearch(pack_es, **bad)


# -- limits that say so --------------------------------------------------------------------------
def test_time_budget_grows_with_the_time():
    from heuri.endgame import BUDGET_CAP, DEFAULT_GENERATIONS, DEFAULT_NODES, PACE, time_budget

    assert time_budget(1) == {"max_nodes": DEFAULT_NODES, "max_generations": DEFAULT_GENERATIONS}
    assert time_budget(8) == {"max_nodes": 8 * PACE["python"][0], "max_generations": 8 * PACE["python"][1]}
    # --time 20 once stopped at 1,000,001 nodes: now twice as many, the Python search's cap
    assert time_budget(20) == {"max_nodes": 2_000_000, "max_generations": 200_000}
    assert time_budget(10 ** 6) == dict(zip(("max_nodes", "max_generations"), BUDGET_CAP["python"]))
    assert time_budget(30, "compiled") == {"max_nodes": 21_000_000, "max_generations": 2_100_000}
    assert time_budget(None, "compiled")["max_nodes"] == BUDGET_CAP["compiled"][0]
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            time_budget(bad)


def test_cli_endgame_limits_come_from_the_time():
    from heuri.cli import _limits

    ns = argparse.Namespace(time=7.5, nodes=None)
    assert _limits(ns) == {"time_limit": 7.5, "max_nodes": 1_500_000, "max_generations": 150_000}
    ns = argparse.Namespace(time=20.0, nodes=5000)
    assert _limits(ns) == {"time_limit": 20.0, "max_nodes": 5000, "max_generations": 5000}


def test_siu_movetime_gives_the_endgame_search_its_clock(pack_es):
    from heuri.endgame import DEFAULT_NODES
    from heuri.siu import GoParams, HeuriBackend, SearchStop

    b = HeuriBackend("es")
    b._pack = pack_es
    stop = SearchStop()
    untimed = b._endgame_search(pack_es, stop, 5, clock=b._clock(GoParams(mode="endgame")))
    assert (untimed.max_nodes, untimed.max_depth) == (DEFAULT_NODES, 5)
    timed = b._endgame_search(pack_es, stop, None, clock=b._clock(GoParams(mode="endgame", movetime_ms=30_000)))
    kind = "compiled" if timed.compiled and timed._gen.fast else "python"
    from heuri.endgame import time_budget

    assert timed.max_nodes == time_budget(30.0, kind)["max_nodes"] > 10 * DEFAULT_NODES or kind == "python"
    assert timed._stop == stop.is_set
    inf = b._endgame_search(pack_es, stop, None, clock=b._clock(GoParams(mode="endgame", infinite=True)))
    assert inf.max_nodes >= timed.max_nodes


def _row(move, value, exact):
    from heuri.endgame import RankedMove

    return RankedMove(move, value, exact, [move])


def test_endgame_summary_agrees_with_the_rows():
    from heuri.cli import endgame_summary
    from heuri.endgame import EndgameResult
    from heuri.move import Move
    from heuri.spec import load_spec

    spec = load_spec("es")
    limits = {"time_limit": 20.0, "max_nodes": 4_000_000, "max_generations": 400_000}
    a, b, c = (Move.from_gcg(x, None, spec) for x in ("1B REAGuDO", "1A REGADO", "O7 OsEAD"))
    # every printed row proven, the root not: the best move's value is exact, its rank is not
    res = EndgameResult(a, 133, 237, False, 2, 4_000_001, 1500, [a], 9.5, True, "nodes")
    line = endgame_summary(res, [_row(a, 133, True), _row(b, 65, True), _row(c, 64, True)], limits, spec)
    assert line.startswith("best 1B REAGuDO value +133, not proven the best (its value exact; stopped by the "
                           "nodes limit: the best move of the last completed depth); 3 of 3 rows exact; ")
    assert line.endswith("limits 20 s, 4,000,000 nodes, 400,000 move lists")
    res = EndgameResult(a, 133, 237, False, 2, 900, 40, [a], 20.1, True, "time")
    line = endgame_summary(res, [_row(a, 133, False), _row(b, 65, True)], limits, spec)
    assert "not proven the best (its value a horizon estimate; stopped by the time limit" in line
    assert "1 of 2 rows exact" in line
    res = EndgameResult(a, 133, 237, True, 3, 900, 40, [a], 1.0, False, "")
    line = endgame_summary(res, [_row(a, 133, True), _row(b, 65, True)], limits, spec)
    assert "value +133, exact (proven the best to the end of the game); 2 of 2 rows exact" in line


def test_endgame_says_which_limit_stopped_it(pack_es):
    """A hard endgame under small budgets: the result names the limit that stopped it, and
    a row is exact only when its own lines were searched to the end (a way out is)."""
    from heuri.endgame import EndgameSearch
    from heuri.game import Position
    from test_endgame import HARD_ES

    pos = Position.from_cgp(HARD_ES, pack_es.spec)
    res, rows = EndgameSearch(pack_es, max_nodes=3000, max_generations=10 ** 6).analyse(pos, top=4)
    assert res is not None and not res.exact and res.stopped and res.stopped_by == "nodes"
    spec = pack_es.spec
    for r in rows:
        goes_out = int(r.move.rack_counts(spec).sum()) == int(pos.rack.sum())
        if goes_out:  # its value: the score plus twice the opponent's rack, proven at once
            assert r.exact
    assert any(not r.exact for r in rows)
    res = EndgameSearch(pack_es, max_nodes=10 ** 7, max_generations=20).search_py(pos)
    assert res is not None and res.stopped_by == "move lists" and not res.exact
