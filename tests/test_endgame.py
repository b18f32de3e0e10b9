"""Endgame search (heuri.endgame) on real English endgames (bag empty, both racks known),
checked against an independent brute-force minimax: every move and reply from the move
generator, positions advanced with Position.after (which applies the end-of-game rules
itself), no pruning, no width limit, no horizon.

The positions come from seeded greedy-vs-greedy games (seeds in the comments), played
until the bag was empty and the racks small enough for the brute force."""
from __future__ import annotations

import pytest

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


@pytest.fixture(scope="module")
def exact_search(pack_en):
    return EndgameSearch(pack_en, width=None, max_nodes=200_000, max_generations=20_000, max_depth=20)


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
    # the default (width-limited) search finds it too, and a heuri player with the search
    # plays it, while the same player without the search plays greedily
    assert EndgameSearch(pack_en).search(pos).move == r.move
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
    # the default search (width 12, limits) is never worse than greedy here
    d = EndgameSearch(pack_en).search(pos)
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
    assert (a.move, a.value, a.depth) == (b.move, b.value, b.depth)
    pos.check(a.move, pack_en.words)  # legal, real words
    # with no budget the search gives up and the player falls back to greedy
    assert EndgameSearch(pack_en, max_nodes=1).search(pos) is None
    p = make_player("heuri3", pack_en, {"max_nodes": 1})
    assert p.choose(pos) == g.choose(pos) and p.info.get("fallback")


def test_needs_an_empty_bag(pack_en):
    pos = Game(pack_en.spec, seed=1).position
    with pytest.raises(EndgameError, match="empty bag"):
        EndgameSearch(pack_en).search(pos)
