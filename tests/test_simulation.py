"""Simulation (heuri.search.simulation): one rollout against the game's own rules, the race's
budget, reproducibility, the heuri-sim player and SIU ``go sim``."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from heuri import load_pack
from heuri.core.game import Game
from heuri.core.move import Move
from heuri.eval.evaluate import make_evaluator
from heuri.play.players import EngineError, GreedyPlayer, check_engine, make_player
from heuri.search.simulation import Candidate, SimulationError, Simulator


@pytest.fixture(scope="module")
def en():
    return load_pack("en")


@pytest.fixture(scope="module")
def midgame(en):
    """A position after six heuri2 moves of seeded game 5 (English)."""
    g = Game(en.spec, seed=5, words=en.words)
    ev = make_evaluator(en, "heuri2")
    for _ in range(6):
        g.play(ev.choose(g.position))
    return g.position


def _rollout_by_the_rules(en, pos, table: bool, reply_leave: bool = False, draw_seed: int = 11):
    """One rollout of heuri5's best candidate in ``pos`` by the simulator (``table``: the fast
    rollout) and the same rollout rebuilt with Position.after and the greedy player (with
    ``reply_leave``: heuri2's ranking with the race's unseen tiles): ``(got, s0, s1, p2)``,
    p2 the position two plies on; ``draw_seed``: the opponent's rack and the bag's order."""
    spec = en.spec
    sim = Simulator(en, candidates=3, seed=0, table=table, reply_leave=reply_leave)
    r = sim.engine.rank(pos)
    cand = Candidate(r.moves[0], float(r.v[0]), r.leaves[0])
    rng = np.random.default_rng(draw_seed)
    unseen = pos.unseen()
    perm = rng.permutation(np.repeat(np.arange(spec.n_kinds), unseen))
    opp = np.bincount(perm[:7], minlength=spec.n_kinds).astype(np.int64)
    order = perm[7:]
    if table:
        from heuri.eval.leave_values import LeaveValues

        sim.leave_values = LeaveValues(en, unseen, sim.policy._septets, sim.policy._val, pos.bag_size)
    got = sim._rollout(pos.board.letters, pos.board.blanks, pos.rack, unseen, pos.bag_size, cand, opp, order, spec)

    # the same rollout through the game's own rules
    move = Move.from_record(cand.record, spec)
    keep = pos.rack - move.rack_counts(spec)
    k0 = 7 - int(keep.sum())
    racks = list(pos.racks)
    other = 1 - pos.to_move
    racks[other] = opp
    bag = np.bincount(order, minlength=spec.n_kinds).astype(np.int64)
    p0 = pos.__class__(spec, pos.board, tuple(racks), pos.scores, bag, pos.to_move)
    p1 = p0.after(move, [int(t) for t in order[:k0]], words=en.words)
    if reply_leave:
        b = p1.board
        r1 = make_evaluator(en, "heuri2").rank_arrays(b.letters, b.blanks, p1.rack, pos.unseen(), p1.bag_size,
                                                      rules=spec)
        reply = Move.from_record(r1.moves[0], spec)
    else:
        reply = GreedyPlayer(en).choose(p1)
    s1 = p1.check(reply, en.words)
    k1 = int(reply.rack_counts(spec).sum())
    p2 = p1.after(reply, [int(t) for t in order[k0:k0 + k1]], words=en.words)
    return got, float(cand.record["score"]), s1, p2


def test_one_rollout_is_the_score_minus_the_reply_plus_our_next_value(en, midgame):
    """s0 − s1 + v2, rebuilt with Position.after, the greedy player and heuri2's ranking."""
    got, s0, s1, p2 = _rollout_by_the_rules(en, midgame, table=False)
    v2 = float(make_evaluator(en, "heuri2").rank(p2).v[0])
    assert got == pytest.approx(s0 - s1 + v2, abs=1e-9)


def test_a_fast_rollout_values_our_next_move_with_the_races_unseen_tiles(en, midgame):
    """``table``: the same s0 − s1, and v2 as heuri2's ranking two plies on when its unseen
    tiles are those of the position raced (the table's approximation) and the bag is the
    rollout's."""
    got, s0, s1, p2 = _rollout_by_the_rules(en, midgame, table=True)
    b = p2.board
    v2 = float(make_evaluator(en, "heuri2").rank_arrays(b.letters, b.blanks, p2.rack, midgame.unseen(),
                                                        p2.bag_size, rules=en.spec).v[0])
    assert v2 > 0
    assert got == pytest.approx(s0 - s1 + v2, abs=1e-9)
    exact = float(make_evaluator(en, "heuri2").rank(p2).v[0])
    assert got != pytest.approx(s0 - s1 + exact, abs=1e-9)  # the rollout's own unseen tiles differ
    with pytest.raises(SimulationError, match="policy 'heuri5'"):
        Simulator(en, table=True, policy="heuri5")


def test_a_fast_rollout_with_a_leave_keeping_reply(en, midgame):
    """``reply_leave``: the opponent replies with heuri2's choice on the race's unseen tiles
    (their best score + e(L)), here not their top score, and the rest is the fast rollout."""
    got, s0, s1, p2 = _rollout_by_the_rules(en, midgame, table=True, reply_leave=True, draw_seed=14)
    _, _, greedy_s1, _ = _rollout_by_the_rules(en, midgame, table=True, draw_seed=14)
    assert (s1, greedy_s1) == (32, 47)  # they keep a better leave for fewer points
    b = p2.board
    v2 = float(make_evaluator(en, "heuri2").rank_arrays(b.letters, b.blanks, p2.rack, midgame.unseen(),
                                                        p2.bag_size, rules=en.spec).v[0])
    assert got == pytest.approx(s0 - s1 + v2, abs=1e-9)
    with pytest.raises(SimulationError, match="give table"):
        Simulator(en, reply_leave=True)


def test_a_stop_before_the_race_answers_the_static_best(en, midgame):
    """A stop heard after the static ranking, or while the fast rollout's leave table is being
    built, ends the race before any rollout: the engine's best move answers. A stop heard
    later in the table's build (after some of its slices) makes no table."""
    from heuri.eval.leave_values import BuildStopped, LeaveValues

    top = make_evaluator(en, "heuri5").rank(midgame).moves[0]

    def ranked_then(sim, stop):
        """``sim`` with a ``should_stop`` that says False until its ranking is done, then
        asks ``stop``."""
        done = []
        rank = sim.engine.rank

        def ranking(pos, **kw):
            r = rank(pos, **kw)
            done.append(1)
            return r

        sim.engine.rank = ranking
        return sim, lambda: bool(done) and stop()

    for table in (False, True):
        sim, stop = ranked_then(Simulator(en, candidates=4, table=table), lambda: True)
        res = sim.simulate(midgame, seconds=None, should_stop=stop)
        assert res.stopped_by == "stop" and res.rollouts == 0 and res.best == top
    calls = []

    def late():  # the poll after the ranking, then three slices of the table's build, then stop
        calls.append(1)
        return len(calls) > 4

    sim, stop = ranked_then(Simulator(en, candidates=4, table=True), late)
    res = sim.simulate(midgame, seconds=None, should_stop=stop)
    assert res.stopped_by == "stop" and res.rollouts == 0 and sim.leave_values is None and len(calls) == 5
    h2 = make_evaluator(en, "heuri2")
    with pytest.raises(BuildStopped):
        LeaveValues(en, midgame.unseen(), h2._septets, h2._val, midgame.bag_size, should_stop=lambda: True)
    # polled or not, the table is the same
    whole = LeaveValues(en, midgame.unseen(), h2._septets, h2._val, midgame.bag_size)
    sliced = LeaveValues(en, midgame.unseen(), h2._septets, h2._val, midgame.bag_size, should_stop=lambda: False)
    assert np.allclose(whole.e, sliced.e, rtol=1e-12, atol=1e-12) and whole.e.max() > 0


def test_a_stopped_ranking_keeps_what_it_re_valued(en, midgame):
    """heuri5's ranking polls ``should_stop`` before each re-valuation on the board after the
    move: stopped after three polls, exactly three placements carry the value of the complete
    ranking and every other placement its current-board value (the ranking stopped at once),
    in decreasing order of the value shown; a stop never heard changes nothing."""
    ev = make_evaluator(en, "heuri5")
    full = ev.rank(midgame)
    n_full = ev.last_revalued
    at_once = ev.rank(midgame, should_stop=lambda: True)
    assert ev.last_revalued == 0 and not at_once.revalued[at_once.moves["kind"] == 0].any()
    polls = []

    def third():
        polls.append(1)
        return len(polls) > 3

    part = ev.rank(midgame, should_stop=third)
    assert n_full > 3 and ev.last_revalued == 3 and int(part.revalued[part.moves["kind"] == 0].sum()) == 3

    def key(r):  # a record's fields (its padding bytes are not part of it)
        return tuple(r[f].tobytes() if r[f].ndim else r[f].item() for f in r.dtype.names)

    v_full = {key(r): v for r, v in zip(full.moves, full.v)}
    v_once = {key(r): v for r, v in zip(at_once.moves, at_once.v)}
    moved = 0
    for r, v, rev in zip(part.moves, part.v, part.revalued):
        want = v_full[key(r)] if rev or r["kind"] != 0 else v_once[key(r)]
        assert v == want
        moved += bool(rev and r["kind"] == 0 and v != v_once[key(r)])
    assert moved == 3 and (np.diff(part.v) <= 0).all()
    never = ev.rank(midgame, should_stop=lambda: False)
    assert ev.last_revalued == n_full and (never.moves == full.moves).all() and (never.v == full.v).all()


def test_a_rack_with_two_blanks_leaves_the_race_half_its_clock(en, monkeypatch):
    """On an open board a rack with two blanks has thousands of placements to re-value (about
    12 s of heuri5's complete ranking for AEIRS?? on the empty board): the race's ranking
    stops at half of its clock, and the race plays in the other half. The clock is a fake
    that moves 10 ms a reading, so the count is the same on any machine."""
    import types

    import heuri.search.simulation as simulation
    from heuri.core.game import Position

    now = [0.0]

    def tick():
        now[0] += 0.01
        return now[0]

    monkeypatch.setattr(simulation, "time", types.SimpleNamespace(perf_counter=tick))
    pos = Position.from_cgp("/".join(["15"] * 15) + " AEIRS??/ 0/0 0", en.spec)
    sim = Simulator(en, candidates=4, seed=1)
    res = sim.simulate(pos, seconds=1.0)
    # 1 s is 100 readings: at most 50 of them in the ranking, one a re-valuation
    assert 0 < sim.engine.last_revalued < 50
    # the race's two rounds in the other half, and the answer at the clock
    assert res.rounds == 2 and res.rollouts > 0 and res.best["kind"] == 0 and 1.0 <= res.seconds < 1.05


def test_race_budget_and_reproducibility(en, midgame):
    a = Simulator(en, candidates=4, seed=3).simulate(midgame, seconds=None, iterations=4)
    b = Simulator(en, candidates=4, seed=3).simulate(midgame, seconds=None, iterations=4)
    assert a.stopped_by == "done" and a.rounds == 2
    # 4 candidates x 2 rollouts, then the better 2 reach 4 rollouts
    assert sorted(c.n for c in a.candidates) == [2, 2, 4, 4] and a.rollouts == 12
    assert [c.values for c in a.candidates] == [c.values for c in b.candidates]
    survivors = [c for c in a.candidates if c.alive]
    assert len(survivors) == 2 and a.best is survivors[0].record
    assert survivors[0].mean >= survivors[1].mean
    with pytest.raises(SimulationError, match="positive number of seconds"):
        Simulator(en, candidates=2).simulate(midgame, seconds=0)
    with pytest.raises(SimulationError, match="iterations 0"):
        Simulator(en, candidates=2).simulate(midgame, seconds=None, iterations=0)


def test_heuri_sim_player_names(en, midgame):
    assert check_engine("heuri-sim@seconds=0.2,candidates=3") == "heuri-sim@seconds=0.2,candidates=3"
    with pytest.raises(EngineError, match="heuri-sim takes seconds"):
        check_engine("heuri-sim@depth=2")
    with pytest.raises(EngineError, match="seconds"):
        check_engine("heuri-sim@seconds=0")
    p = make_player("heuri-sim@seconds=0.3,candidates=3", en)
    move = p.choose(midgame)
    assert p.info["sim"] and p.info["rollouts"] >= 3
    midgame.check(move, en.words)  # legal
    # table=2: the fast rollout with the opponent keeping a leave
    p = make_player("heuri-sim@iterations=2,candidates=2,table=2", en)
    assert p.sim.table and p.sim.reply_leave
    midgame.check(p.choose(midgame), en.words)
    assert p.result.rollouts == 4
    assert not make_player("heuri-sim@table=1", en).sim.reply_leave
    with pytest.raises(EngineError, match="table 3: out of range; give from 0 to 2"):
        check_engine("heuri-sim@table=3")
    with pytest.raises(EngineError, match="table=1.5: give 0, 1 or 2"):
        check_engine("heuri-sim@table=1.5")


def test_siu_go_sim():
    empty = "/".join(["15"] * 15)
    # the infinite go is sent once the first has answered: a stop ends every go sent before it
    proc = subprocess.Popen([sys.executable, "-m", "heuri", "siu", "--lang", "en"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    proc.stdin.write("\n".join(["siu", "isready", f"position cgp {empty} AEINRST/ 0/0 0",
                                     "go sim iterations 2 movetime -5"]) + "\n")
    proc.stdin.flush()
    first = []
    for line in proc.stdout:
        first.append(line)
        if line.startswith("bestmove "):
            break
    out, _ = proc.communicate("go sim infinite\nstop\nquit\n", timeout=300)
    r = subprocess.CompletedProcess(proc.args, proc.returncode, stdout="".join(first) + out)
    lines = r.stdout.splitlines()
    assert any(s.startswith("capability ") and " sim " in s for s in lines)
    best = [s for s in lines if s.startswith("bestmove ")]
    assert len(best) == 2
    # a negative time: one error line, then the race runs on its iterations
    assert [s for s in lines if s.startswith("info string error")] == [
        "info string error bad-parameter movetime -5: at least 1; searching without it"]
    sims = [s.split() for s in lines if s.startswith("info sim move ")]
    assert sims and all(s[4] == "eq" and s[6] == "se" and s[8] == "iterations" for s in sims)
    # a candidate not rolled out yet has no mean: eq -, never -inf
    assert all((s[5] == "-") == (s[9] == "0") for s in sims) and all(s[5] != "-inf" for s in sims)
    assert "info string sim" in r.stdout and "stopped by done" in r.stdout
    first = best[0].split()[1]
    assert any(s[3] == first for s in sims)
    assert not any("win" in s for s in sims)  # points: no chance to win


def test_siu_go_sim_on_the_chance_to_win(en):
    """``setoption name SimValue value win``: the race on the chance to win, each info line
    with ``win`` (percent)."""
    from heuri.eval.win_probability import WinProbability

    if WinProbability.of_pack(en) is None:
        pytest.skip("build/en/win_probability.parquet is not built (snakemake --cores 2 en)")
    mid = "/".join(["15"] * 7 + ["4CAT8"] + ["15"] * 7)
    script = "\n".join(["siu", "setoption name SimValue value win", "isready",
                        f"position cgp {mid} AEINRST/ 0/10 0", "go sim iterations 2", "quit"]) + "\n"
    r = subprocess.run([sys.executable, "-m", "heuri", "siu", "--lang", "en"], input=script, capture_output=True,
                       text=True, timeout=300)
    sims = [s.split() for s in r.stdout.splitlines() if s.startswith("info sim move ")]
    assert sims and all(s[12] == "win" and 0 <= float(s[13]) <= 100 for s in sims), r.stdout
    assert sum(s.startswith("bestmove ") for s in r.stdout.splitlines()) == 1
    # the provenance names the table the race read, as the pipeline described it
    import json

    d = json.loads((en.root / "win_probability.json").read_text())
    want = f"winpct=en:{d['engine']}-selfplay-{d['games']}@{d['seed']} "
    assert en.win_probability_id == want[7:-1]
    prov = [s for s in r.stdout.splitlines() if s.startswith("info string provenance ")]
    assert len(prov) == 1 and want in prov[0], prov


def test_best_think_ranks_the_race(en, midgame, capsys):
    """``heuri best --think``: the engine's best ``--candidates`` moves, each with its
    rollouts; those still in the race first, by mean; ``static`` is the engine's equity of
    that move."""
    import json

    from heuri.apps.cli import main

    cgp = midgame.cgp()
    assert main(["best", "--lang", "en", "--cgp", cgp, "--think", "1s", "--candidates", "4", "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == 4 and all(r["rollouts"] >= 1 for r in rows)
    alive = [r for r in rows if r["alive"]]
    assert alive and rows[:len(alive)] == alive
    assert [r["mean"] for r in alive] == sorted((r["mean"] for r in alive), reverse=True)
    ranking = make_evaluator(en, "heuri5").rank(midgame)
    static = {Move.from_record(ranking.moves[i], en.spec).gcg(en.spec): float(ranking.v[i]) for i in range(4)}
    assert {r["move"]: r["static"] for r in rows} == pytest.approx(static, abs=1e-3)
    # the fast rollout: the same columns, the same static values
    assert main(["best", "--lang", "en", "--cgp", cgp, "--think", "1s", "--candidates", "4", "--rollout", "fast",
                 "--json"]) == 0
    full = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert {r["move"]: r["static"] for r in full} == pytest.approx(static, abs=1e-3)
    # bad input: one line naming the option, exit 2
    for bad in ("0", "-1", "abc", "4000s"):
        with pytest.raises(SystemExit) as e:
            main(["best", "--lang", "en", "--cgp", cgp, "--think", bad])
        assert e.value.code == 2
        assert "--think" in capsys.readouterr().err


def _point_mass(leave: np.ndarray):
    """A LeaveInference sure of one leave (count vector)."""
    from heuri.search.inference import LeaveInference

    lv = np.asarray([leave], np.uint8)
    return LeaveInference(lv, np.array([1.0]), np.array([1.0]), True, 0, 1, int(leave.sum()), 6.0, "test")


def test_opponent_racks_keep_the_inferred_leave(en, midgame):
    """With an inference, every round's opponent rack holds a leave of its posterior and the
    rest comes from the other unseen tiles: the rack and the bag's order together are the
    unseen tiles, tile for tile."""
    spec = en.spec
    unseen = midgame.unseen()
    leave = np.zeros(spec.n_kinds, np.int64)
    for t in np.flatnonzero(unseen)[:3]:  # three kinds the opponent may hold
        leave[t] += 1
    draw = Simulator(en, seed=1).opponent_racks(unseen, _point_mass(leave))
    for _ in range(50):
        rack, order = draw(7)
        assert int(rack.sum()) == 7 and np.all(rack >= leave)
        assert np.array_equal(rack + np.bincount(order, minlength=spec.n_kinds), unseen)
    # a leave the unseen tiles cannot hold (an inference of another position): the uniform draw
    impossible = unseen + 1
    racks = [Simulator(en, seed=s).opponent_racks(unseen, _point_mass(impossible))(7)[0] for s in range(3)]
    uniform = [Simulator(en, seed=s).opponent_racks(unseen)(7)[0] for s in range(3)]
    assert all(np.array_equal(a, b) for a, b in zip(racks, uniform))


def test_heuri_sim_infers_from_the_move_it_was_told_of(en):
    """heuri-sim@infer=1 told of the opponent's move infers from it (and the simulation draws
    from the posterior); told of a move that does not lead to the position it answers, it
    does not."""
    g = Game(en.spec, seed=5, words=en.words)
    ev = make_evaluator(en, "heuri2")
    for _ in range(5):
        g.play(ev.choose(g.position))
    before = g.position
    move = ev.choose(before)
    g.play(move)
    after = g.position
    p = make_player("heuri-sim@seconds=0.4,candidates=3,infer=1", en)
    p.observe(before, move)
    g.position.check(p.choose(g.position), en.words)
    assert p.info["inferred"] is True and p.info["rollouts"] >= 3
    p.observe(before, move)
    g.play(ev.choose(g.position))  # another move came between: that inference is not this position's
    p.choose(g.position)
    assert p.info["inferred"] is False
    # infer=2: the leave-table model (here every one-tile leave the move could have kept)
    p2 = make_player("heuri-sim@iterations=2,candidates=3,infer=2", en)
    p2.observe(before, move)
    inf = p2._inference(after)
    assert inf.engine == "leavemodel" and inf.exact and inf.leave_size == 1 and len(inf.leaves) == inf.evaluated
    with pytest.raises(EngineError, match="infer=0.5: give 0, 1 or 2"):
        check_engine("heuri-sim@infer=0.5")


def test_threads_play_the_same_race(en, midgame):
    """With an iteration budget, two threads give the race of one, value for value: each
    thread plays its own draw and the values are taken in the draws' order."""
    one = Simulator(en, candidates=4, seed=5).simulate(midgame, seconds=None, iterations=6)
    import threading

    with Simulator(en, candidates=4, seed=5, threads=2) as sim:
        two = sim.simulate(midgame, seconds=None, iterations=6)
        pool = [t for t in threading.enumerate() if t.name.startswith("heuri-sim")]
        assert pool
    assert one.rollouts == two.rollouts > 0
    assert [c.values for c in one.candidates] == [c.values for c in two.candidates]
    assert one.best is not None and (one.best == two.best)
    # closed: its threads have ended; used again, it starts them again and plays the same race
    assert not any(t.is_alive() for t in pool)
    sim.rng = np.random.default_rng(5)
    again = sim.simulate(midgame, seconds=None, iterations=6)
    assert [c.values for c in again.candidates] == [c.values for c in one.candidates]
    sim.close()
    # an SIU session's setoption drops the simulators made for the old options and ends their threads
    from heuri.play.siu.backend import HeuriBackend

    backend = HeuriBackend("en")
    with Simulator(en, candidates=4, seed=5, threads=2) as kept:
        kept.simulate(midgame, seconds=None, iterations=6)
        backend._players[("sim",)] = kept
        assert kept._executor is not None
        backend.set_option("Threads", "1")
        assert kept._executor is None and not backend._players
    with pytest.raises(SimulationError, match="threads 0"):
        Simulator(en, threads=0)
    with pytest.raises(EngineError, match="threads=1.5: give a whole number"):
        check_engine("heuri-sim@threads=1.5")


def test_a_prior_draws_the_means_towards_the_static_values(en):
    """prior=10 with 10 rollouts each: half the way from the static value (shifted by the
    candidates' common difference) to the rollouts' mean, computed by hand."""
    rec = np.zeros(1, dtype=[("score", "i4")])[0]
    a = Candidate(rec, 30.0, np.zeros(1), values=[40.0] * 10)
    b = Candidate(rec, 20.0, np.zeros(1), values=[60.0] * 10)
    # shift = mean(40 - 30, 60 - 20) = 25; a: 30 + 25 + 0.5 (40 - 30 - 25), b: 20 + 25 + 0.5 (60 - 20 - 25)
    key = Simulator(en, prior=10)._ranker([a, b])
    assert (key(a), key(b)) == (47.5, 52.5)
    assert Simulator(en)._ranker([a, b])(a) == 40.0  # no prior: the rollouts alone
    strong = Simulator(en, prior=1e6)._ranker([a, b])
    assert strong(a) > strong(b)  # almost all weight on the static values: their order
    with pytest.raises(SimulationError, match="does not combine with win"):
        Simulator(en, prior=5, win=True)


def test_an_iteration_budget_makes_the_move_a_function_of_the_position(en, midgame):
    """``heuri-sim@iterations=4,candidates=3``: 3 candidates x 2 rollouts, then the better 2
    reach 4 (10 rollouts); a player that has already simulated another position answers
    this one with the same race (the draws are seeded by the position, not by the past)."""
    name = "heuri-sim@iterations=4,candidates=3"
    fresh = make_player(name, en)
    used = make_player(name, en)
    g = Game(en.spec, seed=9, words=en.words)
    used.choose(g.position)  # another position first: its draws must not shift this one's
    a, b = fresh.choose(midgame), used.choose(midgame)
    assert a == b and fresh.info["rollouts"] == used.info["rollouts"] == 10
    assert [c.values for c in fresh.result.candidates] == [c.values for c in used.result.candidates]
    midgame.check(a, en.words)
    for bad, why in (("iterations=0", "give from 1 to 100,000"), ("iterations=2.5", "give a whole number")):
        with pytest.raises(EngineError, match=why):
            check_engine(f"heuri-sim@{bad}")


def test_an_included_move_races_to_the_end(en, midgame):
    """``include``: the engine's 10th move joins its 4 best (5 candidates: 3 rounds) and the
    2nd, already a candidate, is pinned there; each reaches the full 4 rollouts whatever its
    mean, valued statically as the ranking values it. A move off the board is refused."""
    sim = Simulator(en, candidates=4, seed=3)
    r = sim.engine.rank(midgame)
    res = sim.simulate(midgame, seconds=None, iterations=4, include=r.moves[9])
    assert len(res.candidates) == 5 and res.rounds == 3
    (mine,) = [c for c in res.candidates if c.pinned]
    assert mine.n == 4 and mine.alive and mine.static == pytest.approx(r.v[9])
    assert sum(c.alive for c in res.candidates) == 3  # 5 -> 3 -> 2 survivors, and the pinned one
    res = sim.simulate(midgame, seconds=None, iterations=4, include=r.moves[1])
    assert len(res.candidates) == 4
    (mine,) = [c for c in res.candidates if c.pinned]
    assert mine.n == 4 and mine.static == pytest.approx(r.v[1])
    bad = r.moves[0].copy()
    bad["row"] = (bad["row"] + 7) % 15
    with pytest.raises(SimulationError, match="not a legal move"):
        sim.simulate(midgame, seconds=None, iterations=4, include=bad)
