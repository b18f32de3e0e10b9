"""How well does the inference's model of the player fit real players' leaves?

Real game records give, for the player whose racks were recorded, both the rack before each
move and the tiles played, so the leave the player kept is known. The inference
(:mod:`heuri.search.inference`) says, from the move alone, how likely each leave was:

    P(L | m) = P(L) · P(m | T + L) / Z,   Z = Σ_L' P(L') · P(m | T + L')

with ``T`` the tiles played, ``P(L)`` the uniform draw of the leave from the tiles off the
board, and ``P(m | R)`` the soft maximum of the model's values with temperature τ. So the
log-probability the posterior gains on the leave the player really kept, over the uniform
draw, is

    gain = log P(L* | m) − log P(L*) = log P(m | T + L*) − log Z,

positive when the move told the model something true. Its mean over the decisions is the
log-likelihood of the players' leaves under the model, up to a constant: the τ that
maximises it is the maximum-likelihood temperature. ``Z`` is estimated by importance
sampling (leaves drawn uniformly from the tiles off the board less ``T``, weighted as
:func:`heuri.search.inference.infer_leave` weights them), with the same draws for every τ.

The tiles off the board stand for the unseen tiles: the records do not give the other
player's rack before the move, so it stays in the pool. Moves the model never lists from
the real rack (a word outside heuri's list, a play the record later withdrew) are counted
and left out.

    .venv/bin/python benchmarks/investigations/inference_real_players.py --lang en
    HEURI_CASES=RECORDS .venv/bin/python benchmarks/investigations/inference_real_players.py --lang en --models leave heuri2

Records: ``$HEURI_CASES/<lang>/*.gcg`` when ``HEURI_CASES`` is set, else ``tests/data/gcg``.
"""
from __future__ import annotations

import argparse
import os
from math import lgamma
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
TAUS = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 14.0, 20.0, 40.0)


def records(lang: str) -> list[Path]:
    root = Path(os.environ["HEURI_CASES"]) if os.environ.get("HEURI_CASES") else REPO / "tests" / "data" / "gcg"
    files = sorted((root / lang).glob("*.gcg")) if (root / lang).is_dir() else []
    return files or sorted(p for p in root.glob("*.gcg") if p.name.startswith(lang))


def decisions(pack, files):
    """(letters, blanks, off-board tiles U, rack R*, played T, placement key) of each
    recorded placement whose whole rack is known and that keeps at least one tile."""
    from heuri.core.errors import HeuriError
    from heuri.core.move import Move, Placement, parse_rack
    from heuri.eval.probability import augmented_bag
    from heuri.formats.gcg import read_gcg_file, replay
    from heuri.search.inference import placement_key

    spec = pack.spec
    out, unread = [], 0
    for f in files:
        try:
            r = replay(read_gcg_file(f), spec, end_rule="auto", words=pack.words)
        except (HeuriError, ValueError):
            unread += 1
            continue
        steps = r.steps
        for i, st in enumerate(steps):
            e = st.event
            if e.kind != "play" or (i + 1 < len(steps) and steps[i + 1].event.kind == "withdrawn"):
                continue
            try:
                ids = parse_rack(e.rack, spec, size=spec.rack_size)
            except HeuriError:
                continue
            if len(ids) != spec.rack_size:
                continue
            before = r.board_at(i)
            try:
                mv = before.canonical(Move.from_gcg(e.move, before, spec))
            except (HeuriError, ValueError):
                continue
            if not isinstance(mv, Placement):
                continue
            R = np.bincount(ids, minlength=spec.n_kinds).astype(np.int64)
            T = np.asarray(mv.rack_counts(spec), np.int64)
            if int(T.sum()) >= spec.rack_size or np.any(T > R):
                continue
            letters, blanks = before.letters, before.blanks
            U = augmented_bag(spec, letters, blanks, np.zeros(spec.n_kinds, np.int64))
            if np.any(R > U):
                continue
            key = placement_key(mv, letters.shape[0], spec.n_letters)
            out.append((letters, blanks, U, R, T, key))
    return out, unread


def likelihoods(model, letters, blanks, U, rack, key, rack_size):
    """P(m | rack) for each τ of TAUS: (len(TAUS),) float64."""
    from heuri.core.movegen import PLACEMENT
    from heuri.search.inference import placement_keys

    mover_unseen = U - rack
    bag = max(int(mover_unseen.sum()) - rack_size, 0)
    rk = model.rank_arrays(letters, blanks, rack, mover_unseen, bag)
    hit = (rk.moves["kind"] == PLACEMENT) & (placement_keys(rk.moves, letters.shape[0], model.spec.n_letters) == key)
    if not hit.any():
        return np.zeros(len(TAUS))
    v = np.asarray(rk.v, np.float64)
    out = np.empty(len(TAUS))
    for j, tau in enumerate(TAUS):
        z = np.exp((v - v.max()) / tau)
        out[j] = z[hit].sum() / z.sum()
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="en")
    ap.add_argument("--models", nargs="+", default=["leave"], choices=["leave", "heuri2"],
                    help="the models of the player: heuri6's leave table (leave), heuri2")
    ap.add_argument("--samples", type=int, default=64, help="leaves drawn a decision for Z")
    ap.add_argument("--limit", type=int, default=0, help="at most this many decisions (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    from heuri import load_pack
    from heuri.eval.evaluate import LeaveModel, make_evaluator

    pack = load_pack(args.lang)
    spec = pack.spec
    files = records(args.lang)
    dec, unread = decisions(pack, files)
    if args.limit:
        dec = dec[:args.limit]
    print(f"{args.lang}: {len(files)} records ({unread} not replayed on heuri's list), {len(dec)} placements "
          f"with the whole rack recorded and a leave kept; {args.samples} leaves drawn a decision for Z")
    for name in args.models:
        model = LeaveModel(pack) if name == "leave" else make_evaluator(pack, name)
        rng = np.random.default_rng(args.seed)
        gains, kept, unlisted = [], [], 0
        for letters, blanks, U, R, T, key in dec:
            own = likelihoods(model, letters, blanks, U, R, key, spec.rack_size)
            if not own.any():
                unlisted += 1
                continue
            k = int(R.sum() - T.sum())
            free = U - T
            tiles = np.repeat(np.arange(len(free)), free)
            num = np.zeros(len(TAUS))
            den = 0.0
            for _ in range(args.samples):
                L = np.bincount(tiles[rng.choice(len(tiles), size=k, replace=False)], minlength=len(free))
                # P(R)/q(L) up to a constant: Π L_i! / (L_i + T_i)! (the inference's weights)
                w = float(np.exp(sum(lgamma(l + 1) - lgamma(l + t + 1) for l, t in zip(L, T) if t)))
                num += w * likelihoods(model, letters, blanks, U, T + L, key, spec.rack_size)
                den += w
            Z = num / den
            with np.errstate(divide="ignore"):
                gains.append(np.log(own) - np.log(Z))
            kept.append(k)
        g = np.array(gains)
        kept = np.array(kept)
        print(f"\nmodel {name}: {len(g)} decisions ({unlisted} moves the model does not list from the real rack)")
        print("τ (points) | mean gain, nats [± 1.96 se] | share of decisions > 0 | by tiles kept 1-2 / 3-4 / 5-6")
        for j, tau in enumerate(TAUS):
            col = g[:, j]
            se = col.std(ddof=1) / np.sqrt(len(col))
            parts = [col[(kept >= a) & (kept <= b)].mean() if ((kept >= a) & (kept <= b)).any() else float("nan")
                     for a, b in ((1, 2), (3, 4), (5, 6))]
            print(f"{tau:10g} | {col.mean():+.3f} [± {1.96 * se:.3f}] | {np.mean(col > 0):.2f} | "
                  + " / ".join(f"{p:+.3f}" for p in parts))
        best = int(np.argmax(g.mean(axis=0)))
        ref = TAUS.index(6.0)
        d = g[:, best] - g[:, ref]
        print(f"maximum-likelihood τ on this grid: {TAUS[best]:g} (mean gain {g[:, best].mean():+.3f}; "
              f"minus τ = 6: {d.mean():+.3f} ± {1.96 * d.std(ddof=1) / np.sqrt(len(d)):.3f})")


if __name__ == "__main__":
    main()
