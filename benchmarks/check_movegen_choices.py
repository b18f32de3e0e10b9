"""heuri3's choices on positions cut from match records: record them, or compare with a record.

    # before a move-generator change (e.g. from main's checkout): record
    .venv/bin/python benchmarks/check_movegen_choices.py record --lang en --matches DIR --out ~/.cache/heuri-17/choices-en.tsv
    # after it: every choice must be the same
    .venv/bin/python benchmarks/check_movegen_choices.py compare --lang en --matches DIR --against ~/.cache/heuri-17/choices-en.tsv

Positions: every play, exchange or pass of the records in ``DIR/games`` with at least one
tile in the bag (:func:`movegen_positions.cut_boards`), the mover's own rack, the
opponent's rack unknown, at most ``--positions`` (500). The choice is heuri3's
(``heuri.players.make_player("heuri3")``), written in GCG notation with its score. The
record is a TSV file (``cgp<TAB>move``); ``compare`` prints the positions whose choice
differs and exits 1 when any does.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def choices(lang: str, matches: str, n: int) -> list[tuple[str, str]]:
    from heuri import load_pack
    from heuri.game import Position
    from heuri.players import make_player
    from movegen_positions import cgp_line, cut_boards

    pack = load_pack(lang)
    cuts = cut_boards(matches, pack.spec, min_tiles=1, min_left=1, limit=n)
    player = make_player("heuri3", pack)
    out = []
    for c in cuts:
        line = cgp_line(c)
        m = player.choose(Position.from_cgp(line, pack.spec))
        out.append((line, f"{m.gcg(pack.spec)} {getattr(m, 'score', '')}".strip()))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("record", "compare"))
    ap.add_argument("--lang", required=True)
    ap.add_argument("--matches", required=True, help="a match folder (heuri match --out)")
    ap.add_argument("--positions", type=int, default=500)
    ap.add_argument("--out", help="record: the TSV file to write (must not exist)")
    ap.add_argument("--against", help="compare: the TSV file recorded before")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    got = choices(a.lang, a.matches, a.positions)
    dt = time.perf_counter() - t0
    if a.mode == "record":
        out = Path(a.out)
        if out.exists():
            sys.exit(f"{out}: exists; not overwritten")
        out.write_text("".join(f"{c}\t{m}\n" for c, m in got), encoding="utf-8")
        print(f"{a.lang}: {len(got)} choices recorded in {out} ({dt:.1f} s)")
        return 0
    want = [tuple(line.rstrip("\n").split("\t")) for line in Path(a.against).read_text(encoding="utf-8").splitlines()]
    if [c for c, _ in want] != [c for c, _ in got]:
        print(f"{a.lang}: the positions differ from the record's ({len(want)} recorded, {len(got)} now)")
        return 1
    diff = [(c, w, g) for (c, w), (_, g) in zip(want, got) if w != g]
    for c, w, g in diff:
        print(f"DIFF {c}\n  recorded {w}\n  now      {g}")
    print(f"{a.lang}: {len(got) - len(diff)}/{len(got)} choices identical ({dt:.1f} s)")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
