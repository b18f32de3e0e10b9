"""heuri as an SIU engine: ``heuri siu [--lang L]``.

SIU (woogles-io/open-protocols ``siu/siu.md``, draft 0.2; summary in ``../shared/SIU.md``) is
the line protocol a front end (analysis board, match runner) uses to drive a crossword-game
engine started as a child process. This module has two layers:

- :class:`SiuServer`, the protocol: reads commands in one thread and runs them (searches
  included) in another, so that ``isready`` and ``stop`` are served while a search runs;
  answers the handshake, keeps options and positions, enforces one ``bestmove`` per ``go``
  and the provenance line before the first result. It knows nothing of Scrabble: it talks to a :class:`Backend`.
- :class:`HeuriBackend`, the engine: language packs, CGP positions, SIU move notation,
  move generation, the heuri evaluators and the endgame search.

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
- A CGP ``lex``/``ld`` operation naming another language than the ``Lexicon`` option (FISE…
  → es, CSW/NWL/TWL/OSPD… → en, ODS/FRA… → fr) reads that position with that language's
  pack (the draft: the opcode wins); a name heuri does not know keeps the ``Lexicon`` pack.
- Unknown commands answer ``info string error unknown-command <cmd>`` and are otherwise
  ignored; ``stop`` while idle is ignored silently.
- ``movetime`` is a deadline: the search ends at it or sooner (heuri's static evaluation is
  usually done long before). ``infinite`` holds the ``bestmove`` until ``stop`` even when the
  work is done, as in UCI; with ``infinite`` a ``movetime`` is ignored and says so.
- Parameters heuri cannot honour in the chosen mode answer ``info string ignored <param>``
  before the provenance line. A number beyond heuri's limits (:data:`GO_LIMITS`: ``depth``
  at most 64, ``movetime`` at most an hour, ...) is brought to the limit and answered
  ``info string capped <param> <value> (asked <value>)`` there too: never dropped silently,
  never an allocation sized by a number from the wire.
- Input is bounded: a line longer than :data:`MAX_LINE` characters is read to its end and
  dropped, answered ``info string error line-too-long ...`` (heuri's own code). An error
  line quotes what it was sent as a short excerpt (:func:`heuri.bounds.excerpt`: at most
  :data:`EXCERPT` characters of a token, control characters escaped), never the raw line.
- If the engine fails inside a search (a bug), it answers ``info string error internal
  <reason>`` and still ends the ``go`` with exactly one ``bestmove`` (``pass``).
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
from typing import Callable, Iterable, TextIO

from ..eval.engines import DEFAULT_ENGINE, FRONT_END_ENGINES
from ..core.version import __version__
from ..core.bounds import excerpt
from ..core.errors import HeuriError

ENGINE_NAME = "heuri"
ENGINE_AUTHOR = "heuri authors (after Gonzalez Romero, Alquezar Mancho, Ramirez Flores et al.)"
MODES = ("gen", "sim", "infer", "endgame", "peg", "auto")
# go parameters of the draft (section 6): name -> number of value tokens (-1 = a move list)
GO_PARAMS = {"searchmoves": -1, "alsosearchmoves": -1, "depth": 1, "iterations": 1,
             "movetime": 1, "stopcondition": 1, "firstwin": 0, "useinference": 0,
             "threads": 1, "infinite": 0}
ERROR_CODES = ("unknown-command", "bad-position", "bad-move", "unsupported-mode", "no-position",
               "bad-option", "internal", "line-too-long")
#: the bounds of the numeric go parameters, (least, most): a value outside is brought to the
#: bound and answered ``info string capped``. ``depth``: placements along a line of the
#: endgame search (two racks hold at most 14 tiles, each placement uses one or more: 64 is
#: beyond any real need); ``movetime``: an hour, in ms; the others are parsed, not used
GO_LIMITS = {"depth": (1, 64), "movetime": (0, 3_600_000), "iterations": (1, 10 ** 9),
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
    ``unknown``: tokens that are no parameter (ignored, per the draft); ``bad``: numeric
    parameters without a whole number ≥ 0; ``capped``: ``(name, asked, used)`` for the
    numbers brought within :data:`GO_LIMITS`."""

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
    bad: list[str] = field(default_factory=list)
    capped: list[tuple] = field(default_factory=list)


def parse_go(tokens: list[str]) -> GoParams:
    """Parse the tokens after ``go``.

    The mode may stand anywhere (first by convention). A numeric parameter whose value is
    missing or not an integer is recorded in ``bad`` (and answered ``info string ignored``);
    one outside :data:`GO_LIMITS` is brought to the bound and recorded in ``capped``;
    unknown tokens go to ``unknown``. Move lists run until the next parameter name.

    >>> g = parse_go("gen movetime 500 searchmoves 8D.ZA pass depth 2 frob".split())
    >>> g.mode, g.movetime_ms, g.searchmoves, g.depth, g.unknown
    ('gen', 500, ['8D.ZA', 'pass'], 2, ['frob'])
    >>> g = parse_go("endgame depth 999999999".split())
    >>> g.depth, g.capped
    (64, [('depth', 999999999, 64)])
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
            try:
                v = int(val) if val is not None else None
            except ValueError:
                v = None
            if v is None or v < 0:
                g.bad.append(tl)
                g.given.pop()
                i += 1 if val is None or val.lower() in GO_PARAMS else 2
                continue
            lo, hi = GO_LIMITS.get(tl, (0, None))
            used = max(lo, v if hi is None else min(v, hi))
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
                if active:
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
            q.put(line)
        q.put(None)
        while disp.is_alive():
            if self._active and self._infinite:
                self._stop.set()
            disp.join(0.05)
        return 0

    def _dispatch(self, q) -> None:
        while True:
            line = q.get()
            if line is None:
                return
            with self._lock:
                self._pending -= 1
            self.handle(line, logged=True)

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
        best = "pass"
        try:
            honoured = self.backend.honoured(params.mode) | {"movetime", "infinite"}
            ignored = [p for p in params.given if p not in honoured]
            if params.infinite and params.movetime_ms is not None:
                ignored.append("movetime")
            for p in dict.fromkeys(ignored + params.bad):
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


# -- the heuri engine ---------------------------------------------------------------------------
ENGINE_CHOICES = FRONT_END_ENGINES  # the registry's front-end list, the default (heuri.DEFAULT_ENGINE) first
DEFAULT_K = 2.5  # HEURI.md: e = Σ p(s|L)·(50 + k·σ(s)), k = 2.5 (heuri.evaluate's default)
DEFAULT_BEST_N = 20  # heuri.evaluate.Heuri3's ``top``: placements re-valued with δ after the move


@dataclass
class SiuPosition:
    """A position as the backend keeps it: the pack it was read with and the
    :class:`heuri.game.Position` (player to move = the engine's side)."""

    pack: object
    position: object
    rack_known: bool = True
    notes: tuple = ()  # ``info string`` texts every search of this position starts with


def leave_text(counts, spec) -> str:
    """A leave (count vector) as rack text (``?`` blank, ``[CH]``), ``-`` when empty, so
    that ``leave`` is always followed by one token."""
    return spec.format_tiles(_ids(counts), blank="?") or "-"


from ..core.game import tile_ids as _ids  # noqa: E402


def resolve_hidden(pos):
    """With the bag empty and exactly one rack unknown, that rack is every unseen tile:
    make it known (``hidden`` 0) so the endgame search can use it. Returns a Position."""
    import dataclasses

    import numpy as np

    if pos.bag_size != 0:
        return pos
    seats = [i for i, h in enumerate(pos.hidden) if h]
    if len(seats) != 1:
        return pos
    s = seats[0]
    racks = tuple(r + pos.bag if i == s else r for i, r in enumerate(pos.racks))
    return dataclasses.replace(pos, racks=racks, bag=np.zeros_like(pos.bag),
                               hidden=(0,) * len(pos.hidden))


def cgp_language(cgp: str) -> str | None:
    """Language code named by a CGP's ``ld`` or ``lex`` operation (``lex FISE2;`` → es,
    ``ld english;`` → en) as the language specs' ``[recognise]`` tables say, or None when
    there is none or no spec answers to the name (:func:`heuri.cgp.guess_language`).

    >>> cgp_language("15/15 A/ 0/0 0 lex CSW21; ld english;"), cgp_language("x / 0/0 0")
    ('en', None)
    """
    from ..core.cgp import guess_language

    return guess_language(cgp)


class HeuriBackend(Backend):
    """heuri behind :class:`SiuServer`: packs, positions, move generation, the evaluators
    of :mod:`heuri.evaluate` and the endgame search of :mod:`heuri.endgame`.

    ``lang``: the initial ``Lexicon`` (a language code of a built pack, or a pack folder);
    nothing is loaded until ``isready``, a ``position`` or a ``go`` needs it."""

    def __init__(self, lang: str = "es"):
        self.lexicon = lang
        self.engine = DEFAULT_ENGINE
        self.best_n = DEFAULT_BEST_N
        self.k = DEFAULT_K
        self.candidates = 10
        self.endgame = True
        self.endgame_clock = True
        self._pack = None
        self._players: dict = {}

    # -- options -------------------------------------------------------------------------
    def options(self) -> list[OptionDecl]:
        return [
            OptionDecl("Lexicon", "string", self.lexicon),
            OptionDecl("Engine", "combo", self.engine, var=ENGINE_CHOICES),
            OptionDecl("BestN", "spin", str(self.best_n), 1, 1000),
            OptionDecl("K", "string", str(self.k)),
            OptionDecl("Threads", "spin", "1", 1, 1),
            OptionDecl("Candidates", "spin", str(self.candidates), 1, 1000),
            OptionDecl("Endgame", "check", "true"),
            OptionDecl("EndgameClock", "check", "true"),
        ]

    def set_option(self, name: str, value: str | None) -> list[str]:
        if name == "Lexicon":
            import os

            from ..core.pack import load_pack

            want = value.strip()
            code = want.lower() if len(want) <= 3 else want
            try:
                if len(want) > 3 and not os.path.isdir(want):  # a lexicon's name (FRA20): its imported pack
                    from ..core.cgp import guess_language_from_names
                    from ..core.pack import lexicon_language, lexicon_root

                    lang = lexicon_language(want)
                    pack = load_pack(lexicon_root(want, lang or guess_language_from_names(want)))
                else:
                    pack = load_pack(code)
            except HeuriError as e:
                keep = self._pack.id if self._pack is not None else self.lexicon
                raise SiuError("bad-option", f"Lexicon {excerpt(want, EXCERPT)!r}: {e}; keeping {keep}") from None
            self._pack, self.lexicon = pack, code
            self._players = {}
            return []
        if name == "Engine":
            self.engine = value.lower()
        elif name == "BestN":
            self.best_n = int(value)
        elif name == "K":
            from ..core.bounds import BoundsError, check_float

            try:
                self.k = check_float(value, "K", 0, 1000)
            except BoundsError as e:
                raise SiuError("bad-option", f"{e} (the paper's k = 2.5)") from None
        elif name == "Candidates":
            self.candidates = int(value)
        elif name == "Endgame":
            self.endgame = value.lower() == "true"
        elif name == "EndgameClock":
            self.endgame_clock = value.lower() == "true"
        elif name == "Threads":
            return [] if int(value) == 1 else ["ignored Threads: heuri searches on one thread"]
        self._players = {}
        return []

    @property
    def pack(self):
        if self._pack is None:
            from ..core.pack import load_pack

            self._pack = load_pack(self.lexicon)
        return self._pack

    def prepare(self) -> None:
        """Load the pack and warm the compiled code (numba's cache: move generator,
        evaluator) once per pack and engine, so the first ``go`` is not slowed down."""
        import numpy as np

        from ..core.game import Position

        pack = self.pack
        key = ("warm", id(pack), self.engine, self.k, self.best_n)
        if key in self._players:
            return
        rack = np.zeros(pack.spec.n_kinds, dtype=np.int64)
        rack[:min(pack.spec.rack_size, pack.spec.n_letters)] = 1
        pos = Position.initial(pack.spec, [rack, np.zeros_like(rack)])
        self.evaluator(pack).rank(pos)
        self._players[key] = True

    def provenance(self, position: "SiuPosition | None" = None) -> str:
        pack = position.pack if position is not None else self.pack
        return f"engine={self.name}/{self.version} leaves=none winpct=none lexicon={pack.id}"

    # -- positions -----------------------------------------------------------------------
    def set_position(self, cgp: str, moves: list[str], rack: str | None) -> SiuPosition:
        import dataclasses

        from ..core.game import Position

        pack = self.pack
        code = cgp_language(cgp)
        if code is not None and code != pack.spec.code:
            # the draft: an opcode (lex/ld) wins over the Lexicon option for this position
            from ..core.pack import load_pack

            try:
                pack = load_pack(code)
            except HeuriError as e:
                raise SiuError("bad-position", f"the CGP names a {code} lexicon: {e}") from None
        spec = pack.spec
        try:
            pos = Position.from_cgp(cgp, spec)
        except HeuriError as e:
            raise SiuError("bad-position", f"{e}") from None
        fields = cgp.split()
        rack_known = bool(fields[1].split("/")[0])
        if not rack_known:  # the mover's rack is unknown too: it holds up to rack_size unseen tiles
            left = int(pos.bag.sum()) - sum(pos.hidden)
            hidden = (min(spec.rack_size, left),) + tuple(pos.hidden[1:])
            pos = dataclasses.replace(pos, hidden=hidden)
        pos = resolve_hidden(pos)
        for i, text in enumerate(moves):
            pos, rack_known = self._apply(pack, pos, text, i, rack_known)
        if rack is not None:
            pos = self._set_rack(pos, rack)
            rack_known = True
        from ..core.cgp import lexicon_warning

        note = lexicon_warning(cgp, spec)
        return SiuPosition(pack, resolve_hidden(pos), rack_known, (note,) if note else ())

    def _apply(self, pack, pos, text: str, i: int, rack_known: bool):
        """Position after the player to move plays ``text`` (the ``i``-th of ``moves``);
        the mover's drawn tiles are unknown. Returns ``(position, rack of the new player
        to move known?)``."""
        import dataclasses

        import numpy as np

        from ..core.errors import MoveError
        from ..core.move import Exchange

        spec = pos.spec
        where = f"moves[{i + 1}] {excerpt(text, EXCERPT)!r}"
        if pos.over:
            raise SiuError("bad-move", f"{where}: the game is already over")
        s = pos.to_move
        n = pos.n_players
        nxt_known = not pos.hidden[(s + 1) % n]
        if text.lower().startswith("phony."):
            # a play challenged off: a scoreless turn, nothing changes on the board
            try:
                from ..core.move import Move

                Move.from_siu(text[6:], pos.board, spec)
            except (MoveError, HeuriError) as e:
                raise SiuError("bad-move", f"{where}: {e}") from None
            return dataclasses.replace(pos, to_move=(s + 1) % n, scoreless=pos.scoreless + 1), nxt_known
        try:
            from ..core.move import Move

            move = Move.from_siu(text, pos.board, spec)
        except (MoveError, HeuriError) as e:
            raise SiuError("bad-move", f"{where}: {e}") from None
        racks, hidden, bag = list(pos.racks), list(pos.hidden), pos.bag.copy()
        R, h = racks[s].copy(), hidden[s]
        if isinstance(move, Exchange) and move.tiles is None:
            # an exchange of unknown tiles: the rack becomes unknown
            if pos.bag_size < spec.exchange_min_bag or move.count > pos.bag_size:
                raise SiuError("bad-move", f"{where}: an exchange needs at least {spec.exchange_min_bag} "
                                           f"tiles in the bag and no more tiles than it holds "
                                           f"({pos.bag_size})")
            if move.count > int(R.sum()) + h:
                raise SiuError("bad-move", f"{where}: the rack holds only {int(R.sum()) + h} tiles")
            bag += R
            hidden[s] = h + int(R.sum())
            racks[s] = np.zeros_like(R)
            return dataclasses.replace(pos, racks=tuple(racks), hidden=tuple(hidden), bag=bag,
                                       to_move=(s + 1) % n, scoreless=pos.scoreless + 1), nxt_known
        need = move.rack_counts(spec)
        missing = np.maximum(need - R, 0)
        if missing.any():  # tiles the mover drew unseen
            if int(missing.sum()) > h or (missing > bag).any():
                raise SiuError("bad-move", f"{where}: the rack {pos.rack_text(s) or '(unknown)'} and "
                                           f"the unseen tiles lack {spec.format_tiles(_ids(missing), blank='?')}"
                                           f" [tiles-not-in-rack]")
            R += missing
            bag -= missing
            h -= int(missing.sum())
        racks[s], hidden[s] = R, h
        pre = dataclasses.replace(pos, racks=tuple(racks), hidden=tuple(hidden), bag=bag)
        try:
            post = pre.after(move, (), words=pack.words)
        except MoveError as e:
            raise SiuError("bad-move", f"{where}: {e} [{e.kind}]") from None
        if not post.over:  # the mover draws unseen tiles
            k = min(spec.rack_size - int(post.racks[s].sum()) - h, post.bag_size)
            hidden = list(post.hidden)
            hidden[s] = h + max(k, 0)
            post = dataclasses.replace(post, hidden=tuple(hidden))
        return resolve_hidden(post), nxt_known

    def _set_rack(self, pos, text: str):
        """The player to move's rack from ``rack.<tiles>``."""
        import dataclasses

        import numpy as np

        from ..core.errors import MoveError
        from ..core.move import parse_rack

        spec = pos.spec
        try:
            ids = parse_rack(text, spec, what="rack.")
        except MoveError as e:
            raise SiuError("bad-move", f"rack.{excerpt(text, EXCERPT)}: {e}") from None
        s = pos.to_move
        want = np.bincount(np.asarray(ids, dtype=np.int64), minlength=spec.n_kinds).astype(np.int64)
        bag = pos.bag + pos.racks[s]
        hidden = list(pos.hidden)
        hidden[s] = 0
        if (want > bag).any() or len(ids) > spec.rack_size or int((bag - want).sum()) < sum(hidden):
            raise SiuError("bad-move", f"rack.{excerpt(text, EXCERPT)}: these tiles are not all unseen by the player "
                                       f"to move")
        racks = tuple(want if i == s else r for i, r in enumerate(pos.racks))
        return dataclasses.replace(pos, racks=racks, bag=bag - want, hidden=tuple(hidden))

    def check_go(self, sp: SiuPosition, params: GoParams) -> None:
        pos = sp.position
        if pos.over:
            raise SiuError("bad-position", "the game is over in this position; nothing to search")
        if not sp.rack_known or pos.hidden[pos.to_move]:
            raise SiuError("bad-position", "the rack of the player to move is unknown; give it in the CGP "
                                           "or as rack.<tiles> after the moves")
        if params.mode == "endgame":
            if pos.bag_size != 0:
                err = SiuError("bad-position", f"go endgame needs an empty bag; it holds {pos.bag_size} tiles")
                err.fallback = "auto"  # still answer the go with a bestmove
                raise err
            if any(pos.hidden):
                raise SiuError("bad-position", "go endgame needs both racks")
        if params.mode == "peg":
            if not 1 <= pos.bag_size <= 7:
                err = SiuError("bad-position", f"go peg needs 1 to 7 tiles in the bag; it holds {pos.bag_size}")
                err.fallback = "auto"
                raise err

    def honoured(self, mode: str) -> set[str]:
        if mode == "gen":
            return {"searchmoves", "alsosearchmoves"}
        if mode == "endgame":
            return {"depth"}
        return set()

    # -- searching ------------------------------------------------------------------------
    def _evaluator_options(self) -> dict:
        """Keyword options of :func:`heuri.evaluate.make_evaluator` from ``K``/``BestN``."""
        from ..eval.evaluate import engine_options

        return engine_options(self.engine, self.k, self.best_n)

    def evaluator(self, pack):
        """The evaluator named by the ``Engine`` option, with ``K`` and ``BestN``."""
        from ..eval.evaluate import make_evaluator

        key = ("ev", id(pack), self.engine, self.k, self.best_n)
        ev = self._players.get(key)
        if ev is None:
            ev = make_evaluator(pack, self.engine, **self._evaluator_options())
            self._players[key] = ev
        return ev

    def _player(self, pack, last: dict):
        """The player heuri's match runner would use (:func:`heuri.players.make_player`:
        the evaluator, and the endgame search once the bag is empty), with the evaluator
        built from ``K``/``BestN`` and recording its ranking in ``last["rank"]``."""
        from ..core.move import Move, Pass
        from .players import make_player

        name = self.engine if (self.endgame or self.engine == "greedy") else f"{self.engine}-noend"
        key = ("player", id(pack), name, self.k, self.best_n)
        pl = self._players.get(key)
        if pl is None:
            pl = make_player(name, pack)
            self._players[key] = pl
        if hasattr(pl, "_choose") and self.engine != "greedy":
            ev = self.evaluator(pack)
            spec = pack.spec

            def choose(position):  # = Evaluator.choose, keeping the ranking for the info line
                r = ev.rank(position)
                last["rank"] = r
                return Pass() if len(r) == 0 else Move.from_record(r.moves[0], spec)

            pl._choose = choose
        return pl

    def search(self, sp: SiuPosition, params: GoParams, stop: "SearchStop",
               emit: Callable[[str], None]) -> str:
        if params.mode == "gen":
            return self._gen(sp, params, stop, emit)
        if params.mode == "endgame":
            return self._endgame(sp, params, stop, emit)
        if params.mode == "peg":
            return self._peg(sp, params, stop, emit)
        return self._auto(sp, params, stop, emit)

    def _peg(self, sp, params, stop, emit) -> str:
        """``go peg``: one ``info peg`` line per candidate, best first: ``move``, ``win``
        (wins + half the draws, %), ``wins``/``draws``/``losses`` (probabilities over the
        draws), ``spread`` (expected final spread), ``method`` (heuri.peg)."""
        from ..search.peg import PegSearch

        spec, board = sp.pack.spec, sp.position.board
        key = ("peg", id(sp.pack), self.engine)
        ps = self._players.get(key)
        if ps is None:  # the session's Engine picks the candidates and plays the replies
            ps = self._players[key] = PegSearch(sp.pack, evaluator=self.engine)
        res = ps.search(sp.position)
        for r in res.rows:
            emit(f"info peg move {r.move.siu(spec, board)} win {100 * r.win_prob:.2f} wins {r.wins:.4f} "
                 f"draws {r.draws:.4f} losses {r.losses:.4f} spread {r.spread:+.2f} method {r.method} "
                 f"draws_n {r.draws_n}")
        if res.note:
            emit(f"info string peg {res.note}")
        return res.rows[0].move.siu(spec, board)

    def _gen(self, sp, params, stop, emit) -> str:
        from ..core.move import Move

        pack, pos = sp.pack, sp.position
        spec = pack.spec
        ranked = self.evaluator(pack).rank(pos)
        texts = [Move.from_record(r, spec).siu(spec, pos.board) for r in ranked.moves]
        order = list(range(len(texts)))
        if params.searchmoves:
            want = self._canonical(sp, params.searchmoves, emit)
            order = [i for i in order if texts[i] in want]
            if not order:
                raise SiuError("bad-move", "searchmoves: none of " + excerpt(" ".join(params.searchmoves), EXCERPT)
                               + " is a legal move here")
        show = order[:self.candidates]
        if params.alsosearchmoves:
            also = self._canonical(sp, params.alsosearchmoves, emit)
            show += [i for i in order[self.candidates:] if texts[i] in also]
        for i in show:
            emit(f"info gen move {texts[i]} score {int(ranked.j[i])} eq {ranked.v[i]:.2f} "
                 f"leave {leave_text(ranked.leaves[i], spec)} e {ranked.e[i]:.2f} p {ranked.p[i]:.4f}")
        return texts[order[0]] if order else "pass"

    def _canonical(self, sp, texts: list[str], emit) -> set[str]:
        from ..core.errors import MoveError
        from ..core.move import Move

        spec, board = sp.pack.spec, sp.position.board
        out = set()
        for t in texts:
            try:
                m = Move.from_siu(t, board, spec)
                if hasattr(board, "canonical"):  # a one-tile play, written as the generator does
                    m = board.canonical(m)
                out.add(m.siu(spec, board))
            except (MoveError, HeuriError) as e:
                emit(f"info string error bad-move {excerpt(f'{t}: {e}', ERROR_TEXT)}")
        return out

    def _endgame_search(self, pack, stop, max_depth: int | None = None, match_limits: bool = False,
                        clock: tuple | None = None):
        """The exact endgame solver, stopped by SIU ``stop`` (the server also sets it when
        ``movetime`` runs out); ``match_limits``: the match players' node limits (``go
        auto``), else the solver's own (``go endgame``: exact unless stopped). ``clock``:
        ``(seconds,)`` of ``movetime``, or ``(None,)`` for ``infinite``: the node and
        move-list limits grow with the time (:func:`heuri.endgame.time_budget`), so that
        the clock (or ``stop``), not the untimed default of a million nodes, ends the search."""
        from ..search.endgame import EndgameSearch, time_budget
        from .players import MATCH_EXACT_LIMITS, MATCH_WIDE_LIMITS, TwoStepEndgame

        kw = {} if max_depth is None else {"max_depth": max_depth}
        if match_limits:
            steps = [EndgameSearch(pack, **{**MATCH_EXACT_LIMITS, **kw}),
                     EndgameSearch(pack, **{**MATCH_WIDE_LIMITS, **kw})]
            for es in steps:
                es._stop = stop.is_set
            return TwoStepEndgame(*steps)
        es = EndgameSearch(pack, **kw)
        if clock is not None:
            budget = time_budget(clock[0], "compiled" if es.compiled and es._gen.fast else "python")
            es.max_nodes, es.max_generations = budget["max_nodes"], budget["max_generations"]
        es._stop = stop.is_set
        return es

    @staticmethod
    def _clock(params) -> tuple | None:
        """``(seconds,)`` of a ``go``'s ``movetime``, ``(None,)`` for ``infinite``, None
        without a clock (see :meth:`_endgame_search`)."""
        if params.infinite:
            return (None,)
        if params.movetime_ms is not None:
            return (max(params.movetime_ms, 1) / 1000.0,)
        return None

    def _emit_endgame(self, sp, res, emit) -> None:
        spec, board = sp.pack.spec, sp.position.board
        pv = []
        for m in res.pv:
            pv.append(m.siu(spec, board))
            board = board.play(m)
        emit(f"info endgame depth {res.depth} score spread {res.value:+d} nodes {res.nodes} "
             f"exact {'true' if res.exact else 'false'} pv {' '.join(pv)}")
        if not res.exact:
            why = {"stop": "stopped by movetime or stop", "time": "the clock ran out",
                   "nodes": "stopped by the node limit", "move lists": "stopped by the move-list limit"}
            emit(f"info string endgame value not exact: a horizon estimate at depth {res.depth} "
                 f"({why.get(res.stopped_by, 'the search was stopped') if res.stopped else 'the limits allowed no deeper search'})")

    def _endgame(self, sp, params, stop, emit) -> str:
        from .players import GreedyPlayer

        search = self._endgame_search(sp.pack, stop, params.depth, clock=self._clock(params))
        res = search.search(sp.position)
        if res is None:
            emit("info string endgame search stopped before depth 1; playing the top-scoring move")
            return GreedyPlayer(sp.pack).choose(sp.position).siu(sp.pack.spec, sp.position.board)
        self._emit_endgame(sp, res, emit)
        return res.move.siu(sp.pack.spec, sp.position.board)

    def _auto(self, sp, params, stop, emit) -> str:
        from ..core.move import Placement

        pack, pos = sp.pack, sp.position
        spec = pack.spec
        last: dict = {}
        player = self._player(pack, last)
        if getattr(player, "search", None) is not None:
            # a clock (movetime, or infinite until stop) lets the exact solver run until it
            # proves the value or the time is up (the bigger budget plays better: README,
            # "Strength against the peers"), unless EndgameClock is false; otherwise the
            # match players' fixed budget, so that go auto answers the same way every time
            # (and plays the game an in-process match player plays)
            timed = self.endgame_clock and (params.movetime_ms is not None or params.infinite)
            inner = self._endgame_search(pack, stop, match_limits=not timed,
                                         clock=self._clock(params) if timed else None)

            class _Recording:
                def search(self, position):
                    last["res"] = r = inner.search(position)
                    return r

            player.search = _Recording()
        move = player.choose(pos)
        text = move.siu(spec, pos.board)
        if last.get("res") is not None:
            self._emit_endgame(sp, last["res"], emit)
        elif last.get("rank") is not None and len(last["rank"]):
            r = last["rank"]
            emit(f"info gen move {text} score {int(r.j[0])} eq {r.v[0]:.2f} leave "
                 f"{leave_text(r.leaves[0], spec)} e {r.e[0]:.2f} p {r.p[0]:.4f}")
        else:
            j = pos.board.score(move) if isinstance(move, Placement) else 0
            emit(f"info gen move {text} score {j} leave {leave_text(pos.rack - move.rack_counts(spec), spec)}")
        return text

