"""GCG game records: reader, writer and replayer.

GCG is the game-record format of Quackle, Macondo and Woogles (docs/rules.md)::

    #character-encoding UTF-8
    #player1 p1 Player One
    #player2 p2 Player Two
    #lexicon CSW21
    >p1: AEINRST 8D RETSINA +66 66
    >p2: ?AEHLOW I5 dAW. +20 20
    >p1: EEEEEEE -EEE +0 66            exchange ('-4' = 4 unknown tiles, '-' = pass)
    >p2: DEIILTZ 9F ZEDI +24 44
    >p2: DEIILTZ -- -24 20             phony withdrawn
    >p1: DIMSTTW (challenge) +5 71     challenge bonus
    >p2: OST D11 .OTS +14 376
    >p2: (OPEG) +14 390                end of game: the opponent's rack
    >p1: NU (time) -10 422             time penalty

Three layers:

- :func:`read_gcg` parses a record's text or bytes (UTF-8, or Latin-1 without an encoding
  pragma; CRLF or LF), :func:`read_gcg_file` a file, into a :class:`GcgGame`: pragmas and
  events, syntax only, spec-free;
- :func:`replay` (a :class:`Replayer`, one method per event kind) plays a GcgGame on a
  language's board: checks every event's order, every
  recorded running total against the recorded scores, the rack against the tiles played
  and the tile set, and compares every recorded score with the engine's own scoring
  (:meth:`heuri.board.Board.score`). Recorded totals are kept: a score the engine computes
  differently is a :class:`Mismatch`, never silently re-scored. Words the pack does not
  know are warnings (records come from other lexicons);
- :func:`write_gcg` writes a GcgGame back (:func:`game_to_gcg` makes one from a
  :class:`heuri.game.Game`).

Anything malformed raises :class:`heuri.errors.GcgError` with the line number, what was
expected, and a ``kind`` tag (``empty-file``, ``unsupported-encoding``,
``misplaced-encoding``, ``redundant-pragma``, ``pragma-after-events``,
``duplicate-nicknames``, ``unknown-game-variant``, ``unknown-player``, ``malformed-line``,
``malformed-rack``, ``malformed-play``, ``inconsistent-total``, ``out-of-turn``,
``move-after-game-end``, ``end-event-before-game-end``, ``premature-time-penalty``,
``duplicate-time-penalty``, ``phony-withdrawn-wrong-player``, ``phony-tiles-mismatch``,
``challenge-without-play``, ``rack-not-in-bag``, ``tiles-not-in-rack``, and the board
kinds of :meth:`heuri.board.Board.check` such as ``play-out-of-bounds``,
``square-occupied``, ``playthrough-mismatch``).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..core.board import Board
from ..core.cgp import guess_language_from_names
from ..core.errors import GcgError, MoveError, Note
from ..core.game import rack_value, tile_ids
from ..core.move import Exchange, Move, Placement, format_rack, parse_rack
from ..core.tiletext import is_tile_text

if TYPE_CHECKING:  # pragma: no cover
    from ..core.game import Game
    from ..core.spec import LanguageSpec

#: Encodings accepted in ``#character-encoding`` (case-insensitive).
ENCODINGS = {"utf-8": "utf-8", "utf8": "utf-8", "iso-8859-1": "latin-1", "iso8859-1": "latin-1",
             "latin-1": "latin-1", "latin1": "latin-1"}
#: Pragmas that may appear more than once / after the first event.
REPEATABLE = {"note", "tile"}
AFTER_EVENTS = {"note"}  # plus rack1, rack2, ... (see _is_rack_pragma)
GAME_TYPES = {"classic", "duplicate"}  # duplicate: one player, the master game (heuri.duplicate)

_COORD = re.compile(r"^(\d{1,2}[A-Za-z]|[A-Za-z]\d{1,2})$")
_SCORE = re.compile(r"^[+-]\d+$")
_TOTAL = re.compile(r"^-?\d+$")


def _is_rack_pragma(name: str) -> bool:
    return re.fullmatch(r"rack\d+", name) is not None


def _tile_text_ok(text: str, alone: str, upper: bool) -> bool:
    """Tile spellings (:mod:`heuri.tiletext`: letters, ``[CH]``, ``[L·L]``) or the
    characters of ``alone``; with ``upper``, spellings must be upper case."""
    return is_tile_text(text, alone, upper)


def _rack_syntax_ok(text: str) -> bool:
    """Upper-case letters (any script), ``?``, or bracketed upper-case groups."""
    return _tile_text_ok(text, "?", upper=True)


def _word_syntax_ok(text: str) -> bool:
    """A non-empty play: letters of either case (lower = blank), ``.`` for a played-through
    square, or bracketed groups."""
    return bool(text) and _tile_text_ok(text, ".", upper=False)


# -- data -----------------------------------------------------------------------------------
@dataclass
class GcgEvent:
    """One ``>`` line.

    ``kind``: ``"play"``, ``"exchange"``, ``"pass"``, ``"withdrawn"`` (``--``),
    ``"challenge"`` (bonus), ``"time"`` (penalty), ``"end_points"`` (``(RACK) +N``: the
    opponents' racks to the player who went out), ``"end_penalty"`` (``RACK (RACK) -N``:
    one's own rack). ``rack``: the rack text ('' when absent); ``move``: the move text
    (``8D DJINN``, ``-ABC``, ``-4``, ``-``) for play/exchange/pass, the tiles inside the
    parentheses for end events; ``score``, ``total``: as recorded (points); ``note``: text
    after the total."""

    line: int
    nick: str
    player: int
    kind: str
    rack: str
    move: str | None
    score: int
    total: int
    note: str = ""

    def body(self) -> str:
        """The move part: ``8D DJINN``, ``-ABC``, ``-``, ``--``, ``(challenge)``, ``(time)``,
        ``(RACK)``."""
        if self.kind in ("play", "exchange", "pass"):
            return self.move
        if self.kind == "withdrawn":
            return "--"
        if self.kind == "challenge":
            return "(challenge)"
        if self.kind == "time":
            return "(time)"
        return f"({self.move})"

    def text(self) -> str:
        """The event as a GCG line (canonical spacing)."""
        body = self.body()
        head = f">{self.nick}: " + (f"{self.rack} " if self.rack else "")
        out = f"{head}{body} {self.score:+d} {self.total}"
        return out + (f" {self.note}" if self.note else "")


@dataclass
class GcgPragma:
    """One ``#name value`` line."""

    line: int
    name: str
    value: str

    def text(self) -> str:
        return f"#{self.name} {self.value}".rstrip()


@dataclass
class GcgGame:
    """A parsed GCG file: ``items`` (pragmas and events in file order), ``players``
    (list of ``(nick, full name)`` by player number), ``path``, and ``warnings``
    (``(line, message)``: what a tolerant reader accepts but must not accept silently —
    two players with one full name, a ``#rackN`` before the last event, a ``#note`` before
    the first event)."""

    items: list = field(default_factory=list)
    players: list = field(default_factory=list)
    path: str | None = None
    warnings: list = field(default_factory=list)

    @property
    def events(self) -> list[GcgEvent]:
        return [x for x in self.items if isinstance(x, GcgEvent)]

    @property
    def pragmas(self) -> list[GcgPragma]:
        return [x for x in self.items if isinstance(x, GcgPragma)]

    def pragma(self, name: str) -> str | None:
        """Value of the first ``#name`` pragma, or None."""
        for p in self.pragmas:
            if p.name == name:
                return p.value
        return None

    @property
    def lexicon(self) -> str | None:
        return self.pragma("lexicon")

    def guess_language(self) -> str | None:
        """Language code from ``#lexicon`` / ``#tile-distribution`` when obvious
        (FISE/FILE → es, FRA → fr, NWL/CSW/TWL → en), else None."""
        return guess_language_from_names(self.lexicon, self.pragma("tile-distribution"))


# -- reading -------------------------------------------------------------------------------------
_BOM = b"\xef\xbb\xbf"


def decode_record(data: bytes, path: str | None) -> str:
    """The text of a GCG file's bytes: UTF-8 (a byte-order mark dropped) unless the first
    line's ``#character-encoding`` names another encoding. ``path`` names the file in
    errors. Raises GcgError for an unknown encoding or bytes that do not decode."""
    if data.startswith(_BOM):  # Windows editors save UTF-8 with a byte-order mark
        data = data[len(_BOM):]
    first = data.split(b"\n", 1)[0].strip()
    if first.lower().startswith(b"#character-encoding"):
        name = first.split(None, 1)[1].decode("ascii", "replace").strip() if len(first.split()) > 1 else ""
        enc = ENCODINGS.get(name.lower())
        if enc is None:
            raise GcgError(f"#character-encoding {name!r} is not supported; expected UTF-8 "
                           f"(or ISO-8859-1)", "unsupported-encoding", 1, path)
        try:
            return data.decode(enc)
        except UnicodeDecodeError as e:
            line = data[:e.start].count(b"\n") + 1
            raise GcgError(f"bytes that are not {name}", "bad-encoding", line, path) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # older Quackle files: Latin-1 without a pragma


def read_gcg_file(path) -> GcgGame:
    """Parse the GCG file at ``path`` (str or Path): its bytes are decoded as
    :func:`decode_record` says, then read as :func:`read_gcg` reads text; errors name the
    file. Raises GcgError (``no-file``) when there is no such file."""
    p = Path(path)
    if not p.is_file():
        raise GcgError("no such file", "no-file", 0, str(path))
    return read_gcg(p.read_bytes(), path=str(path))


def read_gcg(source: str | bytes | os.PathLike, path: str | None = None) -> GcgGame:
    """Parse a GCG record's contents: ``source`` is its text (str) or its bytes (decoded as
    :func:`decode_record` says); a str is always the record itself, never a file name
    (:func:`read_gcg_file` reads a file; a :class:`pathlib.Path` given here is read as that
    file). ``path`` names the record in errors. Returns a
    :class:`GcgGame`. Checks syntax, pragma placement, nicknames, racks and move text
    shapes; raises GcgError (line number, what was expected, ``kind``). Nothing here needs
    a language: tiles are resolved by :func:`replay`."""
    if isinstance(source, os.PathLike):  # a Path is never a user's text: read that file
        return read_gcg_file(source)
    if isinstance(source, bytes):
        text = decode_record(source, path)
    else:
        text = source
    text = text.removeprefix("\ufeff")  # a byte-order mark decoded as text
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not text.strip():
        raise GcgError("the file is empty; expected #player1/#player2 pragmas and '>' event lines",
                       "empty-file", 0, path)
    game = GcgGame(path=path)
    seen: dict[str, int] = {}
    nicks: dict[str, int] = {}
    first_event = None
    note = None  # the #note pragma that continuation lines extend
    for no, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if note is not None and line[0] not in "#>":
            # Macondo and Woogles write a long note over several lines: the lines after
            # '#note' that start with neither '#' nor '>' continue it.
            note.value += "\n" + line
            continue
        note = None
        if line.startswith("#"):
            name, _, value = line[1:].partition(" ")
            name, value = name.strip(), value.strip()
            if name == "character-encoding":
                if no != 1:
                    raise GcgError("#character-encoding must be the first line", "misplaced-encoding", no, path)
                if value.lower() not in ENCODINGS:
                    raise GcgError(f"#character-encoding {value!r} is not supported; expected UTF-8 "
                                   f"(or ISO-8859-1)", "unsupported-encoding", no, path)
            elif first_event is not None and name not in AFTER_EVENTS and not _is_rack_pragma(name):
                raise GcgError(f"#{name} after the first move (line {first_event}); pragmas other than "
                               f"#note and #rackN come before the moves", "pragma-after-events", no, path)
            if name in seen and name not in REPEATABLE:
                raise GcgError(f"#{name} appears twice (lines {seen[name]} and {no})", "redundant-pragma", no, path)
            seen.setdefault(name, no)
            m = re.fullmatch(r"player(\d+)", name)
            if m:
                parts = value.split(None, 1)
                if not parts:
                    raise GcgError(f"#{name} needs a nickname and a name", "malformed-pragma", no, path)
                idx = int(m.group(1)) - 1
                if not 0 <= idx < 8:  # players are numbered from 1; no record has more than a few
                    raise GcgError(f"#{name}: players are numbered #player1, #player2, ...", "malformed-pragma",
                                   no, path)
                if parts[0] in nicks:
                    raise GcgError(f"nickname {parts[0]!r} is used by two players", "duplicate-nicknames", no, path)
                nicks[parts[0]] = idx
                while len(game.players) <= idx:
                    game.players.append(None)
                game.players[idx] = (parts[0], parts[1] if len(parts) > 1 else parts[0])
            elif name == "game-type" and value.lower() not in GAME_TYPES:
                raise GcgError(f"#game-type {value!r} is not supported; expected {sorted(GAME_TYPES)}",
                               "unknown-game-variant", no, path)
            elif _is_rack_pragma(name):
                if not _rack_syntax_ok(value):
                    raise GcgError(f"#{name} {value!r}: expected a rack (upper-case letters, '?', [XX])",
                                   "malformed-rack", no, path)
            game.items.append(GcgPragma(no, name, value))
            if name == "note":
                note = game.items[-1]
                if first_event is None:
                    game.warnings.append((no, Note("#note before the first move: a note comments on the move "
                                                   "before it", "gcg-early-note")))
            continue
        if not line.startswith(">"):
            raise GcgError(f"{line[:40]!r}: expected a pragma ('#...') or an event ('>nick: ...')",
                           "malformed-line", no, path)
        if first_event is None:
            first_event = no
            solo = (game.pragma("game-type") or "").lower() == "duplicate" and len(game.players) == 1
            if any(p is None for p in game.players) or (len(game.players) < 2 and not solo):
                raise GcgError("events before #player1 and #player2", "unknown-player", no, path)
        game.items.append(_parse_event(line, no, nicks, path))
    _read_warnings(game)
    return game


def _read_warnings(game: GcgGame) -> None:
    """The warnings of a record that parses but says something odd (see GcgGame)."""
    names: dict[str, str] = {}
    for p in game.players:
        if p is None:
            continue
        nick, full = p
        if full in names:
            game.warnings.append((0, Note(f"players {names[full]!r} and {nick!r} share the full name {full!r}",
                                          "gcg-shared-name", first=names[full], second=nick, name=full)))
        names.setdefault(full, nick)
    events = game.events
    last = events[-1].line if events else 0
    for p in game.pragmas:
        if _is_rack_pragma(p.name) and p.line < last:
            game.warnings.append((p.line, Note(f"#{p.name} {p.value} stands before the last move (line {last}); "
                                               f"a #rackN line gives a rack after the last move",
                                               "gcg-early-rack", pragma=f"#{p.name}", rack=p.value, last=last)))
    game.warnings.sort(key=lambda w: w[0])


def _parse_event(line: str, no: int, nicks: dict, path) -> GcgEvent:
    head, colon, rest = line[1:].partition(":")
    nick = head.strip()
    if not colon or not nick:
        raise GcgError(f"{line[:40]!r}: expected '>nick: RACK MOVE +SCORE TOTAL'", "malformed-line", no, path)
    if nick not in nicks:
        raise GcgError(f"unknown player {nick!r}; players are {sorted(nicks)}", "unknown-player", no, path)
    toks = rest.split()
    rack = ""
    if toks and toks[0][0] not in "-(+" and not _COORD.match(toks[0]):
        rack = toks[0]
        toks = toks[1:]
        if not _rack_syntax_ok(rack):
            raise GcgError(f"rack {rack!r}: expected upper-case letters, '?' for a blank, [XX] for a "
                           f"multi-letter tile", "malformed-rack", no, path)
    if not toks:
        raise GcgError(f"{line!r}: expected a move after the rack", "malformed-line", no, path)
    h = toks[0]
    move = None
    if h == "(challenge)":
        kind, k = "challenge", 1
    elif h == "(time)":
        kind, k = "time", 1
    elif h.startswith("(") and h.endswith(")"):
        move = h[1:-1]
        if not move or not _rack_syntax_ok(move):
            raise GcgError(f"end-of-game rack {h!r}: expected upper-case letters, '?' and [XX] in "
                           f"parentheses", "malformed-rack", no, path)
        kind, k = "end_points", 1
    elif h == "--":
        kind, k = "withdrawn", 1
    elif h.startswith("-"):
        body = h[1:]
        if body == "":
            kind = "pass"
        elif body.isdigit():
            kind = "exchange"
        elif _rack_syntax_ok(body):
            kind = "exchange"
        else:
            raise GcgError(f"exchange {h!r}: expected -TILES, -N or '-'", "malformed-rack", no, path)
        move, k = h, 1
    elif _COORD.match(h):
        if len(toks) < 2 or not _word_syntax_ok(toks[1]):
            w = toks[1] if len(toks) > 1 else ""
            raise GcgError(f"play {h} {w!r}: expected letters (lowercase = blank), '.' for a "
                           f"played-through square, [XX] for a multi-letter tile", "malformed-play", no, path)
        kind, move, k = "play", f"{h} {toks[1]}", 2
    else:
        raise GcgError(f"{h!r}: expected a coordinate and word (8D WORD), -TILES, -, --, "
                       f"(challenge), (time) or (RACK)", "malformed-play", no, path)
    if len(toks) < k + 2 or not _SCORE.match(toks[k]) or not _TOTAL.match(toks[k + 1]):
        got = " ".join(toks[k:k + 2])
        raise GcgError(f"after {' '.join(toks[:k])!r}: expected a signed score and a total (+66 66), "
                       f"got {got!r}", "malformed-line", no, path)
    score, total = int(toks[k]), int(toks[k + 1])
    if kind == "end_points" and score < 0:
        kind = "end_penalty"
    note = " ".join(toks[k + 2:])
    return GcgEvent(no, nick, nicks[nick], kind, rack, move, score, total, note)


# -- writing ---------------------------------------------------------------------------------------
def write_gcg(game: GcgGame) -> str:
    """GcgGame → GCG text (LF line ends, one space between fields). Pragmas and events keep
    their order; ``read_gcg(write_gcg(g))`` gives the same pragmas and events."""
    return "\n".join(x.text() for x in game.items) + "\n"


def game_to_gcg(game: "Game", nicks=("p1", "p2"), names=None, lexicon: str | None = None,
                title: str | None = None, tile_distribution: str | None = None, notes=()) -> GcgGame:
    """A GcgGame recording a :class:`heuri.game.Game` (racks before each move, scores,
    running totals, end-of-game lines): heuri's one Game → GCG writer (``write_gcg`` makes
    the text; the match runner, the web board and the analysis tests use it).
    ``tile_distribution`` (Macondo's names: english, spanish, french) lets ``heuri replay``
    find the pack without ``--lang``; ``notes`` are written as ``#note`` pragmas after the
    moves (a forfeit)."""
    spec = game.spec
    names = names or nicks
    g = GcgGame(players=list(zip(nicks, names)))
    no = 0

    def add(x):
        g.items.append(x)

    add(GcgPragma(0, "character-encoding", "UTF-8"))
    for i, (n, full) in enumerate(zip(nicks, names)):
        add(GcgPragma(0, f"player{i + 1}", f"{n} {full}"))
    if title:
        add(GcgPragma(0, "title", title))
    if lexicon:
        add(GcgPragma(0, "lexicon", lexicon))
    if tile_distribution:
        add(GcgPragma(0, "tile-distribution", tile_distribution))
    for pos, move, pts in game.history:
        seat = pos.to_move
        kind = "play" if isinstance(move, Placement) else "exchange" if isinstance(move, Exchange) else "pass"
        add(GcgEvent(no, nicks[seat], seat, kind, pos.rack_text(seat), move.gcg(spec), pts,
                     pos.scores[seat] + pts))
    p = game.position
    if p.over and p.end_adjust:
        before = [s - a for s, a in zip(p.scores, p.end_adjust)]
        last = game.history[-1][0].to_move if game.history else 0
        # someone went out: the last mover's rack is empty (their points may be 0, when the
        # others hold only blanks, so the adjustments' signs do not tell)
        if p.bag_size == 0 and not p.racks[last].any():
            others = np.zeros(spec.n_kinds, dtype=np.int64)
            for i, r in enumerate(p.racks):
                if i != last:
                    others += r
            txt = format_rack(tile_ids(others), spec)
            add(GcgEvent(no, nicks[last], last, "end_points", "", txt, p.end_adjust[last], p.scores[last]))
            for i, a in enumerate(p.end_adjust):
                if i != last and a < 0:
                    add(GcgEvent(no, nicks[i], i, "end_penalty", p.rack_text(i), p.rack_text(i), a, p.scores[i]))
        else:
            for i, a in enumerate(p.end_adjust):
                add(GcgEvent(no, nicks[i], i, "end_penalty", p.rack_text(i), p.rack_text(i), a,
                             before[i] + a))
    for note in notes:
        add(GcgPragma(0, "note", " ".join(str(note).split())))
    return g


# -- replaying ---------------------------------------------------------------------------------------
@dataclass
class Mismatch:
    """A recorded score or total the engine computes differently."""

    line: int
    nick: str
    event: str
    recorded_score: int
    engine_score: int
    recorded_total: int
    engine_total: int
    note: str = ""


@dataclass
class ReplayStep:
    """State after one event: ``board`` (Board), ``engine_totals``/``recorded_totals``
    (lists by player), ``words`` formed by a play (spellings)."""

    event: GcgEvent
    board: Board
    engine_score: int
    engine_totals: list
    recorded_totals: list
    words: list = field(default_factory=list)


@dataclass
class Replay:
    """Result of :func:`replay`: ``steps`` (one per event), ``mismatches``,
    ``warnings`` (``(line, message)``: unknown words, rules the record bends; the message a
    :class:`heuri.core.errors.Note`, whose kind ``gcg-…`` and parts let an interface say it
    in its own language), ``off_list``
    (``(line, move, [words])`` of each play forming words outside ``words``), ``over``
    (the game ended), ``complete`` (it ended and every end-of-game line is present),
    ``end_rule`` used."""

    game: GcgGame
    spec: "LanguageSpec"
    end_rule: str
    steps: list = field(default_factory=list)
    mismatches: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    off_list: list = field(default_factory=list)
    over: bool = False
    complete: bool = False

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def board_at(self, n: int) -> Board:
        """Board after the first ``n`` events (0 = empty board)."""
        if n <= 0 or not self.steps:
            return Board.empty(self.spec)
        return self.steps[min(n, len(self.steps)) - 1].board


def detect_end_rule(game: GcgGame) -> str | None:
    """The end rule a record was written with, from its shape: an ``(RACK) +N`` line
    followed by the other player's ``RACK (RACK) -N`` line is the transfer form (Quackle);
    a lone ``(RACK) +N`` line is the doubled form (Macondo, Woogles, MAGPIE, in every
    language). None when the record has no end-of-game points line."""
    kinds = [e.kind for e in game.events]
    if "end_points" not in kinds:
        return None
    i = kinds.index("end_points")
    return "transfer" if "end_penalty" in kinds[i + 1:] or "end_penalty" in kinds[max(0, i - 1):i] else "double"


class Replayer:
    """Replays a parsed GCG record on a language's board, one event at a time, the way
    python-chess's PGN visitors read a game: :meth:`run` walks the record and hands each
    item to the method of its kind.

    - :meth:`rack_pragma` (``#rack1 ...``): the tiles known to be on a player's rack;
    - one method per event kind: :meth:`play`, :meth:`exchange`, :meth:`pass_`,
      :meth:`withdrawn` (``--``), :meth:`challenge` (bonus), :meth:`time` (penalty),
      :meth:`end_points` (``(RACK) +N``) and :meth:`end_penalty` (``RACK (RACK) -N``).
      Each gets the event and the rack it states (a count vector, or None), checks the
      event's place in the game, then the recorded running total (:meth:`recorded`), then
      applies the event with the engine's own scoring, and returns ``(engine score, note,
      words formed)``. :meth:`event` then compares the scores and records the step.

    State, as the events leave it: ``board``; ``pool`` (count vector: the tiles not on the
    board); ``sizes`` (each rack's size); ``bag`` (tiles in the bag); ``recorded_totals``
    and ``engine_totals`` (points by player); ``scoreless`` (consecutive scoreless turns);
    ``over`` and ``out_player`` (who went out, or None); ``pending`` (the end-of-game lines
    still owed, ``(kind, player)``); ``known`` (by player, the tiles known to be on the
    rack, or None); ``last`` (the last play with the state before it, so that a withdrawal
    can undo it).

    ``end_rule``, ``words``: as :func:`replay`. Raises GcgError on the first malformed or
    impossible event.
    """

    def __init__(self, game: GcgGame, spec: "LanguageSpec", end_rule: str | None = None, words=None):
        self.game = game
        self.spec = spec
        self.words = words
        self.rule = (detect_end_rule(game) if end_rule == "auto" else end_rule) or spec.end_rule
        self.n = n = len(game.players)
        self.result = Replay(game, spec, self.rule)
        self.board = Board.empty(spec)
        full = spec.distribution()
        self.pool = full.copy()
        self.sizes = [spec.rack_size] * n
        self.bag = int(full.sum()) - spec.rack_size * n
        self.recorded_totals = [0] * n
        self.engine_totals = [0] * n
        self.scoreless = 0
        self.over = False
        self.out_player = None
        self.pending: set = set()
        self.time_seen: set = set()
        self.last = None          # (event, snapshot, engine score) of the last play
        self.prev_event = None
        self.next_player = None
        self.last_diff = [0] * n  # engine total - recorded total after each player's last event
        self.known: list = [None] * n

    # -- the walk ---------------------------------------------------------------------------
    def run(self) -> Replay:
        """Replay every item of the record; returns the :class:`Replay`."""
        res = self.result
        res.warnings.extend(self.game.warnings)
        for item in self.game.items:
            if isinstance(item, GcgPragma):
                if _is_rack_pragma(item.name) and item.value:
                    self.rack_pragma(item)
                continue
            self.event(item)
        res.over = self.over
        res.complete = self.over and not self.pending
        return res

    def event(self, ev: GcgEvent) -> None:
        """Hand ``ev`` to the method of its kind, then compare its recorded score with the
        engine's (a :class:`Mismatch` when they differ, or when the running difference
        changes) and record the step."""
        rack = self.counts(ev.rack, ev, "rack") if ev.rack else None
        if ev.kind in ("challenge", "time") and rack is not None:
            # The rack field of a challenge-bonus or time-penalty line is informational (no
            # tiles move); writers put a placeholder there (Macondo: UNKNOWN). Never stop on it.
            if ev.rack.upper() != "UNKNOWN" and ((rack - self.pool) > 0).any():
                self.result.warnings.append((ev.line, Note(f"rack field {ev.rack!r} of the {ev.body()} line is not "
                                                           f"a rack the tile set allows here; ignored",
                                                           "gcg-bad-rack-field", rack=ev.rack, event=ev.body())))
            rack = None
        handler = self.pass_ if ev.kind == "pass" else getattr(self, ev.kind)
        eng, note, formed = handler(ev, rack)
        p = ev.player
        if ev.kind in ("play", "exchange", "pass", "withdrawn"):
            self.next_player = (p + 1) % self.n
            if not self.over and self.scoreless >= self.spec.max_scoreless_turns:
                self.over = True
                self.pending = {("end_penalty", q) for q in range(self.n)}
        self.engine_totals[p] += eng
        diff = self.engine_totals[p] - self.recorded_totals[p]
        if eng != ev.score or diff != self.last_diff[p]:
            self.result.mismatches.append(Mismatch(ev.line, ev.nick, ev.body(), ev.score, eng,
                                                   ev.total, self.engine_totals[p], note))
        self.last_diff[p] = diff
        self.result.steps.append(ReplayStep(ev, self.board, eng, list(self.engine_totals),
                                            list(self.recorded_totals), formed))
        self.prev_event = ev

    # -- checks shared by the kinds ---------------------------------------------------------
    def fail(self, msg: str, kind: str, ev) -> None:
        raise GcgError(msg, kind, ev.line, self.game.path)

    def counts(self, text: str, ev, what: str):
        """``text`` (rack text) as a count vector; a malformed rack fails at ``ev``."""
        try:
            ids = parse_rack(text, self.spec, what=what)
        except MoveError as e:
            self.fail(str(e), "malformed-rack", ev)
        return np.bincount(np.asarray(ids, dtype=np.int64), minlength=self.spec.n_kinds).astype(np.int64)

    def in_pool(self, v, ev, what: str) -> None:
        """Fail when ``v`` needs more of a tile than the set has left off the board."""
        over_ = v - self.pool
        if (over_ > 0).any():
            extra = format_rack(tile_ids(np.maximum(over_, 0)), self.spec)
            self.fail(f"{what} needs {extra}, more than the tile set has left off the board", "rack-not-in-bag", ev)

    def with_others(self, v, who: int, line: int, what: str) -> None:
        """Warn when ``v`` (player ``who``'s known tiles) and the tiles known to be on the
        other racks need more of a tile than the set has left off the board."""
        total = v.copy()
        for q in range(self.n):
            if q != who and self.known[q] is not None:
                total += self.known[q]
        over_ = total - self.pool
        if (over_ > 0).any():
            extra = format_rack(tile_ids(np.maximum(over_, 0)), self.spec)
            # what: "rack TILES" (a move's rack field) or "#rackN TILES" (a pragma)
            source, _, tiles = what.partition(" ")
            self.result.warnings.append((line, Note(f"{what} and the tiles known on the other rack need {extra} "
                                                    f"more than the tile set has left off the board",
                                                    "gcg-over-pool", form="rack" if source == "rack" else "pragma",
                                                    pragma=source, rack=tiles, tiles=extra)))

    def recorded(self, ev: GcgEvent, rack) -> None:
        """The recorded running total: the previous total plus the recorded score; the
        stated rack must fit in the tiles off the board."""
        p = ev.player
        if self.recorded_totals[p] + ev.score != ev.total:
            self.fail(f"{ev.nick}'s total {ev.total} is not the previous total {self.recorded_totals[p]} "
                      f"{ev.score:+d} = {self.recorded_totals[p] + ev.score}", "inconsistent-total", ev)
        self.recorded_totals[p] = ev.total
        if rack is not None and ev.kind != "withdrawn":  # a withdrawn play's tiles are on the board
            self.in_pool(rack, ev, f"rack {ev.rack}")
            if ev.kind in ("play", "exchange", "pass"):
                self.with_others(rack, p, ev.line, f"rack {ev.rack}")

    def turn(self, ev: GcgEvent) -> None:
        """A turn (play, exchange, pass) comes before the end of the game, in turn order."""
        if self.over and not (ev.kind == "pass" and ev.score == 0 and self.out_player is not None):
            # Macondo/Woogles record the opponent's acceptance of a play-out as a pass.
            self.fail(f"{ev.nick} moves after the game ended", "move-after-game-end", ev)
        if self.next_player is not None and ev.player != self.next_player:
            self.fail(f"{ev.nick} moves out of turn; expected {self.game.players[self.next_player][0]}",
                      "out-of-turn", ev)

    # -- the pragma and the event kinds -----------------------------------------------------
    def rack_pragma(self, item: GcgPragma) -> None:
        """``#rackN TILES``: the tiles on player N's rack now."""
        v = self.counts(item.value, item, f"#{item.name}")
        self.in_pool(v, item, f"#{item.name} {item.value}")
        who = int(item.name[4:]) - 1
        self.with_others(v, who, item.line, f"#{item.name} {item.value}")
        if 0 <= who < self.n:
            self.known[who] = v

    def play(self, ev: GcgEvent, rack):
        """A placement: legal on the board, its tiles on the stated rack, scored by the
        engine; words outside ``words`` are warnings. Draws from the bag; going out with
        the bag empty ends the game."""
        self.turn(ev)
        self.recorded(ev, rack)
        spec, p = self.spec, ev.player
        try:
            mv = Move.from_gcg(ev.move, self.board, spec)
            formed = self.board.check(mv)
        except MoveError as e:
            self.fail(str(e), e.kind, ev)
        used = mv.rack_counts(spec)
        if rack is not None and (used > rack).any():
            self.fail(f"play {ev.move!r} uses {format_rack(tile_ids(np.maximum(used - rack, 0)), spec)}, not on "
                      f"the rack {ev.rack}", "tiles-not-in-rack", ev)
        eng = self.board.score(mv)
        if self.words is not None:
            unknown = [w for w in formed if w not in self.words]
            if unknown:
                self.result.off_list.append((ev.line, ev.move, unknown))
                self.result.warnings.append((ev.line, Note(f"{ev.move}: {', '.join(unknown)} not in {self.spec.lexicon}",
                                                           "gcg-off-list", move=ev.move, words=", ".join(unknown),
                                                           lexicon=self.spec.lexicon)))
        snap = (self.board, self.pool.copy(), list(self.sizes), self.bag, self.scoreless, self.over,
                self.out_player, set(self.pending), list(self.known))
        self.last = (ev, snap, eng)
        self.known[p] = rack - used if rack is not None else None
        self.board = self.board.play(mv)
        self.pool = self.pool - used
        k = mv.n_tiles
        draw = min(k, self.bag)
        bag_before = self.bag
        self.sizes[p] = self.sizes[p] - k + draw
        self.bag -= draw
        self.scoreless = 0 if ev.score != 0 else self.scoreless + 1
        if self.sizes[p] == 0 and bag_before == 0:
            self.over, self.out_player = True, p
            self.pending = {("end_points", p)}
        return eng, "", formed

    def exchange(self, ev: GcgEvent, rack):
        """An exchange: the tiles given back must be on the stated rack; an exchange with
        fewer tiles in the bag than the rules allow is a warning. Scores 0."""
        self.turn(ev)
        self.recorded(ev, rack)
        spec = self.spec
        try:
            mv = Move.from_gcg(ev.move, self.board, spec)
        except MoveError as e:
            self.fail(str(e), e.kind, ev)
        if not isinstance(mv, Exchange):  # ``-`` read as a pass
            return self._keep_rack(ev, rack)
        if mv.tiles is not None and rack is not None:
            need = mv.rack_counts(spec)
            if (need > rack).any():
                self.fail(f"exchange {ev.move!r}: {format_rack(tile_ids(np.maximum(need - rack, 0)), spec)} "
                          f"not on the rack {ev.rack}", "tiles-not-in-rack", ev)
        self.known[ev.player] = (rack - mv.rack_counts(spec) if rack is not None and mv.tiles is not None
                                 else None)
        if self.bag < spec.exchange_min_bag or mv.count > self.bag:
            self.result.warnings.append((ev.line, Note(f"exchange {ev.move} with about {self.bag} tiles in the bag "
                                                       f"(rule: at least {spec.exchange_min_bag}, never more than "
                                                       f"the bag)", "gcg-exchange-rule", move=ev.move, bag=self.bag,
                                                       need=spec.exchange_min_bag)))
        self.scoreless += 1
        return 0, "", []

    def pass_(self, ev: GcgEvent, rack):
        """A pass: the rack stays. Scores 0."""
        self.turn(ev)
        self.recorded(ev, rack)
        return self._keep_rack(ev, rack)

    def _keep_rack(self, ev: GcgEvent, rack):
        self.known[ev.player] = rack
        self.scoreless += 1
        return 0, "", []

    def withdrawn(self, ev: GcgEvent, rack):
        """``--``: the previous play (the same player's) comes off the board; the state
        before it comes back and its score is taken off."""
        last, prev = self.last, self.prev_event
        if last is None or prev is None or prev.kind not in ("play",):
            self.fail("'--' (phony withdrawn) must follow a play", "withdrawn-without-play", ev)
        if last[0].player != ev.player:
            self.fail(f"{ev.nick} withdraws {last[0].nick}'s play {last[0].move!r}", "phony-withdrawn-wrong-player", ev)
        if ev.rack and last[0].rack and ev.rack != last[0].rack:
            self.fail(f"withdrawn play's rack {ev.rack!r} differs from the play's rack {last[0].rack!r} "
                      f"(line {last[0].line})", "phony-tiles-mismatch", ev)
        self.recorded(ev, rack)
        wev, snap, weng = last
        board, pool, sizes, bag, scoreless, over, out_player, pending, known = snap
        self.board, self.bag, self.scoreless, self.over, self.out_player = board, bag, scoreless, over, out_player
        self.pool, self.sizes, self.pending, self.known = pool.copy(), list(sizes), set(pending), list(known)
        self.known[ev.player] = self.counts(wev.rack, wev, "rack") if wev.rack else None  # the tiles come back
        self.scoreless += 1
        self.last = None
        return -weng, "", []

    def challenge(self, ev: GcgEvent, rack):
        """``(challenge) +N``: a bonus to the player whose play was just challenged."""
        prev = self.prev_event
        if prev is None or prev.kind not in ("play",) or prev.player != ev.player:
            self.fail(f"(challenge) bonus for {ev.nick} must follow {ev.nick}'s play", "challenge-without-play", ev)
        self.recorded(ev, rack)
        if ev.score > 0:
            self.scoreless = 0
        return ev.score, "", []

    def time(self, ev: GcgEvent, rack):
        """``(time) -N``: a penalty after the end-of-game lines, once a player; the
        recorded penalty stands."""
        if not self.over:
            self.fail("time penalty before the game ended", "end-event-before-game-end", ev)
        if self.pending:
            self.fail("time penalty before the end-of-game rack lines", "premature-time-penalty", ev)
        if ev.player in self.time_seen:
            self.fail(f"second time penalty for {ev.nick}", "duplicate-time-penalty", ev)
        self.time_seen.add(ev.player)
        self.recorded(ev, rack)
        return ev.score, "", []

    def _game_ended(self, ev: GcgEvent) -> None:
        if not self.over:
            self.fail(f"end-of-game rack line ({ev.move}) before the game ended", "end-event-before-game-end", ev)

    def end_points(self, ev: GcgEvent, rack):
        """``(RACK) +N``: the player who went out scores the opponents' tiles, twice their
        value under the ``double`` rule, once under ``transfer``; a score that matches the
        other rule says so in the mismatch's note."""
        self._game_ended(ev)
        self.recorded(ev, rack)
        tiles = self.counts(ev.move, ev, "end-of-game rack")
        self.in_pool(tiles, ev, f"end-of-game rack ({ev.move})")
        v = rack_value(self.spec, tiles)
        eng = 2 * v if self.rule == "double" else v
        other = v if self.rule == "double" else 2 * v
        note = ""
        if ev.score != eng and ev.score == other:
            note = f"= --end-rule {'transfer' if self.rule == 'double' else 'double'}"
        if self.out_player is not None and ev.player != self.out_player:
            self.fail(f"{ev.nick} scores the opponents' rack but {self.game.players[self.out_player][0]} went out",
                      "end-points-wrong-player", ev)
        self.pending.discard(("end_points", ev.player))
        return eng, note, []

    def end_penalty(self, ev: GcgEvent, rack):
        """``RACK (RACK) -N``: a player loses the value of the tiles left on the rack."""
        self._game_ended(ev)
        self.recorded(ev, rack)
        tiles = self.counts(ev.move, ev, "end-of-game rack")
        self.in_pool(tiles, ev, f"end-of-game rack ({ev.move})")
        if rack is not None and not np.array_equal(rack, tiles):
            self.result.warnings.append((ev.line, Note(f"end-of-game line: the tiles in parentheses ({ev.move}) "
                                                       f"differ from the rack {ev.rack}; scored on ({ev.move})",
                                                       "gcg-end-rack", tiles=ev.move, rack=ev.rack)))
        self.pending.discard(("end_penalty", ev.player))
        return -rack_value(self.spec, tiles), "", []


def replay(game: GcgGame, spec: "LanguageSpec", end_rule: str | None = None, words=None) -> Replay:
    """Replay a parsed GCG on ``spec``'s board and check it (see the module doc and
    :class:`Replayer`).

    ``end_rule``: ``"double"``/``"transfer"`` overrides ``spec.end_rule`` for the
    end-of-game bonus (Woogles doubles it in every language); ``"auto"`` takes it from
    the record's shape (:func:`detect_end_rule`), else the spec's; ``words``: a set of
    spellings (``pack.words``): words outside it become warnings ("not in" the spec's
    lexicon) and ``off_list`` entries. Raises GcgError on the
    first malformed or impossible event; returns a :class:`Replay` with the score
    mismatches otherwise.
    """
    return Replayer(game, spec, end_rule, words).run()


def replay_file(path, spec: "LanguageSpec", end_rule: str | None = None, words=None) -> Replay:
    """:func:`read_gcg_file` then :func:`replay`."""
    return replay(read_gcg_file(path), spec, end_rule, words)
