"""Duplicate's verdicts and arbitration: the notation of a handed-in move (GCG or FISF),
the verdict on one move (:func:`judge`: top, valid, wrong score, illegal, missing) and the
ranking of all players over a master game (:func:`arbitrate`), with the FISF rules for a
wrong score (:mod:`heuri.apps.duplicate` gives the overview; :mod:`heuri.apps.arbitration`
reads the players' sheets and writes the ranking)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...core.errors import MoveError
from ...core.move import Move, Placement, format_rack, parse_coord
from .rules import DuplicateError, rules_of
from .master import MasterGame, Turn

if TYPE_CHECKING:  # pragma: no cover
    from ...core.spec import LanguageSpec


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


def written_out(text: str, spec: "LanguageSpec") -> str:
    """A move in GCG coordinates written as people read it, played-through tiles in
    parentheses (``8G CA(RR)OÑE``, :func:`heuri.formats.render.move_text`) → GCG with those
    tiles written out (``8G CA[RR]OÑE``), which the arbitration reads; other text is
    returned as it is. Raises MoveError for parentheses that do not parse."""
    if "(" not in text and ")" not in text:
        return text
    from ...formats.render import parse_move_text

    return parse_move_text(text, spec).gcg(spec, dots=False)


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
        text = written_out(text, spec)
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
                        f" (a blank is written in lower case)", "tiles-not-in-rack", move=text, form="draw",
                        rack=format_rack(sorted(t.draw.tiles), spec), tiles=lacks)
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
