"""Paired self-play matches (heuri.match): pairing on real games, reproducibility, resume
after a real kill, the Wilson interval, GCG records that replay, bad input, Snakemake shards."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from heuri.match import (COLUMNS, TIMING_COLUMNS, MatchError, bag_seed, play_game, run_match, summarise,
                         wilson_interval)
from heuri.players import make_player

REPO = Path(__file__).resolve().parents[1]


def _strip(rows):
    return [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows]


# -- Wilson interval ----------------------------------------------------------------------------
def test_wilson_interval_hand_computed():
    # 60 wins of 100, z = 1.959964 (z² = 3.841459):
    # centre = (0.6 + 3.841459/200) / (1 + 3.841459/100) = 0.61920729 / 1.03841459 = 0.596300
    # half   = 1.959964 / 1.03841459 · sqrt(0.24/100 + 3.841459/40000) = 1.887457 · 0.0499603 = 0.094298
    lo, hi = wilson_interval(60, 100)
    assert lo == pytest.approx(0.596300 - 0.094298, abs=2e-6)
    assert hi == pytest.approx(0.596300 + 0.094298, abs=2e-6)
    # 10 of 10: centre = (1 + z²/20)/(1 + z²/10) = 1.192073/1.384146 = 0.861234,
    # half = 1.959964/1.384146 · sqrt(z²/400) = 1.416010 · 0.0979982 = 0.138767 → high 1.0
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.722467, abs=2e-6) and hi == pytest.approx(1.0, abs=1e-9)
    # 0 of 5 mirrors 5 of 5; a draw counts one half
    assert wilson_interval(0, 5) == pytest.approx(tuple(1 - x for x in reversed(wilson_interval(5, 5))))
    assert wilson_interval(2.5, 5)[0] == pytest.approx(1 - wilson_interval(2.5, 5)[1])
    with pytest.raises(MatchError):
        wilson_interval(0, 0)


def test_the_player_to_move_next_is_told_of_each_move(pack_en):
    """play_game tells the next player (one with ``observe``) of every move but the last:
    the position before it and the move, in the game's order."""
    from heuri.players import GreedyPlayer

    class Watching(GreedyPlayer):
        def __init__(self, pack):
            super().__init__(pack)
            self.seen = []

        def observe(self, position, move):
            self.seen.append((position, move))

    w = Watching(pack_en)
    _, _, game = play_game(pack_en, {"greedy": w}, "greedy", "greedy", seed=4, pair=0, seat=0)
    assert len(w.seen) == len(game.history) - 1 > 20
    for (pos, move), (hpos, hmove, _) in zip(w.seen, game.history):
        assert pos is hpos and move == hmove


# -- pairing -------------------------------------------------------------------------------------
def test_pairs_share_tiles_with_seats_swapped(pack_en):
    """Both games of a pair start from the same bag: the first mover holds the same rack,
    and it is p1 in seat 0 and p2 in seat 1."""
    players = {n: make_player(n, pack_en) for n in ("greedy", "heuri2-noend")}
    ra, _, ga = play_game(pack_en, players, "heuri2-noend", "greedy", seed=11, pair=3, seat=0)
    rb, _, gb = play_game(pack_en, players, "heuri2-noend", "greedy", seed=11, pair=3, seat=1)
    assert ra["bag_seed"] == rb["bag_seed"] == bag_seed(11, 3)
    assert (ra["first"], rb["first"]) == ("heuri2-noend", "greedy")
    p0a, p0b = ga.history[0][0], gb.history[0][0]
    for seat in (0, 1):  # same racks dealt to the same seats
        assert (p0a.racks[seat] == p0b.racks[seat]).all()
    assert (p0a.bag == p0b.bag).all()
    # the first mover's rack in both GCG records is the same text
    assert ga.history[0][0].rack_text() == gb.history[0][0].rack_text()
    # p1's score is the seat-0 score in game a and the seat-1 score in game b
    assert ra["score_p1"] == ga.position.scores[0] and rb["score_p1"] == gb.position.scores[1]
    assert ra["spread"] == ra["score_p1"] - ra["score_p2"]


def test_identical_engines_mirror_each_other(pack_en):
    """greedy vs greedy: with the same tiles, swapping the seats replays the same game, so
    p1's score in seat 0 is p2's score in seat 1 (a check of the pairing on real games)."""
    players = {"greedy": make_player("greedy", pack_en)}
    for pair in range(3):
        a, _, _ = play_game(pack_en, players, "greedy", "greedy", 5, pair, 0)
        b, _, _ = play_game(pack_en, players, "greedy", "greedy", 5, pair, 1)
        assert (a["score_p1"], a["score_p2"]) == (b["score_p2"], b["score_p1"])
        assert a["turns"] == b["turns"] and a["bingo_lengths_p1"] == b["bingo_lengths_p2"]


# -- a tiny deterministic match ----------------------------------------------------------------------
def test_tiny_match_reproducible_and_replays(tmp_path, pack_en):
    a = run_match("en", "greedy", "greedy", 4, seed=7, jobs=2, out=tmp_path / "a", progress=False)
    b = run_match("en", "greedy", "greedy", 4, seed=7, jobs=1, out=tmp_path / "b", progress=False)
    assert a.played == 4 and b.played == 4
    assert _strip(a.rows) == _strip(b.rows)  # parallel and serial, two runs: the same games
    # recorded results of this seed (greedy vs greedy, en, seed 7): regression values
    got = [(r["pair"], r["seat"], r["score_p1"], r["score_p2"]) for r in a.rows]
    assert [g[:2] for g in got] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert got[0][2:] == got[1][2:][::-1] and got[2][2:] == got[3][2:][::-1]
    t = pq.read_table(tmp_path / "a" / "games.parquet")
    assert t.column_names == COLUMNS and t.num_rows == 4
    assert _strip(t.to_pylist()) == _strip(a.rows)
    s = a.summary
    assert s["wins"] + s["draws"] + s["losses"] == 4 and s["pairs"] == 2
    assert s["mean_spread"] == 0  # mirrored pairs
    # every game record replays with `heuri replay` (scores and totals checked)
    from heuri.cli import main

    gcgs = sorted((tmp_path / "a" / "games").glob("*.gcg"))
    assert len(gcgs) == 4
    for f in gcgs:
        assert main(["replay", str(f)]) == 0
    # the record's final totals are the table's scores
    last = [ln for ln in gcgs[0].read_text().splitlines() if ln.startswith(">")]
    totals = {}
    for ln in last:
        nick, rest = ln[1:].split(":", 1)
        totals[nick] = int(rest.split()[-1])
    r0 = a.rows[0]
    assert totals == {"greedy_1": r0["score_p1"], "greedy_2": r0["score_p2"]}


def test_same_seed_same_games_different_seed_different_bags():
    assert bag_seed(1, 0) == bag_seed(1, 0)
    assert len({bag_seed(s, p) for s in range(3) for p in range(50)}) == 150


# -- resume after a real kill ---------------------------------------------------------------------------
def test_resume_after_kill(tmp_path, pack_en):
    out = tmp_path / "m"
    cmd = [sys.executable, "-m", "heuri", "match", "--lang", "en", "--p1", "heuri2-noend", "--p2", "greedy",
           "--games", "6", "--seed", "3", "--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.time()
    try:
        while time.time() - t0 < 120:
            n = len(list((out / "rows").glob("*.json"))) if (out / "rows").is_dir() else 0
            if n >= 2 or proc.poll() is not None:
                break
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    killed_rows = sorted((out / "rows").glob("*.json"))
    before = {f.name: f.read_bytes() for f in killed_rows}
    assert 2 <= len(before) < 6, "the match should be killed part-way"
    for b in before.values():
        json.loads(b)  # every row on disk is whole (atomic writes)
    res = run_match("en", "heuri2-noend", "greedy", 6, seed=3, out=out, progress=False)
    assert res.played == 6 - len(before)
    for name, b in before.items():  # nothing already played was replayed or overwritten
        assert (out / "rows" / name).read_bytes() == b
    ref = run_match("en", "heuri2-noend", "greedy", 6, seed=3, out=tmp_path / "ref", progress=False)
    assert _strip(res.rows) == _strip(ref.rows)
    assert _strip(pq.read_table(out / "games.parquet").to_pylist()) == _strip(ref.rows)
    # a third run plays nothing
    assert run_match("en", "heuri2-noend", "greedy", 6, seed=3, out=out, progress=False).played == 0


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, needle", [
    (["--p1", "heuri9"], "unknown engine 'heuri9'; choose one of greedy"),
    (["--games", "0"], "--games 0: a match needs at least 1 game"),
    (["--jobs", "0"], "--jobs 0"),
])
def test_bad_arguments_one_line(argv, needle, tmp_path, capsys):
    from heuri.cli import main

    base = ["match", "--lang", "en", "--games", "2", "--out", str(tmp_path / "o"), "--quiet"]
    assert main(base + argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("heuri: error: ") and needle in err and "\n" not in err


def test_language_without_pack(tmp_path, capsys, monkeypatch):
    from heuri.cli import main

    monkeypatch.setenv("HEURI_BUILD", str(tmp_path / "empty"))
    assert main(["match", "--lang", "fr", "--games", "2", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert "no built fr pack" in err and "snakemake --cores 2 fr" in err and "\n" not in err


def test_unwritable_or_foreign_out(tmp_path, capsys):
    from heuri.cli import main

    f = tmp_path / "file"
    f.write_text("x")
    assert main(["match", "--lang", "en", "--games", "2", "--out", str(f / "sub"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "cannot write match output to --out" in err and "choose a writable folder" in err
    # a folder holding another match is refused, not overwritten
    out = tmp_path / "m"
    run_match("en", "greedy", "greedy", 2, seed=1, out=out, progress=False)
    with pytest.raises(MatchError, match="already holds another match"):
        run_match("en", "greedy", "greedy", 2, seed=2, out=out, progress=False)
    with pytest.raises(MatchError, match="even number"):
        run_match("en", "greedy", "greedy", 2, first_game=1, out=out, progress=False)


def test_summary_bingo_shares():
    row = {c: 0 for c in COLUMNS}
    row.update(lang="es", p1="a", p2="b", seed=1, winner="p1", bingo_lengths_p1=[7, 8, 8, 9],
               bingo_lengths_p2=[7], moves_p1=10, moves_p2=10, ms_per_move_p1=2.0, ms_per_move_p2=4.0)
    r2 = dict(row, pair=0, seat=1, winner="draw", bingo_lengths_p1=[], bingo_lengths_p2=[])
    s = summarise([row, r2])
    assert s["stats_p1"]["bingo_share"] == (0.25, 0.5, 0.25)
    assert s["stats_p1"]["bingos_per_game"] == 2.0 and s["stats_p2"]["bingos_per_game"] == 0.5
    assert (s["wins"], s["draws"], s["losses"], s["win_rate"], s["pairs"]) == (1, 1, 0, 0.75, 1)


# -- Snakemake -------------------------------------------------------------------------------------
def test_snakemake_shards_dry_run():
    r = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "2",
                        "matches/es/heuri3-noend-vs-greedy.parquet", "--quiet", "rules",
                        "--config", "match_games=10", "match_shard=3"],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    text = r.stdout + r.stderr
    # 10 games in shards of 4 (3 rounded up to an even number): 3 shard jobs and the merge
    assert "match_shard" in text and "3" in text.split("match_shard", 1)[1].split("\n", 1)[0]


def test_compare_pairs_games_on_the_same_bags():
    from heuri.match import compare

    def row(pair, seat, res, spread):
        return {"pair": pair, "seat": seat, "result_p1": res, "spread": spread}

    a = [row(0, 0, 1.0, 30), row(0, 1, 1.0, 12), row(1, 0, 0.5, 0), row(1, 1, 0.0, -5)]
    b = [row(0, 0, 1.0, 20), row(0, 1, 0.0, -8), row(1, 0, 0.0, -3), row(9, 9, 1.0, 1)]
    r = compare(a, b)
    # matched games: (0,0), (0,1), (1,0); differences 0, 1, 0.5 → mean 0.5, sd 0.5
    assert r["games"] == 3 and r["changed"] == 2 and r["diff"] == pytest.approx(0.5)
    half = 1.959964 * 0.5 / 3 ** 0.5
    assert r["diff_ci"] == pytest.approx((0.5 - half, 0.5 + half), abs=1e-5)
    assert r["spread_diff"] == pytest.approx((10 + 20 + 3) / 3)
    with pytest.raises(MatchError):
        compare(a, [row(5, 0, 1.0, 1)])


def _die(*args):
    os._exit(3)  # a worker killed in the middle of a game


def test_dead_worker_is_a_one_line_error(tmp_path, monkeypatch):
    import heuri.match as hm

    monkeypatch.setattr(hm, "_worker_game", _die)
    with pytest.raises(MatchError, match="a worker process died.*run the same command again to resume"):
        run_match("en", "greedy", "greedy", 4, jobs=2, out=tmp_path / "m", progress=False)
