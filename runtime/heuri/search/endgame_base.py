"""What the endgame search's parts share (:mod:`heuri.search.endgame` puts them together):
the result and error types, the bounds of the search's values, the limit that stops a
search (:class:`OutOfBudget`), the children's order both searches follow
(:func:`child_order`), and two checks on a position's tiles."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.errors import HeuriError

#: beyond any spread (points): the window of a root search
INF = 10 ** 6
PROVEN = 1000  # table depth of a value searched to the end of every line
#: a table entry's value: exact, a lower bound, an upper bound
EXACT, LOWER, UPPER = 0, 1, 2


class EndgameError(HeuriError):
    """An endgame search was asked for a position it cannot search: tiles in the bag, an
    unknown rack, or racks and board that need more tiles than the set holds."""


class OutOfBudget(Exception):
    """Raised inside the search when a node, generation or time limit is reached; its
    argument names the limit ("nodes", "move lists", "time", "stop")."""


@dataclass
class EndgameResult:
    """Outcome of a search.

    - ``move``: the chosen move (:class:`heuri.move.Move`);
    - ``value``: spread (points) the move adds from now to the end of the game for the
      player to move, against the best replies (the true minimax value when ``exact``,
      else the horizon estimate of the last completed iteration);
    - ``final_spread``: the mover's score minus the opponent's at the end of that line;
    - ``exact``: the last completed iteration reached the end of the game on every line
      and no width limit removed a move;
    - ``depth``: placements searched along a line in the last completed iteration;
      ``nodes``, ``generations``: positions visited and move-generator calls spent;
      ``seconds``: wall time; ``pv``: the principal variation (both players' moves, the
      chosen move first; to the end of the game when ``exact``);
    - ``stopped``: a limit stopped a deeper iteration; ``stopped_by``: which one ("nodes",
      "move lists", "time", "stop": SIU ``stop`` or its ``movetime``), "" when none did.
    """

    move: object
    value: int
    final_spread: int
    exact: bool
    depth: int
    nodes: int
    generations: int
    pv: list = field(default_factory=list)
    seconds: float = 0.0
    stopped: bool = False
    stopped_by: str = ""


@dataclass
class RankedMove:
    """One row of :meth:`EndgameSearch.analyse`: a root move, its value (spread to the end,
    points), whether that value is exact, and its principal variation (the move first)."""

    move: object
    value: int
    exact: bool
    pv: list


def check_tiles(position) -> None:
    """Raise EndgameError when the board and the racks of ``position`` need more of a tile
    than the tile set holds (the position cannot arise; searching it would be meaningless)."""
    spec = position.spec
    used = position.board.tile_counts() + sum(np.asarray(r, dtype=np.int64) for r in position.racks)
    over = np.flatnonzero(used > spec.distribution())
    if len(over):
        names = ", ".join("?" if t == spec.blank else spec.symbol(int(t)) for t in over)
        raise EndgameError(f"the board and racks need more tiles than the tile set holds ({names})")


def rack_value(values: np.ndarray, rack: np.ndarray) -> int:
    """Sum of face values of a count vector (points); ``values``: (L+1,) int64."""
    return int(np.dot(values, rack))


def child_order(base: list, best_out, tt_move: int) -> list:
    """A node's children in search order, for both searches: ``base`` (the top-scoring way
    out ``best_out`` first when there is one, None otherwise, then the placements that do
    not go out, by score), led by the table's move ``tt_move`` (-1 the pass, -2 none) and
    ending with the pass unless it leads.

    >>> child_order([4, 0, 1, 2], 4, 1)
    [4, 1, 0, 2, -1]
    >>> child_order([0, 1, 2], None, -1)
    [-1, 0, 1, 2]
    """
    if tt_move == -2 or (base and tt_move == base[0]):
        return base + [-1]
    head = [base[0], tt_move] if best_out is not None else [tt_move]
    return head + [k for k in base if k != tt_move and k != best_out] + ([-1] if tt_move != -1 else [])
