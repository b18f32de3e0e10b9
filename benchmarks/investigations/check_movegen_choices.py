"""An engine's choices on positions cut from match records: record them, or compare with a record.

    # before a move-generator change (e.g. from main's checkout): record
    .venv/bin/python benchmarks/investigations/check_movegen_choices.py record --lang en --matches DIR --out ~/.cache/heuri-17/choices-en.tsv
    # after it: every choice must be the same
    .venv/bin/python benchmarks/investigations/check_movegen_choices.py compare --lang en --matches DIR --against ~/.cache/heuri-17/choices-en.tsv
    # an evaluator's speed-up: heuri4's choice and its top 5 values (v), 400 positions over 100 games
    .venv/bin/python benchmarks/investigations/check_movegen_choices.py record --engine heuri4 --values 5 --per-game 4 --lang en --matches DIR --out choices4-en.tsv

Positions: every play, exchange or pass of the records in ``DIR/games`` with at least one
tile in the bag (:func:`movegen_positions.cut_boards`), the mover's own rack, the
opponent's rack unknown, at most ``--positions`` (500), at most ``--per-game`` (100) a game
taken evenly over it. The choice is ``--engine``'s (default heuri3;
``heuri.players.make_player``), written in GCG notation with its score. The record is a TSV
file (``cgp<TAB>move``); ``compare`` prints the positions whose choice differs and exits 1
when any does.

``--values N`` (an evaluator of :mod:`heuri.evaluate`: heuri2, heuri3, heuri4...): the choice
is the top of the evaluator's ranking (``make_evaluator(pack, engine).rank``, the move the
player makes with tiles in the bag) and a third column holds its first N candidates with
their v (``gcg=v`` joined by ``;``, v written in full precision); ``compare`` then also
requires the same N moves in the same order with values equal to a relative ``--tol``
(default 1e-9: float rounding).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]  # here, and benchmarks/


def choices(lang: str, matches: str, n: int, engine: str = "heuri3", values: int = 0,
            per_game: int = 100) -> list[tuple[str, ...]]:
    """(cgp, choice) per position, or (cgp, choice, top values) with ``values`` > 0."""
    from heuri import load_pack
    from heuri.game import Position
    from heuri.move import Move
    from heuri.players import ENGINES, make_player
    from movegen_positions import cgp_line, cut_boards

    pack = load_pack(lang)
    spec = pack.spec
    cuts = cut_boards(matches, spec, per_game=per_game, min_tiles=1, min_left=1, limit=n)
    if values > 0:
        from heuri.evaluate import make_evaluator

        ev = make_evaluator(pack, ENGINES[engine][0] if engine in ENGINES else engine)
    else:
        player = make_player(engine, pack)
    out = []
    for c in cuts:
        line = cgp_line(c)
        pos = Position.from_cgp(line, spec)
        if values <= 0:
            m = player.choose(pos)
            out.append((line, f"{m.gcg(spec)} {getattr(m, 'score', '')}".strip()))
            continue
        r = ev.rank(pos)
        ms = [Move.from_record(r.moves[i], spec) for i in range(min(values, len(r)))]
        m = ms[0]
        top = ";".join(f"{x.gcg(spec)}={float(r.v[i])!r}" for i, x in enumerate(ms))
        out.append((line, f"{m.gcg(spec)} {getattr(m, 'score', '')}".strip(), top))
    return out


def same_values(want: str, got: str, tol: float) -> bool:
    """Two ``gcg=v;...`` columns name the same moves in order, with values equal to ``tol``."""
    a = [x.rsplit("=", 1) for x in want.split(";")]
    b = [x.rsplit("=", 1) for x in got.split(";")]
    return len(a) == len(b) and all(
        ma == mb and abs(float(va) - float(vb)) <= tol * max(1.0, abs(float(va)))
        for (ma, va), (mb, vb) in zip(a, b))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("record", "compare"))
    ap.add_argument("--lang", required=True)
    ap.add_argument("--matches", required=True, help="a match folder (heuri match --out)")
    ap.add_argument("--positions", type=int, default=500)
    ap.add_argument("--per-game", type=int, default=100, help="at most this many positions a game")
    ap.add_argument("--engine", default="heuri3", help="the engine whose choices are checked (default heuri3)")
    ap.add_argument("--values", type=int, default=0,
                    help="also record the evaluator's first N candidates and their v (see the doc)")
    ap.add_argument("--tol", type=float, default=1e-9, help="compare: relative tolerance of the values")
    ap.add_argument("--out", help="record: the TSV file to write (must not exist)")
    ap.add_argument("--against", help="compare: the TSV file recorded before")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    got = choices(a.lang, a.matches, a.positions, a.engine, a.values, a.per_game)
    dt = time.perf_counter() - t0
    if a.mode == "record":
        out = Path(a.out)
        if out.exists():
            sys.exit(f"{out}: exists; not overwritten")
        out.write_text("".join("\t".join(row) + "\n" for row in got), encoding="utf-8")
        print(f"{a.lang}: {len(got)} choices recorded in {out} ({dt:.1f} s)")
        return 0
    want = [tuple(line.rstrip("\n").split("\t")) for line in Path(a.against).read_text(encoding="utf-8").splitlines()]
    if [w[0] for w in want] != [g[0] for g in got]:
        print(f"{a.lang}: the positions differ from the record's ({len(want)} recorded, {len(got)} now)")
        return 1
    diff = [(w[0], w[1:], g[1:]) for w, g in zip(want, got)
            if w[1] != g[1] or len(w) != len(g) or (len(w) > 2 and not same_values(w[2], g[2], a.tol))]
    for c, w, g in diff:
        print(f"DIFF {c}\n  recorded {' | '.join(w)}\n  now      {' | '.join(g)}")
    what = f" and top-{a.values} values within {a.tol:g}" if a.values > 0 else ""
    print(f"{a.lang} {a.engine}: {len(got) - len(diff)}/{len(got)} choices identical{what} ({dt:.1f} s)")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
