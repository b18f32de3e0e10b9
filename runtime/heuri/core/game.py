"""Game state and rules: :class:`Position` (an immutable snapshot) and :class:`Game` (a
sequence of positions with a seeded bag).

Rules, all read from the language spec (``lexicons/<lang>/spec.toml``, which names its
sources; docs/rules.md):

- a placement must be legal on the board (:meth:`heuri.board.Board.check`) and use tiles of
  the mover's rack (a blank from the rack keeps its letter for the rest of the game);
- an exchange needs at least ``spec.exchange_min_bag`` tiles in the bag and never returns
  more tiles than the bag holds; new tiles are drawn before the returned ones go back;
- a pass is always legal;
- after a move the mover draws up to ``spec.rack_size`` tiles while the bag lasts;
- the game ends when a player goes out (plays their last tile with the bag empty):
  ``end_rule == "double"`` adds twice the sum of every other rack to the player who went
  out (WESPA); ``"transfer"`` adds the sum to that player and subtracts each rack from its
  owner (FISF, FISE);
- it also ends after ``spec.max_scoreless_turns`` consecutive scoreless turns (passes,
  exchanges, zero-point plays); each player then subtracts their own rack.

Racks, bags and leaves are count vectors over tile ids, shape (L+1,), int64, blank last.

>>> from heuri.spec import load_spec
>>> g = Game(load_spec("en"), seed=7)
>>> g2 = Game(load_spec("en"), seed=7)
>>> g.bag_order == g2.bag_order and len(g.bag_order) == 86
True
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .board import Board
from .errors import MoveError
from .move import Exchange, Move, Pass, Placement, format_rack

if TYPE_CHECKING:  # pragma: no cover
    from .spec import LanguageSpec


def rack_value(spec: "LanguageSpec", counts: np.ndarray) -> int:
    """Sum of face values of a count vector (points)."""
    return int(np.asarray(counts, dtype=np.int64) @ spec.value_vector())


def end_adjustments(spec: "LanguageSpec", racks, out: int | None, end_rule: str | None = None) -> list[int]:
    """Score changes at the end of a game, one per player.

    ``racks``: count vectors left on each rack; ``out``: index of the player who went out,
    or None when the game ended on scoreless turns (each player loses their own rack).
    ``end_rule`` (default ``spec.end_rule``): ``"double"`` → the player out gains twice the
    others' racks; ``"transfer"`` → gains their sum, each other player loses their own.
    """
    vals = [rack_value(spec, r) for r in racks]
    if out is None:
        return [-v for v in vals]
    rule = end_rule or spec.end_rule
    others = sum(v for i, v in enumerate(vals) if i != out)
    if rule == "double":
        return [2 * others if i == out else 0 for i in range(len(vals))]
    if rule == "transfer":
        return [others if i == out else -v for i, v in enumerate(vals)]
    raise MoveError(f"end rule {rule!r}: expected 'double' or 'transfer'", "bad-rule")


@dataclass(frozen=True, eq=False)
class Position:
    """A game position, immutable.

    - ``spec``: the rules (a LanguageSpec, possibly with CGP ``bb``/``etl``/``mcnz`` overrides);
    - ``board``: :class:`Board`;
    - ``racks``: tuple of count vectors (L+1,) int64, one per seat: the known tiles of each rack;
    - ``scores``: tuple of ints, one per seat (points);
    - ``bag``: count vector of the tiles neither on the board nor in a known rack (the bag,
      plus any ``hidden`` tiles);
    - ``to_move``: seat of the player to move;
    - ``scoreless``: consecutive scoreless turns just before this position;
    - ``hidden``: per seat, how many tiles of the rack are unknown (a CGP with the
      opponent's rack left empty); 0 in a :class:`Game`;
    - ``over``: the game has ended (``end_adjust`` holds the end-of-game changes applied);
    - ``end_rule``: None = the spec's rule, else ``"double"``/``"transfer"``;
    - ``ops``: CGP operations carried along for :meth:`cgp`.
    """

    spec: "LanguageSpec"
    board: Board
    racks: tuple
    scores: tuple
    bag: np.ndarray
    to_move: int = 0
    scoreless: int = 0
    hidden: tuple = ()
    over: bool = False
    end_adjust: tuple = ()
    end_rule: str | None = None
    ops: tuple = ()

    def __post_init__(self):
        if not self.hidden:
            object.__setattr__(self, "hidden", (0,) * len(self.racks))

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def initial(cls, spec: "LanguageSpec", racks, to_move: int = 0, end_rule: str | None = None) -> "Position":
        """An empty board with the given racks (count vectors or tile-id lists); the bag
        is the rest of the tile set. Raises MoveError if the racks use missing tiles."""
        rk = tuple(_counts(spec, r) for r in racks)
        bag = spec.distribution() - sum(rk)
        if (bag < 0).any():
            raise MoveError("racks hold more tiles than the tile set has", "rack-not-in-bag")
        return cls(spec, Board.empty(spec), rk, (0,) * len(rk), bag, to_move, 0, end_rule=end_rule)

    @classmethod
    def from_cgp(cls, text: str, spec: "LanguageSpec", end_rule: str | None = None) -> "Position":
        """Position from a CGP line (see :mod:`heuri.cgp`). The first rack is the player to
        move (seat 0 here); an empty rack field is unknown: that player is assumed to hold
        ``min(rack_size, tiles left)`` unknown tiles (``hidden``), so ``bag_size`` counts
        only the tiles really in the bag. Raises CgpError."""
        from .cgp import parse_cgp

        rec = parse_cgp(text, spec)
        rules = rec.rules()
        board = Board(rules, rec.board.letters, rec.board.blanks)
        racks = tuple(_counts(spec, r or ()) for r in rec.racks)
        bag = spec.distribution() - board.tile_counts() - sum(racks)
        left = int(bag.sum())
        hidden = []
        for i, r in enumerate(rec.racks):
            h = 0 if i == 0 else min(spec.rack_size - int(racks[i].sum()), left)
            hidden.append(h)
            left -= h
        return cls(rules, board, racks, tuple(rec.scores), bag, 0, rec.zeros, tuple(hidden),
                   end_rule=end_rule, ops=rec.ops)

    def cgp(self, hide_others: bool = False) -> str:
        """CGP line of this position, the player to move first (unknown racks empty;
        ``hide_others``: write only the mover's rack, as that player sees the game)."""
        from .cgp import CgpRecord, format_cgp

        n = self.n_players
        order = [(self.to_move + i) % n for i in range(n)]
        def field(i):
            if hide_others and i != self.to_move:
                return None
            if self.hidden[i] and not self.racks[i].any():
                return None
            return tile_ids(self.racks[i])

        racks = tuple(field(i) for i in order)
        rec = CgpRecord(self.board, racks, tuple(self.scores[i] for i in order), self.scoreless, self.ops)
        return format_cgp(rec)

    # -- views ----------------------------------------------------------------------------------
    @property
    def n_players(self) -> int:
        return len(self.racks)

    @property
    def rack(self) -> np.ndarray:
        """Count vector of the rack of the player to move."""
        return self.racks[self.to_move]

    @property
    def bag_size(self) -> int:
        """Tiles in the bag (unknown rack tiles excluded)."""
        return int(self.bag.sum()) - sum(self.hidden)

    def unseen(self, seat: int | None = None) -> np.ndarray:
        """Tiles ``seat`` (default: the player to move) cannot see: the bag plus every
        other rack; count vector (L+1,) int64."""
        seat = self.to_move if seat is None else seat
        out = self.bag.copy()
        for i, r in enumerate(self.racks):
            if i != seat:
                out += r
        return out

    def rack_text(self, seat: int | None = None) -> str:
        """Rack as text (``AEINRST``, ``?`` blank last)."""
        return format_rack(tile_ids(self.racks[self.to_move if seat is None else seat]), self.spec)

    @property
    def rule(self) -> str:
        return self.end_rule or self.spec.end_rule

    # -- rules ----------------------------------------------------------------------------------
    def check(self, move: Move, words=None) -> int:
        """Check ``move`` for the player to move and return its score (points).

        Raises MoveError naming the move and why: the game is over (``"game-over"``), a
        board rule (see :meth:`Board.check`), tiles the rack lacks (``"tiles-not-in-rack"``),
        an exchange with fewer than ``spec.exchange_min_bag`` tiles in the bag or more
        tiles than the bag holds (``"exchange-not-allowed"``). ``words`` (e.g.
        ``pack.words``) also rejects words outside the list (``"phony"``).
        """
        spec = self.spec
        if self.over:
            raise MoveError(f"move {move.gcg(spec)!r}: the game is over", "game-over", move=move.gcg(spec))
        if isinstance(move, Placement):
            self.board.check(move, words)
            self._check_rack(move)
            return self.board.score(move)
        if isinstance(move, Exchange):
            name = move.gcg(spec)
            if self.bag_size < spec.exchange_min_bag:
                raise MoveError(f"exchange {name!r}: the bag holds {self.bag_size} tiles; an exchange needs "
                                f"at least {spec.exchange_min_bag}", "exchange-not-allowed", move=name,
                                form="bag", bag=int(self.bag_size), need=int(spec.exchange_min_bag))
            if move.count > self.bag_size:
                raise MoveError(f"exchange {name!r}: {move.count} tiles but the bag holds only {self.bag_size}",
                                "exchange-not-allowed", move=name, form="count", count=int(move.count),
                                bag=int(self.bag_size))
            if move.tiles is None:
                raise MoveError(f"exchange {name!r}: the tiles must be known to play it", "malformed-play")
            self._check_rack(move)
            return 0
        if isinstance(move, Pass):
            return 0
        raise MoveError(f"{move!r} is not a move", "malformed-play")

    def _check_rack(self, move: Move) -> None:
        need = move.rack_counts(self.spec)
        have = self.rack
        if (need > have).any():
            missing = np.maximum(need - have, 0)
            lacks = format_rack(tile_ids(missing), self.spec)
            raise MoveError(f"move {move.gcg(self.spec)!r}: the rack {self.rack_text()} lacks {lacks}",
                            "tiles-not-in-rack", move=move.gcg(self.spec), rack=self.rack_text(), tiles=lacks)

    def after(self, move: Move, drawn=(), returned_to_bag: bool = True, score: int | None = None,
              words=None) -> "Position":
        """The position after the player to move plays ``move`` and draws ``drawn`` (tile
        ids or a count vector; it must come from the bag and not overfill the rack).

        Checks the move (:meth:`check`), scores it, updates the rack, the bag (an exchange's
        tiles go back into the bag), the scoreless-turn count and the player to move, and
        ends the game with the end-of-game adjustments when a player goes out or the
        scoreless turns reach ``spec.max_scoreless_turns``. Raises MoveError.
        """
        spec = self.spec
        pts = self.check(move, words)
        if score is not None:
            pts = score
        d = _counts(spec, drawn)
        seat = self.to_move
        rack = self.rack - move.rack_counts(spec)
        bag = self.bag.copy()
        if (d > bag).any() or d.sum() > self.bag_size:
            raise MoveError(f"drawn tiles {format_rack(tile_ids(d), spec)} are not in the bag", "rack-not-in-bag")
        if rack.sum() + d.sum() > spec.rack_size:
            raise MoveError(f"drawing {int(d.sum())} tiles would overfill the rack", "rack-overfull")
        rack = rack + d
        bag -= d
        if isinstance(move, Exchange) and returned_to_bag:
            bag += move.rack_counts(spec)
        racks = tuple(rack if i == seat else r for i, r in enumerate(self.racks))
        scores = list(self.scores)
        scores[seat] += pts
        scoreless = 0 if pts != 0 else self.scoreless + 1
        board = self.board.play(move)
        over, adjust = False, ()
        if isinstance(move, Placement) and rack.sum() == 0 and self.bag_size == 0:
            over = True
            adjust = tuple(end_adjustments(spec, racks, seat, self.end_rule))
        elif scoreless >= spec.max_scoreless_turns:
            over = True
            adjust = tuple(end_adjustments(spec, racks, None))
        if over:
            scores = [s + a for s, a in zip(scores, adjust)]
        return dataclasses.replace(self, board=board, racks=racks, scores=tuple(scores), bag=bag,
                                   to_move=(seat + 1) % self.n_players, scoreless=scoreless,
                                   over=over, end_adjust=adjust)

    def moves(self, pack, exchanges: bool = True):
        """Every legal move for the player to move, as a ``heuri.movegen.MOVE_DTYPE``
        array (the move generator; needs ``pack`` for the word graph): placements, then
        exchanges (when this position's rules allow them) and the pass when
        ``exchanges`` is True. Empty when the game is over."""
        from .movegen import generate

        out = generate(pack, self.board.letters, self.board.blanks, self.rack, bag_size=self.bag_size,
                       exchanges=exchanges, rules=self.spec)
        return out[:0] if self.over else out


def _counts(spec: "LanguageSpec", tiles) -> np.ndarray:
    """Tile ids (list/tuple/short array) or a count vector (ndarray of shape (L+1,)) →
    a fresh count vector (L+1,) int64."""
    if isinstance(tiles, np.ndarray) and tiles.ndim == 1 and tiles.shape[0] == spec.n_kinds:
        return tiles.astype(np.int64, copy=True)
    ids = np.asarray(list(tiles), dtype=np.int64)
    return np.bincount(ids, minlength=spec.n_kinds).astype(np.int64)


def tile_ids(counts) -> list[int]:
    """A count vector ((K,) by tile id) as its tile ids, each repeated by its count, in id
    order: ``[2, 0, 1]`` → ``[0, 0, 2]`` (what :func:`heuri.core.move.format_rack` writes)."""
    return [int(i) for i in np.repeat(np.arange(len(counts)), np.asarray(counts, dtype=np.int64))]


class Game:
    """A game from the first move, with a seeded bag.

    The bag is a tile order fixed by ``seed`` (a ``numpy.random.Generator`` permutation of
    the full tile set): seat 0 draws the first ``rack_size`` tiles, seat 1 the next, and
    every later draw takes the next tiles in order. The same seed therefore gives the same
    tiles in the same order whoever sits where, so a match runner can replay a seed with
    the seats swapped. Exchanged tiles go back at positions drawn from the same generator.

    Attributes: ``spec``, ``position`` (current :class:`Position`), ``history`` (list of
    ``(position_before, move, score)``), ``bag_order`` (tuple of tile ids still to draw).
    """

    def __init__(self, spec: "LanguageSpec", seed: int | None = None, players: int = 2, first: int = 0,
                 end_rule: str | None = None, words=None):
        self.spec = spec
        self.words = words
        self.rng = np.random.default_rng(seed)
        tiles = np.repeat(np.arange(spec.n_kinds), spec.distribution())
        order = [int(t) for t in self.rng.permutation(tiles)]
        racks = []
        for _ in range(players):
            racks.append(order[:spec.rack_size])
            del order[:spec.rack_size]
        self._order = order
        p = Position.initial(spec, racks, to_move=first, end_rule=end_rule)
        self.position = p
        self.history: list[tuple[Position, Move, int]] = []

    @property
    def bag_order(self) -> tuple[int, ...]:
        return tuple(self._order)

    @property
    def over(self) -> bool:
        return self.position.over

    def play(self, move: Move | str) -> int:
        """Play ``move`` (a Move, or GCG text such as ``"8D RETSINA"``, ``"-QV"``, ``"-"``)
        for the player to move, draw, and return its score. Raises MoveError naming the
        move and why it is illegal (the position is then unchanged)."""
        p = self.position
        if isinstance(move, str):
            move = Move.from_gcg(move, p.board, self.spec)
        pts = p.check(move, self.words)
        need = self.spec.rack_size - int(p.rack.sum()) + move.n_tiles
        k = min(need, p.bag_size)
        drawn = self._order[:k]
        nxt = p.after(move, drawn, words=self.words)
        del self._order[:k]
        if isinstance(move, Exchange):
            for t in move.tiles:
                self._order.insert(int(self.rng.integers(0, len(self._order) + 1)), int(t))
        self.history.append((p, move, pts))
        self.position = nxt
        return pts
