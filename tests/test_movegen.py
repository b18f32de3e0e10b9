"""heuri.movegen: the word graph, hand-computed scores, known traps, and a property test
against the brute-force reference (tests/reference_movegen.py) over self-play positions.

Scores by hand use the standard board (docs/rules.md): row 8 is ``T..d...*...d..T`` (d = double
letter at columns D and L, * = centre, double word), row 9 is ``..d...d.d...d..``.
"""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from reference_movegen import (ReferenceGenerator, as_tuples, random_rack, row_hashes,  # noqa: E402
                               self_play, to_records)

from heuri.movegen import (MOVE_DTYPE, MoveGenError, cross_checks, describe, generate,  # noqa: E402
                           is_word, leaves, rack_vector)

N = 15


def empty():
    return np.full((N, N), -1, np.int8), np.zeros((N, N), bool)


def put(spec, letters, blanks, row, col, across, text):
    """Write a word on the board arrays: row/col 0-based, lower case = blank."""
    r, c = row, col
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "[":
            j = text.index("]", i)
            sym, i = text[i + 1:j], j + 1
        else:
            sym, i = ch, i + 1
        letters[r, c] = spec.tile_id(sym.upper())
        blanks[r, c] = sym.islower()
        r, c = (r, c + 1) if across else (r + 1, c)


def by_text(spec, moves):
    """{describe(move): score} for the placements (texts are unique for placements)."""
    out = {}
    for m in moves[moves["kind"] == 0]:
        t = describe(spec, m)
        assert t not in out, t
        out[t] = int(m["score"])
    return out


_REFS = {}


def reference(pack):
    if pack.code not in _REFS:
        _REFS[pack.code] = ReferenceGenerator(pack)
    return _REFS[pack.code]


# -- the word graph --------------------------------------------------------------------------
def test_graph_accepts_exactly_the_words(real_pack):
    spec = real_pack.spec
    tiles = real_pack.table("words").column("tiles").to_pylist()
    rng = np.random.default_rng(0)
    words = set(map(tuple, tiles))
    for k in rng.choice(len(tiles), 3000, replace=False):
        assert is_word(real_pack, tiles[k]), spec.format_tiles(tiles[k])
    tried = 0
    for k in rng.choice(len(tiles), 3000, replace=False):
        w = list(tiles[k])
        w[rng.integers(len(w))] = int(rng.integers(spec.n_letters))
        if tuple(w) not in words:
            tried += 1
            assert not is_word(real_pack, w), spec.format_tiles(w)
        assert not is_word(real_pack, tiles[k][:1])  # no one-tile words
    assert tried > 1000
    assert real_pack.graph.nodes.dtype == np.uint32
    assert real_pack.graph.header_words == 1  # es 28, en and fr 26 letters: one header word


def test_tiny_graph_paths_are_exactly_the_gaddag(tiny_pack):
    """Every path of the tiny pack's graph, listed by a walk, equals the GADDAG of its words."""
    spec, g = tiny_pack.spec, tiny_pack.graph
    L = spec.n_letters
    words = [tuple(t) for t in tiny_pack.table("words").column("tiles").to_pylist()]
    want = set()
    for w in words:
        for i in range(1, len(w) + 1):
            want.add(tuple(reversed(w[:i])) + ((L,) + w[i:] if i < len(w) else ()))
    got = set()
    stack = [(g.root, ())]
    while stack:
        node, path = stack.pop()
        if node == 0:
            continue
        hw = g.header_words
        h = int(g.nodes[node]) | ((int(g.nodes[node + 1]) << 32) if hw == 2 else 0)
        sep = (h >> (32 * hw - 1)) & 1
        arc_tiles = ([L] if sep else []) + [x for x in range(32 * hw - 1) if (h >> x) & 1]
        for k, t in enumerate(arc_tiles):
            w = int(g.nodes[node + hw + k])
            if w >> 31:
                got.add(path + (t,))
            stack.append((w & 0x7FFFFFFF, path + (t,)))
    assert got == want


# -- hand-computed scores and known traps ----------------------------------------------------
def test_joint_on_the_empty_board(pack_en):
    spec = pack_en.spec
    moves = generate(pack_en, *empty(), rack_vector(spec, "JOINT"), bag_size=0)
    s = by_text(spec, moves)
    # 8D: J on the double letter D8 (8*2) + O I N T (4), T on the centre: (16+4)*2 = 40.
    assert s["8D JOINT"] == 40
    # 8E: no letter premium, N on the centre: (8+4)*2 = 24.
    assert s["8E JOINT"] == 24
    # 8H: J on the centre, T on the double letter L8: (8+1+1+1+2)*2 = 26.
    assert s["8H JOINT"] == 26
    # going out with 5 tiles: no bingo bonus; bag empty: no exchange, one pass
    assert max(s.values()) == 40
    assert (moves["kind"] == 1).sum() == 0 and (moves["kind"] == 2).sum() == 1
    # only across plays on the empty board, each covering the centre
    pl = moves[moves["kind"] == 0]
    assert pl["across"].all() and (pl["row"] == 7).all()
    assert ((pl["col"] <= 7) & (pl["col"] + pl["length"] > 7)).all()


def test_bingo_bonus_for_seven_tiles(pack_en):
    spec = pack_en.spec
    s = by_text(spec, generate(pack_en, *empty(), rack_vector(spec, "AEINRST")))
    # 8H RETAINS: R* E T A I(L8, double letter) N S = 8, *2 = 16, + 50 = 66
    assert s["8H RETAINS"] == 66
    # 6 of the 7 tiles: no bonus. 8H RETAIN: 1+1+1+1+2+1 = 7, *2 = 14
    assert s["8H RETAIN"] == 14


def test_blank_scores_zero_whatever_letter(pack_en):
    spec = pack_en.spec
    s = by_text(spec, generate(pack_en, *empty(), rack_vector(spec, "CA?")))
    # 8F C A ? with the blank on the centre: (3+1+0)*2 = 8, whichever letter it is
    assert s["8F CAt"] == 8 and s["8F CAb"] == 8 and s["8F CAn"] == 8
    # the real tile and the blank for the same letter are two moves
    s2 = by_text(spec, generate(pack_en, *empty(), rack_vector(spec, "CAT?")))
    assert s2["8F CAT"] == 10 and s2["8F CAt"] == 8 and s2["8F cAT"] == 4


def test_play_through_two_separate_groups(pack_en):
    spec = pack_en.spec
    letters, blanks = empty()
    put(spec, letters, blanks, 7, 2, True, "A")   # C8
    put(spec, letters, blanks, 7, 5, True, "N")   # F8
    moves = generate(pack_en, letters, blanks, rack_vector(spec, "PRET"))
    s = by_text(spec, moves)
    # 8B P(A)RE(N)T: P 3, A 1, R 1*2 (D8 double letter), E 1, N 1, T 1 = 9; four tiles
    assert s["8B P(A)RE(N)T"] == 9
    m = moves[[describe(spec, x) == "8B P(A)RE(N)T" for x in moves]][0]
    assert m["length"] == 6 and m["n_tiles"] == 4
    assert m["new"][:6].tolist() == [True, False, True, True, False, True]
    assert m["tiles"][6:].tolist() == [-1] * 9
    assert as_tuples(moves) == reference(pack_en).moves(letters, blanks, rack_vector(spec, "PRET"))



def test_board_tiles_right_of_an_anchor_walked_first(pack_en):
    """The walk starts at the last board tile right of an anchor (movegen._search): words
    ending on the right edge, a phony the word graph cannot read backwards (no placement
    may touch it), a one-tile gap between two words, and a blank: the reference agrees."""
    spec = pack_en.spec
    letters, blanks = empty()
    put(spec, letters, blanks, 7, 11, True, "ZATI")   # L8-O8: ends on the right edge
    put(spec, letters, blanks, 3, 4, True, "XQJV")    # E4: a phony
    put(spec, letters, blanks, 11, 2, True, "CAT")    # C12
    put(spec, letters, blanks, 11, 6, True, "UP")     # G12: one empty square after CAT
    for rack in ("AEINRST", "EIS?", "AE??"):
        r = rack_vector(spec, rack)
        moves = generate(pack_en, letters, blanks, r, exchanges=False)
        assert as_tuples(moves) == reference(pack_en).moves(letters, blanks, r, exchanges=False), rack
        row4 = moves[(moves["row"] == 3) & moves["across"]]
        assert len(row4) == 0  # every across play in row 4 would hold the phony XQJV
    s = by_text(spec, generate(pack_en, letters, blanks, rack_vector(spec, "S"), exchanges=False))
    assert s["12C (CAT)S(UP)"] == 10  # C 3, A 1, T 1, S 1, U 1, P 3: through the gap (F12 plain)

def test_cross_word_next_to_a_blank(pack_en):
    spec = pack_en.spec
    letters, blanks = empty()
    put(spec, letters, blanks, 7, 7, True, "aT")  # H8 a blank A, I8 a real T
    moves = generate(pack_en, letters, blanks, rack_vector(spec, "NO"))
    s = by_text(spec, moves)
    # 9H NO: N 1, O 1*2 (I9 double letter) = 3; cross AN = 0 + 1 = 1; cross TO = 1 + 2 = 3
    assert s["9H NO"] == 7
    cc = cross_checks(pack_en, letters, blanks)
    assert cc.has_cross[0, 8, 7] and cc.score[0, 8, 7] == 0   # below the blank: A scores 0
    assert cc.score[0, 8, 8] == 1 and cc.allows(True, 8, 8, spec.tile_id("O"))
    assert not cc.allows(True, 8, 8, spec.tile_id("Q"))
    assert cc.mask[0, 7, 7] == 0   # occupied
    assert as_tuples(moves) == reference(pack_en).moves(letters, blanks, rack_vector(spec, "NO"))


def test_spanish_digraph_tiles(pack_es):
    spec = pack_es.spec
    ch = spec.tile_id("CH")
    chocho = (ch, spec.tile_id("O"), ch, spec.tile_id("O"))
    # one CH tile and loose C and H: CHOCHO needs two CH tiles, C+H never spells CH
    moves = generate(pack_es, *empty(), rack_vector(spec, "[CH]CHOOO"))
    words = {tuple(m["tiles"][:m["length"]]) for m in moves[moves["kind"] == 0]}
    assert chocho not in words
    assert any(ch in w for w in words)   # plays with the CH tile exist
    # with a blank for the second CH it is there: CH O [ch] O, the blank 0
    moves = generate(pack_es, *empty(), rack_vector(spec, "[CH]OO?"))
    s = by_text(spec, moves)
    # 8E [CH]O[ch]O covers E..H: CH 5 + O 1 + 0 + O 1 on the centre = 7, *2 = 14
    assert s["8E [CH]O[ch]O"] == 14
    assert "8E [CH]O[CH]O" not in s


def test_one_tile_plays_counted_once(pack_en):
    spec = pack_en.spec
    letters, blanks = empty()
    put(spec, letters, blanks, 7, 7, True, "AT")   # H8 AT
    put(spec, letters, blanks, 6, 6, True, "O")    # G7 O
    r = rack_vector(spec, "S")
    moves = generate(pack_en, letters, blanks, r, exchanges=False)
    s = by_text(spec, moves)
    # S on G8 has a right neighbour: written across once, SAT 3 + cross-word OS 2 = 5
    assert s["8G S(AT)"] == 5
    assert "G7 (O)S" not in s
    # S on H9 below A has no left/right neighbour: written down, AS = 2
    assert s["H8 (A)S"] == 2
    assert "9H S" not in s
    one = moves[moves["n_tiles"] == 1]
    squares = [(int(m["row"]) + int(m["across"] == 0) * int(m["length"] - 1), int(m["col"])) for m in one]
    assert len(one) == len(s)
    assert as_tuples(moves) == reference(pack_en).moves(letters, blanks, r, exchanges=False)


# Placements on the empty board, pinned; the reference lists the same moves.
EMPTY_COUNTS = {("en", "AEINRST"): 1458, ("en", "QUIZ??"): 2741, ("es", "[CH]AEIORS"): 848,
                ("es", "[LL]A[RR]E?"): 515, ("fr", "AEINRST"): 1319, ("fr", "WXYZE?"): 87}


@pytest.mark.parametrize("lang,rack", list(EMPTY_COUNTS))
def test_empty_board_counts_equal_reference(lang, rack, request):
    pack = request.getfixturevalue(f"pack_{lang}")
    r = rack_vector(pack.spec, rack)
    moves = generate(pack, *empty(), r, bag_size=50)
    assert as_tuples(moves) == reference(pack).moves(*empty(), r, bag_size=50)
    assert (moves["kind"] == 0).sum() == EMPTY_COUNTS[lang, rack]


def test_exchanges_follow_the_bag(pack_en, pack_es):
    spec = pack_en.spec
    r = rack_vector(spec, "AABCDE?")  # kinds A:2 B C D E ?: 3*2^5 = 96 sub-multisets, 95 non-empty
    ex = lambda mv: mv[mv["kind"] == 1]  # noqa: E731
    assert len(ex(generate(pack_en, *empty(), r, bag_size=80))) == 95
    assert len(ex(generate(pack_en, *empty(), r, bag_size=6))) == 0    # English: bag >= 7
    assert len(ex(generate(pack_en, *empty(), r, bag_size=None))) == 95
    assert len(ex(generate(pack_en, *empty(), r, bag_size=80, exchanges=False))) == 0
    assert (generate(pack_en, *empty(), r, exchanges=False)["kind"] == 2).sum() == 0
    e = ex(generate(pack_en, *empty(), r, bag_size=80))
    full = e[e["length"] == 7]
    assert len(full) == 1 and full[0]["tiles"][:7].tolist() == [0, 0, 1, 2, 3, 4, spec.blank]
    assert full[0]["blank"][:7].tolist() == [False] * 6 + [True]
    # Spanish: exchange allowed with 1 tile in the bag, never more tiles than the bag holds
    s = pack_es.spec
    r = rack_vector(s, "AABCDE?")
    e = ex(generate(pack_es, *empty(), r, bag_size=2))
    assert sorted(set(e["length"].tolist())) == [1, 2]
    assert len(e) == 6 + 16   # 6 kinds alone; pairs: C(6,2) = 15 of two kinds, and AA
    assert len(ex(generate(pack_es, *empty(), r, bag_size=0))) == 0


def test_kept_exchanges_equal_fresh_ones(pack_en):
    """The exchanges and pass of the last rack are kept by the context and copied when the
    same (rack, bag) comes again: every call gives the bytes a fresh context (a new thread)
    gives, racks and bag sizes alternating."""
    import itertools
    import threading

    spec = pack_en.spec
    seq = [(rk, bag) for rk in ("AABCDE?", "EEIRSTT", "AABCDE?") for bag in (80, 3, 80, 7, 0)]
    got = [generate(pack_en, *empty(), rack_vector(spec, rk), bag_size=bag).tobytes() for rk, bag in seq]

    def fresh(out, rk, bag):
        out.append(generate(pack_en, *empty(), rack_vector(spec, rk), bag_size=bag).tobytes())

    want = []
    for rk, bag in seq:
        t = threading.Thread(target=fresh, args=(want, rk, bag))
        t.start()
        t.join()
    assert got == want
    # EEIRSTT with 7 in the bag: every distinct sub-multiset of 1..7 tiles, E:2 T:2 I R S
    subs = {tuple(sorted(c)) for k in range(1, 8) for c in itertools.combinations("EEIRSTT", k)}
    moves = generate(pack_en, *empty(), rack_vector(spec, "EEIRSTT"), bag_size=7)
    assert len(subs) == 3 * 3 * 2 * 2 * 2 - 1 == (moves["kind"] == 1).sum()
    assert (moves["kind"] == 2).sum() == 1


def test_leaves(pack_en):
    spec = pack_en.spec
    r = rack_vector(spec, "JOINTS?")
    moves = generate(pack_en, *empty(), r, bag_size=50)
    lv = leaves(r, moves)
    assert lv.shape == (len(moves), spec.n_kinds) and lv.dtype == np.uint8
    used = r[None, :] - lv.astype(np.int64)
    assert (used.sum(axis=1) == moves["n_tiles"]).all()
    k = [describe(spec, m) for m in moves].index("8D JOINT")
    assert lv[k].tolist() == rack_vector(spec, "S?").tolist()
    k = [describe(spec, m) for m in moves].index("-JS")
    assert lv[k].tolist() == rack_vector(spec, "OINT?").tolist()
    assert lv[-1].tolist() == r.tolist()   # the pass
    with pytest.raises(MoveGenError):
        leaves(rack_vector(spec, "AB"), moves)


def test_blank_cannot_represent(pack_en):
    """A spec where the blank cannot be Q: no blank-Q moves, the reference agrees."""
    from heuri.pack import LanguagePack

    spec = dataclasses.replace(pack_en.spec, blank_cannot_represent=("Q",))
    pack = LanguagePack(spec, pack_en.root, pack_en.manifest)
    r = rack_vector(spec, "UIZ??")
    moves = generate(pack, *empty(), r)
    q = spec.tile_id("Q")
    assert not (moves["blank"] & (moves["tiles"] == q)).any()
    assert as_tuples(moves) == ReferenceGenerator(pack).moves(*empty(), r)
    assert (generate(pack_en, *empty(), r)["blank"] & (generate(pack_en, *empty(), r)["tiles"] == q)).any()


def test_bad_input(pack_en):
    spec = pack_en.spec
    letters, blanks = empty()
    r = rack_vector(spec, "AB")
    with pytest.raises(MoveGenError, match="must both be"):
        generate(pack_en, letters[:14], blanks, r)
    with pytest.raises(MoveGenError, match="length 27"):
        generate(pack_en, letters, blanks, r[:5])
    with pytest.raises(MoveGenError, match="more than the rack size"):
        generate(pack_en, letters, blanks, r * 5)
    bad = letters.copy()
    bad[3, 4] = 40
    with pytest.raises(MoveGenError, match="row 4 col 5"):
        generate(pack_en, bad, blanks, r)
    bad64 = letters.astype(np.int64)
    bad64[0, 0] = 300
    with pytest.raises(MoveGenError, match="row 1 col 1"):
        generate(pack_en, bad64, blanks, r)
    bb = blanks.copy()
    bb[2, 2] = True
    with pytest.raises(MoveGenError, match="blank flag on the empty square"):
        generate(pack_en, letters, bb, r)
    assert issubclass(MoveGenError, ValueError)


def test_move_dtype_layout():
    assert MOVE_DTYPE.itemsize == 56
    assert MOVE_DTYPE["tiles"].shape == (15,) and MOVE_DTYPE["tiles"].base == np.int8
    assert MOVE_DTYPE["score"] == np.int32


# -- the property test -----------------------------------------------------------------------
# Per language: 180 positions from seeded self-play, racks with 0, 1 and 2 blanks drawn
# from the unseen tiles (100, 60 and 20 positions: a two-blank rack has ~10-30 thousand
# moves, slow for the reference), exchanges and the pass included. The reference runs in
# two worker processes (fork: they share the reference built here); each returns a digest
# of its sorted move list, and a mismatch is recomputed here to show the difference.
PROPERTY_POSITIONS = {0: 100, 1: 60, 2: 20}
_WORK = {}


def _ref_digest(k):
    letters, blanks, r, bag = _WORK["cases"][k]
    return row_hashes(to_records(_WORK["ref"].moves(letters, blanks, r, bag_size=bag)))


@pytest.mark.parametrize("lang", ["es", "en", "fr"])
def test_property_equals_reference(lang, request):
    import multiprocessing as mp

    pack = request.getfixturevalue(f"pack_{lang}")
    spec = pack.spec
    ref = reference(pack)
    rng = np.random.default_rng(2026)
    total = sum(PROPERTY_POSITIONS.values())
    classes = [b for b, k in PROPERTY_POSITIONS.items() for _ in range(k)]
    rng.shuffle(classes)
    cases, got = [], []
    for k, (letters, blanks, _rack, unseen, bag) in enumerate(self_play(pack, total, seed=7)):
        r = random_rack(spec, unseen, classes[k], rng)
        cases.append((letters, blanks, r, bag))
        got.append(row_hashes(generate(pack, letters, blanks, r, bag_size=bag)))
    assert [int(c[2][spec.blank]) for c in cases] == classes
    _WORK.update(cases=cases, ref=ref)
    try:
        with mp.get_context("fork").Pool(2) as pool:
            want = pool.map(_ref_digest, range(len(cases)), chunksize=5)
    finally:
        _WORK.clear()
    for k, (a, b) in enumerate(zip(got, want)):
        if not np.array_equal(a, b):
            letters, blanks, r, bag = cases[k]
            g = set(as_tuples(generate(pack, letters, blanks, r, bag_size=bag)))
            w = set(ref.moves(letters, blanks, r, bag_size=bag))
            pytest.fail(f"{lang} position {k} rack {spec.format_tiles(np.repeat(np.arange(len(r)), r), '?')}: "
                        f"{len(a)} moves vs reference {len(b)}; only here {sorted(g - w)[:3]}, "
                        f"only in the reference {sorted(w - g)[:3]}")
    assert len(got) == total
    assert sum(len(h) for h in want) > total * 100


def test_two_word_headers_give_the_same_moves(pack_en):
    """Languages with more than 31 letters get two-word node headers; none of es, en, fr
    does, so build both layouts from a part of the English words and compare."""
    import pyarrow as pa

    from heuri.pack import LanguagePack, WordGraph
    from pipeline.wordgraph import _build, _relayout, gaddag_paths

    spec = pack_en.spec
    tiles = pack_en.table("words").column("tiles")
    part = tiles.take(pa.array(np.arange(0, len(tiles), 7)))
    tile, nxt, acc, last, root, _ = _build(gaddag_paths(part), spec.n_letters)
    packs = []
    for hw in (1, 2):
        g, r = _relayout(tile, nxt, acc, last, root, spec.n_letters, hw)
        p = LanguagePack(spec, pack_en.root, pack_en.manifest)
        p.__dict__["graph"] = WordGraph(g, int(r), hw)
        packs.append(p)
    rng = np.random.default_rng(5)
    n = 0
    for k, (letters, blanks, _r, unseen, bag) in enumerate(self_play(pack_en, 12, seed=3)):
        r = random_rack(spec, unseen, k % 3, rng)
        a, b = (generate(p, letters, blanks, r, bag_size=bag) for p in packs)
        assert a.tobytes() == b.tobytes()
        n += len(a)
    assert n > 500
    w = part.to_pylist()[10]
    assert is_word(packs[0], w) and is_word(packs[1], w)
