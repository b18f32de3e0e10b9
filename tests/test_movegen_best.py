"""heuri.movegen.generate_best: the best-N placements by score are exactly the full
generator's placements sorted by score (stable: equal scores in generation order) and cut
to N, on self-play positions and on the positions of the real game records."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from reference_movegen import random_rack, self_play  # noqa: E402
from shared_cases import ALL_CASES  # noqa: E402

from heuri.movegen import MOVE_DTYPE, MoveGenError, generate, generate_best, rack_vector  # noqa: E402


def sorted_full(pack, letters, blanks, rack, rules=None):
    full = generate(pack, letters, blanks, rack, exchanges=False, rules=rules)
    return full[np.argsort(-full["score"], kind="stable")]


def same(a, b) -> bool:
    return len(a) == len(b) and all(np.array_equal(a[f], b[f]) for f in MOVE_DTYPE.names)


def check(pack, letters, blanks, rack, ns=(1, 4, 12)) -> int:
    """Compare generate_best with the sorted full list for each n; returns 1 when the top
    score is shared by several placements (a tie the order must settle)."""
    want = sorted_full(pack, letters, blanks, rack)
    for n in ns:
        got = generate_best(pack, letters, blanks, rack, n=n)
        if not same(got, want[:n]):
            rk = pack.spec.format_tiles(np.repeat(np.arange(len(rack)), rack), "?")
            pytest.fail(f"rack {rk} n={n}: best {got['score'].tolist()} vs sorted full "
                        f"{want[:n]['score'].tolist()} (of {len(want)} placements)")
    return int(len(want) > 1 and want[0]["score"] == want[1]["score"])


@pytest.mark.parametrize("lang", ["es", "en", "fr"])
def test_best_equals_sorted_full_self_play(lang, request):
    pack = request.getfixturevalue(f"pack_{lang}")
    rng = np.random.default_rng(17)
    ties = checked = 0
    for k, (letters, blanks, rack, unseen, bag) in enumerate(self_play(pack, 90, seed=17)):
        nb = k % 3
        r = rack if nb == 0 else random_rack(pack.spec, unseen, nb, rng)
        ties += check(pack, letters, blanks, r)
        checked += 1
    assert checked == 90
    assert ties > 0  # equal top scores occur, and their order matched


@pytest.mark.parametrize("lang", ["es", "en", "fr"])
def test_best_equals_sorted_full_real_records(lang, request):
    """Every turn of the real game records whose rack the record gives (up to 150 a
    language), with the record's own rack."""
    from heuri.errors import HeuriError
    from heuri.gcg import read_gcg_file, replay
    from heuri.move import parse_rack

    pack = request.getfixturevalue(f"pack_{lang}")
    spec = pack.spec
    n_pos = 0
    for f in sorted((ALL_CASES / lang).glob("*.gcg")):
        try:
            rep = replay(read_gcg_file(f), spec)
        except HeuriError:
            continue
        for k, st in enumerate(rep.steps):
            ev = st.event
            if not ev.rack or ev.kind not in ("play", "exchange", "pass"):
                continue
            try:
                r = rack_vector(spec, "".join(ev.rack.split()))
                parse_rack(ev.rack, spec)
            except HeuriError:
                continue
            if r.sum() > spec.rack_size:
                continue
            b = rep.board_at(k)
            check(pack, b.letters, b.blanks, r, ns=(1, 5))
            n_pos += 1
            if n_pos == 150:
                return
    if n_pos == 0:
        pytest.fail(f"no {lang} record with racks under {ALL_CASES}")


def test_best_on_the_empty_board_and_errors(pack_en):
    """AEINRST on the empty board: the top is a 7-tile bingo (the rack is a septet); an
    empty rack has no placement; n=0 and malformed racks are refused."""
    spec = pack_en.spec
    letters = np.full((15, 15), -1, np.int8)
    blanks = np.zeros((15, 15), bool)
    r = rack_vector(spec, "AEINRST")
    want = sorted_full(pack_en, letters, blanks, r)
    got = generate_best(pack_en, letters, blanks, r, n=3)
    assert same(got, want[:3])
    assert int(got[0]["n_tiles"]) == 7 and int(got[0]["score"]) == int(want["score"].max())
    assert len(generate_best(pack_en, letters, blanks, np.zeros(spec.n_kinds, np.int64))) == 0
    with pytest.raises(MoveGenError, match="n must be at least 1"):
        generate_best(pack_en, letters, blanks, r, n=0)
    with pytest.raises(MoveGenError, match="rack"):
        generate_best(pack_en, letters, blanks, np.ones(3, np.int64))


def test_best_obeys_the_rules_bingo_bonus(pack_en):
    """A CGP's ``bb`` changes the bingo bonus, and with it which move is top."""
    import dataclasses

    spec = pack_en.spec
    letters = np.full((15, 15), -1, np.int8)
    blanks = np.zeros((15, 15), bool)
    r = rack_vector(spec, "AEINRST")
    rules = dataclasses.replace(spec, bingo_bonus=0) if dataclasses.is_dataclass(spec) else None
    if rules is None:
        pytest.skip("LanguageSpec is not a dataclass")
    want = sorted_full(pack_en, letters, blanks, r, rules=rules)
    got = generate_best(pack_en, letters, blanks, r, n=5, rules=rules)
    assert same(got, want[:5])


@pytest.mark.parametrize("lang", ["es", "en", "fr"])
def test_rack_words_equal_a_scan_of_the_word_list(lang, request):
    """_rack_words (the bound's "a span of rack tiles only needs a word of that length"):
    for 40 random blank-free racks, the highest face-value sum of a k-tile word the rack
    spells, for every k, equals a scan of the pack's word list; a rack with a blank is
    unconstrained."""
    from collections import Counter

    from heuri import movegen as mg

    pack = request.getfixturevalue(f"pack_{lang}")
    spec = pack.spec
    L, R = spec.n_letters, spec.rack_size
    ctx = mg.kernel_context(pack)
    words = [tuple(t) for t in pack.table("words").column("tiles").to_pylist() if len(t) <= R]
    dist = spec.distribution()
    pool = np.repeat(np.arange(L), dist[:L])
    rng = np.random.default_rng(17)
    found = 0
    for _ in range(40):
        rack = np.bincount(rng.choice(pool, size=R, replace=False), minlength=L + 1).astype(np.int64)
        have = Counter({t: int(rack[t]) for t in range(L) if rack[t]})
        want = np.full(R + 1, -1, np.int64)
        for w in words:
            if not Counter(w) - have:
                want[len(w)] = max(want[len(w)], sum(spec.values[t] for t in w))
        got = np.zeros(R + 1, np.int64)
        before = rack.copy()
        mg._rack_words(ctx.g, ctx.hw, ctx.root, rack, L, ctx.values, got)
        assert np.array_equal(rack, before)  # restored
        assert got[2:].tolist() == want[2:].tolist(), spec.format_tiles(np.repeat(np.arange(L + 1), rack), "?")
        found += int((want[2:] >= 0).sum())
    assert found > 40  # most racks spell some words
    rack[L] = 1
    mg._rack_words(ctx.g, ctx.hw, ctx.root, rack, L, ctx.values, got)
    assert (got[2:] >= 1 << 30).all()


def test_bingo_through_two_board_tiles(pack_en):
    """The long alphagrams (pipeline/long_alphagrams.py) cut the bound of whole-rack spans
    through two or more board tiles whose multiset spells no word, and keep the real ones:
    on self-play positions the bounds with them are at most those without (lower on some
    anchors) and best-N is the sorted full list either way; on a board with C and R apart on
    row 8, the rack AHIOTED plays CHARIOTED through both as the top move."""
    from heuri import movegen as mg

    spec = pack_en.spec
    ctx = mg.kernel_context(pack_en)
    ph = mg._long_hashes(pack_en, ctx)
    assert len(ph) > 64  # the pack has the artifact
    # an artifact that does not match the pack's manifest is not used (no check, no pruning)
    from types import SimpleNamespace

    stale = SimpleNamespace(root=pack_en.root, spec=spec,
                            manifest={"counts": {**pack_en.manifest["counts"], "long_alphagrams": 1}})
    assert len(mg._long_hashes(stale, SimpleNamespace(longw=[]))) == 64
    assert np.array_equal(mg._long_hashes(pack_en, SimpleNamespace(longw=[])), ph)
    lower = 0
    I64 = ctx.scratch[0]
    for letters, blanks, rack, unseen, bag in self_play(pack_en, 30, seed=5):
        if rack.sum() < spec.rack_size or rack[spec.n_letters] > 0:
            continue
        check(pack_en, letters, blanks, rack, ns=(1, 3))
        le, _ = mg._board(ctx, letters, blanks)
        na = mg._anchors(le, not (le >= 0).any(), ctx.centre[0], ctx.centre[1], I64[17], I64[18], I64[19])
        with_ph = I64[21][:na].copy()
        ctx.longw[0] = np.zeros(64, np.uint64)
        try:
            got = generate_best(pack_en, letters, blanks, rack, n=3)
            without = I64[21][:na].copy()
        finally:
            ctx.longw[0] = ph
        assert same(got, sorted_full(pack_en, letters, blanks, rack)[:3])
        assert (with_ph <= without).all()
        lower += int((with_ph < without).any())
    assert lower > 0
    letters = np.full((15, 15), -1, np.int8)
    blanks = np.zeros((15, 15), bool)
    letters[7, 3] = spec.parse_tiles("C")[0]
    letters[7, 6] = spec.parse_tiles("R")[0]
    r = rack_vector(spec, "AHIOTED")
    want = sorted_full(pack_en, letters, blanks, r)
    got = generate_best(pack_en, letters, blanks, r, n=2)
    assert same(got, want[:2])
    top = got[0]
    assert spec.format_tiles(top["tiles"][:top["length"]].tolist()) == "CHARIOTED"
    assert int(top["n_tiles"]) == 7 and int(top["score"]) == int(want["score"].max())
