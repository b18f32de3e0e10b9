"""Does the inference's posterior say more about the opponent's rack than the uniform draw?

heuri5 plays both seats of self-play games. At each decision with a whole bag's draw left
(7 or more tiles in the bag) that follows a move of the opponent, the script infers what the
opponent kept with that move (:func:`heuri.play.players.infer_seen`) and compares two
predictions of whether the opponent's rack, which the game knows, is a bingo that can land on
the board (δ of its septet):

- the uniform draw: Σ_s δ(s)·p(s | ∅), their rack R tiles of the unseen tiles;
- the posterior predictive: the same with heuri6's terms
  (:func:`heuri.eval.probability.opponent_mixture`).

It prints, for each model of the opponent (the leave table heuri6 uses, heuri2, other
budgets), the mean prediction, the log loss and its paired difference from the uniform draw
with a standard error, and the posterior's effective number of leaves (1 / Σ π², median over
the decisions); the posterior's ratio to the uniform prediction by the tiles the
opponent kept (x2: an exchange of two); and how often heuri6's choice differs from heuri5's
at the same decisions.

    .venv/bin/python benchmarks/investigations/inference_prediction.py --lang en --games 12
"""
from __future__ import annotations

import argparse
from collections import defaultdict
from math import comb

import numpy as np


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="en")
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--seed", type=int, default=900, help="the first game's bag seed (then +1 a game)")
    args = ap.parse_args(argv)

    from heuri import load_pack
    from heuri.core.game import Game
    from heuri.core.move import Exchange, Placement
    from heuri.eval.bingo import BoardDelta
    from heuri.eval.evaluate import LeaveModel, make_evaluator
    from heuri.eval.probability import key_rows, leave_tables, opponent_mixture
    from heuri.play.players import infer_seen, make_player

    pack = load_pack(args.lang)
    spec = pack.spec
    rows = key_rows(pack)
    index = {bytes(r.astype(np.uint8)): i for i, r in enumerate(rows)}
    ones = np.ones(len(rows))
    leave_model = LeaveModel(pack)
    models = {"leave table, 24 racks (heuri6)": (leave_model, 24, 6.0),
              "leave table, 96 racks": (leave_model, 96, 6.0),
              "leave table, 200 racks (infer=2)": (leave_model, 200, 6.0),
              "leave table, 24 racks, τ = 3": (leave_model, 24, 3.0),
              "heuri2, 24 racks": (make_evaluator(pack, "heuri2"), 24, 6.0)}
    h5 = make_player("heuri5", pack)
    h6 = make_player("heuri6", pack)
    pred = {name: [] for name in models}
    ess = {name: [] for name in models}  # the posterior's effective number of leaves, 1 / Σ π²
    uniform, truth = [], []
    ratio = defaultdict(list)
    decisions = changed = 0
    for g_no in range(args.games):
        game = Game(spec, seed=args.seed + g_no)
        prev = None
        while not game.position.over and game.position.bag_size > 0:
            pos = game.position
            m5 = h5.choose(pos)
            if prev is not None:
                h6.observe(prev[0], prev[1])
                if h6.choose(pos) != m5 and h6.info.get("inferred"):
                    changed += 1
                decisions += bool(h6.info.get("inferred"))
            if prev is not None and pos.bag_size >= spec.rack_size:
                opp = 1 - pos.to_move
                U = pos.unseen()
                bd = BoardDelta(pack, pos.board.letters)
                d = np.asarray(bd.delta, bool)
                ov = leave_tables(pack, pos.rack, U, d, ones, pos.bag_size, every=False, opponent=True)[5]
                c = comb(int(U.sum()), spec.rack_size)
                theirs = np.sort(np.repeat(np.arange(spec.n_kinds), pos.racks[opp])).astype(np.uint8)
                k = index.get(bytes(theirs))
                truth.append(bool(k is not None and d[k]))
                q0 = float(ov[d].sum()) / c
                uniform.append(q0)
                for name, (model, n, tau) in models.items():
                    inf = infer_seen(model, prev + (pos.board.letters,), pos, samples=n, max_exact=n,
                                     temperature=tau)
                    q = q0
                    if inf is not None:
                        ess[name].append(1.0 / float((inf.posterior ** 2).sum()))
                        q = float(opponent_mixture(pack, bd.ix.holding, U, inf.leaves, inf.posterior,
                                                   inf.prior, ov)[d].sum()) / c
                    pred[name].append(q)
                    if name.endswith("(heuri6)") and q0 > 0:
                        mv = prev[1]
                        kept = (f"x{mv.count}" if isinstance(mv, Exchange)
                                else str(spec.rack_size - sum(mv.new)) if isinstance(mv, Placement) else "pass")
                        ratio[kept].append(q / q0)
            prev = (pos, m5)
            game.play(m5)

    y = np.array(truth, float)

    def log_loss(q):
        q = np.clip(np.asarray(q), 1e-4, 1 - 1e-4)
        return -(y * np.log(q) + (1 - y) * np.log(1 - q))

    base = log_loss(uniform)
    print(f"{args.lang}: {len(y)} decisions, the opponent's rack a bingo that lands at {int(y.sum())} "
          f"({100 * y.mean():.1f} %)")
    print(f"{'prediction':34s} {'mean':>6s} {'log loss':>9s} {'vs uniform':>18s} {'leaves (1/Σπ²)':>15s}")
    print(f"{'uniform draw':34s} {100 * np.mean(uniform):5.1f}% {base.mean():9.4f}")
    for name, q in pred.items():
        ll = log_loss(q)
        dd = ll - base
        print(f"{name:34s} {100 * np.mean(q):5.1f}% {ll.mean():9.4f} {dd.mean():+9.4f} ± {dd.std() / np.sqrt(len(dd)):.4f}"
              f" {np.median(ess[name]):10.1f} median")
    print("the posterior's prediction over the uniform draw's, by the tiles the opponent kept:")
    for kept in sorted(ratio):
        r = np.array(ratio[kept])
        print(f"  kept {kept:>4s}: {len(r):3d} decisions, mean ×{r.mean():.2f}, from ×{r.min():.2f} to ×{r.max():.2f}")
    all_r = np.concatenate([np.array(v) for v in ratio.values()])
    print(f"  all: mean ×{all_r.mean():.2f}")
    print(f"heuri6 chose another move than heuri5 at {changed} of {decisions} decisions with an inference "
          f"({100 * changed / max(decisions, 1):.1f} %)")


if __name__ == "__main__":
    main()
