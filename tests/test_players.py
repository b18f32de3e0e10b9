"""Player registry (heuri.players): names, the greedy player, heuri players delegating to
the evaluators before the bag is empty."""
from __future__ import annotations

import numpy as np
import pytest

from heuri.game import Game, Position
from heuri.players import ENGINES, EngineError, GreedyPlayer, Player, check_engine, make_player


def test_registry_names_and_errors():
    assert set(ENGINES) == {"greedy", "heuri1", "heuri2", "heuri3", "heuri1-noend", "heuri2-noend",
                            "heuri3-noend", "heuri4-noend", "heuri3-peg", "heuri4", "heuri4-leave", "heuri4-opp",
                            "heuri4-offset", "heuri4-lanes", "heuri4-peg", "heuri5", "heuri5-noend", "heuri5-peg", "heuri6", "heuri6-noend", "heuri6-peg"}
    with pytest.raises(EngineError, match="unknown engine 'quackle'; choose one of greedy, heuri1"):
        check_engine("quackle")


def test_greedy_plays_the_top_score(pack_es):
    spec = pack_es.spec
    game = Game(spec, seed=4)
    p = make_player("greedy", pack_es)
    assert isinstance(p, Player) and isinstance(p, GreedyPlayer)
    for _ in range(6):
        pos = game.position
        recs = pos.moves(pack_es, exchanges=False)
        move = p.choose(pos)
        # its score is the best of every placement the generator lists
        assert pos.check(move, pack_es.words) == int(recs["score"].max())
        game.play(move)


def test_heuri_players_use_their_evaluator_before_the_endgame(pack_en):
    from heuri.evaluate import make_evaluator

    pos = Game(pack_en.spec, seed=2).position
    for name, ev in (("heuri3", "heuri3"), ("heuri2-noend", "heuri2")):
        p = make_player(name, pack_en)
        assert p.name == name and p.choose(pos) == make_evaluator(pack_en, ev).choose(pos)
        assert p.info == {"endgame": False}
    assert make_player("heuri3", pack_en).search is not None
    assert make_player("heuri3-noend", pack_en).search is None
    assert make_player("heuri4-noend", pack_en).search is None
    assert np.array_equal(pos.rack, Game(pack_en.spec, seed=2).position.rack)  # choose() changes nothing


def test_peg_player_uses_the_pre_endgame_with_one_tile_in_the_bag(pack_es):
    from heuri.peg import PegSearch

    from test_peg import ONE_IN_BAG

    pos = Position.from_cgp(ONE_IN_BAG, pack_es.spec)
    p = make_player("heuri3-peg", pack_es)
    move = p.choose(pos)
    assert p.info["peg"] and move == PegSearch(pack_es, max_bag=1).search(pos).move
    plain = make_player("heuri3", pack_es)
    plain.choose(pos)
    assert "peg" not in plain.info
    # heuri4-peg: the same search over heuri4's candidates
    p4 = make_player("heuri4-peg", pack_es)
    assert p4.choose(pos) == PegSearch(pack_es, evaluator="heuri4", max_bag=1).search(pos).move and p4.info["peg"]


def test_engine_options_in_the_name(pack_en):
    from heuri.players import parse_engine

    assert parse_engine("heuri4@offset=35,opponent=0.5") == ("heuri4", {"offset": 35.0, "opponent": 0.5})
    # a variant class passes its options on: heuri4-opp takes Heuri4's keywords too
    assert parse_engine("heuri4-opp@opponent=2") == ("heuri4-opp", {"opponent": 2.0})
    pl = make_player("heuri4@offset=35,opponent=0.5", pack_en)
    ev = pl._choose.__self__
    assert (ev.bingo_offset, ev.opponent, pl.name) == (35.0, 0.5, "heuri4@offset=35,opponent=0.5")
    # the bingo values drop by exactly the offset change (27 -> 35 in English)
    base = make_player("heuri4", pack_en)._choose.__self__
    diff = base._val - ev._val
    assert np.allclose(diff[base._val > 35], 8.0)
    for bad, msg in [("heuri4@foo=1", "unknown option 'foo'"), ("heuri4@k", "option 'k' needs a value"),
                     ("heuri4@k=x", "needs a number, got 'x'"), ("greedy@k=1", "takes no options"),
                     ("heuri3-peg@foo=2", "unknown option 'foo'"), ("heuri9@k=1", "unknown engine 'heuri9'")]:
        with pytest.raises(EngineError, match=msg.replace("(", r"\(")):
            check_engine(bad)


def test_endgame_options_in_the_name(pack_en):
    from heuri.endgame import EndgameSearch
    from heuri.players import MATCH_WIDE_LIMITS, TwoStepEndgame

    # exact_nodes sets the exact step's node and move-list budgets; the wide step stays
    two = make_player("heuri4@exact_nodes=100000", pack_en).search
    assert isinstance(two, TwoStepEndgame)
    assert (two.exact.max_nodes, two.exact.max_generations, two.exact.width) == (100000, 100000, None)
    assert (two.wide.width, two.wide.max_generations) == (MATCH_WIDE_LIMITS["width"], MATCH_WIDE_LIMITS["max_generations"])
    # wide=0: the exact step alone; the evaluator gets none of the endgame's options
    pl = make_player("heuri4@exact_nodes=5000,wide=0,offset=35", pack_en)
    assert isinstance(pl.search, EndgameSearch) and pl.search.max_nodes == 5000
    assert pl._choose.__self__.bingo_offset == 35.0
    # a pre-endgame engine takes the same options: its endgame budget, and its evaluator's
    # (which the pre-endgame search ranks its candidates with too)
    peg = make_player("heuri4-peg@exact_nodes=300000,wide=0,opponent=1.5", pack_en)
    assert isinstance(peg.search, EndgameSearch) and peg.search.max_nodes == 300000
    assert peg._choose.__self__.opponent == 1.5 == peg.peg.evaluator.opponent and peg.peg.max_bag == 1
    # a budget in the name and the match's --endgame-* budget: an error, not one of them dropped
    with pytest.raises(EngineError, match="sets its endgame search in its name"):
        make_player("heuri4@exact_nodes=5000", pack_en, {"max_generations": 100, "max_nodes": 2000})
    for bad, msg in [("heuri4-noend@exact_nodes=1000", "unknown option 'exact_nodes'"),
                     ("heuri4@exact_nodes=0", "exact_nodes must be at least 1"),
                     ("heuri4@wide=2", "wide 0 or 1")]:
        with pytest.raises(EngineError, match=msg):
            check_engine(bad)


def test_peg_bag_option(pack_es):
    from heuri.players import parse_engine

    assert parse_engine("heuri5-peg@peg_bag=2") == ("heuri5-peg", {"peg_bag": 2.0})
    pl = make_player("heuri5-peg@peg_bag=2", pack_es)
    assert pl.peg_bag == 2 and pl.peg.max_bag == 2
    assert make_player("heuri5-peg", pack_es).peg_bag == 1
    with pytest.raises(EngineError, match="unknown option 'peg_bag'"):
        parse_engine("heuri5@peg_bag=2")  # only the pre-endgame engines search it
    with pytest.raises(EngineError, match="whole number"):
        parse_engine("heuri5-peg@peg_bag=1.5")
    with pytest.raises(EngineError, match="peg_bag"):
        parse_engine("heuri5-peg@peg_bag=8")
