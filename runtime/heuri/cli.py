"""The ``heuri`` command.

Each subcommand is a small function ``cmd_<name>(args)``; its parser is declared in
``build_parser``. Errors a user can cause (a bad CGP, a missing pack, a malformed GCG line)
are HeuriError/ValueError and print as one line ``heuri: error: ...`` with exit status 2;
anything else is a bug and keeps its traceback.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from . import __version__
from .errors import HeuriError


# -- packs ------------------------------------------------------------------------------
def cmd_packs(args) -> int:
    """List the built language packs with their counts."""
    from rich.console import Console
    from rich.table import Table

    from .pack import build_root, list_packs

    packs = list_packs()
    if not packs:
        print(f"no built packs under {build_root()}; build them with: snakemake --cores 2 es en fr")
        return 1
    t = Table(title=f"language packs in {build_root()}")
    for col in ("lang", "lexicon", "words", "septets", "pure septets", "reduced octets", "key set", "status"):
        t.add_column(col, justify="right" if col not in ("lang", "lexicon", "status") else "left")
    for p in packs:
        c = p["counts"]
        t.add_row(p["language"], p["lexicon"], *(f"{c.get(k, 0):,}" for k in (
            "words", "septets", "pure_septets", "reduced_octets", "keyset")), p["status"])
    Console().print(t)
    return 0


# -- siu ----------------------------------------------------------------------------------
def cmd_siu(args) -> int:
    """Speak the SIU engine protocol on stdin/stdout (see heuri.siu)."""
    from .siu import HeuriBackend, serve

    if args.lang:  # a wrong --lang is the user's mistake: say so before the protocol starts
        from .pack import load_pack

        load_pack(args.lang)
    log = open(args.log, "a", encoding="utf-8") if args.log else None
    try:
        return serve(HeuriBackend(args.lang), log=log)
    finally:
        if log is not None:
            log.close()


# -- moves / replay / show (game core) ----------------------------------------------------
def _lang_or_guess(lang, guess, what: str) -> str:
    """``--lang`` if given, else the language named by the record, else an error."""
    if lang:
        return lang
    if guess:
        return guess
    raise HeuriError(f"{what}: cannot tell the language (no lexicon or letter distribution that names "
                     f"it); give --lang es|en|fr")


def cmd_moves(args) -> int:
    """Every legal move of a CGP position, best score first: GCG text, score, tiles played,
    leave. ``--json``: one object per line."""
    from .cgp import guess_language
    from .game import Position
    from .movegen import leaves
    from .pack import load_pack

    pack = load_pack(_lang_or_guess(args.lang, guess_language(args.cgp), "--cgp"))
    spec = pack.spec
    pos = Position.from_cgp(args.cgp, spec)
    moves = pos.moves(pack)
    order = np.argsort(-moves["score"].astype(np.int64), kind="stable")
    lv = leaves(pos.rack, moves)
    out = sys.stdout
    try:
        _write_moves(out, order, moves, lv, spec, args.json)
    except BrokenPipeError:  # `heuri moves ... | head`
        sys.stdout = open(os.devnull, "w")
    return 0


def _write_moves(out, order, moves, lv, spec, as_json: bool) -> None:
    import json

    from .move import Move, format_rack

    for i in order:
        m = Move.from_record(moves[i], spec)
        leave = format_rack([t for t in range(spec.n_kinds) for _ in range(int(lv[i, t]))], spec)
        row = {"move": m.gcg(spec), "score": int(moves[i]["score"]), "tiles_played": int(moves[i]["n_tiles"]),
               "leave": leave}
        if as_json:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:
            out.write(f"{row['score']:>5}  {row['move']:<24} {row['tiles_played']}  {leave}\n")
    if not as_json:
        out.write(f"{len(moves)} moves\n")


def cmd_replay(args) -> int:
    """Replay a GCG record, check every recorded score and total, print the mismatches;
    exit 1 if there is any (unknown words are warnings)."""
    from rich.console import Console
    from rich.table import Table

    from .gcg import read_gcg, replay
    from .pack import load_pack

    game = read_gcg(Path(args.game))
    pack = load_pack(_lang_or_guess(args.lang, game.guess_language(), args.game))
    r = replay(game, pack.spec, end_rule=args.end_rule, words=pack.words)
    con = Console() if sys.stdout.isatty() else Console(width=120)
    for line, msg in r.warnings:
        con.print(f"[yellow]warning[/yellow] line {line}: {msg}", highlight=False)
    if r.mismatches:
        t = Table(title=f"{args.game}: score mismatches (end rule {r.end_rule})")
        for col in ("line", "player", "event", "recorded", "engine", "rec. total", "eng. total", "note"):
            t.add_column(col, justify="right" if col in ("line", "recorded", "engine", "rec. total", "eng. total") else "left")
        for m in r.mismatches:
            t.add_row(str(m.line), m.nick, m.event, str(m.recorded_score), str(m.engine_score),
                      str(m.recorded_total), str(m.engine_total), m.note)
        con.print(t)
    n_ev = len(r.steps)
    state = "complete" if r.complete else ("ended" if r.over else "not finished")
    con.print(f"{args.game}: {n_ev} events, game {state}, {len(r.mismatches)} mismatches, "
              f"{len(r.warnings)} warnings (end rule {r.end_rule})", highlight=False)
    return 1 if r.mismatches else 0


def cmd_show(args) -> int:
    """Print a position (from --cgp, or a GCG record after --turn N events) as text."""
    from .spec import load_spec

    if args.cgp:
        from .cgp import guess_language
        from .game import Position

        spec = load_spec(_lang_or_guess(args.lang, guess_language(args.cgp), "--cgp"))
        pos = Position.from_cgp(args.cgp, spec)
        print(pos.board.render())
        for i in range(pos.n_players):
            seat = (pos.to_move + i) % pos.n_players
            rack = pos.rack_text(seat) or ("(unknown)" if pos.hidden[seat] else "")
            mark = "*" if i == 0 else " "
            print(f"{mark} player {seat + 1}: {pos.scores[seat]:>4}  {rack}")
        print(f"bag: {pos.bag_size} tiles; scoreless turns: {pos.scoreless}")
        return 0
    if not args.game:
        raise HeuriError("show: give --cgp \"CGP\" or a GCG file")
    from .gcg import read_gcg, replay

    game = read_gcg(Path(args.game))
    spec = load_spec(_lang_or_guess(args.lang, game.guess_language(), args.game))
    r = replay(game, spec, end_rule=args.end_rule)
    n = len(r.steps) if args.turn is None else args.turn
    if not 0 <= n <= len(r.steps):
        raise HeuriError(f"{args.game}: --turn {n}: the record has {len(r.steps)} events; give 0 to {len(r.steps)}")
    print(r.board_at(n).render())
    totals = r.steps[n - 1].recorded_totals if n else [0] * len(game.players)
    nxt = r.steps[n].event if n < len(r.steps) else None
    if n:
        ev = r.steps[n - 1].event
        print(f"after event {n} (line {ev.line}): >{ev.nick}: {ev.text().split(': ', 1)[-1]}")
    for i, (nick, name) in enumerate(game.players):
        rack = nxt.rack if nxt is not None and nxt.player == i else ""
        mark = "*" if nxt is not None and nxt.player == i else " "
        print(f"{mark} {nick} ({name}): {totals[i]:>4}  {rack}")
    return 0


def cmd_best(args) -> int:
    """Rank the candidate moves of a position with an evaluator (heuri.evaluate): move, j,
    e, p, v, leave and a fish mark, as a table or (--json) one JSON object per line with
    exactly those keys."""
    import json

    from .evaluate import make_evaluator
    from .pack import load_pack

    if args.top < 1:
        raise HeuriError(f"best: --top {args.top}: give at least 1")
    if args.k is not None and args.k <= 0:
        raise HeuriError(f"best: -k {args.k}: the bingo constant must be positive (the paper's is 2.5)")
    if args.top_n is not None and args.top_n < 1:
        raise HeuriError(f"best: --top-n {args.top_n}: give at least 1 (the paper's N is 20)")
    opts = {}
    if args.engine != "greedy" and args.k is not None:
        opts["k"] = args.k
    if args.engine == "heuri3":
        if args.top_n is not None:
            opts["top"] = args.top_n
        if args.exact:
            opts["exact"] = True
    if args.engine == "heuri1" and args.no_penalty:
        opts["penalty"] = False
    if args.cgp:
        from .cgp import guess_language
        from .game import Position

        pack = load_pack(_lang_or_guess(args.lang, guess_language(args.cgp), "--cgp"))
        pos = Position.from_cgp(args.cgp, pack.spec)
        ranking = make_evaluator(pack, args.engine, **opts).rank(pos)
        title = "CGP position"
    elif args.gcg:
        from .gcg import read_gcg, replay
        from .probability import augmented_bag

        game = read_gcg(Path(args.gcg))
        pack = load_pack(_lang_or_guess(args.lang, game.guess_language(), args.gcg))
        spec = pack.spec
        r = replay(game, spec)
        events = [st.event for st in r.steps]
        if args.turn is None:
            with_rack = [i for i, ev in enumerate(events) if ev.rack and ev.kind in ("play", "exchange", "pass")]
            if not with_rack:
                raise HeuriError(f"{args.gcg}: no event records a rack; cannot rank a position")
            n = with_rack[-1]
        else:
            n = args.turn
        if not 0 <= n < len(events):
            raise HeuriError(f"{args.gcg}: --turn {n}: the record has {len(events)} events; give 0 to "
                             f"{len(events) - 1} (the position after N events, with the rack the next event records)")
        if not events[n].rack:
            raise HeuriError(f"{args.gcg}: --turn {n}: the position after {n} events needs the rack of "
                             f"event {n + 1}, which the record does not give")
        board = r.board_at(n)
        rack = np.bincount(spec.parse_tiles(events[n].rack), minlength=spec.n_kinds).astype(np.int64)
        U = augmented_bag(spec, board.letters, board.blanks, rack)
        ranking = make_evaluator(pack, args.engine, **opts).rank_arrays(
            board.letters, board.blanks, rack, U, max(0, int(U.sum()) - spec.rack_size))
        title = f"{args.gcg} after {n} events, {events[n].nick} to move with {events[n].rack}"
    else:
        raise HeuriError("best: give --cgp \"CGP\" or --gcg GAME.gcg")
    rows = ranking.rows(pack.spec, args.top)
    try:
        if args.json:
            for row in rows:
                sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:
            from rich.console import Console
            from rich.table import Table

            t = Table(title=f"{args.engine}: {title} ({len(ranking)} candidates)")
            for col in ("#", "move", "j", "e", "p", "v", "leave", "fish"):
                t.add_column(col, justify="right" if col in ("#", "j", "e", "p", "v") else "left")
            for i, row in enumerate(rows, 1):
                t.add_row(str(i), row["move"], str(row["j"]), f"{row['e']:.2f}", f"{row['p']:.4f}",
                          f"{row['v']:.2f}", row["leave"], "fish" if row["fish"] else "")
            Console().print(t)
    except BrokenPipeError:  # `heuri best ... | head`
        sys.stdout = open(os.devnull, "w")
    return 0


def _position_from_cgp(args):
    from .cgp import guess_language
    from .game import Position
    from .pack import load_pack

    if not args.cgp.strip():
        raise HeuriError("--cgp is empty: give a CGP line (board rows, racks, scores, scoreless turns)")
    pack = load_pack(_lang_or_guess(args.lang, guess_language(args.cgp), "--cgp"))
    return pack, Position.from_cgp(args.cgp, pack.spec)


def _limits(args, what: str) -> dict:
    if args.time is not None and args.time <= 0:
        raise HeuriError(f"{what}: --time {args.time}: give a positive number of seconds")
    if args.nodes is not None and args.nodes < 1:
        raise HeuriError(f"{what}: --nodes {args.nodes}: give at least 1")
    if args.top < 1:
        raise HeuriError(f"{what}: --top {args.top}: give at least 1")
    opts = {"time_limit": args.time}
    if args.nodes is not None:
        opts["max_nodes"] = opts["max_generations"] = args.nodes
    return opts


def cmd_endgame(args) -> int:
    """Solve a bag-empty position (heuri.endgame) and print its best moves as a table
    ordered by value (the spread each adds to the end of the game against the best
    replies), each with its principal variation and whether the value is exact; or
    (--json) one object per line."""
    import json

    from .endgame import EndgameSearch

    pack, pos = _position_from_cgp(args)
    spec = pack.spec
    o = 1 - pos.to_move
    if pos.bag_size == 0 and pos.hidden[o] and not pos.racks[o].any():
        import dataclasses

        # the bag is empty: the opponent's rack, left out of the CGP, is every unseen tile
        racks = tuple(pos.bag.copy() if i == o else r for i, r in enumerate(pos.racks))
        pos = dataclasses.replace(pos, racks=racks, bag=pos.bag - pos.bag, hidden=(0,) * pos.n_players)
    solver = EndgameSearch(pack, **_limits(args, "endgame"))
    res, rows = solver.analyse(pos, top=args.top)
    if res is None:
        raise HeuriError(f"endgame: the first iteration did not fit the limits (--time {args.time}, "
                         f"--nodes {args.nodes}); give more")

    def line(pv):
        return " ".join(m.gcg(spec) if m.gcg(spec) != "-" else "pass" for m in pv)

    try:
        if args.json:
            for i, r in enumerate(rows, 1):
                sys.stdout.write(json.dumps({"rank": i, "move": r.move.gcg(spec), "value": r.value, "exact": r.exact,
                                             "depth": res.depth, "pv": [m.gcg(spec) for m in r.pv]},
                                            ensure_ascii=False) + "\n")
            return 0
        from rich.console import Console
        from rich.table import Table

        t = Table(title=f"endgame: {pos.rack_text()} to move against {pos.rack_text(1 - pos.to_move)}, "
                        f"spread {res.final_spread - res.value:+d}")
        for col in ("#", "move", "value", "exact", "principal variation"):
            t.add_column(col, justify="right" if col in ("#", "value") else "left")
        for i, r in enumerate(rows, 1):
            t.add_row(str(i), r.move.gcg(spec) if r.move.gcg(spec) != "-" else "pass", f"{r.value:+d}",
                      "yes" if r.exact else "no", line(r.pv))
        Console().print(t)
        how = "exact" if res.exact else ("not exact: stopped by the limits, best move of the last completed depth"
                                         if res.stopped else "not exact")
        print(f"best {res.move.gcg(spec)} value {res.value:+d} ({how}); depth {res.depth} placements, "
              f"{res.nodes} nodes, {res.generations} move lists, {res.seconds:.2f} s")
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")
    return 0


def cmd_peg(args) -> int:
    """Pre-endgame (heuri.peg): with 1 to 7 tiles in the bag, every draw of each candidate,
    weighted by its probability; a table by win probability then expected spread."""
    import json

    from .peg import PegSearch

    pack, pos = _position_from_cgp(args)
    spec = pack.spec
    if args.top < 1:
        raise HeuriError(f"peg: --top {args.top}: give at least 1")
    res = PegSearch(pack, top=args.top, empty_top=args.top).search(pos)
    try:
        if args.json:
            for i, r in enumerate(res.rows, 1):
                sys.stdout.write(json.dumps({"rank": i, "move": r.move.gcg(spec), "wins": round(r.wins, 6),
                                             "draws": round(r.draws, 6), "losses": round(r.losses, 6),
                                             "spread": round(r.spread, 3), "method": r.method,
                                             "draws_n": r.draws_n}, ensure_ascii=False) + "\n")
            return 0
        from rich.console import Console
        from rich.table import Table

        t = Table(title=f"pre-endgame: {pos.rack_text()} to move, {res.bag_size} in the bag "
                        f"({len(res.rows)} candidates, {res.seconds:.1f} s)")
        for col in ("#", "move", "win %", "wins", "draws", "losses", "exp. spread", "draws n", "method"):
            t.add_column(col, justify="left" if col in ("move", "method") else "right")
        for i, r in enumerate(res.rows, 1):
            t.add_row(str(i), r.move.gcg(spec) if r.move.gcg(spec) != "-" else "pass", f"{100 * r.win_prob:.1f}",
                      f"{r.wins:.3f}", f"{r.draws:.3f}", f"{r.losses:.3f}", f"{r.spread:+.1f}", str(r.draws_n),
                      r.method)
        Console().print(t)
        print("method: endgame = every draw's endgame solved exactly; endgame* = some endgames stopped by "
              "the limits (best move of the last completed depth); 1-ply = the move leaves tiles in the bag: "
              "valued against the opponent's top-scoring reply only")
        if res.note:
            print(f"note: {res.note}")
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")
    return 0


def cmd_match(args) -> int:
    """Play a paired match (heuri.match) and print its summary table."""
    from .match import cli_match

    return cli_match(args)


# -- parser -----------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="heuri", description="Heuri Scrabble engine (es, en, fr, ...)")
    ap.add_argument("--version", action="version", version=f"heuri {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("packs", help="list the built language packs and their counts")
    p.set_defaults(func=cmd_packs)

    p = sub.add_parser("siu", help="run heuri as an SIU engine on stdin/stdout (for GUIs and match runners)")
    p.add_argument("--lang", default="es", help="initial Lexicon option: a built pack (es, en, fr) or a pack folder")
    p.add_argument("--log", default=None, help="append a transcript of the session ('> ' in, '< ' out) to this file")
    p.set_defaults(func=cmd_siu)

    p = sub.add_parser("moves", help="every legal move of a CGP position, with score, tiles played and leave")
    p.add_argument("--lang", help="language pack (es, en, fr); default: from the CGP's lex/ld")
    p.add_argument("--cgp", required=True, help="the position, one CGP line")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("replay", help="replay a GCG record and check every recorded score and total")
    p.add_argument("game", help="GCG file")
    p.add_argument("--lang", help="language pack; default: from #lexicon / #tile-distribution")
    p.add_argument("--end-rule", choices=("double", "transfer", "auto"), default="auto",
                   help="end-of-game bonus rule for this replay (default auto: the form of the "
                        "record's end lines, Quackle's transfer or Woogles' double, else the pack's)")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("show", help="a position as text: board with premium squares, racks, scores")
    p.add_argument("game", nargs="?", help="GCG file (or use --cgp)")
    p.add_argument("--cgp", help="the position, one CGP line")
    p.add_argument("--turn", type=int, help="GCG: show the position after this many event lines (default: all)")
    p.add_argument("--lang", help="language; default: from the record")
    p.add_argument("--end-rule", choices=("double", "transfer", "auto"), default="auto", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("best", help="rank a position's candidate moves with an evaluator (j, e, p, v, leave, fish)")
    p.add_argument("--lang", help="language pack (es, en, fr); default: from the CGP or GCG record")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--cgp", help="the position, one CGP line (the first rack is the player to move)")
    src.add_argument("--gcg", help="a GCG record; the position after --turn N events")
    p.add_argument("--turn", type=int, help="GCG: rank the position after this many events (default: the "
                   "last event that records a rack)")
    p.add_argument("--engine", choices=("greedy", "heuri1", "heuri2", "heuri3"), default="heuri3")
    p.add_argument("--top", type=int, default=10, help="candidates to print (default 10)")
    p.add_argument("--json", action="store_true", help="one JSON object per line: move, j, e, p, v, leave, fish")
    p.add_argument("-k", type=float, default=None, help="bingo value 50 + k·σ (default 2.5)")
    p.add_argument("--top-n", type=int, default=None, help="heuri3: placements re-valued with δ after the move (default 20)")
    p.add_argument("--exact", action="store_true", help="heuri3: re-value every placement with δ after the move")
    p.add_argument("--no-penalty", action="store_true", help="heuri1: no defensive penalty d")
    p.set_defaults(func=cmd_best)

    p = sub.add_parser("endgame", help="solve a bag-empty position: best moves by value, principal variation, exact")
    p.add_argument("--lang", help="language pack (es, en, fr); default: from the CGP's lex/ld")
    p.add_argument("--cgp", required=True, help="the position, one CGP line, both racks given, bag empty")
    p.add_argument("--top", type=int, default=10, help="moves to value and print (default 10)")
    p.add_argument("--time", type=float, default=60.0, help="seconds for the search (default 60)")
    p.add_argument("--nodes", type=int, default=None, help="positions and move lists the search may visit")
    p.add_argument("--json", action="store_true", help="one JSON object per line: rank, move, value, exact, depth, pv")
    p.set_defaults(func=cmd_endgame)

    p = sub.add_parser("peg", help="pre-endgame (1 to 7 tiles in the bag): win odds of each candidate over every draw")
    p.add_argument("--lang", help="language pack (es, en, fr); default: from the CGP's lex/ld")
    p.add_argument("--cgp", required=True, help="the position, one CGP line (the opponent's rack may be left empty)")
    p.add_argument("--top", type=int, default=5, help="evaluator candidates, and as many bag-emptying placements (default 5)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=cmd_peg)

    p = sub.add_parser("match", help="paired self-play match between two engines (seats swapped, same tiles)")
    from .match import add_match_arguments

    add_match_arguments(p)
    p.set_defaults(func=cmd_match)

    # Further subcommands register here (moves, replay, show, best, match, siu).
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except HeuriError as e:
        print(f"heuri: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("heuri: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
