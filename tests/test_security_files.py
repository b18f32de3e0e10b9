"""Nothing of the user's is overwritten, and interrupts leave something whole: the output
folders of `heuri match`, `heuri analyze` and `heuri duplicate new` (heuri.outdir), bad
--out paths, foreign files, --force through links, Ctrl-C and SIGTERM on real runs (in a
subprocess), workers that do not outlive their parent, and resume."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pyarrow.parquet as pq
import pytest

from heuri.cli import main
from heuri.match import MatchError, read_rows, run_match
from heuri.outdir import MARKER

REPO = Path(__file__).resolve().parents[1]


def _tree(root: Path) -> dict:
    """Every file under root (links as their target's name) → bytes: what a run must not change."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_symlink():
            out[p] = ("link", os.readlink(p))
        elif p.is_file():
            out[p] = p.read_bytes()
    return out


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("heuri: error: ") and "\n" not in err and "Traceback" not in err, err
    return err


@pytest.fixture(scope="module")
def records(tmp_path_factory, pack_en):
    """Two short greedy-vs-greedy English games (GCG files) and their match folder."""
    base = tmp_path_factory.mktemp("recs")
    run_match("en", "greedy", "greedy", 2, seed=5, out=base / "m", progress=False)
    recs = base / "in"
    recs.mkdir()
    for f in sorted((base / "m" / "games").glob("*.gcg")):
        shutil.copy(f, recs / f"g{f.stem}.gcg")
    return base


# -- match -------------------------------------------------------------------------------------
def test_match_refuses_a_folder_of_the_users_files(tmp_path, capsys, pack_en):
    out = tmp_path / "mine"
    (out / "games").mkdir(parents=True)
    (out / "games.parquet").write_bytes(b"my own table")
    (out / "games" / "00000-0.gcg").write_text("#player1 me Me\n")
    before = _tree(out)
    rc = main(["match", "--lang", "en", "--p1", "greedy", "--p2", "greedy", "--games", "2",
               "--out", str(out), "--quiet"])
    err = _one_line_error(capsys)
    assert rc == 2 and str(out) in err and "games.parquet" in err and "games/00000-0.gcg" in err
    assert _tree(out) == before and not (out / MARKER).exists() and not (out / "rows").exists()


def test_foreign_file_in_rows_is_refused_or_skipped(tmp_path, records, capsys, pack_en):
    out = tmp_path / "m"
    shutil.copytree(records / "m", out)
    (out / "rows" / "notes.json").write_text('{"mine": 1}')
    (out / "rows" / "stray.parquet").write_bytes(b"PAR1")
    before = _tree(out)
    with pytest.raises(MatchError, match=r"did not write \(rows/notes\.json, rows/stray\.parquet\)"):
        run_match("en", "greedy", "greedy", 2, seed=5, out=out, progress=False)
    assert _tree(out) == before
    # reading the rows of such a folder (heuri.match summary DIR) skips them with a warning
    with pytest.warns(UserWarning) as caught:
        rows = read_rows(out)
    assert sorted(rows) == [(0, 0), (0, 1)]
    assert sorted(Path(str(w.message).split(": ")[0]).name for w in caught) == ["notes.json", "stray.parquet"]
    assert all("not a game row of heuri match" in str(w.message) for w in caught)
    assert main(["match", "--lang", "en", "--p1", "greedy", "--p2", "greedy", "--games", "2", "--seed", "5",
                 "--out", str(out), "--quiet"]) == 2
    assert "notes.json" in _one_line_error(capsys)
    # a row file with the right name but not a row: a one-line error, not KeyError 'pair'
    (out / "rows" / "notes.json").unlink()
    (out / "rows" / "stray.parquet").unlink()
    (out / "rows" / "00000-1.json").write_text('{"mine": 1}')
    with pytest.raises(MatchError, match=r"00000-1\.json: unreadable game row \(KeyError"):
        read_rows(out)


def test_match_folder_without_marker_is_adopted(tmp_path, records, pack_en):
    out = tmp_path / "m"
    shutil.copytree(records / "m", out)
    (out / MARKER).unlink()  # written before markers existed
    res = run_match("en", "greedy", "greedy", 2, seed=5, out=out, progress=False)
    assert res.played == 0
    listed = (out / MARKER).read_text().splitlines()
    assert json.loads(listed[0])["command"] == "heuri match"
    assert {json.loads(x)["wrote"] for x in listed[1:]} >= {"match.json", "rows/00000-0.json", "games/00000-1.gcg"}


# -- analyze -------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["/sys/x", "file/x", "file"])
def test_analyze_out_unusable_is_one_line(bad, tmp_path, records, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("file").write_text("x")
    rc = main(["analyze", str(records / "in"), "--engine", "greedy", "--out", bad, "--quiet"])
    err = _one_line_error(capsys)
    assert rc == 2 and f"--out '{bad}'" in err and "choose a writable folder" in err
    assert Path("file").read_text() == "x"


def test_analyze_refuses_users_files_and_force_deletes_only_its_own(tmp_path, records, capsys):
    out = tmp_path / "a"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    argv = ["analyze", str(records / "in"), "--engine", "greedy", "--out", str(out), "--quiet"]
    for extra in ([], ["--force"]):  # refused, with or without --force
        assert main(argv + extra) == 2
        assert "notes.txt" in _one_line_error(capsys)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    (out / "notes.txt").unlink()
    assert main(argv) == 0
    pages = sorted(p.name for p in (out / "games").iterdir())
    assert pages == ["g00000-0.html", "g00000-0.json", "g00000-1.html", "g00000-1.json"]
    # the same command again resumes: both games kept, their pages untouched
    before = _tree(out / "games")
    capsys.readouterr()
    assert main(argv) == 0
    assert "(2 kept from an earlier run" in capsys.readouterr().out
    assert _tree(out / "games") == before
    # another analysis needs --force
    one = tmp_path / "one"
    one.mkdir()
    shutil.copy(records / "in" / "g00000-1.gcg", one / "h.gcg")
    argv2 = ["analyze", str(one), "--engine", "greedy", "--out", str(out), "--quiet"]
    assert main(argv2) == 2 and "give --force" in _one_line_error(capsys)
    # --force through a link: summary.json links to the user's file, which must stay as it is
    precious = tmp_path / "precious.txt"
    precious.write_text("precious")
    (out / "summary.json").unlink()
    (out / "summary.json").symlink_to(precious)
    assert main(argv2 + ["--force"]) == 0
    assert precious.read_text() == "precious"
    assert not (out / "summary.json").is_symlink()
    assert [g["id"] for g in json.loads((out / "summary.json").read_text())["games"]] == ["h"]
    # the earlier analysis's pages do not stay beside the new index
    assert sorted(p.name for p in (out / "games").iterdir()) == ["h.html", "h.json"]
    assert sorted(p.name for p in (out / "rows").iterdir()) == ["h.json"]
    assert pq.read_table(out / "turns.parquet").column("game").unique().to_pylist() == ["h"]


def test_analyze_force_never_writes_through_a_linked_folder(tmp_path, records, capsys):
    out = tmp_path / "a"
    argv = ["analyze", str(records / "in"), "--engine", "greedy", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "g00000-0.html").write_text("not heuri's")
    shutil.rmtree(out / "games")
    (out / "games").symlink_to(elsewhere)
    assert main(argv + ["--force"]) == 2
    err = _one_line_error(capsys)
    assert "did not write (games)" in err
    assert sorted(p.name for p in elsewhere.iterdir()) == ["g00000-0.html"]
    assert (elsewhere / "g00000-0.html").read_text() == "not heuri's"


# -- duplicate new ----------------------------------------------------------------------------------
def test_duplicate_new_force_replaces_only_its_own_files(tmp_path, capsys, pack_fr):
    out = tmp_path / "d" / "g.gcg"
    out.parent.mkdir()
    out.with_suffix(".csv").write_text("my own sheet")
    argv = ["duplicate", "new", "--lang", "fr", "--seed", "2", "--out", str(out)]
    assert main(argv + ["--force"]) == 2  # the user's g.csv: not the command's to replace
    assert "not written by `heuri duplicate new`" in _one_line_error(capsys)
    assert out.with_suffix(".csv").read_text() == "my own sheet" and not out.exists()
    out.with_suffix(".csv").unlink()
    assert main(argv) == 0
    gcg = out.read_bytes()
    precious = tmp_path / "precious.txt"
    precious.write_text("precious")
    out.with_suffix(".csv").unlink()
    out.with_suffix(".csv").symlink_to(precious)  # a link the command did write the name of
    capsys.readouterr()
    assert main(argv + ["--force"]) == 0
    assert precious.read_text() == "precious"
    assert not out.with_suffix(".csv").is_symlink()
    assert out.with_suffix(".csv").read_text().startswith("turn,")
    assert out.read_bytes() == gcg


# -- interrupts ---------------------------------------------------------------------------------------
def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "runtime") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _interrupt(cmd, cwd, ready, sig) -> tuple[int, str, list]:
    """Run ``cmd`` in its own session; once ``ready()``, send ``sig`` (SIGINT to the whole
    process group, as a terminal's Ctrl-C does; SIGTERM to the parent only, as kill does).
    Returns (exit status, stderr, the pids of its children when the signal was sent)."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        t0 = time.time()
        while not ready() and proc.poll() is None and time.time() - t0 < 240:
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be interrupted: " + proc.stderr.read()
        kids = [c.pid for c in psutil.Process(proc.pid).children(recursive=True)]
        if sig == signal.SIGINT:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)  # a hang guard, not a speed figure
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, err, kids


def _alive(pids) -> list:
    out = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                out.append(pid)
        except psutil.NoSuchProcess:
            pass
    return out


@pytest.mark.parametrize("jobs, sig", [(1, signal.SIGINT), (2, signal.SIGTERM), (2, signal.SIGINT)])
def test_match_interrupt_saves_the_table_and_resumes(jobs, sig, tmp_path, pack_en):
    out = tmp_path / "m"
    cmd = [sys.executable, "-m", "heuri", "match", "--lang", "en", "--p1", "greedy", "--p2", "greedy",
           "--games", "60", "--seed", "4", "--jobs", str(jobs), "--out", str(out), "--quiet"]
    rows_dir = out / "rows"
    rc, err, kids = _interrupt(cmd, tmp_path, lambda: rows_dir.is_dir() and any(rows_dir.glob("*.json")), sig)
    assert rc == 130 and "interrupted:" in err and "run the same command again to resume" in err, err
    assert "Traceback" not in err
    assert len(kids) == (jobs if jobs > 1 else 0)
    time.sleep(0.5)
    assert _alive(kids) == []  # no worker outlives its parent
    done = read_rows(out)
    assert 1 <= len(done) < 60
    assert not [p for p in out.rglob("*") if p.name.endswith("tmp")]  # no half-written file left
    table = pq.read_table(out / "games.parquet").to_pylist()
    assert sorted((r["pair"], r["seat"]) for r in table) == sorted(done)
    # the same command resumes: finished games kept byte for byte, only the others played
    last = max(2 * p + s for p, s in done) + 1
    last += last % 2
    before = {f.name: f.read_bytes() for f in rows_dir.glob("*.json")}
    res = run_match("en", "greedy", "greedy", last, seed=4, jobs=1, out=out, progress=False)
    assert res.played == last - len([g for g in done if 2 * g[0] + g[1] < last])
    assert {f.name: f.read_bytes() for f in rows_dir.glob("*.json") if f.name in before} == before


@pytest.mark.parametrize("jobs, sig", [(1, signal.SIGTERM), (2, signal.SIGINT)])
def test_analyze_interrupt_saves_the_table_and_resumes(jobs, sig, tmp_path, records):
    src = tmp_path / "in"
    src.mkdir()
    for k in range(5):  # 10 records, several seconds of work (each page draws every turn)
        for f in sorted((records / "in").glob("*.gcg")):
            shutil.copy(f, src / f"{k:02d}{f.name}")
    out = tmp_path / "a"
    argv = ["analyze", str(src), "--engine", "greedy", "--out", str(out), "--quiet", "--jobs", str(jobs)]
    rows_dir = out / "rows"
    rc, err, kids = _interrupt([sys.executable, "-m", "heuri"] + argv, tmp_path,
                               lambda: rows_dir.is_dir() and any(rows_dir.glob("*.json")), sig)
    assert rc == 130 and "interrupted:" in err and "run the same command again" in err, err
    assert "Traceback" not in err
    time.sleep(0.5)
    assert _alive(kids) == []
    s = json.loads((out / "summary.json").read_text())
    done = [g["id"] for g in s["games"]]
    assert s["interrupted"] is True and 1 <= len(done) < 10 and len(done) + len(s["pending"]) == 10
    assert sorted(pq.read_table(out / "turns.parquet").column("game").unique().to_pylist()) == sorted(done)
    assert not [p for p in out.rglob("*") if p.name.endswith("tmp")]
    before = {g: (out / "games" / f"{g}.html").read_bytes() for g in done}
    assert main(argv) == 0  # resumes: no --force needed
    s = json.loads((out / "summary.json").read_text())
    assert len(s["games"]) == 10 and "interrupted" not in s
    assert {g: (out / "games" / f"{g}.html").read_bytes() for g in done} == before


def test_workers_die_with_a_killed_parent(tmp_path, pack_en):
    out = tmp_path / "m"
    cmd = [sys.executable, "-m", "heuri", "match", "--lang", "en", "--p1", "greedy", "--p2", "greedy",
           "--games", "60", "--jobs", "2", "--out", str(out), "--quiet"]
    rows_dir = out / "rows"
    rc, _, kids = _interrupt(cmd, tmp_path, lambda: rows_dir.is_dir() and any(rows_dir.glob("*.json")),
                             signal.SIGKILL)
    assert rc == -signal.SIGKILL and len(kids) == 2
    t0 = time.time()
    while _alive(kids) and time.time() - t0 < 30:  # a hang guard: the kernel kills them at once
        time.sleep(0.05)
    assert _alive(kids) == []
    for f in rows_dir.glob("*.json"):
        json.loads(f.read_text())  # whole rows only


def test_an_interrupt_inside_compiled_code_is_still_an_interrupt():
    from heuri.outdir import is_interrupt

    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise SystemError("CPUDispatcher(<function k>) returned a result with an exception set")
    except SystemError as e:
        assert is_interrupt(e)
    assert not is_interrupt(SystemError("a bug")) and not is_interrupt(ValueError("x"))


def test_a_failed_analysis_does_not_block_the_retry(tmp_path, records, capsys):
    src = tmp_path / "in"
    src.mkdir()
    gcg = (records / "in" / "g00000-0.gcg").read_text()
    # without its #lexicon and #tile-distribution lines the record names no language: it fails
    (src / "x.gcg").write_text("".join(l for l in gcg.splitlines(True)
                                       if not l.startswith(("#tile-distribution", "#lexicon"))))
    out = tmp_path / "a"
    argv = ["analyze", str(src), "--engine", "greedy", "--out", str(out), "--quiet"]
    assert main(argv) == 1 and "cannot tell the language" in capsys.readouterr().out
    assert main(argv + ["--lang", "en"]) == 0  # other options, no --force needed: nothing was finished
    s = json.loads((out / "summary.json").read_text())
    assert [g["id"] for g in s["games"]] == ["x"] and s["failed"] == []


def test_a_failed_analysis_removes_what_it_wrote_and_only_that(tmp_path, records, capsys):
    src = tmp_path / "in"
    src.mkdir()
    gcg = (records / "in" / "g00000-0.gcg").read_text()
    (src / "x.gcg").write_text("".join(l for l in gcg.splitlines(True)
                                       if not l.startswith(("#tile-distribution", "#lexicon"))))
    made = tmp_path / "made"  # a folder the run makes: gone
    argv = ["analyze", str(src), "--engine", "greedy", "--quiet"]
    assert main(argv + ["--out", str(made)]) == 1
    text = capsys.readouterr().out
    assert "no game was analysed, so nothing is kept" in text and "1 of 1 records failed" in text
    assert not made.exists()
    mine = tmp_path / "mine"  # a folder the user made, empty: kept, empty again
    mine.mkdir()
    assert main(argv + ["--out", str(mine)]) == 1
    assert list(mine.iterdir()) == []
    # the same command the same day with the language: a fresh analysis, no --force
    assert main(argv + ["--out", str(mine), "--lang", "en"]) == 0
    assert sorted(p.name for p in mine.iterdir()) == [".heuri-output.json", "games", "index.html", "rows",
                                                      "summary.json", "turns.parquet"]


def _sleep(seconds):
    time.sleep(seconds)


def test_killed_workers_leave_no_thread_for_the_exit_to_wait_on():
    """A worker killed while sending a large result leaves half a message in the result pipe;
    the executor's manager thread, blocked reading the rest, must still end (the interpreter's
    exit joins it). Half a message is written here by hand: a length header and 10 of its
    1,000 bytes."""
    import multiprocessing as mp
    import struct
    from concurrent.futures import ProcessPoolExecutor

    from heuri.core.outdir import kill_workers, pool_children

    before = pool_children()
    ex = ProcessPoolExecutor(2, mp_context=mp.get_context("fork"))
    for _ in range(4):
        ex.submit(_sleep, 60)
    manager = ex._executor_manager_thread
    time.sleep(0.3)
    ex._result_queue._writer._send(struct.pack("!i", 1000) + b"x" * 10)
    time.sleep(0.3)
    assert manager.is_alive()
    kill_workers(before, ex)
    assert not manager.is_alive()
    assert [p for p in mp.active_children() if p not in before] == []
