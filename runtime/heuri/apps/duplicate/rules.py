"""Duplicate's draw rules: which draws are valid (vowels and consonants by turn), how a
draw is made and redrawn ("rejet"), when no valid draw is left (the end), and which of equal
tops the board takes. The rules are data: the ``[duplicate]`` table of the language spec
(:class:`heuri.core.spec.DuplicateRules`); :mod:`heuri.apps.duplicate` gives the overview.
Racks, leaves and bags are count vectors over tile ids, shape (L+1,), int64, blank last."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...core.errors import HeuriError
from ...core.move import format_rack

if TYPE_CHECKING:  # pragma: no cover
    from ...core.spec import DuplicateRules, LanguageSpec

#: Rejected draws in a row before the rack is built to satisfy the rule directly (the
#: needed vowels and consonants first, then random tiles); only reached when the bag holds
#: very few vowels or consonants. Keeps a master game's length bounded.
MAX_REDRAWS = 200
#: A draw with no legal move is sent back at most this many times in one turn.
MAX_NO_MOVE_REDRAWS = 20


class DuplicateError(HeuriError):
    """Bad duplicate input: a language without a ``[duplicate]`` table, a malformed game
    record or players' sheet (the message names the file, the line and the field)."""


def rules_of(spec: "LanguageSpec") -> "DuplicateRules":
    """The spec's duplicate rules; raises DuplicateError when its spec.toml has none."""
    if spec.duplicate is None:
        raise DuplicateError(f"{spec.name} ({spec.code}): its spec.toml has no [duplicate] table; "
                             f"duplicate needs the draw rule there")
    return spec.duplicate


# -- the draw rule -------------------------------------------------------------------------
def tile_classes(spec: "LanguageSpec") -> tuple[np.ndarray, np.ndarray]:
    """``(is_vowel, is_consonant)``: two (L+1,) bool arrays by tile id, blank last. A tile
    in ``both`` is True in both; the blank follows ``rules.blank``."""
    rules = rules_of(spec)
    v = np.array([t in rules.vowels or t in rules.both for t in spec.tiles] + [rules.blank in ("both", "vowel")])
    c = np.array([t not in rules.vowels for t in spec.tiles] + [rules.blank in ("both", "consonant")])
    return v, c


def minimum(rules: "DuplicateRules", turn: int) -> int:
    """Vowels (and as many consonants) a draw of ``turn`` (1-based) needs."""
    return rules.early_minimum if turn <= rules.early_turns else rules.late_minimum


def count_classes(spec: "LanguageSpec", rack) -> tuple[int, int]:
    """``(vowels, consonants)`` of a count vector (L+1,); a tile counting as both adds 1 to
    each."""
    v, c = tile_classes(spec)
    r = np.asarray(rack, dtype=np.int64)
    return int(r[v].sum()), int(r[c].sum())


def is_valid_draw(spec: "LanguageSpec", rack, turn: int) -> bool:
    """True when the count vector ``rack`` is a valid draw for ``turn`` (1-based): at least
    :func:`minimum` vowels and as many consonants.

    >>> from heuri.spec import load_spec
    >>> fr = load_spec("fr")
    >>> r = lambda s: np.bincount(fr.parse_tiles(s), minlength=fr.n_kinds)
    >>> is_valid_draw(fr, r("AEBCDFG"), 1), is_valid_draw(fr, r("ABCDFGH"), 1), is_valid_draw(fr, r("ABCDFGH"), 16)
    (True, False, True)
    >>> is_valid_draw(fr, r("A?CDFGH"), 1), is_valid_draw(fr, r("YBCDFGH"), 16)
    (True, True)
    """
    m = minimum(rules_of(spec), turn)
    nv, nc = count_classes(spec, rack)
    return nv >= m and nc >= m


def can_draw(spec: "LanguageSpec", pool, turn: int) -> bool:
    """True when some rack of ``min(rack_size, pool size)`` tiles taken from the count vector
    ``pool`` (the leave plus the bag) is valid for ``turn``: the test for the end of a
    duplicate game. Tiles counting as both are used first, each covering one vowel and one
    consonant."""
    p = np.asarray(pool, dtype=np.int64)
    n = min(spec.rack_size, int(p.sum()))
    if n == 0:
        return False
    v, c = tile_classes(spec)
    both = int(p[v & c].sum())
    only_v, only_c = int(p[v & ~c].sum()), int(p[c & ~v].sum())
    m = minimum(rules_of(spec), turn)
    b = min(both, m)
    need = m - b
    return need <= only_v and need <= only_c and b + 2 * need <= n


@dataclass(frozen=True)
class Draw:
    """The tiles of one turn.

    ``turn``: 1-based; ``leave``: tile ids kept from the previous turn (ascending);
    ``new``: tile ids drawn from the bag; ``rejected``: the racks drawn and sent back whole
    before this one, in order (tile-id tuples; the first holds the leave). When a draw was
    rejected, ``leave`` is empty and ``new`` is the whole rack. ``forced``: the rack was
    built to satisfy the rule after :data:`MAX_REDRAWS` rejections."""

    turn: int
    leave: tuple[int, ...]
    new: tuple[int, ...]
    rejected: tuple[tuple[int, ...], ...] = ()
    forced: bool = False

    @property
    def tiles(self) -> tuple[int, ...]:
        """The rack: leave then new tiles (tile ids)."""
        return self.leave + self.new

    def counts(self, spec: "LanguageSpec") -> np.ndarray:
        """The rack as a count vector (L+1,) int64."""
        return np.bincount(np.asarray(self.tiles, dtype=np.int64), minlength=spec.n_kinds).astype(np.int64)

    def text(self, spec: "LanguageSpec") -> str:
        """Rack text in the usual duplicate form ``LEAVE+NEW`` (``AE+IRST?``), or just the
        tiles when nothing was kept."""
        new = format_rack(sorted(self.new), spec)
        return f"{format_rack(sorted(self.leave), spec)}+{new}" if self.leave else new


def _take(rng: np.random.Generator, bag: list[int], k: int) -> list[int]:
    """Remove ``k`` random tiles from the list ``bag`` and return them (in drawn order)."""
    out = []
    for _ in range(min(k, len(bag))):
        out.append(bag.pop(int(rng.integers(len(bag)))))
    return out


def draw_rack(spec: "LanguageSpec", rng: np.random.Generator, leave, bag: list[int], turn: int) -> Draw | None:
    """Complete the leave into a valid draw for ``turn``, the way the arbitrator does.

    ``leave``: tile ids kept from the last turn; ``bag``: the tile ids in the bag (a list,
    changed in place: the drawn tiles leave it, rejected racks go back). Draws
    ``rack_size - len(leave)`` tiles; while the rack breaks the rule (:func:`is_valid_draw`)
    it goes back to the bag whole and ``rack_size`` new tiles are drawn. Returns None,
    leaving ``bag`` and the leave as they were, when no valid draw can be made
    (:func:`can_draw`: the game is over)."""
    leave = sorted(int(t) for t in leave)
    pool = np.bincount(np.asarray(leave + bag, dtype=np.int64), minlength=spec.n_kinds)
    if not can_draw(spec, pool, turn):
        return None
    new = _take(rng, bag, spec.rack_size - len(leave))
    rack = leave + new
    rejected: list[tuple[int, ...]] = []
    forced = False

    def counts(ts):
        return np.bincount(np.asarray(ts, dtype=np.int64), minlength=spec.n_kinds)

    while not is_valid_draw(spec, counts(rack), turn):
        rejected.append(tuple(rack))
        bag.extend(rack)
        if len(rejected) >= MAX_REDRAWS:
            rack, forced = _forced_rack(spec, rng, bag, turn), True
        else:
            rack = _take(rng, bag, spec.rack_size)
        leave, new = [], rack
    return Draw(turn, tuple(leave), tuple(new), tuple(rejected), forced)


def _forced_rack(spec, rng, bag: list[int], turn: int) -> list[int]:
    """A valid rack built on purpose: tiles counting as both, then the missing vowels and
    consonants, each drawn at random among its kind, then random tiles."""
    v, c = tile_classes(spec)
    m = minimum(rules_of(spec), turn)
    out: list[int] = []

    def pick(mask) -> None:
        idx = [i for i, t in enumerate(bag) if mask[t]]
        out.append(bag.pop(idx[int(rng.integers(len(idx)))]))

    nv = nc = 0
    while (nv < m or nc < m) and any(v[t] and c[t] for t in bag) and len(out) < spec.rack_size:
        pick(v & c)
        nv, nc = nv + 1, nc + 1
    while nv < m:
        pick(v & ~c)
        nv += 1
    while nc < m:
        pick(c & ~v)
        nc += 1
    out += _take(rng, bag, spec.rack_size - len(out))
    return out


# -- the master game --------------------------------------------------------------------------
def pick_top(spec: "LanguageSpec", moves: np.ndarray) -> int:
    """Index, in the ``heuri.movegen.MOVE_DTYPE`` array ``moves``, of the master move: the
    highest score; among equal scores the first in board order (row, column, across before
    down, then the tile ids on the squares, then the blank flags). Raises DuplicateError for
    an empty array."""
    if len(moves) == 0:
        raise DuplicateError("no move to pick a top from")
    best = int(moves["score"].max())
    idx = np.flatnonzero(moves["score"] == best)

    def key(i):
        m = moves[i]
        n = int(m["length"])
        return (int(m["row"]), int(m["col"]), 0 if m["across"] else 1,
                tuple(int(x) for x in m["tiles"][:n]), tuple(bool(x) for x in m["blank"][:n]))

    return int(min(idx, key=key))
