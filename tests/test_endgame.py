"""Exact endgame solver (heuri.endgame) on real English and Spanish endgames (bag empty,
both racks known), checked against an independent brute-force minimax: every move and reply
from the move generator, positions advanced with Position.after (which applies the
end-of-game rules itself: the going-out bonus of the pack's end rule, the scoreless-turn
limit and its rack penalties), no pruning, no width limit, no horizon.

The positions come from seeded greedy-vs-greedy games (seeds in the comments), played
until the bag was empty and both racks held at most 3 tiles (so the brute force can search
every line)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from heuri.errors import CgpError

from heuri.endgame import EndgameError, EndgameSearch
from heuri.game import Game, Position
from heuri.move import Move, Pass
from heuri.players import GreedyPlayer, make_player

# seed 21: NO to move against A. Greedy plays 1A O. for 15 and is stuck with the N; going
# out with 11H ON (13 + 2×1 for the opponent's A) is worth 15 to the end.
NO_VS_A = ("1F1R3U7/1AZO3PAX5/1TIN3T7/2TID2I6C/3OO1RE2NAGGY/3NOPE7C/4MAG7A/3RELIaNT2B1s/4DAE5R1I/"
           "5V5DOWN/5E4LOWE1/3K1REBATOES2/2SUQ1MIHI2IF1/3TIVY5EA1/JEHUS1DUELLERS1 NO/A 395/446 0")
# seed 4: NPS against O. Greedy C1 ..PS scores 12 but keeps the N; 14F SN.P (8) goes out (+2).
NPS_VS_O = ("EEL1NURRS6/FLIXED9/5ORACLING2/8H2OO2/7ZATIS3/1JAW2FAW6/2BAH1L1KYRIE2/3GENII3DAGO/2Y1RUC8/"
            "1VIVO2ABETTeD1/2P1EUOI1TEETER/2E2MeDIANT2O/2S4M6Q/7A6U/7N6E NPS/O 340/389 0")
# seed 7: IO against R: J1 O.. and N7 IO both score 6; only N7 IO goes out.
IO_VS_R = ("3BEANS3JARS/QI3LATEWOOD2/1NUKE3TEIID2/2HARDLY3N3/7EPICS3/1COG1VEX7/2BEGAN3F4/3LINEAR1U3M/"
           "5TWAE1T3I/8FIZzERS/10E3P/6UG2DO2A/6MY3A2I/7VOLUTiON/7E2RHO1T IO/R 516/433 0")
# seeds 17, 8, 12, 15
IRU_VS_O = ("7AR2ZITE/7TI1BO1O1/7UT1OE1G1/6DAE1NA1G1/6I3I2L1/5JET1FENNEC/6BOHO3DO/SILVAN1DEX1L2W/"
            "4NAVY2MA1TI/3REP3FAT1RE/9YU2AR/10G2M1/7SPaRKIES/4CHOU1WEE1L1/7QINDArS1 IRU/O 364/431 0")
P_VS_I = ("4FOMITE1FUSE/1GYRED3QUINOL/2OES4U1CIG1/ZINC5A1I3/9TAN3/9ER4/10N3L/7DEWAX1DO/8A1T1JAB/"
          "2E5S1T1AHI/2VILAYET1OHm1N/2I5L2Ob1G/2T3BRAW1KOP1/2E5N2USER/3VORRED2M1AE P/I 439/369 0")
U_VS_EE = ("13DE/2G7K2UR/1NO7A1GNU/1aW7OHO1V/1ID7NALAS/1FER5Q1WEM1/2RE2ATTAP1MAX/3N2NAUTICS1I/3D2YEP2I3/"
           "3I7C3/3B1VERIFIER2/D2L7LI2/INGESTA1JO1YO2/T4OBEAH2T2/Z5ORiOLES2 U/EE 376/508 0")
I_VS_IN = ("G2J3U6L/EF1E1Q1R5PO/TARAMA1o3DEEV/UR1TAT1SUNbATHE/PA2D2T1YOB2R/1DEADBOYS5S/4I2LI6/3UNREEL6/"
           "4GI2V6/2W2Z1HEW5/1NINE2OXO5/2COMICS1N4F/2K4I1GOOLIE/7E1A4A/7R6T I/IN 312/455 0")
# (NPS_VS_O is left out of the brute-force list: its full tree takes ~20 s in plain Python)
SMALL = [NO_VS_A, IO_VS_R, IRU_VS_O, P_VS_I, U_VS_EE, I_VS_IN]


def exact_value(pack, pos, memo):
    """Brute-force minimax: the best spread the player to move can add to the end."""
    key = (pos.board.letters.tobytes(), pos.board.blanks.tobytes(), pos.racks[0].tobytes(),
           pos.racks[1].tobytes(), pos.scoreless, pos.to_move)
    if key not in memo:
        recs = pos.moves(pack, exchanges=False)
        moves = [Move.from_record(r, pack.spec) for r in recs[recs["kind"] == 0]] + [Pass()]
        memo[key] = max(move_value(pack, pos, mv, memo) for mv in moves)
    return memo[key]


def move_value(pack, pos, mv, memo):
    """Spread ``mv`` adds to the end of the game against the best replies (brute force)."""
    m, o = pos.to_move, 1 - pos.to_move
    ch = pos.after(mv)
    gain = (ch.scores[m] - pos.scores[m]) - (ch.scores[o] - pos.scores[o])
    return gain if ch.over else gain - exact_value(pack, ch, memo)


# Spanish (FISE rules: end rule "transfer", six scoreless turns), seeds of es greedy games
ES_SMALL = {
    # seed 11: QRT against [RR]S; both end stuck: the line ends on six scoreless turns
    "QRT-RRS": "12GAG/13ÑO/9MAYEAR/10CEA1D/10O3A/7BRO[LL]E1P1/4TAJEE1O1CUS/5HUF2N2TE/7EMPA[CH]OSA/1H7IRIa2/"
               "1i1LUX1ID1ET3/LEIA3CIANES2/1D1SUIZON5V/BE3DAN1DOLOSA/UN4ROCE4L QRT/[RR]S 364/374 0",
    # seed 25: the Q cannot be played anywhere (stuck); DDT goes out in three moves
    "Q-DDT": "7LIROFORO/13U1/11GRI[LL]/5T7N1/4ME1PADECIO1/D3AX2BAH2s1/E3C1Z1I4OA/S1AMAGUES5L/VAHEN1[RR]1OC4A/"
             "EJE1D1E2R3PU/N3o1E2I3OI/T3N1S2B3LE/U4Ñ2LO2SES/R3CAU[CH]ASTE1N1/A6AYO5 Q/DDT 524/391 0",
    # seed 55: EU cannot play; R plays through and the E/U stay stuck
    "R-EU": "O14/YA13/ET13/1R2G10/NON1UN9/1P1CAID7P/LOTO2AD4D1A/U1A[CH]ANTES2QUID/L1COJEE1O3Z1R/O2[RR]1C2L4Ge/"
            "3OXEO1Ea3R1/3SEA2TI1LEI1/2B1C2DIRHEMS1/1FAÑA3[LL]E1VEAN/2HUSMABAS1S2I R/EU 364/352 0",
    "OU-Q": "14G/12G1U/11DI1I/3CUBEBA2AREL/PE[CH]AN3PINZARA/1TER1MOHIN1ALI1/12DOM/7VELi[LL]A1E/N3F1TEX1DES1J/"
            "EH1CECEO2UN1TO/vETA[RR]AS3SOÑAR/AR2Y6SOLO/DI10CU1/OS10AD1/S14 OU/Q 399/419 0",
    "LO-D": "3C8P2/1P1L8[CH]A1/MUÑI8EX1/EN1C9I1/DI2A5A2L1/OC2B5S1LA1/1AH1R1FAUTORA2/2ADORAR2SOGUn/2C1N5I1A2/"
            "1DE1Q5E1R2/YIN1u2M2G1E2/1S1DESHUESO1ET1/1TOEN2E4SU1/JO5VEZ3[RR]1/O6ATABI[LL]EN LO/D 340/457 0",
    "QR-D": "DUHO3[LL]E4BE/1mUCA2ET3PUT/1JE5M1P1R2/CUCAD1A[RR]OGARES1/I1OH4I1R1Vi1/C2UFO2D1T1IR1/L1EMANE1E1I2O1/"
            "A1TEXANAS1D2SO/3NE9B/1L2AÑO7O/1E[CH]AN1SANGLEY1L/1I12O/SAZ12/1I13/1S13 QR/D 340/465 0",
}


@pytest.fixture(scope="module")
def exact_search(pack_en):
    return EndgameSearch(pack_en, max_nodes=200_000, max_generations=20_000)


def replay_pv(pack, pos, pv):
    """Play a principal variation with Position.after (the rules' own end of game) and
    return (spread gained by the player to move, game over at its end)."""
    m, o = pos.to_move, 1 - pos.to_move
    p = pos
    for mv in pv:
        p = p.after(mv, words=pack.words)
    return (p.scores[m] - pos.scores[m]) - (p.scores[o] - pos.scores[o]), p.over


def test_out_play_beats_greedy_top_score(pack_en, exact_search):
    spec = pack_en.spec
    pos = Position.from_cgp(NO_VS_A, spec)
    greedy = GreedyPlayer(pack_en).choose(pos)
    assert greedy.gcg(spec) == "1A O." and pos.board.score(greedy) == 15
    r = exact_search.search(pos)
    assert r.move.gcg(spec) == "11H ON" and pos.board.score(r.move) == 13
    # 13 for ON, then the end bonus: twice the A (1 point) under the English "double" rule
    assert (r.value, r.exact, r.final_spread) == (15, True, 395 - 446 + 15)
    memo = {}
    assert move_value(pack_en, pos, r.move, memo) == 15
    assert move_value(pack_en, pos, greedy, memo) == 4  # stuck with the N: the A goes out
    # a width-limited search finds it too, and a heuri player with the search plays it,
    # while the same player without the search plays greedily
    assert EndgameSearch(pack_en, width=12).search(pos).move == r.move
    assert make_player("heuri2", pack_en).choose(pos) == r.move
    assert make_player("heuri2-noend", pack_en).choose(pos).gcg(spec) == "1A O."


def test_second_out_play(pack_en, exact_search):
    spec = pack_en.spec
    pos = Position.from_cgp(NPS_VS_O, spec)
    assert GreedyPlayer(pack_en).choose(pos).gcg(spec) == "C1 ..PS"
    r = exact_search.search(pos)
    assert (r.move.gcg(spec), r.value, r.exact) == ("14F SN.P", 8 + 2 * 1, True)
    assert [m.gcg(spec) for m in r.pv] == ["14F SN.P"]


@pytest.mark.parametrize("cgp", SMALL, ids=["NO-A", "IO-R", "IRU-O", "P-I", "U-EE", "I-IN"])
def test_exact_search_equals_brute_force_and_beats_greedy(pack_en, exact_search, cgp):
    pos = Position.from_cgp(cgp, pack_en.spec)
    memo = {}
    best = exact_value(pack_en, pos, memo)
    r = exact_search.search(pos)
    assert r.exact and r.value == best
    assert move_value(pack_en, pos, r.move, memo) == best
    assert replay_pv(pack_en, pos, r.pv) == (best, True)
    # a width-limited search is never worse than greedy here
    d = EndgameSearch(pack_en, width=12).search(pos)
    g = GreedyPlayer(pack_en).choose(pos)
    assert move_value(pack_en, pos, d.move, memo) >= move_value(pack_en, pos, g, memo)


def test_full_rack_endgame_within_limits_and_deterministic(pack_en):
    """A real endgame with full racks (seed 0, greedy until the bag is empty): the search
    stays within its limits, and the same position gives the same answer."""
    spec = pack_en.spec
    g = GreedyPlayer(pack_en)
    game = Game(spec, seed=0)
    while game.position.bag_size > 0:
        game.play(g.choose(game.position))
    pos = game.position
    es = EndgameSearch(pack_en, max_generations=300, max_nodes=5000)
    a, b = es.search(pos), es.search(pos)
    assert a is not None and a.generations <= 300 and a.nodes <= 5000
    assert (a.move, a.value, a.depth, a.exact) == (b.move, b.value, b.depth, b.exact)
    # 14 tiles on the racks do not fit 300 generations: the result says it is not exact
    assert not a.exact and a.stopped
    pos.check(a.move, pack_en.words)  # legal, real words
    # with no budget the search gives up and the player falls back to greedy
    assert EndgameSearch(pack_en, max_nodes=0).search(pos) is None
    p = make_player("heuri3", pack_en, {"max_nodes": 0})
    assert p.choose(pos) == g.choose(pos) and p.info.get("fallback")


def test_needs_an_empty_bag(pack_en):
    pos = Game(pack_en.spec, seed=1).position
    with pytest.raises(EndgameError, match="empty bag"):
        EndgameSearch(pack_en).search(pos)


def test_needs_tiles_the_set_has(pack_es):
    # two Ñ on the racks: the Spanish set has one, and the board already holds it
    cgp = ES_SMALL["LO-D"].replace(" LO/D ", " LOÑ/DÑ ")
    with pytest.raises(CgpError, match="more Ñ on the board and racks"):
        Position.from_cgp(cgp, pack_es.spec)
    # a position built in code with the same racks: refused by the solver, not searched
    pos = Position.from_cgp(ES_SMALL["LO-D"], pack_es.spec)
    n = pack_es.spec.parse_tiles("Ñ")[0]
    racks = tuple(r.copy() for r in pos.racks)
    racks[1][n] += 1
    bad = dataclasses.replace(pos, racks=racks, bag=pos.bag - np.eye(len(pos.bag), dtype=np.int64)[n])
    with pytest.raises(EndgameError, match="more tiles than the tile set"):
        EndgameSearch(pack_es).search(bad)


@pytest.mark.parametrize("name", sorted(ES_SMALL))
def test_spanish_exact_equals_brute_force(pack_es, name):
    pos = Position.from_cgp(ES_SMALL[name], pack_es.spec)
    memo = {}
    best = exact_value(pack_es, pos, memo)
    r = EndgameSearch(pack_es).search(pos)
    assert r.exact and r.value == best
    assert move_value(pack_es, pos, r.move, memo) == best
    # playing the principal variation reproduces the value and ends the game
    assert replay_pv(pack_es, pos, r.pv) == (best, True)


def test_stuck_tile_passes_and_scoreless_end(pack_es):
    spec = pack_es.spec
    # the Q has no placement: the only move is the pass; DDT (2+2+1) goes out in three
    pos = Position.from_cgp(ES_SMALL["Q-DDT"], spec)
    recs = pos.moves(pack_es, exchanges=False)
    assert (recs["kind"] == 0).sum() == 0
    r = EndgameSearch(pack_es).search(pos)
    assert r.exact and isinstance(r.move, Pass)
    spread, over = replay_pv(pack_es, pos, r.pv)
    assert over and spread == r.value == -28
    assert [m.gcg(spec) for m in r.pv if not isinstance(m, Pass)][-1].startswith("7M")
    # both players end stuck: six scoreless turns end the game, each loses their own rack
    pos = Position.from_cgp(ES_SMALL["QRT-RRS"], spec)
    r = EndgameSearch(pack_es).search(pos)
    assert r.exact and r.value == 0
    assert all(isinstance(m, Pass) for m in r.pv[-6:]) and replay_pv(pack_es, pos, r.pv) == (0, True)


def test_analyse_ranks_by_value(pack_en):
    pos = Position.from_cgp(NO_VS_A, pack_en.spec)
    res, rows = EndgameSearch(pack_en).analyse(pos, top=50)
    memo = {}
    vals = [r.value for r in rows]
    assert vals == sorted(vals, reverse=True) and rows[0].move == res.move
    assert all(r.exact for r in rows)
    for row in rows[:8]:  # each row's value is the brute-force value of that move
        assert move_value(pack_en, pos, row.move, memo) == row.value
        assert replay_pv(pack_en, pos, row.pv) == (row.value, True)
    assert any(isinstance(r.move, Pass) for r in rows)


def test_peg_errors_and_endgame_bag_error_names_the_size(pack_es):
    pos = Game(pack_es.spec, seed=3).position
    with pytest.raises(EndgameError, match=r"the bag holds 86 tiles"):
        EndgameSearch(pack_es).search(pos)


def test_cli_endgame_table_and_errors(pack_en, capsys):
    import json

    from heuri.cli import main

    assert main(["endgame", "--lang", "en", "--cgp", NO_VS_A, "--top", "6", "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["move"] for r in rows[:2]] == ["11H ON", "1A O."] and rows[0]["value"] == 15
    assert [r["value"] for r in rows] == sorted((r["value"] for r in rows), reverse=True)
    assert all(r["exact"] for r in rows) and rows[0]["pv"] == ["11H ON"]
    # the opponent's rack left out: with the bag empty it is the unseen tiles
    fields = NO_VS_A.split(" ")
    hidden = " ".join([fields[0], fields[1].split("/")[0] + "/", *fields[2:]])
    assert main(["endgame", "--lang", "en", "--cgp", hidden, "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "11H ON" in out and "value +15, exact (proven the best to the end of the game); 1 of 1 rows exact; depth 2" in out
    assert "limits 60 s, 2,000,000 nodes, 200,000 move lists" in out  # --time 60: the Python search's cap
    cgp = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0"
    assert main(["endgame", "--lang", "en", "--cgp", cgp]) == 2
    assert capsys.readouterr().err.strip() == ("heuri: error: endgame search needs an empty bag; "
                                               "the bag holds 86 tiles")


def _fields(rec):
    """A move record's fields (its bytes include an alignment pad)."""
    return tuple(np.asarray(rec[f]).tobytes() for f in rec.dtype.names)


def _full_rack_endgame(pack, seed):
    g = GreedyPlayer(pack)
    game = Game(pack.spec, seed=seed)
    while game.position.bag_size > 0:
        game.play(g.choose(game.position))
    return game.position


def test_fast_generation_lists_what_generate_lists(pack_es):
    """The solver's generator (cross-checks kept by board hash, heuri.endgame_kernels.FastGen)
    takes its compiled fast path and lists exactly the placements of heuri.movegen.generate,
    on a real Spanish endgame board and after each of its five top-scoring moves."""
    from heuri.endgame_kernels import FastGen
    from heuri.movegen import generate

    pos = _full_rack_endgame(pack_es, 3)
    fg = FastGen(pack_es, pos.spec)
    recs = pos.moves(pack_es, exchanges=False)
    tops = recs[recs["kind"] == 0]
    tops = tops[np.argsort(-tops["score"], kind="stable")[:5]]
    boards = [pos] + [pos.after(Move.from_record(r, pack_es.spec)) for r in tops]
    for k, p in enumerate(boards):
        letters = np.ascontiguousarray(p.board.letters, np.int8)
        blanks = np.ascontiguousarray(p.board.blanks, bool)
        for rack in (np.asarray(p.racks[0], np.int64), np.asarray(p.racks[1], np.int64)):
            want = generate(pack_es, letters, blanks, rack, bag_size=0, exchanges=False, rules=p.spec)
            for _ in range(2):  # the second call reads the kept cross-checks
                got = fg.generate(letters, blanks, rack, bh=k)
                assert len(got) == len(want) and all((got[f] == want[f]).all() for f in want.dtype.names)
    assert fg.fast, "FastGen fell back to generate: heuri.movegen's internals changed"


def test_stale_placements_are_legal_with_their_score(pack_en):
    """stale_best on the move list of an earlier board of the line returns a placement the
    later board still allows with the same score (it is in the full list of the later
    board), and never a value above the later board's best: over every pair of a top-10
    move and the opponent's top-10 reply of a real English endgame."""
    from heuri.endgame import EndgameSearch
    from heuri.endgame_kernels import stale_best

    pos = _full_rack_endgame(pack_en, 5)
    es = EndgameSearch(pack_en)
    es._setup(pos)
    values, L, N = es.values, es.L, es.N
    me, opp = np.asarray(pos.racks[pos.to_move], np.int64), np.asarray(pos.racks[1 - pos.to_move], np.int64)

    def listed(p, rack):
        recs = p.moves(pack_en, exchanges=False)
        return recs[recs["kind"] == 0]

    l0 = listed(pos, me)
    order = np.argsort(-l0["score"], kind="stable")
    checked = 0
    for r1 in l0[order[:10]]:
        p1 = pos.after(Move.from_record(r1, pack_en.spec))
        if p1.over:
            continue
        l1 = listed(p1, opp)
        for r2 in l1[np.argsort(-l1["score"], kind="stable")[:10]]:
            p2 = p1.after(Move.from_record(r2, pack_en.spec))
            if p2.over:
                continue
            letters = np.ascontiguousarray(p2.board.letters, np.int8).ravel()
            stamp = np.where(letters >= 0, 0, -1).astype(np.int64)
            stamp[np.ascontiguousarray(pos.board.letters).ravel() >= 0] = -1  # older than the list
            rack = np.asarray(p2.racks[pos.to_move], np.int64)
            vopp = int(values @ np.asarray(p2.racks[1 - pos.to_move], np.int64))
            b, k, _, _ = stale_best(order, l0["row"], l0["col"], l0["across"], l0["length"], l0["tiles"],
                                    l0["new"], l0["blank"], l0["score"], letters, stamp, 0, rack,
                                    int(rack.sum()), int(values @ rack), values, L, N, vopp, False)
            full = listed(p2, rack)
            tv = [sum(int(values[t]) for t, n, bl in zip(x["tiles"], x["new"], x["blank"]) if n and not bl)
                  for x in full]
            best_full = max(int(x["score"]) + (2 * vopp if x["n_tiles"] == rack.sum()
                                               else vopp - (int(values @ rack) - v)) for x, v in zip(full, tv))
            assert b <= best_full
            if k < 0:
                continue
            m = l0[order[k]]
            same = full[(full["row"] == m["row"]) & (full["col"] == m["col"]) & (full["across"] == m["across"])
                        & (full["length"] == m["length"])]
            assert any(_fields(x) == _fields(m) for x in same), "a stale placement the board no longer allows"
            checked += 1
    assert checked >= 20


@pytest.mark.parametrize("name", ["OU-Q", "LO-D", "QR-D"])
def test_every_ranked_move_equals_brute_force_es(pack_es, name):
    """Each row of analyse (root moves searched after the best with null windows first,
    the proven-bounds table kept from the search) has the brute-force value of its move."""
    pos = Position.from_cgp(ES_SMALL[name], pack_es.spec)
    memo = {}
    res, rows = EndgameSearch(pack_es).analyse(pos, top=12)
    assert res.exact and res.value == exact_value(pack_es, pos, memo)
    assert rows[0].value == res.value
    for row in rows:
        assert row.exact and move_value(pack_es, pos, row.move, memo) == row.value


@pytest.mark.parametrize("lang,seed,nodes", [("en", 0, 30_000), ("es", 3, 30_000), ("en", 7, 300_000)])
def test_compiled_search_equals_python_search(request, lang, seed, nodes):
    """The compiled search (heuri.endgame_core, what search() runs) searches the tree of the
    Python one (search_py): under the same node budget, on real full-rack endgames, the same
    value, move, principal variation, depth, exactness and stop, and node counts within 1 %
    (the compiled tables may drop an entry the Python dicts keep). The line it reports is
    legal and, when exact, replays to its value."""
    pack = request.getfixturevalue(f"pack_{lang}")
    pos = _full_rack_endgame(pack, seed)
    es = EndgameSearch(pack, max_nodes=nodes, max_generations=nodes)
    a, b = es.search_py(pos), es.search(pos)
    assert a is not None and b is not None
    assert (b.value, b.move, b.depth, b.exact, b.stopped) == (a.value, a.move, a.depth, a.exact, a.stopped)
    assert b.pv == a.pv and b.final_spread == a.final_spread
    assert abs(b.nodes - a.nodes) <= 0.01 * a.nodes
    p = pos
    for mv in b.pv:
        p.check(mv, pack.words)
        p = p.after(mv, words=pack.words)
    if b.exact:
        assert replay_pv(pack, pos, b.pv) == (b.value, True)



@pytest.mark.parametrize("lang,seeds", [("es", range(0, 8)), ("en", range(0, 4))])
def test_compiled_width_limited_search_equals_python_search(request, lang, seeds):
    """A width limit (the match players' second endgame step) runs compiled and searches the
    tree of the Python one: every list cut to its best 5 placements by the search order (the
    ways out kept), so nothing is proven; with limits that let both finish every depth, the
    same value, move, principal variation, depth and node count on real full-rack endgames
    (es seeds 0-7: values 19, 27, 41, -9, 22, 17, 7, 48)."""
    pack = request.getfixturevalue(f"pack_{lang}")
    for seed in seeds:
        pos = _full_rack_endgame(pack, seed)
        es = EndgameSearch(pack, width=5, max_nodes=10 ** 6, max_generations=10 ** 6)
        a, b = es.search_py(pos), es.search(pos)
        assert not b.stopped and not b.exact
        assert (b.value, b.move, b.depth, b.pv, b.nodes) == (a.value, a.move, a.depth, a.pv, a.nodes), seed
        if lang == "es":
            assert b.value == (19, 27, 41, -9, 22, 17, 7, 48)[seed]

HARD_ES = ("11AD1H/3B5VELI[LL]O/3R7EX1[RR]/3U6FU2O/3Z5CID3/3A5UÑO1P1/3S6A2R1/2GE2SATINARE1/2I2TUL2A2N1/"
           "2MOYO7D1/2O1ANSaRES2I1/2T4J5O1/2E1EMPALICA3/2E4B7/LUN[CH]3ASESTADO ADEGOR?/CCEEHNQ 510/406 0")


def test_compiled_search_time_limit_and_stop(pack_es):
    """A time limit or a stop callable ends the compiled search (run on a worker thread
    while this one watches): the result is the last completed depth, not exact, stopped;
    a stop asked at once leaves no completed depth beyond the first few (no timed
    assertion: only what the result says)."""
    # a blank and 13 other tiles (first bag-empty position of es self-play seed 12): the
    # search proves nothing in seconds
    pos = Position.from_cgp(HARD_ES, pack_es.spec)
    # load the compiled kernels first (a cold load from numba's cache would eat the 0.3 s
    # when this test runs alone)
    EndgameSearch(pack_es, max_nodes=10, max_generations=2).search(pos)
    r = EndgameSearch(pack_es, max_nodes=10 ** 9, max_generations=10 ** 9, time_limit=0.3).search(pos)
    assert r is not None and not r.exact and r.stopped and r.depth >= 1
    pos.check(r.move, pack_es.words)
    es = EndgameSearch(pack_es, max_nodes=10 ** 9, max_generations=10 ** 9)
    es._stop = lambda: True
    s = es.search(pos)
    # stopped at once: with no completed depth it answers None (the caller then plays its
    # fallback), else the move of its last completed depth, legal, and not a proof; either
    # way it did start (the root's move list was made and nodes visited)
    assert es._nodes >= 1 and es._gens >= 1
    if s is not None:
        assert not s.exact and s.stopped and s.depth >= 1
        pos.check(s.move, pack_es.words)


def test_compiled_search_line_survives_a_full_arena(pack_en):
    """When an iteration fills the arena of move lists (the lists are forgotten and made
    anew, so arena indices name other moves), the result is still the last completed
    depth's line: here, with a 5,000-move arena, depth 3 cannot complete and the answer is
    depth 2's (CAAS, worth +4), a move of the mover's rack. Before the fix the line was read
    from the refilled arena after the search and named the opponent's tiles (WEN.S), an
    illegal move a 1000-game match met."""
    cgp = ("15/1I9K3/1S9ED2/POUNDERS3XU1J/1T6V1G1C1E/1R1WOF2L1R1AZO/TO2BUTTY1O1TIN/AN1VARIA2UH1G1/"
           "L2I2LYMITERS1/ED1l5FEH3/AI1I6D4/EA1A11/1P1G11/1I1O11/ErOSIBLE7 AACEENO/EMNNQRW 468/381 0")
    pos = Position.from_cgp(cgp, pack_en.spec)
    small = EndgameSearch(pack_en, max_nodes=300_000, max_generations=300_000)
    small.ARENA_MIN = small.ARENA_MAX = 5_000
    r = small.search(pos)
    ref = EndgameSearch(pack_en, max_nodes=300_000, max_generations=300_000, max_depth=2).search(pos)
    assert r.stopped and not r.exact and (r.depth, r.value) == (2, 4) == (ref.depth, ref.value)
    assert r.move == ref.move == Move.from_gcg("H1 CAA.", pos.board, pack_en.spec) and r.pv == ref.pv
    pos.check(r.move, pack_en.words)
