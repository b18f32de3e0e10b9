"""External SIU engines as match players (heuri.siu_client): every way an engine can fail is a
forfeit (EngineFailure with a kind), never a crash or a hang; heuri over its own protocol
plays the very games it plays in process."""
from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

from heuri.siu_client import EngineFailure, SiuPlayer, parse_command, parse_option_args, player_cgp

EMPTY = "/".join(["15"] * 15)

# A scripted engine: correct handshake, then on `go` behaves as its first argument says.
FAKE = textwrap.dedent('''
    import os, sys, time
    mode = sys.argv[1]
    marker = sys.argv[2] if len(sys.argv) > 2 else None
    def say(s):
        sys.stdout.write(s + "\\n"); sys.stdout.flush()
    for line in sys.stdin:
        t = line.split()
        if not t:
            continue
        if t[0] == "siu":
            say("id name fake 1"); say("id author tests")
            say("capability gen auto" if mode != "noauto" else "capability gen")
            say("option name Lexicon type string default es"); say("siuok")
        elif t[0] == "isready":
            say("readyok")
        elif t[0] == "setoption":
            sys.stderr.write("setoption " + " ".join(t[1:]) + "\\n"); sys.stderr.flush()
        elif t[0] == "position":
            sys.stderr.write(line); sys.stderr.flush()
        elif t[0] == "go":
            if mode == "flaky" and not os.path.exists(marker):
                open(marker, "w").close()
                sys.stderr.write("flaky: dying once\\n"); sys.stderr.flush()
                sys.exit(3)
            if mode in ("pass", "flaky"):
                say("info string provenance engine=fake/1 leaves=none winpct=none lexicon=x"); say("bestmove pass")
            elif mode == "garbage":
                say("bestmove hello")
            elif mode == "empty":
                say("bestmove")
            elif mode == "illegal":
                say("bestmove 8H.SOL")
            elif mode == "phony":
                say("bestmove 8H.AEI")
            elif mode == "refuse":
                say("info string error bad-position I do not like it")
            elif mode == "silent":
                pass
            elif mode == "dies":
                sys.stderr.write("crash here\\n"); sys.stderr.flush()
                sys.exit(1)
        elif t[0] == "quit":
            break
''')


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    p = tmp_path_factory.mktemp("fake") / "fake_engine.py"
    p.write_text(FAKE)
    return p


@pytest.fixture(scope="module")
def opening(pack_es):
    from heuri.game import Position

    return Position.from_cgp(f"{EMPTY} AEINRST/ 0/0 0", pack_es.spec)


def test_parse_command_and_options():
    argv = parse_command("siu:heuri siu --lang 'e s'")
    assert argv == [sys.executable, "-m", "heuri", "siu", "--lang", "e s"]
    assert parse_command("siu:/opt/magpie -mode siu") == ["/opt/magpie", "-mode", "siu"]
    with pytest.raises(EngineFailure) as e:
        parse_command("siu:  ")
    assert e.value.kind == "start"
    assert parse_option_args(["Lexicon=es", "Engine = greedy", "X=a=b"]) == \
        {"Lexicon": "es", "Engine": "greedy", "X": "a=b"}
    with pytest.raises(ValueError):
        parse_option_args(["Lexicon"])


def test_player_cgp_hides_the_opponent_rack(pack_es):
    from heuri.game import Game

    g = Game(pack_es.spec, seed=5)
    cgp = player_cgp(g.position)
    fields = cgp.split()
    own = fields[1].split("/")
    assert own[1] == "" and own[0] == g.position.rack_text()
    assert fields[2:4] == ["0/0", "0"]
    g.play("-")  # now seat 1 moves: its own rack first, seat 0's hidden
    fields = player_cgp(g.position).split()
    assert fields[1] == g.position.rack_text(1) + "/"


@pytest.mark.parametrize("mode,kind", [("garbage", "unparseable"), ("empty", "unparseable"),
                                       ("illegal", "illegal"), ("phony", "illegal"), ("refuse", "refused"),
                                       ("silent", "timeout"), ("dies", "dead"), ("noauto", "refused")])
def test_every_failure_is_an_engine_failure(fake, opening, pack_es, tmp_path, mode, kind):
    err = tmp_path / "engine.stderr"
    pl = SiuPlayer(f"siu:{sys.executable} {fake} {mode}", {"Lexicon": "es"}, movetime_ms=100,
                   stderr_path=err, words=pack_es.words, grace_s=0.5, start_timeout_s=10)
    with pytest.raises(EngineFailure) as e:
        pl.choose(opening)
    assert e.value.kind == kind, e.value
    # the engine process was started, and is killed after the failure (how long a failure
    # takes to be declared is a figure of benchmarks/bench_siu_latency.py, not a test)
    assert pl.engine is not None and not pl.engine.alive
    pl.close()
    log = err.read_text()
    if mode != "noauto":
        assert "setoption name Lexicon value es" in log
        assert f"position cgp {EMPTY} AEINRST/ 0/0 0" in log  # the mover's rack only
    if mode == "dies":
        assert "crash here" in log and str(err) in str(e.value)
    if mode == "illegal":
        assert e.value.reply == "8H.SOL" and "lacks LO" in str(e.value)
    if mode == "phony":
        assert "AEI" in str(e.value) and "not in the word list" in str(e.value)


def test_an_engine_that_dies_is_restarted_for_the_next_game(fake, opening, tmp_path):
    err = tmp_path / "flaky.stderr"
    pl = SiuPlayer(f"siu:{sys.executable} {fake} flaky {tmp_path / 'marker'}", movetime_ms=50,
                   stderr_path=err, grace_s=2, start_timeout_s=10)
    with pytest.raises(EngineFailure) as e:
        pl.choose(opening)
    assert e.value.kind == "dead"
    from heuri.move import Pass

    assert pl.choose(opening) == Pass()  # a fresh process
    assert pl.info["bestmove"] == "pass" and pl.info["infos"][0].startswith("info string provenance")
    pl.close()
    assert "flaky: dying once" in err.read_text()


def test_a_killed_engine_leaves_its_stdout_to_its_reader(fake, opening):
    """Each failure kills the engine and the next turn starts another: every handshake arrives
    whole (the engine's name with its first letter), and the killed engine's reader has closed
    its stdout before the next engine's pipe can take its descriptor number."""
    pl = SiuPlayer(f"siu:{sys.executable} {fake} illegal", movetime_ms=50, grace_s=5, start_timeout_s=10)
    names = []
    for _ in range(12):
        with pytest.raises(EngineFailure, match="answered the illegal move"):
            pl.choose(opening)
        eng = pl.engine
        names.append(eng.id_name)
        assert not eng.alive and not eng._reader.is_alive() and eng.proc.stdout.closed
    assert names == ["fake 1"] * 12
    pl.close()


def test_missing_command_is_a_start_failure(opening, tmp_path):
    pl = SiuPlayer("siu:/nonexistent/engine --siu", stderr_path=tmp_path / "x.stderr")
    with pytest.raises(EngineFailure) as e:
        pl.choose(opening)
    assert e.value.kind == "start"
    pl.close()


def test_heuri_over_siu_plays_the_same_game_as_in_process(pack_es, tmp_path):
    """heuri3 against `siu:heuri siu --lang es` (Engine heuri3 over the protocol, and
    EndgameClock false: the endgame under the match players' budget, not until the clock)
    gives the game heuri3 against heuri3 gives in process: same moves, same scores."""
    from heuri.match import play_game
    from heuri.players import make_player

    spec_string = "siu:heuri siu --lang es"
    err = tmp_path / "p2.stderr"
    siu = make_player(spec_string, pack_es, siu_options={"options": {"Engine": "heuri3", "EndgameClock": "false"},
                                                         "movetime_ms": 60000, "stderr_path": err})
    h3 = make_player("heuri3", pack_es)
    try:
        row_s, _, game_s = play_game(pack_es, {"heuri3": h3, spec_string: siu}, "heuri3", spec_string,
                                     seed=11, pair=0, seat=1, words=pack_es.words)
    finally:
        siu.close()
    row_i, _, game_i = play_game(pack_es, {"heuri3": h3}, "heuri3", "heuri3", seed=11, pair=0, seat=1,
                                 words=pack_es.words)
    moves_s = [(m, s) for _, m, s in game_s.history]
    moves_i = [(m, s) for _, m, s in game_i.history]
    assert moves_s == moves_i
    assert len(moves_s) > 10
    assert (row_s["score_p1"], row_s["score_p2"]) == (row_i["score_p1"], row_i["score_p2"])
    assert np.array_equal(game_s.position.board.letters, game_i.position.board.letters)
    assert "Traceback" not in err.read_text()


def test_both_seats_external_with_heuri_as_referee(pack_es, tmp_path):
    """Two SIU engines against each other (here heuri's greedy twice, over the protocol):
    the runner only referees, and the game is the in-process greedy-vs-greedy game."""
    from heuri.match import play_game
    from heuri.players import make_player

    a, b = "siu:heuri siu --lang es", "siu:heuri siu"
    pa = make_player(a, pack_es, siu_options={"options": {"Engine": "greedy"}, "stderr_path": tmp_path / "a"})
    pb = make_player(b, pack_es, siu_options={"options": {"Engine": "greedy", "Lexicon": "es"},
                                              "stderr_path": tmp_path / "b"})
    try:
        row, gcg, game = play_game(pack_es, {a: pa, b: pb}, a, b, seed=4, pair=0, seat=0, words=pack_es.words)
    finally:
        pa.close()
        pb.close()
    g = make_player("greedy", pack_es)
    row_i, _, game_i = play_game(pack_es, {"greedy": g}, "greedy", "greedy", seed=4, pair=0, seat=0,
                                 words=pack_es.words)
    assert [(m, s) for _, m, s in game.history] == [(m, s) for _, m, s in game_i.history]
    assert (row["score_p1"], row["score_p2"]) == (row_i["score_p1"], row_i["score_p2"])
    assert "#player1" in gcg and row["turns"] == row_i["turns"] > 10
