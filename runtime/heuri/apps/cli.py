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

from ..eval.engines import DEFAULT_ENGINE, FRONT_END_ENGINES
from ..core.version import __version__
from rich.markup import escape

from ..core.bounds import float_arg, int_arg
from ..core.errors import HeuriError, KindedError
from .i18n import INTERFACE_LANGUAGES

#: the ranges of the numeric options (checked by argparse, see heuri.bounds): wide enough
#: for any real use, narrow enough that no value can ask for a silly amount of work or memory
SEED = int_arg(0, 2 ** 63 - 1)  # a match or a draw's seed (numpy's generators take 0 up)
JOBS = int_arg(1, 256)  # worker processes
TOP = int_arg(1, 100_000)  # rows or candidates to print or value
TURN = int_arg(0, 100_000)  # events of a record (checked against the record afterwards)


def think_seconds(text: str) -> float:
    """``--think``: a time to simulate, in seconds, written ``5``, ``5s`` or ``0.5s``; more
    than 0 and at most an hour (argparse's error names the option otherwise)."""
    t = text.strip().lower()
    t = t[:-1] if t.endswith("s") else t
    try:
        x = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds, e.g. 5s or 0.5") from None
    if not 0 < x <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r}: give more than 0 and at most 3600 seconds")
    return x
SECONDS = float_arg(0, 7 * 86_400, lo_open=True)  # a time limit: more than 0, at most a week


# -- packs ------------------------------------------------------------------------------
def cmd_packs(args) -> int:
    """List the built language packs with their counts."""
    from rich.console import Console
    from rich.table import Table

    from ..core.pack import build_root, list_packs

    packs = list_packs()
    if not packs:
        print(f"no built packs under {build_root()}; build them with: snakemake --cores 2 es en fr")
        return 1
    # Never cut a column: a pipe or a file gets the full width (rich would assume 80).
    con = Console() if sys.stdout.isatty() else Console(width=1000)
    t = Table(title=f"language packs in {build_root()}")
    for col in ("pack", "lang", "lexicon", "words", "septets", "pure septets", "reduced octets", "key set", "status"):
        t.add_column(col, justify="right" if col not in ("pack", "lang", "lexicon", "status") else "left")
    for p in packs:
        c = p["counts"]
        t.add_row(p["pack"], p["language"], p["lexicon"], *(f"{c.get(k, 0):,}" for k in (
            "words", "septets", "pure_septets", "reduced_octets", "keyset")), p["status"])
    con.print(t)
    return 0


# -- lexicon import ---------------------------------------------------------------------------
def cmd_lexicon(args) -> int:
    """``heuri lexicon import FILE --lang L [--name N]``: a pack from a lexicon file
    (pipeline/import_lexicon.py)."""
    from ..core.spec import REPO_ROOT

    try:
        from pipeline.import_lexicon import import_lexicon, refusal_summary
    except ImportError:
        if not (REPO_ROOT / "pipeline" / "import_lexicon.py").is_file():
            raise HeuriError(f"heuri lexicon import needs the pipeline/ folder of a heuri checkout "
                             f"(not found beside {REPO_ROOT / 'runtime'})") from None
        sys.path.insert(0, str(REPO_ROOT))
        from pipeline.import_lexicon import import_lexicon, refusal_summary

    target, m, built = import_lexicon(Path(args.file), args.lang, args.name, args.format,
                                      log=lambda s: print(s, file=sys.stderr))
    print(f"{target}: lexicon {m['lexicon']} ({m['language']}), {m['counts']['words']:,} words, "
          f"source sha256 {m['lexicon_file']['sha256']}" + ("" if built else " (already built from this file)"))
    refused = refusal_summary(m)
    if refused:
        print(f"refused: {refused}")
    print(f"use it with: heuri --lexicon {m['lexicon']} ...  (or a record's #lexicon {m['lexicon']})")
    return 0


# -- siu ----------------------------------------------------------------------------------
def cmd_siu(args) -> int:
    """Speak the SIU engine protocol on stdin/stdout (see heuri.siu)."""
    from ..play.siu.backend import HeuriBackend
    from ..play.siu.protocol import serve

    if args.lang:  # a wrong --lang is the user's mistake: say so before the protocol starts
        from ..core.pack import load_pack

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
    if os.environ.get("HEURI_LEXICON"):  # --lexicon: its pack's language
        from ..core.pack import lexicon_language

        code = lexicon_language(os.environ["HEURI_LEXICON"])
        if code:
            return code
    if guess:
        return guess
    from ..core.pack import build_root
    from ..core.spec import list_languages

    # Language codes, not pack folders (build/en-CSW24 is an en pack: --lexicon CSW24).
    known = sorted(set(list_languages()) | {p.parent.name for p in build_root().glob("*/manifest.json")
                                            if "-" not in p.parent.name})
    raise KindedError(f"{what}: cannot tell the language (no language spec's [recognise] names its lexicon "
                      f"or letter distribution); give --lang {'|'.join(known) or 'LANG'}", "unknown-language")


def _spec(lang: str):
    """The spec of ``lang``: the built pack's copy when there is a pack (what the engine
    plays with), else ``lexicons/<lang>/spec.toml``."""
    from ..core.errors import PackError
    from ..core.pack import load_pack
    from ..core.spec import load_spec

    try:
        return load_pack(lang, check_fresh=False).spec
    except PackError:
        return load_spec(lang)


def _cgp_position(args, need_pack: bool = True):
    """``(pack or spec, Position)`` of ``--cgp``: the language from ``--lang`` or the CGP's
    ``lex``/``ld``; an empty CGP is refused with what its fields are, and a ``lex`` that
    names another word list than the pack's is a warning on stderr (the pack answers)."""
    from ..core.cgp import guess_language, lexicon_warning, parse_cgp
    from ..core.game import Position

    if not args.cgp.strip():
        parse_cgp(args.cgp, None)  # raises the CgpError that says what a CGP holds
    lang = _lang_or_guess(args.lang, guess_language(args.cgp), "--cgp")
    if need_pack:
        from ..core.cgp import cgp_lexicon
        from ..core.pack import pack_for_record

        pack = pack_for_record(lang, cgp_lexicon(args.cgp))
        spec = pack.spec
    else:
        pack = spec = _spec(lang)
    pos = Position.from_cgp(args.cgp, spec)
    warning = lexicon_warning(args.cgp, spec)
    if warning:
        print(f"heuri: warning: {warning}", file=sys.stderr)
    return pack, pos


def cmd_moves(args) -> int:
    """Every legal move of a CGP position, best score first: GCG text, score, tiles played,
    leave. ``--json``: one object per line."""
    from ..core.movegen import leaves

    pack, pos = _cgp_position(args)
    spec = pack.spec
    moves = pos.moves(pack)
    order = np.argsort(-moves["score"].astype(np.int64), kind="stable")
    lv = leaves(pos.rack, moves)
    out = sys.stdout
    try:
        _write_moves(out, order, moves, lv, spec, args.json, pos.board, args.coords)
    except BrokenPipeError:  # `heuri moves ... | head`
        sys.stdout = open(os.devnull, "w")
    return 0


def _write_moves(out, order, moves, lv, spec, as_json: bool, board=None, coords: str = "standard") -> None:
    """One line per move: score, the move as people read it (``8G CA(RR)OÑE``, in
    ``coords``), tiles played, leave; ``as_json``: objects with ``move`` (GCG) and ``word``
    (that display form)."""
    import json

    from ..core.move import Move, format_rack
    from ..formats.render import move_text

    for i in order:
        m = Move.from_record(moves[i], spec)
        leave = format_rack([t for t in range(spec.n_kinds) for _ in range(int(lv[i, t]))], spec)
        row = {"move": m.gcg(spec), "word": move_text(m, spec, board, coords), "score": int(moves[i]["score"]),
               "tiles_played": int(moves[i]["n_tiles"]), "leave": leave}
        if as_json:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:
            out.write(f"{row['score']:>5}  {row['word']:<24} {row['tiles_played']}  {leave}\n")
    if not as_json:
        out.write(f"{len(moves)} moves\n")


def _gcg_files(paths) -> list[Path]:
    """The GCG files named: files as given, folders searched for ``*.gcg`` (recursively,
    sorted). Raises HeuriError for a path that does not exist or a folder without one."""
    out: list[Path] = []
    for name in paths:
        p = Path(name)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.is_file() and q.suffix.lower() == ".gcg")
            if not found:
                raise HeuriError(f"{name}: no .gcg file in this folder")
            out += found
        elif p.is_file():
            out.append(p)
        else:
            raise HeuriError(f"{name}: no such file or folder")
    return out


def _replay_one(path: Path, args, packs: dict):
    """Read and replay one record with the pack of its language (loaded once)."""
    from ..formats.gcg import read_gcg_file, replay
    from ..core.pack import pack_for_record

    game = read_gcg_file(path)
    lang = _lang_or_guess(args.lang, game.guess_language(), str(path))
    if (lang, game.lexicon) not in packs:
        packs[lang, game.lexicon] = pack_for_record(lang, game.lexicon)
    pack = packs[lang, game.lexicon]
    return replay(game, pack.spec, end_rule=args.end_rule, words=pack.words)


def _event_words(r, coords: str) -> dict:
    """``{line: move as people read it}`` for the plays of a replay (the board before each)."""
    from ..core.errors import MoveError
    from ..core.move import Move
    from ..formats.render import move_text

    out = {}
    for i, st in enumerate(r.steps):
        ev = st.event
        if ev.kind == "play":
            board = r.board_at(i)
            try:
                out[ev.line] = move_text(Move.from_gcg(ev.move, board, r.spec), r.spec, board, coords)
            except MoveError:  # the record's text as it is
                pass
    return out


def _print_replay(con, name: str, r, coords: str = "standard") -> int:
    """Print one replayed record; returns its warnings (the record's own and a lexicon it
    names that did not answer)."""
    from rich.table import Table

    from ..core.cgp import named_lexicon_warning

    # the banner: which word list answered, and how many moves it does not hold
    lex = r.spec.lexicon
    plays = sum(st.event.kind == "play" for st in r.steps)
    con.print(escape(f"{name}: {len(r.off_list)} of {_count(plays, 'play')} not in {lex} "
                     f"(the word list that answered)"), highlight=False)
    other = named_lexicon_warning(r.game.lexicon, r.spec)
    if other:
        con.print(f"[yellow]warning[/yellow] {escape(f'{name}: {other}')}", highlight=False)
    for line, msg in r.warnings:
        con.print(f"[yellow]warning[/yellow] {escape(f'{name}:{line}: {msg}')}", highlight=False)
    if r.mismatches:
        t = Table(title=escape(f"{name}: score mismatches (end rule {r.end_rule})"))
        for col in ("line", "player", "event", "recorded", "engine", "rec. total", "eng. total", "note"):
            t.add_column(col, justify="right" if col in ("line", "recorded", "engine", "rec. total", "eng. total") else "left")
        words = _event_words(r, coords)
        for m in r.mismatches:
            t.add_row(str(m.line), escape(m.nick), escape(words.get(m.line, m.event)), str(m.recorded_score), str(m.engine_score),
                      str(m.recorded_total), str(m.engine_total), m.note)
        con.print(t)
    state = "complete" if r.complete else ("ended" if r.over else "not finished")
    warnings = len(r.warnings) + bool(other)
    con.print(escape(f"{name}: {_count(len(r.steps), 'event')}, game {state}, "
                     f"{_count(len(r.mismatches), 'mismatch', 'mismatches')}, "
                     f"{_count(warnings, 'warning')} (end rule {r.end_rule})"), highlight=False)
    return warnings


def _count(n: int, one: str, many: str | None = None) -> str:
    """``1 mismatch``, ``2 mismatches``: a count with its noun in the right number."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def cmd_replay(args) -> int:
    """Replay GCG records (files, or folders of ``*.gcg``), check every recorded score and
    total, print the warnings and mismatches; with several files, a summary: files read,
    complete, with mismatches, with warnings, refused (by reason). Exit 1 if any record
    has a mismatch or (several files) was refused; one refused file alone is an error (2)."""
    from collections import Counter

    from rich.console import Console
    from rich.table import Table

    files = _gcg_files(args.game)
    con = Console() if sys.stdout.isatty() else Console(width=120)
    packs: dict = {}
    if len(files) == 1 and Path(args.game[0]).is_file():
        r = _replay_one(files[0], args, packs)
        _print_replay(con, args.game[0], r, args.coords)
        return 1 if r.mismatches else 0
    tally = Counter()
    refused = Counter()
    for f in files:
        try:
            r = _replay_one(f, args, packs)
        except HeuriError as e:
            reason = getattr(e, "kind", None) or "error"
            refused[reason] += 1
            con.print(f"[red]refused[/red] {escape(str(e))}", highlight=False)
            continue
        warned = _print_replay(con, str(f), r, args.coords)
        tally["replayed"] += 1
        tally["complete"] += r.complete
        tally["with mismatches"] += bool(r.mismatches)
        tally["with warnings"] += bool(warned)
        tally["with plays not in the lexicon"] += bool(r.off_list)
    t = Table(title=f"replay of {len(files)} files")
    t.add_column("files", justify="left")
    t.add_column("count", justify="right")
    t.add_row("read", str(len(files)))
    for key in ("replayed", "complete", "with mismatches", "with warnings", "with plays not in the lexicon"):
        t.add_row(key, str(tally[key]))
    t.add_row("refused", str(sum(refused.values())))
    for reason, k in sorted(refused.items(), key=lambda x: (-x[1], x[0])):
        t.add_row(f"  refused: {reason}", str(k))
    con.print(t)
    return 1 if tally["with mismatches"] or refused else 0


MOVE_KINDS = ("play", "exchange", "pass")


def turn_events(events) -> list[int]:
    """The index in ``events`` (a replay's events, in order) of each turn: turn N (from 1)
    is the Nth move of the game (a play, exchange or pass line), both players counted; a
    withdrawal, a challenge bonus or an end-of-game line is not a turn. The analysis
    report numbers its turns the same way (:mod:`heuri.apps.analyze`, column ``turn``)."""
    return [i for i, ev in enumerate(events) if ev.kind in MOVE_KINDS]


def cmd_show(args) -> int:
    """Print a position (from --cgp, or a GCG record after --turn N events) as text."""
    if args.cgp is not None:
        _, pos = _cgp_position(args, need_pack=False)
        print(pos.board.render(rows_as_letters=args.coords == "fisf"))
        print(pos.board.LEGEND)
        for i in range(pos.n_players):
            seat = (pos.to_move + i) % pos.n_players
            rack = pos.rack_text(seat) or ("(unknown)" if pos.hidden[seat] else "")
            mark = "*" if i == 0 else " "
            print(f"{mark} player {seat + 1}: {pos.scores[seat]:>4}  {rack}")
        print(f"bag: {pos.bag_size} tiles; scoreless turns: {pos.scoreless}")
        return 0
    if not args.game:
        raise HeuriError("show: give --cgp \"CGP\" or a GCG file")
    from ..formats.gcg import read_gcg_file, replay

    game = read_gcg_file(args.game)
    spec = _spec(_lang_or_guess(args.lang, game.guess_language(), args.game))
    r = replay(game, spec, end_rule=args.end_rule)
    turns = turn_events([st.event for st in r.steps])
    if args.turn is None:
        n = len(r.steps)
    else:  # after turn N: up to the next turn (a withdrawal of turn N included)
        if not 0 <= args.turn <= len(turns):
            raise HeuriError(f"{args.game}: --turn {args.turn}: the record has {len(turns)} turns (moves); "
                             f"give 0 to {len(turns)}")
        n = turns[args.turn] if args.turn < len(turns) else len(r.steps)
    print(r.board_at(n).render(rows_as_letters=args.coords == "fisf"))
    print(r.board_at(n).LEGEND)
    totals = r.steps[n - 1].recorded_totals if n else [0] * len(game.players)
    nxt = r.steps[n].event if n < len(r.steps) else None
    if n:
        ev = r.steps[n - 1].event
        done = sum(1 for i in turns if i < n)
        print(f"after turn {done} (line {ev.line}): >{ev.nick}: {ev.text().split(': ', 1)[-1]}")
    for i, (nick, name) in enumerate(game.players):
        rack = nxt.rack if nxt is not None and nxt.player == i else ""
        mark = "*" if nxt is not None and nxt.player == i else " "
        print(f"{mark} {nick} ({name}): {totals[i]:>4}  {rack}")
    return 0


def cmd_best(args) -> int:
    """Rank the candidate moves of a position with an evaluator (heuri.evaluate): move,
    score, bingo expectation, bingo probability, equity, leave and a fish mark, as a table
    or (--json) one JSON object per line with the keys of :meth:`Ranking.rows
    <heuri.eval.evaluate.Ranking.rows>` (move, score, bingo_expectation,
    bingo_probability, equity, leave, fish)."""
    import json

    from ..eval.evaluate import engine_options, make_evaluator

    opts = engine_options(args.engine, args.k, args.top_n, args.exact, penalty=not args.no_penalty)
    if args.cgp is not None:
        pack, pos = _cgp_position(args)
        def rank(**more):
            return make_evaluator(pack, args.engine, **opts, **more).rank(pos)

        ranking = rank()
        title = "CGP position"
        board = pos.board
    elif args.gcg:
        from ..formats.gcg import read_gcg_file, replay
        from ..core.pack import pack_for_record
        from ..eval.probability import augmented_bag

        game = read_gcg_file(args.gcg)
        pack = pack_for_record(_lang_or_guess(args.lang, game.guess_language(), args.gcg), game.lexicon)
        spec = pack.spec
        r = replay(game, spec)
        events = [st.event for st in r.steps]
        turns = turn_events(events)
        if args.turn is None:
            with_rack = [k for k, i in enumerate(turns) if events[i].rack]
            if not with_rack:
                raise HeuriError(f"{args.gcg}: no event records a rack; cannot rank a position")
            turn = with_rack[-1] + 1
        else:
            turn = args.turn
        if not 1 <= turn <= len(turns):
            raise HeuriError(f"{args.gcg}: --turn {turn}: the record has {len(turns)} turns (moves, both players "
                             f"counted); give 1 to {len(turns)} (the position before that move, with its rack)")
        n = turns[turn - 1]
        if not events[n].rack:
            raise HeuriError(f"{args.gcg}: --turn {turn}: the record does not give the rack of turn {turn} "
                             f"(line {events[n].line}: only the tiles played)")
        board = r.board_at(n)
        rack = np.bincount(spec.parse_tiles(events[n].rack), minlength=spec.n_kinds).astype(np.int64)
        U = augmented_bag(spec, board.letters, board.blanks, rack)
        def rank(**more):
            return make_evaluator(pack, args.engine, **opts, **more).rank_arrays(
                board.letters, board.blanks, rack, U, max(0, int(U.sum()) - spec.rack_size))

        ranking = rank()
        title = f"{args.gcg} turn {turn}, {events[n].nick} to move with {events[n].rack}"
    else:
        raise HeuriError("best: give --cgp \"CGP\" or --gcg GAME.gcg")
    if args.why_not is not None:
        return _why_not(args, pack.spec, ranking, board, title, rank)
    if args.think is not None:
        if args.cgp is None:
            from ..core.cgp import CgpRecord, format_cgp
            from ..core.game import Position

            tiles = tuple(int(t) for t in range(spec.n_kinds) for _ in range(int(rack[t])))
            pos = Position.from_cgp(format_cgp(CgpRecord(board, (tiles, None), (0, 0), 0)), spec)
        return _think(args, pack, pos, title)
    rows = ranking.rows(pack.spec, args.top, board=board, coords=args.coords)
    if args.explain:
        return _explain_table(args, pack.spec, ranking, rows, title)
    try:
        if args.json:
            for row in rows:
                sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:
            from rich.console import Console
            from rich.table import Table

            t = Table(title=escape(f"{args.engine}: {title} ({_count(len(ranking), 'candidate')})"))
            numbers = ("#", "score", "bingo exp.", "bingo p", "equity")
            for col in ("#", "move", "score", "bingo exp.", "bingo p", "equity", "leave", "fish"):
                t.add_column(col, justify="right" if col in numbers else "left")
            for i, row in enumerate(rows, 1):
                t.add_row(str(i), escape(row["word"]), str(row["score"]), f"{row['bingo_expectation']:.2f}",
                          f"{row['bingo_probability']:.4f}", f"{row['equity']:.2f}", escape(row["leave"]),
                          "fish" if row["fish"] else "")
            Console().print(t)
    except BrokenPipeError:  # `heuri best ... | head`
        sys.stdout = open(os.devnull, "w")
    return 0


def _think(args, pack, pos, title: str) -> int:
    """``best --think SECONDS``: the simulation (:class:`heuri.search.simulation.Simulator`)
    races the engine's best ``--candidates`` moves for that long and prints them by their
    mean rollout value (points, with its standard error and the rollouts each played),
    beside the static equity; ``--json``: one object per candidate (move, word, static,
    mean, stderr, rollouts, alive), then none other. An empty bag is the endgame's."""
    import json

    from ..core.move import Move
    from ..formats.render import move_text
    from ..search.simulation import Simulator

    spec = pack.spec
    if pos.bag_size == 0:
        raise HeuriError("--think: the bag is empty; the endgame search answers exactly: heuri endgame --cgp ...")
    with Simulator(pack, engine=args.engine, candidates=args.candidates, seed=args.seed, threads=args.threads,
                   table=args.rollout == "fast") as sim:
        res = sim.simulate(pos, seconds=args.think)
    rows = []
    for c in res.candidates:
        m = Move.from_record(c.record, spec)
        rows.append({"move": m.gcg(spec), "word": move_text(m, spec, pos.board, args.coords),
                     "static": round(float(c.static), 4), "mean": round(c.mean, 4),
                     "stderr": round(c.stderr, 4) if c.n > 1 else None, "rollouts": c.n, "alive": c.alive})
    try:
        if args.json:
            for row in rows:
                sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
            return 0
        from rich.console import Console
        from rich.table import Table

        t = Table(title=escape(f"{args.engine} + simulation ({args.rollout} rollout), {args.think:g} s: {title}"),
                  caption=escape(f"{res.rollouts} rollouts in {res.seconds:.1f} s, {res.rounds} rounds of "
                                 f"successive halving, stopped by {res.stopped_by}; mean: the move's score "
                                 f"minus the opponent's reply plus our next move's value, points"))
        for col in ("#", "move", "mean", "± se", "rollouts", "static equity", "in the race"):
            t.add_column(col, justify="left" if col in ("move", "in the race") else "right")
        for i, row in enumerate(rows, 1):
            t.add_row(str(i), escape(row["word"]), f"{row['mean']:.2f}",
                      "-" if row["stderr"] is None else f"{row['stderr']:.2f}", str(row["rollouts"]),
                      f"{row['static']:.2f}", "yes" if row["alive"] else "out")
        Console().print(t)
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")
    return 0


def _fmt_term(x: float) -> str:
    """A term in points, signed, 2 decimals (``+15.27``, ``−4.66`` with a plain minus)."""
    return f"{x:+.2f}" if abs(x) >= 0.005 else "0.00"


def _print_legend(con, used: list[str]) -> None:
    """The legend of the explained columns: each term's heading and what it means."""
    from ..eval.explain import TERMS

    con.print("Legend (all in points; equity = the sum of the terms, the engine ranks by it):", highlight=False)
    for key, head, text in TERMS:
        if key in used:
            con.print(escape(f"  {head}: {text}"), highlight=False)
    con.print(escape("  bingo %: the chance of a bingo next turn."), highlight=False)
    if "lanes" in used:
        con.print(escape("  '?' in lanes: not computed; the engine re-values only the placements that "
                         "could still beat its choice with the board after them."), highlight=False)


def _used_terms(terms) -> list[str]:
    """The terms shown: score and bingo always, the others where a move has them."""
    from ..eval.explain import TERM_KEYS

    return [k for k in TERM_KEYS if k in ("score", "bingo") or any(getattr(t, k) != 0 for t in terms)
            or (k == "lanes" and not all(t.lanes_known for t in terms))]


def _explain_table(args, spec, ranking, rows, title) -> int:
    """``heuri best --explain``: each ranked move's equity as its named terms, with a legend;
    (--json) each row of :meth:`Ranking.rows` gains ``terms`` (:meth:`MoveTerms.as_dict`)."""
    import json

    from rich.console import Console
    from rich.table import Table

    from ..eval.explain import TERMS, explain_ranking

    terms = explain_ranking(ranking, spec, args.top)
    try:
        if args.json:
            for row, t in zip(rows, terms):
                sys.stdout.write(json.dumps({**row, "terms": t.as_dict()}, ensure_ascii=False) + "\n")
            return 0
        used = _used_terms(terms)
        heads = dict((k, h) for k, h, _ in TERMS)
        con = Console()
        t = Table(title=escape(f"{args.engine}: {title}, each move's equity as its terms"))
        t.add_column("#", justify="right")
        t.add_column("move")
        t.add_column("leave")
        for k in used:
            t.add_column(heads[k], justify="right")
            if k == "bingo":
                t.add_column("bingo %", justify="right")
        t.add_column("= equity", justify="right")
        for row, m in zip(rows, terms):
            cells = [str(m.rank), escape(row.get("word") or m.move), escape(m.leave_tiles)]
            for k in used:
                x = getattr(m, k)
                cells.append(f"{x:.0f}" if k == "score" else ("?" if k == "lanes" and not m.lanes_known
                                                             else _fmt_term(x)))
                if k == "bingo":
                    cells.append(f"{100 * m.bingo_probability:.0f}%")
            cells.append(f"{m.equity:.2f}")
            t.add_row(*cells)
        con.print(t)
        _print_legend(con, used)
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")
    return 0


def why_not_lines(best, other, engine: str) -> list[str]:
    """Plain sentences saying why ``engine`` ranks ``best`` (:class:`heuri.eval.explain.
    MoveTerms`, its choice) above ``other``: the equity gap and the terms that make it,
    largest first."""
    from ..eval.explain import TERMS

    heads = dict((k, h) for k, h, _ in TERMS)
    d = best.difference(other)
    if best.rank == other.rank:
        return [f"{other.move} is {engine}'s choice."]
    out = [f"{engine} prefers {best.move} (equity {best.equity:.2f}) to {other.move} "
           f"(equity {other.equity:.2f}, ranked {other.rank}): {d['equity']:.2f} points more."]
    parts = sorted(((k, d[k]) for k, _, _ in TERMS if abs(d[k]) >= 0.005), key=lambda kv: -abs(kv[1]))
    for k, x in parts:
        who = best.move if x > 0 else other.move
        out.append(f"  {heads[k]}: {abs(x):.2f} points in favour of {who}")
    return out


def _why_not(args, spec, ranking, board, title, rerank) -> int:
    """``heuri best --why-not MOVE``: the move's terms beside the engine's choice, and the
    difference per term; (--json) one object: ``choice``, ``move`` (:meth:`MoveTerms.as_dict`)
    and ``difference`` (choice − move, per term and ``equity``)."""
    import json

    from rich.console import Console
    from rich.table import Table

    from dataclasses import replace

    from ..core.move import Move
    from ..eval.explain import TERMS, find_move, move_terms
    from ..formats.render import move_text

    i = find_move(ranking, spec, args.why_not, board)
    if not move_terms(ranking, spec, i).lanes_known:
        # a placement the engine did not re-value with the board after it: rank again with
        # every placement re-valued (the same choice), so that its lanes term is computed
        ranking = rerank(exact=True)
        i = find_move(ranking, spec, args.why_not, board)
    best, other = move_terms(ranking, spec, 0), move_terms(ranking, spec, i)
    d = best.difference(other)
    words = [move_text(Move.from_record(ranking.moves[k], spec), spec, board, args.coords) for k in (0, i)]
    try:
        if args.json:
            sys.stdout.write(json.dumps({"choice": {**best.as_dict(), "word": words[0]},
                                         "move": {**other.as_dict(), "word": words[1]},
                                         "difference": {k: round(x, 4) for k, x in d.items()}},
                                        ensure_ascii=False) + "\n")
            return 0
        # shown as people read them (the JSON keeps the GCG text in move and adds word)
        best, other = replace(best, move=words[0]), replace(other, move=words[1])
        con = Console()
        used = _used_terms([best, other])
        t = Table(title=escape(f"{args.engine}: {title}: why not {other.move}?"))
        t.add_column("term")
        t.add_column(escape(f"{best.move} (choice)"), justify="right")
        t.add_column(escape(f"{other.move} (#{other.rank})"), justify="right")
        t.add_column("difference", justify="right")
        t.add_row("leave", escape(best.leave_tiles), escape(other.leave_tiles), "")
        heads = dict((k, h) for k, h, _ in TERMS)
        for k in used:
            t.add_row(heads[k], _fmt_term(getattr(best, k)), _fmt_term(getattr(other, k)), _fmt_term(d[k]))
            if k == "bingo":
                t.add_row("bingo %", f"{100 * best.bingo_probability:.0f}%",
                          f"{100 * other.bingo_probability:.0f}%", "")
        t.add_row("= equity", f"{best.equity:.2f}", f"{other.equity:.2f}", _fmt_term(d["equity"]))
        con.print(t)
        for line in why_not_lines(best, other, args.engine):
            con.print(escape(line), highlight=False)
        _print_legend(con, used)
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")
    return 0


def _position_from_cgp(args):
    from ..core.cgp import cgp_lexicon, guess_language
    from ..core.game import Position
    from ..core.pack import pack_for_record

    if not args.cgp.strip():
        raise HeuriError("--cgp is empty: give a CGP line (board rows, racks, scores, scoreless turns)")
    pack = pack_for_record(_lang_or_guess(args.lang, guess_language(args.cgp), "--cgp"), cgp_lexicon(args.cgp))
    return pack, Position.from_cgp(args.cgp, pack.spec)


def _limits(args) -> dict:
    """The EndgameSearch limits of ``heuri endgame``: ``--time`` seconds, and node and
    move-list limits that grow with it (heuri.endgame.time_budget: the clock binds, up to
    a memory cap) unless ``--nodes`` gives both. (argparse has checked the ranges.)"""
    from ..search.endgame import time_budget

    opts = {"time_limit": args.time, **time_budget(args.time, "python")}
    if args.nodes is not None:
        opts["max_nodes"] = opts["max_generations"] = args.nodes
    return opts


def endgame_summary(res, rows, limits: dict, spec, board=None, coords: str = "standard") -> str:
    """The last line of ``heuri endgame``: the best move and value, whether that value is
    exact and whether the move is proven the best (both need the last completed depth to
    reach the end of the game on every line: ``res.exact``), how many of the printed rows
    have an exact value, the work done and the limits with the one that stopped the search.

    The rows (:meth:`heuri.endgame.EndgameSearch.analyse`) carry their own ``exact``: a row's
    value is exact when its own lines all reached the end of the game, which can hold for a
    move that goes out while another root move's value is still a horizon estimate; then
    the best move is not proven, and the line says so rather than contradict the rows.
    The move is written as people read it (``board``: the position's, ``coords``: see
    :func:`heuri.formats.render.move_text`)."""
    from ..formats.render import move_text

    best = move_text(res.move, spec, board, coords)
    exact_rows = sum(r.exact for r in rows)
    if res.exact:
        how = "exact (proven the best to the end of the game)"
    else:
        best_row = next((r for r in rows if r.move == res.move), None)
        value = "its value exact" if best_row is not None and best_row.exact else "its value a horizon estimate"
        why = (f"stopped by the {res.stopped_by} limit" if res.stopped_by
               else "the width limit cut moves" if limits.get("width") else "")
        how = f"not proven the best ({value}; {why + ': ' if why else ''}the best move of the last completed depth)"
    lim = [f"{limits['time_limit']:g} s" if limits.get("time_limit") is not None else "no time limit",
           f"{limits.get('max_nodes', 0):,} nodes", f"{limits.get('max_generations', 0):,} move lists"]
    return (f"best {best} value {res.value:+d}, {how}; {exact_rows} of {len(rows)} rows exact; "
            f"depth {res.depth} placements, {res.nodes:,} nodes, {res.generations:,} move lists, "
            f"{res.seconds:.2f} s; limits {', '.join(lim)}")


def cmd_endgame(args) -> int:
    """Solve a bag-empty position (heuri.endgame) and print its best moves as a table
    ordered by value (the spread each adds to the end of the game against the best
    replies), each with its principal variation and whether the value is exact; or
    (--json) one object per line."""
    import json

    from ..search.endgame import EndgameSearch

    pack, pos = _position_from_cgp(args)
    spec = pack.spec
    o = 1 - pos.to_move
    if pos.bag_size == 0 and pos.hidden[o] and not pos.racks[o].any():
        import dataclasses

        # the bag is empty: the opponent's rack, left out of the CGP, is every unseen tile
        racks = tuple(pos.bag.copy() if i == o else r for i, r in enumerate(pos.racks))
        pos = dataclasses.replace(pos, racks=racks, bag=pos.bag - pos.bag, hidden=(0,) * pos.n_players)
    limits = _limits(args)
    solver = EndgameSearch(pack, **limits)
    res, rows = solver.analyse(pos, top=args.top)
    if res is None:
        raise HeuriError(f"endgame: the first iteration did not fit the limits (--time {args.time:g} s, "
                         f"{limits['max_nodes']:,} nodes, {limits['max_generations']:,} move lists); "
                         f"give more --time or --nodes")

    from ..formats.render import line_text, move_text

    try:
        if args.json:
            for i, r in enumerate(rows, 1):
                sys.stdout.write(json.dumps({"rank": i, "move": r.move.gcg(spec),
                                             "word": move_text(r.move, spec, pos.board, args.coords),
                                             "value": r.value, "exact": r.exact,
                                             "depth": res.depth, "pv": [m.gcg(spec) for m in r.pv],
                                             "pv_words": line_text(r.pv, spec, pos.board, args.coords)},
                                            ensure_ascii=False) + "\n")
            return 0
        from rich.console import Console
        from rich.table import Table

        t = Table(title=f"endgame: {pos.rack_text()} to move against {pos.rack_text(1 - pos.to_move)}, "
                        f"spread {res.final_spread - res.value:+d}")
        for col in ("#", "move", "value", "exact", "principal variation"):
            t.add_column(col, justify="right" if col in ("#", "value") else "left")
        for i, r in enumerate(rows, 1):
            t.add_row(str(i), escape(move_text(r.move, spec, pos.board, args.coords)), f"{r.value:+d}",
                      "yes" if r.exact else "no", escape(line_text(r.pv, spec, pos.board, args.coords)))
        Console().print(t)
        print(endgame_summary(res, rows, limits, spec, pos.board, args.coords))
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")
    return 0


def cmd_peg(args) -> int:
    """Pre-endgame (heuri.peg): with 1 to 7 tiles in the bag, every draw of each candidate,
    weighted by its probability; a table by win probability then expected spread."""
    import json

    from ..search.peg import PegSearch

    pack, pos = _position_from_cgp(args)
    spec = pack.spec
    if args.top < 1:
        raise HeuriError(f"peg: --top {args.top}: give at least 1")
    res = PegSearch(pack, top=args.top, empty_top=args.top).search(pos)
    from ..formats.render import move_text

    try:
        if args.json:
            for i, r in enumerate(res.rows, 1):
                sys.stdout.write(json.dumps({"rank": i, "move": r.move.gcg(spec),
                                             "word": move_text(r.move, spec, pos.board, args.coords),
                                             "wins": round(r.wins, 6),
                                             "draws": round(r.draws, 6), "losses": round(r.losses, 6),
                                             "spread": round(r.spread, 3), "method": r.method,
                                             "draws_n": r.draws_n}, ensure_ascii=False) + "\n")
            return 0
        from rich.console import Console
        from rich.table import Table

        t = Table(title=f"pre-endgame: {pos.rack_text()} to move, {res.bag_size} in the bag "
                        f"({len(res.rows)} candidates, {res.seconds:.1f} s)")
        # "ties": tied games; "bag draws": the draws from the bag the row was searched over
        for col in ("#", "move", "win %", "wins", "ties", "losses", "exp. spread", "bag draws", "method"):
            t.add_column(col, justify="left" if col in ("move", "method") else "right")
        for i, r in enumerate(res.rows, 1):
            t.add_row(str(i), escape(move_text(r.move, spec, pos.board, args.coords)), f"{100 * r.win_prob:.1f}",
                      f"{r.wins:.3f}", f"{r.draws:.3f}", f"{r.losses:.3f}", f"{r.spread:+.1f}", str(r.draws_n),
                      r.method)
        (Console() if sys.stdout.isatty() else Console(width=120)).print(t)
        print("method: endgame = every draw's endgame solved exactly; endgame* = some endgames stopped by "
              "the limits (best move of the last completed depth); 1-ply = the move leaves tiles in the bag: "
              "valued against the opponent's top-scoring reply only")
        if res.note:
            print(f"note: {res.note}")
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")
    return 0


def cmd_infer(args) -> int:
    """Inference (heuri.search.inference): what the opponent kept, from their move. The
    position before the move comes from --cgp (the opponent to move, their rack left empty)
    or from a GCG record (the position before event --turn); a table of the most probable
    leaves with their probability before and after the move, and each tile's expected count."""
    import json

    import numpy as np

    from ..core.move import Move
    from ..eval.evaluate import make_evaluator
    from ..search.inference import infer_from_position

    truth = None
    if args.game:
        pack, pos, move, truth = _inference_from_record(args)
    else:
        if not args.cgp or not args.move:
            raise HeuriError("infer: give --cgp \"CGP\" and --move \"MOVE\" (the position before the move, "
                             "the opponent to move), or a GCG file and --turn N")
        pack, pos = _position_from_cgp(args)
        move = Move.from_gcg(args.move, pos.board, pack.spec)
    spec = pack.spec
    ev = make_evaluator(pack, args.engine)
    inf = infer_from_position(ev, pos, move, temperature=args.temperature, samples=args.samples,
                              time_limit=args.time, seed=args.seed)
    post_x, prior_x = inf.tile_expectation()

    def tiles(counts) -> str:
        return spec.format_tiles(np.repeat(np.arange(len(counts)), counts), blank="?") or "-"

    n = min(args.top, len(inf.leaves))
    try:
        if args.json:
            out = {"move": move.gcg(spec), "leave_size": inf.leave_size, "exact": inf.exact,
                   "samples": inf.samples, "racks_valued": inf.evaluated, "engine": args.engine,
                   "temperature": inf.temperature,
                   "leaves": [{"leave": tiles(inf.leaves[i]), "probability": round(float(inf.posterior[i]), 6),
                               "prior": round(float(inf.prior[i]), 6)} for i in range(n)],
                   "tiles": {spec.format_tiles([t], blank="?"): {"expected": round(float(post_x[t]), 4),
                                                                  "prior": round(float(prior_x[t]), 4)}
                             for t in range(spec.n_kinds) if post_x[t] > 0 or prior_x[t] > 0}}
            if truth is not None:
                p, q = inf.probability_of(truth)
                out["recorded_leave"] = {"leave": tiles(truth), "probability": round(p, 6), "prior": round(q, 6)}
            sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
            return 0
        from rich.console import Console
        from rich.table import Table

        how = ("every possible leave" if inf.exact else f"{inf.samples} racks drawn")
        from ..formats.render import move_text

        t = Table(title=f"what they kept after {move_text(move, spec, pos.board)}: {inf.leave_size} tiles "
                        f"({how}, {inf.evaluated} racks valued by {args.engine}, τ = {inf.temperature:g} points)")
        for col in ("#", "leave", "probability %", "before the move %", "× more likely"):
            t.add_column(col, justify="left" if col == "leave" else "right")
        for i in range(n):
            ratio = inf.posterior[i] / inf.prior[i] if inf.prior[i] > 0 else float("inf")
            t.add_row(str(i + 1), tiles(inf.leaves[i]), f"{100 * inf.posterior[i]:.1f}", f"{100 * inf.prior[i]:.1f}",
                      f"{ratio:.2f}")
        console = Console() if sys.stdout.isatty() else Console(width=120)
        console.print(t)
        tt = Table(title="each tile: expected count in their leave (after the move, before it)")
        kinds = [k for k in range(spec.n_kinds) if post_x[k] > 0.005 or prior_x[k] > 0.005]
        kinds.sort(key=lambda k: -(post_x[k] - prior_x[k]))
        for col in ("tile", "expected", "before", "change"):
            tt.add_column(col, justify="left" if col == "tile" else "right")
        for k in kinds:
            tt.add_row(spec.format_tiles([k], blank="?"), f"{post_x[k]:.2f}", f"{prior_x[k]:.2f}",
                       f"{post_x[k] - prior_x[k]:+.2f}")
        console.print(tt)
        if truth is not None:
            p, q = inf.probability_of(truth)
            rank = next((i + 1 for i in range(len(inf.leaves)) if np.array_equal(inf.leaves[i], truth)), None)
            print(f"the record's leave: {tiles(truth)}: probability {100 * p:.1f} % (before the move {100 * q:.1f} %)"
                  + (f", rank {rank} of {len(inf.leaves)}" if rank else ", not among the leaves considered"))
        if not inf.exact:
            print("note: the leaves were sampled; probabilities are over the racks drawn (--samples, --time)")
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")
    return 0


def _inference_from_record(args):
    """(pack, Position before event --turn, that event's Move, the recorded leave or None)
    for ``heuri infer GAME.gcg --turn N``."""
    import numpy as np

    from ..core.game import Position
    from ..core.move import Move
    from ..core.pack import pack_for_record
    from ..formats.gcg import Replayer, read_gcg_file

    game = read_gcg_file(args.game)
    lang = _lang_or_guess(args.lang, game.guess_language(), args.game)
    pack = pack_for_record(lang, game.lexicon)
    spec = pack.spec
    events = game.events
    if args.turn is None or not 1 <= args.turn <= len(events):
        raise HeuriError(f"infer {args.game}: give --turn N, the event to infer from (1..{len(events)})")
    ev = events[args.turn - 1]
    if ev.kind not in ("play", "exchange", "pass"):
        raise HeuriError(f"infer {args.game}: event {args.turn} (line {ev.line}) is a {ev.kind} line; "
                         "give a play, an exchange or a pass")
    rep = Replayer(game, spec).run()
    board = rep.board_at(args.turn - 1)
    move = Move.from_gcg(ev.move, board, spec)
    # the observer's rack: the other player's next recorded rack (unchanged until they move)
    ours = np.zeros(spec.n_kinds, np.int64)
    nxt = next((e for e in events[args.turn:] if e.player != ev.player and e.kind in ("play", "exchange", "pass")), None)
    if nxt is not None and nxt.rack:
        ours[spec.parse_tiles(nxt.rack)] += 1
    on_board = np.zeros(spec.n_kinds, np.int64)
    filled = board.letters >= 0
    np.add.at(on_board, np.where(board.blanks[filled], spec.n_letters, board.letters[filled]), 1)
    unseen = spec.distribution() - on_board - ours
    rack_size = min(spec.rack_size, int(unseen.sum()))
    racks = [np.zeros(spec.n_kinds, np.int64), ours]
    pos = Position(spec, board, tuple(racks), (0, 0), unseen, 0, 0, (rack_size, 0))
    truth = None
    if ev.rack:
        rack = np.zeros(spec.n_kinds, np.int64)
        rack[spec.parse_tiles(ev.rack)] += 1
        if ev.kind == "play":
            truth = rack - move.rack_counts(spec)
        elif ev.kind == "pass":
            truth = rack
        elif move.tiles is not None:
            truth = rack - move.rack_counts(spec)
    return pack, pos, move, truth


def cmd_match(args) -> int:
    """Play a paired match (heuri.match) and print its summary table."""
    from ..play.match import cli_match

    return cli_match(args)


def cmd_analyze(args) -> int:
    """Analyse game records against an engine (heuri.analyze, heuri.analyze_batch): write
    the Parquet table, the JSON summary and the HTML pages under --out, print the per-player
    figures and the records that failed; exit 1 if any failed."""
    from rich.console import Console
    from rich.table import Table

    from .analyze_batch import run_batch

    if args.lang:  # a wrong --lang would fail every record: say so before anything is written
        from .analyze import load_pack_or_hint

        load_pack_or_hint(args.lang)
    think = None
    if args.think is not None or args.iterations is not None:
        from .analyze import Think

        # the cores the games in parallel leave, at most 4 a game (the rollouts' threads)
        threads = max(1, min(4, (os.cpu_count() or 1) // args.jobs))
        think = Think(seconds=args.think, iterations=args.iterations, candidates=args.candidates or 8,
                      rollout=args.rollout or "full", threads=threads)
    elif args.candidates is not None or args.rollout is not None:
        raise HeuriError("--candidates and --rollout shape a simulation: give --think SECONDS or --iterations N too")
    res = run_batch(args.games, args.out, engine=args.engine, lang=args.lang, player=args.player,
                    jobs=args.jobs, force=args.force, progress=not args.quiet, coords=args.coords,
                    ui_lang=args.ui_lang, think=think)
    con = Console() if sys.stdout.isatty() else Console(width=140 if think else 120)
    from .analyze_batch import lexicons_of
    from .report import batch_tables

    n = len(res.summaries)
    off = sum(s.get("off_list") or 0 for s in res.summaries)
    if res.summaries:
        lex = ", ".join(lexicons_of(res.summaries))
        con.print(escape(f"lexicon: {lex}" + (f"; {_count(off, 'move')} not in it (not scored, left out of the "
                                                f"figures)" if off else "")), highlight=False)
    t = Table(title=f"{n} game{'' if n == 1 else 's'} against {args.engine}")
    from .analyze import COSTLY

    sim_cols = ("turns simmed", "sim given up/move") if think else ()
    for col in ("player", "games", "moves", "points", "engine's points", f"costing >{COSTLY:g}/game",
                "given up/move", "given up/game", "missed bingos/game", "agreement", *sim_cols):
        t.add_column(col, justify="left" if col == "player" else "right")
    for p in batch_tables(res.summaries, res.rows)["players"]:
        f = (lambda x, d=2: "" if x is None else f"{x:.{d}f}")
        t.add_row(p["nick"], str(p["games"]), str(p["analysed"]), str(p["points_played"]), str(p["points_best"]),
                  f(p["costly_moves_per_game"]), f(p["equity_lost_per_turn"]),
                  f(p["equity_lost_per_game"], 1), f(p["missed_bingos_per_game"]),
                  "" if p["agreement"] is None else f"{100 * p['agreement']:.1f} %",
                  *((str(p["simulated"]), f(p["sim_lost_per_turn"])) if think else ()))
    if res.summaries:
        con.print(t)
        con.print(escape(f"points: what the analysed moves scored; engine's points: what the engine's choices would "
                         f"have scored in the same positions; costing >{COSTLY:g}: moves that gave up more than "
                         f"{COSTLY:g} points of equity against the engine's choice; given up: the equity of the "
                         f"engine's choice minus that of the move played, in points, a move and added up over a "
                         f"game (not points lost on the scoreboard)."
                         + (" turns simmed: the turns raced by two-ply rollouts (the move played beside the engine's "
                            "best); sim given up: the best simulated mean minus that of the move played, in points."
                            if think else "")), highlight=False)
    kept = f" ({res.resumed} kept from an earlier run of the same analysis)" if res.resumed else ""
    if res.discarded:
        con.print(f"no game was analysed, so nothing is kept in {res.out}: mend the records below (or give "
                  f"--lang) and run the same command again", highlight=False, markup=False, soft_wrap=True)
    else:
        con.print(f"wrote {res.out}/index.html, {res.out}/turns.parquet, {res.out}/summary.json and "
                  f"{_count(len(res.summaries), 'game page')} in {res.out}/games/{kept}", highlight=False)
    if res.failed:
        con.print(f"[red]{len(res.failed)} of {len(res.failed) + len(res.summaries)} records failed:[/red]")
        for path, msg in res.failed:
            con.print(f"  {msg}" if path in msg else f"  {path}: {msg}", highlight=False, markup=False, soft_wrap=True)
        return 1
    return 0


# -- duplicate ---------------------------------------------------------------------------
def _fresh(paths, force: bool) -> None:
    """Refuse to overwrite a user's files unless --force."""
    taken = [str(p) for p in paths if Path(p).exists()]
    if taken and not force:
        raise HeuriError(f"{', '.join(taken)} already exist; give another --out or --force to overwrite")


def _master_from(args, pack=None):
    """The master game of ``--from``/``--game`` FILE, else generated from ``--seed``."""
    from .duplicate import load_master, master_game
    from ..core.pack import load_pack

    path = getattr(args, "from_file", None) or getattr(args, "game", None)
    if path:
        from ..core.errors import GcgError
        from ..formats.gcg import read_gcg_file

        try:
            record = read_gcg_file(path)
        except GcgError as e:
            raise HeuriError(str(e)) from None
        lang = args.lang or record.guess_language()
        from ..core.pack import pack_for_record

        # the lexicon its tops were found in (#lexicon), when its pack is built
        pack = pack or pack_for_record(_lang_or_guess(lang, None, path), record.lexicon)
        return pack, load_master(path, pack)
    pack = pack or load_pack(args.lang or "fr")
    return pack, master_game(pack, seed=args.seed)


def _notation(name: str) -> str:
    """``--notation``/``--coords`` → a duplicate notation (``standard`` is ``gcg``)."""
    return "gcg" if name == "standard" else name


def cmd_duplicate_new(args) -> int:
    """Generate a master game: its GCG record and its sheet (CSV and Parquet)."""
    from rich.console import Console
    from rich.table import Table

    from rich.markup import escape

    from .duplicate import sheet, to_gcg
    from ..formats.gcg import write_gcg
    from ..core.pack import load_pack

    from ..core.outdir import OutputFolder

    pack = load_pack(args.lang)
    out = Path(args.out or f"duplicate/{args.lang}-{args.seed}.gcg")
    if out.suffix != ".gcg":
        out = out.with_suffix(".gcg")
    paths = [out, out.with_suffix(".csv"), out.with_suffix(".parquet")]
    # the folder's marker lists the files this command wrote: only those are replaced with
    # --force, each through a temporary file renamed over it (a link is replaced, not followed)
    folder = OutputFolder.open_shared(out.parent, "heuri duplicate new", what="the master game")
    folder.check_targets([p.name for p in paths], args.force)
    from .duplicate import master_game

    game = master_game(pack, seed=args.seed)
    df = sheet(game)
    folder.write(paths[0].name, write_gcg(to_gcg(game)))
    folder.write_with(paths[1].name, lambda tmp: df.write_csv(tmp))
    folder.write_with(paths[2].name, lambda tmp: df.write_parquet(tmp))
    spec = pack.spec
    t = Table(title=f"master game {game.game_id} ({spec.name}, seed {args.seed}): {game.total} points, "
                    f"{len(game.turns)} turns, {game.bingos} bingos; end: {game.end}")
    for col in ("turn", "draw", "top", "score", "total", "tops", "rejected"):
        t.add_column(col, justify="right" if col in ("turn", "score", "total", "tops") else "left")
    from ..formats.render import move_text

    for turn, row in zip(game.turns, df.iter_rows(named=True)):
        t.add_row(str(row["turn"]), escape(row["draw"]), escape(move_text(turn.top, spec, turn.board, args.coords)),
                  str(row["score"]), str(row["cumulative"]), str(row["tops"]), escape(row["rejected"]))
    Console().print(t)
    print(f"wrote {paths[0]}, {paths[1]}, {paths[2]}")
    return 0


def cmd_duplicate_play(args) -> int:
    """The topping trainer (heuri.trainer) on a master game."""
    from .trainer import Trainer, run

    if args.time <= 0:
        raise HeuriError(f"duplicate play: --time {args.time}: give a positive number of seconds")
    if args.sheet:
        _fresh([args.sheet], args.force)
    pack, game = _master_from(args)
    if not game.turns:
        raise HeuriError("duplicate play: the master game has no turn")
    tr = run(Trainer(game, pack.words, args.player, _notation(args.notation)), time_limit=args.time, pause=not args.no_pause)
    if args.sheet:
        tr.write_sheet(args.sheet)
        print(f"wrote {args.sheet} (score it: heuri duplicate score --game GAME.gcg --sheets {args.sheet})")
    return 0


def cmd_duplicate_score(args) -> int:
    """Arbitration: players' sheets against a master game; ranking as CSV and HTML."""
    from rich.console import Console
    from rich.table import Table

    from rich.markup import escape

    from .arbitration import ranking_frame, ranking_html, read_sheets, sheet_paths
    from .duplicate import arbitrate

    game_path = Path(args.game)
    stem = Path(args.out) if args.out else game_path.with_name(game_path.stem + "-ranking")
    csv_path, html_path = stem.with_suffix(".csv"), stem.with_suffix(".html")
    _fresh([csv_path, html_path], args.force)
    pack, game = _master_from(args)
    subs = read_sheets(sheet_paths(args.sheets), game, _notation(args.notation))
    if not subs:
        raise HeuriError(f"{args.sheets}: the sheets hold no move")
    results = arbitrate(game, subs, pack.words)
    frame = ranking_frame(game, results)
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    frame.write_csv(csv_path)
    html_path.write_text(ranking_html(game, results, ui_lang=args.ui_lang), encoding="utf-8")
    t = Table(title=f"{game.game_id}: top total {game.total} over {len(game.turns)} turns")
    for col in ("#", "player", "total", "% of top", "tops", "warnings", "penalty", "illegal", "missing"):
        t.add_column(col, justify="left" if col == "player" else "right")
    for row in frame.iter_rows(named=True):
        t.add_row(str(row["rank"]), escape(row["player"]), str(row["total"]), f"{row['percent']:.2f}",
                  str(row["tops"]),
                  str(row["warnings"]), str(row["penalty"]), str(row["illegal"]), str(row["missing"]))
    Console().print(t)
    print(f"wrote {csv_path}, {html_path}")
    return 0


def add_duplicate_parser(sub) -> None:
    """``heuri duplicate new|play|score``."""
    p = sub.add_parser("duplicate", help="duplicate: master games, a topping trainer, arbitration")
    dsub = p.add_subparsers(dest="duplicate_command", required=True)

    q = dsub.add_parser("new", help="generate a master game: GCG record + sheet (CSV, Parquet)")
    q.add_argument("--lang", default="fr", help="language pack (fr, es, en); default fr")
    q.add_argument("--seed", type=SEED, default=1, help="the draw's seed (default 1): same seed, same game")
    q.add_argument("--out", help="the GCG file (default duplicate/<lang>-<seed>.gcg); the sheet goes beside "
                                 "it as .csv and .parquet")
    q.add_argument("--force", action="store_true", help="replace the files an earlier `heuri duplicate new` "
                   "wrote there (never other files)")
    _coords_option(q)
    q.set_defaults(func=cmd_duplicate_new)

    q = dsub.add_parser("play", help="the topping trainer: play a master game in the terminal, against the clock")
    q.add_argument("--lang", help="language pack; default: the record's, else fr")
    src = q.add_mutually_exclusive_group()
    src.add_argument("--seed", type=SEED, default=1, help="play the master game of this seed (default 1)")
    src.add_argument("--from", dest="from_file", help="play the master game of this GCG record")
    q.add_argument("--time", type=SECONDS, default=180.0, help="seconds a turn (default 180)")
    q.add_argument("--player", default="me", help="your name in the sheet")
    q.add_argument("--sheet", help="write your moves as a players' sheet (CSV) for `heuri duplicate score`")
    q.add_argument("--no-pause", action="store_true", help="do not wait for Enter between turns")
    q.add_argument("--notation", "--coords", dest="notation", choices=("gcg", "standard", "fisf"), default="gcg",
                   help="move references: gcg or standard (8D WORD across, H4 MOT down; default) or fisf "
                        "(rows A-O, columns 1-15: H4 MOT across, 4H MOT down)")
    q.add_argument("--force", action="store_true", help="overwrite the --sheet file")
    q.set_defaults(func=cmd_duplicate_play)

    q = dsub.add_parser("score", help="arbitration: validate players' sheets, rank them (CSV + printable HTML)")
    q.add_argument("--game", required=True, help="the master game's GCG record (from `heuri duplicate new`)")
    q.add_argument("--sheets", required=True, help="a folder of players' sheets (*.csv: player,turn,move,score) "
                                                   "or one sheet")
    q.add_argument("--lang", help="language pack; default: the record's")
    q.add_argument("--out", help="output stem (default <game>-ranking): writes .csv and .html")
    q.add_argument("--notation", "--coords", dest="notation", choices=("gcg", "standard", "fisf"), default="gcg",
                   help="how the sheets write moves: gcg or standard (8D WORD across, H4 MOT down; default) or "
                        "fisf (H4 MOT across on row H, 4H MOT down); either may write the tiles already on the "
                        "board in parentheses (8D JUG(E)E)")
    q.add_argument("--force", action="store_true", help="overwrite existing ranking files")
    q.add_argument("--ui-lang", choices=INTERFACE_LANGUAGES, help="the ranking page's language (en, es, fr); default: "
                   "the game's language (English for others)")
    q.set_defaults(func=cmd_duplicate_score, seed=None)


# -- serve ------------------------------------------------------------------------------
def cmd_serve(args) -> int:
    """The local web board (heuri.web): Position, Game and Play views over a JSON API."""
    from .web import serve
    from .web.app import is_loopback

    if not 0 < args.port < 65536:
        raise HeuriError(f"serve: --port {args.port}: give a port from 1 to 65535")
    if not is_loopback(args.host) and not args.allow_remote:
        raise HeuriError(f"serve: --host {args.host} listens beyond this machine: anyone who can reach it can use "
                         f"the board; add --allow-remote to do so (default 127.0.0.1: this machine only)")
    if args.records is not None and not Path(args.records).expanduser().is_dir():
        raise HeuriError(f"serve: --records {args.records}: no such folder")
    langs = list(args.lang)
    if os.environ.get("HEURI_LEXICON"):  # --lexicon NAME: its language is served too
        from ..core.pack import lexicon_language

        own = lexicon_language(os.environ["HEURI_LEXICON"])
        if own and own not in langs:
            langs.append(own)
    return serve(args.host, args.port, langs, records=args.records, allow_remote=args.allow_remote)


def add_serve_parser(sub) -> None:
    p = sub.add_parser("serve", help="a local web board: analyse a position, step through a game, play against heuri")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only; "
                                                       "another needs --allow-remote)")
    p.add_argument("--port", type=int_arg(), default=8765, help="port (default 8765)")  # range: cmd_serve
    p.add_argument("--lang", nargs="+", default=["es", "en", "fr"], help="languages to serve (default: es en fr)")
    p.add_argument("--records", metavar="DIR",
                   help="a folder whose .gcg records (and heuri analyze tables) the Game view may open by path; "
                        "without it the board reads no file, records are uploaded")
    p.add_argument("--allow-remote", action="store_true",
                   help="listen on an address other than loopback (--host): other machines can then use the board")
    p.set_defaults(func=cmd_serve)


# -- parser -----------------------------------------------------------------------------
def _set_types(parser: argparse.ArgumentParser, **types) -> None:
    """Give the options of ``parser`` named by their ``dest`` (``first_game`` for
    ``--first-game``) these argparse ``type=`` callables: the bounds of options declared in
    another module (``heuri match``'s, in heuri.match). Raises KeyError for a ``dest`` the
    parser does not have, so that a renamed option cannot lose its check silently."""
    actions = {a.dest: a for a in parser._actions}
    for dest, kind in types.items():
        actions[dest].type = kind


def _coords_option(p) -> None:
    """``--coords standard|fisf``: how the command writes move coordinates (see
    :data:`heuri.move.COORDS`)."""
    p.add_argument("--coords", choices=("standard", "fisf"), default="standard",
                   help="coordinates of the moves shown: standard (8D across, D8 down; default) or fisf "
                        "(the French federation's: rows A-O, columns 1-15; H4 across, 4H down)")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="heuri", description="Heuri Scrabble engine (es, en, fr, and any language with a spec under lexicons/)",
        epilog="Language packs are read from <repo>/build/<lang>, or from the folder given by --build or "
               "the HEURI_BUILD environment variable (e.g. the build/ of another checkout); a pack's own "
               "spec.toml is the one used. A record's language is recognised from its lexicon or letter "
               "distribution name by each spec's [recognise] table; --lang overrides.")
    ap.add_argument("--version", action="version", version=f"heuri {__version__}")
    ap.add_argument("--build", metavar="DIR", help="folder of built language packs (DIR/<lang>/manifest.json); "
                    "default: $HEURI_BUILD, else <repo>/build")
    ap.add_argument("--lexicon", metavar="NAME", help="answer with the pack of this lexicon (one built by "
                    "heuri lexicon import, e.g. FRA20); default: $HEURI_LEXICON, else a record's #lexicon / lex "
                    "when its pack is built, else the language's default pack. heuri serve answers NAME's "
                    "language with it (and serves that language) and the others with their default packs")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("packs", help="list the built language packs and their counts")
    p.set_defaults(func=cmd_packs)

    p = sub.add_parser("lexicon", help="build a pack from a lexicon file you have (KWG, Quackle DAWG, word list)")
    lsub = p.add_subparsers(dest="lexicon_command", required=True)
    q = lsub.add_parser("import", help="turn a lexicon file into a pack <lang>-<NAME> beside the default packs",
                        description="Build a language pack from a lexicon file: a KWG (wolges, MAGPIE, Macondo), a "
                                    "Quackle DAWG (version 1) or a plain list (one word a line; gzip if .gz). "
                                    "The pack is <build>/<lang>-<NAME>; select it with heuri --lexicon NAME, or "
                                    "a record's #lexicon NAME / CGP lex NAME;. See docs/lexicons.md.")
    q.add_argument("file", help="the lexicon file (FRA20.kwg, csw24.dawg, words.txt)")
    q.add_argument("--lang", required=True, help="the language spec of lexicons/ (fr, en, es, ca, de, pl, nl, ...)")
    q.add_argument("--name", help="the lexicon's name (default: the file name without .kwg/.dawg/.txt/.gz)")
    q.add_argument("--format", choices=("kwg", "dawg", "text"), help="the file's format (default: from its name)")
    p.set_defaults(func=cmd_lexicon)

    p = sub.add_parser("siu", help="run heuri as an SIU engine on stdin/stdout (for GUIs and match runners)")
    p.add_argument("--lang", default="es", help="initial Lexicon option: a built pack (es, en, fr, or any other built with snakemake) or a pack folder")
    p.add_argument("--log", default=None, help="append a transcript of the session ('> ' in, '< ' out) to this file")
    p.set_defaults(func=cmd_siu)

    p = sub.add_parser("moves", help="every legal move of a CGP position, with score, tiles played and leave")
    p.add_argument("--lang", help="language pack (a built one: es, en, fr, ca, ...); default: from the CGP's lex/ld")
    p.add_argument("--cgp", required=True, help="the position, one CGP line")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    _coords_option(p)
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("replay", help="replay GCG records and check every recorded score and total")
    p.add_argument("game", nargs="+", help="GCG files or folders of *.gcg (several: a summary at the end)")
    p.add_argument("--lang", help="language pack; default: from #lexicon / #tile-distribution")
    p.add_argument("--end-rule", choices=("double", "transfer", "auto"), default="auto",
                   help="end-of-game bonus rule for this replay (default auto: the form of the "
                        "record's end lines, Quackle's transfer or Woogles' double, else the pack's)")
    _coords_option(p)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("show", help="a position as text: board with premium squares, racks, scores")
    p.add_argument("game", nargs="?", help="GCG file (or use --cgp)")
    p.add_argument("--cgp", help="the position, one CGP line")
    p.add_argument("--turn", type=TURN, help="GCG: show the position after turn N (the Nth move of the game, both "
                   "players counted, as the analysis report numbers them; 0: the empty board; default: the end)")
    p.add_argument("--lang", help="language; default: from the record")
    p.add_argument("--end-rule", choices=("double", "transfer", "auto"), default="auto", help=argparse.SUPPRESS)
    _coords_option(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("best", help="rank a position's candidate moves with an evaluator (score, bingo "
                                    "expectation and probability, equity, leave, fish)")
    p.add_argument("--lang", help="language pack (a built one: es, en, fr, ca, ...); default: from the CGP or GCG record")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--cgp", help="the position, one CGP line (the first rack is the player to move)")
    src.add_argument("--gcg", help="a GCG record; the position before its --turn N move")
    p.add_argument("--turn", type=TURN, help="GCG: rank turn N, the position before the Nth move of the game "
                   "(both players counted, as the analysis report numbers them), with its rack (default: the "
                   "last turn whose rack the record gives)")
    p.add_argument("--engine", choices=FRONT_END_ENGINES, default=DEFAULT_ENGINE,
                   help=f"the evaluator (default {DEFAULT_ENGINE})")
    p.add_argument("--top", type=TOP, default=10, help="candidates to print (default 10)")
    p.add_argument("--json", action="store_true", help="one JSON object per line: move, score, bingo_expectation, "
                                                       "bingo_probability, equity, leave, fish")
    p.add_argument("-k", type=float_arg(0, 100, lo_open=True), default=None,
                   help="bingo value 50 + k·σ (default 2.5; more than 0, at most 100)")
    p.add_argument("--top-n", type=TOP, default=None, help="heuri3-5: placements re-valued with δ after the move (default 20)")
    p.add_argument("--exact", action="store_true", help="heuri3-5: re-value every placement with δ after the move")
    p.add_argument("--no-penalty", action="store_true", help="heuri1: no defensive penalty d")
    p.add_argument("--explain", action="store_true", help="each move's equity as named terms (points, bingo "
                   "next turn, lanes for the opponent, leave quality, next rack's scoring power) with a legend")
    p.add_argument("--why-not", metavar="MOVE", help="the terms of MOVE (GCG: '8D VERBE', '-V') beside the "
                   "engine's choice, and the difference per term")
    p.add_argument("--think", type=think_seconds, metavar="SECONDS",
                   help="simulate for that long (5s, 0.5): the engine's best --candidates moves raced by "
                        "two-ply rollouts (docs/simulation.md), ranked by their mean value")
    p.add_argument("--candidates", type=int_arg(2, 100), default=8,
                   help="--think: the engine's best moves that race (default 8)")
    p.add_argument("--seed", type=SEED, default=0, help="--think: the rollouts' draws (default 0)")
    p.add_argument("--rollout", choices=("full", "fast"), default="full",
                   help="--think: full (default): our move two plies on valued by a Heuri_2 ranking of its rack; "
                        "fast: by a table of every leave's bingo expectation built once (more rollouts, an "
                        "approximation; docs/simulation.md)")
    p.add_argument("--threads", type=int_arg(1, 64), default=min(os.cpu_count() or 1, 4),
                   help="--think: rollouts played at once, one a thread (default: this machine's cores, at most 4)")
    _coords_option(p)
    p.set_defaults(func=cmd_best)

    p = sub.add_parser("endgame", help="solve a bag-empty position: best moves by value, principal variation, exact")
    p.add_argument("--lang", help="language pack (a built one: es, en, fr, ca, ...); default: from the CGP's lex/ld")
    p.add_argument("--cgp", required=True, help="the position, one CGP line, both racks given, bag empty")
    p.add_argument("--top", type=TOP, default=10, help="moves to value and print (default 10)")
    p.add_argument("--time", type=SECONDS, default=60.0,
                   help="seconds for the search (default 60); the node and move-list limits grow with it "
                        "(the summary line states them)")
    p.add_argument("--nodes", type=int_arg(1, 10 ** 9), default=None,
                   help="positions and move lists the search may visit (default: from --time)")
    p.add_argument("--json", action="store_true", help="one JSON object per line: rank, move, value, exact, depth, pv")
    _coords_option(p)
    p.set_defaults(func=cmd_endgame)

    p = sub.add_parser("peg", help="pre-endgame (1 to 7 tiles in the bag): win odds of each candidate over every draw")
    p.add_argument("--lang", help="language pack (a built one: es, en, fr, ca, ...); default: from the CGP's lex/ld")
    p.add_argument("--cgp", required=True, help="the position, one CGP line (the opponent's rack may be left empty)")
    p.add_argument("--top", type=int_arg(1, 1000), default=5,
                   help="evaluator candidates, and as many bag-emptying placements (default 5)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    _coords_option(p)
    p.set_defaults(func=cmd_peg)

    p = sub.add_parser("infer", help="inference: what the opponent kept, from the move they made")
    p.add_argument("game", nargs="?", help="GCG file: infer from the event --turn N (or use --cgp and --move)")
    p.add_argument("--turn", type=int_arg(1, 10000), help="with a GCG file: the event (1 = the first move line)")
    p.add_argument("--lang", help="language pack; default: from the CGP's lex/ld or the record")
    p.add_argument("--cgp", help="the position before their move, one CGP line: they are to move, their rack "
                                 "left empty, ours given")
    p.add_argument("--move", help="their move, GCG notation (8D DJINN, -4 for an exchange of four, - a pass)")
    p.add_argument("--engine", default="heuri2", help="the evaluator that models the player (default heuri2)")
    p.add_argument("--temperature", type=float_arg(0, 1000, lo_open=True), default=6.0,
                   help="τ, points: how far from the engine's choice the player strays (default 6)")
    p.add_argument("--samples", type=int_arg(1, 100000), default=200,
                   help="racks drawn when the leaves are too many to enumerate (default 200)")
    p.add_argument("--time", type=SECONDS, default=None, help="seconds: stop drawing racks after this long")
    p.add_argument("--seed", type=SEED, default=0, help="seed of the draws")
    p.add_argument("--top", type=int_arg(1, 1000), default=10, help="leaves shown (default 10)")
    p.add_argument("--json", action="store_true", help="one JSON document")
    p.set_defaults(func=cmd_infer)

    p = sub.add_parser("match", help="paired self-play match between two engines (seats swapped, same tiles)")
    from ..play.match import add_match_arguments

    add_match_arguments(p)
    # the lower bounds of --games, --jobs, --first-game, --movetime and --endgame-* are
    # heuri.match's own checks (their messages say what a match needs); here, whole numbers
    # and the upper bounds
    _set_types(p, games=int_arg(None, 10 ** 7), seed=SEED, jobs=int_arg(None, 256),
               first_game=int_arg(None, 10 ** 9), movetime=int_arg(None, 3_600_000),
               endgame_generations=int_arg(None, 10 ** 8), endgame_width=int_arg(None, 100_000))
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("analyze", help="analyse game records: equity lost a turn, missed bingos, HTML report")
    p.add_argument("games", nargs="+", help="GCG files or folders of them (searched recursively)")
    p.add_argument("--lang", help="language pack for every record; default: from each record's #lexicon")
    p.add_argument("--engine", default=DEFAULT_ENGINE, help="engine to rank with (heuri5, heuri4, heuri3, heuri2, heuri1, "
                   f"greedy, or a -noend variant: no endgame search); default {DEFAULT_ENGINE}")
    p.add_argument("--out", default="analysis", help="output folder (default: analysis)")
    p.add_argument("--player", help="analyse only this player's turns (nick or full name)")
    p.add_argument("--jobs", type=JOBS, default=1, help="games analysed in parallel (default 1)")
    p.add_argument("--force", action="store_true", help="replace an earlier analysis in --out (deletes only the files "
                   "it wrote; the same command without --force resumes it)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _coords_option(p)
    p.add_argument("--ui-lang", choices=INTERFACE_LANGUAGES, help="the pages' language (en, es, fr); default: each "
                   "game's language (English for others)")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--think", type=think_seconds, metavar="SECONDS",
                        help="think longer: also simulate each turn for that long (5s, 0.5), the move played racing "
                             "beside the engine's best --candidates (docs/simulation.md)")
    budget.add_argument("--iterations", type=int_arg(1, 100_000), metavar="N",
                        help="think longer with N rollouts for the moves that race to the end instead of a time: "
                             "the same figures on any machine and with any --jobs")
    p.add_argument("--candidates", type=int_arg(2, 20), default=None,
                   help="--think/--iterations: the engine's best moves that race beside the move played (default 8)")
    p.add_argument("--rollout", choices=("full", "fast"), default=None,
                   help="--think/--iterations: full (default) or fast rollouts (heuri best --help)")
    p.set_defaults(func=cmd_analyze)
    add_duplicate_parser(sub)
    add_serve_parser(sub)

    # Further subcommands register here (moves, replay, show, best, match, siu).
    _lexicon_everywhere(sub)
    return ap


def _lexicon_everywhere(sub) -> None:
    """``--lexicon NAME`` after any subcommand too (``heuri moves --lexicon FRA20 ...``), the
    same option as before it; each subcommand's own ``--lexicon``, if any, is left alone."""
    for name, p in sub.choices.items():
        if name == "lexicon":
            continue
        if not any("--lexicon" in a.option_strings for a in p._actions):
            p.add_argument("--lexicon", metavar="NAME", default=argparse.SUPPRESS,
                           help="answer with the pack of this lexicon (as heuri --lexicon NAME)")
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                _lexicon_everywhere(a)


#: the commands that run the compiled kernels (numba compiles them on first use)
COMPILING = ("moves", "best", "endgame", "peg", "match", "analyze", "duplicate", "serve", "siu")


def kernels_cached() -> bool | None:
    """Whether numba's on-disk cache holds the main kernels (move generation, δ, the leave
    tables) for the source as it is: True, False (the first run compiles them, 15-60 s), or
    None when it cannot tell (numba's cache layout is not the one read here)."""
    try:
        from ..core import movegen
        from ..eval import bingo, evaluate, probability

        kernels = (movegen.CACHED_KERNELS + bingo.CACHED_KERNELS + probability.CACHED_KERNELS
                   + evaluate.CACHED_KERNELS)
        # an index whose source stamp is stale loads as empty: numba would compile again
        return all(bool(k._cache._cache_file._load_index()) for k in kernels)
    except Exception:  # a numba without these internals: say nothing rather than fail
        return None


def compile_notice(file=None) -> bool:
    """Say on stderr (``file``) that the kernels are being compiled when numba's cache is
    cold (:func:`kernels_cached` False), so that a first run's silent minute is explained;
    returns whether it said so."""
    if kernels_cached() is not False:
        return False
    print("heuri: compiling the move generator and the evaluator, once (1-3 minutes on 2 cores, more "
          "on a busy machine; later runs load them from the cache)...", file=file or sys.stderr, flush=True)
    return True


def main(argv: list[str] | None = None) -> int:
    """Run the ``heuri`` command line on ``argv`` (default ``sys.argv[1:]``); returns the exit
    status (0, 1 for a failed check, 2 for an error, 130 when interrupted). ``--build`` and
    ``--lexicon`` reach match workers and SIU sessions through the environment
    (``HEURI_BUILD``, ``HEURI_LEXICON``); the caller's environment is restored on return, so
    that a program calling ``main`` twice does not inherit the first call's choice."""
    saved = {k: os.environ.get(k) for k in ("HEURI_BUILD", "HEURI_LEXICON")}
    try:
        return _main(argv)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _main(argv: list[str] | None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.build:
        if not Path(args.build).is_dir():
            print(f"heuri: error: --build {args.build}: no such folder", file=sys.stderr)
            return 2
        # Through the environment, so that match workers and SIU sessions see it too.
        os.environ["HEURI_BUILD"] = str(Path(args.build).resolve())
    if args.lexicon:
        # Through the environment too (match workers, SIU sessions); load_pack reads it.
        os.environ["HEURI_LEXICON"] = args.lexicon
    if args.command in COMPILING:
        compile_notice()
    try:
        if args.lexicon and args.command != "lexicon":
            from ..core.pack import lexicon_root

            lexicon_root(args.lexicon, None)  # a missing one: one line, before any work
        return int(args.func(args) or 0)
    except HeuriError as e:
        print(f"heuri: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        from ..core.outdir import Interrupted

        # a run that saved what finished says where and how to resume
        print(f"heuri: {e}" if isinstance(e, Interrupted) else "heuri: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
