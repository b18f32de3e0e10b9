"""Duplicate's master game: the board that always takes the top (:func:`master_game`, one
seeded generator drawing every tile), its turns, its GCG record (:func:`to_gcg`,
:func:`load_master`), the CGP of each turn and the turn sheet; the draws follow
:mod:`heuri.apps.duplicate.rules`."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...core.board import Board
from ...core.errors import MoveError
from ...core.move import Move, Placement, format_rack
from .rules import Draw, DuplicateError, MAX_NO_MOVE_REDRAWS, count_classes, draw_rack, pick_top, rules_of

if TYPE_CHECKING:  # pragma: no cover
    from ...core.spec import LanguageSpec


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
    from ...eval.probability import leave_table

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
    from ...core.movegen import generate

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
    from ...formats.gcg import GcgEvent, GcgGame, GcgPragma

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
    from ...core.cgp import CgpRecord, format_cgp

    spec = game.spec
    rec = CgpRecord(t.board, (tuple(sorted(t.draw.tiles)), None), (t.cumulative - t.score, 0), 0,
                    (("ld", spec.name.lower()),))
    return format_cgp(rec)


SHEET_COLUMNS = ("turn", "draw", "leave", "new", "rejected", "vowels", "consonants", "top", "position",
                 "word", "score", "cumulative", "tops", "bingo", "bingo_moves", "p_septet", "cgp", "lexicon")


def sheet(game: MasterGame):
    """The master game as an arbitration sheet, a polars DataFrame with one row per turn:

    ``turn`` (1-based), ``draw`` (the rack, ``LEAVE+NEW``), ``leave``, ``new``,
    ``rejected`` (rejected draws, space-separated), ``vowels``, ``consonants`` (of the
    draw), ``top`` (GCG move), ``position`` (its coordinate: ``8D`` across, ``H4`` down),
    ``word`` (the whole main word, blanks lower case), ``score``, ``cumulative`` (points),
    ``tops`` (how many moves score the top), ``bingo`` (bool: the top is a bingo),
    ``bingo_moves`` (placements of the whole draw), ``p_septet`` (probability, before the
    draw, of a septet: :func:`septet_probability`; null when not computed), ``cgp`` (the
    position before the move, :func:`cgp_before`), ``lexicon`` (the word list the tops were
    found in, the master game's)."""
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
            "lexicon": game.lexicon or spec.lexicon,
        })
    schema = {"turn": pl.Int32, "draw": pl.Utf8, "leave": pl.Utf8, "new": pl.Utf8, "rejected": pl.Utf8,
              "vowels": pl.Int32, "consonants": pl.Int32, "top": pl.Utf8, "position": pl.Utf8, "word": pl.Utf8,
              "score": pl.Int32, "cumulative": pl.Int32, "tops": pl.Int32, "bingo": pl.Boolean,
              "bingo_moves": pl.Int32, "p_septet": pl.Float64, "cgp": pl.Utf8, "lexicon": pl.Utf8}
    return pl.DataFrame(rows, schema=schema)


def load_master(path, pack, explain: bool = True) -> MasterGame:
    """Read a master game back from its GCG record (as :func:`to_gcg` writes it), replaying
    every top on the board and checking its score, that it is a top of the recorded draw
    (the move generator lists the draw's moves) and the running total. Raises
    DuplicateError (file and line) for a record that is not a one-player duplicate game, a
    move that is illegal on the board or not a top, or a score the engine does not
    confirm. ``explain``: as :func:`master_game`."""
    from pathlib import Path

    from ...core.errors import GcgError
    from ...formats.gcg import read_gcg_file

    p = str(path)
    if not Path(p).is_file():
        raise DuplicateError(f"{p}: no such file (a master game written by `heuri duplicate new`)")
    try:
        g = read_gcg_file(p)
    except GcgError as e:
        raise DuplicateError(str(e)) from None
    return master_from_record(g, pack, p, explain)


def master_from_record(g, pack, p: str = "master.gcg", explain: bool = True) -> MasterGame:
    """A master game from its GCG record already read (a :class:`heuri.gcg.GcgGame`;
    ``p``: the record's name in messages), checked as :func:`load_master` says (the same
    DuplicateErrors, naming ``p`` and the line)."""
    from ...core.movegen import generate

    spec = pack.spec
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
