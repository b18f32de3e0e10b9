"""What the web board computes, without the web: every answer of the JSON API as a plain
``dict``, from a request's fields as a ``dict``.

:class:`Service` loads each language pack once (memory-mapped, shared by every request)
and answers:

- :meth:`Service.position`: a CGP → the board as SVG (:func:`heuri.render.board_svg`),
  its squares as CGP tokens (for the page's editor), the rack, bag and unseen tiles, and
  the bingo lanes (:func:`heuri.bingo.bingo_lanes`);
- :meth:`Service.moves`: every legal move, as ``heuri moves --json`` prints it;
- :meth:`Service.best`: the evaluator's ranking, as ``heuri best --json`` prints it (the
  same evaluator calls, so the same rows);
- :meth:`Service.think`: "think longer", the simulation of ``heuri best --think`` over the
  engine's best candidates;
- :meth:`Service.preview`: a move on the board (SVG with its tiles outlined), its score and
  words, or why it is illegal;
- :meth:`Service.game`: a GCG record stepped turn by turn (a board per turn, the move
  played outlined), with :mod:`heuri.analyze`'s equity lost and engine choice on request;
- :meth:`Service.play_new`, :meth:`Service.play_move`, :meth:`Service.play_state`,
  :meth:`Service.play_gcg`: a game against heuri (:class:`heuri.game.Game` with the word
  list, :func:`heuri.players.make_player`, its endgame search once the bag is empty);
- :class:`DuplicateTrainers` (``Service.duplicate``): the duplicate trainer, a master game
  played alone against the clock over :mod:`heuri.duplicate` and :class:`heuri.trainer.Trainer`.

Every request field is checked here, once, before any work: its type, a finite number in
range, a string of bounded length, no field the call does not take (:func:`_fields`); a
bad one raises HeuriError naming the field. Bad input raises :class:`heuri.errors.HeuriError`
(the app answers 400 with its message) or :class:`ApiError` (with its HTTP status: 404
unknown game, 409 a stale move, 413 too large, 422 too much work, 429 too many games).

Lexicons: besides each language's default pack, the packs built from lexicon files
(``heuri lexicon import``, :func:`heuri.core.pack.lexicon_packs`) of the languages served
are offered (``/api/info``'s ``lexicons``, loaded on first use). A request's ``lexicon``
field chooses one (a missing one is refused in one line with the command that builds it);
without it, a CGP's ``lex`` or a record's ``#lexicon`` chooses the pack of that lexicon
when it is built, else the default answers with a warning. Every answer says which
lexicon answered (``lexicon``), and the Game view marks each play forming words that
lexicon does not hold (``off_list``, ``off_words``; never an equity lost).

Files: a record is uploaded as text (``gcg``); ``path`` and ``analysis`` read files only
under the folder given at start (``records``, :func:`read_record_file`), never elsewhere.

Memory is bounded: a game against heuri keeps its :class:`heuri.game.Game` only (about
60 KB), games expire when idle or finished (:data:`IDLE_S`, :data:`FINISHED_S`) and at most
:data:`MAX_GAMES` are kept (a new one is refused past it, none is dropped); evaluators,
heuri's players and analysers come from small pools (:class:`_Pool`) shared by the worker
threads. The methods are thread-safe (a game has its own lock).
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import secrets
import stat
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ...eval.engines import DEFAULT_ENGINE, FRONT_END_ENGINES
from ...core.errors import HeuriError, KindedError, MoveError, Note

#: the most events (lines with ">") a GCG record may have: a real game has 20-60 (an analysis
#: takes about 50 ms of CPU a turn, so 300 is about 15 s); more is
#: refused (422) before any work.
MAX_GCG_EVENTS = 300
#: the most candidates ``best`` and ``moves`` return (``top``); the count is always given.
MAX_ROWS = 5000
#: games against heuri kept in memory at once; past it a new game is refused (429), none dropped
MAX_GAMES = 1000
#: a game nobody has touched for this long (seconds) expires
IDLE_S = 2 * 3600
#: a finished game expires this long (seconds) after its last move
FINISHED_S = 30 * 60
#: the largest record file read under the records folder (bytes)
MAX_RECORD_BYTES = 1 << 20
#: the largest ``turns.parquet`` read under the records folder (bytes)
MAX_ANALYSIS_BYTES = 64 << 20
#: the longest string field (characters) but ``gcg`` (bounded by the body's size)
MAX_TEXT = 4096
#: the longest "think longer" (``think``'s ``seconds``)
MAX_THINK_S = 10.0
#: "think longer" races run at once (each holds a core and one of the app's worker threads for
#: its seconds); one more is refused (429) rather than left holding a worker while it waits
THINKING = 1
#: the bingo constant k accepted (the paper's is 2.5)
K_RANGE = (0.1, 10.0)
# the default first: the page's choice
ENGINES = FRONT_END_ENGINES
#: the columns of heuri.analyze's rows a game view's turn carries
ANALYSIS_KEYS = ("equity_lost", "best", "best_j", "best_v", "v", "j", "e", "rank", "candidates", "endgame",
                 "missed_bingo", "best_bingo", "note")
#: the columns of an analysis that thought longer (``heuri analyze --iterations``), passed on
#: when the table has them (null on the turns not simulated)
SIM_KEYS = ("sim_best", "sim_best_mean", "sim_mean", "sim_stderr", "sim_rollouts", "sim_lost")


@contextmanager
def _as_typed(text: str):
    """A MoveError raised inside names the move as the player typed it (its
    ``params["move"]``, which the page's message shows), not as the engine writes it."""
    try:
        yield
    except MoveError as e:
        e.params["move"] = text
        raise


class ApiError(HeuriError):
    """A request the API refuses with an HTTP ``status`` other than 400 (404, 409, 413, 422, 429),
    its ``kind`` and, as :class:`heuri.core.errors.KindedError` has them, ``params``: the
    message's parts, for the page to say it again in its own language."""

    def __init__(self, message: str, status: int = 400, kind: str = "error", **params):
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.params = params


class NotFinite:
    """A JSON number the API does not take, as the body parser leaves it in place of a
    value (``NaN``, ``Infinity``, ``1e400``, an integer of hundreds of digits), so that the
    field's check names the field. ``text``: how it was written (shortened)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text if len(text) <= 24 else f"a number of {len(text)} characters"

    def __repr__(self) -> str:
        return self.text


def _show(v) -> str:
    """A short, one-line description of a request value for an error message."""
    if isinstance(v, NotFinite):
        return repr(v)
    if isinstance(v, bool) or v is None:
        return "true" if v is True else "false" if v is False else "null"
    if isinstance(v, int):
        s = str(v) if abs(v) < 10**24 else f"a whole number of {len(str(abs(v)))} digits"
        return s
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        s = v if len(v) <= 40 else v[:37] + "..."
        return repr(s.replace("\n", " "))
    if isinstance(v, list):
        return f"a list ({len(v)} items)"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def _fields(req: dict, allowed: tuple, call: str) -> None:
    """Refuse (HeuriError) a field ``call`` does not take: a misspelt option is not
    silently ignored."""
    extra = [k for k in req if k not in allowed]
    if extra:
        name = extra[0] if len(extra[0]) <= 40 else extra[0][:37] + "..."
        raise HeuriError(f"{name!r}: {call} takes no such field; it takes {', '.join(allowed)}")


def _int(req: dict, name: str, default, lo: int, hi: int) -> int:
    """Field ``name``: a whole number from ``lo`` to ``hi`` (HeuriError naming it)."""
    v = req.get(name)
    if v is None:
        return default
    if isinstance(v, float) and math.isfinite(v) and v.is_integer() and lo <= v <= hi:
        return int(v)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise HeuriError(f"{name}: {_show(v)}: give a whole number from {lo} to {hi}")
    return v


def _num(req: dict, name: str, lo: float, hi: float) -> float | None:
    """Field ``name``: None (absent) or a finite number from ``lo`` to ``hi``."""
    v = req.get(name)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not lo <= v <= hi:
        raise HeuriError(f"{name}: {_show(v)}: give a number from {lo:g} to {hi:g}")
    return float(v)


def _bool(req: dict, name: str) -> bool:
    """Field ``name``: true or false (absent: false)."""
    v = req.get(name)
    if v is None:
        return False
    if not isinstance(v, bool):
        raise HeuriError(f"{name}: {_show(v)}: give true or false")
    return v


def _text(req: dict, name: str, required: bool = True, limit: int | None = MAX_TEXT) -> str:
    """Field ``name``: a string of at most ``limit`` characters ('' when absent and not
    ``required``)."""
    v = req.get(name)
    if v is None or (isinstance(v, str) and not v.strip()):
        if required:
            raise HeuriError(f"{name}: missing; give it as a string")
        return ""
    if not isinstance(v, str):
        raise HeuriError(f"{name}: {_show(v)} is not a string")
    if limit is not None and len(v) > limit:
        raise HeuriError(f"{name}: {len(v):,} characters; at most {limit:,} are taken")
    return v


def _coords(req: dict) -> str:
    """The request's ``coords``: ``"standard"`` (default) or ``"fisf"`` (heuri.move.COORDS)."""
    from ...core.move import COORDS

    return _choice(req, "coords", COORDS, "standard")


def _word(move, spec, board, coords: str = "standard") -> str:
    """A move as people read it (:func:`heuri.formats.render.move_text`)."""
    from ...formats.render import move_text

    return move_text(move, spec, board, coords)


def _choice(req: dict, name: str, options, default: str) -> str:
    v = req.get(name)
    if v is None or v == "":
        return default
    if not isinstance(v, str) or v not in options:
        raise HeuriError(f"{name}: {_show(v)}; choose one of {', '.join(options)}")
    return v


class _Pool:
    """Idle instances (evaluators, heuri's players, analysers) by key, shared by the worker
    threads, each used by one thread at a time: at most ``max_keys`` keys are kept (the
    least recently used goes) and ``per_key`` idle instances of each. An instance is made
    when none is idle and is dropped, on release, past those bounds; with the app's limit
    on requests computing at once, the instances alive are bounded too."""

    def __init__(self, max_keys: int, per_key: int):
        self.max_keys = max_keys
        self.per_key = per_key
        self._idle: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    @contextmanager
    def use(self, key, make):
        with self._lock:
            idle = self._idle.get(key)
            inst = idle.pop() if idle else None
        if inst is None:
            inst = make()
        try:
            yield inst
        finally:
            with self._lock:
                idle = self._idle.setdefault(key, [])
                self._idle.move_to_end(key)
                if len(idle) < self.per_key:
                    idle.append(inst)
                while len(self._idle) > self.max_keys:
                    self._idle.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._idle.values())


class _Lru:
    """A bounded map shared by the worker threads: :meth:`get` moves a hit to the end,
    :meth:`put` drops the least recently used past ``size`` entries."""

    def __init__(self, size: int):
        self.size = size
        self._d: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key):
        with self._lock:
            v = self._d.get(key)
            if v is None:
                self.misses += 1
            else:
                self.hits += 1
                self._d.move_to_end(key)
            return v

    def put(self, key, value) -> None:
        with self._lock:
            self._d[key] = value
            self._d.move_to_end(key)
            while len(self._d) > self.size:
                self._d.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._d)


#: answers of ``moves`` and ``best`` kept (the same request answers from memory); only
#: answers of at most :data:`CACHED_ROWS` rows are kept (a few KB each)
ANSWERS_KEPT = 2048
CACHED_ROWS = 100
#: positions kept parsed (by their CGP text), and boards whose δ is kept
POSITIONS_KEPT = 512
BOARDS_KEPT = 32


def read_record_file(root: Path | None, where: str, field: str, suffix: str | None, limit: int,
                     default_name: str | None = None) -> tuple[bytes, str]:
    """The bytes of the file ``where`` names under the records folder ``root`` (resolved
    at start), and its path relative to ``root``.

    ``where``: relative to ``root``, or absolute inside it; no ``..``, no symbolic link on
    the way or at the end (each step opened without following links), a regular file,
    ending in ``suffix`` (case-insensitive; None: any name), at most ``limit`` bytes; a
    folder is taken as its ``default_name`` file. Raises HeuriError (400) when reading
    files is off (``root`` None) or the path leaves the folder, whatever exists there (so
    that no answer tells what exists outside it); ApiError 404 for a file missing inside
    it, 413 for one too large."""
    if root is None:
        raise HeuriError(f"{field}: this server reads no files; start it with heuri serve --records DIR to read "
                         f"the records under DIR, or upload the record (gcg: its text)")
    raw = Path(where).expanduser() if where.startswith("~") else Path(where)
    if raw.is_absolute():
        try:
            rel = raw.relative_to(root)
        except ValueError:
            raise HeuriError(f"{field}: {_show(where)} is outside the records folder; give a path under it "
                             f"(relative to it)") from None
    else:
        rel = raw
    parts = [p for p in rel.parts if p not in ("", ".")]
    if any(p == ".." for p in parts) or "\x00" in where:
        raise HeuriError(f"{field}: {_show(where)} is outside the records folder; give a path under it "
                         f"(relative to it), without '..'")
    shown = "/".join(parts) or "."
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    dflags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    missing = ApiError(f"{field}: {shown}: no such {suffix or default_name or ''} file in the records folder",
                       404, "no-file")
    if os.stat not in os.supports_dir_fd or os.open not in os.supports_dir_fd:
        raise HeuriError(f"{field}: reading the records folder needs a system that opens files relative to a "
                         f"folder (POSIX); upload the record instead")
    fd = os.open(root, dflags)
    try:
        names = list(parts)
        took = list(parts)
        while True:
            if not names:
                if default_name is None:
                    raise missing
                names = [default_name]
                took.append(default_name)
            name = names.pop(0)
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except (FileNotFoundError, NotADirectoryError):
                raise missing from None
            if stat.S_ISLNK(st.st_mode):
                raise HeuriError(f"{field}: {shown}: a symbolic link; files under the records folder are read "
                                 f"only as themselves")
            if stat.S_ISDIR(st.st_mode):
                nfd = os.open(name, dflags, dir_fd=fd)
                os.close(fd)
                fd = nfd
                continue
            if names or not stat.S_ISREG(st.st_mode):
                raise missing
            if suffix and not name.lower().endswith(suffix):
                raise HeuriError(f"{field}: {shown}: only {suffix} files are read")
            if default_name and not suffix and name != default_name:
                raise HeuriError(f"{field}: {shown}: give the folder or its {default_name}")
            ffd = os.open(name, flags, dir_fd=fd)
            try:
                fst = os.fstat(ffd)
                if not stat.S_ISREG(fst.st_mode):
                    raise missing
                if fst.st_size > limit:
                    raise ApiError(f"{field}: {shown}: {fst.st_size:,} bytes; at most {limit:,} are read", 413,
                                   "too-large")
                chunks, n = [], 0
                while n <= limit:
                    b = os.read(ffd, 1 << 16)
                    if not b:
                        break
                    chunks.append(b)
                    n += len(b)
                if n > limit:
                    raise ApiError(f"{field}: {shown}: over {limit:,} bytes; at most that is read", 413, "too-large")
                return b"".join(chunks), "/".join(took)
            finally:
                os.close(ffd)
    finally:
        os.close(fd)


class Service:
    """The API's answers (see the module doc). ``langs``: the languages served (built
    packs, loaded at once: a missing pack is a PackError here, before the server starts);
    ``packs``: ``{lang: LanguagePack}`` already loaded (then ``langs`` defaults to them);
    ``records``: the folder whose ``.gcg`` files (and ``heuri analyze`` tables) ``path``
    and ``analysis`` may name (None: no file is read); ``max_games``: games kept at once;
    ``clock``: seconds (monotonic) for the games' ages."""

    def __init__(self, langs=("es", "en", "fr"), packs: dict | None = None, records=None,
                 max_games: int = MAX_GAMES, clock=time.monotonic):
        from ...core.pack import load_pack

        self.langs = list(dict.fromkeys(packs or langs))
        if not self.langs:
            raise HeuriError("serve: give at least one language")
        self.records = None
        if records is not None:
            root = Path(records).expanduser()
            if not root.is_dir():
                raise HeuriError(f"--records {records}: no such folder")
            self.records = root.resolve()
        from ...core.pack import lexicon_of_language, lexicon_packs

        # heuri --lexicon NAME serve: NAME answers for its own language, the others keep their default
        self.packs = dict(packs) if packs else {lang: load_pack(lang, lexicon=lexicon_of_language(lang) or "")
                                                for lang in self.langs}

        #: lexicon name (upper case) → (language, pack folder) of the imported packs served
        self.lexicon_folders = {name: (m.get("language"), folder) for name, (folder, m) in lexicon_packs().items()
                                if m.get("language") in self.packs}
        self._lexicon_packs: dict = {}
        self._lexicon_lock = threading.Lock()
        self.max_games = int(max_games)
        self.clock = clock
        from ...eval.bingo import BoardDeltaCache

        # what the requests on one position share: its parsed CGP, its board's δ (and δ
        # after its top placements) for every engine and k, and the answers themselves
        self._positions = _Lru(POSITIONS_KEPT)
        self._answers = _Lru(ANSWERS_KEPT)
        self._deltas = BoardDeltaCache(BOARDS_KEPT)
        self._evaluators = _Pool(max_keys=8, per_key=2)
        self._players = _Pool(max_keys=3, per_key=1)
        self._analyzers = _Pool(max_keys=2, per_key=1)
        self._thinking = threading.BoundedSemaphore(THINKING)
        self._games: dict[str, _PlayGame] = {}
        self._games_lock = threading.Lock()
        #: the duplicate trainer's games (bounded as the games against heuri)
        self.duplicate = DuplicateTrainers(self)

    # -- shared pieces ----------------------------------------------------------------------
    def warm_up(self) -> None:
        """Compile (or load from numba's cache) and page in what a request needs, once per
        language, so that the first request is not the slow one."""
        from ...eval.bingo import bingo_lanes

        for lang, pack in self.packs.items():
            pack.words  # the word set (phony checks in a game against heuri)
            cgp = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEIRST?/ 0/0 0"
            pos = self._position_of(pack, cgp)
            with self._evaluator(pack, DEFAULT_ENGINE) as ev:
                ev.rank(pos)
            bingo_lanes(pack, pos.board.letters)

    def pack(self, req: dict, record_lexicon: str | None = None):
        """The pack of ``req['lang']`` (default: the CGP's ``lex``/``ld``, else the first
        served language) and lexicon: ``req['lexicon']`` when given, else the record's
        (``record_lexicon``, or the CGP's ``lex``) when a pack of it is built for that
        language, else the language's default pack. Raises HeuriError naming the languages
        served, or the lexicon missing and the command that builds it."""
        lang = req.get("lang")
        if lang is not None and not isinstance(lang, str):
            raise HeuriError(f"lang: {_show(lang)} is not a string; this server serves {', '.join(self.langs)}")
        lexicon = req.get("lexicon")
        if lexicon is not None and not isinstance(lexicon, str):
            raise HeuriError(f"lexicon: {_show(lexicon)} is not a string")
        lexicon = (lexicon or "").strip()
        if len(lexicon) > 64:
            raise HeuriError(f"lexicon: {_show(lexicon)}: a lexicon name has at most 64 characters")
        if not lang and lexicon:  # the language of the lexicon named
            lang = (self.lexicon_folders[lexicon.upper()][0] if lexicon.upper() in self.lexicon_folders else
                    next((c for c, p in self.packs.items() if p.spec.lexicon.upper() == lexicon.upper()), None))
        if not lang and isinstance(req.get("cgp"), str):
            from ...core.cgp import guess_language

            lang = guess_language(req["cgp"])
        lang = lang or self.langs[0]
        if lang not in self.packs:
            raise HeuriError(f"lang: {_show(lang)} is not served here; this server serves {', '.join(self.langs)} "
                             f"(heuri serve --lang ...)")
        default = self.packs[lang]
        if lexicon:
            if lexicon.upper() == default.spec.lexicon.upper():
                return default
            return self._lexicon_pack(lang, lexicon, required=True)
        if record_lexicon is None and isinstance(req.get("cgp"), str):
            from ...core.cgp import cgp_lexicon

            record_lexicon = cgp_lexicon(req["cgp"])
        return self._lexicon_pack(lang, record_lexicon, required=False) or default

    def _lexicon_pack(self, lang: str, name: str | None, required: bool):
        """The served pack of lexicon ``name`` of ``lang`` (loaded once), or None when
        there is none and not ``required``; PackError (one line: the lexicon and the
        command that builds it) when ``required``."""
        from ...core.errors import PackError
        from ...core.pack import load_pack

        key = (name or "").strip().upper()
        hit = self.lexicon_folders.get(key) if key else None
        if hit is None or hit[0] != lang:
            if not required:
                return None
            if hit is not None:
                raise PackError(f"lexicon: {name} is a {hit[0]} pack, not {lang}; choose lang {hit[0]}")
            from ...core.pack import lexicon_root

            lexicon_root(name, lang)  # raises the one-line error with the command that builds it
            raise PackError(f"lexicon: {name}: no {lang} pack of it is served here; restart heuri serve to offer it")
        with self._lexicon_lock:
            if key not in self._lexicon_packs:
                self._lexicon_packs[key] = load_pack(hit[1])
            return self._lexicon_packs[key]

    def lexicons(self, lang: str) -> list[dict]:
        """The lexicons served for ``lang``: ``[{name, default}]``, the default pack's first."""
        out = [{"name": self.packs[lang].spec.lexicon, "default": True}]
        for name, (code, folder) in sorted(self.lexicon_folders.items()):
            if code == lang and Path(folder).resolve() != Path(self.packs[lang].root).resolve():
                out.append({"name": name, "default": False})
        return out

    def _evaluator(self, pack, engine: str, **opts):
        """An evaluator of the pool (a context manager) for ``pack``: evaluators keep
        per-decision state, so one is used by one thread at a time."""
        from ...eval.evaluate import make_evaluator

        key = (str(pack.root), engine, tuple(sorted(opts.items())))

        def make():
            ev = make_evaluator(pack, engine, **opts)
            ev.board_deltas = self._deltas
            return ev

        return self._evaluators.use(key, make)

    @staticmethod
    def _position_of(pack, cgp: str):
        from ...core.cgp import parse_cgp
        from ...core.game import Position

        if not cgp.strip():
            parse_cgp(cgp, pack.spec)  # the CgpError that says what a CGP holds
        return Position.from_cgp(cgp, pack.spec)

    def _position(self, req: dict):
        pack = self.pack(req)
        return pack, self._position_of(pack, _text(req, "cgp"))

    def _shared_position(self, req: dict):
        """:meth:`_position` through the parsed-position cache, for the calls that only
        read the position (``moves``, ``best``)."""
        pack = self.pack(req)
        cgp = _text(req, "cgp")
        key = (str(pack.root), cgp)
        pos = self._positions.get(key)
        if pos is None:
            pos = self._position_of(pack, cgp)
            self._positions.put(key, pos)
        return pack, pos

    def _answer_key(self, call: str, req: dict, top: int):
        """The answer cache's key of a checked request (None: not kept, too many rows):
        every field as given, so that the same request answers the same. The fields are
        written as JSON text: the key is made before the position is checked, and a field of
        the wrong type (a list, an object) must reach the check, not fail to hash."""
        if top > CACHED_ROWS:
            return None
        return (call, json.dumps(req, sort_keys=True, ensure_ascii=False, default=repr))

    @staticmethod
    def _warning(req: dict, pack) -> dict:
        """The answer's ``warning`` (None or a sentence): the CGP names a word list other
        than the pack's (which pack answered, with which word list, when no ``lang`` chose
        it); ``warning_params`` (None or ``{named, pack, words, chosen}``: the lexicon the
        CGP names, the pack's language code and word list, whether a ``lang`` or
        ``lexicon`` chose the pack), for the page to say it in its own language."""
        from ...core.cgp import cgp_lexicon, lexicon_warning, other_lexicon

        w = lexicon_warning(req["cgp"], pack.spec)
        if not w:
            return {"warning": None, "warning_params": None}
        chosen = bool(req.get("lang") or req.get("lexicon"))
        if not chosen:
            w += " (no lang given, and no pack here knows that word list: give lang to choose)"
        params = {"named": other_lexicon(cgp_lexicon(req["cgp"]), pack.spec), "pack": pack.spec.code,
                  "words": pack.spec.lexicon, "chosen": chosen}
        return {"warning": w, "warning_params": params}

    # -- position view ----------------------------------------------------------------------
    def position(self, req: dict) -> dict:
        """``{lang, cgp}`` → ``{lang, cgp, svg, grid, rack, scores, bag, unseen, lanes,
        lane_squares, warning, warning_params}``: ``cgp`` written back canonically, ``svg`` the board, ``grid`` (N × N)
        each square's CGP token ('' empty, ``[CH]``, lower case a blank), ``unseen``
        ``[[tile, count]]`` of the tiles the player to move cannot see, ``lanes``
        ``[[row, col, across, length]]`` (0-based) where a bingo can land and
        ``lane_squares`` ``[[row, col]]`` their empty squares; ``warning``: see :meth:`moves`."""
        from ...formats.render import board_svg
        from ...core.tiletext import format_spelling

        _fields(req, ("lang", "lexicon", "cgp"), "position")
        pack, pos = self._position(req)
        spec = pack.spec
        b = pos.board
        grid = [["" if b.letters[r, c] < 0 else format_spelling(spec.tiles[b.letters[r, c]], bool(b.blanks[r, c]))
                 for c in range(b.size)] for r in range(b.size)]
        unseen = pos.unseen()
        return {"lang": spec.code, "lexicon": spec.lexicon, "cgp": pos.cgp(), "svg": board_svg(b, label="position"),
                "grid": grid,
                "rack": pos.rack_text(), "scores": list(pos.scores), "bag": pos.bag_size,
                "unseen": [[("?" if t == spec.blank else format_spelling(spec.tiles[t])), int(unseen[t])]
                           for t in range(spec.n_kinds) if unseen[t]],
                **_lanes(pack, b), **self._warning(req, pack)}

    def moves(self, req: dict) -> dict:
        """``{lang, cgp, top, coords}`` → ``{lang, count, moves: [{move, word, score,
        tiles_played, leave}], warning, warning_params}``: the rows of ``heuri moves --json`` (``move`` GCG,
        ``word`` as people read it in ``coords``; best score first, the generator's
        order on ties), the first ``top`` (default all, at most :data:`MAX_ROWS`);
        ``warning`` (None or a sentence): the CGP's ``lex`` names a word list other than
        the answering pack's (:func:`heuri.cgp.lexicon_warning`)."""
        from ...core.move import Move, format_rack
        from ...core.movegen import leaves

        _fields(req, ("lang", "lexicon", "cgp", "top", "coords"), "moves")
        top = _int(req, "top", MAX_ROWS, 1, MAX_ROWS)
        coords = _coords(req)
        key = self._answer_key("moves", req, top)
        out = self._answers.get(key) if key else None
        if out is not None:
            return dict(out)
        pack, pos = self._shared_position(req)
        spec = pack.spec
        moves = pos.moves(pack)
        order = np.argsort(-moves["score"].astype(np.int64), kind="stable")[:top]
        lv = leaves(pos.rack, moves[order]) if len(order) else np.zeros((0, spec.n_kinds), np.uint8)
        rows = []
        for k, i in enumerate(order):
            leave = format_rack([t for t in range(spec.n_kinds) for _ in range(int(lv[k, t]))], spec)
            m = Move.from_record(moves[i], spec)
            rows.append({"move": m.gcg(spec), "word": _word(m, spec, pos.board, coords), "score": int(moves[i]["score"]),
                         "tiles_played": int(moves[i]["n_tiles"]), "leave": leave})
        out = {"lang": spec.code, "lexicon": spec.lexicon, "count": int(len(moves)), "moves": rows,
               **self._warning(req, pack)}
        if key:
            self._answers.put(key, out)
        return dict(out)

    def best(self, req: dict) -> dict:
        """``{lang, cgp, engine, top, k, top_n, exact, coords}`` → ``{lang, engine, count, rows: [{move,
        word, score, bingo_expectation, bingo_probability, equity, leave, fish}], warning, warning_params}``: the ranking of ``heuri best --json`` (the
        same evaluator, options and rows; default :data:`heuri.evaluate.DEFAULT_ENGINE`,
        top 10); ``k`` from :data:`K_RANGE`; ``warning`` as :meth:`moves`."""
        from ...eval.evaluate import engine_options

        _fields(req, ("lang", "lexicon", "cgp", "engine", "top", "k", "top_n", "exact", "coords"), "best")
        coords = _coords(req)
        engine = _choice(req, "engine", ENGINES, DEFAULT_ENGINE)
        top = _int(req, "top", 10, 1, MAX_ROWS)
        k = _num(req, "k", *K_RANGE)
        top_n = _int(req, "top_n", 20, 1, 10_000) if req.get("top_n") is not None else None
        opts = engine_options(engine, k, top_n, _bool(req, "exact"))
        key = self._answer_key("best", req, top)
        out = self._answers.get(key) if key else None
        if out is not None:
            return dict(out)
        pack, pos = self._shared_position(req)
        with self._evaluator(pack, engine, **opts) as ev:
            ranking = ev.rank(pos)
            rows = ranking.rows(pack.spec, top, board=pos.board, coords=coords)
        out = {"lang": pack.spec.code, "lexicon": pack.spec.lexicon, "engine": engine, "count": len(ranking),
               "rows": rows,
               **self._warning(req, pack)}
        if key:
            self._answers.put(key, out)
        return dict(out)

    def think(self, req: dict) -> dict:
        """``{lang, cgp, seconds | iterations, candidates, rollout, coords}`` → ``{lang, lexicon,
        seconds, rollouts, stopped_by, rows: [{move, word, static, mean, stderr, rollouts, alive}],
        warning, warning_params}``: "think longer", the simulation of ``heuri best --think``
        (:class:`heuri.search.simulation.Simulator`, one thread; ``rollout`` ``full``, the
        default, or ``fast``: its ``table``) over
        heuri5's best ``candidates`` moves (default 8, 2 to 20) for ``seconds`` (0.1 to
        :data:`MAX_THINK_S`, default 2) or ``iterations`` rollouts (1 to 10,000: the same race
        on any machine); rows as the race ranks them, the moves still in it first; ``static``
        heuri5's equity, ``mean`` and ``stderr`` the rollouts' points. At most
        :data:`THINKING` races run at once (another is a 429); an empty bag is refused (the
        endgame answers)."""
        from ...core.move import Move
        from ...search.simulation import Simulator

        _fields(req, ("lang", "lexicon", "cgp", "seconds", "iterations", "candidates", "rollout", "coords"), "think")
        rollout = _choice(req, "rollout", ("full", "fast"), "full")
        coords = _coords(req)
        seconds = _num(req, "seconds", 0.1, MAX_THINK_S)
        iterations = _int(req, "iterations", None, 1, 10_000)
        if seconds is not None and iterations is not None:
            raise HeuriError("think: give seconds or iterations, not both")
        if seconds is None and iterations is None:
            seconds = 2.0
        candidates = _int(req, "candidates", 8, 2, 20)
        pack, pos = self._shared_position(req)
        spec = pack.spec
        if pos.bag_size == 0:
            raise HeuriError("think: the bag is empty; the endgame search answers this position exactly "
                             "(heuri endgame --cgp ...)")
        if not self._thinking.acquire(blocking=False):
            raise ApiError("heuri is already thinking about a position; ask again when it has answered.", 429, "busy")
        try:
            sim = Simulator(pack, candidates=candidates, seed=0, table=rollout == "fast")
            res = sim.simulate(pos, seconds=seconds, iterations=iterations)
        finally:
            self._thinking.release()
        rows = []
        for c in res.candidates:
            m = Move.from_record(c.record, spec)
            rows.append({"move": m.gcg(spec), "word": _word(m, spec, pos.board, coords),
                         "static": round(c.static, 2), "mean": round(c.mean, 2) if c.values else None,
                         "stderr": round(c.stderr, 2) if c.n > 1 else None, "rollouts": c.n, "alive": c.alive})
        return {"lang": spec.code, "lexicon": spec.lexicon, "seconds": round(res.seconds, 2),
                "rollouts": res.rollouts, "stopped_by": res.stopped_by, "rows": rows, **self._warning(req, pack)}

    def explain(self, req: dict) -> dict:
        """``{lang, cgp, engine, top, k, top_n, exact, move}`` → ``{lang, engine, count, terms,
        why_not, legend, warning, warning_params}``: each of the first ``top`` moves of :meth:`best`'s ranking
        (the same evaluator and options) as its named terms (``terms``: a list of
        :meth:`heuri.eval.explain.MoveTerms.as_dict`, points, adding up to ``equity``, with
        ``word``, the move as people read it, ``8G CA(RR)OÑE``);
        with ``move`` (GCG text, ``8D VERBE``, ``-V``), ``why_not`` is ``{choice, move,
        difference}``: that move's terms, the engine's choice's, and choice − move per term
        (a placement the engine did not re-value with the board after it is re-valued for
        the answer); otherwise None. ``legend``: ``[[key, heading, sentence]]``
        (:data:`heuri.eval.explain.TERMS`, English). A move that is not legal here is a 400."""
        from ...eval.evaluate import engine_options
        from ...eval.explain import TERMS, explain_ranking, find_move, move_terms

        _fields(req, ("lang", "lexicon", "cgp", "engine", "top", "k", "top_n", "exact", "move"), "explain")
        engine = _choice(req, "engine", ENGINES, DEFAULT_ENGINE)
        top = _int(req, "top", 10, 1, MAX_ROWS)
        k = _num(req, "k", *K_RANGE)
        top_n = _int(req, "top_n", 20, 1, 10_000) if req.get("top_n") is not None else None
        opts = engine_options(engine, k, top_n, _bool(req, "exact"))
        move = _text(req, "move", required=False, limit=200) if req.get("move") not in (None, "") else None
        pack, pos = self._position(req)
        spec = pack.spec
        with self._evaluator(pack, engine, **opts) as ev:
            ranking = ev.rank(pos)
        from ...core.move import Move

        def with_word(terms, i: int) -> dict:
            # the move as people read it beside its GCG text (the panel shows the word)
            return {**terms.as_dict(), "word": _word(Move.from_record(ranking.moves[i], spec), spec, pos.board)}

        terms = [with_word(t, i) for i, t in enumerate(explain_ranking(ranking, spec, top))]
        why = None
        if move is not None:
            i = find_move(ranking, spec, move, pos.board)
            if not move_terms(ranking, spec, i).lanes_known:
                with self._evaluator(pack, engine, **{**opts, "exact": True}) as ev:
                    ranking = ev.rank(pos)
                i = find_move(ranking, spec, move, pos.board)
            best, other = move_terms(ranking, spec, 0), move_terms(ranking, spec, i)
            why = {"choice": with_word(best, 0), "move": with_word(other, i),
                   "difference": {key: round(x, 4) for key, x in best.difference(other).items()}}
        return {"lang": spec.code, "lexicon": spec.lexicon, "engine": engine, "count": len(ranking),
                "terms": terms, "why_not": why, "legend": [list(x) for x in TERMS],
                **self._warning(req, pack)}

    def preview(self, req: dict) -> dict:
        """``{lang, cgp, move, coords}`` → the move (GCG, or as people write it: ``8G CA(RR)OÑE``,
        in ``coords``) checked for the player to move (board, rack and
        word list) and drawn: ``{move, word, score, words, svg, lanes, lane_squares, cgp_after,
        leave, warning, warning_params}`` (``lanes``: where a bingo can land after it, the opponent's next turn; ``cgp_after``:
        the board after it, the same player to move with the leave: the page's "apply"); an illegal
        move raises MoveError saying why (a phony names the word)."""
        from ...core.move import Placement
        from ...formats.render import board_svg

        from ...formats.render import parse_move_text

        _fields(req, ("lang", "lexicon", "cgp", "move", "coords"), "preview")
        coords = _coords(req)
        pack, pos = self._position(req)
        spec = pack.spec
        typed = _text(req, "move")
        with _as_typed(typed):
            m = parse_move_text(typed, spec, pos.board, coords)
            score = pos.check(m, pack.words)
        words = []
        if isinstance(m, Placement):
            m = pos.board.canonical(m)
            words = [w for w, _ in pos.board.words(m)]
        after = pos.after(m, ())
        return {"move": m.gcg(spec), "word": _word(m, spec, pos.board, coords), "lexicon": spec.lexicon,
                "score": score, "words": words,
                "leave": after.rack_text(pos.to_move),
                "svg": board_svg(after.board, played=m, label="preview"), **_lanes(pack, after.board),
                "cgp_after": dataclasses.replace(after, to_move=pos.to_move).cgp(),
                **self._warning(req, pack)}

    # -- game view --------------------------------------------------------------------------
    def game(self, req: dict) -> dict:
        """``{gcg (text) | path, lang, lexicon, analyze, engine, analysis}`` → the record turn
        by turn: ``{lang, lexicon, record_lexicon, off_list, players, final, warnings,
        warning_parts, analysed, turns: [...]}`` (``warning_parts``: for each warning its
        ``{line, kind, params}``, or None, for the page to say it in its language; ``lexicon``: the word list that answered, the record's
        ``#lexicon`` when its pack is built, else ``lexicon`` or the language's default;
        ``off_list``: how many plays form words it does not hold); each turn ``{n, line,
        nick, seat, kind, rack, move, score, total, svg, cgp, off_list, off_words}`` (the
        board after the event, the move played outlined; ``cgp`` the position before it;
        ``off_list`` true when the play is not in the lexicon) and, with ``analyze``,
        :mod:`heuri.analyze`'s ``equity_lost``, ``best``, ``best_v``, ``v``, ``rank`` (the
        engine's best dashed on the board); ``analysis`` (a ``heuri analyze --out`` folder
        or its ``turns.parquet``): the same figures read from there, for the game of that
        analysis with this record's moves. Refuses (422) a record of more than
        :data:`MAX_GCG_EVENTS` events. ``path`` and ``analysis`` name files under the
        records folder only (:func:`read_record_file`)."""
        from ...formats.gcg import read_gcg, replay
        from ...formats.render import board_svg

        _fields(req, ("gcg", "name", "path", "lang", "lexicon", "analyze", "engine", "analysis", "coords"), "game")
        coords = _coords(req)
        analysed = _bool(req, "analyze")
        engine = _choice(req, "engine", ENGINES, DEFAULT_ENGINE)  # heuri analyze's default
        where = _text(req, "analysis", required=False)
        lang = req.get("lang")
        if lang is not None and not isinstance(lang, str):
            raise HeuriError(f"lang: {_show(lang)} is not a string")
        text, name = self._gcg_source(req)
        if text.count("\n>") + text.startswith(">") > MAX_GCG_EVENTS:
            raise ApiError(f"{name}: more than {MAX_GCG_EVENTS} moves; a game record this long is refused "
                           f"(a real game has 20 to 60)", 422, "too-many-moves", name=name, size=MAX_GCG_EVENTS)
        game = read_gcg(text, path=name)  # the uploaded text: read_gcg never opens a str as a path
        if len(game.events) > MAX_GCG_EVENTS:
            raise ApiError(f"{name}: {len(game.events)} moves; at most {MAX_GCG_EVENTS} are read", 422,
                           "too-many-moves", name=name, size=MAX_GCG_EVENTS)
        lang = lang or game.guess_language()
        if not lang:
            raise KindedError(f"{name}: cannot tell the language (no #lexicon or #tile-distribution that names "
                              f"it); choose one", "unknown-language", name=name)
        pack = self.pack({"lang": lang, "lexicon": req.get("lexicon")}, record_lexicon=game.lexicon)
        spec = pack.spec
        from ...core.cgp import named_lexicon_warning, other_lexicon

        other = named_lexicon_warning(game.lexicon, spec)
        out = {"lang": spec.code, "lexicon": spec.lexicon, "record_lexicon": game.lexicon or "", "name": name,
               "players": [list(p) for p in game.players], "analysed": analysed,
               # the first warning's parts, for the page to say it in its own language
               "lexicon_warning": {"named": other_lexicon(game.lexicon, spec), "pack": spec.code,
                                   "words": spec.lexicon} if other else None}
        if analysed:
            with self._analyzer(engine) as an:
                g = an.analyze(game, lang=spec.code, game_id=Path(name).stem, pack=pack)
            out["engine"] = engine
            out["warnings"] = [f"line {ln}: {msg}" if ln else msg for ln, msg in g.warnings]
            out["warning_parts"] = [_note_parts(ln, msg) for ln, msg in g.warnings]
            out["final"] = list(g.final)
            out["off_list"] = g.off_list
            keep = ANALYSIS_KEYS + ("off_list", "off_words")
            out["turns"] = [{"n": i + 1, "line": r["line"], "nick": r["player"], "seat": r["seat"],
                             "kind": r["kind"], "rack": r["rack"], "move": r["move"], "score": r["points"],
                             "total": r["score"], "cgp": r["cgp"],
                             "svg": board_svg(v.board, played=v.played, second=v.best, label=f"turn {i + 1}"),
                             **{k: r[k] for k in keep}, **_turn_words(r, v, spec, coords)}
                            for i, (r, v) in enumerate(zip(g.rows, g.views))]
            return out
        r = replay(game, spec, end_rule="auto", words=pack.words)
        off = {line: words for line, _, words in r.off_list}
        turns, prevs, played = [], [], []
        before = None
        scoreless = 0
        for st in r.steps:
            e = st.event
            if e.kind not in ("play", "exchange", "pass"):
                if turns and e.kind in ("withdrawn", "challenge", "end_points", "end_penalty", "time"):
                    turns[-1]["after"].append(e.text())
                    turns[-1]["total"] = st.recorded_totals[turns[-1]["seat"]]
                    turns[-1]["totals"] = list(st.recorded_totals)
                    scoreless = scoreless + 1 if e.kind == "withdrawn" else 0 if e.kind == "challenge" else scoreless
                    turns[-1]["svg"] = board_svg(st.board, label=f"turn {len(turns)}")
                before = st.board
                continue
            from ...core.move import Move, Pass, Placement

            prev = before if before is not None else r.board_at(0)
            m = Move.from_gcg(e.move, prev, spec) if e.kind != "pass" else None
            if isinstance(m, Placement):
                m = prev.canonical(m)
            tot = turns[-1]["totals"] if turns else [0] * len(game.players)
            turns.append({"n": len(turns) + 1, "line": e.line, "nick": e.nick, "seat": e.player, "kind": e.kind,
                          "rack": e.rack, "move": e.move, "score": e.score, "total": st.recorded_totals[e.player],
                          "cgp": _cgp_before(prev, e.rack, spec, tot, e.player, scoreless),
                          "totals": list(st.recorded_totals), "off_list": e.line in off,
                          "off_words": ", ".join(off.get(e.line, [])),
                          "svg": board_svg(st.board, played=m, label=f"turn {len(turns) + 1}"), "after": [],
                          "word": _word(m if m is not None else Pass(), spec, prev, coords)})
            prevs.append(prev)
            played.append((st.board, m))
            before = st.board
            scoreless = 0 if e.score != 0 else scoreless + 1
        out["off_list"] = len(r.off_list)
        out["warnings"] = ([other] if other else []) + [f"line {ln}: {msg}" for ln, msg in r.warnings] + [
            f"line {m.line}: {m.nick} {m.event}: recorded {m.recorded_score}, the engine scores {m.engine_score}"
            for m in r.mismatches]
        out["warning_parts"] = ([None] if other else []) + [_note_parts(ln, msg) for ln, msg in r.warnings] + [
            {"line": m.line, "kind": "gcg-score", "params": {"nick": m.nick, "move": m.event,
                                                             "recorded": m.recorded_score, "engine": m.engine_score}}
            for m in r.mismatches]
        out["final"] = list(r.steps[-1].recorded_totals) if r.steps else [0] * len(game.players)
        out["turns"] = turns
        if where:
            data, shown = read_record_file(self.records, where, "analysis", None, MAX_ANALYSIS_BYTES,
                                           default_name="turns.parquet")
            rows = _analysis_rows(data, shown, [t["move"] for t in turns], Path(name).name)
            out["analysed"] = True
            out["engine"] = rows[0]["engine"] if rows else ""
            out["analysis"] = shown
            for t, row, prev, (after, m) in zip(turns, rows, prevs, played):
                t.update({k: row[k] for k in ANALYSIS_KEYS})
                t["best_word"] = _text_word(t.get("best"), prev, spec, coords)
                if row.get("sim_mean") is not None:
                    t.update({k: row[k] for k in SIM_KEYS})
                    t["sim_best_word"] = _text_word(t["sim_best"], prev, spec, coords)
                if t["off_list"]:  # not in the lexicon that answered: no rank, no equity lost
                    t.update(equity_lost=None, rank=None)
                if t.get("best") and t["best"] != t["move"] and not t["after"]:
                    from ...core.move import Move

                    best = Move.from_gcg(t["best"], prev, spec)
                    t["svg"] = board_svg(after, played=m, second=best, label=f"turn {t['n']}")
        return out

    def _gcg_source(self, req: dict) -> tuple[str, str]:
        """(text, name) of the record: ``gcg`` (its text, uploaded; never taken as a path)
        or ``path`` (a ``.gcg`` file under the records folder)."""
        if req.get("gcg") is not None:
            if req.get("path") is not None:
                raise HeuriError("give the record once: gcg (its text) or path, not both")
            name = _text(req, "name", required=False, limit=255) or "upload.gcg"
            return _text(req, "gcg", limit=None), Path(name).name or "upload.gcg"
        path = _text(req, "path", required=False)
        if not path:
            raise HeuriError("give the record: gcg (its text) or path (a .gcg file under the records folder)")
        from ...formats.gcg import decode_record

        data, shown = read_record_file(self.records, path, "path", ".gcg", MAX_RECORD_BYTES)
        return decode_record(data, shown), shown

    def _analyzer(self, engine: str):
        from ..analyze import Analyzer

        return self._analyzers.use(engine, lambda: Analyzer(engine, packs=self.packs))

    # -- play view --------------------------------------------------------------------------
    def play_new(self, req: dict) -> dict:
        """``{lang, engine, seed, first, name}`` → a new game against heuri (``first``: ``"you"``
        (default) or ``"heuri"``, who plays first; ``seed``: the bag, default random;
        ``name``: yours, for the scoreboard and the record's ``#player`` line, default
        "You", see :func:`_player_name`) and its state (:meth:`play_state`). heuri's first move is made at once when it starts.
        Raises ApiError 429 when :attr:`max_games` games are in progress (none is dropped
        for a new one)."""
        from ...core.game import Game
        from ...play.players import check_engine

        _fields(req, ("lang", "lexicon", "engine", "seed", "first", "name"), "play")
        name = _player_name(req, "name")
        pack = self.pack(req)
        engine = _choice(req, "engine", ENGINES, DEFAULT_ENGINE)
        check_engine(engine)
        seed = _int(req, "seed", None, 0, 2**63 - 1)
        if seed is None:
            seed = secrets.randbelow(2**63)
        you = 0 if _choice(req, "first", ("you", "heuri"), "you") == "you" else 1
        g = _PlayGame(Game(pack.spec, seed=seed, words=pack.words), pack, engine, seed, you, self.clock())
        g.name = name
        gid = secrets.token_hex(16)
        with self._games_lock:
            self._expire()
            if len(self._games) >= self.max_games:
                raise ApiError(f"{len(self._games)} games are in progress, the most this server keeps; a finished "
                               f"game expires {FINISHED_S // 60} minutes after its last move, an idle one after "
                               f"{IDLE_S // 3600} hours", 429, "too-many-games")
            self._games[gid] = g
        with g.lock:
            self._heuri_turns(g)
            return g.state(gid, self.clock())

    def _expire(self) -> None:
        """Drop the games past their time (the caller holds the games' lock): finished
        ones :data:`FINISHED_S` after their last move, others :data:`IDLE_S` after."""
        now = self.clock()
        for gid in [gid for gid, g in self._games.items() if g.expired(now)]:
            del self._games[gid]

    def _heuri_turns(self, g: "_PlayGame") -> None:
        """heuri plays while it is its turn (its player from the pool)."""
        from ...play.players import make_player

        if g.game.over or g.game.position.to_move == g.you:
            return
        with self._players.use((str(g.pack.root), g.engine), lambda: make_player(g.engine, g.pack)) as player:
            g.heuri_turns(player)

    def _game(self, gid) -> "_PlayGame":
        with self._games_lock:
            self._expire()
            g = self._games.get(gid) if isinstance(gid, str) else None
        if g is None:
            raise ApiError(f"game {_show(gid)}: no such game (a finished game is kept {FINISHED_S // 60} minutes, "
                           f"an idle one {IDLE_S // 3600} hours, none after the server stops; start a new one)",
                           404, "no-game")
        return g

    def play_state(self, gid: str) -> dict:
        """The state of a game against heuri: ``{id, lang, engine, you, turn, to_move,
        over, scores, rack, bag, unseen, svg, history: [{nick, move, score, total, rack,
        kind, review}], names, review, can_exchange, result}`` (``you``: your seat; ``turn``:
        the moves played so far, which your next move must repeat; ``history``: the moves,
        then, once the game is over, the end-of-game rows of the record (``kind``
        ``end_points``/``end_penalty``, ``move`` the rack in parentheses), so that the last
        totals are the scores; ``review``: on your moves, what heuri would have played
        (:meth:`Service._review`), and the top-level ``review`` is your last move's;
        ``names``: ``{you, heuri}`` as the scoreboard shows them (``you`` None when you gave
        no name: the page says "you" in its own language; the GCG says "You"); ``unseen``: the bag and heuri's rack as you see
        them, ``[[tile, count]]``). Neither the bag's seed nor heuri's rack is in it before
        the game is over (heuri's exchanges show their tile count only)."""
        g = self._game(gid)
        with g.lock:
            g.touched = self.clock()
            return g.state(gid, g.touched)

    def play_move(self, gid: str, req: dict) -> dict:
        """``{move, turn}`` (GCG: ``8D WORD``, ``-ABC`` to exchange, ``-`` to pass; ``turn``:
        the state's ``turn`` the move answers) played for you, checked against the board,
        your rack and the word list (MoveError saying why it is refused: the game is then
        unchanged), reviewed by heuri's engine (:meth:`_review`), then heuri's reply; the
        new state. A ``turn`` that is not the game's
        (a stale page, a move sent twice) raises ApiError 409 and changes nothing."""
        from ...formats.render import parse_move_text

        _fields(req, ("move", "turn", "coords"), "move")
        move = _text(req, "move", limit=64)
        coords = _coords(req)
        turn = _int(req, "turn", None, 0, 10_000)
        if turn is None:
            raise HeuriError("turn: missing; give the state's turn (the moves played so far) with the move")
        g = self._game(gid)
        with g.lock:
            if g.game.over:
                raise HeuriError("the game is over; start a new one")
            now = len(g.game.history)
            if turn != now:
                raise ApiError(f"turn: {turn}: the game is at turn {now}; this move answers another state "
                               f"(sent twice, or from a stale page): reload the game", 409, "stale-turn")
            if g.game.position.to_move != g.you:
                raise HeuriError("it is heuri's turn")
            with _as_typed(move):
                g.game.play(parse_move_text(move, g.pack.spec, g.game.position.board, coords))
            g.touched = self.clock()
            g.reviews[len(g.game.history) - 1] = self._review(g, *g.game.history[-1])
            self._heuri_turns(g)
            g.touched = self.clock()
            return g.state(gid, g.touched)

    def _review(self, g: "_PlayGame", pos, move, score: int) -> dict:
        """What heuri's engine would have played in your place: ``{best, best_word, best_score,
        best_equity, score, equity, equity_lost, points_lost}`` for ``move`` played from
        ``pos`` (your turn) for ``score`` points. The ranking sees what you saw: your rack and the unseen tiles
        (the bag and heuri's rack together, as :meth:`play_state`'s ``unseen``), so it is the
        page's hint for that turn. ``equity_lost`` = v(best) − v(yours) ≥ 0 and
        ``points_lost`` = j(best) − j(yours) (negative when yours scored more), in points."""
        from ...core.move import Placement
        from ...core.movegen import record_index
        from ..analyze import move_record

        spec = g.pack.spec
        if isinstance(move, Placement):
            move = pos.board.canonical(move)
        with self._evaluator(g.pack, g.engine) as ev:
            rk = ev.rank(pos)
            rec = move_record(move, spec, score=score)
            k = record_index(rk.moves, rec)
            if k is not None and (k == 0 or rk.revalued[k]):
                mine = rk.v[k]
            else:  # valued alone, with the board after it, as the engine values a candidate
                mine = ev.rank(pos, moves=rec).v[0]
        best = rk.rows(spec, 1, board=pos.board)[0]
        lost = 0.0 if k == 0 else max(0.0, float(rk.v[0]) - float(mine))
        return {"best": best["move"], "best_word": best["word"], "best_score": best["score"], "best_equity": best["equity"],
                "score": int(score), "equity": round(float(mine), 4), "equity_lost": round(lost, 4),
                "points_lost": best["score"] - score}

    def play_infer(self, gid: str, coords: str = "standard") -> dict:
        """What heuri may hold: the posterior over the tiles heuri kept with its last move
        (:func:`heuri.search.inference.infer_from_position`, heuri2 as the model of the
        player, τ = 6 points, at most a second of sampling), read from what you saw: the
        board before that move, its tiles (an exchange by its count only) and your rack;
        heuri's real rack is not used. ``{move, word, leave_size, exact, samples, leaves:
        [{leave, prob, prior}], tiles: [{tile, expected, prior}]}``: the ten likeliest
        leaves, and the tiles whose expected count in the leave moved most from the prior.
        heuri having not moved yet is a 409."""
        from ...core.game import tile_ids
        from ...core.move import Exchange, Pass
        from ...search.inference import infer_from_position

        def leave_text(counts) -> str:  # rack text, ``?`` a blank; ``-`` for nothing kept
            return spec.format_tiles(tile_ids(counts), blank="?") or "-"

        g = self._game(gid)
        with g.lock:
            g.touched = self.clock()
            last = next(((pos, mv) for pos, mv, _ in reversed(g.game.history) if pos.to_move != g.you), None)
            pack = g.pack
        if last is None:
            raise ApiError("heuri has not moved yet in this game: ask after its first move", 409, "no-move")
        pos, mv = last
        spec = pack.spec
        if isinstance(mv, Exchange):  # what you saw: how many tiles, not which
            mv, word = Exchange(None, mv.count), f"-{mv.count}"
        elif isinstance(mv, Pass):
            word = "pass"
        else:
            word = _word(mv, spec, pos.board, coords)
        with self._evaluator(pack, "heuri2") as ev:
            inf = infer_from_position(ev, pos, mv, time_limit=1.0)
        post_x, prior_x = inf.tile_expectation()
        eye = np.eye(spec.n_kinds, dtype=np.int64)
        order = np.argsort(-np.abs(post_x - prior_x), kind="stable")
        tiles = [{"tile": leave_text(eye[t]), "expected": round(float(post_x[t]), 3),
                  "prior": round(float(prior_x[t]), 3)}
                 for t in order[:8] if post_x[t] > 0 or prior_x[t] > 0]
        leaves = [{"leave": leave_text(inf.leaves[i]), "prob": round(float(inf.posterior[i]), 4),
                   "prior": round(float(inf.prior[i]), 4)} for i in range(min(10, len(inf.leaves)))]
        return {"move": word if isinstance(mv, Exchange) else mv.gcg(spec), "word": word,
                "leave_size": int(inf.leave_size), "exact": bool(inf.exact), "samples": int(inf.samples),
                "leaves": leaves, "tiles": tiles}

    def play_gcg(self, gid: str) -> str:
        """The game so far as a GCG record (text); before the game is over heuri's racks
        are left out and its exchanges written as a count (``-3``)."""
        from ...formats.gcg import GcgEvent, game_to_gcg, write_gcg

        g = self._game(gid)
        with g.lock:
            g.touched = self.clock()
            nicks = ("you", "heuri") if g.you == 0 else ("heuri", "you")
            names = tuple((g.name or "You") if n == "you" else f"heuri ({g.engine})" for n in nicks)
            over = g.game.over
            rec = game_to_gcg(g.game, nicks=nicks, names=names, lexicon=g.pack.spec.lexicon,
                              title=f"heuri serve, seed {g.seed}" if over else "heuri serve")
            if not over:
                for i, item in enumerate(rec.items):
                    if isinstance(item, GcgEvent) and item.nick == "heuri":
                        move = item.move
                        if item.kind == "exchange":
                            move = f"-{_exchange_count(item.move, g.pack.spec)}"
                        rec.items[i] = dataclasses.replace(item, rack="", move=move)
            return write_gcg(rec)


#: the longest player's name taken (characters)
MAX_NAME = 40


def _player_name(req: dict, field: str) -> str | None:
    """Field ``field``: a player's name for the scoreboard and the GCG ``#player`` line
    (None when none is given: the page says "you" in its language, the GCG "You"): at most :data:`MAX_NAME` characters, letters, digits, spaces and
    common punctuation; no line break or control character (a GCG line holds it).
    Raises HeuriError naming the field."""
    import unicodedata

    v = req.get(field)
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    if not isinstance(v, str):
        raise HeuriError(f"{field}: {_show(v)} is not a string")
    name = " ".join(v.split())
    if len(name) > MAX_NAME:
        raise KindedError(f"{field}: {len(name)} characters; a name has at most {MAX_NAME}", "bad-name",
                          field=field, form="long", count=len(name), size=MAX_NAME)
    bad = next((ch for ch in v if unicodedata.category(ch)[0] == "C" and ch not in " \t"), None)
    if bad is not None:
        raise KindedError(f"{field}: {_show(v)} holds a control character (U+{ord(bad):04X}); type letters, digits "
                          f"and spaces", "bad-name", field=field, form="control")
    if not any(ch.isalnum() for ch in name):
        raise KindedError(f"{field}: {_show(v)}: a name needs at least one letter or digit", "bad-name",
                          field=field, form="empty")
    return name


def _text_word(text, board, spec, coords: str) -> str:
    """A GCG move text (as a record or an analysis stores it) as people read it; '' for
    none; the text as it is when it does not read on ``board``."""
    from ...core.errors import MoveError
    from ...core.move import Move

    if not text:
        return ""
    try:
        return _word(Move.from_gcg(text, board, spec), spec, board, coords)
    except MoveError:
        return text


def _turn_words(row: dict, view, spec, coords: str) -> dict:
    """``{word, best_word}`` of an analysed turn: its move and the engine's best as
    people read them, on the board before the turn."""
    return {"word": _text_word(row["move"], view.before, spec, coords),
            "best_word": _text_word(row.get("best"), view.before, spec, coords)}


def _exchange_count(move: str, spec) -> int:
    """Tiles of an exchange's GCG text (``-A[CH]?`` → 3)."""
    from ...core.move import parse_rack

    return len(parse_rack(move[1:], spec))


def _analysis_rows(data: bytes, where: str, moves: list[str], file_name: str) -> list[dict]:
    """The rows of ``heuri analyze``'s ``turns.parquet`` (``data``: its bytes, read from
    ``where`` under the records folder) of the game whose moves are ``moves`` (the record's
    play, exchange and pass lines, in order; of several such games, the one whose record
    has the same file name). Raises ApiError (404 no such game, 422 not such a table)."""
    import io

    import polars as pl

    try:
        df = pl.read_parquet(io.BytesIO(data))
    except Exception:  # a damaged or foreign file: say so, in one line, without its bytes
        raise ApiError(f"analysis {where}: not a table of heuri analyze (cannot read it as parquet)", 422,
                       "bad-analysis") from None
    need = {"game", "path", "turn", "move", "engine", *ANALYSIS_KEYS}
    if not need <= set(df.columns):
        raise ApiError(f"analysis {where}: turns.parquet lacks columns {sorted(need - set(df.columns))}", 422,
                       "bad-analysis")
    found = []
    for (gid,), g in df.sort("turn").group_by(["game"], maintain_order=True):
        if g["move"].to_list() == moves:
            found.append(g)
    if not found:
        raise ApiError(f"analysis {where}: none of its {df['game'].n_unique()} games has this record's moves", 404,
                       "no-game")
    same = [g for g in found if Path(str(g["path"][0])).name == file_name]
    return (same or found)[0].to_dicts()

def _lanes(pack, board) -> dict:
    """``{lanes, lane_squares}`` of a board (see :meth:`Service.position`)."""
    from ...eval.bingo import bingo_lanes

    lanes = bingo_lanes(pack, board.letters)
    sq = set()
    for r, c, across, n in lanes:
        for i in range(n):
            rr, cc = (r, c + i) if across else (r + i, c)
            if board.letters[rr, cc] < 0:
                sq.add((rr, cc))
    return {"lanes": [list(x) for x in lanes], "lane_squares": sorted([list(x) for x in sq])}


def _note_parts(line: int, msg) -> dict | None:
    """A record's warning as the page says it again: ``{line, kind, params}`` of a
    :class:`heuri.core.errors.Note`, None for a plain message (the page shows it as it is)."""
    if not isinstance(msg, Note):
        return None
    return {"line": int(line), "kind": msg.kind, "params": dict(msg.params)}


def _cgp_before(board, rack: str, spec, totals, seat: int, scoreless: int) -> str:
    """CGP of the position a record's turn is played from: the mover first with the
    rack the record gives ('' unknown), the scores before the move."""
    from ...core.cgp import CgpRecord, format_cgp

    ids = tuple(spec.parse_tiles(rack)) if rack else None
    opp = max((t for i, t in enumerate(totals) if i != seat), default=0)
    return format_cgp(CgpRecord(board, (ids, None), (totals[seat], opp), scoreless))


class _PlayGame:
    """One game against heuri: the :class:`heuri.game.Game`, the engine's name (its player
    comes from the service's pool for each turn), your seat, its times (``clock`` seconds)."""

    __slots__ = ("game", "pack", "engine", "seed", "you", "lock", "touched", "endgame", "name", "reviews")

    def __init__(self, game, pack, engine: str, seed: int, you: int, now: float):
        self.game = game
        self.pack = pack
        self.engine = engine
        self.seed = seed
        self.you = you
        self.lock = threading.Lock()
        self.touched = now
        self.endgame = False
        self.name: str | None = None  # None: no name given ("You" in the GCG)
        #: history index of each of your moves → its review (Service._review)
        self.reviews: dict[int, dict] = {}

    def expired(self, now: float) -> bool:
        return now - self.touched > (FINISHED_S if self.game.over else IDLE_S)

    def heuri_turns(self, player) -> None:
        """heuri plays while it is its turn (once, unless you have no move)."""
        g = self.game
        while not g.over and g.position.to_move != self.you:
            move = player.choose(g.position)
            g.play(move)
            self.endgame = bool((getattr(player, "info", {}) or {}).get("endgame"))

    def _end_rows(self, nick) -> list[dict]:
        """The end-of-game rows of the move list, as the record's end lines
        (:func:`heuri.formats.gcg.game_to_gcg`): ``{nick, move: "(RACK)", score, total,
        word, rack: "", kind: "end_points" | "end_penalty", review: None}``; none before the end."""
        from ...formats.gcg import game_to_gcg

        if not self.game.over:
            return []
        rec = game_to_gcg(self.game, nicks=tuple(nick(i) for i in range(len(self.game.position.scores))))
        return [{"nick": e.nick, "move": e.body(), "word": e.body(), "score": e.score, "total": e.total, "rack": "", "kind": e.kind,
                 "review": None}
                for e in rec.events if e.kind in ("end_points", "end_penalty")]

    def state(self, gid: str, now: float) -> dict:
        from ...core.move import Exchange, Placement
        from ...formats.render import board_svg, rack_svg
        from ...core.tiletext import format_spelling

        g = self.game
        spec = g.spec
        p = g.position
        nick = lambda seat: "you" if seat == self.you else "heuri"  # noqa: E731
        hist = []
        for i, (pos, move, pts) in enumerate(g.history):
            mine = pos.to_move == self.you
            text = move.gcg(spec)
            if not mine and not p.over and isinstance(move, Exchange):
                text = f"-{move.n_tiles}"
            hist.append({"nick": nick(pos.to_move), "move": text,
                         "word": _word(move, spec, pos.board) if isinstance(move, Placement) else
                         "pass" if text == "-" else text, "score": pts,
                         "total": pos.scores[pos.to_move] + pts, "rack": pos.rack_text(pos.to_move) if mine else "",
                         "kind": "exchange" if isinstance(move, Exchange) else "play" if isinstance(move, Placement)
                         else "pass",
                         "review": self.reviews.get(i)})
        hist += self._end_rows(nick)
        last = g.history[-1][1] if g.history else None
        unseen = p.unseen(self.you)
        out = {"id": gid, "lang": spec.code, "lexicon": spec.lexicon, "engine": self.engine, "you": self.you,
               "turn": len(g.history),
               "to_move": nick(p.to_move), "over": p.over, "scores": {"you": p.scores[self.you],
                                                                      "heuri": p.scores[1 - self.you]},
               "rack": p.rack_text(self.you), "bag": p.bag_size,
               "rack_svg": rack_svg(spec, np.repeat(np.arange(spec.n_kinds), p.racks[self.you]), label="your rack"),
               "cgp": dataclasses.replace(p, to_move=self.you).cgp(hide_others=True),
               "unseen": [[("?" if t == spec.blank else format_spelling(spec.tiles[t])), int(unseen[t])]
                          for t in range(spec.n_kinds) if unseen[t]],
               "svg": board_svg(p.board, played=last if not isinstance(last, Exchange) else None,
                                label="game board"),
               "history": hist, "names": {"you": self.name, "heuri": "heuri"},
               "review": self.reviews.get(max(self.reviews)) if self.reviews else None, "can_exchange": p.bag_size >= spec.exchange_min_bag, "endgame": self.endgame,
               "result": None, "expires_s": int((FINISHED_S if p.over else IDLE_S) - (now - self.touched))}
        if p.over:
            a, b = p.scores[self.you], p.scores[1 - self.you]
            out["result"] = "you win" if a > b else "heuri wins" if b > a else "a draw"
            out["heuri_rack"] = p.rack_text(1 - self.you)
        return out


# -- the duplicate trainer ------------------------------------------------------------------------
#: the times a turn may be given (seconds): 1, 2 or 3 minutes (3, the clubs' usual, by default)
TURN_SECONDS = (60, 120, 180)
#: a move that reaches the server this long (seconds) after its turn's time is still taken
#: (the page hands in what it holds when its countdown ends; the request takes a moment)
GRACE_S = 5.0


class DuplicateTrainers:
    """The web board's duplicate trainer: master games played alone against the clock, each
    over :func:`heuri.duplicate.master_game` (or a master game's record) and a
    :class:`heuri.trainer.Trainer` (its arbitration, totals and players' sheet), so the
    rules are the duplicate module's.

    A game goes turn by turn: in phase ``"turn"`` the page sees the turn's draw and board,
    and the clock runs (``seconds`` a turn, on the service's clock); a move handed in
    (:meth:`move`) settles it (phase ``"result"``: the top, the move's arbitrated score,
    the running percentage); :meth:`next` starts the next turn, on the board with the top
    played, until the master game ends (``over``). A move reaching the server more than
    :data:`GRACE_S` after the time is not taken (0 points), and a turn whose time ran out
    is settled without a move when the game is next asked for. Nothing of a turn not yet
    started is in any answer (its draw, the bag), nor the seed before the game is over.

    Bounded like the games against heuri: at most ``service.max_games`` at once (a new one
    is refused with 429, none dropped), an idle game expires after :data:`IDLE_S`, a
    finished one :data:`FINISHED_S` after its last move. Thread-safe (a game has its lock)."""

    def __init__(self, service: "Service"):
        self.service = service
        self._games: dict = {}
        self._lock = threading.Lock()

    def new(self, req: dict) -> dict:
        """``{lang, lexicon, seed, master, name, seconds, notation, player}`` → a new game and
        its state (:meth:`state`), turn 1 running. ``seed``: the master game generated
        (default random); ``master``: a master game's GCG record instead (its text, as
        ``heuri duplicate new`` writes it; ``name``: its file name for messages; without
        ``lang`` and ``lexicon``, the record's ``#tile-distribution`` and ``#lexicon`` say
        the language and its lexicon's pack answers when built);
        ``seconds``: one of :data:`TURN_SECONDS` (default 180); ``notation``: ``"gcg"``
        (``8D WORD`` across) or ``"fisf"`` (``H4 WORD`` across) for the moves typed and the
        tops shown; ``player``: the name on the sheet (default ``me``). Raises ApiError 429
        past the games kept; HeuriError for a language without duplicate rules or a record
        that is not a master game."""
        from ..duplicate import DuplicateError, master_from_record, master_game, NOTATIONS
        from ..trainer import Trainer

        _fields(req, ("lang", "lexicon", "seed", "master", "name", "seconds", "notation", "player"), "duplicate")
        seconds = _int(req, "seconds", 180, 1, 3600)
        if seconds not in TURN_SECONDS:
            raise HeuriError(f"seconds: {seconds}: choose one of {', '.join(map(str, TURN_SECONDS))} (1, 2 or 3 "
                             f"minutes a turn)")
        notation = _choice(req, "notation", NOTATIONS, "gcg")
        player = _text(req, "player", required=False, limit=40).strip() or "me"
        if any(not ch.isprintable() for ch in player):
            raise HeuriError(f"player: {_show(player)}: a name of printable characters")
        seed = _int(req, "seed", None, 0, 2**63 - 1)
        if req.get("master") is not None:
            from ...core.errors import GcgError
            from ...formats.gcg import read_gcg

            if seed is not None:
                raise HeuriError("give the master game once: seed (a new one) or master (its record), not both")
            name = Path(_text(req, "name", required=False, limit=255) or "master.gcg").name or "master.gcg"
            text = _text(req, "master", limit=None)
            try:
                record = read_gcg(text, name)
            except GcgError as e:
                raise HeuriError(str(e)) from None
            if len(record.events) > MAX_GCG_EVENTS:
                raise ApiError(f"master: {len(record.events)} moves; at most {MAX_GCG_EVENTS} are taken", 422,
                               "too-long", count=len(record.events), size=MAX_GCG_EVENTS)
            if not req.get("lang") and not req.get("lexicon"):  # the record's language, when it says
                guess = record.guess_language()
                if guess in self.service.packs:
                    req = {**req, "lang": guess}
            pack = self.service.pack(req, record_lexicon=record.lexicon)
            try:
                game = master_from_record(record, pack, name)
            except DuplicateError as e:
                raise HeuriError(str(e)) from None
        else:
            pack = self.service.pack(req)
            if seed is None:
                seed = secrets.randbelow(2**63)
            try:
                game = master_game(pack, seed=seed)
            except DuplicateError as e:
                raise HeuriError(f"lang: {pack.spec.code}: {e}") from None
        if not game.turns:
            raise HeuriError("the master game has no turn")
        g = _TrainerGame(Trainer(game, pack.words, player, notation), pack, seconds, self.service.clock())
        gid = secrets.token_hex(16)
        with self._lock:
            self._expire()
            if len(self._games) >= self.service.max_games:
                raise ApiError(f"{len(self._games)} duplicate games are in progress, the most this server keeps; a "
                               f"finished game expires {FINISHED_S // 60} minutes after its last move, an idle one "
                               f"after {IDLE_S // 3600} hours", 429, "too-many-games")
            self._games[gid] = g
        with g.lock:
            return g.state(gid, self.service.clock())

    def _expire(self) -> None:
        now = self.service.clock()
        for gid in [gid for gid, g in self._games.items() if g.expired(now)]:
            del self._games[gid]

    def _game(self, gid) -> "_TrainerGame":
        with self._lock:
            self._expire()
            g = self._games.get(gid) if isinstance(gid, str) else None
        if g is None:
            raise ApiError(f"duplicate game {_show(gid)}: no such game (a finished game is kept {FINISHED_S // 60} "
                           f"minutes, an idle one {IDLE_S // 3600} hours, none after the server stops; start a new "
                           f"one)", 404, "no-game")
        return g

    def state(self, gid: str) -> dict:
        """The state of a game (see :meth:`_TrainerGame.state`); a turn whose time (and
        :data:`GRACE_S`) ran out is settled first, without a move."""
        g = self._game(gid)
        with g.lock:
            now = self.service.clock()
            g.settle_if_late(now)
            g.touched = now
            return g.state(gid, now)

    def move(self, gid: str, req: dict) -> dict:
        """``{turn, move}``: the move handed in for turn ``turn`` (the state's; '' for no
        move), in the game's notation; settles the turn (the state's ``result``). A move
        that is not written as a move at all (no coordinate, a letter not of the language)
        is refused with a 400 and nothing changes; an illegal move (a word not in the list,
        a bad placement, tiles not in the draw) scores 0 with the reason. A ``turn`` that is
        not the one running raises ApiError 409 and changes nothing."""
        _fields(req, ("turn", "move"), "duplicate move")
        text = req.get("move")
        text = "" if text is None else _text(req, "move", required=False, limit=64)
        turn = _int(req, "turn", None, 1, 10_000)
        if turn is None:
            raise HeuriError("turn: missing; give the state's turn with the move")
        g = self._game(gid)
        with g.lock:
            now = self.service.clock()
            g.check_turn(turn, "turn")
            g.hand_in(text, now)
            g.touched = now
            return g.state(gid, now)

    def next(self, gid: str, req: dict) -> dict:
        """``{turn}`` (the turn just settled) → the next turn starts, its clock running.
        ApiError 409 when ``turn`` is not the game's last settled turn."""
        _fields(req, ("turn",), "duplicate next")
        turn = _int(req, "turn", None, 1, 10_000)
        if turn is None:
            raise HeuriError("turn: missing; give the turn whose result is shown")
        g = self._game(gid)
        with g.lock:
            now = self.service.clock()
            g.settle_if_late(now)
            g.check_turn(turn, "result")
            if g.trainer.over:
                raise HeuriError("the game is over; start a new one")
            g.started = now
            g.phase = "turn"
            g.touched = now
            return g.state(gid, now)

    def sheet(self, gid: str) -> str:
        """The players' sheet of the turns settled so far (CSV: player,turn,move,score,game),
        the file ``heuri duplicate score`` reads (:meth:`heuri.trainer.Trainer.sheet_text`)."""
        g = self._game(gid)
        with g.lock:
            now = self.service.clock()
            g.settle_if_late(now)
            g.touched = now
            return g.trainer.sheet_text()


class _TrainerGame:
    """One duplicate game in the web trainer: its :class:`heuri.trainer.Trainer`, the pack,
    the time a turn (``seconds``), the phase (``"turn"`` running since ``started``,
    ``"result"``), the last time it was touched (service clock)."""

    __slots__ = ("trainer", "pack", "seconds", "phase", "started", "touched", "lock")

    def __init__(self, trainer, pack, seconds: int, now: float):
        self.trainer = trainer
        self.pack = pack
        self.seconds = seconds
        self.phase = "turn"
        self.started = now
        self.touched = now
        self.lock = threading.Lock()

    def expired(self, now: float) -> bool:
        return now - self.touched > (FINISHED_S if self.trainer.over else IDLE_S)

    def check_turn(self, turn: int, phase: str) -> None:
        """Refuse (409) a request for another turn or phase than the game's."""
        tr = self.trainer
        now_turn = tr.current.number if self.phase == "turn" else tr.results[-1].turn.number
        if turn != now_turn or self.phase != phase:
            shown = "running" if self.phase == "turn" else "settled"
            raise ApiError(f"turn: {turn}: the game is at turn {now_turn} ({shown}); this request answers another "
                           f"state (sent twice, or from a stale page): reload the game", 409, "stale-turn")

    def hand_in(self, text: str, now: float) -> None:
        """Settle the running turn with ``text`` (:meth:`heuri.trainer.Trainer.hand_in`)."""
        from ...core.errors import MoveError

        spent = now - self.started
        late = ""
        if spent > self.seconds + GRACE_S:
            late = f"handed in {spent - self.seconds:.0f} s after the time; a late move is not taken"
        try:
            self.trainer.hand_in(text, spent, timed_out=spent >= self.seconds, late=late,
                                 late_params={"seconds": int(round(spent - self.seconds))} if late else None)
        except MoveError as e:
            raise MoveError(f"move: {e}", e.kind, **{**e.params, "move": text}) from None
        self.phase = "result"

    def settle_if_late(self, now: float) -> None:
        if self.phase == "turn" and now - self.started > self.seconds + GRACE_S:
            self.trainer.hand_in(None, now - self.started, timed_out=True)
            self.phase = "result"

    def state(self, gid: str, now: float) -> dict:
        """``{id, lang, lexicon, game, player, notation, seconds, turns, phase, turn, left_s,
        draw, board, result, totals, history, over, end, seed}``: ``phase`` ``"turn"`` (the
        clock runs: ``left_s`` seconds left, ``draw`` and ``board`` of the turn) or
        ``"result"`` (``result``: the turn settled, its top and the board with the top
        played, the move handed in dashed); ``turn``: the turn running or settled
        (1-based) that a move or next request repeats; ``totals``: ``{you, top, percent,
        tops}`` over the turns settled; ``history``: one row a turn settled; ``seed`` (a
        generated game) and ``end`` only once it is over."""
        from ...core.errors import MoveError
        from ...core.move import Move, format_rack
        from ...core.tiletext import format_spelling
        from ...formats.render import board_svg
        from ..duplicate import move_to_gcg

        tr = self.trainer
        game = tr.game
        spec = game.spec
        over = tr.over and self.phase == "result"

        def draw_of(t) -> dict:
            def tiles(ids):
                return [{"tile": "?" if i == spec.blank else format_spelling(spec.tiles[i]),
                         "value": int(spec.values[i]) if i != spec.blank else 0} for i in sorted(ids)]

            return {"text": t.draw.text(spec), "leave": tiles(t.draw.leave), "new": tiles(t.draw.new),
                    "rejected": [format_rack(sorted(r), spec) for r in t.draw.rejected],
                    "no_move": [format_rack(sorted(r), spec) for r in t.no_move_redraws]}

        def grid(board) -> list:
            return [["" if board.letters[r, c] < 0 else format_spelling(spec.tiles[board.letters[r, c]],
                                                                          bool(board.blanks[r, c]))
                     for c in range(board.size)] for r in range(board.size)]

        def row(r) -> dict:
            t = r.turn
            return {"turn": t.number, "draw": t.draw.text(spec), "move": r.move, "score": r.score,
                    "reason": r.reason or (r.refused[-1][1] if r.refused and not r.move else ""),
                    "reason_kind": r.reason_kind, "reason_params": r.reason_params,
                    "top": tr.top(t), "top_score": t.score, "is_top": r.is_top, "timed_out": r.timed_out}

        out = {"id": gid, "lang": spec.code, "lexicon": game.lexicon or spec.lexicon, "game": game.game_id,
               "player": tr.player, "notation": tr.notation, "seconds": self.seconds, "turns": len(game.turns),
               "phase": self.phase, "over": over,
               "totals": {"you": tr.total, "top": tr.top_total, "percent": round(tr.percent, 2), "tops": tr.tops},
               "history": [row(r) for r in tr.results], "expires_s": int((FINISHED_S if over else IDLE_S)
                                                                          - (now - self.touched))}
        if self.phase == "turn":
            t = tr.current
            prev = game.turns[t.number - 2].top if t.number > 1 else None
            out.update(turn=t.number, left_s=round(max(0.0, self.seconds - (now - self.started)), 1),
                       draw=draw_of(t), board={"svg": board_svg(t.board, played=prev, label=f"turn {t.number}"),
                                               "grid": grid(t.board)})
        else:
            r = tr.results[-1]
            t = r.turn
            mine = None
            if r.move and not r.reason:
                try:
                    mine = Move.from_gcg(move_to_gcg(r.move, tr.notation), t.board, spec)
                except MoveError:  # checked when handed in: cannot fail
                    mine = None
            res = row(r)
            res.update(tops=[tr.top(t)] + tr.equal_tops(t), bingo=t.bingo,
                       bingo_moves=t.bingo_moves, p_septet=t.p_septet, refused=[list(x) for x in r.refused],
                       svg=board_svg(t.board.play(t.top), played=t.top, second=mine, label=f"turn {t.number}: the top"))
            out.update(turn=t.number, draw=draw_of(t), result=res)
        if over:
            out["end"] = game.end
            out["seed"] = game.seed
        return out
