"""A move's value broken into named terms a player can read.

Every evaluator ranks a turn's candidates by their equity ``v`` (:class:`heuri.eval.evaluate.
Ranking`). The equity is a sum of terms, all in points, each computed on the real board and
the unseen tiles:

- ``score``: the points the move scores (j);
- ``bingo``: the expected value of a bingo next turn with the tiles kept (e): the chance of
  drawing into a bingo (``bingo_probability``, p) times what it is worth, summed over the
  bingos the leave can draw into and land. For heuri4 and heuri5 a bingo is worth its score
  *less* the score of an ordinary move (26 points in French, 27 in English, 28 in Spanish:
  :data:`heuri.eval.evaluate.NON_BINGO_SCORE`), since the next turn would have scored that
  anyway;
- ``lanes``: the places for a bingo the move opens (negative) or closes (positive) for the
  opponent: − w·(their bingo expectation after the move − before), w = 3 for heuri5, 1 for
  heuri4; only the placements the engine re-values with the board after the move have it;
- ``leave``: the quality of the tiles kept, − the expected playability cost of the next rack
  (vowel/consonant balance, duplicates, a Q without a U: :mod:`heuri.eval.leave_quality`);
- ``power``: the scoring power of the next rack when it is not a bingo (heuri5: the points
  the kept and drawn tiles add to an ordinary move);
- ``blank``: a kept blank's bingo chance on the turn after next (heuri4 with ``future``);
- ``defence``: heuri1's defensive penalty (premium squares opened), − d.

``equity = score + bingo + lanes + leave + power + blank + defence`` to rounding (1e-9);
engines without a term show it as 0. For greedy the equity is the score; for heuri2 and
heuri3 it is ``score + bingo``; for heuri4 and heuri5 (the default engine) the difference
between the equity and ``score + bingo`` is ``lanes + leave + power``.

>>> TERM_KEYS
('score', 'bingo', 'lanes', 'leave', 'power', 'blank', 'defence')
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ..core.errors import HeuriError

#: the terms of a move's value, in the order they are shown: key → a short heading and a
#: sentence a player reads (the legend). English; front ends translate them.
TERMS = (
    ("score", "points", "Points the move scores."),
    ("bingo", "bingo next turn",
     "Expected value of a bingo next turn with the tiles kept: its chance times what it adds over an ordinary move."),
    ("lanes", "lanes for the opponent",
     "Bingo lanes the move opens (negative) or closes (positive) for the opponent."),
    ("leave", "leave quality",
     "Quality of the tiles kept: minus the expected cost of an awkward next rack "
     "(too many vowels or consonants, duplicates, a Q without a U)."),
    ("power", "next rack's scoring power",
     "Points the kept and drawn tiles are expected to add to an ordinary next move."),
    ("blank", "blank kept for later",
     "A kept blank's bingo chance on the turn after next."),
    ("defence", "premium squares opened",
     "Penalty for opening triple- and double-word squares to the opponent."),
)

TERM_KEYS = tuple(k for k, _, _ in TERMS)


class ExplainError(HeuriError):
    """A move to explain that is not among the ranked candidates, or a bad index."""


@dataclass(frozen=True)
class MoveTerms:
    """One ranked move's equity broken into named terms. Units: points (``bingo_probability``
    is a probability in [0, 1]).

    ``score + bingo + lanes + leave + power + blank + defence == equity`` within 1e-9
    (:meth:`total`); a term the engine does not use is 0. ``rank`` is the move's place in
    the ranking (1 = the engine's choice); ``move`` its GCG text; ``leave_tiles`` the tiles
    kept (``?`` a blank, ``[CH]`` brackets). The terms are described in :data:`TERMS` and
    in this module's docstring. ``lanes_known``: False for a placement the engine did not
    re-value with the board after the move (its ``lanes`` is then 0, not computed: heuri3
    to heuri5 re-value the best placements only, :class:`heuri.eval.evaluate.Heuri3`).
    """

    rank: int
    move: str
    leave_tiles: str
    score: float
    bingo: float
    bingo_probability: float
    lanes: float
    leave: float
    power: float
    blank: float
    defence: float
    equity: float
    lanes_known: bool = True

    def terms(self) -> dict[str, float]:
        """The terms by name, in :data:`TERMS` order (points)."""
        return {k: getattr(self, k) for k in TERM_KEYS}

    def total(self) -> float:
        """The sum of the terms (= :attr:`equity` to rounding), points."""
        return float(sum(self.terms().values()))

    def as_dict(self, digits: int | None = 4) -> dict:
        """Every field as a JSON-ready dict, floats rounded to ``digits`` (None: not rounded)."""
        out = {}
        for f in fields(self):
            x = getattr(self, f.name)
            out[f.name] = round(x, digits) if isinstance(x, float) and digits is not None else x
        return out

    def difference(self, other: "MoveTerms") -> dict[str, float]:
        """``self − other`` per term and for the equity (points): what ``self`` gains over
        ``other`` in each term."""
        d = {k: getattr(self, k) - getattr(other, k) for k in TERM_KEYS}
        d["equity"] = self.equity - other.equity
        return d


def move_terms(ranking, spec, i: int) -> MoveTerms:
    """The terms of the ``i``-th move of ``ranking`` (0 = the engine's choice), a
    :class:`heuri.eval.evaluate.Ranking` of the language ``spec``. Raises ExplainError for
    an index outside the ranking."""
    from ..core.move import Move

    n = len(ranking)
    if not 0 <= i < n:
        raise ExplainError(f"move index {i}: the ranking has {n} moves")
    terms = ranking.terms or {}
    mv = Move.from_record(ranking.moves[i], spec)
    lv = ranking.leaves[i]
    kept = spec.format_tiles(np.repeat(np.arange(len(lv)), lv), blank="?")

    def term(k):
        x = terms.get(k)
        return 0.0 if x is None else float(x[i]) + 0.0  # + 0.0: no "-0.0" shown

    return MoveTerms(rank=i + 1, move=mv.gcg(spec), leave_tiles=kept, score=float(ranking.j[i]),
                     bingo=float(ranking.e[i]), bingo_probability=float(ranking.p[i]),
                     lanes=term("lanes"), leave=term("leave"), power=term("power"), blank=term("blank"),
                     defence=term("defence"), equity=float(ranking.v[i]),
                     lanes_known=bool(ranking.revalued[i]) or "lanes" not in terms)


def explain_ranking(ranking, spec, top: int | None = None) -> list[MoveTerms]:
    """:func:`move_terms` of the first ``top`` moves (all when None)."""
    n = len(ranking) if top is None else min(int(top), len(ranking))
    return [move_terms(ranking, spec, i) for i in range(n)]


def _key(mv, spec):
    """A move's identity: a placement by its squares and tiles, an exchange by the tiles
    returned (in any order), the pass."""
    from ..core.move import Exchange, Placement

    if isinstance(mv, Placement):
        return ("place", mv.gcg(spec))
    if isinstance(mv, Exchange):
        return ("exchange", tuple(sorted(mv.tiles)) if mv.tiles is not None else mv.count)
    return ("pass",)


def find_move(ranking, spec, text: str, board=None) -> int:
    """The index in ``ranking`` of the move typed as ``text``: as people write it, the whole
    word with the played-through tiles in parentheses and multi-letter tiles as letters
    (``10H TULL(I)D``, ``8G CA(RR)OÑE``, :func:`heuri.formats.render.parse_move_text`), or
    GCG notation (``8D DJINN``, ``10H TU[LL].D``, ``-V``, ``-``). A bare word that reads
    both ways (Spanish ``LL``: one tile or two) is looked up the players' way first, then
    as GCG. ``board``: the position's :class:`heuri.core.board.Board` (None: an empty
    board). Raises ExplainError (a ValueError) naming the move when it is not legal here or
    not among the ranked candidates, MoveError when it cannot be read either way."""
    from ..core.errors import MoveError
    from ..core.move import Exchange, Move
    from ..formats.render import parse_move_text

    readings, first_error = [], None
    for read in (lambda: parse_move_text(text, spec, board),
                 lambda: Move.from_gcg(text.strip().replace("(", "").replace(")", ""), board, spec)):
        try:
            readings.append(read())
        except MoveError as e:
            first_error = first_error or e
    if not readings:
        raise first_error
    ranked = [Move.from_record(ranking.moves[i], spec) for i in range(len(ranking))]
    keys = [_key(got, spec) for got in ranked]
    for mv in readings:
        if isinstance(mv, Exchange) and mv.tiles is None:  # "-3": any exchange of that many tiles
            hit = next((i for i, got in enumerate(ranked) if isinstance(got, Exchange) and got.count == mv.count), None)
        else:
            want = _key(mv, spec)
            hit = next((i for i, k in enumerate(keys) if k == want), None)
        if hit is not None:
            return hit
    raise ExplainError(f"move {text!r} is not among the {len(ranking)} legal moves of this position "
                       f"(a word not in the lexicon, tiles not on the rack, or a square taken)")
