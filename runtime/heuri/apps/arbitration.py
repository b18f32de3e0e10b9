"""Arbitration files: the players' sheets in, the ranking out (CSV and a printable HTML page).

A players' sheet is a CSV file with a header line and one row per move handed in::

    player,turn,move,score
    Alice,1,8D FILET,24
    Alice,2,E5 ORBITAT,36
    Bob,1,H4 FILET,22

- ``player``: the player's name; ``turn``: 1-based, within the master game's turns;
- ``move``: GCG notation, coordinate then the whole main word (``8D WORD`` across, row
  first; ``H4 MOT`` down, column first); a blank in lower case; tiles already on the
  board written out or as ``.``; multi-letter tiles in brackets (``[CH]``);
- ``score`` (optional column; a cell may be empty): the score the player announced;
- ``game`` (optional column): the master game's id (``#id`` of its GCG, e.g.
  ``fr-1a2b3c4d5e6f``); a row naming another game is refused.

A folder of sheets may hold one file per player or one file for all. Input that is not a
sheet (a missing column, a turn that is not a number or out of range, a move whose
notation does not parse, a sheet for another game) raises
:class:`heuri.duplicate.DuplicateError` with ``file:line: field 'name': ...``. A move that
parses but is illegal (a misspelled word, a bad placement, tiles not in the draw) is not an
input error: it scores 0 (:func:`heuri.duplicate.judge`). Two moves from one player in one
turn score 0 too (FISF: "plusieurs bulletins pour le même coup").
"""
from __future__ import annotations

import csv
from pathlib import Path

from ..core.errors import MoveError
from .duplicate import TWICE, DuplicateError, MasterGame, PlayerResult, check_notation, move_to_gcg
from .duplicate.verdicts import written_out

REQUIRED = ("player", "turn", "move")

def read_sheets(paths, game: MasterGame, notation: str = "gcg") -> dict:
    """Read players' sheets (CSV files, see the module doc) for ``game``; moves written in
    ``notation`` (``"gcg"``, or ``"fisf"``: ``H4 MOT`` across on row H, ``4H MOT`` down;
    :data:`heuri.duplicate.NOTATIONS`), returned in GCG notation.

    Returns ``{player: {turn: (move text, announced score or None)}}`` in the order the
    players first appear; a turn handed in twice maps to ``(TWICE, None)``. Raises
    DuplicateError naming the file, the line and the field for any input that is not a
    sheet of this game."""
    spec = game.spec
    n = len(game.turns)
    gid = game.game_id
    out: dict = {}
    for path in paths:
        p = str(path)
        try:
            fh = open(p, encoding="utf-8-sig", newline="")
        except OSError as e:
            raise DuplicateError(f"{p}: cannot read: {e.strerror}") from None
        with fh:
            rows = csv.reader(fh)
            header = next(rows, None)
            if header is None:
                raise DuplicateError(f"{p}:1: the sheet is empty; expected a header {','.join(REQUIRED)},score")
            cols = [h.strip().lower() for h in header]
            for name in REQUIRED:
                if name not in cols:
                    raise DuplicateError(f"{p}:1: field '{name}': missing column (header {header!r}; expected "
                                         f"player,turn,move[,score][,game])")
            idx = {c: i for i, c in enumerate(cols)}
            for no, row in enumerate(rows, start=2):
                if not any(x.strip() for x in row):
                    continue
                if len(row) < len(cols):
                    row = row + [""] * (len(cols) - len(row))

                def cell(name):
                    return row[idx[name]].strip() if name in idx else ""

                where = f"{p}:{no}"
                if "game" in idx and cell("game") and cell("game") != gid:
                    raise DuplicateError(f"{where}: field 'game': {cell('game')!r} is a sheet for another game "
                                         f"(this master game is {gid})")
                player = cell("player")
                if not player:
                    raise DuplicateError(f"{where}: field 'player': empty")
                try:
                    turn = int(cell("turn"))
                except ValueError:
                    raise DuplicateError(f"{where}: field 'turn': {cell('turn')!r} is not a turn number") from None
                if not 1 <= turn <= n:
                    raise DuplicateError(f"{where}: field 'turn': {turn} is out of range (the master game has "
                                         f"turns 1 to {n})")
                move = " ".join(cell("move").split())
                if move:
                    move = move_to_gcg(move, notation)
                    try:
                        move = written_out(move, spec)
                    except MoveError as e:
                        raise DuplicateError(f"{where}: field 'move': {e}") from None
                    why = check_notation(move, spec)
                    if why:
                        raise DuplicateError(f"{where}: field 'move': {why}")
                ann = cell("score")
                if ann:
                    try:
                        score = int(ann)
                    except ValueError:
                        raise DuplicateError(f"{where}: field 'score': {ann!r} is not a number of points") from None
                else:
                    score = None
                moves = out.setdefault(player, {})
                if turn in moves:
                    moves[turn] = (TWICE, None)
                else:
                    moves[turn] = (move or None, score)
    return out


def sheet_paths(folder) -> list[Path]:
    """The ``*.csv`` files of a folder (sorted), or the file itself; raises DuplicateError
    when there are none."""
    d = Path(folder)
    if d.is_file():
        return [d]
    if not d.is_dir():
        raise DuplicateError(f"{d}: no such folder of players' sheets")
    files = sorted(d.glob("*.csv"))
    if not files:
        raise DuplicateError(f"{d}: no players' sheets (*.csv: player,turn,move,score) in this folder")
    return files


def ranking_frame(game: MasterGame, results: list[PlayerResult]):
    """The ranking as a polars DataFrame: ``rank``, ``player``, ``total`` (points),
    ``percent`` (of the master total, 2 decimals), ``tops``, ``warnings``, ``penalty``
    (points), ``illegal`` (moves scoring 0 as invalid), ``missing`` (turns without a move),
    then ``t1``..``tN``: the points of each turn (before penalties)."""
    import polars as pl

    rows = []
    rank = 0
    prev = None
    for i, r in enumerate(results, start=1):
        key = (r.total, r.tops)
        rank = rank if key == prev else i
        prev = key
        row = {"rank": rank, "player": r.player, "total": r.total, "percent": round(r.percent, 2),
               "tops": r.tops, "warnings": r.warnings, "penalty": r.penalty,
               "illegal": sum(v.kind == "illegal" for v in r.verdicts),
               "missing": sum(v.kind == "missing" for v in r.verdicts)}
        for v in r.verdicts:
            row[f"t{v.turn}"] = v.points
        rows.append(row)
    return pl.DataFrame(rows)


def verdict_words(v, ui_lang: str | None = None) -> str:
    """The arbitrator's decision on verdict ``v`` in words, in ``ui_lang`` (en, es, fr):
    its kind (top, valid, wrong score, illegal, missing), then why. An illegal move's
    reason from the rules checker is kept as it is (English).

    >>> from heuri.apps.duplicate import Verdict
    >>> verdict_words(Verdict(3, "", "missing", 0, None, None, 40, "no move handed in"), "fr")
    'absent : aucun bulletin rendu'
    >>> verdict_words(Verdict(2, "8D JUGE", "wrong-score", 34, 34, 30, 42, "x"), "es")
    'puntuación errónea: anunciado 30, la jugada vale 34'
    """
    from .i18n import translator

    _ = translator(ui_lang)
    kinds = {"top": _("top"), "valid": _("valid"), "wrong-score": _("wrong score"), "illegal": _("illegal"),
             "missing": _("missing")}
    kind = kinds.get(v.kind, v.kind)
    if v.kind == "missing":
        why = _("no move handed in")
    elif v.kind == "wrong-score":
        why = (_("no score announced") if v.announced is None else
               _("announced {announced}, the move scores {real}").format(announced=v.announced, real=v.real))
    elif v.reason == "two moves handed in for one turn":
        why = _("two moves handed in for one turn")
    else:
        why = v.reason
    return _("{kind}: {why}").format(kind=kind, why=why) if why else kind


def ranking_html(game: MasterGame, results: list[PlayerResult], title: str | None = None,
                 ui_lang: str | None = None) -> str:
    """A printable HTML page: the ranking (total, % of the top, tops, warnings, penalty and
    each turn's points, coloured: top, warning, zero), the master game's turns, and each
    player's moves with the arbitrator's decision (announced score, real score, points,
    why a move scored 0). ``ui_lang``: the page's language (en, es, fr; default: the
    game's language, English for any other)."""
    from .duplicate import rules_of
    from .i18n import translator
    from .report import template_env

    spec = game.spec
    ui_lang = ui_lang or spec.code
    _ = translator(ui_lang)
    frame = ranking_frame(game, results)
    ranking = []
    for row, r in zip(frame.iter_rows(named=True), results):
        vs = []
        for v in r.verdicts:
            css = ("warn" if v.kind == "wrong-score" else
                   "top" if v.real is not None and v.real == v.top and v.points == v.top else
                   "zero" if v.points == 0 else "")
            decision = verdict_words(v, ui_lang)
            vs.append({"points": v.points, "css": css, "turn": v.turn, "move": v.move,
                       "announced": "" if v.announced is None else v.announced,
                       "real": "" if v.real is None else v.real, "top": v.top, "decision": decision,
                       "title": f"{v.move or '-'}: {decision}"})
        ranking.append({**row, "verdicts": vs})
    turns = [{"number": t.number, "draw": t.draw.text(spec), "top": t.top_word(spec), "score": t.score,
              "cumulative": t.cumulative, "n_tops": len(t.tops)} for t in game.turns]
    names = {"es": _("Spanish"), "en": _("English"), "fr": _("French")}
    default_title = _("Duplicate ranking ({language})").format(language=names.get(spec.code, spec.name))
    return template_env(ui_lang).get_template("ranking.html").render(
        title=title or default_title, gid=game.game_id, turns=turns,
        total=game.total, bingos=game.bingos, source=rules_of(spec).source, ranking=ranking,
        lexicon=game.lexicon or spec.lexicon)
