"""A brute-force move generator, simple and obviously right, to check heuri.movegen against.

No word graph, no anchors, no incremental scores. For every direction, every line and
every span [start, end] of squares:

1. the span is a possible main word: at least 2 squares, the squares just before and after
   it are empty (or off the board), 1..(tiles on the rack) of its squares are empty, and it
   touches the board (or, on the empty board, is across and covers the centre);
2. the candidate words are the words of the span's length whose letters equal the board
   letters on its occupied squares, whose letter on each empty square forms a valid
   cross-word there (checked by set membership of tile tuples), and whose letters on the
   empty squares the rack can supply (blanks cover any shortfall, except for letters a
   blank cannot represent);
3. for each candidate word, every choice of which empty squares get a blank (each choice
   that the rack can supply) is one move;
4. each move is scored by direct summation over the main word and over every cross-word,
   with premiums under the new tiles only, plus the bingo bonus for rack_size tiles.

Exchanges: every distinct sub-multiset (itertools.product over the counts). Pass: once.

Moves are returned as tuples ``(kind, row, col, across, length, tiles, new, blank,
n_tiles, score)`` (tiles/new/blank: tuples of the main word's length) so that two move
lists compare as sorted lists. Slow (tens to hundreds of ms a position); for tests only.
"""
from __future__ import annotations

import itertools

import numpy as np


class ReferenceGenerator:
    """Brute-force move generator for one language pack (see the module docstring)."""

    def __init__(self, pack):
        self.spec = spec = pack.spec
        self.L = spec.n_letters
        self.N = spec.board_size
        self.values = list(spec.values)
        tiles = pack.table("words").column("tiles").to_pylist()
        self.words = set(tuple(t) for t in tiles)
        self.by_len, self.counts, self.masks = {}, {}, {}
        for n in range(2, self.N + 1):
            rows = [t for t in tiles if len(t) == n]
            W = self.by_len[n] = np.array(rows, np.int64).reshape(-1, n)
            C = self.counts[n] = np.zeros((len(W), self.L), np.uint8)
            for j in range(n):
                np.add.at(C, (np.arange(len(W)), W[:, j]), 1)
            self.masks[n] = ((C > 0).astype(np.uint64) << np.arange(self.L, dtype=np.uint64)).sum(
                axis=1, dtype=np.uint64)
        self.lm = {(r, c): 1 for r in range(self.N) for c in range(self.N)}
        self.wm = dict(self.lm)
        for r, row in enumerate(spec.board):
            for c, ch in enumerate(row):
                if ch == "t":
                    self.lm[(r, c)] = 3
                elif ch == "d":
                    self.lm[(r, c)] = 2
                elif ch == "T":
                    self.wm[(r, c)] = 3
                elif ch in "D*":
                    self.wm[(r, c)] = 2
                if ch == "*":
                    self.centre = (r, c)
        self.blank_ok = np.array([s not in spec.blank_cannot_represent for s in spec.tiles])
        self.blank_ok_list = self.blank_ok.tolist()
        self._index = {}
        self._perps = {}  # per position (cleared by placements)

    # -- helpers ------------------------------------------------------------------------
    def _cands(self, n, j, x):
        key = (n, j, x)
        if key not in self._index:
            self._index[key] = np.flatnonzero(self.by_len[n][:, j] == x)
        return self._index[key]

    def _perp(self, letters, r, c, across):
        """Tiles before and after (r, c) perpendicular to the direction: lists of (r, c)."""
        key = (r, c, across)
        if key in self._perps:
            return self._perps[key]
        self._perps[key] = got = self._perp_scan(letters, r, c, across)
        return got

    def _perp_scan(self, letters, r, c, across):
        dr, dc = (1, 0) if across else (0, 1)
        before, after = [], []
        rr, cc = r - dr, c - dc
        while 0 <= rr < self.N and 0 <= cc < self.N and letters[(rr, cc)] >= 0:
            before.insert(0, (rr, cc))
            rr, cc = rr - dr, cc - dc
        rr, cc = r + dr, c + dc
        while 0 <= rr < self.N and 0 <= cc < self.N and letters[(rr, cc)] >= 0:
            after.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        return before, after

    def allowed(self, letters, r, c, across):
        """Bool vector (L,): letter x may go on (r, c) for a main word in this direction
        (the cross-word it forms is a word); None when no cross-word forms there."""
        before, after = self._perp(letters, r, c, across)
        if not before and not after:
            return None  # no cross-word: every letter
        p = tuple(int(letters[q]) for q in before)
        s = tuple(int(letters[q]) for q in after)
        return np.array([p + (x,) + s in self.words for x in range(self.L)])

    def score(self, letters, blanks, squares, placed, across, n_new):
        """Direct sum: ``squares`` the main word's squares, ``placed`` {square: (letter,
        is_blank)} for the new tiles."""
        total, mult = 0, 1
        for q in squares:
            if q in placed:
                x, b = placed[q]
                total += (0 if b else self.values[x]) * self.lm[q]
                mult *= self.wm[q]
            elif not blanks[q]:
                total += self.values[letters[q]]
        score = total * mult
        for q, (x, b) in placed.items():
            before, after = self._perp(letters, q[0], q[1], across)
            if not before and not after:
                continue
            cross = (0 if b else self.values[x]) * self.lm[q]
            for o in before + after:
                if not blanks[o]:
                    cross += self.values[letters[o]]
            score += cross * self.wm[q]
        if n_new == self.spec.rack_size:
            score += self.spec.bingo_bonus
        return int(score)

    # -- the generator ------------------------------------------------------------------
    def placements(self, letters, blanks, rack):
        rack = np.asarray(rack, np.int64)
        N, L = self.N, self.L
        self._perps = {}
        rack_list = rack.tolist()
        # plain dicts {(r, c): value}: the same board, faster to index from Python
        empty_board = not (np.asarray(letters) >= 0).any()
        letters = {(r, c): int(v) for (r, c), v in np.ndenumerate(np.asarray(letters))}
        blanks = {(r, c): bool(v) for (r, c), v in np.ndenumerate(np.asarray(blanks))}
        occupied = {q: v >= 0 for q, v in letters.items()}
        n_rack = int(rack.sum())
        n_blank = int(rack[L])
        real = rack[:L]
        out = []
        if n_rack == 0:
            return out
        rack_mask = np.uint64(sum(1 << x for x in range(L) if rack[x] > 0))
        cache = {}

        def feasible(n, idx, fixed_letters):
            """The words idx (of length n) whose letters, less the board's fixed_letters,
            the rack supplies: a quick necessary test on letter bitmasks (each letter
            missing from the rack and the board needs a blank), then the exact counts."""
            have = rack_mask | np.uint64(sum(1 << x for x in set(fixed_letters)))
            idx = idx[np.bitwise_count(self.masks[n][idx] & ~have) <= n_blank]
            need = self.counts[n][idx].astype(np.int64)
            for x in fixed_letters:
                need[:, x] -= 1
            deficit = np.maximum(need - real, 0)
            ok = (deficit.sum(axis=1) <= n_blank) & ~(deficit[:, ~self.blank_ok] > 0).any(axis=1)
            return idx[ok]

        allowed_cache = {}
        for across in (True, False):
            if empty_board and not across:
                continue
            for i in range(N):
                for s in range(N):
                    for e in range(s + 1, N):
                        sq = [(i, j) if across else (j, i) for j in range(s, e + 1)]
                        before = (i, s - 1) if across else (s - 1, i)
                        after = (i, e + 1) if across else (e + 1, i)
                        if s > 0 and occupied[before]:
                            continue
                        if e < N - 1 and occupied[after]:
                            continue
                        empties = [k for k, q in enumerate(sq) if not occupied[q]]
                        if not (1 <= len(empties) <= n_rack):
                            continue
                        if empty_board:
                            if self.centre not in sq:
                                continue
                        else:
                            touches = len(empties) < len(sq) or any(
                                self._perp(letters, sq[k][0], sq[k][1], across) != ([], [])
                                for k in empties)
                            if not touches:
                                continue
                        n = len(sq)
                        fixed = [(k, int(letters[q])) for k, q in enumerate(sq) if occupied[q]]
                        W = self.by_len[n]
                        if fixed:
                            idx = self._cands(n, *fixed[0])
                            for k, x in fixed[1:]:
                                idx = idx[W[idx, k] == x]
                            idx = feasible(n, idx, [x for _, x in fixed])
                        else:
                            if n not in cache:
                                cache[n] = feasible(n, np.arange(len(W)), [])
                            idx = cache[n]
                        for k in empties:
                            if len(idx) == 0:
                                break
                            key = (sq[k], across)
                            if key not in allowed_cache:
                                allowed_cache[key] = self.allowed(letters, sq[k][0], sq[k][1], across)
                            if allowed_cache[key] is not None:
                                idx = idx[allowed_cache[key][W[idx, k]]]
                        if len(idx) == 0:
                            continue
                        for w in W[idx].tolist():
                            out.extend(self._assignments(letters, blanks, sq, empties, w, rack_list, across))
        return out

    def _assignments(self, letters, blanks, sq, empties, w, rack, across):
        """Every way the rack supplies word ``w``'s letters on the empty squares: for each
        letter, which of its squares take a blank (at least the shortfall of that letter
        on the rack, at most what the blanks allow), over all letters together."""
        L = self.L
        k = len(empties)
        if not across and k == 1:
            # a one-tile play with a left or right neighbour is written across
            q = sq[empties[0]]
            if self._perp(letters, q[0], q[1], across) != ([], []):
                return []
        n_blank = rack[L]
        at = {}
        for j in empties:
            at.setdefault(w[j], []).append(j)
        options = []
        for x, js in at.items():
            lo = max(0, len(js) - rack[x])
            hi = min(len(js), n_blank) if self.blank_ok_list[x] else 0
            options.append([c for nb in range(lo, hi + 1) for c in itertools.combinations(js, nb)])
        res = []
        new = tuple(letters[q] < 0 for q in sq)
        for choice in itertools.product(*options):
            bpos = [j for c in choice for j in c]
            if len(bpos) > n_blank:
                continue
            placed = {sq[j]: (w[j], j in bpos) for j in empties}
            score = self.score(letters, blanks, sq, placed, across, k)
            res.append((0, sq[0][0], sq[0][1], across, len(sq), tuple(w), new,
                        tuple(j in bpos for j in range(len(sq))), k, score))
        return res

    def exchanges(self, rack, bag_size):
        spec = self.spec
        if bag_size < spec.exchange_min_bag or bag_size <= 0:
            return []
        most = min(spec.rack_size, bag_size)
        kinds = [t for t in range(self.L + 1) if rack[t] > 0]
        out = []
        for counts in itertools.product(*(range(int(rack[t]) + 1) for t in kinds)):
            size = sum(counts)
            if 1 <= size <= most:
                tiles = tuple(t for t, c in zip(kinds, counts) for _ in range(c))
                out.append((1, 0, 0, False, size, tiles, (True,) * size,
                            tuple(t == self.L for t in tiles), size, 0))
        return out

    def moves(self, letters, blanks, rack, bag_size=None, exchanges=True):
        """All moves, as a sorted list of tuples (see the module docstring)."""
        out = self.placements(letters, blanks, rack)
        if exchanges:
            out += self.exchanges(np.asarray(rack), self.spec.rack_size if bag_size is None else bag_size)
            out.append((2, 0, 0, False, 0, (), (), (), 0, 0))
        return sorted(out)


def as_tuples(moves) -> list:
    """heuri.movegen's MOVE_DTYPE array → the reference's sorted tuples."""
    cols = [moves[f].tolist() for f in ("kind", "row", "col", "across", "length", "tiles", "new",
                                         "blank", "n_tiles", "score")]
    return sorted((k, r, c, a, n, tuple(t[:n]), tuple(w[:n]), tuple(b[:n]), nt, s)
                  for k, r, c, a, n, t, w, b, nt, s in zip(*cols))


def to_records(moves: list) -> np.ndarray:
    """The reference's tuples → a MOVE_DTYPE array laid out as heuri.movegen writes it
    (entries after ``length``: tile -1, new and blank False)."""
    from heuri.movegen import MOVE_DTYPE

    out = np.zeros(len(moves), MOVE_DTYPE)
    if not moves:
        return out
    cols = list(zip(*moves))
    for f, col in zip(("kind", "row", "col", "across", "length"), cols[:5]):
        out[f] = col
    out["n_tiles"] = cols[8]
    out["score"] = cols[9]
    out["tiles"] = [t + (-1,) * (15 - len(t)) for t in cols[5]]
    out["new"] = [t + (False,) * (15 - len(t)) for t in cols[6]]
    out["blank"] = [t + (False,) * (15 - len(t)) for t in cols[7]]
    return out


_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63,
                 0x27D4EB2F165667C5, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53], np.uint64)


def row_hashes(moves: np.ndarray) -> np.ndarray:
    """Sorted 64-bit hashes of the moves' bytes: two move arrays hold the same moves (as a
    multiset) exactly when these are equal (up to a 2**-64 chance a pair)."""
    raw = np.ascontiguousarray(moves).view(np.uint8).reshape(len(moves), -1)
    words = raw.view(np.uint64)  # 56 bytes = 7 words
    h = np.zeros(len(moves), np.uint64)
    with np.errstate(over="ignore"):
        for j in range(words.shape[1]):
            h = (h ^ words[:, j]) * _MIX[j]
            h ^= h >> np.uint64(29)
    return np.sort(h)


# -- positions from self-play ----------------------------------------------------------------
def apply_move(letters, blanks, move) -> None:
    """Put a placement's new tiles on the board arrays (in place)."""
    r, c = int(move["row"]), int(move["col"])
    for j in range(int(move["length"])):
        if move["new"][j]:
            q = (r, c + j) if move["across"] else (r + j, c)
            letters[q] = move["tiles"][j]
            blanks[q] = move["blank"][j]


def self_play(pack, n_positions: int, seed: int, greedy: float = 0.5):
    """Positions reached by random self-play with heuri.movegen: each turn plays the top
    scoring placement with probability ``greedy``, else a random placement, racks drawn
    from a shuffled bag (seeded). Yields ``(letters, blanks, rack, unseen, bag_size)``
    before each move: ``rack`` the mover's rack, ``unseen`` (L+1,) the tiles not on the
    board (bag and both racks)."""
    from heuri.movegen import generate

    spec = pack.spec
    L, N = spec.n_letters, spec.board_size
    rng = np.random.default_rng(seed)
    made = 0
    while made < n_positions:
        bag = [t for t in range(L + 1) for _ in range(int(spec.distribution()[t]))]
        rng.shuffle(bag)
        letters = np.full((N, N), -1, np.int8)
        blanks = np.zeros((N, N), bool)
        racks = [np.zeros(L + 1, np.int64), np.zeros(L + 1, np.int64)]
        for rk in racks:
            for _ in range(spec.rack_size):
                rk[bag.pop()] += 1
        player = 0
        while made < n_positions:
            rack = racks[player]
            unseen = rack + racks[1 - player] + np.bincount(np.array(bag, np.int64), minlength=L + 1)
            yield letters.copy(), blanks.copy(), rack.copy(), unseen, len(bag)
            made += 1
            moves = generate(pack, letters, blanks, rack, bag_size=len(bag), exchanges=False)
            if len(moves) == 0:
                break
            k = int(moves["score"].argmax()) if rng.random() < greedy else int(rng.integers(len(moves)))
            m = moves[k]
            apply_move(letters, blanks, m)
            for j in range(int(m["length"])):
                if m["new"][j]:
                    rack[L if m["blank"][j] else m["tiles"][j]] -= 1
            while rack.sum() < spec.rack_size and bag:
                rack[bag.pop()] += 1
            if rack.sum() == 0:
                break
            player = 1 - player


def random_rack(spec, unseen, n_blanks: int, rng) -> np.ndarray:
    """A rack of ``rack_size`` tiles (fewer when too few are unseen) with exactly
    ``n_blanks`` blanks, the letters drawn from the unseen letters."""
    L = spec.n_letters
    pool = [t for t in range(L) for _ in range(int(unseen[t]))]
    k = min(spec.rack_size - n_blanks, len(pool))
    rack = np.zeros(L + 1, np.int64)
    for t in rng.choice(np.array(pool, np.int64), size=k, replace=False) if k > 0 else []:
        rack[t] += 1
    rack[L] = n_blanks
    return rack
