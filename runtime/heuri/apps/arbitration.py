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
from typing import TYPE_CHECKING

from ..core.errors import MoveError
from .duplicate import TWICE, DuplicateError, MasterGame, PlayerResult, check_notation, move_to_gcg
from .duplicate.verdicts import written_out

if TYPE_CHECKING:  # pragma: no cover
    from ..core.spec import LanguageSpec

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


_HTML = """<!DOCTYPE html>
<html lang="{{ lang }}"><head><meta charset="utf-8">
<title>{{ title }}</title>
<style>
 body { font-family: sans-serif; margin: 1.5em; }
 table { border-collapse: collapse; margin-bottom: 1.5em; }
 th, td { border: 1px solid #888; padding: 2px 6px; text-align: right; }
 td.l, th.l { text-align: left; }
 tr.top td { font-weight: bold; }
 td.top { background: #dfd; } td.zero { background: #fdd; } td.warn { background: #ffd; }
 @media print { body { margin: 0; font-size: 10pt; } h2 { page-break-before: always; } }
</style></head><body>
<h1>{{ title }}</h1>
<p>Master game {{ gid }}: {{ turns|length }} turns, top total {{ total }} points, {{ bingos }} bingos.
 Lexicon: {{ lexicon }}. Rules: {{ source }}.</p>
<table>
<tr><th>#</th><th class="l">player</th><th>total</th><th>% of top</th><th>tops</th><th>warnings</th>
<th>penalty</th>{% for t in turns %}<th>{{ t.number }}</th>{% endfor %}</tr>
{% for r in ranking %}<tr><td>{{ r.rank }}</td><td class="l">{{ r.player }}</td><td>{{ r.total }}</td>
<td>{{ "%.2f"|format(r.percent) }}</td><td>{{ r.tops }}</td><td>{{ r.warnings }}</td><td>{{ r.penalty }}</td>
{% for v in r.verdicts %}<td class="{{ v.css }}" title="{{ v.title }}">{{ v.points }}</td>{% endfor %}</tr>
{% endfor %}</table>
<h2>The master game</h2>
<table>
<tr><th>turn</th><th class="l">draw</th><th class="l">top</th><th>score</th><th>total</th><th>tops</th></tr>
{% for t in turns %}<tr><td>{{ t.number }}</td><td class="l">{{ t.draw }}</td><td class="l">{{ t.top }}</td>
<td>{{ t.score }}</td><td>{{ t.cumulative }}</td><td>{{ t.n_tops }}</td></tr>
{% endfor %}</table>
<h2>Players' moves</h2>
{% for r in ranking %}<h3>{{ r.rank }}. {{ r.player }}: {{ r.total }} points</h3>
<table>
<tr><th>turn</th><th class="l">move</th><th>announced</th><th>scores</th><th>points</th><th>top</th>
<th class="l">decision</th></tr>
{% for v in r.verdicts %}<tr><td>{{ v.turn }}</td><td class="l">{{ v.move or "-" }}</td><td>{{ v.announced }}</td>
<td>{{ v.real }}</td><td class="{{ v.css }}">{{ v.points }}</td><td>{{ v.top }}</td><td class="l">{{ v.decision }}</td></tr>
{% endfor %}</table>
{% endfor %}
<p>Green: a top; yellow: a warning (score missing or wrong; the move keeps its real score); red: 0 (invalid or missing move).
Written by heuri duplicate score.</p>
</body></html>
"""


def ranking_html(game: MasterGame, results: list[PlayerResult], title: str | None = None) -> str:
    """A printable HTML page: the ranking (total, % of the top, tops, warnings, penalty and
    each turn's points, coloured: top, warning, zero), the master game's turns, and each
    player's moves with the arbitrator's decision (announced score, real score, points,
    why a move scored 0)."""
    from jinja2 import Environment

    from .duplicate import rules_of

    spec = game.spec
    env = Environment(autoescape=True)
    frame = ranking_frame(game, results)
    ranking = []
    for row, r in zip(frame.iter_rows(named=True), results):
        vs = []
        for v in r.verdicts:
            css = ("warn" if v.kind == "wrong-score" else
                   "top" if v.real is not None and v.real == v.top and v.points == v.top else
                   "zero" if v.points == 0 else "")
            decision = v.kind + (f": {v.reason}" if v.reason else "")
            vs.append({"points": v.points, "css": css, "turn": v.turn, "move": v.move,
                       "announced": "" if v.announced is None else v.announced,
                       "real": "" if v.real is None else v.real, "top": v.top, "decision": decision,
                       "title": f"{v.move or '-'}: {decision}"})
        ranking.append({**row, "verdicts": vs})
    turns = [{"number": t.number, "draw": t.draw.text(spec), "top": t.top_word(spec), "score": t.score,
              "cumulative": t.cumulative, "n_tops": len(t.tops)} for t in game.turns]
    return env.from_string(_HTML).render(
        lang=spec.code, title=title or f"Duplicate ranking ({spec.name})", gid=game.game_id, turns=turns,
        total=game.total, bingos=game.bingos, source=rules_of(spec).source, ranking=ranking,
        lexicon=game.lexicon or spec.lexicon)
