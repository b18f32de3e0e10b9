"""heuri.evaluate: the four evaluators' values against their definitions, Heuri_3's
re-valuation against δ recomputed on the board after the move, closed and open boards,
and the `heuri best` command."""
from __future__ import annotations

import json
from math import comb

import numpy as np
import pytest
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from heuri.bingo import delta, random_board
from heuri.peg import _record_key
from heuri.evaluate import (EvaluatorError, _new_squares, defensive_penalty, make_evaluator)
from heuri.probability import (augmented_bag, bingo_value, board_counts, leave_index, leave_table,
                               p_key)
from heuri.cli import main
from heuri.gcg import read_gcg, replay

N = 15


def vec(spec, text):
    return np.bincount(spec.parse_tiles(text), minlength=spec.n_kinds).astype(np.int64)


def midgame(pack, seed, n_words=10):
    """A random legal board and a rack drawn from what is left."""
    spec = pack.spec
    rng = np.random.default_rng(seed)
    b, bl = random_board(pack, n_words, rng)
    left = spec.distribution() - board_counts(spec, b, bl)
    tiles = np.repeat(np.arange(spec.n_kinds), left)
    rng.shuffle(tiles)
    rack = np.bincount(tiles[:7], minlength=spec.n_kinds)
    return b, bl, rack


def test_greedy_is_top_score(pack_en):
    b, bl, rack = midgame(pack_en, 1)
    r = make_evaluator(pack_en, "greedy").rank_arrays(b, bl, rack)
    assert r.j[0] == r.moves["score"].max()
    assert (r.v == r.j).all() and (np.diff(r.v) <= 0).all()
    assert (r.e == 0).all() and not r.fish.any()


def test_heuri2_values_are_the_definition(pack_es):
    """v = j + e with e = Σ_septets p(s | L)(50 + 2.5σ), checked key by key for a few
    candidates (p_key over the whole key set)."""
    spec = pack_es.spec
    b, bl, rack = midgame(pack_es, 2)
    r = make_evaluator(pack_es, "heuri2").rank_arrays(b, bl, rack)
    U = augmented_bag(spec, b, bl, rack)
    counts = np.asarray(pack_es.keys.counts)
    sept = np.asarray(pack_es.keys.is_septet)
    val = bingo_value(pack_es.keys.sigma)
    np.testing.assert_allclose(r.v, r.j + r.e)
    for i in (0, 1, 5, len(r) // 2):
        p = p_key(U, r.leaves[i], counts)
        assert r.e[i] == pytest.approx((p * val * sept).sum(), rel=1e-9, abs=1e-12)
        assert r.p[i] == pytest.approx((p * sept).sum(), rel=1e-9, abs=1e-12)
    assert (np.diff(r.v) <= 1e-9).all()
    assert r.fish.tolist() == (r.e > r.j).tolist()


def test_heuri1_b_and_penalty(pack_es):
    spec = pack_es.spec
    b, bl, rack = midgame(pack_es, 3)
    ev = make_evaluator(pack_es, "heuri1", penalty=False)
    r = ev.rank_arrays(b, bl, rack)
    vals = spec.value_vector()
    for i in range(5):
        lv = r.leaves[i].astype(np.int64)
        t = 7 - lv.sum()
        bb = 50 + 2.5 * (lv @ vals + 1.92 * t)
        assert r.e[i] == pytest.approx(r.p[i] * bb)
        assert r.v[i] == pytest.approx(r.j[i] + r.e[i])
    # the defensive penalty: a tile between the two triple-word squares of row 1 costs 20
    board = np.full((N, N), -1, np.int8)
    board[1, 3] = spec.tile_id("A")  # something to hook on
    rec = np.zeros(3, dtype=r.moves.dtype)
    rec["kind"] = [0, 0, 1]
    rec["row"] = [0, 4, 0]
    rec["col"] = [3, 5, 0]
    rec["across"] = [False, False, False]
    rec["length"] = [1, 1, 1]
    rec["tiles"][:, 0] = [spec.tile_id("L"), spec.tile_id("L"), spec.tile_id("L")]
    rec["new"][:, 0] = True
    d = defensive_penalty(spec, board, rec)
    assert d[0] == 20 and d[2] == 0  # row 1 (index 0), between A1 and H1; the exchange is free
    assert d[1] == 5  # F5: between the double-word squares E5 and K5


def test_heuri3_revalued_equals_full_recomputation(pack_es):
    """The best N placements' e and p equal leave_table with δ recomputed on the board
    after each move; exact mode does it for every placement."""
    spec = pack_es.spec
    b, bl, rack = midgame(pack_es, 4)
    U = augmented_bag(spec, b, bl, rack)
    val = bingo_value(pack_es.keys.sigma)
    for ev, n in ((make_evaluator(pack_es, "heuri3", prune=False), 20),
                  (make_evaluator(pack_es, "heuri3", exact=True, prune=False), None)):
        r = ev.rank_arrays(b, bl, rack)
        rev = np.flatnonzero(r.revalued & (r.moves["kind"] == 0))
        if n is not None:
            assert len(rev) == min(20, (r.moves["kind"] == 0).sum())
            assert rev.max() < len(rev) + (r.moves["kind"] != 0).sum()  # they come first
        else:
            assert r.revalued.all()
        sample = rev[:6] if n is not None else np.random.default_rng(0).choice(rev, 6, replace=False)
        for i in sample:
            rows, cols, tiles = _new_squares(r.moves[i])
            after = b.copy()
            after[rows, cols] = tiles
            d = delta(pack_es, after)
            _, e, p = leave_table(pack_es, rack, U, d, val)
            li = leave_index(rack, r.leaves[i])
            assert r.e[i] == pytest.approx(e[li], rel=1e-9, abs=1e-9)
            assert r.p[i] == pytest.approx(p[li], rel=1e-9, abs=1e-12)
            assert r.v[i] == pytest.approx(r.j[i] + r.e[i])


@pytest.mark.parametrize("lang,seed,exact", [("es", 11, True), ("en", 12, True), ("es", 13, False)])
def test_heuri3_pruned_same_choice(lang, seed, exact, request):
    """Pruning by the bound j + e(L | δ ≡ 1) chooses the same move, with the same v, as
    re-valuing every placement of the set (all, or the best 20), and re-values fewer."""
    pack = request.getfixturevalue(f"pack_{lang}")
    full = make_evaluator(pack, "heuri3", exact=exact, prune=False)
    pruned = make_evaluator(pack, "heuri3", exact=exact)
    fewer = 0
    for k in range(4):
        b, bl, rack = midgame(pack, seed * 10 + k, 6 + 3 * k)
        rf = full.rank_arrays(b, bl, rack)
        rp = pruned.rank_arrays(b, bl, rack)
        for f in ("kind", "row", "col", "across", "length", "tiles", "new", "blank"):
            assert np.array_equal(rf.moves[0][f], rp.moves[0][f])
        assert rp.v[0] == pytest.approx(rf.v[0], abs=1e-9)
        fewer += pruned.last_revalued < full.last_revalued
    assert fewer >= 2


def test_heuri3_exchanges_and_pass(pack_en):
    """Exchanges are candidates (j = 0) only when the bag allows; the pass always."""
    b, bl, rack = midgame(pack_en, 5)
    ev = make_evaluator(pack_en, "heuri3")
    U = augmented_bag(pack_en.spec, b, bl, rack)
    r = ev.rank_arrays(b, bl, rack, U, bag_size=20)
    kinds = r.moves["kind"]
    assert (kinds == 1).sum() == len(np.unique(r.leaves[kinds == 1], axis=0)) > 60
    assert (kinds == 2).sum() == 1
    assert (r.j[kinds != 0] == 0).all()
    r2 = ev.rank_arrays(b, bl, rack, U, bag_size=6)  # English: an exchange needs 7 in the bag
    assert (r2.moves["kind"] == 1).sum() == 0 and (r2.moves["kind"] == 2).sum() == 1
    # fewer tiles in the bag than a leave needs: e = 0 for it
    r3 = ev.rank_arrays(b, bl, rack, U, bag_size=2)
    t = 7 - r3.leaves.sum(axis=1)
    assert (r3.e[t > 2] == 0).all()


def closed_board(spec):
    """Every square filled except isolated holes: no lane of any length."""
    b = np.full((N, N), spec.tile_id("E"), np.int8)
    for r in range(N):
        for c in range(N):
            if (r + c) % 2:
                b[r, c] = -1
    return b


@pytest.mark.parametrize("lang", ["es", "en"])
def test_closed_board_zero_e(lang, request):
    pack = request.getfixturevalue(f"pack_{lang}")
    spec = pack.spec
    b = closed_board(spec)
    d = delta(pack, b)
    assert not d.any()
    rack = vec(spec, "AEIRST?") if lang == "en" else vec(spec, "AEIRSO?")
    U = spec.distribution() - rack
    U = np.maximum(U - 0, 0)
    _, e, p = leave_table(pack, rack, U, d, bingo_value(pack.keys.sigma), bag_size=50)
    assert (e == 0).all() and (p == 0).all()
    # Heuri_2 ignores the board: the same leaves are worth a lot there
    _, e2, _ = leave_table(pack, rack, U, np.asarray(pack.keys.is_septet), bingo_value(pack.keys.sigma), bag_size=50)
    assert e2.max() > 30


@pytest.mark.parametrize("lang,word,weak", [("es", "CASA", "QX"), ("en", "HOUSE", "QV")])
def test_open_board_orders_of_magnitude(lang, word, weak, request):
    """One word on the board: e(AEIRS) is tens of points (es 68.3, en 47.5), a weak leave
    a point or less (QX 0.78, QV 0.70) — the paper's orders of magnitude."""
    pack = request.getfixturevalue(f"pack_{lang}")
    spec = pack.spec
    b = np.full((N, N), -1, np.int8)
    w = spec.tokenise(word)
    b[7, 6:6 + len(w)] = w
    rack = vec(spec, "AEIRS" + weak)
    U = augmented_bag(spec, b, np.zeros((N, N), bool), rack)
    _, e, p = leave_table(pack, rack, U, delta(pack, b), bingo_value(pack.keys.sigma))
    good = e[leave_index(rack, vec(spec, "AEIRS"))]
    bad = e[leave_index(rack, vec(spec, weak))]
    assert 30 < good < 90 and 0 < bad < 3
    assert good == pytest.approx({"es": 68.32, "en": 47.47}[lang], abs=0.01)


def test_make_evaluator_errors(pack_en):
    with pytest.raises(EvaluatorError, match="unknown evaluator"):
        make_evaluator(pack_en, "heuri9")
    with pytest.raises(EvaluatorError, match="heuri2"):
        make_evaluator(pack_en, "heuri2", top=3)


def test_choose_on_position(pack_en):
    from heuri.game import Position
    from heuri.move import Placement

    spec = pack_en.spec
    pos = Position.initial(spec, [vec(spec, "AEIRSTN"), vec(spec, "OOOOOOO")])
    for name in ("greedy", "heuri1", "heuri2", "heuri3"):
        m = make_evaluator(pack_en, name).choose(pos)
        assert isinstance(m, Placement) and sum(m.new) == 7  # a bingo on the empty board
    r = make_evaluator(pack_en, "heuri3").rank(pos)
    assert r.j[0] == max(r.j)


def test_cli_best_json(pack_es, capsys):
    from heuri.cli import main

    from shared_cases import CASES

    rc = main(["best", "--gcg", str(CASES / "es" / "001.gcg"), "--turn", "11", "--json", "--top", "3",
               "--engine", "heuri3"])
    assert rc == 0
    lines = capsys.readouterr().out.strip().splitlines()
    rows = [json.loads(x) for x in lines]
    assert len(rows) == 3
    assert all(list(r) == ["move", "word", "score", "bingo_expectation", "bingo_probability", "equity", "leave",
                                "fish"] for r in rows)
    # the record: p1 holds ?BGJÑOT and played N4 ÑaJO for 72
    assert rows[0]["move"] == "N4 ÑaJO" and rows[0]["score"] == 72 and rows[0]["leave"] == "BGT"
    assert rows[0]["word"] == "N4 ÑaJO"
    assert rows[0]["equity"] == pytest.approx(rows[0]["score"] + rows[0]["bingo_expectation"], abs=1e-3)


def test_cli_best_errors(pack_es, capsys):
    from heuri.cli import main

    from shared_cases import CASES

    assert main(["best", "--gcg", str(CASES / "es" / "001.gcg"), "--turn", "999"]) == 2
    assert "--turn" in capsys.readouterr().err


def test_heuri_plays_a_bingo_in_hand_rather_than_pass(capsys):
    """A self-play game (seed 1, game 3) where heuri3 passed three times holding ABIJLRU,
    which plays now as E8 JUBIL.RA for 84: the pass used to be valued as keeping a sure
    bingo (p = 1, e = 90). The pass draws nothing, so it gets e = p = 0."""
    import json
    from pathlib import Path

    from heuri import cli

    gcg = Path(__file__).parent / "data" / "es_pass_with_bingo.gcg"
    for engine in ("heuri2", "heuri3"):
        assert cli.main(["best", "--gcg", str(gcg), "--turn", "15", "--engine", engine,
                         "--top", "5000", "--json"]) == 0
        rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        assert rows[0]["move"] == "E8 JUBIL.RA" and rows[0]["score"] == 84
        passes = [r for r in rows if r["move"] == "-"]
        assert len(passes) == 1 and passes[0]["bingo_expectation"] == 0 and passes[0]["bingo_probability"] == 0 \
            and passes[0]["equity"] == 0


def test_heuri3_top_zero_ranks_by_current_board(pack_es):
    """top = 0 re-values nothing: every move is ranked by its v with δ of the current board
    (the exchanges are not lifted above the placements)."""
    b, bl, rack = midgame(pack_es, 21)
    r = make_evaluator(pack_es, "heuri3", top=0).rank_arrays(b, bl, rack)
    assert not r.revalued.any()
    assert (np.diff(r.v) <= 1e-9).all()
    assert (r.moves["kind"] == 0).any() and (r.moves["kind"] == 1).any()
    assert r.moves["kind"][0] == 0  # here a placement beats every exchange


@njit(cache=True)
def _delta_sums_opp(before, after, holding, rows, val, U, leave, t, binom, ours):
    """The reference for _delta_sums_ov (the kernel heuri4 used before it): our sums as
    :func:`heuri.evaluate._delta_sums` and, in the same pass, the opponent's Σ (δ' − δ)·val·p(s | ∅)
    (unnormalised: the caller divides by C(N, R)) over every key whose δ changes, the
    opponent's rack being R tiles of U. ``ours``: False skips our sums (the bag cannot fill
    our rack). Returns (de, dp, de_opp)."""
    de = 0.0
    dp = 0.0
    do = 0.0
    R = rows.shape[1]
    one = np.uint64(1)
    for i in range(before.shape[0]):
        v = before[i] ^ after[i]
        hv = holding[i]
        while v:
            b = trailing_zeros(v)
            bit = one << np.uint64(b)
            v &= v - one
            k = i * 64 + b
            mine = ours and (hv & bit) != 0
            a = 1.0  # ours: Π C(U_x, s_x − L_x)
            o = 1.0  # the opponent's: Π C(U_x, s_x)
            drawn = 0
            j = 0
            while j < R:
                x = rows[k, j]
                c = 1
                while j + c < R and rows[k, j + c] == x:
                    c += 1
                j += c
                if c > U[x]:
                    o = 0.0
                else:
                    o *= binom[U[x], c]
                if mine:
                    d = c - leave[x]
                    if d < 0 or d > U[x]:
                        mine = False
                    elif d > 0:
                        a *= binom[U[x], d]
                        drawn += d
                if o == 0.0 and not mine:
                    break
            sgn = 1.0 if after[i] & bit else -1.0
            do += sgn * o * val[k]
            if mine and drawn == t:
                de += sgn * a * val[k]
                dp += sgn * a
    return de, dp, do



def test_delta_sums_ov_equals_delta_sums_opp(pack_en):
    """The opponent's sum with the per-key terms given once a decision (_delta_sums_ov) is
    the very float of the per-key walk (_delta_sums_opp), ours too, on real boards."""
    from heuri.bingo import BoardDelta, random_board
    from heuri.evaluate import _delta_sums_ov
    from heuri.probability import BINOM, augmented_bag, key_rows, key_runs, leave_tables

    spec = pack_en.spec
    rng = np.random.default_rng(3)
    rows = key_rows(pack_en)
    val = np.asarray(pack_en.keys.sigma) * 2.5 + 23.0
    checked = 0
    for n_words in (4, 9):
        letters, blanks = random_board(pack_en, n_words, rng)
        pool = augmented_bag(spec, letters, blanks, np.zeros(spec.n_kinds, np.int64))
        rack = np.bincount(rng.permutation(np.repeat(np.arange(spec.n_kinds), pool))[:7],
                           minlength=spec.n_kinds)
        U = pool - rack
        bd = BoardDelta(pack_en, letters)
        _, _, _, _, _, ov = leave_tables(pack_en, rack, U, bd.delta, val, 50, every=False, opponent=True)
        for r in range(15):
            c = int(np.flatnonzero(letters[r] < 0)[0]) if (letters[r] < 0).any() else None
            if c is None:
                continue
            after = bd.bits_after([r], [c], [spec.parse_tiles("E")[0]])
            tiles = np.repeat(np.arange(spec.n_kinds), rack)
            for n_keep, ours in ((5, True), (0, True), (2, False), (1, True)):
                leave = np.bincount(tiles[:n_keep], minlength=spec.n_kinds).astype(np.int64)
                hold = bd.ix.holding(leave)
                t = 7 - int(leave.sum())
                a = _delta_sums_opp(bd.delta_bits, after, hold, rows, val, U, leave, t, BINOM, ours)
                b = _delta_sums_ov(bd.delta_bits, after, hold, key_runs(pack_en), val, U, leave, t, BINOM[U], ours,
                                    ov)
                assert a == b
                checked += a[2] != 0
    assert checked > 5


def test_heuri4_future_values_a_kept_blank_on_the_turn_after(pack_en):
    """heuri4@future=w adds w·(1 − p(L))·(e(B) − e(∅)) to v, B the leave's blanks alone,
    with e and p of the current board (top=0: nothing re-valued); read here from the same
    ranking's exchanges, which keep every sub-multiset of the rack (e of the exchange that
    keeps just the blank, e of the exchange of all seven)."""
    spec = pack_en.spec
    b, bl, _ = midgame(pack_en, 12)  # one blank left off the board
    rack = vec(spec, "ACEINR?")
    opts = dict(top=0, leave=False, opponent=0.0)
    base = make_evaluator(pack_en, "heuri4", **opts).rank_arrays(b, bl, rack)
    fut = make_evaluator(pack_en, "heuri4", future=0.5, **opts).rank_arrays(b, bl, rack)

    def by_move(r):  # a record's fields (its padding bytes are not part of the move)
        return {_record_key(r.moves[i]): i for i in range(len(r))}

    ib, iff = by_move(base), by_move(fut)
    assert ib.keys() == iff.keys()
    exch = {tuple(base.leaves[i]): base.e[i] for i in range(len(base)) if base.moves["kind"][i] == 1}
    blank_only = np.zeros(spec.n_kinds, np.uint8)
    blank_only[spec.blank] = 1
    gain = exch[tuple(blank_only)] - exch[tuple(np.zeros(spec.n_kinds, np.uint8))]
    assert gain > 5  # a blank alone is worth a real share of a bingo
    kept = spent = 0
    for key, i in ib.items():
        k = iff[key]
        if base.moves["kind"][i] == 2:  # the pass: its ranking shows e = p = 0 (see rank_arrays)
            continue
        want = 0.5 * (1 - base.p[i]) * gain if base.leaves[i][spec.blank] else 0.0
        assert fut.v[k] - base.v[i] == pytest.approx(want, abs=1e-9)
        kept += bool(base.leaves[i][spec.blank])
        spent += not base.leaves[i][spec.blank]
    assert kept > 100 and spent > 100
    # near the end of the bag (fewer than two racks' worth) it is off
    late = make_evaluator(pack_en, "heuri4", future=0.5, **opts).rank_arrays(b, bl, rack, bag_size=13)
    late0 = make_evaluator(pack_en, "heuri4", **opts).rank_arrays(b, bl, rack, bag_size=13)
    assert np.array_equal(late.v, late0.v)
    with pytest.raises(EvaluatorError, match="future must be >= 0"):
        make_evaluator(pack_en, "heuri4", future=-1)


def test_heuri5_adds_the_scoring_power_of_the_next_rack(pack_en):
    """heuri4@power=w adds w·(1 − p(L))·(Σ_x L_x·w_x + t·w̄_U) to v (top=0: every move by
    δ of the current board, so p is the ranking's own p), w the pack's tile power, t the
    tiles drawn, w̄_U the mean power of the unseen tiles; heuri5 is heuri4 with power 1
    and the opponent's lanes at 3."""
    spec = pack_en.spec
    b, bl, _ = midgame(pack_en, 18)  # a board that leaves a Z and an X unseen
    rack = vec(spec, "AEIRSXZ")
    opts = dict(top=0, leave=False, opponent=0.0)
    base = make_evaluator(pack_en, "heuri4", **opts).rank_arrays(b, bl, rack)
    pw = make_evaluator(pack_en, "heuri4", power=0.5, **opts).rank_arrays(b, bl, rack)
    w = pack_en.tile_power
    U = augmented_bag(spec, b, bl, rack)
    wbar = float(U @ w) / U.sum()

    def by_move(r):
        return {_record_key(r.moves[i]): i for i in range(len(r))}

    ib, ip = by_move(base), by_move(pw)
    assert ib.keys() == ip.keys()
    for key, i in ib.items():
        if base.moves["kind"][i] == 2:  # the pass: its ranking shows p = 0 (see rank_arrays)
            continue
        L = base.leaves[i].astype(np.int64)
        want = 0.5 * (1 - base.p[i]) * (L @ w + (7 - L.sum()) * wbar)
        assert pw.v[ip[key]] - base.v[i] == pytest.approx(want, abs=1e-9)
    # keeping the Z and the X is worth points; keeping an I costs a little
    z, x, i_ = (spec.tiles.index(t) for t in "ZXI")
    assert w[z] > 10 and w[x] > 5 and -3 < w[i_] < 0
    # with the bag empty a kept tile is the endgame's business: no power term
    end = make_evaluator(pack_en, "heuri4", power=0.5, **opts).rank_arrays(b, bl, rack, bag_size=0)
    end0 = make_evaluator(pack_en, "heuri4", **opts).rank_arrays(b, bl, rack, bag_size=0)
    assert np.array_equal(end.v, end0.v)
    h5 = make_evaluator(pack_en, "heuri5")
    assert (h5.power, h5.opponent) == (1.0, 3.0)
    with pytest.raises(EvaluatorError, match="power must be >= 0"):
        make_evaluator(pack_en, "heuri4", power=-1)


def test_heuri5_needs_the_tile_power_artifact(pack_en, tmp_path):
    """A pack built without tile_power.parquet: heuri5's first decision says which artifact
    is missing and how to build it; heuri4 still plays."""
    from heuri.errors import PackError
    from heuri.pack import load_pack

    for f in pack_en.root.iterdir():  # the en pack, less its tile power
        if not f.name.startswith("tile_power"):
            (tmp_path / f.name).symlink_to(f.resolve())
    bare = load_pack(tmp_path)
    b, bl, rack = midgame(pack_en, 3)
    assert make_evaluator(bare, "heuri4").rank_arrays(b, bl, rack).moves[0] is not None
    with pytest.raises(PackError, match=r"tile_power.*snakemake --cores 2 en"):
        make_evaluator(bare, "heuri5").rank_arrays(b, bl, rack)


# -- rankings ordered by the value they show ------------------------------------------------


def test_heuri3_ranking_is_ordered_by_v_and_starts_with_the_choice(pack_es):
    from pathlib import Path

    data = Path(__file__).parent / "data" / "es_pass_with_bingo.gcg"
    game = read_gcg(data)
    r = replay(game, pack_es.spec)
    checked = 0
    for n, st in enumerate(r.steps[:-1]):
        ev = r.steps[n + 1].event
        if not ev.rack or ev.kind not in ("play", "exchange", "pass"):
            continue
        board = st.board
        rack = np.bincount(pack_es.spec.parse_tiles(ev.rack), minlength=pack_es.spec.n_kinds)
        for opts in ({}, {"prune": False}, {"top": 3}):
            ev3 = make_evaluator(pack_es, "heuri3", **opts)
            rk = ev3.rank_arrays(board.letters, board.blanks, rack)
            assert (np.diff(rk.v) <= 1e-9).all(), (n, opts)
            assert rk.revalued[0]
        checked += 1
    assert checked >= 10


def test_cli_best_rows_follow_v(capsys):
    assert main(["best", "--gcg", "tests/data/es_pass_with_bingo.gcg", "--turn", "13", "--top", "200", "--json",
                 "--engine", "heuri3"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == 200 and rows[0]["move"] == "10H TU[LL].D"
    v = [r["equity"] for r in rows]
    assert v == sorted(v, reverse=True)

