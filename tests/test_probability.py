"""heuri.probability: the augmented bag, p(s | L) and the leave tables e(L), against the
paper's worked examples and brute-force expectations over every possible draw."""
from __future__ import annotations

import itertools
from collections import Counter
from math import comb

import numpy as np
import pytest

from heuri.probability import (ProbabilityError, augmented_bag, bingo_value, board_counts,
                               default_bag_size, heuri1_b, key_rows, key_runs, leave_index, leave_table, leave_tables,
                               p_key, sub_multisets)


def vec(spec, text):
    return np.bincount(spec.parse_tiles(text), minlength=spec.n_kinds).astype(np.int64)


def brute_force(pack, rack, U, use, val, bag_size):
    """e(L), p(L) for every leave by enumerating every ordered-free draw of t tiles from U
    (each multiset d weighted by Π C(U_x, d_x) / C(N, t)) and looking the new rack up."""
    spec = pack.spec
    R = spec.rack_size
    codes = {tuple(np.asarray(pack.keys.counts[i])): i for i in range(len(pack.keys))}
    leaves = sub_multisets(rack)
    N = int(U.sum())
    tiles = [x for x in range(spec.n_kinds) for _ in range(int(U[x]))]
    out_e, out_p = [], []
    for L in leaves:
        t = R - int(L.sum())
        if t > bag_size or t > N:
            out_e.append(0.0); out_p.append(0.0)
            continue
        e = p = 0.0
        draws = Counter(tuple(sorted(d)) for d in itertools.combinations(tiles, t))
        total = comb(N, t)
        for d, ways in draws.items():
            s = L.astype(np.int64).copy()
            for x in d:
                s[x] += 1
            i = codes.get(tuple(s.astype(np.uint8)))
            if i is not None and use[i]:
                e += ways / total * val[i]
                p += ways / total
        out_e.append(e); out_p.append(p)
    return np.array(out_e), np.array(out_p)


def code_of(tiles):
    """Key code of a tile list (pipeline.keys.encode: sorted, 6 bits a tile)."""
    c = 0
    for x in sorted(tiles):
        c = (c << 6) | int(x)
    return c


def test_heuri1_b_paper_example(pack_es):
    # paper §4.2: σ_L = 3, t = 4, Spanish ā = 1.92 → b = 76.7
    assert pack_es.spec.average_tile_value == pytest.approx(1.92)
    assert heuri1_b(3, 4, pack_es.spec.average_tile_value) == pytest.approx(76.7)


def test_aaaanrr_fise_counts(pack_es):
    """Leave AAAÑ, exchange HQV: p(AAAAÑRR) = C(9,1)·C(5,2)/C(93,3) with the FISE counts."""
    spec = pack_es.spec
    empty = np.full((15, 15), -1, np.int8)
    rack = vec(spec, "AAAÑHQV")
    U = augmented_bag(spec, empty, np.zeros((15, 15), bool), rack)
    assert U.sum() == 93 and U[spec.tile_id("A")] == 9 and U[spec.tile_id("R")] == 5
    want = comb(9, 1) * comb(5, 2) / comb(93, 3)
    key = vec(spec, "AAAAÑRR")
    assert p_key(U, vec(spec, "AAAÑ"), key)[0] == pytest.approx(want, rel=1e-12)
    # the same number out of the leave table (one key used, value 1)
    i = int(np.flatnonzero((np.asarray(pack_es.keys.counts) == key).all(axis=1))[0])
    assert pack_es.keys.is_septet[i]  # ARAÑARA
    use = np.zeros(len(pack_es.keys), bool); use[i] = True
    leaves, e, p = leave_table(pack_es, rack, U, use, np.ones(len(use)))
    j = leave_index(rack, vec(spec, "AAAÑ"))
    assert (leaves[j] == vec(spec, "AAAÑ")).all()
    assert p[j] == pytest.approx(want, rel=1e-12) and e[j] == pytest.approx(want, rel=1e-12)
    # a leave that is not part of the key gets nothing
    assert p[leave_index(rack, vec(spec, "AAAÑH"))] == 0.0


def test_board_counts_blank_is_a_blank(pack_es):
    spec = pack_es.spec
    letters = np.full((15, 15), -1, np.int8)
    blanks = np.zeros((15, 15), bool)
    letters[7, 7:10] = [spec.tile_id("S"), spec.tile_id("O"), spec.tile_id("L")]
    blanks[7, 8] = True
    c = board_counts(spec, letters, blanks)
    assert c[spec.tile_id("S")] == 1 and c[spec.tile_id("O")] == 0 and c[spec.blank] == 1
    rack = vec(spec, "OOOOOOO")
    U = augmented_bag(spec, letters, blanks, rack)
    assert U.sum() == 100 - 3 - 7
    with pytest.raises(ProbabilityError, match="'O'"):
        augmented_bag(spec, letters, blanks, vec(spec, "OOOOOOOOOO"))


def test_sub_multisets():
    rack = np.array([2, 0, 1, 0, 1])
    subs = sub_multisets(rack)
    assert len(subs) == 3 * 2 * 2 and len({tuple(r) for r in subs}) == 12
    assert subs[0].sum() == 0 and (subs[-1] == rack).all()
    for i, r in enumerate(subs):
        assert leave_index(rack, r) == i
    with pytest.raises(ProbabilityError):
        leave_index(rack, np.array([3, 0, 0, 0, 0]))


def test_tiny_pack_brute_force(tiny_pack):
    """Every leave of several racks against the enumeration of every draw (rack size 3)."""
    spec = tiny_pack.spec
    n = len(tiny_pack.keys)
    assert n > 0
    val = bingo_value(np.asarray(tiny_pack.keys.sigma))
    rng = np.random.default_rng(7)
    bagtiles = np.repeat(np.arange(spec.n_kinds), spec.distribution())
    checked = 0
    for trial in range(12):
        rng.shuffle(bagtiles)
        rack = np.bincount(bagtiles[:3], minlength=spec.n_kinds)
        board = np.bincount(bagtiles[3:3 + trial % 5], minlength=spec.n_kinds)
        U = spec.distribution() - rack - board
        use = rng.random(n) < 0.7
        for bag in (int(U.sum()), 1, 0):
            leaves, e, p = leave_table(tiny_pack, rack, U, use, val, bag_size=bag)
            be, bp = brute_force(tiny_pack, rack, U, use, val, bag)
            np.testing.assert_allclose(e, be, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(p, bp, rtol=1e-12, atol=1e-15)
            checked += int((be > 0).sum())
    assert checked > 20  # the check saw non-zero expectations


@pytest.mark.parametrize("lang", ["es", "en", "fr"])
def test_real_pack_small_bag_brute_force(lang, request):
    """Late in the game (|U| = 12): every leave's e and p against every possible draw."""
    pack = request.getfixturevalue(f"pack_{lang}")
    spec = pack.spec
    rng = np.random.default_rng({"es": 1, "en": 2, "fr": 3}[lang])
    tiles = np.repeat(np.arange(spec.n_kinds), spec.distribution())
    val = bingo_value(np.asarray(pack.keys.sigma))
    use = np.ones(len(pack.keys), bool)
    lookup = {int(c): i for i, c in enumerate(np.asarray(pack.keys.code))}
    nonzero = 0
    for _ in range(3):
        rng.shuffle(tiles)
        rack = np.bincount(tiles[:7], minlength=spec.n_kinds)
        U = np.bincount(tiles[7:19], minlength=spec.n_kinds)
        leaves, e, p = leave_table(pack, rack, U, use, val, bag_size=5)
        # brute force on the leaves of 2+ tiles (t ≤ 5 = bag size); the others must be 0
        Utiles = [x for x in range(spec.n_kinds) for _ in range(int(U[x]))]
        for li, L in enumerate(leaves):
            t = 7 - int(L.sum())
            if t > 5:
                assert e[li] == 0 and p[li] == 0
                continue
            want_e = want_p = 0.0
            base = [x for x in range(spec.n_kinds) for _ in range(int(L[x]))]
            for d in itertools.combinations(range(len(Utiles)), t):
                i = lookup.get(code_of(base + [Utiles[q] for q in d]))
                if i is not None:
                    want_e += val[i] / comb(12, t)
                    want_p += 1 / comb(12, t)
            assert e[li] == pytest.approx(want_e, rel=1e-12, abs=1e-15)
            assert p[li] == pytest.approx(want_p, rel=1e-12, abs=1e-15)
            nonzero += want_p > 0
    assert nonzero > 0


def test_default_bag_size_and_pass():
    U = np.array([3, 2, 0, 4])
    assert default_bag_size(U, 7) == 2
    assert default_bag_size(np.array([1, 1]), 7) == 0


def test_key_rows_match_counts(pack_en):
    rows = key_rows(pack_en)
    counts = np.asarray(pack_en.keys.counts)
    sample = np.random.default_rng(0).choice(len(rows), 500, replace=False)
    for i in sample:
        assert (np.bincount(rows[i], minlength=counts.shape[1]) == counts[i]).all()


@pytest.mark.parametrize("lang", ["es", "en"])
def test_leave_tables_equal_separate_passes(lang, request):
    """leave_tables' one pass gives exactly (==, not approx) leave_table's e and p with the
    mask, the same with every key, and each key's opponent term Π C(U_x, s_x)·val(s)."""
    pack = request.getfixturevalue(f"pack_{lang}")
    spec = pack.spec
    rng = np.random.default_rng(7)
    tiles = np.repeat(np.arange(spec.n_kinds), spec.distribution())
    val = bingo_value(np.asarray(pack.keys.sigma)) - 27.0
    counts = np.asarray(pack.keys.counts).astype(np.int64)
    for bag in (40, 3):
        rng.shuffle(tiles)
        rack = np.bincount(tiles[:7], minlength=spec.n_kinds)
        U = np.bincount(tiles[7:7 + bag + 7], minlength=spec.n_kinds)
        use = rng.random(len(pack.keys)) < 0.3
        leaves, e, p, e_all, p_all, ov = leave_tables(pack, rack, U, use, val, bag, every=True, opponent=True)
        l1, e1, p1 = leave_table(pack, rack, U, use, val, bag)
        _, e2, p2 = leave_table(pack, rack, U, np.ones(len(use), bool), val, bag)
        assert (leaves == l1).all() and (e == e1).all() and (p == p1).all()
        assert (e_all == e2).all() and (p_all == p2).all()
        assert e_all.max() > 0 if bag >= 7 else True
        for i in rng.choice(len(counts), 300, replace=False):
            want = float(np.prod([comb(int(U[x]), int(c)) for x, c in enumerate(counts[i]) if c]))
            assert ov[i] == pytest.approx(want * val[i], rel=1e-12)
        # only the mask's table asked for
        _, e3, _, e_none, _, ov_none = leave_tables(pack, rack, U, use, val, bag, every=False)
        assert (e3 == e1).all() and e_none is None and ov_none is None


def test_key_runs_spell_the_key_rows(real_pack):
    """key_runs: each key's (kind, count) runs, ascending, expand back to its sorted tiles."""
    rows = key_rows(real_pack)
    runs = key_runs(real_pack)
    for i in np.random.default_rng(1).choice(len(rows), 2000, replace=False):
        tiles = [y >> 3 for y in runs[i] if y != 0 for _ in range(y & 7)]
        assert tiles == rows[i].tolist()


def test_more_than_31_tile_kinds_brute_force(pl_small_pack):
    """Polish has 33 tile kinds (the blank's id is 32, so a run 8·32 + c does not fit a byte):
    the key runs widen to uint16 and spell the keys back, and every leave's e and p equals the
    enumeration of every draw, on racks that hold Ż (id 31) and the blank."""
    pack = pl_small_pack
    spec = pack.spec
    assert spec.n_kinds == 33 and spec.blank == 32
    rows, runs = key_rows(pack), key_runs(pack)
    assert runs.dtype == np.uint16
    for i in range(len(rows)):
        assert [y >> 3 for y in runs[i] if y != 0 for _ in range(y & 7)] == rows[i].tolist()
    assert (rows == spec.blank).any() and (rows == spec.tiles.index("Ż")).any()
    val = bingo_value(np.asarray(pack.keys.sigma))
    use = np.ones(len(pack.keys), bool)
    rng = np.random.default_rng(5)
    checked = 0
    for rack_text in ("ŻAEIO?N", "ŹŻ?ARYC", "AEIOUYZ"):
        rack = vec(spec, rack_text)
        pool = spec.distribution() - rack
        bag = np.repeat(np.arange(spec.n_kinds), pool)
        U = np.bincount(rng.choice(bag, 9, replace=False), minlength=spec.n_kinds).astype(np.int64)
        U[spec.blank] += 1 if rack[spec.blank] < spec.blank_count else 0
        U[spec.tiles.index("Ż")] = 1 - rack[spec.tiles.index("Ż")]
        leaves, e, p = leave_table(pack, rack, U, use, val, bag_size=4)
        be, bp = brute_force(pack, rack, U, use, val, bag_size=4)
        assert np.allclose(e, be, rtol=1e-12, atol=1e-15) and np.allclose(p, bp, rtol=1e-12, atol=1e-15)
        checked += int((bp > 0).sum())
    assert checked > 0


def test_more_than_31_tile_kinds_play_a_game(pl_small_pack):
    """heuri5 (the key runs in its leave and lanes kernels) plays a whole game of the 33-kind
    pack against greedy, and its record replays with 0 mismatches against the same words."""
    from heuri.formats.gcg import read_gcg, replay
    from heuri.play.match import play_game
    from heuri.play.players import make_player

    pack = pl_small_pack
    players = {n: make_player(n, pack) for n in ("heuri5", "greedy")}
    row, gcg, game = play_game(pack, players, "heuri5", "greedy", seed=3, pair=0, seat=0, words=pack.words)
    r = replay(read_gcg(gcg), pack.spec, words=pack.words)
    assert r.mismatches == [] and r.complete and row["forfeit"] == ""
    # a whole game with the Polish letters and the blank played (the made-up words are short)
    assert row["turns"] >= 20 and min(row["score_p1"], row["score_p2"]) > 100
    assert any(c in gcg for c in "ĄĆĘŁŃÓŚŹŻ")
