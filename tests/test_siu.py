"""heuri as an SIU engine (heuri.siu): the protocol against a fake backend in-process (fast,
exact timing control), then full sessions of ``heuri siu`` as a child process: handshake,
positions with moves, go gen/auto/endgame, the error paths, stop during go infinite."""
from __future__ import annotations

import io
import queue
import subprocess
import sys
import threading
import time

import pytest

from heuri.siu import (Backend, GoParams, OptionDecl, SiuError, SiuServer, parse_go, parse_setoption,
                       split_position)

EMPTY = "/".join(["15"] * 15)
T = 10.0  # seconds to wait for an answer


# -- parsing ---------------------------------------------------------------------------------
def test_parse_go_modes_params_and_unknown_tokens():
    g = parse_go("gen movetime 500 searchmoves 8D.ZA pass depth 2 frob infinite".split())
    assert (g.mode, g.movetime_ms, g.depth, g.infinite) == ("gen", 500, 2, True)
    assert g.searchmoves == ["8D.ZA", "pass"] and g.unknown == ["frob"]
    assert g.given == ["movetime", "searchmoves", "depth", "infinite"]
    g = parse_go([])
    assert g.mode == "auto" and g.given == [] and not g.infinite
    g = parse_go("movetime x iterations 100 stopcondition 99 firstwin sim".split())
    assert g.mode == "sim" and g.movetime_ms is None and g.bad == [("movetime", "x", "not a whole number")]
    assert g.given == ["iterations", "stopcondition", "firstwin"] and g.iterations == 100
    # the mode may come after parameters; alsosearchmoves stops at the next parameter
    g = parse_go("alsosearchmoves 8H.NASTIER ex.QV endgame depth 3".split())
    assert g.mode == "endgame" and g.alsosearchmoves == ["8H.NASTIER", "ex.QV"] and g.depth == 3


def test_parse_setoption_and_option_lines():
    assert parse_setoption("name Lexicon value es".split()) == ("Lexicon", "es")
    assert parse_setoption("name Some Long Name value a b".split()) == ("Some Long Name", "a b")
    assert parse_setoption("name Clear Hash".split()) == ("Clear Hash", None)
    with pytest.raises(SiuError) as e:
        parse_setoption("Lexicon es".split())
    assert e.value.code == "bad-option"
    spin = OptionDecl("BestN", "spin", "20", 1, 1000)
    assert spin.line() == "option name BestN type spin default 20 min 1 max 1000"
    assert spin.check("7") == 7
    with pytest.raises(SiuError):
        spin.check("0")
    combo = OptionDecl("Engine", "combo", "heuri3", var=("heuri3", "greedy"))
    assert combo.line() == "option name Engine type combo default heuri3 var heuri3 var greedy"
    assert combo.check("GREEDY") == "greedy"
    with pytest.raises(SiuError):
        combo.check("quackle")


def test_split_position():
    cgp = f"{EMPTY} AEINRST/ 0/0 0 lex FISE2;"
    assert split_position(f"cgp {cgp}".split()) == (cgp, [], None)
    assert split_position(f"cgp {cgp} moves 8D.ZA ex.4 rack.AB?".split()) == (cgp, ["8D.ZA", "ex.4"], "AB?")
    with pytest.raises(SiuError) as e:
        split_position(["fen", "x"])
    assert e.value.code == "bad-position"
    with pytest.raises(SiuError) as e:
        split_position(f"cgp {cgp} moves rack.AB 8D.ZA".split())
    assert e.value.code == "bad-move"


# -- the protocol with a fake backend ---------------------------------------------------------
class FakeBackend(Backend):
    """Searches for ``work_s`` seconds (checking stop every 10 ms), streaming one info line
    per 50 ms; positions are the CGP text; 'bad' in a CGP is a bad position."""

    def __init__(self, work_s=0.2, fail=False):
        self.work_s = work_s
        self.fail = fail
        self.searches = 0
        self.opts = {}
        self.stopped = None  # after a search: whether its stop event ended it

    def options(self):
        return [OptionDecl("Lexicon", "string", "es"), OptionDecl("Depth", "spin", "2", 1, 9)]

    def set_option(self, name, value):
        self.opts[name] = value
        return []

    def set_position(self, cgp, moves, rack):
        if "bad" in cgp:
            raise SiuError("bad-position", "fake: bad")
        return (cgp, tuple(moves), rack)

    def honoured(self, mode):
        return {"depth"}

    def search(self, position, params, stop, emit):
        self.searches += 1
        if self.fail:
            raise RuntimeError("boom")
        t0 = time.monotonic()
        n = 0
        while time.monotonic() - t0 < self.work_s and not stop.is_set():
            if n % 5 == 0:
                emit(f"info gen move 8D.ZA score {n} eq {n}.0 leave -")
            n += 1
            time.sleep(0.01)
        self.stopped = stop.is_set()
        return "8D.ZA"


class Wire:
    """An in-process SIU session: lines in through ``send``, out through ``read_until``."""

    def __init__(self, backend):
        self.q: queue.Queue = queue.Queue()
        wire = self

        class Out:
            def write(self, s):
                for line in s.splitlines():
                    wire.q.put(line)

            def flush(self):
                pass

        self.server = SiuServer(backend, Out())
        self.inq: queue.Queue = queue.Queue()

        class In:
            def readline(self):
                return wire.inq.get()

        self.thread = threading.Thread(target=self.server.run, args=(In(),), daemon=True)
        self.thread.start()

    def send(self, line):
        self.inq.put(line + "\n")

    def read_until(self, pred, timeout=T):
        got, end = [], time.monotonic() + timeout
        while True:
            try:
                line = self.q.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                return got, False
            got.append(line)
            if pred(line):
                return got, True

    def drain(self, quiet=0.3):
        return self.read_until(lambda _: False, quiet)[0]

    def close(self):
        self.inq.put("")  # end of input = quit
        self.thread.join(T)
        assert not self.thread.is_alive()


def test_fake_session_handshake_errors_and_one_bestmove_per_go():
    w = Wire(FakeBackend())
    w.send("siu")
    lines, ok = w.read_until(lambda s: s == "siuok")
    assert ok and lines[0].startswith("id name heuri ") and lines[1].startswith("id author ")
    assert lines[2] == "capability gen endgame peg auto stream stop"
    assert lines[3:5] == ["option name Lexicon type string default es",
                          "option name Depth type spin default 2 min 1 max 9"]
    w.send("frobnicate now")
    w.send("stop")  # idle stop: ignored, silently
    w.send("go gen")
    w.send("position cgp bad 1 2 3")
    w.send("go gen")  # the refused position left none
    w.send("setoption name depth value 12")
    w.send("setoption name Nope value 1")
    w.send("isready")
    lines, ok = w.read_until(lambda s: s == "readyok")
    assert ok
    assert lines == ["info string error unknown-command frobnicate",
                     "info string error no-position go before a valid position; send 'position cgp <cgp>' first",
                     "info string error bad-position fake: bad",
                     "info string error no-position go before a valid position; send 'position cgp <cgp>' first",
                     "info string error bad-option Depth 12: out of range 1..9",
                     "info string ignored setoption Nope: no such option",
                     "readyok"]
    w.send("position cgp a b c d")
    w.send("go sim")  # undeclared: an error, then the go still ends with one bestmove (auto)
    lines, ok = w.read_until(lambda s: s.startswith("bestmove"))
    assert ok and lines[0].startswith("info string error unsupported-mode sim")
    assert lines[0].endswith("searching as go auto") and lines[-1].startswith("bestmove ")
    assert sum(s.startswith("bestmove") for s in lines) == 1
    w.send("go gen depth 3 iterations 5 stopcondition 9 movetime 5000 frob")
    lines, ok = w.read_until(lambda s: s.startswith("bestmove"))
    lines = ["(go gen)"] + lines
    assert lines[1:4] == ["info string ignored iterations", "info string ignored stopcondition",
                          "info string provenance engine=heuri/" + lines[3].split("/", 1)[1]]
    assert lines[3].endswith("leaves=none winpct=none lexicon=none")
    assert all(s.startswith("info gen ") for s in lines[4:-1]) and len(lines) > 5
    assert lines[-1] == "bestmove 8D.ZA"
    assert not [s for s in w.drain() if s.startswith("bestmove")]
    w.close()


def test_fake_isready_after_stop_waits_for_the_bestmove():
    """The draft: readyok once all earlier input is processed. A stop is earlier input, so
    an isready sent right after it is answered after the search's bestmove."""
    w = Wire(FakeBackend(work_s=0.05))
    w.send("position cgp a b c d")
    w.send("go infinite")
    time.sleep(0.3)
    w.send("stop")
    w.send("isready")
    lines, ok = w.read_until(lambda s: s == "readyok")
    assert ok and [s for s in lines if s.startswith(("bestmove", "readyok"))] == ["bestmove 8D.ZA", "readyok"]
    w.close()


def test_fake_stop_right_after_go_infinite_ends_it():
    """A stop sent right after ``go infinite``, while the go still waits in the queue or loads
    its pack, ends that go: it starts stopped and answers. A stop while idle does not stop
    the next go."""

    class SlowStart(FakeBackend):
        def prepare(self):
            time.sleep(0.3)  # a pack being loaded before the first search

    be = SlowStart(work_s=30)
    w = Wire(be)
    w.send("position cgp a b c d")
    w.send("go infinite")
    w.send("stop")
    lines, ok = w.read_until(lambda s: s.startswith("bestmove"), timeout=10)
    assert ok and lines[-1] == "bestmove 8D.ZA" and be.stopped
    # two gos queued behind a running one, then one stop: every go before it ends
    w.send("go infinite")
    w.send("go infinite")
    w.send("go infinite")
    w.send("stop")
    got = []
    for _ in range(3):
        part, ok = w.read_until(lambda s: s.startswith("bestmove"), timeout=10)
        assert ok
        got += part
    assert sum(s.startswith("bestmove") for s in got) == 3 and be.searches == 4
    # a stop while idle is forgotten: the next go infinite runs until its own stop
    w.send("stop")
    w.send("go infinite")
    assert w.read_until(lambda s: s.startswith("bestmove"), timeout=0.5)[1] is False
    w.send("stop")
    assert w.read_until(lambda s: s.startswith("bestmove"), timeout=10)[1]
    w.close()


def test_fake_stop_during_infinite_and_isready_mid_search():
    be = FakeBackend(work_s=0.05)
    w = Wire(be)
    w.send("position cgp a b c d")
    w.send("go infinite movetime 50")
    time.sleep(0.4)  # the work is done long before: bestmove must still wait for stop
    w.send("isready")
    lines, ok = w.read_until(lambda s: s == "readyok")
    assert ok and not any(s.startswith("bestmove") for s in lines)
    assert "info string ignored movetime" in lines  # infinite wins over movetime
    # commands a front end should not send mid-search wait for the bestmove, in order
    w.send("setoption name Depth value 3")
    w.send("position cgp e f g h")
    w.send("isready")  # behind queued commands: answered after them
    assert w.drain() == [] and be.opts == {}
    w.send("stop")
    lines, ok = w.read_until(lambda s: s == "readyok")
    assert ok and lines[0] == "bestmove 8D.ZA"
    assert lines[1:] == ["readyok"]
    assert be.opts == {"Depth": "3"} and w.server.position == ("e f g h", (), None)
    w.send("go gen movetime 20")
    w.send("go gen movetime 20")  # sent during the first search: runs after it
    n = [0]

    def second_bestmove(s):
        n[0] += s.startswith("bestmove")
        return n[0] == 2

    lines, ok = w.read_until(second_bestmove)
    lines += w.drain()  # nothing more may come: no third bestmove
    assert [s for s in lines if s.startswith("bestmove")] == ["bestmove 8D.ZA"] * 2
    assert sum(s.startswith("info string provenance") for s in lines) == 2
    w.close()


def test_fake_movetime_ends_a_long_search_and_quit_mid_search():
    be = FakeBackend(work_s=30)
    w = Wire(be)
    w.send("position cgp a b c d")
    w.send("go auto movetime 300")
    lines, ok = w.read_until(lambda s: s.startswith("bestmove"), timeout=20)
    # movetime ended it: the fake back end would work 30 s unless its stop event is set
    # (how soon it stops is a figure of benchmarks/bench_siu_latency.py, not a test)
    assert ok and be.stopped is True and be.searches == 1
    assert lines[-1] == "bestmove 8D.ZA"
    w.send("go")
    time.sleep(0.1)
    w.send("quit")  # stops the search, which still ends with its bestmove
    lines, ok = w.read_until(lambda s: s.startswith("bestmove"))
    assert ok
    w.thread.join(T)
    assert not w.thread.is_alive()


def test_fake_internal_error_still_one_bestmove():
    be = FakeBackend(fail=True)
    be.capabilities = Backend.capabilities + ("infer",)
    w = Wire(be)
    w.send("position cgp a b c d")
    w.send("go gen")
    lines, ok = w.read_until(lambda s: s.startswith("bestmove"))
    assert ok and lines[-2] == "info string error internal RuntimeError: boom" and lines[-1] == "bestmove pass"
    # go infer reports and does not move: its bestmove is none, a failed one's too (draft, section 6)
    w.send("go infer")
    lines, ok = w.read_until(lambda s: s.startswith("bestmove"))
    assert ok and lines[-2] == "info string error internal RuntimeError: boom" and lines[-1] == "bestmove none"
    w.close()


# -- heuri siu as a child process -------------------------------------------------------------
class Engine:
    """``python -m heuri siu`` with a reader thread."""

    def __init__(self, *args):
        self.p = subprocess.Popen([sys.executable, "-m", "heuri", "siu", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.q: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.q.put(line.rstrip("\n"))
        self.q.put(None)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def read_until(self, pred, timeout=30.0):
        got, end = [], time.monotonic() + timeout
        while True:
            try:
                line = self.q.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"timeout; got {got}")
            assert line is not None, f"engine exited; got {got}; stderr {self.p.stderr.read()}"
            got.append(line)
            if pred(line):
                return got

    def drain(self, quiet=0.3):
        got = []
        try:
            while True:
                line = self.q.get(timeout=quiet)
                if line is None:
                    break
                got.append(line)
        except queue.Empty:
            pass
        return got

    def ready(self):
        self.send("isready")
        return self.read_until(lambda s: s == "readyok")

    def go(self, cmd):
        self.send(cmd)
        return self.read_until(lambda s: s.startswith("bestmove"))

    def quit(self):
        self.send("quit")
        assert self.p.wait(20) == 0
        err = self.p.stderr.read()
        assert "Traceback" not in err, err


@pytest.fixture(scope="module")
def engine():
    e = Engine("--lang", "es")
    e.send("siu")
    e.read_until(lambda s: s == "siuok")
    e.ready()
    yield e
    e.quit()


def _infos(lines, kind):
    return [s.split() for s in lines if s.startswith(f"info {kind} ")]


def test_child_handshake_exact(pack_es):
    import heuri

    e = Engine()
    e.send("siu")
    lines = e.read_until(lambda s: s == "siuok")
    assert lines == [
        f"id name heuri {heuri.__version__}",
        "id author heuri authors (after Gonzalez Romero, Alquezar Mancho, Ramirez Flores et al.)",
        "capability gen sim infer endgame peg auto stream stop",
        "option name Lexicon type string default es",
        "option name Engine type combo default heuri5 var heuri5 var heuri4 var heuri3 var heuri2 var heuri1 var greedy",
        f"option name BestN type spin default {lines[5].split()[6]} min 1 max 1000",
        f"option name K type string default {lines[6].split()[6]}",
        "option name Threads type spin default 1 min 1 max 64",
        "option name Candidates type spin default 10 min 1 max 1000",
        "option name SimValue type combo default points var points var win",
        "option name SimRollout type combo default full var full var fast",
        "option name Endgame type check default true",
        "option name EndgameClock type check default true",
        "siuok"]
    assert float(lines[6].split()[6]) == 2.5
    e.quit()


def test_child_gen_on_the_opening(engine, pack_es):
    e = engine
    e.send("setoption name Engine value greedy")
    e.send(f"position cgp {EMPTY} AEINRS?/ 0/0 0")
    lines = e.go("go gen movetime 20000 iterations 3")
    assert lines[0] == "info string ignored iterations"
    assert lines[1] == f"info string provenance engine=heuri/{__import__('heuri').__version__} " \
                       f"leaves=none winpct=none lexicon={pack_es.id}"
    gens = _infos(lines, "gen")
    assert len(gens) == 10
    # fields: info gen move M score J eq V leave TILES e E p P
    for g in gens:
        assert g[2::2][:6] == ["move", "score", "eq", "leave", "e", "p"]
    # 7-tile plays with a blank on the empty board: (sum of the six letters, 6 points) x 2 + 50 = 62,
    # + 2 when a letter lands on a double-letter square (D8/L8)... the best reach 64
    assert [int(g[5]) for g in gens] == [64] * 10
    assert all(g[9] == "-" for g in gens)  # all seven tiles played: empty leave
    assert lines[-1] == f"bestmove {gens[0][3]}"
    # restrict with searchmoves (column letters in either case), show another with alsosearchmoves
    e.send("setoption name Candidates value 1")
    lines = e.go("go gen searchmoves 8h.RAS 8H.ANIS")
    assert [(g[3], int(g[5])) for g in _infos(lines, "gen")] == [("8H.ANIS", 8)]  # (1+1+1+1) x2
    lines = e.go("go gen searchmoves 8h.RAS 8H.ANIS alsosearchmoves 8H.RAS")
    assert [(g[3], int(g[5])) for g in _infos(lines, "gen")] == [("8H.ANIS", 8), ("8H.RAS", 6)]
    assert lines[-1] == "bestmove 8H.ANIS"
    e.send("setoption name Candidates value 10")
    e.send("setoption name Engine value heuri3")
    e.ready()


def test_child_position_with_moves_and_rack(engine, pack_es):
    """`moves` then `rack.`: p1 plays 8E.CASA ((3+1+3+1) x2 centre = 16) and draws unseen
    tiles; p2 is to move with ENORST?. The engine's candidates are exactly those of the
    same position read in process from a CGP (board after CASA, p1's rack unknown)."""
    from heuri.evaluate import make_evaluator
    from heuri.game import Position
    from heuri.move import Move

    e = engine
    e.send(f"position cgp {EMPTY} ACASXYZ/ 0/0 0 moves 8E.CASA rack.ENORST?")
    lines = e.go("go gen")
    gens = _infos(lines, "gen")
    rows = EMPTY.split("/")
    rows[7] = "4CASA7"
    ref = Position.from_cgp(f"{'/'.join(rows)} ENORST?/ 0/16 0", pack_es.spec)
    r = make_evaluator(pack_es, "heuri3").rank(ref)
    want = [[Move.from_record(r.moves[i], pack_es.spec).siu(pack_es.spec, ref.board), str(int(r.j[i])),
             f"{r.v[i]:.2f}"] for i in range(10)]
    assert [[g[3], g[5], g[7]] for g in gens] == want
    assert lines[-1] == f"bestmove {want[0][0]}"
    # go auto plays the top of the same ranking (the bag is not empty)
    lines = e.go("go auto")
    assert lines[-1] == f"bestmove {want[0][0]}"
    # the engine is to move with 2 tiles drawn unseen by p1 after p1's exchange: rack unknown -> refused
    e.send(f"position cgp {EMPTY} ACASXYZ/ 0/0 0 moves ex.XYZ")
    e.send("go gen")
    lines = e.read_until(lambda s: s.startswith("info string error"))
    assert lines[-1].startswith("info string error bad-position the rack of the player to move is unknown")
    assert not [s for s in e.drain() if s.startswith("bestmove")]


def test_child_error_paths_keep_the_engine_running(pack_es):
    e = Engine("--lang", "es")
    e.send("siu")
    e.read_until(lambda s: s == "siuok")
    e.ready()
    e.send("go gen")  # before any position
    e.send(f"position cgp {EMPTY.replace('15', '16', 1)} AEINRST/ 0/0 0")  # malformed CGP
    e.send(f"position cgp {EMPTY} AEINRST/ 0/0 0 moves 8D.ZZZ")  # ZZZ: not in the rack, not a word
    e.send(f"position cgp {EMPTY} AEINRST/ 0/0 0 moves 7D.RETINAS")  # misses the centre
    e.send(f"position cgp {EMPTY} AEINRST/ 0/0 0 moves 8D.RE[QX]")  # not a tile
    e.send("go gen")  # the refused positions leave none
    e.send("setoption name Lexicon value CSW21")
    lines = e.ready()
    errs = [s for s in lines if s.startswith("info string error")]
    assert [s.split()[3] for s in errs] == ["no-position", "bad-position", "bad-move", "bad-move", "bad-move",
                                            "no-position", "bad-option"]
    assert "row 1" in errs[1] and "moves[1] '8D.ZZZ'" in errs[2] and "[tiles-not-in-rack]" in errs[2]
    assert "centre" in errs[3] and "Lexicon 'CSW21'" in errs[6] and f"keeping {pack_es.id}" in errs[6]
    assert not [s for s in lines if s.startswith("bestmove")]
    # still alive, still Spanish
    e.send(f"position cgp {EMPTY} AEINRST/ 0/0 0")
    lines = e.go("go gen")
    assert lines[0].endswith(f"lexicon={pack_es.id}") and len(_infos(lines, "gen")) == 10
    # a Lexicon change by path works and shows in the provenance
    e.send(f"setoption name Lexicon value {pack_es.root.parent / 'en'}")
    e.send(f"position cgp {EMPTY} JOINTS?/ 0/0 0")
    lines = e.go("go gen")
    assert lines[0].endswith("lexicon=" + __import__("heuri").load_pack("en").id)
    e.quit()


def test_child_stop_during_go_infinite(engine):
    e = engine
    e.send(f"position cgp {EMPTY} AEINRS?/ 0/0 0")
    e.send("go infinite")
    early = e.drain(0.8)
    assert early and early[0].startswith("info string provenance")
    assert not [s for s in early if s.startswith("bestmove")]
    lines = e.ready()  # isready mid-search: answered, search still running
    assert not [s for s in lines if s.startswith("bestmove")]
    e.send("stop")
    lines = e.read_until(lambda s: s.startswith("bestmove"), 5)
    assert len(lines[-1].split()) == 2
    assert not [s for s in e.drain(0.3) if s.startswith("bestmove")]


def test_child_endgame(engine, pack_es):
    """An empty bag: go endgame reports the search with a pv, and go auto uses the search."""
    import numpy as np

    from heuri.game import Position

    e = engine
    # a real position from a seeded game with the bag emptied: play greedy moves until the bag
    # is empty, then ask over SIU and in process
    from heuri.game import Game
    from heuri.players import make_player

    g = Game(pack_es.spec, seed=3)
    greedy = make_player("greedy", pack_es)
    # greedy until the bag is empty and the racks small enough to solve in a moment
    while (g.position.bag_size > 0 or g.position.racks[0].sum() + g.position.racks[1].sum() > 6) and not g.over:
        g.play(greedy.choose(g.position))
    pos = g.position
    assert pos.bag_size == 0 and not pos.over
    cgp = pos.cgp()
    # hide the opponent's rack: with the bag empty it is every unseen tile
    fields = cgp.split(" ")
    racks = fields[1].split("/")
    hidden = " ".join([fields[0], racks[0] + "/", *fields[2:]])
    e.send(f"position cgp {hidden}")
    lines = e.go("go endgame")
    eg = _infos(lines, "endgame")
    assert len(eg) == 1 and eg[0][2] == "depth" and eg[0][4:6] == ["score", "spread"]
    assert eg[0][eg[0].index("exact") + 1] == "true"
    pv = eg[0][eg[0].index("pv") + 1:]
    assert pv and lines[-1] == f"bestmove {pv[0]}"
    # in process, with both racks known, the same search gives the same move
    from heuri.endgame import EndgameSearch

    res = EndgameSearch(pack_es).search(Position.from_cgp(cgp, pack_es.spec))
    assert res is not None and res.move.siu(pack_es.spec, pos.board) == pv[0]
    assert int(eg[0][6]) == res.value
    lines = e.go("go auto")
    assert _infos(lines, "endgame") and lines[-1] == f"bestmove {pv[0]}"
    # a hard endgame (a blank and 13 other tiles): untimed, go auto searches under the match
    # players' budget (10,000 + 20,000 nodes); with movetime the solver runs until the clock
    from test_endgame import HARD_ES

    board, racks, rest = HARD_ES.split(" ", 2)
    e.send(f"position cgp {board} {racks.split('/')[0]}/ {rest}")

    def nodes(lines):  # the nodes of the go's info endgame line
        info = _infos(lines, "endgame")[0]
        return int(info[info.index("nodes") + 1])

    assert nodes(e.go("go auto")) <= 20_000
    timed = e.go("go auto movetime 2000")
    assert nodes(timed) > 30_000 and "info string endgame value not exact: a horizon estimate" in " ".join(timed)
    e.send("setoption name EndgameClock value false")  # the fixed budget whatever the clock
    assert nodes(e.go("go auto movetime 2000")) <= 20_000
    e.send("setoption name EndgameClock value true")
    # go endgame with tiles in the bag is refused
    e.send(f"position cgp {EMPTY} AEINRST/ 0/0 0")
    e.send("go endgame")
    lines = e.read_until(lambda s: s.startswith("bestmove"))
    err = [s for s in lines if s.startswith("info string error")]
    assert len(err) == 1 and "needs an empty bag" in err[0] and err[0].endswith("searching as go auto")
    assert sum(s.startswith("bestmove") for s in lines) == 1
    assert np.array_equal(pos.rack, pos.racks[pos.to_move])


def test_child_cgp_lex_op_wins_over_the_lexicon_option(engine, pack_en):
    """The draft: an opcode names the lexicon for its position. The engine runs Spanish;
    `lex CSW21;` reads this position with the English pack (W is no Spanish tile)."""
    e = engine
    e.send(f"position cgp {EMPTY} WAXIEST/ 0/0 0 lex CSW21;")
    lines = e.go("go gen")
    assert lines[0].endswith(f"lexicon={pack_en.id}")
    assert lines[-1] == "bestmove " + _infos(lines, "gen")[0][3]
    e.send(f"position cgp {EMPTY} WAXIEST/ 0/0 0")  # without it: Spanish, and W is refused
    e.send("isready")
    lines = e.read_until(lambda s: s == "readyok")
    assert lines[0].startswith("info string error bad-position") and "'W'" in lines[0]


def test_fake_bug_outside_a_search_keeps_the_engine_serving():
    class Buggy(FakeBackend):
        def set_position(self, cgp, moves, rack):
            raise KeyError("oops")

    w = Wire(Buggy())
    w.send("position cgp a b c d")
    w.send("isready")
    lines, ok = w.read_until(lambda s: s == "readyok")
    assert ok and lines == ["info string error internal position: KeyError: 'oops'", "readyok"]
    w.close()


def test_child_peg(engine, pack_es):
    """go peg: one info peg line per candidate, best first, and its bestmove; with a full
    bag the error names the bag size and the go is answered as go auto."""
    from test_peg import ONE_IN_BAG

    e = engine
    e.send("setoption name Engine value heuri4")  # an earlier test may have set another
    e.send(f"position cgp {ONE_IN_BAG}")
    lines = e.go("go peg")
    peg = _infos(lines, "peg")
    assert peg and all(p[2] == "move" and p[4] == "win" for p in peg)
    wins = [float(p[5]) for p in peg]
    assert wins == sorted(wins, reverse=True) and lines[-1] == f"bestmove {peg[0][3]}"
    # the candidates are the session Engine's: heuri4 adds 13J .OCO to heuri3's five
    assert len(peg) == 6
    e.send("setoption name Engine value heuri3")
    e.send(f"position cgp {ONE_IN_BAG}")
    assert len(_infos(e.go("go peg"), "peg")) == 5
    e.send("setoption name Engine value heuri4")
    e.send(f"position cgp {EMPTY} AEINRST/ 0/0 0")
    e.send("go peg")
    lines = e.read_until(lambda s: s.startswith("bestmove"))
    err = [s for s in lines if s.startswith("info string error")]
    assert len(err) == 1 and "go peg needs 1 to 7 tiles in the bag; it holds 86" in err[0]


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

