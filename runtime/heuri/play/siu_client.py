"""Drive an external SIU engine as a match player (``heuri match --p2 "siu:<command line>"``).

:class:`SiuEngine` runs one engine process: it starts the command, reads its output in a
background thread (so every read has a timeout and a dead engine never hangs the runner),
does the handshake (``siu`` … ``siuok``), sets options, and runs searches (``position`` +
``go``, waiting for ``bestmove``). The engine's stderr goes to a file the caller names (the
match output folder keeps it).

:class:`SiuPlayer` is the match runner's player (the ``Player`` protocol of
:mod:`heuri.players`: ``name``, ``choose(position) -> Move``, ``info``; plus ``close()``).
For each turn it sends ``position cgp <cgp>`` with only the mover's rack (the opponent's rack
field left empty: unknown, as the draft says) and ``go auto movetime <ms>``, and parses the
reply in SIU move notation on the position's board. Whatever goes wrong is an
:class:`EngineFailure` (a HeuriError) with a ``kind``:

- ``"unparseable"``: the ``bestmove`` is not an SIU move (or names tiles the language lacks);
- ``"illegal"``: it parses but is not legal in the position (board rules, tiles not on the
  rack, an exchange the bag does not allow, a word outside the pack when ``words`` is given);
- ``"timeout"``: no ``bestmove`` (or no ``siuok``/``readyok``) in time;
- ``"dead"``: the process exited or closed its output;
- ``"refused"``: it answered ``info string error ...`` instead of searching.

The runner records the failure as a forfeit of the game. After a failure the process is
killed; the next ``choose`` (the next game) starts a fresh one.

A command line whose first word is ``heuri`` runs this very heuri (``sys.executable -m
heuri ...``), so a test or a match never picks up another installation from ``PATH``.
"""
from __future__ import annotations

import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

from ..core.errors import HeuriError

SIU_PREFIX = "siu:"
DEFAULT_START_TIMEOUT = 60.0  # s for siuok and the first readyok (a cold numba cache compiles)
DEFAULT_GRACE = 10.0  # s allowed beyond movetime for a bestmove


class EngineFailure(HeuriError):
    """An external engine failed to produce a legal move. ``kind``: ``"unparseable"``,
    ``"illegal"``, ``"timeout"``, ``"dead"``, ``"refused"`` or ``"start"``; ``reply``: the
    offending text (the ``bestmove`` argument or the error line), or None."""

    def __init__(self, message: str, kind: str, reply: str | None = None):
        super().__init__(message)
        self.kind = kind
        self.reply = reply


def parse_command(spec_string: str) -> list[str]:
    """``"siu:heuri siu --lang es"`` (or the command without the prefix) → argv list, with
    a leading ``heuri`` replaced by ``[sys.executable, "-m", "heuri"]``. Raises
    EngineFailure (kind ``"start"``) for an empty command.

    >>> parse_command("siu:heuri siu --lang es")[1:]
    ['-m', 'heuri', 'siu', '--lang', 'es']
    """
    cmd = spec_string[len(SIU_PREFIX):] if spec_string.startswith(SIU_PREFIX) else spec_string
    argv = shlex.split(cmd)
    if not argv:
        raise EngineFailure(f"{spec_string!r}: no engine command after 'siu:'", "start")
    if argv[0] == "heuri":
        argv = [sys.executable, "-m", "heuri"] + argv[1:]
    return argv


class SiuEngine:
    """One external SIU engine process.

    ``argv``: the command; ``stderr_path``: file that receives the engine's stderr
    (appended; None discards it); ``transcript``: keep the last this-many protocol lines
    (``> `` sent, ``< `` received) for error messages.

    Attributes after :meth:`start`: ``id_name``, ``id_author``, ``capabilities`` (set),
    ``options`` (dict lower-case name → the option line)."""

    def __init__(self, argv: list[str], stderr_path: str | os.PathLike | None = None, transcript: int = 40):
        self.argv = list(argv)
        self.stderr_path = Path(stderr_path) if stderr_path else None
        self.proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._tail: deque = deque(maxlen=transcript)
        self._err = None
        self._reader: threading.Thread | None = None
        self.id_name = self.id_author = None
        self.capabilities: set[str] = set()
        self.options: dict[str, str] = {}

    # -- process ----------------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, timeout: float = DEFAULT_START_TIMEOUT) -> None:
        """Start the process and do the handshake. Raises EngineFailure (kind ``"start"``
        when the command cannot run, ``"timeout"``/``"dead"`` without ``siuok``)."""
        if self.stderr_path is not None:
            self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
            self._err = open(self.stderr_path, "ab")
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._err if self._err else subprocess.DEVNULL,
                                         bufsize=0)
        except OSError as e:
            raise EngineFailure(f"cannot start engine {shlex.join(self.argv)}: {e}", "start") from None
        self._lines = queue.Queue()
        self._reader = threading.Thread(target=self._read, args=(self.proc, self._lines), daemon=True,
                                        name="siu-client-reader")
        self._reader.start()
        self.send("siu")
        for line in self.read_until(lambda s: s == "siuok", timeout, "siuok"):
            tok = line.split()
            if line.startswith("id name "):
                self.id_name = line[8:]
            elif line.startswith("id author "):
                self.id_author = line[10:]
            elif tok[:1] == ["capability"]:
                self.capabilities = set(tok[1:])
            elif tok[:2] == ["option", "name"] and "type" in tok:
                name = " ".join(tok[2:tok.index("type")])
                self.options[name.lower()] = line

    @staticmethod
    def _read(proc, lines: queue.Queue) -> None:
        # The reader owns the engine's stdout and is the only one to close it, at end of
        # output: closed from another thread, its descriptor number could be reused by the
        # next engine's pipe between two of these reads, and this thread would take that
        # engine's bytes (its handshake would lose a letter).
        try:
            for raw in iter(proc.stdout.readline, b""):
                lines.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        finally:
            try:
                proc.stdout.close()
            except OSError:
                pass
        lines.put(None)

    def send(self, line: str) -> None:
        """Write one line to the engine. Raises EngineFailure (``"dead"``) when it is gone."""
        self._tail.append("> " + line)
        try:
            self.proc.stdin.write((line + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError, AttributeError):
            raise EngineFailure(f"engine {self.describe()} is not running (writing {line!r})"
                                + self._context(), "dead") from None

    def read_until(self, done, timeout: float, what: str) -> list[str]:
        """Lines up to and including the first for which ``done(line)`` is true. Raises
        EngineFailure (``"timeout"`` after ``timeout`` s, ``"dead"`` at end of output)."""
        got = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(left, 0.0)) if left > 0 else self._lines.get_nowait()
            except queue.Empty:
                raise EngineFailure(f"engine {self.describe()} sent no {what} within {timeout:g} s"
                                    + self._context(), "timeout") from None
            if line is None:
                self._lines.put(None)
                code = self.proc.poll() if self.proc else None
                raise EngineFailure(f"engine {self.describe()} exited (status {code}) before {what}"
                                    + self._context(), "dead")
            self._tail.append("< " + line)
            got.append(line)
            if done(line.strip()):
                return got

    def describe(self) -> str:
        return self.id_name or shlex.join(self.argv)

    def _context(self) -> str:
        tail = list(self._tail)[-8:]
        where = f"; its stderr is in {self.stderr_path}" if self.stderr_path else ""
        return (f"; last lines: {' | '.join(tail)}" if tail else "") + where

    def set_option(self, name: str, value: str | None) -> None:
        """``setoption name <name> [value <value>]`` (only between searches)."""
        self.send(f"setoption name {name}" + (f" value {value}" if value is not None else ""))

    def isready(self, timeout: float) -> list[str]:
        """``isready`` → wait for ``readyok``; returns the lines read meanwhile (an engine
        answers a bad option with ``info string error``)."""
        self.send("isready")
        return self.read_until(lambda s: s == "readyok", timeout, "readyok")

    def search(self, cgp: str, go: str, timeout: float) -> tuple[str, list[str]]:
        """``position cgp <cgp>`` and ``go <go>``; returns ``(bestmove text, info lines)``.
        Raises EngineFailure: ``"refused"`` when the engine answers ``info string error``
        for the position or the ``go`` (it then sends no ``bestmove``), ``"timeout"``,
        ``"dead"``, or ``"unparseable"`` for a ``bestmove`` line without a move."""
        self.send(f"position cgp {cgp}")
        self.send(f"go {go}")
        refused = []

        def done(s: str) -> bool:
            if s.startswith("info string error"):
                refused.append(s)
                # a refused position or go ends without bestmove: stop waiting at once
                return "no-position" in s or "bad-position" in s or "bad-move" in s \
                    or "unsupported-mode" in s
            return s.startswith("bestmove")

        lines = self.read_until(done, timeout, "bestmove")
        last = lines[-1].strip()
        if not last.startswith("bestmove"):
            raise EngineFailure(f"engine {self.describe()} refused the position: {last}", "refused", last)
        parts = last.split()
        if len(parts) < 2:
            raise EngineFailure(f"engine {self.describe()} sent {last!r} without a move", "unparseable", last)
        return parts[1], lines[:-1]

    def close(self, timeout: float = 3.0) -> None:
        """``quit``, then wait; kill the process if it does not exit."""
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    self.send("quit")
                except EngineFailure:
                    pass
                try:
                    self.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            # the process is gone, so its stdout ends and the reader closes it; a descendant
            # still holding the pipe keeps that reader (and the descriptor) alive, which is safe
            if self._reader is not None:
                self._reader.join(timeout)
        if self._err is not None:
            self._err.close()
            self._err = None

    def kill(self) -> None:
        """End the process at once (after a failure)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.close()


def player_cgp(position) -> str:
    """CGP of ``position`` (a :class:`heuri.game.Position`) as the player to move sees it:
    its own rack, every other rack field empty (unknown)."""
    return position.cgp(hide_others=True)


class SiuPlayer:
    """An external SIU engine as a player (see the module docstring).

    ``spec_string``: ``"siu:<command line>"``; ``options``: ``{Name: value}`` sent with
    ``setoption`` after the handshake (in order); ``movetime_ms``: the ``go auto movetime``
    of each turn; ``stderr_path``: where the engine's stderr goes; ``words``: a set of
    spellings (e.g. ``pack.words``) to reject phonies, or None to check board and rack
    only; ``grace_s``: seconds allowed beyond ``movetime_ms`` for the reply;
    ``start_timeout_s``: for ``siuok`` and ``readyok``.

    ``info`` after a choice: ``bestmove`` (text), ``infos`` (info lines the engine sent),
    ``elapsed_s``."""

    def __init__(self, spec_string: str, options: dict | None = None, movetime_ms: int = 1000,
                 stderr_path: str | os.PathLike | None = None, words=None, grace_s: float = DEFAULT_GRACE,
                 start_timeout_s: float = DEFAULT_START_TIMEOUT, name: str | None = None):
        self.spec_string = spec_string
        self.argv = parse_command(spec_string)
        self.name = name or spec_string
        self.options = dict(options or {})
        self.movetime_ms = int(movetime_ms)
        self.stderr_path = stderr_path
        self.words = words
        self.grace_s = grace_s
        self.start_timeout_s = start_timeout_s
        self.engine: SiuEngine | None = None
        self.info: dict = {}

    def _ensure(self) -> SiuEngine:
        if self.engine is not None and self.engine.alive:
            return self.engine
        if self.engine is not None:
            self.engine.kill()
        eng = SiuEngine(self.argv, self.stderr_path)
        self.engine = eng
        eng.start(self.start_timeout_s)
        if "auto" not in eng.capabilities:
            raise EngineFailure(f"engine {eng.describe()} does not declare 'auto' "
                                f"(capability {' '.join(sorted(eng.capabilities))})", "refused")
        for k, v in self.options.items():
            eng.set_option(k, v)
        lines = eng.isready(self.start_timeout_s)
        errors = [s for s in lines if s.startswith("info string error")]
        if errors:
            raise EngineFailure(f"engine {eng.describe()} refused its options: {' | '.join(errors)}",
                                "refused", errors[0])
        return eng

    def choose(self, position):
        """The engine's move for the player to move in ``position`` (a
        :class:`heuri.game.Position`), checked. Raises EngineFailure (see the module
        docstring); the engine is then killed and restarted at the next call."""
        from ..core.errors import MoveError, TileError
        from ..core.move import Move

        t0 = time.perf_counter()
        try:
            eng = self._ensure()
            text, infos = eng.search(player_cgp(position), f"auto movetime {self.movetime_ms}",
                                     self.movetime_ms / 1000.0 + self.grace_s)
            try:
                move = Move.from_siu(text, position.board, position.spec)
            except (MoveError, TileError) as e:
                raise EngineFailure(f"engine {eng.describe()} answered bestmove {text!r}: {e}",
                                    "unparseable", text) from None
            try:
                position.check(move, self.words)
            except MoveError as e:
                raise EngineFailure(f"engine {eng.describe()} answered the illegal move {text!r}: {e}",
                                    "illegal", text) from None
        except EngineFailure:
            if self.engine is not None:
                self.engine.kill()
            raise
        self.info = {"bestmove": text, "infos": infos, "elapsed_s": time.perf_counter() - t0}
        return move

    def new_game(self) -> None:
        """Tell the engine a new game starts (``siunewgame`` + ``isready``), if it runs."""
        if self.engine is not None and self.engine.alive:
            try:
                self.engine.send("siunewgame")
                self.engine.isready(self.start_timeout_s)
            except EngineFailure:
                self.engine.kill()

    def close(self) -> None:
        """Quit the engine (kill it if it does not exit)."""
        if self.engine is not None:
            self.engine.close()
            self.engine = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def make_siu_player(spec_string: str, options: dict | None = None, movetime_ms: int = 1000,
                    stderr_path: str | os.PathLike | None = None, **kw) -> SiuPlayer:
    """The hook for :mod:`heuri.players`: a :class:`SiuPlayer` for ``"siu:<command line>"``.
    ``options`` as ``{Name: value}`` (``--p2-option Name=Value``); extra keywords
    (``words``, ``grace_s``, ``start_timeout_s``, ``name``) go to SiuPlayer. The engine
    starts on the first ``choose``."""
    return SiuPlayer(spec_string, options, movetime_ms, stderr_path, **kw)


def parse_option_args(pairs: list[str] | None) -> dict[str, str]:
    """``["Lexicon=es", "Engine=greedy"]`` → ``{"Lexicon": "es", "Engine": "greedy"}``.
    Raises HeuriError naming a pair without ``=``."""
    out = {}
    for p in pairs or ():
        if "=" not in p:
            raise HeuriError(f"engine option {p!r}: expected Name=Value")
        k, v = p.split("=", 1)
        out[k.strip()] = v.strip()
    return out
