"""Duplicate: the master game, the draw rule and arbitration.

In duplicate every player gets the same draw each turn and the board always takes the
top-scoring move ("le top", "la jugada maestra"); a player scores what their own move would
have scored on that board. The rules are data, the ``[duplicate]`` table of the language
spec (:class:`heuri.spec.DuplicateRules`; ``lexicons/<lang>/spec.toml`` names the
federations' regulations they come from):

- **draw validity** (:func:`is_valid_draw`): up to turn ``early_turns`` a draw holds at
  least ``early_minimum`` vowels and as many consonants, later ``late_minimum`` of each
  (FISF: 2 and 2 up to turn 15, then 1 and 1). Tiles in ``both`` (French Y) and, by
  default, the blank count as a vowel and as a consonant at once;
- **an invalid draw** goes back to the bag whole, the leave too, and a full rack is drawn
  again ("rejet", :func:`draw_rack`);
- **the end**: the game ends when no valid draw can be made from the leave and the bag
  (:func:`can_draw`), or when the bag is empty and the draw has no move; a draw with no
  move while the bag still holds tiles goes back whole and is drawn again (heuri's choice:
  the regulations found say nothing of it);
- **equal tops** (:func:`pick_top`): the regulations leave the choice to the arbitrator;
  heuri takes the first in board order (row, column, across before down, then the tiles);
- **scoring** as in the classic game (premiums, ``bingo_bonus`` for a whole rack); no
  end-of-game adjustments;
- **arbitration** (:func:`arbitrate`): an illegal, misspelled or unplayable move or a missing
  turn scores 0 ("nullité"); a valid move announced with a wrong score keeps its real score
  and earns a warning, and from warning ``free_warnings + 1`` on each costs
  ``warning_penalty`` points (``wrong_score = "warning"``, the FISF rule), or scores 0
  (``wrong_score = "zero"``).

Randomness: one ``numpy.random.Generator`` seeded by ``seed`` draws every tile, so the same
seed gives the same master game. Racks, leaves and bags are count vectors over tile ids,
shape (L+1,), int64, blank last.

>>> import heuri
>>> g = master_game(heuri.load_pack("fr"), seed=1)
>>> g.total, len(g.turns), g.turns[0].draw.text(g.spec), g.turns[0].top_word(g.spec), g.turns[0].score
(783, 23, 'EEGJMUV', '8D JUGEE', 42)
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..core.board import Board
from ..core.errors import HeuriError, MoveError
from ..core.move import Move, Placement, format_rack, parse_coord

if TYPE_CHECKING:  # pragma: no cover
    from ..core.spec import DuplicateRules, LanguageSpec

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


@dataclass(frozen=True)
class Turn:
    """One turn of a master game.

    ``number``: 1-based; ``draw``: the :class:`Draw`; ``board``: the :class:`Board` before
    the move; ``top``: the master move (a Placement); ``score``: its points;
    ``tops``: every move scoring as much (coordinate and whole word, played-through tiles
    written out; the master move first);
    ``cumulative``: the master total after this turn (points); ``bingo``: the top places
    the whole rack; ``no_move_redraws``: draws sent back because no move could be played;
    ``bingo_moves``: placements of the whole draw on this board (the explanation of a
    bingo turn, or of a missed one); ``p_septet``: before the draw, the probability that the
    leave kept plus tiles drawn at random from the bag make a septet, a rack that spells a
    word (:func:`septet_probability`; None when not computed)."""

    number: int
    draw: Draw
    board: Board
    top: Placement
    score: int
    tops: tuple[str, ...]
    cumulative: int
    bingo: bool
    no_move_redraws: tuple[tuple[int, ...], ...] = ()
    bingo_moves: int = 0
    p_septet: float | None = None

    def top_text(self, spec: "LanguageSpec") -> str:
        """The master move in GCG notation (``8D WORD``; ``.`` for played-through tiles)."""
        return self.top.gcg(spec)

    def top_word(self, spec: "LanguageSpec") -> str:
        """The master move as the arbitrator announces it: the coordinate and the whole
        word, played-through tiles written out (``E3 VAINQUENT``)."""
        return self.top.gcg(spec, dots=False, board=self.board)


@dataclass
class MasterGame:
    """A whole master game: ``lang``, ``seed`` (None when loaded from a record),
    ``turns`` (list of :class:`Turn`), ``end`` (why it stopped: ``"no valid draw"``,
    ``"no move"``, ``"bag empty"``), ``lexicon``, ``game_id`` (see :func:`game_id`)."""

    spec: "LanguageSpec"
    lang: str
    seed: int | None
    turns: list[Turn] = field(default_factory=list)
    end: str = ""
    lexicon: str = ""

    @property
    def total(self) -> int:
        """The master total (points): the sum of the tops."""
        return self.turns[-1].cumulative if self.turns else 0

    @property
    def bingos(self) -> int:
        """Tops that place the whole rack."""
        return sum(t.bingo for t in self.turns)

    @property
    def game_id(self) -> str:
        return game_id(self.spec, [(t.draw.tiles, t.top_text(self.spec), t.score) for t in self.turns])

    def final_board(self) -> Board:
        """The board after the last top."""
        if not self.turns:
            return Board.empty(self.spec)
        last = self.turns[-1]
        return last.board.play(last.top)


def septet_probability(pack, board: Board, leave) -> float:
    """Probability that the count vector ``leave`` plus ``rack_size - |leave|`` tiles drawn
    uniformly from the bag (every tile neither on ``board`` nor in the leave) is a septet of
    the pack (a rack whose tiles spell a word, blanks included): the multivariate
    hypergeometric sum of :func:`heuri.probability.leave_table` over the septets. The draw
    rule's rejections are not modelled (the draw before any rejection)."""
    from ..eval.probability import leave_table

    spec = pack.spec
    lv = np.asarray(leave, dtype=np.int64)
    U = spec.distribution() - board.tile_counts() - lv
    if int(U.sum()) < spec.rack_size - int(lv.sum()):
        return 0.0
    use = np.asarray(pack.keys.is_septet)
    leaves, _, p = leave_table(pack, lv, U, use, np.ones(len(use)), bag_size=int(U.sum()))
    i = int(np.flatnonzero((leaves.astype(np.int64) == lv).all(axis=1))[0])
    return float(p[i])


def game_id(spec: "LanguageSpec", turns) -> str:
    """A short id of a master game: ``<lang>-<12 hex digits>``, the SHA-256 of its draws,
    tops and scores, so that a players' sheet can say which game it is for. ``turns``:
    ``(rack tile ids, top GCG text, score)`` per turn."""
    h = hashlib.sha256(spec.code.encode())
    for tiles, top, score in turns:
        h.update(f"|{format_rack(sorted(tiles), spec)}|{top}|{score}".encode())
    return f"{spec.code}-{h.hexdigest()[:12]}"


def master_game(pack, seed: int | None = 1, max_turns: int | None = None, explain: bool = True) -> MasterGame:
    """Generate the master game of ``seed`` for a language pack.

    Each turn: draw (:func:`draw_rack`), list every placement with the move generator
    (:func:`heuri.movegen.generate`), keep the top (:func:`pick_top`), play it. Stops when
    no valid draw can be made, when the draw has no move and the bag is empty, or after
    ``max_turns`` turns. ``explain``: compute each turn's ``p_septet`` (a few ms a turn).
    Deterministic: the same pack and seed give the same game. Raises DuplicateError when
    the language has no duplicate rules."""
    from ..core.movegen import generate

    spec = pack.spec
    rules_of(spec)
    rng = np.random.default_rng(seed)
    bag = [int(t) for t in np.repeat(np.arange(spec.n_kinds), spec.distribution())]
    board = Board.empty(spec)
    leave: list[int] = []
    game = MasterGame(spec, spec.code, seed, lexicon=spec.lexicon)
    total = 0
    turn = 1
    while max_turns is None or turn <= max_turns:
        p7 = septet_probability(pack, board, np.bincount(np.asarray(leave, dtype=np.int64),
                                                          minlength=spec.n_kinds)) if explain else None
        d = draw_rack(spec, rng, leave, bag, turn)
        if d is None:
            game.end = "no valid draw"
            break
        moves = generate(pack, board.letters, board.blanks, d.counts(spec), exchanges=False)
        sent_back: list[tuple[int, ...]] = []
        while len(moves) == 0 and bag and len(sent_back) < MAX_NO_MOVE_REDRAWS:
            sent_back.append(d.tiles)
            bag.extend(d.tiles)
            d = draw_rack(spec, rng, [], bag, turn)
            if d is None:
                break
            moves = generate(pack, board.letters, board.blanks, d.counts(spec), exchanges=False)
        if d is None:
            game.end = "no valid draw"
            break
        if len(moves) == 0:
            game.end = "no move" if not bag else "no move after redraws"
            break
        i = pick_top(spec, moves)
        top = Move.from_record(moves[i], spec)
        score = int(moves[i]["score"])
        total += score
        same = [j for j in np.flatnonzero(moves["score"] == score) if j != i]
        tops = tuple(m.gcg(spec, dots=False, board=board)
                     for m in [top] + [Move.from_record(moves[j], spec) for j in same])
        game.turns.append(Turn(turn, d, board, top, score, tops, total, top.n_tiles == spec.rack_size,
                               tuple(sent_back), int((moves["n_tiles"] == spec.rack_size).sum()), p7))
        left = d.counts(spec) - top.rack_counts(spec)
        leave = [int(t) for t in np.repeat(np.arange(spec.n_kinds), left)]
        board = board.play(top)
        turn += 1
        if not bag and not leave:
            game.end = "bag empty"
            break
    else:
        game.end = f"turn limit {max_turns}"
    return game


# -- records: GCG and the sheet -----------------------------------------------------------------
MASTER_NICK = "master"


def draw_note(spec: "LanguageSpec", t: Turn) -> str:
    """The ``#note`` text of a turn: the draw (leave + new), its vowel/consonant count, the
    rejected draws and the number of equal tops."""
    nv, nc = count_classes(spec, t.draw.counts(spec))
    parts = [f"turn {t.number}: draw {t.draw.text(spec)} ({nv} vowels, {nc} consonants; valid)"]
    if t.draw.rejected:
        parts.append("rejected " + " ".join(format_rack(sorted(r), spec) for r in t.draw.rejected))
    if t.no_move_redraws:
        parts.append("no move, sent back " + " ".join(format_rack(sorted(r), spec) for r in t.no_move_redraws))
    if len(t.tops) > 1:
        parts.append(f"{len(t.tops)} tops at {t.score}: " + ", ".join(t.tops))
    parts.append(f"{t.bingo_moves} bingos on the board")
    if t.p_septet is not None:
        parts.append(f"p(septet) {t.p_septet:.3f}")
    return "; ".join(parts)


def to_gcg(game: MasterGame):
    """The master game as a :class:`heuri.gcg.GcgGame`: one player (``master``), one event
    per turn (the draw as the rack, the top, its score, the running total), a ``#note``
    after each event (:func:`draw_note`), and ``#game-type duplicate``, ``#id``,
    ``#lexicon`` pragmas."""
    from ..formats.gcg import GcgEvent, GcgGame, GcgPragma

    spec = game.spec
    g = GcgGame(players=[(MASTER_NICK, "Master game")])
    add = g.items.append
    add(GcgPragma(0, "character-encoding", "UTF-8"))
    add(GcgPragma(0, "game-type", "duplicate"))
    add(GcgPragma(0, "player1", f"{MASTER_NICK} Master game"))
    seed = "" if game.seed is None else f" seed {game.seed}"
    add(GcgPragma(0, "title", f"heuri duplicate {spec.code}{seed}"))
    add(GcgPragma(0, "id", f"heuri {game.game_id}"))
    add(GcgPragma(0, "lexicon", game.lexicon or spec.lexicon))
    add(GcgPragma(0, "tile-distribution", spec.name.lower()))
    # a game-wide comment is a #description: a #note comments on the move before it
    add(GcgPragma(0, "description", f"duplicate rules: {rules_of(spec).source}"))
    for t in game.turns:
        rack = format_rack(sorted(t.draw.tiles), spec)
        add(GcgEvent(0, MASTER_NICK, 0, "play", rack, t.top_text(spec), t.score, t.cumulative))
        add(GcgPragma(0, "note", draw_note(spec, t)))
    add(GcgPragma(0, "note", f"end: {game.end}; total {game.total}, {len(game.turns)} turns, {game.bingos} bingos"))
    return g


def cgp_before(game: MasterGame, t: Turn) -> str:
    """CGP of the position before turn ``t``'s move, the draw as the rack of the player to
    move, the master total so far as that player's score (the second rack unknown, as
    CGP needs two), and an ``ld`` operation naming the tile distribution."""
    from ..core.cgp import CgpRecord, format_cgp

    spec = game.spec
    rec = CgpRecord(t.board, (tuple(sorted(t.draw.tiles)), None), (t.cumulative - t.score, 0), 0,
                    (("ld", spec.name.lower()),))
    return format_cgp(rec)


SHEET_COLUMNS = ("turn", "draw", "leave", "new", "rejected", "vowels", "consonants", "top", "position",
                 "word", "score", "cumulative", "tops", "bingo", "bingo_moves", "p_septet", "cgp")


def sheet(game: MasterGame):
    """The master game as an arbitration sheet, a polars DataFrame with one row per turn:

    ``turn`` (1-based), ``draw`` (the rack, ``LEAVE+NEW``), ``leave``, ``new``,
    ``rejected`` (rejected draws, space-separated), ``vowels``, ``consonants`` (of the
    draw), ``top`` (GCG move), ``position`` (its coordinate: ``8D`` across, ``H4`` down),
    ``word`` (the whole main word, blanks lower case), ``score``, ``cumulative`` (points),
    ``tops`` (how many moves score the top), ``bingo`` (bool: the top is a bingo),
    ``bingo_moves`` (placements of the whole draw), ``p_septet`` (probability, before the
    draw, of a septet: :func:`septet_probability`; null when not computed), ``cgp`` (the
    position before the move, :func:`cgp_before`)."""
    import polars as pl

    spec = game.spec
    rows = []
    for t in game.turns:
        nv, nc = count_classes(spec, t.draw.counts(spec))
        coord, _, _ = t.top_text(spec).partition(" ")
        word = t.top.gcg(spec, dots=False, board=t.board).split(" ", 1)[1]
        rows.append({
            "turn": t.number, "draw": t.draw.text(spec), "leave": format_rack(sorted(t.draw.leave), spec),
            "new": format_rack(sorted(t.draw.new), spec),
            "rejected": " ".join(format_rack(sorted(r), spec) for r in t.draw.rejected),
            "vowels": nv, "consonants": nc, "top": t.top_text(spec), "position": coord, "word": word,
            "score": t.score, "cumulative": t.cumulative, "tops": len(t.tops), "bingo": t.bingo,
            "bingo_moves": t.bingo_moves, "p_septet": t.p_septet, "cgp": cgp_before(game, t),
        })
    schema = {"turn": pl.Int32, "draw": pl.Utf8, "leave": pl.Utf8, "new": pl.Utf8, "rejected": pl.Utf8,
              "vowels": pl.Int32, "consonants": pl.Int32, "top": pl.Utf8, "position": pl.Utf8, "word": pl.Utf8,
              "score": pl.Int32, "cumulative": pl.Int32, "tops": pl.Int32, "bingo": pl.Boolean,
              "bingo_moves": pl.Int32, "p_septet": pl.Float64, "cgp": pl.Utf8}
    return pl.DataFrame(rows, schema=schema)


def load_master(path, pack, explain: bool = True) -> MasterGame:
    """Read a master game back from its GCG record (as :func:`to_gcg` writes it), replaying
    every top on the board and checking its score, that it is a top of the recorded draw
    (the move generator lists the draw's moves) and the running total. Raises
    DuplicateError (file and line) for a record that is not a one-player duplicate game, a
    move that is illegal on the board or not a top, or a score the engine does not
    confirm. ``explain``: as :func:`master_game`."""
    from pathlib import Path

    from ..core.errors import GcgError
    from ..formats.gcg import read_gcg_file
    from ..core.movegen import generate

    spec = pack.spec
    p = str(path)
    if not Path(p).is_file():
        raise DuplicateError(f"{p}: no such file (a master game written by `heuri duplicate new`)")
    try:
        g = read_gcg_file(p)
    except GcgError as e:
        raise DuplicateError(str(e)) from None
    if (g.pragma("game-type") or "").lower() != "duplicate" or len(g.players) != 1:
        raise DuplicateError(f"{p}: not a duplicate master game (expected '#game-type duplicate' and one "
                             f"player; `heuri duplicate new` writes them)")
    game = MasterGame(spec, spec.code, None, lexicon=g.lexicon or "")
    board = Board.empty(spec)
    total = 0
    leave = np.zeros(spec.n_kinds, dtype=np.int64)
    for x in g.items:
        if getattr(x, "name", None) == "note" and x.value.startswith("end: "):
            game.end = x.value[5:].split(";")[0]
    for no, ev in enumerate(g.events, start=1):
        where = f"{p}:{ev.line}"
        if ev.kind != "play":
            raise DuplicateError(f"{where}: field 'move': {ev.body()!r}; a master game has only placements")
        try:
            ids = spec.parse_tiles(ev.rack) if ev.rack else None
            if ids is None:
                raise DuplicateError(f"{where}: field 'rack': missing; each turn records its draw")
            move = Move.from_gcg(ev.move, board, spec)
            board.check(move, pack.words)
        except (MoveError, ValueError) as e:
            if isinstance(e, DuplicateError):
                raise
            raise DuplicateError(f"{where}: field 'move': {e}") from None
        score = board.score(move)
        if score != ev.score:
            raise DuplicateError(f"{where}: field 'score': recorded {ev.score}, the board gives {score}")
        total += score
        if total != ev.total:
            raise DuplicateError(f"{where}: field 'total': recorded {ev.total}, the sum of the tops is {total}")
        rack = np.bincount(np.asarray(ids, dtype=np.int64), minlength=spec.n_kinds)
        if (move.rack_counts(spec) > rack).any():
            raise DuplicateError(f"{where}: field 'move': {ev.move!r} uses tiles the draw {ev.rack} lacks")
        # The leave is the last rack less the last top, when this rack still holds it
        # (else the draw was rejected and every tile is new).
        kept = np.minimum(rack, leave)
        ids_left = [int(i) for i in np.repeat(np.arange(spec.n_kinds), kept)] if (kept == leave).all() else []
        new = list(ids)
        for x in ids_left:
            new.remove(x)
        d = Draw(no, tuple(ids_left), tuple(new))
        moves = generate(pack, board.letters, board.blanks, rack, exchanges=False)
        best = int(moves["score"].max()) if len(moves) else 0
        if score != best:
            i = pick_top(spec, moves)
            raise DuplicateError(f"{where}: field 'move': {ev.move!r} scores {score} but the top of {ev.rack} on "
                                 f"this board is {best} ({Move.from_record(moves[i], spec).gcg(spec)}); a master "
                                 f"game plays the top every turn")
        mine = move.gcg(spec, dots=False, board=board)
        others = [Move.from_record(moves[j], spec).gcg(spec, dots=False, board=board)
                  for j in np.flatnonzero(moves["score"] == best)]
        tops = (mine,) + tuple(x for x in others if x != mine)
        p7 = septet_probability(pack, board, leave) if explain else None
        game.turns.append(Turn(no, d, board, move, score, tops, total, move.n_tiles == spec.rack_size, (),
                               int((moves["n_tiles"] == spec.rack_size).sum()), p7))
        leave = rack - move.rack_counts(spec)
        board = board.play(move)
    return game


# -- arbitration --------------------------------------------------------------------------------
_TOKEN = re.compile(r"\[[^\]]+\]|.")

#: A submission standing for two moves handed in by one player for one turn (it scores 0).
TWICE = "\0twice"
#: Verdict kinds of :class:`Verdict`.
VERDICTS = ("top", "valid", "wrong-score", "illegal", "missing")


@dataclass(frozen=True)
class Verdict:
    """The arbitrator's decision on one player's move in one turn.

    ``kind``: ``"top"`` (scores the top), ``"valid"`` (a legal sub-top), ``"wrong-score"``
    (legal, announced score missing or wrong: a warning), ``"illegal"`` (0 points),
    ``"missing"`` (no move handed in: 0); ``points``: what the player scores this turn before
    warning penalties; ``real``: the move's score on the board (None when it is not
    legal); ``announced``: the score the player wrote (None if absent); ``reason``: why,
    for illegal moves; ``top``: the top's score that turn."""

    turn: int
    move: str
    kind: str
    points: int
    real: int | None
    announced: int | None
    top: int
    reason: str = ""


def check_notation(text: str, spec: "LanguageSpec") -> str | None:
    """None when ``text`` is a placement in GCG notation for ``spec``'s board (a coordinate
    and a word of letters, ``.`` or ``[XX]`` tiles of the language), else why not."""
    parts = text.split()
    if len(parts) != 2:
        return f"{text!r} is not '<coordinate> <word>' (8D WORD across, H4 MOT down)"
    try:
        parse_coord(parts[0], spec.board_size)
    except MoveError as e:
        return str(e)
    for tok in _TOKEN.findall(parts[1]):
        if tok == ".":
            continue
        body = tok[1:-1] if tok.startswith("[") else tok
        if tok == "[" or not body.isalpha() or body.upper() not in spec.tiles:
            return f"{tok!r} in {parts[1]!r} is not a tile of {spec.name}"
    return None


#: Move notations: ``"gcg"`` (row number first = across: ``8D WORD``; column letter first =
#: down: ``H4 MOT``) and ``"fisf"``, the French federation's references (rows are letters
#: A-O, columns numbers 1-15; row letter first = horizontal: ``H4 MOT`` is GCG ``8D MOT``;
#: column number first = vertical: ``4H MOT`` is GCG ``D8 MOT``).
NOTATIONS = ("gcg", "fisf")
_FISF_ACROSS = re.compile(r"^([A-Za-z])(\d{1,2})$")
_FISF_DOWN = re.compile(r"^(\d{1,2})([A-Za-z])$")


def move_to_gcg(text: str, notation: str = "gcg") -> str:
    """A move in ``notation`` → the same move in GCG notation (the word is unchanged; text
    whose coordinate does not parse is returned as it is, for :func:`check_notation`).

    >>> move_to_gcg("H4 MOT", "fisf"), move_to_gcg("4H MOT", "fisf"), move_to_gcg("H4 MOT", "gcg")
    ('8D MOT', 'D8 MOT', 'H4 MOT')
    """
    if notation == "gcg":
        return text
    if notation != "fisf":
        raise DuplicateError(f"notation {notation!r}: expected one of {NOTATIONS}")
    parts = text.split()
    if len(parts) != 2:
        return text
    m = _FISF_ACROSS.match(parts[0])
    if m:
        return f"{ord(m.group(1).upper()) - 64}{chr(64 + int(m.group(2)))} {parts[1]}"
    m = _FISF_DOWN.match(parts[0])
    if m:
        return f"{chr(64 + int(m.group(1)))}{ord(m.group(2).upper()) - 64} {parts[1]}"
    return text


def move_from_gcg(text: str, notation: str = "gcg") -> str:
    """A GCG move (``8D WORD``) → ``notation`` (``fisf``: ``H4 WORD``); the inverse of
    :func:`move_to_gcg`.

    >>> move_from_gcg("8D MOT", "fisf"), move_from_gcg("D8 MOT", "fisf")
    ('H4 MOT', '4H MOT')
    """
    if notation == "gcg":
        return text
    coord, _, word = text.partition(" ")
    row, col, across = parse_coord(coord)
    ref = f"{chr(65 + row)}{col + 1}" if across else f"{col + 1}{chr(65 + row)}"
    return f"{ref} {word}"


def check_move(spec: "LanguageSpec", t: Turn, text: str, words=None,
               notation: str = "gcg") -> tuple[Placement, int]:
    """Parse and check a player's move ``text`` (in ``notation``, see :data:`NOTATIONS`) for
    turn ``t``: the notation, the placement on the board before the turn, every word formed
    against ``words`` (e.g. ``pack.words``), the tiles against the draw. Returns
    ``(placement, score)``; raises MoveError saying what is wrong (kinds as
    :meth:`heuri.board.Board.check`, plus ``"malformed-play"`` and ``"tiles-not-in-rack"``);
    a move given in another notation is named as typed, with its GCG reading."""
    given = " ".join(text.split())
    text = move_to_gcg(given, notation)
    try:
        return _check_gcg_move(spec, t, text, words)
    except MoveError as e:
        if text == given:
            raise
        raise MoveError(f"{given!r} ({notation.upper()}; GCG {text!r}): {e}", e.kind) from None


def _check_gcg_move(spec, t: Turn, text: str, words) -> tuple[Placement, int]:
    why = check_notation(text, spec)
    if why:
        raise MoveError(why, "malformed-play")
    move = Move.from_gcg(text, t.board, spec)
    t.board.check(move, words)
    need = move.rack_counts(spec)
    rack = t.draw.counts(spec)
    if (need > rack).any():
        missing = np.maximum(need - rack, 0)
        lacks = format_rack([i for i in range(spec.n_kinds) for _ in range(int(missing[i]))], spec)
        raise MoveError(f"move {text!r}: the draw {format_rack(sorted(t.draw.tiles), spec)} lacks {lacks}"
                        f" (a blank is written in lower case)", "tiles-not-in-rack")
    return move, t.board.score(move)


def judge(spec: "LanguageSpec", t: Turn, text: str | None, announced: int | None = None,
          words=None) -> Verdict:
    """Decide one move ``text`` (GCG notation: ``H4 MOT``, ``8D WORD``; a blank in lower
    case; played-through tiles written out or ``.``) for turn ``t`` of a master game.

    Checks the notation, the placement on the board before the turn, every word formed
    against ``words`` (e.g. ``pack.words``) and that the draw holds the tiles; then compares
    the score with ``announced``. Missing or wrong announced scores follow
    ``rules.wrong_score`` (see the module doc). Never raises for a bad move: the reason
    goes in the verdict."""
    rules = rules_of(spec)
    if text is None or not text.strip():
        return Verdict(t.number, "", "missing", 0, None, announced, t.score, "no move handed in")
    if text == TWICE:
        return Verdict(t.number, "", "illegal", 0, None, None, t.score, "two moves handed in for one turn")
    try:
        move, real = check_move(spec, t, text, words)
    except MoveError as e:
        return Verdict(t.number, text.strip(), "illegal", 0, None, announced, t.score, str(e))
    if announced is None or announced != real:
        pts = real if rules.wrong_score == "warning" else 0
        why = "no score announced" if announced is None else f"announced {announced}, the move scores {real}"
        return Verdict(t.number, text.strip(), "wrong-score", pts, real, announced, t.score, why)
    kind = "top" if real == t.score else "valid"
    return Verdict(t.number, text.strip(), kind, real, real, announced, t.score)


@dataclass
class PlayerResult:
    """One player's arbitrated game: ``verdicts`` (one per turn, turn order), ``warnings``,
    ``penalty`` (points taken for warnings), ``total`` (points), ``tops`` (turns scoring the
    top), ``percent`` (total / master total × 100)."""

    player: str
    verdicts: list[Verdict]
    warnings: int
    penalty: int
    total: int
    tops: int
    percent: float


def arbitrate(game: MasterGame, submissions: dict, words=None) -> list[PlayerResult]:
    """Score every player's moves and rank them.

    ``submissions``: ``{player: {turn: (move text, announced score or None)}}``; a turn
    absent is a missing move (0). Each move is judged by :func:`judge`; each
    ``"wrong-score"`` verdict is a warning, and from warning ``rules.free_warnings + 1`` on
    each costs ``rules.warning_penalty`` points. A move that scores the top counts as a top
    (a top announced with a wrong score included: it scores the top). Ranking: total,
    then tops, then the player's name. Returns one PlayerResult per player, best first."""
    spec = game.spec
    rules = rules_of(spec)
    master = game.total
    out = []
    for player, moves in submissions.items():
        verdicts = []
        for t in game.turns:
            text, ann = moves.get(t.number, (None, None))
            verdicts.append(judge(spec, t, text, ann, words))
        # Under wrong_score = "zero" the move already scores 0: no warning on top of it.
        warnings = sum(v.kind == "wrong-score" for v in verdicts) if rules.wrong_score == "warning" else 0
        penalty = max(0, warnings - rules.free_warnings) * rules.warning_penalty
        total = sum(v.points for v in verdicts) - penalty
        tops = sum(v.real is not None and v.real == v.top and v.points == v.top for v in verdicts)
        pct = 100.0 * total / master if master else 0.0
        out.append(PlayerResult(player, verdicts, warnings, penalty, total, tops, pct))
    out.sort(key=lambda r: (-r.total, -r.tops, r.player))
    return out
