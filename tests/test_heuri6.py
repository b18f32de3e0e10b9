"""heuri6: the opponent's next septet drawn from what they likely kept.

The posterior predictive (heuri.eval.probability.opponent_mixture) against a brute force over
the keys and the law of total probability; heuri6's lanes term against the definition on a
real board; heuri6 without a posterior is heuri5; the player infers from the move it is told
of."""
from __future__ import annotations

from itertools import combinations_with_replacement
from math import comb

import numpy as np
import pytest

from heuri.core.game import Game
from heuri.core.move import Placement
from heuri.eval.bingo import BoardDelta, random_board
from heuri.eval.evaluate import EvaluatorError, _new_squares, make_evaluator
from heuri.eval.probability import (ProbabilityError, augmented_bag, draw_weights, key_rows, leave_table,
                                    leave_tables, opponent_mixture, own_draw_weights)
from heuri.play.players import make_player

R = 7


def _setup(pack, seed, n_words=6):
    spec = pack.spec
    rng = np.random.default_rng(seed)
    letters, blanks = random_board(pack, n_words, rng)
    pool = augmented_bag(spec, letters, blanks, np.zeros(spec.n_kinds, np.int64))
    rack = np.bincount(rng.permutation(np.repeat(np.arange(spec.n_kinds), pool))[:7], minlength=spec.n_kinds)
    return letters, blanks, rack, pool - rack


def _uniform_terms(pack, seed):
    """A random board's unseen tiles, its δ, the keys' bingo values and the opponent's
    uniform per-key terms (leave_tables' ov)."""
    letters, blanks, rack, U = _setup(pack, seed)
    bd = BoardDelta(pack, letters)
    val = np.asarray(pack.keys.sigma) * 2.5 + 23.0
    ov = leave_tables(pack, rack, U, bd.delta, val, 50, every=False, opponent=True)[5]
    return U, bd, val, ov


def _p_given(S: np.ndarray, U: np.ndarray, L: np.ndarray) -> np.ndarray:
    """p(s | L) for the key counts S (n, K), by the formula, one key at a time."""
    N, k = int(U.sum()), int(L.sum())
    out = np.zeros(len(S))
    for i, s in enumerate(S):
        d = s - L
        if (d < 0).any() or (d > U - L).any():
            continue
        out[i] = np.prod([comb(int(u), int(x)) for u, x in zip(U - L, d)]) / comb(N - k, R - k)
    return out


def _all_leaves(U: np.ndarray, k: int):
    """Every k-tile multiset of U with its exact prior Π C(U_x, L_x) / C(N, k)."""
    out, prior = [], []
    kinds = np.flatnonzero(U)
    for combo in combinations_with_replacement(kinds, k):
        L = np.bincount(combo, minlength=len(U))
        if (L <= U).all():
            out.append(L)
            prior.append(np.prod([comb(int(u), int(x)) for u, x in zip(U, L)]) / comb(int(U.sum()), k))
    return np.array(out), np.array(prior)


def test_the_mixture_is_the_posterior_predictive(pack_en):
    """With every 2-tile leave enumerated: the prior gives back the uniform terms (the law of
    total probability), and any posterior gives C(N, R)·Σ π(L)·p(s | L)·val(s), checked key by
    key against the formula on 1,500 keys (those holding a leave of the posterior first)."""
    spec = pack_en.spec
    U, bd, val, ov = _uniform_terms(pack_en, 11)
    leaves, prior = _all_leaves(U, 2)
    assert abs(prior.sum() - 1) < 1e-12 and len(leaves) > 200

    same = opponent_mixture(pack_en, bd.ix.holding, U, leaves, prior, prior, ov)
    np.testing.assert_allclose(same, ov, rtol=1e-9)

    rng = np.random.default_rng(5)
    post = rng.dirichlet(np.full(len(leaves), 0.05))
    got = opponent_mixture(pack_en, bd.ix.holding, U, leaves, post, prior, ov)
    rows = key_rows(pack_en)
    top = leaves[np.argsort(-post)[:3]]
    held = np.flatnonzero([(np.bincount(rows[i], minlength=spec.n_kinds) >= top[0]).all()
                           for i in range(0, len(rows), 7)]) * 7
    pick = np.unique(np.concatenate([held[:700], rng.choice(len(rows), 800, replace=False)]))
    S = np.array([np.bincount(rows[i], minlength=spec.n_kinds) for i in pick])
    want = np.zeros(len(pick))
    for L, w in zip(leaves, post):
        if w > 1e-12:
            want += w * _p_given(S, U, L)
    want *= comb(int(U.sum()), R) * val[pick]
    np.testing.assert_allclose(got[pick], want, rtol=1e-9, atol=1e-9 * float(ov.max()))
    assert (got[pick] != ov[pick]).sum() > 100  # the posterior moved these keys

    # a point mass: what they kept is known, the draw is the rest
    one = np.zeros(len(leaves)); one[int(np.argmax(post))] = 1.0
    got1 = opponent_mixture(pack_en, bd.ix.holding, U, leaves, one, prior, ov)
    want1 = comb(int(U.sum()), R) * val[pick] * _p_given(S, U, leaves[int(np.argmax(post))])
    np.testing.assert_allclose(got1[pick], want1, rtol=1e-9, atol=1e-9 * float(ov.max()))


def test_the_mixture_of_a_sample_keeps_what_it_does_not_see(pack_en):
    """A sample of leaves: a posterior equal to the prior changes nothing; keys that no
    leave of the sample is part of keep their uniform term; an empty leave, or one the
    unseen tiles cannot hold, is left out; bad weights are refused."""
    spec = pack_en.spec
    U, bd, val, ov = _uniform_terms(pack_en, 12)
    leaves, prior = _all_leaves(U, 3)
    rng = np.random.default_rng(0)
    pick = rng.choice(len(leaves), 20, replace=False)
    L, pr = leaves[pick], prior[pick]
    np.testing.assert_allclose(opponent_mixture(pack_en, bd.ix.holding, U, L, pr, pr, ov), ov, rtol=1e-12)
    post = pr * rng.uniform(0.1, 3, len(pr))
    got = opponent_mixture(pack_en, bd.ix.holding, U, L, post, pr, ov)
    held = np.zeros(len(ov), bool)
    for lv in L:
        bits = bd.ix.holding(lv)
        held |= np.unpackbits(bits.view(np.uint8), bitorder="little")[:len(ov)].astype(bool)
    assert (got[~held] == ov[~held]).all() and (got[held] != ov[held]).any()
    # the empty leave and a leave of tiles nobody can hold: as if absent
    empty = np.zeros((1, spec.n_kinds), np.int64)
    too_many = U[None, :] * 0
    too_many[0, int(np.argmax(U))] = int(U.max()) + 1
    extra = np.vstack([L, empty, too_many])
    got2 = opponent_mixture(pack_en, bd.ix.holding, U, extra, np.r_[post, 0.5, 0.5], np.r_[pr, 0.1, 0.1], ov)
    np.testing.assert_array_equal(got2, got)
    with pytest.raises(ProbabilityError, match="weights"):
        opponent_mixture(pack_en, bd.ix.holding, U, L, post[:-1], pr, ov)
    with pytest.raises(ProbabilityError, match=">= 0"):
        opponent_mixture(pack_en, bd.ix.holding, U, L, -post, pr, ov)


def test_heuri6_without_a_posterior_is_heuri5(pack_es):
    spec = pack_es.spec
    for seed in (1, 2):
        letters, blanks, rack, U = _setup(pack_es, seed, 8)
        h5 = make_evaluator(pack_es, "heuri5").rank_arrays(letters, blanks, rack, U, 60)
        h6 = make_evaluator(pack_es, "heuri6").rank_arrays(letters, blanks, rack, U, 60)
        np.testing.assert_array_equal(h5.v, h6.v)
        np.testing.assert_array_equal(h5.moves, h6.moves)
    with pytest.raises(EvaluatorError, match="samples"):
        make_evaluator(pack_es, "heuri6", samples=0)
    with pytest.raises(EvaluatorError, match="whole number"):
        make_evaluator(pack_es, "heuri6", samples=24.5)
    assert spec.rack_size == R


def test_heuri6_lanes_term_reads_the_posterior(pack_en):
    """With the opponent known to hold a leave (every 2-tile leave given with its prior, the
    posterior all on one), each re-valued placement's lanes term is
    −3·Σ (δ' − δ)(s)·p(s | L)·val(s) over the keys whose δ the move changes, p(s | L) by the
    formula (their draw from the unseen tiles less that leave)."""
    spec = pack_en.spec
    letters, blanks, rack, U = _setup(pack_en, 21, 7)
    leaves, prior = _all_leaves(U, 2)
    L = np.zeros(spec.n_kinds, np.int64)
    for t in "ES":
        L[spec.parse_tiles(t)[0]] += 1
    at = int(np.flatnonzero((leaves == L).all(axis=1))[0])
    post = np.zeros(len(leaves)); post[at] = 1.0
    ev = make_evaluator(pack_en, "heuri6", top=6, prune=False)
    ev.set_opponent_leaves(leaves, post, prior)
    rk = ev.rank_arrays(letters, blanks, rack, U, 60)
    lanes = rk.terms["lanes"]
    bd = BoardDelta(pack_en, letters)
    rows = key_rows(pack_en)
    val = ev._val
    checked = 0
    for i in np.flatnonzero(lanes != 0)[:4]:
        r, c, t = _new_squares(rk.moves[i])
        after = bd.bits_after(r, c, t)
        flip = np.unpackbits((after ^ bd.delta_bits).view(np.uint8), bitorder="little")[:len(rows)].astype(bool)
        now = np.unpackbits(after.view(np.uint8), bitorder="little")[:len(rows)].astype(bool)
        keys = np.flatnonzero(flip)
        S = np.array([np.bincount(rows[k], minlength=spec.n_kinds) for k in keys])
        p = _p_given(S, U, L)
        want = -3.0 * float(((np.where(now[keys], 1.0, -1.0)) * p * val[keys]).sum())
        assert lanes[i] == pytest.approx(want, rel=1e-9, abs=1e-9)
        checked += 1
    assert checked >= 2
    # the posterior is for one decision, used or not (here the unseen tiles, 5, cannot fill
    # the opponent's rack, so their term is off): the next ranking is heuri5's again
    ev.set_opponent_leaves(leaves, post, prior)
    few = np.zeros_like(U)
    few[np.flatnonzero(U)[:5]] = 1
    ev.rank_arrays(letters, blanks, rack, few, 0)
    again = ev.rank_arrays(letters, blanks, rack, U, 60)
    h5 = make_evaluator(pack_en, "heuri5", top=6, prune=False).rank_arrays(letters, blanks, rack, U, 60)
    np.testing.assert_array_equal(again.v, h5.v)


def test_our_draw_from_what_they_kept_is_the_mixture(pack_en):
    """Our next draw when the opponent kept 2 tiles (every 2-tile leave with its prior, a
    posterior on 40 of them): for our 6-tile leaves (one tile to draw) e(L) and p(L) are
    exactly the mixture Σ_j π_j·(the uniform draw from U − L_j); a posterior equal to the
    prior gives the uniform weights back; bad weights are refused."""
    spec = pack_en.spec
    letters, blanks, rack, U = _setup(pack_en, 21, 7)
    pool = U + rack
    rack = np.bincount(spec.parse_tiles("AEINRST"), minlength=spec.n_kinds)
    assert (rack <= pool).all()
    U = pool - rack
    leaves, prior = _all_leaves(U, 2)
    rng = np.random.default_rng(5)
    post = np.zeros(len(leaves))
    post[rng.choice(len(leaves), 40, replace=False)] = rng.random(40) ** 2
    post /= post.sum()
    W = own_draw_weights(U, leaves, post, prior)
    use = np.asarray(pack_en.keys.is_septet)
    val = np.asarray(pack_en.keys.sigma) * 2.5 + 50.0
    bag = int(U.sum()) - 9  # our rack's 7 and their 2 kept tiles are off the bag
    lv, e, p = leave_table(pack_en, rack, U, use, val, bag, draw=W)
    e_mix = np.zeros(len(lv))
    p_mix = np.zeros(len(lv))
    for j in np.flatnonzero(post):
        _, ej, pj = leave_table(pack_en, rack, U - leaves[j], use, val, bag)
        e_mix += post[j] * ej
        p_mix += post[j] * pj
    six = lv.sum(axis=1) == R - 1
    assert six.sum() >= 5 and (e_mix[six] > 0).all()
    np.testing.assert_allclose(e[six], e_mix[six], rtol=1e-9)
    np.testing.assert_allclose(p[six], p_mix[six], rtol=1e-9)
    _, e_uni, _ = leave_table(pack_en, rack, U, use, val, bag)
    assert np.abs(e[six] - e_uni[six]).max() > 0.05  # the posterior moved them
    np.testing.assert_allclose(own_draw_weights(U, leaves, prior, prior), draw_weights(U), rtol=1e-12)
    with pytest.raises(ProbabilityError, match="own draw"):
        own_draw_weights(U, leaves, post[:-1], prior)
    assert spec.rack_size == R


def test_draw_weights_that_rule_a_tile_out(pack_en):
    """Draw weights of 0 for every blank are the uniform draw from the unseen tiles without
    their blanks, over the same C(N, t); weights of 0 for every kind but the blank give 0.
    A one-tile rack has eight leave groups: a key whose weight is 0, listed again at each
    such key, would be written past the list's end (a crash, or another array overwritten)."""
    spec = pack_en.spec
    letters, blanks, rack, U = _setup(pack_en, 21, 7)
    assert U[spec.blank] == 2
    rack = np.bincount(spec.parse_tiles("S"), minlength=spec.n_kinds)
    W = draw_weights(U)
    W[spec.blank, 1:] = 0.0
    use = np.asarray(pack_en.keys.is_septet)
    val = np.asarray(pack_en.keys.sigma) * 2.5 + 50.0
    N = int(U.sum())
    lv, e, p = leave_table(pack_en, rack, U, use, val, N, draw=W)
    no_blank = U.copy()
    no_blank[spec.blank] = 0
    _, e0, p0 = leave_table(pack_en, rack, no_blank, use, val, N)
    t = R - lv.sum(axis=1)
    scale = np.array([comb(N - 2, int(k)) / comb(N, int(k)) for k in t])
    assert (e0 > 0).all()
    np.testing.assert_allclose(e, e0 * scale, rtol=1e-12)
    np.testing.assert_allclose(p, p0 * scale, rtol=1e-12)
    # every kind but the blank ruled out: two blanks cannot fill a rack around one S
    only = np.zeros_like(W)
    only[:, 0] = 1.0
    only[spec.blank] = draw_weights(U)[spec.blank]
    _, e1, p1 = leave_table(pack_en, rack, U, use, val, N, draw=only)
    assert not e1.any() and not p1.any()


def test_heuri6_draw_option(pack_en):
    """``heuri6@draw=1`` changes values only through the posterior: with the posterior equal
    to the prior they are heuri6's (to rounding); with the opponent known to hold both
    blanks our leaves' chances of a blank are gone and values move; draw=2 is refused."""
    spec = pack_en.spec
    letters, blanks, rack, U = _setup(pack_en, 21, 7)
    leaves, prior = _all_leaves(U, 2)
    base = make_evaluator(pack_en, "heuri6", top=6, prune=False)
    base.set_opponent_leaves(leaves, prior, prior)
    want = base.rank_arrays(letters, blanks, rack, U, 60)
    ev = make_evaluator(pack_en, "heuri6", top=6, prune=False, draw=1)
    ev.set_opponent_leaves(leaves, prior, prior)
    got = ev.rank_arrays(letters, blanks, rack, U, 60)
    np.testing.assert_array_equal(got.moves, want.moves)
    np.testing.assert_allclose(got.v, want.v, rtol=1e-9, atol=1e-9)
    assert U[spec.blank] == 2
    post = (leaves[:, spec.blank] == 2).astype(float)
    ev.set_opponent_leaves(leaves, post, prior)
    moved = ev.rank_arrays(letters, blanks, rack, U, 60)
    base.set_opponent_leaves(leaves, post, prior)
    ref = base.rank_arrays(letters, blanks, rack, U, 60)
    assert not np.allclose(np.sort(moved.v), np.sort(ref.v))
    with pytest.raises(EvaluatorError, match="draw must be 0 or 1"):
        make_evaluator(pack_en, "heuri6", draw=2)
    from heuri.play.players import EngineError, parse_engine

    assert parse_engine("heuri6@draw=1") == ("heuri6", {"draw": 1.0})
    for bad, why in (("heuri6@draw=0.5", "draw must be 0 or 1"), ("heuri5@draw=1", "unknown option 'draw'")):
        with pytest.raises(EngineError, match=why):
            parse_engine(bad)


def test_the_heuri6_player_infers_from_the_move_it_is_told_of(pack_en):
    """In a game: after the opponent's placement the player infers (``info["inferred"]``);
    told of nothing, or of a move that does not lead to the position, it plays as heuri5."""
    g = Game(pack_en.spec, seed=1)
    h5 = make_player("heuri5", pack_en)
    h6 = make_player("heuri6", pack_en)
    before = g.position
    m = h5.choose(before)
    assert isinstance(m, Placement)
    g.play(m)
    h6.observe(before, m)
    mine = h6.choose(g.position)
    assert h6.info["inferred"] is True
    h6.choose(g.position)
    assert h6.info["inferred"] is False  # the observed move was used once
    h6.observe(g.position, mine)  # our own move: it does not lead to the position we answer
    h6.choose(g.position)
    assert h6.info["inferred"] is False


def test_the_leave_model_values_leaves_for_a_full_bag(pack_es):
    """The opponent's model: v = j + e(L), e Heuri_2's over the pure septets for the whole
    tile set (leave_table with U = the distribution), whatever the board and unseen tiles;
    e = 0 once the bag is empty."""
    from heuri.eval.evaluate import LeaveModel
    from heuri.eval.probability import leave_index, leave_table

    spec = pack_es.spec
    letters, blanks, rack, U = _setup(pack_es, 3, 8)
    model = LeaveModel(pack_es)
    rk = model.rank_arrays(letters, blanks, rack, U, 60)
    full = spec.distribution().astype(np.int64)
    leaves, e_tab, _ = leave_table(pack_es, rack, full, np.asarray(pack_es.keys.is_septet), model._val,
                                   int(full.sum()))
    places = rk.moves["kind"] == 0
    want = e_tab[[leave_index(rack, lv) for lv in rk.leaves[places]]]
    np.testing.assert_allclose(rk.e[places], want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(rk.v[places], rk.j[places] + want, rtol=1e-9)
    assert want.max() > 10  # the good leaves are worth points
    assert (model.rank_arrays(letters, blanks, rack, U, 0).e == 0).all()
