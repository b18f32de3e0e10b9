"""Midgame positions cut from match records, as CGP lines, for the move-generator benchmarks.

A match folder (``heuri match --out DIR``) holds one GCG record a game in ``DIR/games``.
:func:`cut_boards` replays each record (:func:`heuri.gcg.replay`) and keeps the position
before every play, exchange or pass whose rack the record gives, inside the midgame window
(at least ``min_tiles`` tiles on the board, at least ``min_left`` tiles neither on the board
nor on the two racks, so that exchanges of 7 are legal whatever the opponent holds).

:func:`with_blanks` gives each cut board a rack of the same size with exactly 0, 1 or 2
blanks, drawn (seeded) from the tiles the mover does not see, so that the three rack
classes are timed on the same boards. CGP lines name only the mover's rack (the opponent's
is unknown, as a player sees the game).
"""
from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Cut:
    """One position: ``game`` (record path), ``event`` (index of the event played from it),
    ``board`` (heuri.board.Board), ``rack`` (tile ids, blank = L), ``scores`` (mover first),
    ``unseen`` (L+1,) int64: the tiles not on the board (bag and both racks)."""

    game: str
    event: int
    board: object
    rack: tuple
    scores: tuple
    unseen: np.ndarray


def cut_boards(folder, spec, per_game: int = 100, min_tiles: int = 12, min_left: int = 14,
               limit: int | None = None) -> list[Cut]:
    """The midgame positions of every record in ``folder/games/*.gcg`` (see the module doc),
    at most ``per_game`` a game (taken evenly over the game), at most ``limit`` in all.
    Raises FileNotFoundError when the folder has no records."""
    from heuri.gcg import read_gcg_file, replay
    from heuri.move import parse_rack

    files = sorted(glob.glob(str(Path(folder) / "games" / "*.gcg")))
    if not files:
        raise FileNotFoundError(f"{folder}: no GCG records in games/ (make them with `heuri match --out {folder}`)")
    dist = spec.distribution()
    out: list[Cut] = []
    for f in files:
        r = replay(read_gcg_file(f), spec)
        evs = [s.event for s in r.steps]
        mine = []
        for k, ev in enumerate(evs):
            if not (ev.rack and ev.kind in ("play", "exchange", "pass")) or k == 0:
                continue
            board = r.board_at(k)
            on = board.tile_counts()
            if int((board.letters >= 0).sum()) < min_tiles or int((dist - on).sum()) - 2 * spec.rack_size < min_left:
                continue
            tot = r.steps[k - 1].recorded_totals
            mover = ev.player
            rack = tuple(parse_rack(ev.rack, spec))
            mine.append(Cut(f, k, board, rack, (tot[mover], tot[1 - mover]), dist - on))
        if len(mine) > per_game:
            mine = [mine[i] for i in np.linspace(0, len(mine) - 1, per_game).round().astype(int)]
        out.extend(mine)
        if limit is not None and len(out) >= limit:
            return out[:limit]
    return out


def cgp_line(cut: Cut, rack=None) -> str:
    """The CGP line of a cut (its own rack, or ``rack``: tile ids), the opponent's rack unknown."""
    from heuri.cgp import CgpRecord, format_cgp

    return format_cgp(CgpRecord(cut.board, (tuple(cut.rack if rack is None else rack), None), cut.scores, 0, ()))


def with_blanks(cut: Cut, spec, n_blanks: int, rng) -> tuple | None:
    """A rack (tile ids) of ``len(cut.rack)`` tiles with exactly ``n_blanks`` blanks, the
    letters drawn from the unseen letters; None when fewer blanks are unseen."""
    L = spec.n_letters
    if cut.unseen[L] < n_blanks:
        return None
    pool = np.repeat(np.arange(L), cut.unseen[:L])
    k = min(len(cut.rack), spec.rack_size) - n_blanks
    letters = sorted(int(t) for t in rng.choice(pool, size=k, replace=False)) if k > 0 else []
    return tuple(letters + [L] * n_blanks)


def lines_by_blanks(cuts, spec, positions: int, seed: int) -> dict[int, list[str]]:
    """CGP lines for 0, 1 and 2 blanks on the rack: for each class in that order, up to
    ``positions`` cuts with a rack of :func:`with_blanks`, from one generator seeded ``seed``
    (so every script that asks for the same cuts and seed times the same racks)."""
    rng = np.random.default_rng(seed)
    out = {}
    for nb in (0, 1, 2):
        lines = []
        for c in cuts:
            rack = with_blanks(c, spec, nb, rng)
            if rack is not None:
                lines.append(cgp_line(c, rack))
            if len(lines) == positions:
                break
        out[nb] = lines
    return out
