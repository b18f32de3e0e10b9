"""heuri.bingo: δ on hand-built boards, against an independent reference on random boards,
δ of every key with blanks as the OR of its children, and δ after a move."""
from __future__ import annotations

import numpy as np
import pytest

from heuri.bingo import BoardDelta, BoardError, bingo_index, delta, random_board
from heuri.bingo import cross_masks_by_direction as cross_checks

N = 15


def empty():
    return np.full((N, N), -1, np.int8)


def ids(spec, word):
    return np.array(spec.tokenise(word), np.int8)


def word_sets(pack):
    """Every word as a tuple of tile ids (independent of the index's codes)."""
    t = pack.table("words")
    return frozenset(tuple(w) for w in t.column("tiles").to_pylist())


# -- an independent reference -------------------------------------------------------------
def ref_cross(pack, words, letters):
    """Cross-check masks for across plays by direct word look-ups: (cc, has)."""
    L = pack.spec.n_letters
    full = (1 << L) - 1
    cc = np.zeros((N, N), object)
    has = np.zeros((N, N), bool)
    for r in range(N):
        for c in range(N):
            if letters[r, c] >= 0:
                cc[r, c] = 0
                continue
            up, dn = r, r
            while up > 0 and letters[up - 1, c] >= 0:
                up -= 1
            while dn < N - 1 and letters[dn + 1, c] >= 0:
                dn += 1
            if up == dn == r:
                cc[r, c] = full
                continue
            has[r, c] = True
            seg = [int(x) for x in letters[up:dn + 1, c]]
            m = 0
            for x in range(L):
                seg[r - up] = x
                if tuple(seg) in words:
                    m |= 1 << x
            cc[r, c] = m
    return cc, has


def words_of(pack, n):
    """The words of n tiles as an (m, n) int64 array (from words.parquet, not the index)."""
    t = pack.table("words")
    tiles = [w for w, ln in zip(t.column("tiles").to_pylist(), t.column("length").to_pylist())
             if ln == n]
    return np.array(tiles, np.int64).reshape(-1, n)


def ref_landable(pack, words, letters):
    """(set of septet alphagrams that land, set of (octet rest alphagram) that land): the
    blank-free multisets, as sorted tuples, by scanning every lane against every word."""
    R = pack.spec.rack_size
    w7 = words_of(pack, R)
    w8 = words_of(pack, R + 1)
    full = (1 << pack.spec.n_letters) - 1
    empty_board = not (letters >= 0).any()
    land = set()
    for lt in (letters, letters.T.copy()):
        cc, has = ref_cross(pack, words, lt)
        for r in range(N):
            for s in range(N - R + 1):
                e = s + R
                if (s > 0 and lt[r, s - 1] >= 0) or (e < N and lt[r, e] >= 0):
                    pass
                elif (lt[r, s:e] < 0).all() and all(cc[r, c] for c in range(s, e)):
                    conn = any(has[r, s:e]) if not empty_board else (r == 7 and s <= 7 < e)
                    if conn:
                        ok = np.ones(len(w7), bool)
                        for i in range(R):
                            m = cc[r, s + i]
                            if m != full:
                                ok &= np.array([(m >> int(x)) & 1 for x in range(pack.spec.n_letters)],
                                               bool)[w7[:, i]]
                        for w in w7[ok]:
                            land.add(tuple(sorted(w)))
                e = s + R + 1
                if empty_board or e > N:
                    continue
                if (s > 0 and lt[r, s - 1] >= 0) or (e < N and lt[r, e] >= 0):
                    continue
                occ = np.flatnonzero(lt[r, s:e] >= 0)
                if len(occ) != 1:
                    continue
                j = int(occ[0])
                if not all(cc[r, s + i] for i in range(R + 1) if i != j):
                    continue
                ok = w8[:, j] == lt[r, s + j]
                for i in range(R + 1):
                    m = cc[r, s + i]
                    if i != j and m != full:
                        ok &= np.array([(m >> int(x)) & 1 for x in range(pack.spec.n_letters)], bool)[w8[:, i]]
                for w in w8[ok]:
                    rest = list(w)
                    del rest[j]
                    land.add(tuple(sorted(rest)))
    return land


def ref_delta_for(pack, land, key_rows_):
    """δ of the given keys (rows of tile ids, blank = L) from the landable multisets."""
    from collections import Counter

    blank = pack.spec.blank
    land_c = [Counter(m) for m in land]
    out = []
    for row in key_rows_:
        row = [int(x) for x in row]
        if blank not in row:
            out.append(tuple(sorted(row)) in land)
            continue
        need = Counter(x for x in row if x != blank)
        out.append(any(all(m[x] >= c for x, c in need.items()) for m in land_c))
    return np.array(out)


def key_rows(pack):
    from heuri.probability import key_rows as kr

    return kr(pack)


# -- tests ---------------------------------------------------------------------------------
def test_empty_board_all_septets(real_pack):
    d = delta(real_pack, empty())
    assert (d == real_pack.keys.is_septet).all()


def test_wall_closes_every_septet_and_octets_need_the_wall_tile(pack_es):
    """A cross-shaped wall (row 8 and column H full of A) leaves no 7-square lane: δ = 0 for
    every pure septet; every other lane is an 8-square lane through one wall tile, with
    the tile at any position, so a key lands exactly when A completes it."""
    spec = pack_es.spec
    b = empty()
    a = spec.tile_id("A")
    b[7, :] = a
    b[:, 7] = a
    d = delta(pack_es, b)
    keys = pack_es.keys
    assert not d[keys.is_pure_septet].any()
    want = ((np.asarray(keys.completers) >> np.uint64(a)) & np.uint64(1)).astype(bool)
    assert (d == want).all()
    assert want.sum() > 1000


def test_wall_letter_matters(pack_en):
    """The same wall of Q: only keys that Q completes can land (very few)."""
    spec = pack_en.spec
    b = empty()
    q = spec.tile_id("Q")
    b[7, :] = q
    b[:, 7] = q
    d = delta(pack_en, b)
    want = ((np.asarray(pack_en.keys.completers) >> np.uint64(q)) & np.uint64(1)).astype(bool)
    assert (d == want).all()
    assert 0 < d.sum() < 0.05 * len(d)


def one_lane_board(spec):
    """Every square filled except rows 1-2 columns A-H and a checkerboard of holes below
    row 3: the one septet lane is row 2, columns A-G (hooked onto row 3)."""
    b = np.full((N, N), spec.tile_id("E"), np.int8)
    b[0:2, 0:8] = -1
    b[2, :] = spec.tile_id("A")
    for r in range(3, N):
        for c in range(N):
            if (r + c) % 2:
                b[r, c] = -1
            else:
                b[r, c] = spec.tile_id("S")
    return b


def test_one_open_lane(pack_es):
    """One lane: exactly the blank-free pure septets with a word fitting its cross-checks
    land (cross-checks from direct word look-ups), and a sample of blank keys agrees."""
    spec = pack_es.spec
    b = one_lane_board(spec)
    words = word_sets(pack_es)
    cc, has = ref_cross(pack_es, words, b)
    assert has[1, :7].all() and not has[0, :7].any()
    assert 0 < min(bin(cc[1, c]).count("1") for c in range(7))  # the lane is open
    d = delta(pack_es, b)
    w7 = words_of(pack_es, 7)
    ok = np.ones(len(w7), bool)
    for i in range(7):
        m = cc[1, i]
        ok &= np.array([(m >> x) & 1 for x in range(spec.n_letters)], bool)[w7[:, i]]
    fit = {tuple(sorted(w)) for w in w7[ok]}
    rows = key_rows(pack_es)
    pure = np.flatnonzero(np.asarray(pack_es.keys.is_pure_septet))
    noblank = pure[(rows[pure] != spec.blank).all(axis=1)]
    want = np.array([tuple(rows[i]) in fit for i in noblank])
    assert want.sum() > 0 and (~want).sum() > 0
    assert (d[noblank] == want).all()
    # the octet lanes: none exist on this board, so only septet words matter
    land = ref_landable(pack_es, words, b)
    assert land == fit
    rng = np.random.default_rng(0)
    withb = np.flatnonzero((rows == spec.blank).any(axis=1))
    sample = rng.choice(withb, 300, replace=False)
    assert (d[sample] == ref_delta_for(pack_es, land, rows[sample])).all()


@pytest.mark.parametrize("lang,seed", [("es", 1), ("en", 2), ("fr", 3)])
def test_random_boards_match_reference(lang, seed, request):
    """δ on random legal boards equals the reference built from every lane and every word
    (blank-free keys exactly; a sample of blank keys)."""
    pack = request.getfixturevalue(f"pack_{lang}")
    spec = pack.spec
    words = word_sets(pack)
    rng = np.random.default_rng(seed)
    rows = key_rows(pack)
    noblank = np.flatnonzero((rows != spec.blank).all(axis=1))
    withb = np.flatnonzero((rows == spec.blank).any(axis=1))
    for n_words in (3, 12):
        b, _ = random_board(pack, n_words, rng)
        d = delta(pack, b)
        land = ref_landable(pack, words, b)
        want = np.array([tuple(r) in land for r in map(tuple, rows[noblank])])
        assert (d[noblank] == want).all(), f"{lang} board with {n_words} words"
        sample = rng.choice(withb, 150, replace=False)
        assert (d[sample] == ref_delta_for(pack, land, rows[sample])).all()
        assert 0 < d.sum() < len(d)


def test_cross_checks_match_reference(pack_fr):
    rng = np.random.default_rng(4)
    words = word_sets(pack_fr)
    b, _ = random_board(pack_fr, 15, rng)
    cca, hasa, ccd, hasd = cross_checks(pack_fr, b)
    cc, has = ref_cross(pack_fr, words, b)
    assert (hasa == has).all()
    assert all(int(cca[r, c]) == cc[r, c] for r in range(N) for c in range(N))
    cc2, has2 = ref_cross(pack_fr, words, b.T.copy())
    assert (hasd == has2.T).all()
    assert all(int(ccd[r, c]) == cc2[c, r] for r in range(N) for c in range(N))


@pytest.mark.parametrize("lang,seed", [("es", 5), ("en", 6)])
def test_bits_after_and_leave_holders(lang, seed, request):
    """BoardDelta.bits_after equals δ of the board with the move's tiles placed, for
    generated moves on random boards; BingoIndex.holding(leave) is exactly the keys that
    hold the leave (from the key counts)."""
    from heuri.evaluate import _new_squares
    from heuri.movegen import generate, leaves

    pack = request.getfixturevalue(f"pack_{lang}")
    spec = pack.spec
    rng = np.random.default_rng(seed)
    counts = np.asarray(pack.keys.counts)
    ix = bingo_index(pack)
    checked = 0
    for n_words in (2, 6, 14):
        b, bl = random_board(pack, n_words, rng)
        bd = BoardDelta(pack, b)
        tiles = np.repeat(np.arange(spec.n_kinds), spec.distribution())
        rng.shuffle(tiles)
        rack = np.bincount(tiles[:7], minlength=spec.n_kinds)
        moves = generate(pack, b, bl, rack)
        moves = moves[moves["kind"] == 0]
        lv = leaves(rack, moves)
        for i in rng.choice(len(moves), min(6, len(moves)), replace=False):
            rows_, cols_, t = _new_squares(moves[i])
            after = b.copy()
            after[rows_, cols_] = t
            got = np.unpackbits(bd.bits_after(rows_, cols_, t).view(np.uint8),
                                bitorder="little", count=len(counts)).astype(bool)
            assert (got == delta(pack, after)).all()
            assert (bd.letters == b).all()  # the board itself is left as it was
            hold = np.unpackbits(ix.holding(lv[i]).view(np.uint8), bitorder="little",
                                 count=len(counts)).astype(bool)
            assert (hold == (counts >= lv[i]).all(axis=1)).all()
            checked += 1
    assert checked >= 10


def test_first_move_after(pack_en):
    """δ after the first move: the centre rule stops applying, the octets through the
    word's tiles start to land."""
    spec = pack_en.spec
    bd = BoardDelta(pack_en, empty())
    w = ids(spec, "QUIZ")
    bits = bd.bits_after([7, 7, 7, 7], [6, 7, 8, 9], w)
    after = empty()
    after[7, 6:10] = w
    d = np.unpackbits(bits.view(np.uint8), bitorder="little", count=len(bd.delta)).astype(bool)
    assert (d == delta(pack_en, after)).all()
    assert (d & ~np.asarray(pack_en.keys.is_septet)).any()


def test_bad_board(pack_en):
    with pytest.raises(BoardError, match="shape"):
        delta(pack_en, np.full((9, 9), -1, np.int8))
    b = empty()
    b[0, 0] = 40
    with pytest.raises(BoardError, match="ids"):
        delta(pack_en, b)
    b2 = empty()
    b2[7, 7] = 0
    with pytest.raises(BoardError, match="occupied"):
        BoardDelta(pack_en, b2).bits_after([7], [7], [1])
    with pytest.raises(BoardError, match="off the"):
        BoardDelta(pack_en, b2).bits_after([7], [15], [1])


@pytest.mark.parametrize("max_blanks", [0, 1])
def test_max_blanks(pack_en, max_blanks):
    """δ limited to keys with at most max_blanks blanks equals the full δ on those keys
    (False elsewhere), before and after a move."""
    from heuri.evaluate import _new_squares
    from heuri.movegen import generate

    spec = pack_en.spec
    rng = np.random.default_rng(20 + max_blanks)
    nbk = (key_rows(pack_en) == spec.blank).sum(axis=1)
    ok = nbk <= max_blanks
    b, bl = random_board(pack_en, 8, rng)
    full = BoardDelta(pack_en, b)
    lim = BoardDelta(pack_en, b, max_blanks=max_blanks)
    assert (lim.delta[ok] == full.delta[ok]).all() and not lim.delta[~ok].any()
    rack = np.bincount(spec.parse_tiles("AEINRST"), minlength=spec.n_kinds)
    moves = generate(pack_en, b, bl, rack)
    moves = moves[moves["kind"] == 0]
    for i in rng.choice(len(moves), 5, replace=False):
        sq = _new_squares(moves[i])
        after = b.copy()
        after[sq[0], sq[1]] = sq[2]
        want = delta(pack_en, after)
        d = np.unpackbits(lim.bits_after(*sq).view(np.uint8), bitorder="little",
                          count=len(want)).astype(bool)
        assert (d[ok] == want[ok]).all() and not d[~ok].any()


def encode_rows(rows):
    """Sorted tile rows → the key codes of ``pack.keys.code`` (6 bits a tile, first tile
    in the high bits), written here again so that the test does not use the index."""
    code = np.zeros(len(rows), np.int64)
    for j in range(rows.shape[1]):
        code = (code << 6) | rows[:, j].astype(np.int64)
    return code


@pytest.mark.parametrize("lang,seed", [("es", 7), ("en", 8), ("fr", 9)])
def test_every_blank_key_is_the_or_of_its_children(lang, seed, request):
    """Every key with blanks lands exactly when a key obtained by giving one of its
    blanks a letter lands (all keys with blanks, on a midgame board and on the empty
    board; the children are found from the key codes, not from the index)."""
    pack = request.getfixturevalue(f"pack_{lang}")
    spec = pack.spec
    rows = key_rows(pack)
    codes = np.asarray(pack.keys.code)
    withb = np.flatnonzero((rows == spec.blank).any(axis=1))
    brows = rows[withb].copy()  # sorted: the blanks last
    rng = np.random.default_rng(seed)
    for board in (random_board(pack, 10, rng)[0], empty()):
        d = delta(pack, board)
        want = np.zeros(len(withb), bool)
        for x in range(spec.n_letters):
            child = brows.copy()
            child[:, -1] = x
            c = encode_rows(np.sort(child, axis=1))
            at = np.minimum(np.searchsorted(codes, c), len(codes) - 1)
            found = codes[at] == c
            want |= found & d[at]
        assert (d[withb] == want).all()
        assert want.any() and not want.all()


@pytest.mark.parametrize("lang,seed", [("es", 31), ("en", 32), ("fr", 33)])
def test_delta_agrees_with_the_move_generator(lang, seed, request):
    """δ(rack) = 1 exactly when the move generator (checked against a brute-force
    generator elsewhere) finds a bingo of the whole rack as a 7-tile word in an empty lane
    or an 8-tile word through one board tile; racks are keys of the key set, blanks
    included, on random boards."""
    from heuri.movegen import generate

    pack = request.getfixturevalue(f"pack_{lang}")
    spec = pack.spec
    rng = np.random.default_rng(seed)
    counts = np.asarray(pack.keys.counts).astype(np.int64)
    bingos = checked = 0
    for n_words in (4, 9, 14, 20):
        b, bl = random_board(pack, n_words, rng)
        d = delta(pack, b)
        for k in rng.choice(len(counts), 12, replace=False):
            moves = generate(pack, b, bl, counts[k], exchanges=False)
            bingo = ((moves["kind"] == 0) & (moves["n_tiles"] == 7) & (moves["length"] <= 8)).any()
            assert d[k] == bingo, f"{lang} key {k}: δ {d[k]}, generator {bingo}"
            bingos += bingo
            checked += 1
    assert checked == 48 and 5 <= bingos < checked


@pytest.mark.parametrize("lang,seed", [("es", 11), ("en", 12)])
def test_bits_after_by_line_unions(lang, seed, request):
    """From the LINES_AFTER-th call on, bits_after walks only the lines a move changes and
    takes the others from the line unions: the same bits as δ of the new board, for many
    generated moves (across and down, hooks, blanks allowed up to max_blanks); the unions
    of every row with every column give δ of the board itself."""
    from heuri.bingo import LINES_AFTER
    from heuri.evaluate import _new_squares
    from heuri.movegen import generate
    from heuri.probability import augmented_bag

    pack = request.getfixturevalue(f"pack_{lang}")
    spec = pack.spec
    rng = np.random.default_rng(seed)
    checked = 0
    for n_words, max_blanks in ((1, 2), (5, 1), (12, 2), (20, 0)):
        b, bl = random_board(pack, n_words, rng)
        pool = augmented_bag(spec, b, bl, np.zeros(spec.n_kinds, np.int64))
        rack = np.bincount(rng.permutation(np.repeat(np.arange(spec.n_kinds), pool))[:7],
                           minlength=spec.n_kinds)
        moves = generate(pack, b, bl, rack, exchanges=False)
        moves = moves[moves["kind"] == 0]
        bd = BoardDelta(pack, b, max_blanks=max_blanks)
        _, _, pre_a, _, pre_d, _ = bd.lines
        keep = bd.ix.keep_mask(max_blanks)
        whole = pre_a[-1] | pre_d[-1]
        assert (whole & keep if keep is not None else whole).tolist() == bd.delta_bits.tolist()
        for i in rng.choice(len(moves), min(25, len(moves)), replace=False):
            sq = _new_squares(moves[i])
            after = b.copy()
            after[sq[0], sq[1]] = sq[2]
            want = BoardDelta(pack, after, max_blanks=max_blanks).delta_bits
            assert (bd.bits_after(*sq) == want).all()
            checked += bd._after_calls >= LINES_AFTER
    assert checked >= 60
