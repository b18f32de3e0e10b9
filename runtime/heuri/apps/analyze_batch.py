"""``heuri analyze`` on many records: find them, analyse them (in parallel), write the outputs.

Output folder (``--out DIR``; nothing in it is overwritten without ``force``):

- ``turns.parquet``: every analysed turn of every game, the columns of
  :data:`heuri.analyze.ROW_SCHEMA`;
- ``summary.json``: the engine, each game's summary (:meth:`heuri.analyze.GameAnalysis.summary`),
  the per-player batch figures (:func:`heuri.report.batch_tables`) and the records that
  failed (``[path, message]``);
- ``index.html``: the batch page; ``games/<id>.html`` and ``games/<id>.json``: each game's
  page and summary.

A record that cannot be read or replayed (a malformed line, a missing pack) is listed in
``failed`` with its message (file and line) and the others are still analysed.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import HeuriError


class OutputExistsError(HeuriError):
    """The output folder already holds files and ``force`` was not given."""


@dataclass
class BatchResult:
    """``summaries`` (one dict a game analysed, input order), ``rows`` (every turn),
    ``failed`` (``(path, message)``), ``out`` (the folder written)."""

    out: Path
    summaries: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    failed: list = field(default_factory=list)


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


def check_out(out: Path, force: bool) -> None:
    """Refuse an output folder that holds anything unless ``force`` (then the files of an
    analysis are replaced; nothing else in the folder is touched)."""
    if out.exists() and not out.is_dir():
        raise OutputExistsError(f"--out {out}: is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise OutputExistsError(f"--out {out}: the folder already holds files; give --force to overwrite "
                                f"them, or another --out")


_WORKER: dict = {}


def _init(engine: str) -> None:
    from .analyze import Analyzer

    _WORKER["analyzer"] = Analyzer(engine)


def _one(path: str, gid: str, lang, player, out: str):
    """Analyse one record and write its page and summary; returns (summary, rows) or
    (None, message)."""
    from .report import game_html

    try:
        g = _WORKER["analyzer"].analyze(path, lang=lang, player=player, game_id=gid)
    except HeuriError as e:
        return None, str(e)
    s = g.summary()
    games = Path(out) / "games"
    games.mkdir(parents=True, exist_ok=True)
    (games / f"{gid}.html").write_text(game_html(g, index_href="../index.html"), encoding="utf-8")
    (games / f"{gid}.json").write_text(json.dumps(s, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return s, g.rows


def run_batch(inputs, out, engine: str = "heuri3", lang: str | None = None, player: str | None = None,
              jobs: int = 1, force: bool = False, progress: bool = True) -> BatchResult:
    """Analyse every record of ``inputs`` (see :func:`find_records`) with ``engine`` and
    write the outputs under ``out`` (module docstring). ``jobs``: worker processes;
    ``progress``: a tqdm bar on stderr. Raises HeuriError before any work for a bad input
    path, an unknown engine, a bad ``jobs`` or an output folder that is not empty (without
    ``force``)."""
    from .analyze import Analyzer, rows_frame
    from .report import batch_tables, index_html

    if jobs < 1:
        raise HeuriError(f"--jobs {jobs}: give at least 1")
    paths = find_records(inputs)
    Analyzer(engine)  # an unknown engine fails here, before anything is written
    out = Path(out)
    check_out(out, force)
    out.mkdir(parents=True, exist_ok=True)
    ids = game_ids(paths)
    res = BatchResult(out)
    results: list = [None] * len(paths)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(paths), unit="game", desc=f"analyze ({engine})", dynamic_ncols=True)
    try:
        if jobs == 1 or len(paths) == 1:
            _init(engine)
            for i, (p, gid) in enumerate(zip(paths, ids)):
                results[i] = _one(str(p), gid, lang, player, str(out))
                if bar is not None:
                    bar.update(1)
        else:
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor, as_completed

            ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
            with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init, initargs=(engine,)) as ex:
                futs = {ex.submit(_one, str(p), gid, lang, player, str(out)): i
                        for i, (p, gid) in enumerate(zip(paths, ids))}
                for f in as_completed(futs):
                    results[futs[f]] = f.result()
                    if bar is not None:
                        bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    for p, (s, rows) in zip(paths, results):
        if s is None:
            res.failed.append((str(p), rows))
        else:
            res.summaries.append(s)
            res.rows.extend(rows)
    rows_frame(res.rows).write_parquet(out / "turns.parquet")
    tables = batch_tables(res.summaries, res.rows)
    summary = {"engine": engine, "games": res.summaries, "players": tables["players"],
               "failed": [list(f) for f in res.failed]}
    (out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "index.html").write_text(index_html(res.summaries, res.rows, res.failed, engine), encoding="utf-8")
    return res
