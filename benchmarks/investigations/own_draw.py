"""How often drawing our own next rack from what the opponent likely kept changes heuri6's move.

heuri6 plays itself; at each decision that follows the opponent's move with tiles in the bag,
``heuri6`` (our draw uniform from the unseen tiles) and ``heuri6@draw=1`` (our draw from the
unseen tiles less what the inference says they kept) are asked for a move, with the same
posterior (the inference's draws are seeded by the position). Prints the decisions, how many
of them changed, and, over the changed ones, how many tiles the two moves keep.

    .venv/bin/python benchmarks/investigations/own_draw.py --lang en --games 20
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", default="en")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=900, help="the first game's bag seed (then +1 a game)")
    args = ap.parse_args(argv)

    import numpy as np

    from heuri import load_pack
    from heuri.core.game import Game
    from heuri.core.move import Placement
    from heuri.play.players import make_player

    pack = load_pack(args.lang)
    spec = pack.spec
    plain = make_player("heuri6", pack)
    drawn = make_player("heuri6@draw=1", pack)
    decisions = changed = 0
    kept = []  # (tiles kept by heuri6's move, by heuri6@draw=1's) where they differ
    for g_no in range(args.games):
        game = Game(spec, seed=args.seed + g_no)
        prev = None
        while not game.position.over:
            pos = game.position
            if prev is not None:
                plain.observe(*prev)
                drawn.observe(*prev)
            move = plain.choose(pos)
            if prev is not None and pos.bag_size > 0 and plain.info.get("inferred"):
                other = drawn.choose(pos)
                decisions += 1
                if other != move:
                    changed += 1
                    left = int(np.asarray(pos.rack).sum())
                    kept.append(tuple(left - (m.n_tiles if isinstance(m, Placement) else 0)
                                      for m in (move, other)))
            prev = (pos, move)
            game.play(move)
        print(f"game {g_no + 1}/{args.games}: {changed} of {decisions} decisions changed so far", flush=True)
    print(f"{args.lang}: heuri6@draw=1 chose another move than heuri6 at {changed} of {decisions} decisions "
          f"with an inference ({100 * changed / max(decisions, 1):.1f} %)")
    if kept:
        a = np.array(kept)
        print(f"tiles kept where they differ, mean: heuri6 {a[:, 0].mean():.2f}, heuri6@draw=1 {a[:, 1].mean():.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
