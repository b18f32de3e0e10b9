"""Inference (heuri.search.inference): the posterior over what the opponent kept.

The prior is checked against a brute force over labelled tiles (every 7-tile draw of a
small pool), the posterior against the same brute force times the soft-max likelihood
computed move by move, and the whole on a real record: after a play that keeps two tiles,
the blank is much less likely to be among them (a player holding it would have bingoed).
``heuri infer`` and SIU ``go infer`` are run end to end."""
from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from heuri import load_pack
from heuri.core.move import Exchange, Move, Pass
from heuri.eval.evaluate import make_evaluator
from heuri.search.inference import InferenceError, infer_leave, placement_keys

DATA = Path(__file__).parent / "data" / "gcg"


@pytest.fixture(scope="module")
def en():
    return load_pack("en")


def _counts(spec, text):
    c = np.zeros(spec.n_kinds, np.int64)
    for t in spec.parse_tiles(text):
        c[t] += 1
    return c


def _empty(spec):
    n = spec.board_size if hasattr(spec, "board_size") else 15
    return np.full((n, n), -1, np.int8), np.zeros((n, n), bool)


def test_prior_and_posterior_match_a_brute_force_over_labelled_tiles(en):
    spec = en.spec
    letters, blanks = _empty(spec)
    # 10 unseen tiles, 3 in the bag: the opponent held 7 of them and played CAT at 8G
    pool = "ACTEEISRRZ"
    U = _counts(spec, pool)
    move = Move.from_gcg("8G CAT", None, spec)
    ev = make_evaluator(en, "greedy")
    tau = 3.0
    inf = infer_leave(ev, letters, blanks, U, 3, move, temperature=tau)
    assert inf.exact and inf.leave_size == 4 and inf.samples == 0

    # brute force: every 7-tile draw of the 10 labelled tiles is equally likely
    played = Counter("CAT")
    prior: Counter = Counter()
    post: Counter = Counter()
    lik_cache = {}
    for draw in itertools.combinations(range(len(pool)), 7):
        rack = Counter(pool[i] for i in draw)
        if any(rack[t] < n for t, n in played.items()):
            continue
        leave = "".join(sorted((rack - played).elements()))
        prior[leave] += 1
        if leave not in lik_cache:
            r = _counts(spec, "".join(rack.elements()))
            rk = ev.rank_arrays(letters, blanks, r, U - r, 3)
            keys = placement_keys(rk.moves, letters.shape[0], spec.n_letters)
            cat = list(spec.parse_tiles("CAT"))
            target = [k for k, m in zip(keys, rk.moves) if m["kind"] == 0 and m["row"] == 7 and m["col"] == 6
                      and m["across"] and m["length"] == 3 and list(m["tiles"][:3]) == cat and not m["blank"].any()]
            assert len(target) == 1
            w = np.exp((rk.v - rk.v.max()) / tau)
            lik_cache[leave] = float(w[keys == target[0]].sum() / w.sum())
        post[leave] += lik_cache[leave]
    zp, zq = sum(prior.values()), sum(post.values())
    assert len(inf.leaves) == len(prior)
    for row, p, q in zip(inf.leaves, inf.posterior, inf.prior):
        leave = "".join(sorted(spec.format_tiles(np.repeat(np.arange(len(row)), row), blank="?")))
        assert q == pytest.approx(prior[leave] / zp, abs=1e-12)
        assert p == pytest.approx(post[leave] / zq, abs=1e-9)
    # the leave with the Z is the one CAT was least likely to be played from (greedy plays the Z)
    worst = min(post, key=lambda k: post[k] / prior[k])
    assert "Z" in worst


def test_a_real_record_the_blank_kept_becomes_unlikely():
    """es record 001, event 9: 1G [CH]ICAS keeping two tiles (the record says BG)."""
    es = load_pack("es")
    spec = es.spec
    from heuri.formats.gcg import Replayer, read_gcg_file

    game = read_gcg_file(DATA / "es" / "001.gcg")
    ev9 = game.events[8]
    assert ev9.move == "1G [CH]ICAS"
    board = Replayer(game, spec).run().board_at(8)
    ours = _counts(spec, game.events[9].rack)
    on_board = np.zeros(spec.n_kinds, np.int64)
    filled = board.letters >= 0
    np.add.at(on_board, np.where(board.blanks[filled], spec.n_letters, board.letters[filled]), 1)
    U = spec.distribution() - on_board - ours
    move = Move.from_gcg(ev9.move, board, spec)
    inf = infer_leave(make_evaluator(es, "heuri2"), board.letters, board.blanks, U, int(U.sum()) - 7, move,
                      observer_rack=ours)
    assert inf.exact and inf.leave_size == 2
    post, prior = inf.tile_expectation()
    blank = spec.n_letters
    assert prior[blank] == pytest.approx(2 * U[blank] / (U.sum() - 6), rel=0.2)
    assert post[blank] < prior[blank] / 3
    assert inf.posterior.sum() == pytest.approx(1.0) and inf.prior.sum() == pytest.approx(1.0)
    p, q = inf.probability_of(_counts(spec, "BG"))
    assert p > q  # the record's leave gained


def test_exchange_and_pass_and_bad_input(en):
    spec = en.spec
    letters, blanks = _empty(spec)
    U = _counts(spec, "QQUVVWXYZAEIO?")  # a made-up pool; the rack was 7 of these 14
    ev = make_evaluator(en, "greedy")
    inf = infer_leave(ev, letters, blanks, U, 7, Exchange(None, 5), temperature=2.0, samples=30)
    assert inf.leave_size == 2 and inf.posterior.sum() == pytest.approx(1.0) and not inf.exact
    assert inf.samples == 30 and inf.leaves.shape[1] == spec.n_kinds and (inf.leaves.sum(axis=1) == 2).all()
    inf = infer_leave(ev, letters, blanks, U, 7, Pass(), temperature=2.0, samples=20)
    assert inf.leave_size == 7 and (inf.leaves.sum(axis=1) == 7).all()
    with pytest.raises(InferenceError, match="an exchange needs at least 7 tiles in the bag"):
        infer_leave(ev, letters, blanks, U[:], 6, Exchange(None, 5), temperature=2.0, rack_size=7)
    with pytest.raises(InferenceError, match="not among the unseen"):
        infer_leave(ev, letters, blanks, U, 7, Move.from_gcg("8G CAT", None, spec))
    with pytest.raises(InferenceError, match="temperature"):
        infer_leave(ev, letters, blanks, U, 7, Pass(), temperature=0)
    with pytest.raises(InferenceError, match="rack size"):
        infer_leave(ev, letters, blanks, U, 14, Pass())


def _heuri(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "heuri", *args], capture_output=True, text=True, input=stdin,
                          timeout=300)


def test_heuri_infer_on_a_record_and_a_cgp():
    r = _heuri("infer", str(DATA / "es" / "001.gcg"), "--turn", "9", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["move"] == "1G [CH]ICAS" and out["exact"] and out["leave_size"] == 2
    assert out["recorded_leave"]["leave"] == "BG"
    assert out["recorded_leave"]["probability"] > out["recorded_leave"]["prior"]
    assert out["tiles"]["?"]["expected"] < out["tiles"]["?"]["prior"] / 3
    empty = "/".join(["15"] * 15)
    r = _heuri("infer", "--lang", "en", "--cgp", f"{empty} /AEINRST 0/0 0", "--move", "8F ZAX", "--samples", "20")
    assert r.returncode == 0, r.stderr
    assert "what they kept after 8F ZAX: 4 tiles (20 racks drawn" in r.stdout
    r = _heuri("infer", "--lang", "en", "--cgp", f"{empty} /AEINRST 0/0 0", "--move", "8F ZZZ")
    assert r.returncode != 0 and "not among the unseen tiles: ZZ" in r.stderr and "Traceback" not in r.stderr
    r = _heuri("infer", str(DATA / "es" / "001.gcg"))
    assert r.returncode != 0 and "give --turn N" in r.stderr
    # the move is written as players read it: the CH tile as its letters (GCG: 1G [CH]ICAS)
    r = _heuri("infer", str(DATA / "es" / "001.gcg"), "--turn", "9")
    assert r.returncode == 0, r.stderr
    assert "what they kept after 1G CHICAS: 2 tiles" in r.stdout and "[CH]" not in r.stdout.split(":")[0]


def test_siu_go_infer():
    empty = "/".join(["15"] * 15)
    script = "\n".join(["siu", "isready",
                        "position cgp " + empty + " /AEINRST 0/0 0",
                        "go infer",  # no move to infer from
                        "position cgp " + empty + " /AEINRST 0/0 0 moves 8F.ZAX",
                        "go infer movetime 2000",
                        "quit"]) + "\n"
    r = _heuri("siu", "--lang", "en", stdin=script)
    lines = r.stdout.splitlines()
    assert any(s.startswith("capability ") and " infer " in s for s in lines)
    # a refused go (no move to infer from) answers an error and no bestmove, as a bad position does
    assert sum(s.startswith("bestmove") for s in lines) == 1
    assert any("error bad-position go infer needs the opponent's move" in s for s in lines)
    leaves = [s.split() for s in lines if s.startswith("info infer leave ")]
    assert 1 <= len(leaves) <= 10
    probs = [float(s[5]) for s in leaves]
    assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1.0 + 1e-6
    assert all(len(s[3]) == 4 for s in leaves)  # ZAX kept four tiles
    assert lines[-1] == "bestmove none"  # the draft (section 6): go infer reports, it does not move
