"""Output folders that never overwrite a user's files, and interrupts that leave them whole.

A command that writes a folder of results (``heuri match --out``, ``heuri analyze --out``,
``heuri duplicate new --out``) goes through :class:`OutputFolder`:

- **A marker of its own.** ``<folder>/.heuri-output.json`` (JSON lines): the first line
  names the command (``{"command": "heuri analyze", "format": 1, "params": {...}}``), each
  further line a file it wrote (``{"wrote": "games/001.html"}``, a path relative to the
  folder, ``/``-separated). A name is added *before* its file is written, so a file of the
  command's is always listed, even after a kill; lines are appended with ``O_APPEND`` (one
  ``write`` each), so processes sharing a folder (Snakemake shards) do not tear them.
- **Refusal.** A folder that holds anything the marker does not list (or any file at all,
  without a marker, or the marker of another command) is refused before anything is written:
  :class:`OutputError`, one line naming the folder and a few of the foreign files.
- **Force.** ``force`` deletes what the marker lists, and nothing else; symbolic links are
  never followed: a listed name that is a link is unlinked itself, and a link anywhere in the
  folder that the marker does not list is a foreign file (refused).
- **Atomic files.** :meth:`OutputFolder.write` writes to a temporary name in the same folder
  (``.<name>.<pid>.<n>.heuri-tmp``) and renames it over the target (``os.replace``): a reader
  or a killed writer never sees half a file, and a link at the target is replaced, never
  written through.

Interrupts: :func:`interrupts_raise` turns SIGTERM into :class:`KeyboardInterrupt` in the main
thread (as Ctrl-C is), so one ``except``/``finally`` writes what finished;
:func:`worker_setup` (a process-pool initializer's first call) makes a worker ignore SIGINT
(the parent decides) and die with its parent (Linux ``PR_SET_PDEATHSIG``);
:func:`kill_workers` ends a pool's processes at once.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import sys
from pathlib import Path

from .errors import HeuriError

#: the marker file's name
MARKER = ".heuri-output.json"
#: the end of a temporary file's name
TMP_SUFFIX = ".heuri-tmp"

_counter = itertools.count()


class OutputError(HeuriError):
    """An output folder that cannot be used: not writable, not a folder, or holding files
    the command did not write."""


def _is_tmp(name: str) -> bool:
    return name.startswith(".") and name.endswith(TMP_SUFFIX)


def _entries(root: Path) -> list[str]:
    """Every file, link or other non-folder under ``root`` (relative, ``/``-separated, sorted),
    without following links; the marker and temporary files are left out."""
    out = []
    stack = [""]
    while stack:
        rel = stack.pop()
        with os.scandir(root / rel if rel else root) as it:
            for e in it:
                r = f"{rel}/{e.name}" if rel else e.name
                if e.is_dir(follow_symlinks=False):
                    stack.append(r)
                elif r != MARKER and not _is_tmp(e.name):
                    out.append(r)
    return sorted(out)


def _read_marker(path: Path) -> tuple[dict, set[str]]:
    """(header, files listed) of a marker. A torn last line (a writer killed in the middle of
    it) is ignored; a header that does not parse raises OutputError."""
    text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    try:
        head = json.loads(text[0]) if text else None
    except ValueError:
        head = None
    if not isinstance(head, dict) or not isinstance(head.get("command"), str):
        raise OutputError(f"{path}: not a heuri output marker (its first line names no command); "
                          f"the folder was not written by heuri: choose another --out")
    files = set()
    for line in text[1:]:
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if isinstance(d, dict) and isinstance(d.get("wrote"), str):
            files.add(d["wrote"])
    return head, files


def _few(names: list[str], n: int = 3) -> str:
    s = ", ".join(names[:n])
    return s + (f" and {len(names) - n} more" if len(names) > n else "")



def _writable_folder(path, what: str, option: str, choose: str, file_hint: bool = True) -> tuple[Path, str]:
    """Create ``path`` if needed and check that a file can be written in it (a probe file,
    removed); returns ``(folder, how messages name it)``. OutputError, one line naming
    ``option`` and the folder, for a path that is a file, lies under one, or cannot be
    created or written; ``choose`` is what the message tells the user to give instead."""
    root = Path(path)
    where = f"{option} {str(root)!r}"
    try:
        if root.exists() and not root.is_dir():
            hint = f"; choose a writable folder with {choose}" if file_hint else ""
            raise OutputError(f"cannot write {what} to {where}: it is a file, not a folder{hint}")
        root.mkdir(parents=True, exist_ok=True)
        probe = root / f".probe.{os.getpid()}.{next(_counter)}{TMP_SUFFIX}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise OutputError(f"cannot write {what} to {where} ({e.strerror or e}); "
                          f"choose a writable folder with {choose}") from None
    return root, where

class OutputFolder:
    """A folder a command writes into (see the module docstring). Build it with
    :meth:`open`; ``root`` (Path), ``command`` (str), ``params`` (the marker header's
    ``params``), ``owned`` (set of relative names the marker lists)."""

    def __init__(self, root: Path, command: str, params: dict | None, owned: set[str]):
        self.root = Path(root)
        self.command = command
        self.params = params
        self.owned = set(owned)

    # -- opening ------------------------------------------------------------------------------
    @classmethod
    def open(cls, path, command: str, force: bool = False, params: dict | None = None,
             adopt=None, what: str = "output", option: str = "--out", check_params=None) -> "OutputFolder":
        """Create or reuse the folder ``path`` for ``command`` (e.g. ``"heuri analyze"``).

        Refuses (OutputError, one line) a path that is a file or lies under one, a folder
        that cannot be created or written, a marker of another command, and any file the
        marker does not list (a folder without a marker must be empty, unless ``adopt``,
        called with ``(root, names)``, returns the names of an earlier run of the command
        written before markers existed; None when the folder is not one). ``params``: what
        the run is (stored in the marker); ``check_params(old_params)`` may raise to refuse
        a folder of another run (not called with ``force``). ``force``: delete every file
        the marker lists first (links unlinked, never followed). ``what``/``option``: how
        messages name the folder."""
        root, where = _writable_folder(path, what, option, f"{option} DIR")
        marker = root / MARKER
        # the files first, the marker after: a file another process writes meanwhile was listed
        # in the marker before it was written, so the marker read below names it
        try:
            names = _entries(root)
        except OSError as e:
            raise OutputError(f"cannot read {where} ({e.strerror or e}: {e.filename}); choose another "
                              f"{option}") from None
        if marker.is_symlink() or (marker.exists() and not marker.is_file()):
            raise OutputError(f"{where}: {MARKER} is a link or not a file; the folder was not written "
                              f"by heuri: choose another {option}")
        head = None
        owned: set[str] = set()
        if marker.is_file():
            head, owned = _read_marker(marker)
            if head["command"] != command:
                raise OutputError(f"{where} holds the output of `{head['command']}`, not `{command}`; "
                                  f"choose another {option}")
        elif names and adopt is not None:
            got = adopt(root, names)
            if got is not None:
                owned = set(got)
        foreign = [n for n in names if n not in owned]
        if foreign:
            raise OutputError(f"{where} holds files `{command}` did not write ({_few(foreign)}); nothing "
                              f"was written: move them away or choose another {option}")
        if head is not None and check_params is not None and not force:
            check_params(head.get("params"))
        self = cls(root, command, params if (force or head is None) else head.get("params"), owned)
        if force and head is not None:
            self._clear()
        if force and head is not None:
            self._new_marker(set())
        elif head is None and not self._new_marker(owned, exclusive=True):
            # another process (a Snakemake shard in the same folder) made it meanwhile: read it
            return cls.open(path, command, force, params, adopt, what, option, check_params)
        return self

    @classmethod
    def open_shared(cls, path, command: str, what: str = "output", option: str = "--out") -> "OutputFolder":
        """The folder ``path`` for a command that writes a few named files beside the user's
        own (``heuri duplicate new``): created and checked writable, its marker created when
        missing, but other files are allowed; :meth:`check_targets` then says which of the
        command's files may be replaced. OutputError for a folder that cannot be used or holds
        the marker of another command."""
        root, where = _writable_folder(path, what, option, option, file_hint=False)
        marker = root / MARKER
        if marker.is_symlink() or (marker.exists() and not marker.is_file()):
            raise OutputError(f"{where}: {MARKER} is a link or not a file; choose another {option}")
        if marker.is_file():
            head, owned = _read_marker(marker)
            if head["command"] != command:
                raise OutputError(f"{where} holds the output of `{head['command']}`, not `{command}`; "
                                  f"choose another {option}")
            return cls(root, command, head.get("params"), owned)
        self = cls(root, command, None, set())
        if not self._new_marker(set(), exclusive=True):
            return cls.open_shared(path, command, what, option)
        return self

    def check_targets(self, rels, force: bool) -> None:
        """Refuse (OutputError, one line) to replace any of the files ``rels`` that exists,
        unless ``force`` and the marker lists it (the command wrote it); a folder there is
        always refused. Nothing is written or deleted here."""
        taken = [r for r in rels if os.path.lexists(self.root / r)]
        if not taken:
            return
        names = ", ".join(str(self.root / r) for r in taken)
        if not force:
            raise OutputError(f"{names} already exist; give another --out, or --force to replace the "
                              f"files `{self.command}` wrote")
        theirs = [r for r in taken if r not in self.owned or (self.root / r).is_dir()]
        if theirs:
            raise OutputError(f"{_few([str(self.root / r) for r in theirs])}: not written by `{self.command}` "
                              f"(not listed in {self.root / MARKER}); nothing was written: move them away or "
                              f"give another --out")

    def _clear(self) -> None:
        """Delete every file the marker lists (links themselves), then empty folders they
        were in; stale temporary files go too."""
        for rel in sorted(self.owned):
            p = self.root / rel
            if not self._inside(rel):
                continue
            with contextlib.suppress(FileNotFoundError):
                os.unlink(p)
        self.owned.clear()
        for dirpath, dirnames, filenames in os.walk(self.root, topdown=False, followlinks=False):
            for f in filenames:
                if _is_tmp(f):
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(dirpath, f))
            if Path(dirpath) != self.root:
                with contextlib.suppress(OSError):
                    os.rmdir(dirpath)  # only when empty

    def discard(self, remove_root: bool = False) -> None:
        """Undo the folder: delete every file the marker lists (as :meth:`_clear`), then
        the marker, then the root itself when ``remove_root`` and it is empty. A file the
        marker does not list is never touched (the root then stays)."""
        self._clear()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.root / MARKER)
        if remove_root:
            with contextlib.suppress(OSError):
                os.rmdir(self.root)  # only when empty

    def _inside(self, rel: str) -> bool:
        """True when no folder on the way from the root to ``rel`` is a link (or missing)."""
        p = self.root
        for part in Path(rel).parts[:-1]:
            p = p / part
            if p.is_symlink() or not p.is_dir():
                return False
        return True

    def _new_marker(self, owned: set[str], exclusive: bool = False) -> bool:
        """Write the marker (header and ``owned``). ``exclusive``: only if there is none
        (one ``write`` to a file created with ``O_EXCL``); returns False when one appeared."""
        lines = [json.dumps({"command": self.command, "format": 1, "params": self.params})]
        lines += [json.dumps({"wrote": r}) for r in sorted(owned)]
        data = ("\n".join(lines) + "\n").encode("utf-8")
        if exclusive:
            try:
                fd = os.open(self.root / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                return False
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
            return True
        tmp = self.root / f".{MARKER}.{os.getpid()}.{next(_counter)}{TMP_SUFFIX}"
        tmp.write_bytes(data)
        os.replace(tmp, self.root / MARKER)
        return True

    # -- writing --------------------------------------------------------------------------------
    def path(self, rel: str) -> Path:
        """``root/rel`` with its folders created; OutputError when one of them is a link or
        a file (nothing is written through a link)."""
        p = self.root
        for part in Path(rel).parts[:-1]:
            p = p / part
            if p.is_symlink() or (p.exists() and not p.is_dir()):
                raise OutputError(f"{p}: is a link or a file, not a folder of `{self.command}`; nothing "
                                  f"is written through it")
            p.mkdir(exist_ok=True)
        return self.root / rel

    def claim(self, rel: str) -> Path:
        """List ``rel`` in the marker (before it is written) and return its path."""
        p = self.path(rel)
        if rel not in self.owned:
            claim(self.root, rel)
            self.owned.add(rel)
        return p

    def write(self, rel: str, data: bytes | str) -> Path:
        """Write ``data`` (text: UTF-8) to ``rel`` atomically (temporary name, then rename)."""
        b = data.encode("utf-8") if isinstance(data, str) else data

        def put(tmp: Path) -> None:
            with open(tmp, "xb") as f:
                f.write(b)
                f.flush()
                os.fsync(f.fileno())

        return self.write_with(rel, put)

    def write_with(self, rel: str, writer) -> Path:
        """Call ``writer(tmp_path)`` to write a temporary file beside ``rel``, then rename it
        over ``rel`` (Parquet writers that take a path)."""
        target = self.claim(rel)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{next(_counter)}{TMP_SUFFIX}")
        try:
            writer(tmp)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return target

    def remove(self, rel: str) -> None:
        """Delete ``rel`` (a file of the command's; a link is unlinked itself)."""
        if rel in self.owned and self._inside(rel):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.root / rel)


def claim(root, rel: str) -> None:
    """Append ``rel`` to the marker of the folder ``root`` (one ``O_APPEND`` write: safe from
    several processes, e.g. pool workers naming their own files)."""
    line = (json.dumps({"wrote": rel}) + "\n").encode("utf-8")
    fd = os.open(Path(root) / MARKER, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0))
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def write_file_atomic(path, data: bytes | str) -> None:
    """Write ``data`` to the file ``path`` (one the user named, outside any output folder)
    through a temporary file in the same folder renamed over it: a link at ``path`` is
    replaced, never written through."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{next(_counter)}{TMP_SUFFIX}")
    try:
        with open(tmp, "xb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# -- interrupts ------------------------------------------------------------------------------------
class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C or SIGTERM after saving what finished; the message says where
    and how to resume."""


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


@contextlib.contextmanager
def interrupts_raise():
    """While inside: SIGTERM raises KeyboardInterrupt in the main thread, as SIGINT does, so
    the same ``except``/``finally`` saves what finished. Does nothing outside the main thread."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def is_interrupt(e: BaseException) -> bool:
    """True when ``e`` is a KeyboardInterrupt or was raised while one was being raised: the
    handler's KeyboardInterrupt thrown inside compiled code (a Numba kernel) comes back as a
    SystemError whose cause or context is the KeyboardInterrupt."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def worker_setup() -> None:
    """First call of a pool worker: ignore SIGINT and SIGTERM handlers of the parent (the
    parent stops the pool), and on Linux ask the kernel to SIGKILL this process when its
    parent dies (``prctl(PR_SET_PDEATHSIG)``), so no worker outlives a parent killed
    without a chance to clean up."""
    parent = os.getppid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            PR_SET_PDEATHSIG = 1
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no prctl: the parent's kill_workers still applies
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def pool_children() -> set:
    """The live ``multiprocessing`` children of this process (to tell a new pool's workers)."""
    import multiprocessing as mp

    return set(mp.active_children())


def kill_workers(before: set, executor=None) -> None:
    """SIGKILL the ``multiprocessing`` children started since ``before`` (:func:`pool_children`)
    and wait for them; cancel ``executor``'s queued work first, and wait (up to 10 s) for its
    manager thread to end, so that the interpreter's exit does not wait on it. Used when a run
    is interrupted: a worker in the middle of a game has nothing whole to give back."""
    import multiprocessing as mp

    # read before shutdown(), which forgets both
    manager = getattr(executor, "_executor_manager_thread", None)
    results = getattr(executor, "_result_queue", None)
    if executor is not None:
        with contextlib.suppress(Exception):
            executor.shutdown(wait=False, cancel_futures=True)
    procs = [p for p in mp.active_children() if p not in before]
    for p in procs:
        with contextlib.suppress(Exception):
            p.kill()
    for p in procs:
        with contextlib.suppress(Exception):
            p.join(5)
    # A worker killed while sending a large result (an analysed game's page) leaves half a
    # message in the result pipe, and the executor's manager thread blocks reading the rest;
    # the parent holds the pipe's last write end, so closing it turns that read into EOF, which
    # the manager thread takes for a broken pool and ends. Without this, the interpreter's exit
    # joins that thread forever.
    with contextlib.suppress(Exception):
        results._writer.close()
    if manager is not None:
        manager.join(10)
