"""heuri.leave_quality (the next rack's expected handicap cost) on tiny pools computed by
hand, and Heuri4 (heuri3 + that cost + the opponent's bingo term) against its definition."""
from __future__ import annotations

from math import comb

import numpy as np
import pytest

from heuri.bingo import BoardDelta
from heuri.evaluate import EvaluatorError, _new_squares, make_evaluator
from heuri.leave_quality import (DEFAULT_WEIGHTS, LeaveWeights, RackKinds, balance_cost,
                                 duplicate_cost, next_rack_cost, q_cost)
from heuri.players import ENGINES, make_player
from heuri.probability import augmented_bag, leave_table, sub_multisets

from test_evaluate import midgame


def vec(spec, text):
    return np.bincount(spec.parse_tiles(text), minlength=spec.n_kinds).astype(np.int64)


def one(spec, text):
    return vec(spec, text)[None, :]


def test_english_vowel_share_makes_three_of_seven_ideal(pack_en):
    k = RackKinds(pack_en.spec)
    assert k.share == pytest.approx(42 / 98)  # A9 E12 I9 O8 U4 of the 98 letter tiles
    assert 7 * k.share == pytest.approx(3.0)


def test_duplicate_cost_by_hand(pack_en):
    """U = {A, A, B, B}, leave B, one tile drawn: AB (no pair) or BB (one pair), ½ each."""
    spec = pack_en.spec
    k = RackKinds(spec)
    U = vec(spec, "AABB")
    c = duplicate_cost(k, one(spec, "B"), U, np.array([1]))
    assert c[0] == pytest.approx(0.5 * DEFAULT_WEIGHTS.duplicate)
    # leave BB, draw 2 of AABB: P(0 B) = 1/6 (a pair: 1), P(1 B) = 4/6 (three of a kind: 3),
    # P(2 B) = 1/6 (four: 6) for the B; the A pair comes with P(2 A) = 1/6
    c = duplicate_cost(k, one(spec, "BB"), U, np.array([2]))
    assert c[0] == pytest.approx(DEFAULT_WEIGHTS.duplicate * (1 / 6 * 1 + 4 / 6 * 3 + 1 / 6 * 6 + 1 / 6 * 1))
    # blanks are exempt: two blanks are no pair
    assert duplicate_cost(k, one(spec, "??"), U, np.array([0]))[0] == 0.0


def test_balance_cost_by_hand(pack_en):
    """Six vowels kept, one of {A, B} drawn: 7 or 6 vowels of 7 (ideal 3), costs
    5·(4 − 0.8) and 5·(3 − 0.8), ½ each. Six consonants and one of {?, K}: the blank
    counts as a vowel (1 of 7: 5·(2 − 0.8)) or no vowel (5·(3 − 0.8))."""
    spec = pack_en.spec
    k = RackKinds(spec)
    c = balance_cost(k, one(spec, "EIIOUU"), vec(spec, "AB"), np.array([1]))
    assert c[0] == pytest.approx(0.5 * 5 * 3.2 + 0.5 * 5 * 2.2)
    c = balance_cost(k, one(spec, "BCDFGH"), vec(spec, "?K"), np.array([1]))
    assert c[0] == pytest.approx(0.5 * 5 * 1.2 + 0.5 * 5 * 2.2)
    # three vowels of seven cost nothing, two or four 5·(1 − 0.8) = 1 point
    assert balance_cost(k, one(spec, "AEBCDF"), vec(spec, "IT"), np.array([1]))[0] == pytest.approx(0.5)
    assert balance_cost(k, one(spec, "AEIBCD"), vec(spec, "T"), np.array([1]))[0] == 0.0
    w = LeaveWeights(balance=1.0, slack=0.0)
    assert balance_cost(k, one(spec, "AEIOUBC"), vec(spec, "T"), np.array([0]), w)[0] == pytest.approx(2.0)


def test_q_cost_by_hand(pack_en):
    """U = {U, A, E, I, O, T, R, S} (N = 8): keeping Q and drawing 6, no U with probability
    C(7, 6)/C(8, 6) = 1/4. With U = {Q, U, A, E, I, O, T, R}, keeping A and drawing 6: a Q
    and no U with probability (C(7, 6) − C(6, 6))/C(8, 6) = 6/28."""
    spec = pack_en.spec
    k = RackKinds(spec)
    w = DEFAULT_WEIGHTS.q
    assert q_cost(k, one(spec, "Q"), vec(spec, "UAEIOTRS"), np.array([6]))[0] == pytest.approx(w / 4)
    assert q_cost(k, one(spec, "A"), vec(spec, "QUAEIOTR"), np.array([6]))[0] == pytest.approx(w * 6 / 28)
    assert q_cost(k, one(spec, "QU"), vec(spec, "AEIOTRS"), np.array([5]))[0] == 0.0
    assert q_cost(k, one(spec, "Q?"), vec(spec, "AEIOTRS"), np.array([5]))[0] == 0.0


def test_next_rack_cost_is_the_sum_and_the_bag_caps_the_draw(pack_en):
    """The draw is min(R − |L|, bag size, |U|): with one tile in the bag, the leave Q draws
    one tile of {U, A, E, I, O, T, R, S}: no U with probability 7/8; the 2-tile rack (ideal
    6/7 of a vowel) costs 5·(6/7 − 0.8) when the tile is a consonant (3/8)."""
    spec = pack_en.spec
    k = RackKinds(spec)
    U = vec(spec, "UAEIOTRS")
    leaves = np.stack([vec(spec, "Q"), vec(spec, "AEIN"), vec(spec, "")])
    total = next_rack_cost(k, leaves, U, bag_size=1)
    d = np.array([1, 1, 1])
    parts = balance_cost(k, leaves, U, d) + duplicate_cost(k, leaves, U, d) + q_cost(k, leaves, U, d)
    np.testing.assert_allclose(total, parts)
    assert q_cost(k, leaves[:1], U, d[:1])[0] == pytest.approx(DEFAULT_WEIGHTS.q * 7 / 8)
    assert total[0] == pytest.approx(DEFAULT_WEIGHTS.q * 7 / 8 + 3 / 8 * 5 * (6 / 7 - 0.8))


def test_bad_leaves_cost_more_than_good_ones_in_a_real_bag(pack_en):
    spec = pack_en.spec
    k = RackKinds(spec)
    U = spec.distribution() - vec(spec, "UUVIIXQ")
    cost = {t: next_rack_cost(k, one(spec, t), U, 86)[0] for t in ("UUV", "IIX", "Q", "", "ERS", "AEI")}
    assert cost["UUV"] > cost[""] and cost["IIX"] > cost[""] and cost["Q"] > cost[""]
    assert cost["ERS"] < cost[""]


def test_heuri4_without_its_terms_is_heuri3(pack_en):
    h3 = make_evaluator(pack_en, "heuri3")
    h4 = make_evaluator(pack_en, "heuri4", opponent=0.0, leave=False, offset=0.0)
    for seed in (4, 5):
        b, bl, rack = midgame(pack_en, seed)
        r3 = h3.rank_arrays(b, bl, rack)
        r4 = h4.rank_arrays(b, bl, rack)
        np.testing.assert_allclose(r4.v, r3.v)
        assert [m["move"] for m in r4.rows(pack_en.spec)] == [m["move"] for m in r3.rows(pack_en.spec)]


def test_heuri4_values_are_the_definition(pack_en):
    """v = j + e − c(L) − Δe_opp for the re-valued placements, with Δe_opp recomputed from
    δ of the board before and after the move and the opponent's rack drawn from U (the
    empty leave's e in leave_table, bag size |U|); v = j + e − c(L) for exchanges."""
    spec = pack_en.spec
    b, bl, rack = midgame(pack_en, 6)
    ev = make_evaluator(pack_en, "heuri4", prune=False, offset=0.0)
    r = ev.rank_arrays(b, bl, rack)
    U = augmented_bag(spec, b, bl, rack)
    bag = int(U.sum()) - 7
    kinds = RackKinds(spec)
    val = ev._val
    empty = np.zeros(spec.n_kinds, np.int64)
    nb = min(int(rack[spec.blank] + U[spec.blank]), 7)
    before = BoardDelta(pack_en, b, max_blanks=nb).delta
    e_opp0 = leave_table(pack_en, empty, U, before, val, int(U.sum()))[1][0]
    checked = 0
    for i in range(len(r)):
        c = next_rack_cost(kinds, r.leaves[i][None, :], U, bag)[0]
        if r.moves[i]["kind"] != 0:
            assert r.v[i] == pytest.approx(r.j[i] + r.e[i] - c)
            continue
        if not r.revalued[i] or checked >= 3:
            continue
        rows, cols, tiles = _new_squares(r.moves[i])
        after = b.copy()
        after[rows, cols] = tiles
        d_after = BoardDelta(pack_en, after, max_blanks=nb).delta
        e_opp1 = leave_table(pack_en, empty, U, d_after, val, int(U.sum()))[1][0]
        assert r.v[i] == pytest.approx(r.j[i] + r.e[i] - c - (e_opp1 - e_opp0), abs=1e-9)
        checked += 1
    assert checked == 3


def test_heuri4_pruning_chooses_as_the_full_scan(pack_en):
    full = make_evaluator(pack_en, "heuri4", prune=False)
    fast = make_evaluator(pack_en, "heuri4")
    for seed in (7, 8, 9):
        b, bl, rack = midgame(pack_en, seed)
        a = full.rank_arrays(b, bl, rack)
        f = fast.rank_arrays(b, bl, rack)
        assert f.rows(pack_en.spec, 1)[0]["move"] == a.rows(pack_en.spec, 1)[0]["move"]
        assert f.v[0] == pytest.approx(a.v[0])


def test_heuri4_names_and_options(pack_en):
    for name in ("heuri4", "heuri4-leave", "heuri4-opp", "heuri4-offset", "heuri4-lanes"):
        assert ENGINES[name] == (name, True)
        assert make_player(name, pack_en).name == name
    assert make_evaluator(pack_en, "heuri4-leave").opponent == 0.0
    assert make_evaluator(pack_en, "heuri4-opp").leave is False
    assert make_evaluator(pack_en, "heuri4-offset").bingo_offset == 27.0
    with pytest.raises(EvaluatorError, match=r"lanes must be in \[0, 1\]"):
        make_evaluator(pack_en, "heuri4", lanes=2)
    with pytest.raises(EvaluatorError, match="offset must be >= 0"):
        make_evaluator(pack_en, "heuri4", offset=-1)
    with pytest.raises(EvaluatorError, match="opponent must be >= 0"):
        make_evaluator(pack_en, "heuri4", opponent=-1)


def test_heuri4_offset_lowers_every_bingo_value_by_the_non_bingo_score(pack_en):
    """e with the offset = Σ δ(s)·p(s | L)·max(0, 50 + 2.5σ(s) − 27): heuri4-offset's e of
    every exchange (the board unchanged, so δ of the current board is exact) against
    leave_table with those values."""
    spec = pack_en.spec
    b, bl, rack = midgame(pack_en, 10)
    ev = make_evaluator(pack_en, "heuri4-offset")
    r = ev.rank_arrays(b, bl, rack)
    U = augmented_bag(spec, b, bl, rack)
    nb = min(int(rack[spec.blank] + U[spec.blank]), 7)
    d = BoardDelta(pack_en, b, max_blanks=nb).delta
    val = np.maximum(50 + 2.5 * np.asarray(pack_en.keys.sigma, np.float64) - 27.0, 0.0)
    leaves, e_tab, _ = leave_table(pack_en, rack, U, d, val, int(U.sum()) - 7)
    ex = np.flatnonzero(r.moves["kind"] == 1)
    assert len(ex) > 10
    for i in ex:
        row = int(np.flatnonzero((leaves == r.leaves[i]).all(axis=1))[0])
        assert r.e[i] == pytest.approx(e_tab[row], rel=1e-12, abs=1e-12)


def test_heuri4_lanes_blends_delta_with_every_key_landing(pack_en):
    """heuri4-lanes (q = 0.5): for an exchange (the board unchanged) e = ½·e(L | δ) +
    ½·e(L | every key), both from leave_table."""
    spec = pack_en.spec
    b, bl, rack = midgame(pack_en, 11)
    r = make_evaluator(pack_en, "heuri4-lanes").rank_arrays(b, bl, rack)
    U = augmented_bag(spec, b, bl, rack)
    nb = min(int(rack[spec.blank] + U[spec.blank]), 7)
    d = BoardDelta(pack_en, b, max_blanks=nb).delta
    val = 50 + 2.5 * np.asarray(pack_en.keys.sigma, np.float64)
    bag = int(U.sum()) - 7
    leaves, e_d, _ = leave_table(pack_en, rack, U, d, val, bag)
    _, e_all, _ = leave_table(pack_en, rack, U, np.ones(len(d), bool), val, bag)
    ex = np.flatnonzero(r.moves["kind"] == 1)
    assert len(ex) > 10
    for i in ex:
        row = int(np.flatnonzero((leaves == r.leaves[i]).all(axis=1))[0])
        assert r.e[i] == pytest.approx(0.5 * e_d[row] + 0.5 * e_all[row], rel=1e-12)
