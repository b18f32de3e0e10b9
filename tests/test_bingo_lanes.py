"""heuri.bingo.bingo_lanes (the web board's overlay) against a brute force that shares
nothing with it: every run of R empty squares (or R + 1 through one tile) whose ends are
free, that connects to the board, and where some word of the pack's word table fits with
every cross-word it makes in the pack's word table, checked word by word."""
from __future__ import annotations

import numpy as np
import pytest

from heuri.bingo import bingo_lanes, random_board


def _words(pack, n: int) -> np.ndarray:
    t = pack.table("words")
    ln = t.column("length").to_numpy()
    return np.array([w for w, k in zip(t.column("tiles").to_pylist(), ln) if k == n], np.int16)


def _allowed(letters, words_set, r, c, across, L) -> np.ndarray | None:
    """Letters that may go on the empty square (r, c) of a line read ``across`` (or
    down): those whose perpendicular word (when it has neighbours) is a word; None when
    the square has no perpendicular neighbour (every letter)."""
    N = letters.shape[0]
    dr, dc = (1, 0) if across else (0, 1)
    before, after = [], []
    rr, cc = r - dr, c - dc
    while 0 <= rr < N and 0 <= cc < N and letters[rr, cc] >= 0:
        before.insert(0, int(letters[rr, cc]))
        rr, cc = rr - dr, cc - dc
    rr, cc = r + dr, c + dc
    while 0 <= rr < N and 0 <= cc < N and letters[rr, cc] >= 0:
        after.append(int(letters[rr, cc]))
        rr, cc = rr + dr, cc + dc
    if not before and not after:
        return None
    return np.array([tuple(before + [x] + after) in words_set for x in range(L)])


def _reference(pack, letters, words_set, w7, w8):
    spec = pack.spec
    N, R, L = spec.board_size, spec.rack_size, spec.n_letters
    out = []
    for across in (True, False):
        for r in range(N):
            for s in range(N):
                for n in (R, R + 1):
                    sq = [(r, s + i) if across else (s + i, r) for i in range(n)]
                    if sq[-1][0] >= N or sq[-1][1] >= N:
                        continue
                    tiles = [int(letters[a, b]) for a, b in sq]
                    if sum(t >= 0 for t in tiles) != (n - R):
                        continue
                    pre = (sq[0][0], sq[0][1] - 1) if across else (sq[0][0] - 1, sq[0][1])
                    post = (sq[-1][0], sq[-1][1] + 1) if across else (sq[-1][0] + 1, sq[-1][1])
                    if any(0 <= a < N and 0 <= b < N and letters[a, b] >= 0 for a, b in (pre, post)):
                        continue
                    ok = (w7 if n == R else w8).copy() >= 0
                    ok = ok.all(axis=1)
                    hooked = n == R + 1
                    for i, ((a, b), t) in enumerate(zip(sq, tiles)):
                        words = w7 if n == R else w8
                        if t >= 0:
                            ok &= words[:, i] == t
                            continue
                        allow = _allowed(letters, words_set, a, b, across, L)
                        if allow is not None:
                            hooked = True
                            ok &= allow[words[:, i]]
                    if not (letters >= 0).any():  # the first move: through the centre
                        hooked = (7, 7) in sq and n == R
                    if hooked and ok.any():
                        out.append((sq[0][0], sq[0][1], across, n))
    return sorted(out, key=lambda t: (not t[2], t[0], t[1], t[3]))


@pytest.fixture(scope="module")
def en_words(pack_en):
    """(every word as a tuple of tile ids, the 7-tile words, the 8-tile words)."""
    return ({tuple(w) for w in pack_en.table("words").column("tiles").to_pylist()}, _words(pack_en, 7),
            _words(pack_en, 8))


@pytest.mark.parametrize("seed", [3, 8])
def test_lanes_match_a_brute_force(pack_en, en_words, seed):
    pack = pack_en
    words_set, w7, w8 = en_words
    rng = np.random.default_rng(seed)
    letters, _ = random_board(pack, 10, rng)
    got = bingo_lanes(pack, letters)
    assert got == _reference(pack, letters, words_set, w7, w8)
    assert len(got) > 5  # a real midgame board has lanes of both kinds
    assert {n for *_, n in got} == {7, 8}


def test_lanes_of_the_empty_board(pack_en):
    empty = np.full((15, 15), -1, np.int8)
    got = bingo_lanes(pack_en, empty)
    assert len(got) == 14 and all((r == 7 and c <= 7 <= c + 6) or (c == 7 and r <= 7 <= r + 6)
                                  for r, c, _, _ in got)
