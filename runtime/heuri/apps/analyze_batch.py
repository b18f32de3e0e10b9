"""``heuri analyze`` on many records: find them, analyse them (in parallel), write the outputs.

Output folder (``--out DIR``, a :class:`heuri.outdir.OutputFolder`: a folder holding files
this command did not write is refused; ``force`` replaces only an earlier analysis's files;
every file is written to a temporary name and renamed):

- ``turns.parquet``: every analysed turn of every game, the columns of
  :data:`heuri.analyze.ROW_SCHEMA`;
- ``summary.json``: the engine, the lexicons that answered (``lexicons``), the moves not in
  them (``off_list``), each game's summary (:meth:`heuri.analyze.GameAnalysis.summary`),
  the per-player batch figures (:func:`heuri.report.batch_tables`) and the records that
  failed (``[path, message]``);
- ``index.html``: the batch page; ``games/<id>.html`` and ``games/<id>.json``: each game's
  page and summary; ``rows/<id>.json``: its turns (written last: a game whose three files
  are there is finished, and the same command run again keeps it: resume).

A record that cannot be read or replayed (a malformed line, a missing pack) is listed in
``failed`` with its message (file and line) and the others are still analysed.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import HeuriError


class OutputExistsError(HeuriError):
    """The output folder cannot be used: it holds files ``heuri analyze`` did not write,
    another analysis (without ``force``), or it cannot be created or written."""


@dataclass
class BatchResult:
    """``summaries`` (one dict a game analysed, input order), ``rows`` (every turn),
    ``failed`` (``(path, message)``), ``out`` (the folder written), ``resumed`` (games an
    earlier run of the same analysis had finished, kept), ``discarded`` (every record
    failed: what the run wrote was removed, and the folder when the run made it)."""

    out: Path
    summaries: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    failed: list = field(default_factory=list)
    resumed: int = 0
    discarded: bool = False


def find_records(inputs) -> list[Path]:
    """GCG files named by ``inputs`` (files, or folders searched recursively for ``*.gcg``,
    sorted), in the order given, each once. Raises HeuriError for a path that does not exist
    or a folder with no record."""
    out, seen = [], set()
    for x in inputs:
        p = Path(x)
        if p.is_dir():
            found = sorted(p.rglob("*.gcg"))
            if not found:
                raise HeuriError(f"{p}: no .gcg file in this folder")
        elif p.is_file():
            found = [p]
        else:
            raise HeuriError(f"{p}: no such file or folder")
        for f in found:
            if f.resolve() not in seen:
                seen.add(f.resolve())
                out.append(f)
    return out


def game_ids(paths: list[Path]) -> list[str]:
    """A unique, file-name-safe id a record: its stem, with its parent folder's name before
    it when two records share a stem (``en-001``), then a number if still not unique."""
    import re
    from collections import Counter

    stems = Counter(p.stem for p in paths)
    ids, used = [], set()
    for p in paths:
        base = p.stem if stems[p.stem] == 1 else f"{p.parent.name}-{p.stem}"
        base = re.sub(r"[^\w.-]+", "_", base) or "game"
        gid, k = base, 2
        while gid in used:
            gid, k = f"{base}-{k}", k + 1
        used.add(gid)
        ids.append(gid)
    return ids


#: the command named in the output folder's marker (:mod:`heuri.outdir`)
COMMAND = "heuri analyze"


def _adopt(root: Path, names: list[str]):
    """The files of an analysis written before output markers existed: ``summary.json`` of an
    analysis beside only the files an analysis writes (None when the folder is not one)."""
    import re

    try:
        s = json.loads((root / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (isinstance(s, dict) and "engine" in s and "games" in s):
        return None
    layout = re.compile(r"(index\.html|turns\.parquet|summary\.json|games/[\w.-]+\.(html|json))")
    return names if all(layout.fullmatch(n) for n in names) else None


_WORKER: dict = {}


def _init(engine: str, pool: bool = False, think=None) -> None:
    from .analyze import Analyzer

    if pool:
        from ..core.outdir import worker_setup

        worker_setup()
    _WORKER["analyzer"] = Analyzer(engine, think=think)


def _one(path: str, gid: str, lang, player, coords: str = "standard", ui_lang=None, on_turn=None):
    """Analyse one record: ``(summary, rows, page)``, or ``(None, message, None)`` when it
    cannot be read or replayed; the page writes moves in ``coords``, in ``ui_lang``
    (default: the game's language); ``on_turn``: called after each turn. Writes nothing
    (the parent process writes every file)."""
    from .report import game_html

    try:
        g = _WORKER["analyzer"].analyze(path, lang=lang, player=player, game_id=gid, on_turn=on_turn)
    except HeuriError as e:
        return None, str(e), None
    return g.summary(), g.rows, game_html(g, index_href="../index.html", coords=coords, ui_lang=ui_lang)


def turn_counts(paths: list[Path]) -> list[int]:
    """The play, exchange and pass lines of each record (0 for one that cannot be read):
    the units of a simulating analysis's progress bar."""
    from ..formats.gcg import read_gcg

    out = []
    for p in paths:
        try:
            out.append(sum(e.kind in ("play", "exchange", "pass") for e in read_gcg(p).events))
        except (HeuriError, OSError, ValueError):
            out.append(0)
    return out


def _finished(folder, gid: str):
    """(summary, rows) of a game an earlier run of the same analysis finished, else None."""
    need = (f"games/{gid}.html", f"games/{gid}.json", f"rows/{gid}.json")
    if not all(n in folder.owned and (folder.root / n).is_file() for n in need):
        return None
    try:
        s = json.loads((folder.root / need[1]).read_text(encoding="utf-8"))
        rows = json.loads((folder.root / need[2]).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # analysed again
    return (s, rows) if isinstance(s, dict) and isinstance(rows, list) else None


def run_batch(inputs, out, engine: str = "heuri3", lang: str | None = None, player: str | None = None,
              jobs: int = 1, force: bool = False, progress: bool = True, coords: str = "standard",
              ui_lang: str | None = None, think=None) -> BatchResult:
    """Analyse every record of ``inputs`` (see :func:`find_records`) with ``engine`` and
    write the outputs under ``out`` (module docstring). ``jobs``: worker processes;
    ``progress``: a tqdm bar on stderr; ``coords``: how the pages write moves
    (:data:`heuri.move.COORDS`; the table keeps standard coordinates); ``ui_lang``: the
    pages' language (en, es, fr; default: each game's language, the index's the games'
    when they share one); ``think``: a :class:`heuri.apps.analyze.Think` (each turn also
    simulated: the table's ``sim_*`` columns and the pages' simulation lines).

    The folder is a :class:`heuri.outdir.OutputFolder`: the same command again (same
    records, engine, ``lang`` and ``player``) resumes, keeping the games already analysed;
    another analysis in it, or any file it did not write, is refused unless ``force``
    (which deletes only what an earlier analysis wrote there). Ctrl-C or SIGTERM stops the
    workers at once, writes the table, summary and index of the games finished (the summary
    says ``"interrupted": true`` and lists the ``pending`` records) and raises
    :class:`heuri.outdir.Interrupted`. A run that finishes no game (every record failed, or
    an error before the first game) removes the files it listed in the folder's marker and
    the marker, and the folder when it made it (``discarded``); a file it did not write is
    never removed.

    Raises HeuriError before any work for a bad input path, an unknown engine, a bad
    ``jobs`` or an output folder that cannot be used (:class:`OutputExistsError`)."""
    from .analyze import Analyzer
    from ..core.outdir import Interrupted, OutputFolder, interrupts_raise, is_interrupt, kill_workers, pool_children

    if jobs < 1:
        raise HeuriError(f"--jobs {jobs}: give at least 1")
    paths = find_records(inputs)
    Analyzer(engine)  # an unknown engine fails here, before anything is written
    ids = game_ids(paths)
    params = {"engine": engine, "lang": lang, "player": player,
              "records": [[str(p.resolve()), gid] for p, gid in zip(paths, ids)]}
    if coords != "standard":  # pages in another notation: another analysis folder's content
        params["coords"] = coords
    if ui_lang:  # pages in another language are another analysis's (absent: as before)
        params["ui_lang"] = ui_lang
    if think is not None:  # a simulated analysis, and its budget, is another analysis
        params["think"] = think.params()
    made = not os.path.lexists(out)  # a folder this run makes goes again when nothing came of it
    try:
        folder = OutputFolder.open(out, COMMAND, force=force, params=params, adopt=_adopt, what="the analysis")
    except HeuriError as e:
        raise OutputExistsError(str(e)) from None
    if folder.params != params:
        # another analysis: refused when it finished a game (or predates markers); one whose
        # every record failed holds nothing worth keeping, and the retry replaces it
        if any(n.startswith("rows/") for n in folder.owned) or (folder.params is None and folder.owned):
            old = folder.params or {}
            n = len(old.get("records") or [])
            # what differs, as the options that set it, so the user sees why it is another analysis
            names = {"engine": "--engine", "lang": "--lang", "player": "--player", "records": "the records",
                     "coords": "--coords", "ui_lang": "--ui-lang", "think": "the simulation (--think/--iterations, "
                     "--candidates, --rollout)"}
            differ = [names.get(k, k) for k in dict.fromkeys([*old, *params]) if old.get(k) != params.get(k)]
            raise OutputExistsError(
                f"--out {str(folder.root)!r} holds another analysis (engine {old.get('engine', '?')}, "
                f"{n} record{'' if n == 1 else 's'}; it differs in {', '.join(differ) or 'its options'}); give --force "
                f"to replace it, or another --out")
        folder = OutputFolder.open(out, COMMAND, force=True, params=params, what="the analysis")
    res = BatchResult(folder.root)
    results: list = [None] * len(paths)
    for i, gid in enumerate(ids):
        got = _finished(folder, gid)
        if got is not None:
            results[i] = (got[0], got[1], None)
    res.resumed = sum(r is not None for r in results)
    todo = [i for i, r in enumerate(results) if r is None]

    # a simulating analysis takes a minute or so a game: its bar counts turns, ticked as they end
    # (a game analysed in a worker process ticks when it ends)
    units = turn_counts(paths) if think is not None else [1] * len(paths)
    ticked = [0] * len(paths)

    def tick(i):
        def one():
            if ticked[i] < units[i]:
                ticked[i] += 1
                bar.update(1)
        return one if bar is not None and think is not None else None

    def save(i, r):
        s, rows, page = r
        if s is not None:  # the rows last: a game is finished when its rows are there
            folder.write(f"games/{ids[i]}.html", page)
            folder.write(f"games/{ids[i]}.json", json.dumps(s, indent=1, ensure_ascii=False) + "\n")
            folder.write(f"rows/{ids[i]}.json", json.dumps(rows, ensure_ascii=False) + "\n")
        results[i] = (s, rows, None)
        if bar is not None:
            bar.update(units[i] - ticked[i])
            ticked[i] = units[i]

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=sum(units), initial=sum(units[i] for i, r in enumerate(results) if r is not None),
                   unit="turn" if think is not None else "game",
                   desc=f"analyze ({engine}{', simulating' if think is not None else ''})", dynamic_ncols=True)
    interrupted = None
    try:
        with interrupts_raise():
            try:
                if jobs == 1 or len(todo) <= 1:
                    if todo:
                        _init(engine, think=think)
                    try:
                        for i in todo:
                            save(i, _one(str(paths[i]), ids[i], lang, player, coords, ui_lang, tick(i)))
                    finally:
                        if "analyzer" in _WORKER:  # its simulators' rollout threads end with the run
                            _WORKER.pop("analyzer").close()
                else:
                    import multiprocessing as mp
                    from concurrent.futures import ProcessPoolExecutor, as_completed

                    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
                    before = pool_children()
                    ex = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init,
                                             initargs=(engine, True, think))
                    try:
                        futs = {ex.submit(_one, str(paths[i]), ids[i], lang, player, coords, ui_lang): i for i in todo}
                        for f in as_completed(futs):
                            save(futs[f], f.result())
                    except BaseException:
                        kill_workers(before, ex)
                        raise
                    finally:
                        ex.shutdown(wait=True, cancel_futures=True)
            except BaseException as e:
                if not is_interrupt(e):
                    if not any(n.startswith("rows/") for n in folder.owned):
                        folder.discard(remove_root=made)  # nothing finished: leave no half folder
                    raise
                interrupted = e
            _write_outputs(folder, engine, paths, results, res, interrupted is not None, coords, ui_lang)
            if interrupted is None and not res.summaries:
                # every record failed: an analysis of nothing is not kept (the retry starts afresh)
                folder.discard(remove_root=made)
                res.discarded = True
    finally:
        if bar is not None:
            bar.close()
    if interrupted is not None:
        n = len(res.summaries) + len(res.failed)
        raise Interrupted(f"interrupted: {n} of {len(paths)} records done; {res.out}/turns.parquet, "
                          f"summary.json and index.html hold them; run the same command again to "
                          f"analyse the other {len(paths) - n}")
    return res


def lexicons_of(summaries: list[dict]) -> list[str]:
    """The lexicons that answered the games of ``summaries``, each once, in order."""
    return list(dict.fromkeys(s.get("lexicon") or "?" for s in summaries))


def _write_outputs(folder, engine: str, paths, results, res: BatchResult, interrupted: bool,
                   coords: str = "standard", ui_lang: str | None = None) -> None:
    """The table, the summary and the index of the records done (``results``); the index
    writes moves in ``coords``, in ``ui_lang``."""
    from .analyze import rows_frame
    from .report import batch_tables, index_html

    pending = []
    for p, r in zip(paths, results):
        if r is None:
            pending.append(str(p))
        elif r[0] is None:
            res.failed.append((str(p), r[1]))
        else:
            res.summaries.append(r[0])
            res.rows.extend(r[1])
    frame = rows_frame(res.rows)
    folder.write_with("turns.parquet", lambda tmp: frame.write_parquet(tmp))
    tables = batch_tables(res.summaries, res.rows)
    summary = {"engine": engine, "lexicons": lexicons_of(res.summaries),
               "off_list": sum(s.get("off_list") or 0 for s in res.summaries),
               "games": res.summaries, "players": tables["players"], "failed": [list(f) for f in res.failed]}
    if interrupted:
        summary.update(interrupted=True, pending=pending)
    folder.write("summary.json", json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    folder.write("index.html", index_html(res.summaries, res.rows, res.failed, engine, coords, ui_lang=ui_lang))
