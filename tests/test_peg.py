"""Pre-endgame search (heuri.peg): the draws' probabilities, one-tile-in-the-bag odds
against a tile-by-tile enumeration, and the bad-input errors."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from heuri.endgame import EndgameError, EndgameSearch
from heuri.game import Game, Position
from heuri.move import Move
from heuri.peg import PegError, PegSearch
from heuri.peg import weighted_draws as sub_multisets

# es seed 4, heuri3-noend self-play until one tile was left in the bag; the opponent's rack
# is not given (it is the unseen tiles minus the bag)
ONE_IN_BAG = "J2CRESPIN5/ACUEO10/1I13/[CH]ES5H6/AGOBIA2E6/YOS2H2R6/E3BE2V6/N2PULULE5E/4LE2D5S/4DA3Q4T/4ANTIGUA3U/2T4Z1I4R/2R3ÑA1F4D/1DETA[LL]AIs5A/2N4SECESiON CDOOOOX/ 334/507 0"


# a bag-empty Spanish endgame (tests/test_endgame.py)
NO_BAG = ("3C8P2/1P1L8[CH]A1/MUÑI8EX1/EN1C9I1/DI2A5A2L1/OC2B5S1LA1/1AH1R1FAUTORA2/2ADORAR2SOGUn/2C1N5I1A2/"
          "1DE1Q5E1R2/YIN1u2M2G1E2/1S1DESHUESO1ET1/1TOEN2E4SU1/JO5VEZ3[RR]1/O6ATABI[LL]EN LO/D 340/457 0")


def test_sub_multisets_count_every_draw():
    counts = np.array([3, 0, 2, 1, 2], np.int64)  # 8 tiles
    for k in range(0, 9):
        got = list(sub_multisets(counts, k))
        assert sum(w for _, w in got) == math.comb(8, k)
        assert all(d.sum() == k and (d <= counts).all() for d, _ in got)
        assert len({d.tobytes() for d, _ in got}) == len(got)


def test_one_tile_in_the_bag_matches_tile_by_tile_enumeration(pack_es):
    spec = pack_es.spec
    pos = Position.from_cgp(ONE_IN_BAG, spec)
    assert pos.bag_size == 1 and pos.hidden[1] == 7
    ps = PegSearch(pack_es, top=3, empty_top=2)
    res = ps.search(pos)
    assert len(res.rows) >= 3
    assert [r.win_prob for r in res.rows] == sorted((r.win_prob for r in res.rows), reverse=True)
    row = next(r for r in res.rows if r.method.startswith("endgame"))
    # every unseen tile, one by one, is the bag's tile with probability 1/8: the mover draws
    # it, the opponent holds the other seven and moves first in the endgame
    U = pos.unseen()
    ids = np.repeat(np.arange(len(U)), U)
    solver = EndgameSearch(pack_es, **ps.limits)
    mv = row.move
    score = pos.board.score(mv)
    spread0 = pos.scores[0] - pos.scores[1]
    finals = []
    for t in ids:
        d = np.zeros_like(U)
        d[t] = 1
        me = pos.rack - mv.rack_counts(spec) + d
        p2 = dataclasses.replace(pos, board=pos.board.play(mv), racks=(me, U - d), bag=np.zeros_like(U),
                                 to_move=1, hidden=(0, 0), scoreless=0)
        finals.append(spread0 + score - solver.search(p2).value)
    assert row.draws_n == len(set(ids.tolist()))
    assert row.spread == pytest.approx(np.mean(finals))
    assert row.wins == pytest.approx(np.mean(np.array(finals) > 0))
    assert row.losses == pytest.approx(np.mean(np.array(finals) < 0))
    assert res.move == res.rows[0].move and isinstance(res.move, Move)


def test_bag_size_errors(pack_es):
    ps = PegSearch(pack_es)
    with pytest.raises(PegError, match="the bag holds 86"):
        ps.search(Game(pack_es.spec, seed=1).position)
    # the endgame itself (the bag emptied: the opponent holds the unseen tiles) is not a peg
    pos = Position.from_cgp(NO_BAG, pack_es.spec)
    with pytest.raises(PegError, match="the bag is empty"):
        ps.search(pos)
    with pytest.raises(EndgameError, match="the bag holds 1 tiles"):
        EndgameSearch(pack_es).search(Position.from_cgp(ONE_IN_BAG, pack_es.spec))


def test_candidates_have_no_repeats_whatever_the_padding(pack_es):
    # MOVE_DTYPE is aligned: one padding byte between n_tiles and score holds whatever the
    # buffer held, so the same move from the ranking and from Position.moves() compared
    # unequal as bytes and the README's position listed some candidates twice
    from heuri.movegen import MOVE_DTYPE
    from heuri.peg import PegSearch, _record_key

    pos = Position.from_cgp(ONE_IN_BAG, pack_es.spec)
    a = pos.moves(pack_es)[:3].copy()
    b = a.copy()
    raw = b.view(np.uint8).reshape(len(b), MOVE_DTYPE.itemsize)
    pad = MOVE_DTYPE.fields["n_tiles"][1] + 1
    assert pad < MOVE_DTYPE.fields["score"][1]  # the padding byte exists
    raw[:, pad] = 0xA3
    assert a.tobytes() != b.tobytes()
    assert [_record_key(x) for x in a] == [_record_key(x) for x in b]
    texts = [Move.from_record(r, pack_es.spec).gcg(pack_es.spec) for r in PegSearch(pack_es, max_bag=1).candidates(pos)]
    assert len(texts) == len(set(texts))


def test_an_inferred_leave_weighs_the_bags_tile(pack_es):
    """With every leave the opponent could have kept enumerated (prior: the hypergeometric
    draw) and the posterior sure of one leave L0, the bag's tile is one of the unseen tiles
    outside L0, each as often as it is there; a posterior equal to the prior changes nothing."""
    from types import SimpleNamespace

    from heuri.search.peg import draw_ratios

    spec = pack_es.spec
    pos = Position.from_cgp(ONE_IN_BAG, spec)
    U = pos.unseen()
    ids = np.repeat(np.arange(len(U)), U)
    leaves, ways = zip(*sub_multisets(U, 6))
    leaves = np.array(leaves)
    prior = np.array(ways, np.float64) / sum(ways)
    L0 = U.copy()
    L0[ids[0]] -= 1
    L0[ids[-1]] -= 1  # they kept all but two of the unseen tiles
    sure = np.array([float(np.array_equal(L, L0)) for L in leaves])
    assert sure.sum() == 1
    # the ratio times the uniform chance of each one-tile draw is its chance given L0
    draws = [d for d, _ in sub_multisets(U, 1)]
    r = draw_ratios(U, draws, leaves, sure, prior)
    rest = U - L0
    assert [x * d @ U / U.sum() for x, d in zip(r, draws)] == pytest.approx([d @ rest / rest.sum() for d in draws])
    assert draw_ratios(U, draws, leaves, prior, prior) == pytest.approx(np.ones(len(draws)))

    ps = PegSearch(pack_es, top=3, empty_top=2)
    plain = ps.search(pos)
    same = ps.search(pos, inference=SimpleNamespace(leaves=leaves, posterior=prior, prior=prior))
    assert [a.move for a in same.rows] == [a.move for a in plain.rows]
    assert [a.spread for a in same.rows] == pytest.approx([a.spread for a in plain.rows])
    told = ps.search(pos, inference=SimpleNamespace(leaves=leaves, posterior=sure, prior=prior))
    row = next(r for r in told.rows if r.method.startswith("endgame"))
    mv = row.move
    solver = EndgameSearch(pack_es, **ps.limits)
    spread0 = pos.scores[0] - pos.scores[1]
    finals = {}
    for t in np.flatnonzero(rest):
        d = np.zeros_like(U)
        d[t] = 1
        me = pos.rack - mv.rack_counts(spec) + d
        p2 = dataclasses.replace(pos, board=pos.board.play(mv), racks=(me, U - d), bag=np.zeros_like(U),
                                 to_move=1, hidden=(0, 0), scoreless=0)
        finals[t] = spread0 + pos.board.score(mv) - solver.search(p2).value
    assert row.draws_n == len(finals)
    assert row.spread == pytest.approx(sum(rest[t] * f for t, f in finals.items()) / rest.sum())
    assert row.wins == pytest.approx(sum(rest[t] * (f > 0) for t, f in finals.items()) / rest.sum())
    with pytest.raises(PegError, match="draw weights: 3 leaves with 2 posterior"):
        draw_ratios(U, draws, leaves[:3], sure[:2], prior[:3])
