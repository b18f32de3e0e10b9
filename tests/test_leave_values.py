"""The table of every leave's bingo expectation (heuri.eval.leave_values) against the per-rack
computation (heuri.eval.probability.leave_table) and a brute force over the septets."""
from __future__ import annotations

from math import comb

import numpy as np
import pytest

from heuri import load_pack
from heuri.eval.evaluate import make_evaluator
from heuri.eval.leave_values import LeaveValues
from heuri.eval.probability import ProbabilityError, key_rows, leave_table


def _racks_and_unseen(spec, seed: int, n: int, unseen_tiles: int = 50):
    """``n`` racks of 7 and one set of unseen tiles, drawn from the bag without overlap."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(np.repeat(np.arange(spec.n_kinds), spec.distribution()))
    U = np.bincount(perm[:unseen_tiles], minlength=spec.n_kinds).astype(np.int64)
    rest = perm[unseen_tiles:]
    racks = []
    for _ in range(n):
        racks.append(np.bincount(rng.permutation(rest)[:7], minlength=spec.n_kinds).astype(np.int64))
    return U, racks


def _same_as_leave_table(pack, seed: int, n: int, bag: int = 40) -> int:
    """Checks every leave of ``n`` racks; returns how many leaves had e > 0."""
    ev = make_evaluator(pack, "heuri2")
    U, racks = _racks_and_unseen(pack.spec, seed, n)
    table = LeaveValues(pack, U, ev._septets, ev._val, bag)
    positive = 0
    for rack in racks:
        leaves, e, _ = leave_table(pack, rack, U, ev._septets, ev._val, bag)
        short = leaves.sum(axis=1) < pack.spec.rack_size
        got = table.of(leaves)
        np.testing.assert_allclose(got[short], e[short], rtol=1e-12, atol=1e-12)
        assert (got[~short] == 0).all()  # the rack kept whole: the pass, valued 0
        positive += int((e[short] > 0).sum())
    return positive


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_table_gives_leave_tables_e_for_every_leave(lang):
    """Every leave of 25 racks (English; Spanish with its digraph tiles and 29 kinds)."""
    assert _same_as_leave_table(load_pack(lang), seed=7, n=25) > 500


def test_the_table_holds_33_tile_kinds(pl_small_pack):
    """The Polish spec's 33 kinds (Ż id 31, the blank 32): the ranks and runs above 31."""
    assert _same_as_leave_table(pl_small_pack, seed=3, n=25) > 0


def test_one_leave_by_brute_force():
    """e of one leave summed septet by septet with Python's integers (the formula of the
    module doc), and the bag's limit: a leave that needs more tiles than the bag holds is 0."""
    pack = load_pack("en")
    spec = pack.spec
    ev = make_evaluator(pack, "heuri2")
    U, _ = _racks_and_unseen(spec, 11, 0)
    leave = np.bincount(spec.parse_tiles("AEST"), minlength=spec.n_kinds)
    rows = key_rows(pack)
    total = 0.0
    for s in np.flatnonzero(np.asarray(ev._septets)):
        d = np.bincount(rows[s], minlength=spec.n_kinds) - leave
        if (d < 0).any():
            continue
        w = 1
        for x in np.flatnonzero(d):
            w *= comb(int(U[x]), int(d[x]))
        total += w * float(ev._val[s])
    want = total / comb(int(U.sum()), 3)
    assert want > 10  # AEST draws into many bingos
    assert LeaveValues(pack, U, ev._septets, ev._val, 40).of(leave[None])[0] == pytest.approx(want, rel=1e-12)
    assert LeaveValues(pack, U, ev._septets, ev._val, 2).of(leave[None])[0] == 0.0  # 3 draws, 2 in the bag


def test_bad_unseen_tiles_are_refused():
    pack = load_pack("en")
    ev = make_evaluator(pack, "heuri2")
    with pytest.raises(ProbabilityError, match="unseen tiles"):
        LeaveValues(pack, np.zeros(5, np.int64), ev._septets, ev._val, 40)
    with pytest.raises(ProbabilityError, match="unseen tiles"):
        LeaveValues(pack, -np.ones(pack.spec.n_kinds, np.int64), ev._septets, ev._val, 40)
