"""The web service's shared caches (parsed positions, answers, the δ of a board shared by
every engine and k) answer exactly what a fresh evaluator answers."""
from __future__ import annotations

import numpy as np

from heuri.apps.web.service import Service
from heuri.core.board import Board
from heuri.core.cgp import CgpRecord, format_cgp
from heuri.core.game import Position
from heuri.core.movegen import generate
from heuri.eval.bingo import BoardDelta, BoardDeltaCache, random_board
from heuri.eval.evaluate import _new_squares, engine_options, make_evaluator


def _cgps(pack, n, seed):
    spec = pack.spec
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        letters, blanks = random_board(pack, int(rng.integers(6, 12)), rng)
        board = Board(spec, letters, blanks)
        left = spec.distribution() - board.tile_counts()
        bag = np.repeat(np.arange(spec.n_kinds), left)
        rack = tuple(int(t) for t in rng.choice(bag, spec.rack_size, replace=False))
        out.append(format_cgp(CgpRecord(board, (rack, None), (150, 140), 0)))
    return out


def test_served_best_is_the_direct_ranking(pack_es):
    """Several engines and k on the same positions, asked twice each, in an order that
    reuses each board's δ: every answer equals a fresh evaluator's rows (no shared cache)."""
    svc = Service(packs={"es": pack_es})
    spec = pack_es.spec
    asks = [("heuri5", None), ("heuri3", 1.25), ("heuri4", 3.5), ("heuri5", 4.0), ("heuri2", 2.0)]
    cgps = _cgps(pack_es, 3, seed=11)
    for _ in range(2):
        for cgp in cgps:
            for engine, k in asks:
                req = {"lang": "es", "cgp": cgp, "engine": engine, "top": 8}
                if k is not None:
                    req["k"] = k
                got = svc.best(req)
                ev = make_evaluator(pack_es, engine, **engine_options(engine, k, None, False))
                pos = Position.from_cgp(cgp, spec)
                want = ev.rank(pos).rows(spec, 8, board=pos.board)
                assert got["rows"] == want, (engine, k, cgp)
                assert len(got["rows"]) == 8
    assert svc._deltas.hits >= 2 * len(cgps)  # the heuri3/4/5 asks after the first on a board
    assert svc._answers.hits == len(cgps) * len(asks)  # the second round, every answer


def test_served_moves_are_kept_and_equal(pack_es):
    svc = Service(packs={"es": pack_es})
    cgp = _cgps(pack_es, 1, seed=4)[0]
    first = svc.moves({"lang": "es", "cgp": cgp, "top": 5})
    first["moves"] = []  # a caller changing its answer does not change the one kept
    again = svc.moves({"lang": "es", "cgp": cgp, "top": 5})
    pos = Position.from_cgp(cgp, pack_es.spec)
    assert again["count"] == len(pos.moves(pack_es))
    assert len(again["moves"]) == 5
    assert again["moves"][0]["score"] == int(pos.moves(pack_es)["score"].max())
    assert svc._answers.hits == 1


def test_board_delta_cache_shares_one_board(pack_es):
    """One BoardDelta per board and blank limit; δ after a placement, asked twice, is the
    same array and equals a fresh BoardDelta's."""
    cache = BoardDeltaCache(size=2)
    rng = np.random.default_rng(3)
    b, bl = random_board(pack_es, 8, rng)
    bd = cache.get(pack_es, b, 2)
    assert cache.get(pack_es, b.copy(), 2) is bd
    assert cache.get(pack_es, b, 1) is not bd
    rack = np.zeros(pack_es.spec.n_kinds, np.int64)
    for t in "AEIORSU":
        rack[pack_es.spec.tile_id(t)] += 1
    moves = generate(pack_es, b, bl, rack)
    moves = moves[moves["kind"] == 0][:5]
    fresh = BoardDelta(pack_es, b, max_blanks=2)
    for m in moves:
        rows, cols, tiles = _new_squares(m)
        one = bd.bits_after(rows, cols, tiles)
        assert bd.bits_after(rows, cols, tiles) is one
        assert not one.flags.writeable
        assert (one == fresh.bits_after(rows, cols, tiles)).all()
    cache.get(pack_es, np.full_like(b, -1), 2)  # a third key: the least recently used goes
    assert len(cache) == 2
    assert cache.get(pack_es, b, 2) is not bd
