"""The SIU protocol server: a line reader and dispatcher that knows nothing of Scrabble.

SIU (woogles-io/open-protocols ``siu/siu.md``, draft 0.2; summary in ``docs/siu.md``) is
the line protocol a front end (analysis board, match runner) uses to drive a crossword-game
engine started as a child process. This module is its engine side:
:class:`SiuServer` reads commands in one thread and runs them (searches included) in
another, so that ``isready`` and ``stop`` are served while a search runs; it answers the
handshake, keeps options and positions, and enforces one ``bestmove`` per ``go`` and the
provenance line before the first result. Everything about the game (packs, positions,
moves, searches) is behind a :class:`Backend`; heuri's is
:class:`heuri.play.siu.backend.HeuriBackend`.

Protocol decisions (where the draft leaves room):

- ``go`` before any ``position`` answers ``info string error no-position ...`` and does not
  search (no ``bestmove``: there is nothing to search). The same holds for a position whose
  on-turn rack is unknown (``bad-position``).
- Otherwise every ``go`` ends with exactly one ``bestmove`` (draft section 6): a mode heuri
  does not declare (``go sim``) answers ``unsupported-mode`` and ``go endgame`` with tiles in
  the bag answers ``bad-position``, and both then search as ``go auto`` would.
- A ``position`` that does not parse, or whose ``moves`` list holds an unparseable or
  illegal move, answers ``bad-position`` / ``bad-move`` and leaves *no* position set, so a
  following ``go`` answers ``no-position`` instead of searching a position the front end did
  not mean.
- ``setoption``, ``position``, ``siunewgame`` and ``go`` are not sent during a search by a
  front end that follows the draft; heuri queues them and runs them in order after the
  search's ``bestmove`` (so a script piped into ``heuri siu`` runs one command after the
  other). Only ``stop``, ``isready`` and ``quit`` act during a search.
- ``Lexicon`` takes a language code (``fr``: its default pack), a pack folder, or the name of
  a lexicon imported with ``heuri lexicon import`` (``FRA20``: its pack); a name with no
  pack answers ``bad-option`` with the command that builds it.
- An option value heuri cannot use (an unknown ``Lexicon``, ``Engine`` not in the combo, a
  spin out of range) answers ``info string error bad-option <Name> <reason>`` and keeps the
  current value. ``bad-option`` is heuri's own code (the draft lists five codes and allows
  free text).
- Unknown commands answer ``info string error unknown-command <cmd>`` and are otherwise
  ignored; ``stop`` while idle is ignored silently.
- ``stop`` ends every ``go`` received before it: the one running, and one still queued or
  starting (loading its pack), which then starts stopped and answers at once. A ``stop``
  sent right after ``go sim infinite`` therefore never leaves a search running for ever.
- ``movetime`` is a deadline: the search ends at it or sooner (heuri's static evaluation is
  usually done long before). ``infinite`` holds the ``bestmove`` until ``stop`` even when the
  work is done, as in UCI; with ``infinite`` a ``movetime`` is ignored and says so.
- Parameters heuri cannot honour in the chosen mode answer ``info string ignored <param>``
  before the provenance line. A number beyond heuri's limits (:data:`GO_LIMITS`: ``depth``
  at most 64, ``movetime`` at most an hour, ...) is brought to the limit and answered
  ``info string capped <param> <value> (asked <value>)`` there too: never dropped silently,
  never an allocation sized by a number from the wire. A number no search can use (a zero
  or negative ``movetime``, ``iterations 0``, a value that is no whole number) answers
  ``info string error bad-parameter <param> <value>: <why>; searching without it``, and the
  search runs as if it had not been given (``go sim`` then takes its default second), so
  the ``go`` still ends with its one ``bestmove``. ``bad-parameter`` is heuri's own code.
- Input is bounded: a line longer than :data:`MAX_LINE` characters is read to its end and
  dropped, answered ``info string error line-too-long ...`` (heuri's own code). An error
  line quotes what it was sent as a short excerpt (:func:`heuri.core.bounds.excerpt`: at most
  :data:`EXCERPT` characters of a token, control characters escaped), never the raw line.
- If the engine fails inside a search (a bug), it answers ``info string error internal
  <reason>`` and still ends the ``go`` with exactly one ``bestmove`` (``pass``; ``none``
  for ``go infer``, whose ``bestmove`` is always ``none``, as the draft says).
- ``quit`` stops a running search, lets it print its ``bestmove``, and exits with status 0
  (behind queued commands it runs them first). The end of input waits for queued commands
  and the running search (stopping an infinite one), then exits.

The output stream is private: while the server runs, ``sys.stdout`` is pointed at stderr so
that a stray print (a library warning) cannot corrupt the protocol.
"""
from __future__ import annotations

import io
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, TextIO

from ...core.version import __version__
from ...core.bounds import excerpt
from ...core.errors import HeuriError

ENGINE_NAME = "heuri"
ENGINE_AUTHOR = "heuri authors (after Gonzalez Romero, Alquezar Mancho, Ramirez Flores et al.)"
MODES = ("gen", "sim", "infer", "endgame", "peg", "auto")
# go parameters of the draft (section 6): name -> number of value tokens (-1 = a move list)
GO_PARAMS = {"searchmoves": -1, "alsosearchmoves": -1, "depth": 1, "iterations": 1,
             "movetime": 1, "stopcondition": 1, "firstwin": 0, "useinference": 0,
             "threads": 1, "infinite": 0}
ERROR_CODES = ("unknown-command", "bad-position", "bad-move", "unsupported-mode", "no-position",
               "bad-option", "bad-parameter", "internal", "line-too-long")
#: the bounds of the numeric go parameters, (least, most): a value above the most is brought
#: to it and answered ``info string capped``; one below the least (a zero or negative time, no
#: iterations) means nothing a search can do and is answered ``info string error
#: bad-parameter``. ``depth``: placements along a line of the endgame search (two racks hold
#: at most 14 tiles, each placement uses one or more: 64 is beyond any real need);
#: ``movetime``: 1 ms to an hour; the others are parsed, not used
GO_LIMITS = {"depth": (1, 64), "movetime": (1, 3_600_000), "iterations": (1, 10 ** 9),
             "threads": (1, 1024), "stopcondition": (0, 100)}
#: the longest input line read (characters); a position with a long move list is a few
#: thousand
MAX_LINE = 65_536
#: the most characters of input an error line quotes
EXCERPT = 80
#: the most characters of an error line's text (messages of the engine's own errors may
#: quote more than one excerpt)
ERROR_TEXT = 400


class SiuError(HeuriError):
    """An SIU request the engine refuses. ``code`` is the SIU error code
    (``"bad-position"``, ``"bad-move"``, ``"no-position"``, ``"unsupported-mode"``,
    ``"unknown-command"``, or heuri's ``"bad-option"``); the message is the free text of
    the ``info string error <code> <text>`` line."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


# -- options ------------------------------------------------------------------------------
@dataclass
class OptionDecl:
    """One ``option`` line of the handshake. ``type`` is one of check, spin, combo, button,
    string; ``default``/``min``/``max``/``var`` as the draft's section 3."""

    name: str
    type: str
    default: str | None = None
    min: int | None = None
    max: int | None = None
    var: tuple[str, ...] = ()

    def line(self) -> str:
        """The handshake line: ``option name K type string default 2.5``."""
        s = f"option name {self.name} type {self.type}"
        if self.default is not None:
            s += f" default {self.default}"
        if self.min is not None:
            s += f" min {self.min}"
        if self.max is not None:
            s += f" max {self.max}"
        for v in self.var:
            s += f" var {v}"
        return s

    def check(self, value: str | None) -> str | int | bool | None:
        """Validate a ``setoption`` value for this option and convert it (spin → int,
        check → bool, combo → the declared spelling). Raises SiuError (code
        ``"bad-option"``) naming the option and what was expected."""
        if self.type == "button":
            return None
        if value is None:
            raise SiuError("bad-option", f"{self.name}: 'value <v>' missing")
        if self.type == "spin":
            try:
                v = int(value)
            except ValueError:
                raise SiuError("bad-option", f"{self.name} {excerpt(value, EXCERPT)!r}: expected an integer "
                                             f"from {self.min} to {self.max}") from None
            if (self.min is not None and v < self.min) or (self.max is not None and v > self.max):
                raise SiuError("bad-option", f"{self.name} {excerpt(str(v), 24)}: out of range {self.min}..{self.max}")
            return v
        if self.type == "check":
            if value.lower() not in ("true", "false"):
                raise SiuError("bad-option", f"{self.name} {excerpt(value, EXCERPT)!r}: expected true or false")
            return value.lower() == "true"
        if self.type == "combo":
            for v in self.var:
                if v.lower() == value.lower():
                    return v
            raise SiuError("bad-option", f"{self.name} {excerpt(value, EXCERPT)!r}: expected one of "
                                         f"{' '.join(self.var)}")
        return value


def parse_setoption(tokens: list[str]) -> tuple[str, str | None]:
    """``setoption name <Name> [value <v>]`` tokens (after ``setoption``) → ``(name,
    value)``. Names and values may contain spaces (joined back with one space); ``value``
    is None when absent. Raises SiuError (``"bad-option"``) without ``name``."""
    low = [t.lower() for t in tokens]
    if "name" not in low:
        raise SiuError("bad-option", "setoption: expected 'setoption name <Name> [value <v>]'")
    i = low.index("name")
    j = low.index("value", i + 1) if "value" in low[i + 1:] else len(tokens)
    name = " ".join(tokens[i + 1:j])
    value = " ".join(tokens[j + 1:]) if j < len(tokens) else None
    if not name:
        raise SiuError("bad-option", "setoption: empty option name")
    return name, value


# -- go -------------------------------------------------------------------------------------
@dataclass
class GoParams:
    """The parameters of one ``go`` command (draft section 6).

    ``mode``: one of :data:`MODES` (``auto`` when none is given); ``given``: parameter names
    in the order they appeared (for ``info string ignored``); ``movetime_ms``, ``depth``,
    ``iterations``, ``threads``, ``stopcondition``: ints or None; ``searchmoves``,
    ``alsosearchmoves``: move texts; ``infinite``, ``firstwin``, ``useinference``: flags;
    ``unknown``: tokens that are no parameter (ignored, per the draft); ``bad``: ``(name,
    value text or None, why)`` for the numeric parameters without a whole number at least
    their least in :data:`GO_LIMITS` (the search goes on without them); ``capped``: ``(name,
    asked, used)`` for the numbers above their most, brought to it."""

    mode: str = "auto"
    given: list[str] = field(default_factory=list)
    movetime_ms: int | None = None
    depth: int | None = None
    iterations: int | None = None
    threads: int | None = None
    stopcondition: int | None = None
    searchmoves: list[str] = field(default_factory=list)
    alsosearchmoves: list[str] = field(default_factory=list)
    infinite: bool = False
    firstwin: bool = False
    useinference: bool = False
    unknown: list[str] = field(default_factory=list)
    bad: list[tuple] = field(default_factory=list)
    capped: list[tuple] = field(default_factory=list)


def parse_go(tokens: list[str]) -> GoParams:
    """Parse the tokens after ``go``.

    The mode may stand anywhere (first by convention). A numeric parameter whose value is
    missing, not an integer, or below its least in :data:`GO_LIMITS` (``movetime 0``,
    ``iterations 0``) is recorded in ``bad`` and left unset (the server answers ``info string
    error bad-parameter``); one above its most is brought to it and recorded in ``capped``;
    unknown tokens go to ``unknown``. Move lists run until the next parameter name.

    >>> g = parse_go("gen movetime 500 searchmoves 8D.ZA pass depth 2 frob".split())
    >>> g.mode, g.movetime_ms, g.searchmoves, g.depth, g.unknown
    ('gen', 500, ['8D.ZA', 'pass'], 2, ['frob'])
    >>> g = parse_go("endgame depth 999999999".split())
    >>> g.depth, g.capped
    (64, [('depth', 999999999, 64)])
    >>> g = parse_go("sim movetime -5 iterations 0".split())
    >>> g.movetime_ms, g.iterations, g.bad
    (None, None, [('movetime', '-5', 'at least 1'), ('iterations', '0', 'at least 1')])
    """
    g = GoParams()
    i = 0
    mode_seen = False
    while i < len(tokens):
        t = tokens[i]
        tl = t.lower()
        if tl in MODES and not mode_seen:
            g.mode, mode_seen = tl, True
            i += 1
            continue
        if tl not in GO_PARAMS:
            g.unknown.append(t)
            i += 1
            continue
        n = GO_PARAMS[tl]
        g.given.append(tl)
        if n == 0:
            setattr(g, tl, True)
            i += 1
        elif n == -1:
            j = i + 1
            while j < len(tokens) and tokens[j].lower() not in GO_PARAMS and tokens[j].lower() not in MODES:
                j += 1
            getattr(g, tl).extend(tokens[i + 1:j])
            i = j
        else:
            val = tokens[i + 1] if i + 1 < len(tokens) else None
            if val is not None and (val.lower() in GO_PARAMS or val.lower() in MODES):
                val = None  # the next parameter, not a value
            lo, hi = GO_LIMITS.get(tl, (0, None))
            try:
                v = int(val) if val is not None else None
                why = "no value" if v is None else f"at least {lo}"
            except ValueError:
                v, why = None, "not a whole number"
            if v is None or v < lo:
                g.bad.append((tl, val, why))
                g.given.pop()
                i += 1 if val is None else 2
                continue
            used = v if hi is None else min(v, hi)
            if used != v:
                g.capped.append((tl, v, used))
            attr = "movetime_ms" if tl == "movetime" else tl
            setattr(g, attr, used)
            i += 2
    return g


# -- position ---------------------------------------------------------------------------------
def split_position(tokens: list[str]) -> tuple[str, list[str], str | None]:
    """``position cgp <cgp> [moves <m> ... [rack.<tiles>]]`` tokens (after ``position``) →
    ``(cgp text, move texts, rack text or None)``.

    The CGP is everything after ``cgp`` up to a standalone ``moves`` token that follows the
    four core fields. Raises SiuError (``"bad-position"``) when ``cgp`` is missing, and
    (``"bad-move"``) when ``rack.`` is not the last token.

    >>> split_position("cgp 15/15 A/ 0/0 0 lex X; moves 8D.ZA pass rack.AB".split())
    ('15/15 A/ 0/0 0 lex X;', ['8D.ZA', 'pass'], 'AB')
    """
    if not tokens or tokens[0].lower() != "cgp":
        raise SiuError("bad-position", "expected 'position cgp <cgp> [moves <move> ...]'")
    body = tokens[1:]
    cut = len(body)
    for k in range(4, len(body)):
        if body[k] == "moves":
            cut = k
            break
    cgp = " ".join(body[:cut])
    moves = body[cut + 1:]
    rack = None
    for k, m in enumerate(moves):
        if m.lower().startswith("rack."):
            if k != len(moves) - 1:
                raise SiuError("bad-move", f"{excerpt(m, EXCERPT)!r}: rack.<tiles> may only be the last token of 'moves'")
            rack = m[5:]
            moves = moves[:k]
            break
    if not cgp:
        raise SiuError("bad-position", "'position cgp' without a CGP")
    return cgp, moves, rack


# -- backend ----------------------------------------------------------------------------------
class Backend:
    """What :class:`SiuServer` needs from an engine. Subclass and override.

    Threading: the server calls every method from one thread (its dispatcher), one call at
    a time; only the ``stop`` event passed to :meth:`search` is set from another thread."""

    name = ENGINE_NAME
    version = __version__
    author = ENGINE_AUTHOR
    capabilities = ("gen", "endgame", "peg", "auto", "stream", "stop")

    def options(self) -> list[OptionDecl]:
        """The options to declare in the handshake."""
        return []

    def set_option(self, name: str, value: str | None) -> list[str]:
        """Apply ``setoption``; ``name`` is matched case-insensitively by the server and
        given in its declared spelling. Returns extra ``info string`` texts to print (may
        be empty). Raises SiuError (``"bad-option"``) to refuse the value."""
        return []

    def prepare(self) -> None:
        """Heavy start-up (load the pack, compile); called on ``isready`` while idle."""

    def new_game(self) -> None:
        """``siunewgame``: drop caches tied to the previous game."""

    def set_position(self, cgp: str, moves: list[str], rack: str | None) -> object:
        """Parse a position and apply ``moves``. Returns an opaque position object.
        Raises SiuError (``"bad-position"`` / ``"bad-move"``)."""
        raise NotImplementedError

    def check_go(self, position: object, params: GoParams) -> None:
        """Refuse a ``go`` before searching: raise SiuError (e.g. ``"bad-position"`` for an
        unknown on-turn rack)."""

    def honoured(self, mode: str) -> set[str]:
        """``go`` parameter names honoured in ``mode``; the server answers ``info string
        ignored <param>`` for every other one given. ``movetime`` and ``infinite`` are the
        server's and always honoured."""
        return set()

    def provenance(self, position: object = None) -> str:
        """The text after ``info string provenance`` for a search of ``position``."""
        return f"engine={self.name}/{self.version} leaves=none winpct=none lexicon=none"

    def search(self, position: object, params: GoParams, stop: "SearchStop",
               emit: Callable[[str], None]) -> str:
        """Run one search: print ``info`` lines with ``emit`` (one line each, no newline),
        check ``stop.is_set()`` (a :class:`SearchStop`: ``stop`` arrived or ``movetime`` ran
        out) at safe points and return early with the best so far when it is
        set, and return the ``bestmove`` text (e.g. ``"8D.DJINN"``, ``"ex.QV"``,
        ``"pass"``)."""
        raise NotImplementedError


class SearchStop:
    """The stop signal of one search: set by ``stop``/``quit`` (:meth:`set`) or reached at
    a deadline (``movetime``, seconds of :func:`time.monotonic`). Behaves like a
    :class:`threading.Event` for the backend (:meth:`is_set`, :meth:`wait`); the deadline
    is checked when asked, so no timer thread is started per search."""

    def __init__(self, deadline: float | None = None):
        self._ev = threading.Event()
        self.deadline = deadline

    def set(self) -> None:
        self._ev.set()

    def is_set(self) -> bool:
        return self._ev.is_set() or (self.deadline is not None and time.monotonic() >= self.deadline)

    def stopped(self) -> bool:
        """``stop`` or ``quit`` was received (the deadline aside)."""
        return self._ev.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            timeout = left if timeout is None else min(timeout, left)
        return self._ev.wait(None if timeout is None else max(timeout, 0.0)) or self.is_set()


# -- the server --------------------------------------------------------------------------------
class SiuServer:
    """The SIU protocol over a :class:`Backend`.

    ``out`` is the text stream lines go to (flushed after each line); ``log`` (optional) gets
    a copy of both directions prefixed ``> `` / ``< ``, for transcripts.

    Threads: :meth:`run` reads input in the calling thread (the reader) and executes
    commands in order in a dispatcher thread, which also runs each search. While a search
    runs, the reader serves ``stop`` (sets the search's stop event), ``isready`` (answers
    ``readyok`` at once when nothing else waits) and ``quit`` itself; every other command
    waits in a queue and runs, in order, after the search's ``bestmove``. (A front end
    following the draft sends nothing else during a search; a script piped into the engine
    gets its commands executed one after the other.)

    :meth:`handle` executes one line synchronously (for tests and embedding)."""

    def __init__(self, backend: Backend, out: TextIO, log: TextIO | None = None):
        self.backend = backend
        self.out = out
        self.log = log
        self._lock = threading.Lock()
        self._decls = {d.name.lower(): d for d in backend.options()}
        self.position: object | None = None
        self.ready = False
        self._active = False  # a search runs and has not written its bestmove
        self._infinite = False
        self._pending = 0  # commands queued, not yet started
        self._stop = threading.Event()
        # go commands received by run() are numbered; a stop ends every go up to the last one
        # received (``_stopped_to``), also one still queued or starting when stop arrives
        self._go_seq = 0
        self._stopped_to = 0
        self._dispatching: int | None = None  # the number of the go the dispatcher runs

    # -- output ---------------------------------------------------------------------
    def say(self, line: str, end_search: bool = False) -> None:
        """Write one protocol line (thread-safe). ``end_search``: this is the search's
        ``bestmove``; the server counts as idle from the moment it is written."""
        with self._lock:
            if end_search:
                self._active = False
            self.out.write(line + "\n")
            self.out.flush()
            if self.log is not None:
                self.log.write("< " + line + "\n")
                self.log.flush()

    def error(self, code: str, text: str) -> None:
        """``info string error <code> <text>``; the text goes out printable and at most
        :data:`ERROR_TEXT` characters long, whatever it quotes."""
        self.say(f"info string error {code} {excerpt(text, ERROR_TEXT)}".rstrip())

    @property
    def searching(self) -> bool:
        """A search runs: its ``bestmove`` has not been written yet."""
        return self._active

    # -- input ----------------------------------------------------------------------
    def run(self, inp: TextIO) -> int:
        """Serve until ``quit`` or the end of ``inp``. Returns the exit status (0).

        ``quit`` with nothing queued stops a running search (its ``bestmove`` is still
        written) and exits; behind queued commands it waits for them. The end of input
        waits for queued commands and a running search (an infinite one is stopped)."""
        import queue

        q: queue.Queue = queue.Queue()
        disp = threading.Thread(target=self._dispatch, args=(q,), name="siu-dispatch", daemon=True)
        disp.start()
        for raw in iter(inp.readline, ""):
            line = raw.rstrip("\r\n")
            if len(line) > MAX_LINE:  # read to its end by BoundedInput when from serve()
                if self.log is not None:
                    with self._lock:
                        self.log.write(f"> {excerpt(line, EXCERPT)} [a line over {MAX_LINE} characters]\n")
                self.error("line-too-long", f"a line of more than {MAX_LINE:,} characters was ignored: "
                                            f"{excerpt(line, EXCERPT)}")
                continue
            if self.log is not None:
                with self._lock:
                    self.log.write("> " + line + "\n")
            tokens = line.split()
            if not tokens:
                continue
            cmd = tokens[0]
            with self._lock:
                pending, active = self._pending, self._active
            if cmd == "stop":
                with self._lock:
                    self._stopped_to = self._go_seq
                    if self._active:
                        self._stop.set()
                continue
            if cmd == "quit":
                if not pending:
                    self._stop.set()
                break
            # isready mid-search is answered at once, without stopping; after a stop, the
            # stop is earlier input still being processed: readyok waits for its bestmove.
            if cmd == "isready" and active and not pending and not self._stop.is_set():
                self.say("readyok")
                continue
            with self._lock:
                self._pending += 1
                seq = None
                if cmd == "go":
                    self._go_seq += 1
                    seq = self._go_seq
            q.put((line, seq))
        q.put(None)
        while disp.is_alive():
            if self._active and self._infinite:
                self._stop.set()
            disp.join(0.05)
        return 0

    def _dispatch(self, q) -> None:
        while True:
            item = q.get()
            if item is None:
                return
            line, seq = item
            with self._lock:
                self._pending -= 1
                self._dispatching = seq
            try:
                self.handle(line, logged=True)
            finally:
                with self._lock:
                    self._dispatching = None

    def handle(self, raw: str, logged: bool = False) -> bool:
        """Execute one input line (a ``go`` runs its search to the end here). Returns
        False for ``quit``."""
        line = raw.rstrip("\r\n")
        if self.log is not None and not logged:
            with self._lock:
                self.log.write("> " + line + "\n")
        tokens = line.split()
        if not tokens:
            return True
        cmd, args = tokens[0], tokens[1:]
        handler = getattr(self, f"_cmd_{cmd}", None)
        if handler is None:
            self.error("unknown-command", excerpt(cmd, EXCERPT))
            return True
        try:
            return handler(args) is not False
        except SiuError as e:
            self.error(e.code, str(e))
        except HeuriError as e:
            self.error("bad-position" if cmd == "position" else "bad-option", str(e))
        except Exception as e:  # a bug: report it and keep serving
            import traceback

            traceback.print_exc(file=sys.stderr)
            self.error("internal", f"{cmd}: {type(e).__name__}: {e}".replace("\n", " "))
        return True

    # -- commands -------------------------------------------------------------------
    def _cmd_siu(self, args):
        b = self.backend
        self.say(f"id name {b.name} {b.version}")
        self.say(f"id author {b.author}")
        self.say("capability " + " ".join(b.capabilities))
        for d in b.options():
            self.say(d.line())
        self.say("siuok")

    def _cmd_isready(self, args):
        try:
            self.backend.prepare()
        except HeuriError as e:
            self.error("bad-option", f"start-up failed: {e}")
        self.ready = True
        self.say("readyok")

    def _cmd_setoption(self, args):
        name, value = parse_setoption(args)
        decl = self._decls.get(name.lower())
        if decl is None:
            self.say(f"info string ignored setoption {excerpt(name, EXCERPT)}: no such option")
            return
        decl.check(value)
        for msg in self.backend.set_option(decl.name, value):
            self.say(f"info string {msg}")

    def _cmd_siunewgame(self, args):
        self.position = None
        self.backend.new_game()

    def _cmd_position(self, args):
        self.position = None  # a refused position leaves none (see the module notes)
        cgp, moves, rack = split_position(args)
        self.position = self.backend.set_position(cgp, moves, rack)

    def _cmd_go(self, args):
        params = parse_go(args)
        if self.position is None:
            self.error("no-position", "go before a valid position; send 'position cgp <cgp>' first")
            return
        if params.mode not in self.backend.capabilities:
            self.error("unsupported-mode", f"{params.mode}: {self.backend.name} searches in "
                                           f"{' '.join(m for m in self.backend.capabilities if m in MODES)}; "
                                           f"searching as go auto")
            params.mode = "auto"
        try:
            self.backend.check_go(self.position, params)
        except SiuError as e:
            if getattr(e, "fallback", None) is None:
                raise
            self.error(e.code, f"{e}; searching as go {e.fallback}")
            params.mode = e.fallback
        if not self.ready:  # the draft requires isready before the first go; be lenient
            self.backend.prepare()
            self.ready = True
        deadline = None
        if params.movetime_ms is not None and not params.infinite:
            deadline = time.monotonic() + params.movetime_ms / 1000.0
        stop = SearchStop(deadline)
        with self._lock:
            if self._dispatching is not None and self._dispatching <= self._stopped_to:
                stop.set()  # a stop came while this go waited in the queue or loaded its pack
            self._stop = stop
            self._infinite = params.infinite
            self._active = True
        self._search(self.position, params, stop)

    def _cmd_stop(self, args):  # reached only through handle(): nothing runs then
        pass

    def _cmd_quit(self, args):
        return False

    # -- searching ------------------------------------------------------------------
    def _search(self, position, params: GoParams, stop: SearchStop) -> None:
        best = "none" if params.mode == "infer" else "pass"  # the draft: go infer ends with bestmove none
        try:
            honoured = self.backend.honoured(params.mode) | {"movetime", "infinite"}
            ignored = [p for p in params.given if p not in honoured]
            if params.infinite and params.movetime_ms is not None:
                ignored.append("movetime")
            for p, val, why in params.bad:
                shown = "" if val is None else " " + excerpt(val, 24)
                self.error("bad-parameter", f"{p}{shown}: {why}; searching without it")
            for p in dict.fromkeys(ignored):
                self.say(f"info string ignored {p}")
            for p, asked, used in params.capped:
                if p in honoured and p not in ignored:
                    self.say(f"info string capped {p} {used} (asked {excerpt(str(asked), 24)}; heuri's limit)")
            self.say("info string provenance " + self.backend.provenance(position))
            for note in getattr(position, "notes", ()):
                self.say(f"info string {note}")
            best = self.backend.search(position, params, stop, self.say)
        except SiuError as e:
            self.error(e.code, str(e))
        except Exception as e:  # a bug: still end the go with exactly one bestmove
            import traceback

            traceback.print_exc(file=sys.stderr)
            self.error("internal", f"{type(e).__name__}: {e}".replace("\n", " "))
        if params.infinite:
            stop.wait()
        self.say(f"bestmove {best}", end_search=True)


# -- entry point ------------------------------------------------------------------------------
class BoundedInput:
    """A text stream read a line at a time, never more than ``limit`` + 1 characters of a
    line at once: a longer line comes back as its first ``limit`` + 1 characters (so that
    :meth:`SiuServer.run` sees it is too long and refuses it) and the rest of it is read
    and dropped, so a front end sending megabytes without a newline costs no memory."""

    def __init__(self, inp: TextIO, limit: int = MAX_LINE):
        self.inp = inp
        self.limit = limit

    def readline(self) -> str:
        line = self.inp.readline(self.limit + 1)
        if len(line) <= self.limit or line.endswith("\n"):
            return line
        while True:  # the rest of the line, dropped
            rest = self.inp.readline(self.limit)
            if not rest or rest.endswith("\n"):
                return line


def serve(backend: Backend, inp: TextIO | None = None, out: TextIO | None = None,
          log: TextIO | None = None) -> int:
    """Run an SIU session on ``inp``/``out`` (default: the process's stdin/stdout, read
    as UTF-8 with ``\\r\\n`` accepted). While it runs ``sys.stdout`` points at stderr so
    that nothing but protocol lines reaches the front end."""
    if inp is None:
        inp = BoundedInput(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline=None))
    if out is None:
        out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n", line_buffering=True)
    saved = sys.stdout
    sys.stdout = sys.stderr
    try:
        return SiuServer(backend, out, log).run(inp)
    finally:
        sys.stdout = saved


