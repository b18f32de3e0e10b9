"""The match runner with external SIU engines (heuri.match + heuri.siu_client): heuri over its
own protocol plays the games it plays in process; options reach the engine; every way an
engine fails is a recorded forfeit (row, game record, summary), the match goes on, the
engine's stderr is kept, and resume and determinism hold."""
from __future__ import annotations

import json
import shlex
import sys
import textwrap

import pyarrow.parquet as pq
import pytest

from heuri.match import COLUMNS, FORFEIT_SPREAD, TIMING_COLUMNS, MatchError, folder_name, run_match

# A scripted SIU engine without state between searches (so the games do not depend on which
# process plays them): a correct handshake; on an empty board `go` answers a legal `pass`,
# on any other board it fails as argv[1] says.
FAKE = textwrap.dedent('''
    import sys
    mode = sys.argv[1]
    empty = True
    def say(s):
        sys.stdout.write(s + "\\n"); sys.stdout.flush()
    def log(s):
        sys.stderr.write(s + "\\n"); sys.stderr.flush()
    for line in sys.stdin:
        t = line.split()
        if not t:
            continue
        if t[0] == "siu":
            say("id name fake 1"); say("id author tests"); say("capability gen auto")
            say("option name Flavour type string default plain"); say("siuok")
        elif t[0] == "isready":
            say("readyok")
        elif t[0] in ("setoption", "position", "siunewgame"):
            log(line.strip())
            if t[0] == "position":
                empty = all(x == "15" for x in t[2].split("/"))
        elif t[0] == "go":
            if empty:
                say("bestmove pass")
            elif mode == "illegal":
                say("bestmove 1A.ZZZ")
            elif mode == "garbage":
                say("bestmove hello")
            elif mode == "dies":
                log("fake: dying now"); sys.exit(1)
            # silent: no answer at all
        elif t[0] == "quit":
            break
''')

#: the game-dependent columns (all but timing and the names of the players)
SAME = [c for c in COLUMNS if c not in TIMING_COLUMNS and c not in ("p1", "p2", "first")]


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    p = tmp_path_factory.mktemp("fake") / "fake_engine.py"
    p.write_text(FAKE)
    return p


def _fake(fake, mode: str) -> str:
    return f"siu:{shlex.quote(sys.executable)} {shlex.quote(str(fake))} {mode}"


def _rows(res, cols=SAME):
    return [{c: r[c] for c in cols} for r in res.rows]


def _moves(gcg_text: str) -> list[str]:
    """The event lines of a record without the nicknames."""
    return [ln.split(":", 1)[1] for ln in gcg_text.splitlines() if ln.startswith(">")]


# -- heuri over SIU is heuri ---------------------------------------------------------------------
def test_heuri3_against_itself_over_siu_plays_the_in_process_games(tmp_path, pack_es):
    """heuri3 vs `siu:heuri siu --lang es` (heuri3 over the protocol) gives, game for game and
    column for column, the match heuri3 vs heuri3 gives in process with the same seed."""
    siu = "siu:heuri siu --lang es"
    res = run_match("es", "heuri3", siu, 2, seed=3, out=tmp_path / "siu", progress=False,
                    engines={"p2": {"movetime_ms": 60000, "options": {"Engine": "heuri3"}}})
    ref = run_match("es", "heuri3", "heuri3", 2, seed=3, out=tmp_path / "ref", progress=False)
    assert res.played == 2
    assert _rows(res) == _rows(ref)
    for r in res.rows:
        assert r["forfeit"] == "" and r["end"] in ("out", "scoreless") and r["turns"] > 15
        assert r["p2"] == siu and r["moves_p2"] > 5
    assert sum(r["endgame_moves_p2"] for r in res.rows) > 0  # `info endgame` counted like in process
    for name in ("00000-0", "00000-1"):
        a = (tmp_path / "siu" / "games" / f"{name}.gcg").read_text()
        b = (tmp_path / "ref" / "games" / f"{name}.gcg").read_text()
        assert _moves(a) == _moves(b) and len(_moves(a)) > 15
        assert "#player2 siu_heuri_siu_--lang_es siu:heuri siu --lang es" in a or \
            "#player1 siu_heuri_siu_--lang_es siu:heuri siu --lang es" in a
    assert (tmp_path / "siu" / "engines" / "p2.stderr").is_file()
    meta = json.loads((tmp_path / "siu" / "match.json").read_text())
    assert meta["engines"] == {"p2": {"options": {"Engine": "heuri3"}, "movetime_ms": 60000}}
    assert "engines" not in json.loads((tmp_path / "ref" / "match.json").read_text())
    # the records replay (`heuri replay` checks every score and total)
    from heuri.cli import main

    for f in sorted((tmp_path / "siu" / "games").glob("*.gcg")):
        assert main(["replay", str(f)]) == 0


def test_p2_option_reaches_the_engine_cli(tmp_path, pack_es, capsys):
    """`--p2-option Engine=greedy` makes heuri's engine play greedily: greedy vs that engine
    is greedy vs greedy in process; the option is in the engine's own session log."""
    from heuri.cli import main

    log = tmp_path / "session.log"
    p2 = f"siu:{shlex.quote(sys.executable)} -m heuri siu --lang es --log {shlex.quote(str(log))}"
    out = tmp_path / "m"
    argv = ["match", "--lang", "es", "--p1", "greedy", "--p2", p2, "--p2-option", "Engine=greedy",
            "--movetime", "30000", "--games", "2", "--seed", "5", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "forfeits (engine failures)" in text and "2 games played now" in text
    ref = run_match("es", "greedy", "greedy", 2, seed=5, out=tmp_path / "ref", progress=False)
    got = pq.read_table(out / "games.parquet").to_pylist()
    assert [{c: r[c] for c in SAME} for r in got] == _rows(ref)
    assert "> setoption name Engine value greedy" in log.read_text()
    assert "go auto movetime 30000" in log.read_text()
    # the options are part of the match: another value is refused, the same one resumes
    assert main(argv[:8] + ["Engine=heuri3"] + argv[9:]) == 2
    assert "already holds another match" in capsys.readouterr().err
    assert main(argv) == 0
    assert "0 games played now, 2 already" in capsys.readouterr().out


def test_both_seats_external_heuri_referees(tmp_path, pack_es):
    """The same command in both seats with per-seat options (two processes, two stderr
    files): Engine=greedy in both is the in-process greedy-vs-greedy match."""
    cmd = "siu:heuri siu --lang es"
    res = run_match("es", cmd, cmd, 2, seed=8, out=tmp_path / "m", progress=False,
                    engines={"p1": {"options": {"Engine": "greedy"}}, "p2": {"options": {"Engine": "greedy"}}})
    ref = run_match("es", "greedy", "greedy", 2, seed=8, out=tmp_path / "ref", progress=False)
    assert _rows(res) == _rows(ref)
    assert (tmp_path / "m" / "engines" / "p1.stderr").is_file()
    assert (tmp_path / "m" / "engines" / "p2.stderr").is_file()
    gcg = (tmp_path / "m" / "games" / "00000-0.gcg").read_text()
    assert "#player1 siu_heuri_siu_--lang_es_1 " in gcg and "#player2 siu_heuri_siu_--lang_es_2 " in gcg


# -- failures are forfeits -------------------------------------------------------------------------
@pytest.mark.parametrize("mode,kind", [("illegal", "illegal"), ("garbage", "unparseable"),
                                       ("silent", "timeout"), ("dies", "dead")])
def test_a_failing_engine_forfeits_and_the_match_goes_on(tmp_path, pack_es, fake, mode, kind):
    out = tmp_path / "m"
    res = run_match("es", "greedy", _fake(fake, mode), 2, seed=2, out=out, progress=False,
                    engines={"p2": {"options": {"Flavour": "salty"}, "movetime_ms": 100, "grace_s": 0.5}})
    assert res.played == 2
    for r in res.rows:
        assert (r["forfeit"], r["forfeit_kind"], r["end"]) == ("p2", kind, "forfeit")
        assert (r["winner"], r["result_p1"]) == ("p1", 1.0)
        assert r["spread"] == max(FORFEIT_SPREAD, r["score_p1"] - r["score_p2"])
    # game 0: greedy opens and p2 fails at once; game 1 (p2 moves first, on a fresh engine
    # process): p2 passes on the empty board, greedy plays, p2 fails
    assert [(r["turns"], r["moves_p2"], r["passes_p2"], r["moves_p1"]) for r in res.rows] == \
        [(1, 0, 0, 1), (2, 1, 1, 1)]
    assert all(r["score_p1"] > 0 and r["score_p2"] == 0 for r in res.rows)
    if mode in ("illegal", "garbage"):
        reply = {"illegal": "1A.ZZZ", "garbage": "hello"}[mode]
        assert all(f"bestmove '{reply}'" in r["forfeit_detail"] for r in res.rows)
    else:
        assert all("bestmove (none)" in r["forfeit_detail"] for r in res.rows)
    # the record ends with the forfeit note, and its totals are the row's scores
    gcg = (out / "games" / "00000-1.gcg").read_text()
    note = gcg.splitlines()[-1]
    assert note.startswith("#note forfeit ") and f"(p2) {kind}: bestmove" in note
    lines = _moves(gcg)
    assert len(lines) == 2 and lines[0].split()[1] == "-"  # p2's pass
    assert int(lines[-1].split()[-1]) == res.rows[1]["score_p1"]
    from heuri.cli import main

    assert main(["replay", str(out / "games" / "00000-0.gcg")]) == 0  # an unfinished record replays
    # the table: new columns, old ones unchanged
    t = pq.read_table(out / "games.parquet")
    assert t.column_names == COLUMNS and t.column("forfeit").to_pylist() == ["p2", "p2"]
    # the summary counts forfeits per player
    s = res.summary
    assert (s["stats_p2"]["forfeits"], s["stats_p2"]["forfeit_kinds"]) == (2, {kind: 2})
    assert s["stats_p1"]["forfeits"] == 0 and s["wins"] == 2
    # the engine's stderr is kept in the output folder, appended across its restarts
    err = (out / "engines" / "p2.stderr").read_text()
    assert err.count("setoption name Flavour value salty") == 2  # the first process, then one restart for game 1
    assert "position cgp " in err
    if mode == "dies":
        assert err.count("fake: dying now") == 2


def test_forfeits_with_workers_resume_and_determinism(tmp_path, pack_es, fake, capsys):
    """Two worker processes: the match completes, each worker keeps its engine's stderr,
    the games equal a one-process run, the printed table shows the forfeits, and a second
    run resumes without replaying anything."""
    from heuri.cli import main

    p2 = _fake(fake, "illegal")
    out = tmp_path / "m"
    # the fake answers at once; a generous movetime keeps a loaded machine from turning its
    # illegal answers into timeouts (seen with two suites running side by side)
    argv = ["match", "--lang", "es", "--p1", "greedy", "--p2", p2, "--movetime", "3000", "--games", "4",
            "--seed", "9", "--jobs", "2", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "4 (illegal 4)" in text  # p2's forfeits in the summary table
    files = sorted((out / "engines").glob("p2.*.stderr"))
    assert 1 <= len(files) <= 2 and all("position cgp" in f.read_text() for f in files)
    ref = run_match("es", "greedy", p2, 4, seed=9, out=tmp_path / "ref", progress=False,
                    engines={"p2": {"movetime_ms": 3000}})
    got = pq.read_table(out / "games.parquet").to_pylist()
    cols = [c for c in COLUMNS if c not in TIMING_COLUMNS]
    assert [{c: r[c] for c in cols} for r in got] == _rows(ref, cols)
    before = {f.name: f.read_bytes() for f in (out / "rows").glob("*.json")}
    argv[argv.index("--games") + 1] = "6"
    assert main(argv) == 0
    assert "2 games played now, 4 already" in capsys.readouterr().out
    for name, b in before.items():
        assert (out / "rows" / name).read_bytes() == b


def test_engine_options_for_an_in_process_player_are_refused(tmp_path):
    with pytest.raises(MatchError, match="p1 'greedy' is not an external engine"):
        run_match("es", "greedy", "greedy", 2, out=tmp_path / "m", progress=False,
                  engines={"p1": {"options": {"Engine": "greedy"}}})
    from heuri.cli import main

    assert main(["match", "--lang", "es", "--games", "2", "--movetime", "10", "--out", str(tmp_path / "o"),
                 "--quiet"]) == 2


def test_folder_names_of_external_engines():
    assert folder_name("siu:heuri siu --lang es") == "siu-heuri_siu_--lang_es"
    assert folder_name(f"siu:{sys.executable} -m heuri siu").startswith("siu-python")
    assert "/" not in folder_name("siu:/opt/x/magpie --siu 'a/b'")
