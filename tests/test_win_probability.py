"""The chance to win given the spread and the bag (heuri.eval.win_probability,
pipeline/win_probability.py) and the simulation that races on it."""
from __future__ import annotations

import json

import numpy as np
import pytest

from heuri.eval.win_probability import WinProbability, WinProbabilityError, fit_win_probability
from heuri.play.players import EngineError, make_player
from heuri.search.simulation import Candidate, SimulationError, Simulator
from test_simulation import en, midgame  # noqa: F401 (fixtures: the English pack, a midgame position)


def test_the_fit_recovers_known_curves():
    """Positions drawn from known logistic curves (offset 12, scale 20 + 4·bag): the fit
    gives them back within a few points."""
    rng = np.random.default_rng(7)
    bag = rng.integers(0, 11, 60_000)
    spread = rng.normal(0, 60, len(bag))
    scale = 20.0 + 4.0 * bag
    p = 1 / (1 + np.exp(-(spread + 12.0) / scale))
    won = (rng.random(len(bag)) < p).astype(float)
    t = fit_win_probability(spread, bag, won, window=0)
    assert len(t.offset) == 11 and t.positions.sum() == len(bag)
    assert np.allclose(t.scale, 20.0 + 4.0 * np.arange(11), rtol=0.12)
    assert np.allclose(t.offset, 12.0, atol=4.0)
    # and the chance itself, where it matters most (a lead of 30 with 5 tiles in the bag)
    assert t.p(30, 5) == pytest.approx(1 / (1 + np.exp(-42 / 40)), abs=0.03)


def test_the_empty_bag_is_fitted_alone():
    """Endgame positions (bag 0) follow offset 30, those with tiles in the bag offset 0: with a
    window of 3, bag 0 gives back 30, and bags 1 to 3 give back 0, untouched by the endgame."""
    rng = np.random.default_rng(3)
    bag = rng.integers(0, 8, 80_000)
    spread = rng.normal(0, 60, len(bag))
    p = 1 / (1 + np.exp(-(spread + np.where(bag == 0, 30.0, 0.0)) / 25.0))
    won = (rng.random(len(bag)) < p).astype(float)
    t = fit_win_probability(spread, bag, won, window=3)
    assert t.offset[0] == pytest.approx(30.0, abs=4.0)
    assert np.allclose(t.offset[1:4], 0.0, atol=2.5)
    assert t.positions[0] == (bag == 0).sum() and t.positions[1] == ((bag >= 1) & (bag <= 4)).sum()


def test_a_table_round_trips_and_bad_tables_are_refused():
    t = WinProbability(np.array([10.0, 5.0]), np.array([20.0, 40.0]), np.array([100, 90]))
    back = WinProbability.from_table(t.table())
    assert np.array_equal(back.offset, t.offset) and np.array_equal(back.scale, t.scale)
    assert back.p(0, 99) == t.p(0, 1) == pytest.approx(1 / (1 + np.exp(-5 / 40)))  # a bag past the table: its last row
    with pytest.raises(WinProbabilityError, match="no column 'scale'"):
        WinProbability.from_table({"bag": [0], "offset": [0.0], "positions": [1]})
    with pytest.raises(WinProbabilityError, match="not 0, 1, 2"):
        WinProbability.from_table({**t.table(), "bag": np.array([1, 0])})
    with pytest.raises(WinProbabilityError, match="no positions"):
        fit_win_probability([], [], [])


def test_the_built_table_reads_as_the_game(pack_en):
    """The English table from heuri2's self-play: a lead wins more often the fewer tiles are
    left, every curve rises with the spread, and the mover's edge at an even score is small."""
    t = WinProbability.of_pack(pack_en)
    if t is None:
        pytest.skip("build/en/win_probability.parquet is not built (snakemake --cores 2 en)")
    meta = json.loads((pack_en.root / "win_probability.json").read_text(encoding="utf-8"))
    assert meta["engine"] == "heuri2" and meta["positions"] > 20 * meta["games"]
    assert t.p(50, 0) > t.p(50, 40) > t.p(50, 80) > 0.5 > t.p(-50, 80) > t.p(-50, 40) > t.p(-50, 0)
    for b in range(len(t.offset)):
        assert t.scale[b] > 0 and np.all(np.diff(t.p(np.arange(-200, 201, 10), b)) > 0)
    assert all(0.4 < t.p(0, b) < 0.85 for b in range(len(t.offset)))


def test_the_race_on_the_chance_to_win(pack_en, midgame):
    """With ``win``, each rollout's points added to the spread become a chance to win with the
    bag the rollout leaves (opponent to move), and the race ranks by its mean."""
    if pack_en.win_probability_table is None:
        pytest.skip("build/en/win_probability.parquet is not built (snakemake --cores 2 en)")
    pos = midgame
    sim = Simulator(pack_en, candidates=3, seed=2, win=True)
    r = sim.engine.rank(pos)
    cand = Candidate(r.moves[0], float(r.v[0]), r.leaves[0])
    opp, order = sim.opponent_racks(pos.unseen())(7)
    value, left, over = sim._play_out(pos.board.letters, pos.board.blanks, pos.rack, cand, opp, order, pos.spec)
    me = pos.to_move
    spread = float(pos.scores[me] - pos.scores[1 - me])
    assert not over and 0 < left < pos.bag_size
    assert sim._win(spread + value, left, over) == pytest.approx(1 - WinProbability.of_pack(pack_en).p(-(spread + value), left))
    assert (sim._win(3.0, 0, True), sim._win(0.0, 0, True), sim._win(-1.0, 0, True)) == (1.0, 0.5, 0.0)
    res = Simulator(pack_en, candidates=3, seed=2, win=True).simulate(pos, seconds=None, iterations=4)
    assert all(len(c.wins) == len(c.values) for c in res.candidates)
    alive = [c for c in res.candidates if c.alive]
    assert res.best is alive[0].record and alive[0].win == max(c.win for c in alive)


def test_win_needs_the_table(tiny_pack):
    assert tiny_pack.win_probability_table is None and WinProbability.of_pack(tiny_pack) is None
    assert tiny_pack.win_probability_id is None
    with pytest.raises(SimulationError, match="no win-probability table: build it with snakemake"):
        Simulator(tiny_pack, win=True)
    with pytest.raises(EngineError, match="no win-probability table"):
        make_player("heuri-sim@win=1", tiny_pack)


def test_a_match_that_needs_the_table_says_so_before_it_starts(tiny_pack, tmp_path):
    """An engine that reads the win-probability table on a pack built without it is refused
    when the match reads the names, before the match's folder is made."""
    from heuri.play.match import run_match
    from heuri.play.players import check_pack_tables

    for name, what in (("heuri5@win_bag=3", "win_bag"), ("heuri-sim@win=1,seconds=0.1", "win=1")):
        with pytest.raises(EngineError, match=f"{what} needs the pack's win-probability table: build it with "
                                              "snakemake --cores 2 build/tiny/win_probability.parquet"):
            check_pack_tables(name, tiny_pack)
        with pytest.raises(EngineError, match="win-probability table: build it with snakemake --cores 2 "
                                              "build/tiny/win_probability.parquet"):
            make_player(name, tiny_pack)  # the player built without a match refuses too
        out = tmp_path / what
        with pytest.raises(EngineError, match="win-probability table"):
            run_match(str(tiny_pack.root), name, "greedy", games=2, out=out, progress=False)
        assert not out.exists()
    for name in ("heuri5", "heuri5@win_bag=0", "heuri-sim", "siu:anything"):
        check_pack_tables(name, tiny_pack)


# en, heuri5 self-play (seed 77, pair 3): six tiles in the bag, the mover trails by 58
TRAILING = ("15/15/6Q8/5KI8/4BI9/4UP9/4G1POZ6/3JOWED3AERO/4NOH1MACHREE/4G2RAX3B1/2UNSOLID3EA1/6IDE2YATE/"
            "ULCERiNG4NOM/3AA2eLVER1SI/FEISTIER6T AEIOSTY/ADFILNT 343/401 0")


def test_the_chance_to_win_of_each_candidate_by_hand(pack_en):
    """move_win_chances against the formula written out candidate by candidate: the bingo of
    the next turn (p, e/p) and its absence, each turned into a chance by the table with the
    opponent to move and the bag the move leaves (the table's offset changes with the bag,
    so a wrong bag would show)."""
    import math

    from heuri.eval.evaluate import make_evaluator
    from heuri.eval.win_probability import move_win_chances
    from heuri.game import Position

    pos = Position.from_cgp(TRAILING, pack_en.spec)
    assert pos.bag_size == 6
    r = make_evaluator(pack_en, "heuri5").rank(pos)
    t = WinProbability(10.0 + 2.0 * np.arange(7), np.full(7, 25.0), np.ones(7, np.int64))
    w = move_win_chances(t, -58.0, 6, r, 7, 10)
    c = sum(float(r.v[i] - r.j[i]) for i in range(10)) / 10

    def chance(spread, bag):  # ours, the opponent to move
        return 1 - 1 / (1 + math.exp(-(-spread + 10.0 + 2.0 * bag) / 25.0))

    for i in range(10):
        placed = 7 - int(r.leaves[i].sum()) if r.moves["kind"][i] == 0 else 0
        base = -58 + float(r.v[i]) - float(r.e[i]) - c
        p = float(r.p[i])
        bingo = float(r.e[i]) / p if p > 0 else 0.0
        want = p * chance(base + bingo, max(6 - placed, 0)) + (1 - p) * chance(base, max(6 - placed, 0))
        assert w[i] == pytest.approx(want, abs=1e-12)
    assert len({round(float(x), 6) for x in w}) == 10


def test_an_engine_with_win_bag_plays_the_likeliest_win(pack_en):
    """``heuri5@win_bag=N``: with 1 to N tiles in the bag the player plays the likeliest win
    among heuri5's first ten (of chances within WIN_TIE of the best, the better equity); above
    N, or with win_bag=0, heuri5's move. A table where the opponent to move with four tiles
    in the bag is far behind makes the two-tile IT (heuri5's fifth) the likeliest win."""
    from heuri.eval.evaluate import make_evaluator
    from heuri.eval.win_probability import move_win_chances
    from heuri.game import Position
    from heuri.move import Move
    from heuri.play.players import WIN_TIE

    if WinProbability.of_pack(pack_en) is None:
        pytest.skip("build/en/win_probability.parquet is not built (snakemake --cores 2 en)")
    pos = Position.from_cgp(TRAILING, pack_en.spec)
    r = make_evaluator(pack_en, "heuri5").rank(pos)
    top = Move.from_record(r.moves[0], pack_en.spec)
    player = make_player("heuri5@win_bag=6", pack_en)
    offset = np.array([15.0, 15.0, 15.0, 15.0, -60.0, 15.0, 15.0])
    player.win_table = WinProbability(offset, np.full(7, 25.0), np.ones(7, np.int64))
    w = move_win_chances(player.win_table, -58.0, 6, r, 7, 10)
    pick = min(i for i in range(10) if w[i] >= w.max() - WIN_TIE)
    assert pick == 4 and r.j[4] == 22 and int(r.leaves[4].sum()) == 5
    assert player.choose(pos) == Move.from_record(r.moves[4], pack_en.spec) != top
    assert player.info["win"] == pytest.approx(w[4])
    # IT's edge shrunk below WIN_TIE: a tie, and the better equity is played
    for off4 in np.linspace(15.0, -60.0, 751):
        offset[4] = off4
        player.win_table = WinProbability(offset.copy(), np.full(7, 25.0), np.ones(7, np.int64))
        w = move_win_chances(player.win_table, -58.0, 6, r, 7, 10)
        if int(np.argmax(w)) == 4:
            break
    assert 0 < w[4] - w[0] < WIN_TIE and player.choose(pos) == top
    assert make_player("heuri5@win_bag=5", pack_en).choose(pos) == top
    assert make_player("heuri5@win_bag=0", pack_en).choose(pos) == top
    for bad in ("heuri5@win_bag=2.5", "heuri5@win_bag=101", "heuri5@win_bag=-1"):
        with pytest.raises(EngineError, match="win_bag"):
            make_player(bad, pack_en)
